"""Compare cluster designs: ETTR, spares, goodput per GPU bought and what the parts must reach.

:func:`compare_designs` evaluates each design with
:func:`relmodel.scale.design.policies.evaluate_design` on the same observed rates and
adds what the design's nodes and pluggable transceivers must reach for a
target ETTR (:func:`relmodel.scale.targets.optics.transceiver_requirement`).  Goodput
per GPU bought is ETTR x GPUs used / GPUs bought: spares held idle cost as
much as restarts.

:func:`design_presets` builds the named designs (``DESIGNS``) at a job size;
each keeps at least that many GPUs busy.  Their spare counts and fabrics are
assumptions, stated in each design's ``assumptions``.
"""

import dataclasses
import math

import numpy as np
import pandas as pd

from ...scenario import JOB, takes_scenario
from ...defaults import CKPT_COST, RESTART
from ...errors import DesignError
from ...units import hours
from ..clusters.cluster import Cluster
from ..targets.optics import transceiver_requirement
from .design_capacity import RACK_FIT_DEFAULT
from .compound import shared_runs
from .policies import evaluate_design
from ..targets.law_requirements import needed_job_mtbf
from ...tables import Result, people_table
from ..sparing.words import ettr_words, share_words
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps

__all__ = ["DESIGNS", "design_presets", "policy_variants", "DesignComparison", "compare_designs", "Presets",
           "UnknownDesignError"]

DESIGNS = ("h100-rail", "h100-fat-tree", "nvl72-whole-rack", "nvl72-in-rack-spares", "nvl72-dual-plane")
_YEAR = 8766.0


class UnknownDesignError(DesignError, KeyError):
    """A design name that is not one of the presets (also a KeyError, as for any dict)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class Presets(dict):
    """The named designs; an unknown name is an :class:`UnknownDesignError` naming the valid ones."""

    def __missing__(self, name):
        raise UnknownDesignError(f"no design named {name!r}; the named designs are {', '.join(self)}")


def design_presets(n_gpus=16_384):
    """The named designs (``DESIGNS``), each sized to keep at least ``n_gpus`` GPUs busy.

    Returns a dict of design name to :class:`relmodel.Cluster`.  Spare pools
    are counted in nodes (``spare-pool``) or scale-up domains (the others).

    Examples
    --------
    >>> d = design_presets(16_384)
    >>> tuple(d) == DESIGNS
    True
    >>> for c in d.values():
    ...     print(f"{c.name}: {c.n_gpus:,} GPUs, {c.domain_policy}, {c.spare_pool} spare")
    H100, rail fabric: 16,384 GPUs, spare-pool, 21 spare
    H100, fat tree: 16,384 GPUs, spare-pool, 21 spare
    NVL72, whole racks: 16,416 GPUs, whole-domain, 12 spare
    NVL72, 2 spare trays per rack: 18,432 GPUs, in-domain-spares, 1 spare
    NVL72, spare trays, dual plane: 18,432 GPUs, in-domain-spares, 1 spare
    """
    try:
        n = int(n_gpus)
        whole = n == float(n_gpus)
    except (TypeError, ValueError, OverflowError):
        n, whole = 0, False
    if n < 1 or not whole:
        raise DesignError(f"n_gpus must be a whole number of GPUs >= 1; got {n_gpus!r}")
    nodes = math.ceil(n / 8)
    spare_nodes = math.ceil(0.01 * nodes)
    racks, racks64 = math.ceil(n / 72), math.ceil(n / 64)
    rep = dataclasses.replace
    h100 = "Assumed: spare pool of 1% of the nodes, any node replaces any other."
    rail = rep(Cluster.megascale(nodes * 8), spare_pool=spare_nodes, policy="spare-pool", name="H100, rail fabric",
               assumptions=Cluster.megascale().assumptions + " " + h100)
    fat = rep(Cluster.llama3().with_gpus(nodes * 8), spare_pool=spare_nodes, policy="spare-pool", name="H100, fat tree",
              assumptions=Cluster.llama3().assumptions + " " + h100)
    nv = Cluster.nvl72(racks * 72)
    whole = rep(nv, spare_pool=math.ceil(0.05 * racks), policy="whole-domain", name="NVL72, whole racks",
                tp_span=72, assumptions=nv.assumptions + " Assumed: tensor and expert parallelism span the rack, so "
                                                         "the job needs whole racks; 5% spare racks.")
    nv64 = Cluster.nvl72(racks64 * 72)
    spares = rep(nv64, domain_spares=2, spare_pool=1, policy="in-domain-spares", name="NVL72, 2 spare trays per rack",
                 assumptions=nv.assumptions + " Assumed: 64 of 72 GPUs used, 2 trays per rack held as spares, "
                                              "one spare rack.")
    dual = rep(spares, planes=2, name="NVL72, spare trays, dual plane",
               assumptions=spares.assumptions + " Two scale-out planes: a single link or leaf failure is absorbed.")
    return Presets(zip(DESIGNS, (rail, fat, whole, spares, dual)))


def policy_variants(cluster):
    """The same purchase under each policy it allows, with the same GPUs set aside as spares.

    The design's domains (its job's and its spare pool's) are kept; the GPUs
    it holds idle are spent as whole spare domains, as 1 or 2 spare trays per
    domain (when a domain has more than two trays) plus what is left as spare
    domains, or as a pool of spare nodes.  Each variant keeps at least one
    spare domain.

    A pool of spare nodes across domains is offered only when the job's
    parallel groups fit in a node: when the design's ``tp_span`` says a
    tensor- or expert-parallel group spans the scale-up domain, a node from
    another domain cannot stand in, and that variant is left out.  When
    ``tp_span`` is not stated, the variant's name says it assumes so.
    """
    from .policies import _gpus
    size, gpn, trays = cluster.scaleup_gpus or cluster.gpus_per_node, cluster.gpus_per_node, cluster.trays_per_domain
    bought, _, idle = _gpus(cluster)
    total = bought // size
    rep = dataclasses.replace
    whole = max(1, round(idle / size))
    out = [rep(cluster, n_gpus=(total - whole) * size, policy="whole-domain", domain_spares=0, spare_pool=whole,
               name=f"whole domains, {whole:,} spare domain{'s' * (whole > 1)}")]
    for k in (1, 2):
        if trays > k + 1:
            pool = max(1, round((idle - total * k * gpn) / (size - k * gpn)))
            name = f"{k} spare tray{'s' * (k > 1)} per domain, {pool:,} spare domain{'s' * (pool > 1)}"
            out.append(rep(cluster, n_gpus=(total - pool) * size, policy="in-domain-spares", domain_spares=k,
                           spare_pool=pool, name=name))
    if trays > 1 and not cluster.spans_domain:
        note = "" if cluster.tp_span is not None else " (if no parallel group spans a domain)"
        out.append(rep(cluster, n_gpus=(total - whole) * size, policy="spare-pool", domain_spares=0,
                       spare_pool=whole * trays, name=f"any node replaces any other, {whole * trays:,} spare nodes{note}"))
    return out


def _designs(designs, n_gpus):
    if isinstance(designs, (str, Cluster)):
        designs = [designs]
    presets = None
    out = []
    for d in designs:
        if isinstance(d, Cluster):
            out.append(d)
            continue
        if presets is None:
            presets = design_presets(n_gpus)
        if d not in presets:
            raise DesignError(f"unknown design {d!r}; named designs: {', '.join(DESIGNS)}")
        out.append(presets[d])
    if not out:
        raise DesignError(f"give at least one design: a Cluster or one of {', '.join(DESIGNS)}")
    return out


@dataclasses.dataclass(frozen=True)
class DesignComparison(Result):
    """One row per design; ``by_design`` is numeric (hours, fractions), :meth:`table` is for people."""

    by_design: pd.DataFrame
    results: tuple
    target_ettr: float
    optics_share: float
    conf: float

    def to_frame(self):
        return self.by_design.copy()

    def best(self):
        """Name of the design with the highest goodput per GPU bought."""
        return str(self.by_design.loc[self.by_design["goodput_per_gpu"].idxmax(), "design"])

    def _people(self):
        return people_table(self._people_raw())

    def _people_raw(self):
        """The table with headers in words, units people use and no NaN or inf cells."""
        t = self.by_design
        pct = f"{100 * self.conf:g}%"
        return pd.DataFrame({
            "Design": t["design"],
            "Policy": t["policy"],
            "GPUs bought": t["gpus_bought"].map("{:,}".format),
            "GPUs idle as spares": t["gpus_idle"].map("{:,}".format),
            "Job MTBF (h)": t["job_mtbf_h"].map(_num),
            "Checkpoint every (min)": (60 * t["interval_h"]).map(_num),
            f"ETTR ({pct} range)": [ettr_words(e, lo, hi) for e, lo, hi in zip(t["ettr"], t["ettr_lo"], t["ettr_hi"])],
            "Failure finds no spare": t["p_no_spare"].map(_pct),
            "Time waiting for a spare": t["stall_share"].map(_pct),
            "Goodput per GPU bought": t["goodput_per_gpu"].map(ettr_words),
            "Node MTBF needed (years)": t["required_node_mtbf_h"].map(_years),
            "Transceiver MTBF needed (years)": t["required_transceiver_mtbf_h"].map(_years),
        })

    def text(self):
        """The answer in a sentence or two, then what the costs were and any warning."""
        t = self.by_design
        if len(t) == 1:
            r = t.iloc[0]
            lines = [f"{r['design']}: ETTR {ettr_words(r['ettr'], r['ettr_lo'], r['ettr_hi'])} against a target of "
                     f"{self.target_ettr:g}; {r['gpus_idle']:,} of {r['gpus_bought']:,} GPUs idle as spares; a "
                     f"failure finds no spare {_pct(r['p_no_spare'])} of the time and the job waits for one "
                     f"{_pct(r['stall_share'])} of the time; goodput per GPU bought {ettr_words(r['goodput_per_gpu'])}"
                     f"{_goodput_terms(r)}."]
        else:
            best = t.loc[t["goodput_per_gpu"].idxmax()]
            top = t.loc[t["ettr"].idxmax()]
            lines = [f"Of {len(t)} designs, {best['design']} gives the most goodput per GPU bought: "
                     f"{ettr_words(best['goodput_per_gpu'])} (ETTR {ettr_words(best['ettr'])} on {best['gpus_used']:,} of "
                     f"{best['gpus_bought']:,} GPUs{_goodput_terms(best)})."]
            met = t[t["ettr"] >= self.target_ettr]
            if met.empty:
                lines.append(f"No design reaches the target ETTR {self.target_ettr:g} at the observed rates; the "
                             f"best, {top['design']}, reaches {ettr_words(top['ettr'])}.")
            else:
                lines.append(f"{len(met)} of {len(t)} reach the target ETTR {self.target_ettr:g}.")
        costs = list(dict.fromkeys(t["costs"])) if "costs" in t else []
        if len(costs) == 1:
            lines.append(f"Costs used: {costs[0]}.")
        elif costs:
            lines.append("Costs used grow with the design's size: " + "; ".join(
                f"{d}: {c}" for d, c in zip(t["design"], t["costs"])) + ".")
        lines += [w for w in t.get("warnings", []) if w]
        return " ".join(lines)

    def _repr_html_(self):
        return (f"<p>Designs compared for ETTR {self.target_ettr:g}; transceivers may take "
                f"{self.optics_share:.0%} of the failure budget.</p>" + Result._repr_html_(self))

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _goodput_terms(row):
    """", with efficiency 55.2% and 0.5% straggler loss" when those terms are in play."""
    parts = []
    if row.get("efficiency", 1.0) < 1.0:
        parts.append(f"efficiency {share_words(row['efficiency'])}")
    if row.get("straggler_loss", 0.0) > 0.0:
        parts.append(f"{share_words(row['straggler_loss'])} lost to stragglers")
    return (", with " + " and ".join(parts)) if parts else ""


def _num(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _pct(p):
    return share_words(p)


def _years(h):
    if h == 0:
        return "any (absorbed)"
    if not np.isfinite(h):
        return "out of reach" if h > 0 else "any"
    return f"{h / _YEAR:,.1f}" if h >= 0.1 * _YEAR else f"{h:,.0f} h"


def _row(cluster, res, share, target_ettr, restart_model=None):
    """One table row: the design's result plus the node and transceiver MTBF its target needs."""
    ckpt_cost, restart = res.ckpt_cost_h, res.restart_h
    lam_req = 1.0 / needed_job_mtbf(target_ettr, ckpt_cost, restart_model, restart, cluster.n_gpus)[0]
    hw = res.node_interrupt_rate
    room = lam_req - (res.interruption_rate - hw)
    used_nodes = res.gpus_used / cluster.gpus_per_node
    node = used_nodes / room if room > 0 else np.inf
    exposed = restart_model if hasattr(restart_model, "reload") else restart  # a RestartModel: its reload only
    tx = transceiver_requirement(cluster, target_ettr, ckpt_cost=ckpt_cost, restart=exposed, share=share,
                                 tolerated=res.link_tolerated)
    row = {"design": cluster.name, "policy": res.policy, "gpus_bought": res.gpus_bought, "gpus_used": res.gpus_used,
           "gpus_idle": res.gpus_idle, "interruptions_per_day": 24 * res.interruption_rate,
           "job_mtbf_h": res.job_mtbf_h, "interval_h": res.interval_h, "ettr": res.ettr, "ettr_lo": res.ettr_lo,
           "ettr_hi": res.ettr_hi, "p_no_spare": res.p_no_spare, "p_no_spare_sim": res.p_no_spare_sim,
           "p_no_spare_sim_lo": res.p_no_spare_lo, "p_no_spare_sim_hi": res.p_no_spare_hi,
           "mean_stall_h": res.mean_stall_h, "gpus_out_mean": res.gpus_out_mean,
           "goodput_per_gpu": res.goodput_per_gpu, "required_node_mtbf_h": node,
           "transceivers": tx["transceivers"], "required_transceiver_mtbf_h": tx["mtbf_h"],
           "stall_share": res.stall_share, "mean_stall_sim_h": res.mean_stall_sim, "goodput": res.goodput,
           "efficiency": res.efficiency, "straggler_loss": res.straggler_loss, "ckpt_cost_h": ckpt_cost,
           "restart_h": restart, "costs": res.costs, "warnings": " ".join(res.warnings), "sim_runs": res.sim_runs,
           "crews": res.crews, "rma_lead_time_h": res.rma_lead_time_h, "spare_rate_per_h": res.spare_rate_per_h,
           "rack_fit": res.rack_fit, "repair_out_h": res.repair_out_h}
    return row


def _evaluate(args):
    cluster, source, ckpt_cost, restart, kwargs = args
    return evaluate_design(cluster, source, ckpt_cost, restart, **kwargs)


@takes_scenario(**JOB, repair="repair_time", crews="crews", conf="conf")
def compare_designs(designs, source, n_gpus=16_384, target_ettr=0.9, ckpt_cost=CKPT_COST, restart=RESTART, *,
                    share=0.1, repair="24h", levels=None, tolerated=None, absorb=0.0, domain_fit=0.0, n_runs=10_000,
                    horizon="7d", n_boot=1000, seed=None, conf=0.95, workers=1, correlated=None, switch_fit=0.0,
                    efficiency=1.0, straggler_loss=0.0, crews=None, rma_lead_time=0.0, spare_rate_per_h="hot",
                    rack_fit=RACK_FIT_DEFAULT):
    """Evaluate several designs on the same observed rates; returns a :class:`DesignComparison`.

    ``designs`` holds :class:`relmodel.Cluster` objects or names from
    ``DESIGNS`` (built at ``n_gpus`` by :func:`design_presets`); as in every
    planning function, ``target_ettr`` comes right after the size.  ``source``
    is a CountTable or InterruptionLog (e.g. ``relmodel.datasets.llama3_54day()``).
    ``share`` is the part of the job's failure budget the transceivers may use.
    ``workers`` > 1 evaluates designs in that many processes.  The other
    arguments go to :func:`relmodel.scale.design.policies.evaluate_design` (``n_runs=0``: closed forms only, no
    simulated check); designs
    are ranked by goodput per GPU bought: ETTR x (1 - ``straggler_loss``) x
    ``efficiency`` x GPUs used / GPUs bought.  ``crews`` (parallel hardware
    repairs for the whole site; None: unlimited), ``rma_lead_time``,
    ``spare_rate_per_h`` (idle spares failing: ``"hot"``, as in service) and
    ``rack_fit`` (whole-rack faults per 10^9 rack-hours; 0 by default, as no
    published figure exists) are described in :mod:`relmodel.scale.design.design_capacity`.

    ``ckpt_cost`` and ``restart`` are durations (hours, or "1min"), or a
    :class:`relmodel.checkpoint.CheckpointModel` / :class:`relmodel.checkpoint.RestartModel`
    evaluated at each design's GPU count; the table says which (``costs``).
    The table gives GPUs as counts, ETTR and probabilities as fractions,
    MTBF in hours and rates per hour.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> cmp = compare_designs(["nvl72-whole-rack", "nvl72-in-rack-spares"], llama3_54day(), 1152, 0.9,
    ...                       ckpt_cost="1min", restart="10min", n_runs=200, n_boot=0, seed=0)
    >>> cols = ["design", "gpus_bought", "gpus_idle", "ettr", "goodput_per_gpu"]
    >>> print(cmp.by_design[cols].round(3).to_string(index=False))
                           design  gpus_bought  gpus_idle  ettr  goodput_per_gpu
               NVL72, whole racks         1224         72 0.868            0.817
    NVL72, 2 spare trays per rack         1368        216 0.941            0.792
    >>> cmp.best()
    'NVL72, whole racks'
    """
    _check_size_then_target("compare_designs(designs, source, n_gpus, target_ettr, ckpt_cost, restart)",
                            n_gpus, target_ettr)
    clusters = _designs(designs, n_gpus)
    runs, boots = count("n_runs", n_runs, lo=0), count("n_boot", n_boot)
    check_cost(f"compare_designs(n_runs={runs:,}, n_boot={boots:,})", work=len(clusters) * (runs * 200 + boots * 1000),
               memory=runs * 8 * 16, hint="simulate fewer runs (n_runs) or bootstrap draws (n_boot)")
    if not 0.0 < float(share) < 1.0:
        raise DesignError(f"share of the failure budget must be a fraction in (0, 1), e.g. 0.1; got {share!r}")
    kwargs = dict(repair=repair, levels=levels, tolerated=tolerated, absorb=absorb, domain_fit=domain_fit,
                  n_runs=n_runs, horizon=horizon, n_boot=n_boot, seed=seed, conf=conf, correlated=correlated,
                  switch_fit=switch_fit, efficiency=efficiency, straggler_loss=straggler_loss, crews=crews,
                  rma_lead_time=rma_lead_time, spare_rate_per_h=spare_rate_per_h, rack_fit=rack_fit)
    jobs = [(c, source, ckpt_cost, restart, kwargs) for c in clusters]
    if int(workers) > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=int(workers)) as pool:
            results = list(pool.map(_evaluate, jobs))
    else:
        results = []
        with shared_runs(), steps("designs simulated", total=len(jobs)) as step:  # alike domains simulated once
            for job in jobs:
                results.append(_evaluate(job))
                step()
    rows = [_row(c, r, float(share), target_ettr, restart) for c, r in zip(clusters, results)]
    return DesignComparison(pd.DataFrame(rows), tuple(results), float(target_ettr), float(share), conf)


def _check_size_then_target(order, n_gpus, target_ettr):
    """Refuse the earlier order (durations where the size and the target now sit), naming the new one."""
    for name, value in (("n_gpus", n_gpus), ("target_ettr", target_ettr)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise DesignError(f"{order}: {name} must be a number, got {value!r}; the size and target_ettr now "
                              f"come before the durations (pass ckpt_cost= and restart= by name)")
