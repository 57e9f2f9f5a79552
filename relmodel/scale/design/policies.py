"""Degraded operation: what a design's policy, spares and tolerated faults do to ETTR.

A design (:class:`relmodel.Cluster`) says what the job needs when part of a
scale-up domain fails (``Cluster.domain_policy``):

* ``"whole-domain"``: tensor or expert parallelism spans the domain, so a
  failed tray takes its whole domain out; ``spare_pool`` spare domains stand by;
* ``"in-domain-spares"``: ``domain_spares`` trays of each domain are idle and
  swapped in within minutes (e.g. run 64 of 72 GPUs); the domain is out only
  when more trays than that are in repair at once, then a pool domain stands in;
* ``"spare-pool"``: any node can replace any other; ``spare_pool`` spare nodes
  stand by (a whole-domain fault needs a domain's worth of them).

Observed rates are scaled to the design (:func:`relmodel.scale.clusters.scaling.scale_rates`),
each cause gets its level (:func:`relmodel.scale.clusters.domains.cause_levels`), and:

* every failure that is not tolerated interrupts the job once, whatever its
  radius; per-job and network causes need no spare, node and domain faults do;
* faults on idle spare trays, and on their links, never interrupt the job;
* causes in the ``correlated`` table take several nodes or domains per event
  (:mod:`relmodel.scale.clusters.correlated`), each needing a spare;
* tolerated faults (``tolerated={"Network Switch/Cable": 0.9}``: the share of
  a cause, category or level the design absorbs; by default a design with
  ``planes >= 2`` absorbs every single link and leaf-switch failure) cost
  ``absorb`` hours of progress each instead of a restart;
* the chance a failure finds no spare and the mean stall waiting for one come
  from :mod:`relmodel.scale.design.compound` (closed form and simulation).

ETTR = ETTR*(M) x (1 - absorbed rate x absorb) x (1 - stalled share), with
ETTR*(M) the exact optimum of Daly's model at the job MTBF M of the
interrupting causes and the stalled share the long-run share of time the job
waits for a spare (the union of the waits, with nothing failing while the job
is stopped, as in the spare pool's ``"stall"`` model:
:func:`relmodel.scale.design.compound.closed_form`, :mod:`relmodel.scale.design.stopped`;
the simulator checks the same closed form with failures going on).
Intervals come from a parametric bootstrap over the observed Poisson counts.
A design that holds no spares at all says so in its ``warnings``: every
repair is waited out.
"""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pandas as pd

from ...scenario import takes_scenario
from ...checkpoint.intervals import optimal_interval
from ...errors import DesignError
from ...units import hours
from .compound import DomainModel, closed_form, simulate_domains
from .domain_runs import runs_for
from ..clusters.correlated import burst_groups, cause_spans
from .design_capacity import RACK_FIT_DEFAULT, _fit, parts_rate, rack_bursts, with_capacity
from .design_result import DesignResult
from .tolerance import ToleranceGain
from ..sparing.repair_queue import check_crews, lead_mean
from ..clusters.domains import LEVELS, blast_radius, cause_levels
from ..targets.law_requirements import ettr_at
from ..sparing.spares import _mean_repair
from ...tables import Result, duration, html_table
from ..sparing.words import share_words
from relmodel.base.escape import html_text

__all__ = ["check_design", "tolerated_shares", "domain_model", "DesignResult", "evaluate_design", "NETWORK_LEVELS",
           "ToleranceGain", "tolerance_gain"]

NETWORK_LEVELS = ("leaf", "link")


def check_design(cluster):
    """Raise :class:`~relmodel.errors.DesignError` unless the GPUs split into whole scale-up domains."""
    size = cluster.scaleup_gpus or cluster.gpus_per_node
    if cluster.n_gpus % size:
        lo, hi = cluster.n_gpus // size * size, -(-cluster.n_gpus // size) * size
        raise DesignError(f"{cluster.name}: {cluster.n_gpus:,} GPUs do not divide into {size}-GPU scale-up domains; "
                          f"use a multiple of {size}, e.g. " + " or ".join(f"{v:,}" for v in sorted({max(lo, size), hi})))
    return cluster


def _share(name, value):
    v = float(value)
    if not np.isfinite(v) or v < 0:
        raise DesignError(f"tolerated share for {name!r} must be a fraction from 0 to 1; got {value!r} (negative)")
    if v > 1:
        raise DesignError(f"tolerated share for {name!r} must be a fraction from 0 to 1; got {value!r} (over 1)")
    return v


def tolerated_shares(levels_table, cluster, tolerated=None):
    """Share of each cause's failures the design absorbs (array aligned with ``levels_table``).

    ``tolerated`` maps a component, category or level to a share in [0, 1];
    names win over levels.  Without an entry, a cause at a network level
    (``leaf``, ``link``) is fully absorbed when the design has ``planes >= 2``.
    """
    t = levels_table
    rule = np.where(t["level"].isin(NETWORK_LEVELS) & (cluster.planes > 1), 1.0, 0.0)
    if tolerated is None:
        return rule
    if not isinstance(tolerated, dict):
        raise DesignError(f"tolerated must be a dict of cause, category or level to a share; got {tolerated!r}")
    shares = {str(k).lower(): _share(k, v) for k, v in tolerated.items()}
    valid = {str(x).lower() for col in ("component", "category", "level") for x in t[col]} | set(LEVELS)
    unknown = [k for k in tolerated if str(k).lower() not in valid]
    if unknown:
        raise DesignError(f"no cause, category or level named {', '.join(map(repr, unknown))}; valid: "
                          f"{', '.join(dict.fromkeys(map(str, t['component'])))}, or a level: {', '.join(LEVELS)}")
    out = rule.copy()
    for i, row in enumerate(t.itertuples()):
        for key in (str(row.level).lower(), str(row.category).lower(), str(row.component).lower()):
            if key in shares:
                out[i] = shares[key]
    return out


def domain_model(cluster, tray_rate, group_rate):
    """The :class:`~relmodel.scale.design.compound.DomainModel` of a design's policy."""
    trays = cluster.trays_per_domain
    if cluster.domain_policy == "spare-pool":
        return DomainModel(groups=cluster.n_nodes, trays=1, pool=cluster.spare_pool, tray_rate=tray_rate,
                           group_rate=group_rate, need=trays)
    spares = cluster.domain_spares if cluster.domain_policy == "in-domain-spares" else 0
    return DomainModel(groups=cluster.n_scaleup_domains, trays=trays, spares=spares, pool=cluster.spare_pool,
                       tray_rate=tray_rate, group_rate=group_rate)


def _gpus(cluster):
    """(GPUs bought, GPUs the job uses, GPUs idle as spares)."""
    unit = cluster.gpus_per_node if cluster.domain_policy == "spare-pool" else (cluster.scaleup_gpus or
                                                                                cluster.gpus_per_node)
    pool = cluster.spare_pool * unit
    in_domain = cluster.n_scaleup_domains * cluster.domain_spares * cluster.gpus_per_node \
        if cluster.domain_policy == "in-domain-spares" else 0
    return cluster.n_gpus + pool, cluster.n_gpus - in_domain, pool + in_domain


def _rates(cluster, source, levels, tolerated, domain_fit, n_boot, seed):
    from ..clusters.scaling import scale_rates
    scaled = scale_rates(source, target_cluster=cluster, n_boot=max(int(n_boot), 1), seed=seed)
    table = cause_levels(scaled, levels)
    tol = tolerated_shares(table, cluster, tolerated)
    draws = scaled.draws(max(int(n_boot), 1), seed) if n_boot else table["rate_per_h"].to_numpy()[None, :]
    return table, tol, draws, _fit("domain_fit", domain_fit) * 1e-9


def _idle_share(cluster, unit):
    """Share of a design's ``unit`` (nic, link, optical_link, transceiver) on the NIC links of idle spare trays.

    Only a tray's own NIC links idle with it; links between switch tiers carry the job's traffic.
    """
    if cluster.domain_policy != "in-domain-spares" or not cluster.domain_spares:
        return 0.0
    counts = cluster.counts()
    nics = cluster.n_scaleup_domains * cluster.domain_spares * (cluster.nics_per_node or cluster.gpus_per_node)
    idle = {"nic": nics, "link": nics * cluster.planes}
    optical = nics * cluster.planes if cluster.nic_links_optical else 0
    idle.update(optical_link=optical, transceiver=optical * cluster.transceivers_per_link)
    return float(idle.get(unit, 0) / counts[unit]) if counts.get(unit) else 0.0


def _used_shares(cluster, table):
    """Per cause, the share of its units the job uses: 1, less the idle trays' NIC links for link-level causes."""
    level, unit = table["level"].to_numpy(), table["scales_with"].to_numpy()
    return np.array([1.0 - _idle_share(cluster, u) if lv == "link" else 1.0 for lv, u in zip(level, unit)])


def _split(table, tol, rates, share, spans, used):
    """Per row of ``rates``: interrupting rate, absorbed rate, tray rate total, domain rate total, burst rates.

    Faults on idle spare trays (and on their NIC links) neither interrupt the job nor cost it progress:
    node rates count only the share ``share`` of trays the job uses, link rates the share ``used`` of
    links (:func:`_used_shares`).  Causes with a span (``spans`` > 0) are bursts: they interrupt once per
    event and are kept apart (one column each).
    """
    level = table["level"].to_numpy()
    burst = spans > 0
    hw = np.isin(level, ("gpu", "node")) & ~burst
    dom = (level == "domain") & ~burst
    rest = ~hw & ~dom & ~burst
    tray_total = rates[:, hw].sum(axis=1)
    dom_total = rates[:, dom].sum(axis=1)
    other = rates[:, rest] @ ((1.0 - tol[rest]) * used[rest])
    bursts = rates[:, burst] * (1.0 - tol[burst])
    absorbed = rates @ np.where(hw | dom, 0.0, tol * used)
    interrupt = tray_total * share + dom_total + other + bursts.sum(axis=1)
    return interrupt, absorbed, tray_total, dom_total, bursts


def _fraction(name, value, low_ok=True):
    v = float(value)
    if not (np.isfinite(v) and (0.0 <= v if low_ok else 0.0 < v) and v <= 1.0):
        raise DesignError(f"{name} must be a fraction {'from 0' if low_ok else 'above 0'} to 1; got {value!r}")
    return v


def _leaf_bursts(cluster, switch_fit, network_repair):
    """(rate per hour, groups, repair) of leaf-switch failures a single plane does not survive."""
    from ..clusters.correlated import _leaf_nodes
    fit = float(switch_fit)
    if not (fit >= 0 and np.isfinite(fit)):
        raise DesignError(f"switch_fit must be a finite FIT per leaf switch >= 0; got {switch_fit!r}")
    if fit == 0 or cluster.planes > 1:
        return ()
    rate = fit * 1e-9 * cluster.switches_per_tier()[0]
    return ((rate, burst_groups(cluster, _leaf_nodes(cluster)), network_repair),)


@takes_scenario(ckpt_cost="ckpt_cost", restart="restart", repair="repair_time", crews="crews", conf="conf")
def evaluate_design(cluster, source, ckpt_cost, restart, *, repair="24h", levels=None, tolerated=None, absorb=0.0,
                    domain_fit=0.0, network_repair="6min", n_runs=10_000, horizon="7d", n_boot=1000, seed=None,
                    conf=0.95, correlated=None, switch_fit=0.0, efficiency=1.0, straggler_loss=0.0, crews=None,
                    rma_lead_time=0.0, spare_rate_per_h="hot", rack_fit=RACK_FIT_DEFAULT):
    """ETTR, GPUs idle, P(no spare) and stalls of one design; returns a :class:`DesignResult`.

    ``repair`` is the mean tray or domain repair (or a repair model);
    ``domain_fit`` adds whole-domain faults (FIT per domain) that the source
    does not record; ``switch_fit`` adds leaf-switch failures (FIT per leaf
    switch; :mod:`relmodel.scale.clusters.correlated` gives the public figure);
    ``correlated`` maps a cause to what one event takes out (``"3 racks"``,
    ``"leaf"``...); ``network_repair`` sets how long a network fault keeps
    its GPUs out (Singh et al. 2021 report half of switch failures last
    under 6 minutes).  ``crews`` (parallel hardware repairs; None:
    unlimited), ``rma_lead_time``, ``spare_rate_per_h`` (idle spares failing;
    ``"hot"``: as in service) and ``rack_fit`` (whole-rack faults per 10^9
    rack-hours, default 0: no published figure) are described in
    :mod:`relmodel.scale.design.design_capacity`.  ``efficiency`` (an MFU-type fraction) and
    ``straggler_loss`` (share of time lost to slow workers) enter goodput,
    not ETTR.  ``n_boot=0`` skips the intervals; ``n_runs=0`` skips the
    simulated check of the closed forms (its fields are then NaN, ``sim_runs`` 0).

    ``ckpt_cost``, ``restart``, ``repair``, ``absorb`` and ``network_repair``
    are durations (hours, or "1min", "24h"); ``ckpt_cost`` and ``restart``
    may also be a :class:`relmodel.checkpoint.CheckpointModel` or
    :class:`relmodel.checkpoint.RestartModel`, taken at the design's GPU
    count (a RestartModel's downtime, start-up that grows with the ranks
    included, is not exposed to failures; its reload is:
    :mod:`relmodel.scale.targets.law_requirements`; :func:`relmodel.scale.targets.restart_growth.growing_restart`
    builds one from the published start-up time).  The result gives rates per hour, MTBF and stalls in hours, ETTR
    and probabilities as fractions, and counts of GPUs.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.design.designs import design_presets
    >>> c = design_presets(1152)["nvl72-in-rack-spares"]      # 64 of 72 GPUs per rack busy, 1 spare rack
    >>> r = evaluate_design(c, llama3_54day(), "1min", "10min", n_runs=200, n_boot=0, seed=0)
    >>> r.gpus_bought, r.gpus_used, r.gpus_idle
    (1368, 1152, 216)
    >>> round(24 * r.interruption_rate, 2), round(r.job_mtbf_h, 1), round(r.ettr, 3)   # per day, hours, ETTR
    (1.7, 14.1, 0.941)
    """
    check_design(cluster)
    d, r = _costs(ckpt_cost, restart, cluster)
    a = float(hours(absorb))
    if a < 0:
        raise DesignError(f"absorb must be a duration >= 0; got {absorb!r}")
    eff, loss = _fraction("efficiency", efficiency, low_ok=False), _fraction("straggler_loss", straggler_loss)
    if loss == 1.0:
        raise DesignError("straggler_loss must be below 1 (all time lost leaves no goodput to compare); got 1")
    table, tol, draws, extra_dom = _rates(cluster, source, levels, tolerated, domain_fit, n_boot, seed)
    spans = cause_spans(table, cluster, correlated)
    point = table["rate_per_h"].to_numpy()[None, :]
    share = domain_model(cluster, 1.0, 0.0).interrupt_share
    used = _used_shares(cluster, table)
    lam, absorbed, tray_total, dom_total, burst = (x[0] for x in _split(table, tol, point, share, spans, used))
    lam, absorbed, tray_total, dom_total = float(lam), float(absorbed), float(tray_total), float(dom_total)
    n_dom = cluster.n_scaleup_domains
    level = table["level"].to_numpy()[spans > 0]
    pairs = [(float(rate), burst_groups(cluster, nodes), lv in NETWORK_LEVELS)
             for rate, nodes, lv in zip(burst, spans[spans > 0], level) if rate > 0]
    leaf = _leaf_bursts(cluster, switch_fit, network_repair)
    rack = rack_bursts(cluster, rack_fit, repair)
    hw_bursts = [(r, g, repair) for r, g, net in pairs if not net] + list(rack)
    model, repair = with_capacity(
        domain_model(cluster, tray_total / cluster.n_nodes, dom_total / n_dom + extra_dom), repair, hw_bursts,
        [(r, g, network_repair) for r, g, net in pairs if net] + list(leaf),
        crews=crews, rma_lead_time=rma_lead_time, spare_rate_per_h=spare_rate_per_h,
        rack_rate=_fit("rack_fit", rack_fit) * 1e-9)
    runs = int(n_runs) if int(n_runs) <= 0 else runs_for(model, repair, n_runs, horizon=horizon)
    if runs == 0:  # closed forms only: no simulated check (asked for, or not one run fits the budget)
        nan = float("nan")
        sim = SimpleNamespace(closed=closed_form(model, repair), p_no_spare=nan, p_no_spare_lo=nan,
                              p_no_spare_hi=nan, mean_stall_h=nan, n_runs=0)
    else:
        sim = simulate_domains(model, repair, horizon=horizon, n_runs=runs, seed=seed, conf=conf)
    stall = sim.closed["stall_share"]
    fixed = extra_dom * n_dom + sum(b[0] for b in leaf) + sum(b[0] for b in rack)
    lam += fixed
    ettr = float(ettr_at(1.0 / lam, d, restart, r, cluster.n_gpus)) * (1.0 - absorbed * a) * (1.0 - stall)
    lam_b, abs_b = _split(table, tol, draws, share, spans, used)[:2]
    lam_b = lam_b + fixed
    with np.errstate(divide="ignore"):
        ettr_b = ettr_at(1.0 / lam_b, d, restart, r, cluster.n_gpus) * (1.0 - abs_b * a) * (1.0 - stall)
    q = [(1.0 - conf) / 2, (1.0 + conf) / 2]
    e_lo, e_hi = np.quantile(ettr_b, q) if n_boot else (ettr, ettr)
    m_lo, m_hi = np.quantile(1.0 / lam_b, q) if n_boot else (1.0 / lam, 1.0 / lam)
    bought, used, idle = _gpus(cluster)
    out = _gpus_out(cluster, table, point[0], spans, sim.closed, model, repair, network_repair)
    return DesignResult(
        name=cluster.name, policy=cluster.domain_policy, gpus_bought=bought, gpus_used=used, gpus_idle=idle,
        interruption_rate=lam, absorbed_rate=absorbed, job_mtbf_h=1.0 / lam, job_mtbf_lo=float(m_lo),
        job_mtbf_hi=float(m_hi), interval_h=float(optimal_interval(mtbf=1.0 / lam, ckpt_cost=d)), ettr=ettr,
        ettr_lo=float(e_lo), ettr_hi=float(e_hi), p_no_domain_spare=sim.closed["p_no_group_spare"],
        p_no_spare=sim.closed["p_no_spare"], p_no_spare_sim=sim.p_no_spare, p_no_spare_lo=sim.p_no_spare_lo,
        p_no_spare_hi=sim.p_no_spare_hi, mean_stall_h=_per_seen(stall, lam), gpus_out_mean=out,
        node_interrupt_rate=tray_total * share, link_tolerated=_link_tolerated(cluster, table, tol), conf=conf,
        stall_share=stall, mean_stall_sim=_per_seen(getattr(sim, "stall_share", np.nan), lam) if sim.n_runs else np.nan,
        stall_share_free=sim.closed["stall_share_free"],
        efficiency=eff, straggler_loss=loss, crews=check_crews(crews), rma_lead_time_h=lead_mean(rma_lead_time),
        spare_rate_per_h=model.pool_rate, rack_fit=float(rack_fit), repair_out_h=_mean_repair(repair),
        repairs_per_h=parts_rate(dataclasses.replace(model, bursts=tuple(hw_bursts))),
        ckpt_cost_h=d, restart_h=r, costs=_cost_note(ckpt_cost, restart, cluster),
        warnings=_warnings(cluster, stall, repair), sim_runs=sim.n_runs)


def _per_seen(stall, lam):
    """Stalled hours per interruption the job sees: it fails only while it runs, a share 1 - stall of the time."""
    if not np.isfinite(stall) or lam <= 0:
        return float("nan") if not np.isfinite(stall) else 0.0
    return float(stall / (lam * (1.0 - stall))) if stall < 1 else float("inf")


def _costs(ckpt_cost, restart, cluster):
    """Checkpoint cost and restart in hours at the design's size (constants, or models that grow with N)."""
    from ...checkpoint.costs import cost_hours
    return cost_hours(ckpt_cost, cluster.n_gpus, "ckpt_cost"), cost_hours(restart, cluster.n_gpus, "restart")


def _cost_note(ckpt_cost, restart, cluster):
    from ...checkpoint.costs import describe_cost
    return (f"checkpoint {describe_cost(ckpt_cost, cluster.n_gpus)}; "
            f"restart {describe_cost(restart, cluster.n_gpus)}")


def _warnings(cluster, stall, repair):
    out = []
    if not cluster.spare_pool and not (cluster.domain_policy == "in-domain-spares" and cluster.domain_spares):
        out.append(f"{cluster.name} holds no spares at all: every hardware failure is waited out until its repair "
                   f"(mean {duration(_mean_repair(repair))}), so the job waits {share_words(stall)} of the time.")
    elif stall > 0.05:
        out.append(f"{cluster.name} waits for a spare {share_words(stall)} of the time: its spare pool is too small "
                   f"for its failure rate and repair time.")
    return tuple(out)


def _link_tolerated(cluster, table, tol):
    """Share of link-level failures absorbed (the design rule when the source has none)."""
    mask = (table["level"] == "link").to_numpy()
    rate = table["rate_per_h"].to_numpy()[mask]
    if rate.sum() > 0:   # a weighted mean of shares: held in [0, 1] against the last bit of rounding
        return float(np.clip(rate @ tol[mask] / rate.sum(), 0.0, 1.0))
    return 1.0 if cluster.planes > 1 else 0.0


def _gpus_out(cluster, table, rates, spans, closed, model, repair, network_repair):
    """Mean GPUs out of the job: hardware from the compound model's closed form, network by Little's law.

    Under whole domains an out domain takes all its GPUs; under in-domain spares and a node pool the GPUs
    in repair are out (a tray in repair in a domain still in service, a node, a domain's worth of nodes).
    """
    s_net = float(hours(network_repair))
    gpn, size = cluster.gpus_per_node, cluster.scaleup_gpus or cluster.gpus_per_node
    if cluster.domain_policy == "whole-domain":
        hw = closed["groups_out_mean"] * size
    elif cluster.domain_policy == "spare-pool":
        hw = closed["groups_out_mean"] * gpn
    else:
        m = model
        hw = (m.groups * m.trays * m.tray_rate * _mean_repair(repair) * gpn + m.groups * m.group_rate
              * _mean_repair(repair) * size + sum(b * span * _mean_repair(rep) * size for b, span, rep in m.bursts))
    net = 0.0
    for level in NETWORK_LEVELS:
        mask = (table["level"] == level).to_numpy() & (spans == 0)
        net += float(rates[mask].sum()) * blast_radius(cluster, level) * s_net
    return float(hw + net)


def tolerance_gain(cluster, source, ckpt_cost, restart, tolerated=None, **kwargs):
    """What-if: the design with no fault tolerated against ``tolerated`` (default: the design's rule).

    ``ckpt_cost`` and ``restart`` are durations (hours, or "1min");
    ``tolerated`` maps a cause, category or level to the fraction of its
    failures absorbed.  ``kwargs`` go to :func:`evaluate_design` (``n_runs``,
    ``repair``, ``absorb``...).  Returns a :class:`ToleranceGain`; its rates
    are per hour.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.design.designs import design_presets
    >>> c = design_presets(1152)["nvl72-in-rack-spares"]
    >>> g = tolerance_gain(c, llama3_54day(), "1min", "10min", tolerated={"link": 1.0}, n_runs=200, n_boot=0)
    >>> round(24 * g.before.interruption_rate, 3), round(24 * g.after.interruption_rate, 3)   # per day
    (1.699, 1.654)
    >>> round(24 * g.after.absorbed_rate, 3)      # the link failures, now absorbed, per day
    0.045
    >>> f"{100 * g.ettr_gain:.2f} points of ETTR"
    '0.09 points of ETTR'
    """
    none = {level: 0.0 for level in LEVELS}
    before = evaluate_design(cluster, source, ckpt_cost, restart, tolerated=none, **kwargs)
    after = evaluate_design(cluster, source, ckpt_cost, restart, tolerated=tolerated, **kwargs)
    return ToleranceGain(cluster.name, dict(tolerated or {}), before, after)
