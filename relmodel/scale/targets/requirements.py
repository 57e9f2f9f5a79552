"""What the parts must achieve for a target ETTR at N GPUs.

The job's failures are taken as a Poisson process of rate 1/M, and the job
checkpoints at the optimal interval of the exact exponential model (Daly 2006,
FGCS 22(3); :func:`relmodel.checkpoint.optimal_interval` and
:func:`relmodel.checkpoint.ettr`).  The best achievable ETTR rises
monotonically with M, so for a target there is one required job MTBF M*,
found by a root search.  A job of n nodes whose hardware fails independently
with node MTBF m, plus per-job causes at rate f (software; they do not grow with
N), has 1/M = n/m + f, hence

    m* = n / (1/M* - f),

which is impossible ("no node MTBF reaches the target") when f >= 1/M*.  Per component, the same budget 1/M*
less the observed rates of all other causes, spread over its units, gives the FIT it must reach.
"""

import dataclasses
import math

import numpy as np
import pandas as pd

from ...scenario import JOB, takes_scenario
from ...checkpoint.costs import cost_hours, describe_cost
from ...defaults import CKPT_COST, GPUS_PER_NODE, N_GPUS, RESTART, TARGET_ETTR
from ...errors import InfeasibleTargetError, ModelInputError
from ...units import hours
from .goodput import _best_ettr, _rate, assumption, best_ettr, ettr_of_rates, required_job_mtbf
from .law_requirements import ettr_at, needed_job_mtbf, restart_terms
from .node_lives import check_law_of, law_words, life_of, node_mtbf_for
from .restart_growth import default_restart
from ...tables import Result, duration, hours_text, html_table, number, pct, pct_range, sig, target_pct
from relmodel.base.escape import html_text

__all__ = ["best_ettr", "ettr_of_rates", "required_job_mtbf", "required_node_mtbf", "required_gpu_mtbf", "job_mtbf",
           "requirements_table", "Requirements", "plan_requirements", "assumption", "cost_list"]


def _infeasible_message(n_gpus, t, d, r, m_req, fixed_rate_per_h):
    reach = float(_best_ettr(1.0 / fixed_rate_per_h, d, r))
    return (
        f"an ETTR of {target_pct(t)} is out of reach at {int(n_gpus):,} GPUs with checkpoints of "
        f"{duration(d, digits=3)} and restarts of {duration(r, digits=3)}: it needs a job MTBF of at least "
        f"{hours_text(m_req)}, but the per-job causes alone fail the job every {duration(1 / fixed_rate_per_h, digits=3)} "
        f"({number(24 * fixed_rate_per_h)} a day), which caps ETTR at {pct(reach)} however reliable the hardware; "
        "lower the target, or cut restart time, checkpoint cost or software failures"
    )



def _fixed_rate(fixed_rate_per_h, source, n_gpus, gpus_per_node, what):
    """The per-job rate a requirement holds: given, or taken from ``source`` as plan_requirements does."""
    if (fixed_rate_per_h is None) == (source is None):
        raise ModelInputError(
            f"{what} needs the rate of per-job faults (software, unexplained timeouts: they do not grow with "
            "the cluster) stated with exactly one of fixed_rate_per_h= (failures per hour; 0 counts every "
            "interruption against the nodes) or source= (a log or count table, e.g. "
            "relmodel.datasets.llama3_54day(), whose per-job rate is held, as plan_requirements does)")
    if source is None:
        return _rate(fixed_rate_per_h)
    from ..clusters.scaling import cluster_of, grow_cluster, scale_rates
    src = cluster_of(source)
    tgt = grow_cluster(int(n_gpus), src, gpus_per_node=gpus_per_node)
    return float(scale_rates(source, src, tgt, n_boot=1, seed=0).rate_of("job"))


@takes_scenario(**JOB, gpus_per_node="gpus_per_node")
def required_node_mtbf(n_gpus, target_ettr=TARGET_ETTR, ckpt_cost=CKPT_COST, restart=None,
                       gpus_per_node=GPUS_PER_NODE, *, fixed_rate_per_h=None, source=None, max_node_mtbf_h=None,
                       law=None, law_of=None, fleet="mature", run=None):
    """The node MTBF (hours) at which ETTR, at the optimal interval, equals ``target_ettr``.

    State what is held fixed, with exactly one of

    * ``fixed_rate_per_h``: the rate (failures per hour) of per-job causes
      (software, unexplained timeouts) that do not grow with the number of
      nodes; 0 counts every interruption against the nodes;
    * ``source``: a log or count table whose per-job causes are held at their
      observed rate, exactly as :func:`plan_requirements` does, so both give
      the same node MTBF for the same question.

    Durations: ``ckpt_cost`` (default 1 min) and ``restart`` (default None:
    10 min plus the start-up that grows with the ranks at ``n_gpus``, as
    :func:`relmodel.decide` takes it; :func:`~.restart_growth.default_restart`).
    A :class:`relmodel.checkpoint.RestartModel` for ``restart`` counts only
    its reload as exposed to failures (its downtime cannot be struck).

    A ``law`` needs ``law_of``: ``"job gaps"`` (the job's times between
    interruptions at the size fitted: renewal-reward with its shape at each
    mean, :mod:`.law_requirements`) or ``"node lives"`` (each node's lives,
    superposed over the nodes, :mod:`.node_lives`, for ``fleet="mature"`` or
    ``"new"``: every node at age 0 when a run of ``run`` of service starts;
    :func:`.life_requirement.node_life_requirement` states both).

    Raises :class:`~relmodel.errors.InfeasibleTargetError` when the per-job
    causes alone already miss the target, or when the answer exceeds
    ``max_node_mtbf_h`` (a ceiling on what any server could reach, if given).

    Examples
    --------
    >>> round(required_node_mtbf(16_384, 0.9, "1min", "10min", fixed_rate_per_h=0))
    11906
    >>> import relmodel
    >>> round(required_node_mtbf(16_384, 0.9, "1min", "10min", source=relmodel.datasets.llama3_54day()))
    16595
    """
    n_nodes = _n_nodes(n_gpus, gpus_per_node)
    restart = default_restart(restart, n_gpus)
    model = restart
    ckpt_cost, restart = cost_hours(ckpt_cost, n_gpus, "ckpt_cost"), cost_hours(restart, n_gpus, "restart")
    fixed = _fixed_rate(fixed_rate_per_h, source, n_gpus, gpus_per_node, "required_node_mtbf")
    node = _node_under_law(target_ettr, ckpt_cost, model, restart, n_gpus, n_nodes, fixed, law, law_of, fleet, run)
    if max_node_mtbf_h is not None and node > hours(max_node_mtbf_h):
        raise InfeasibleTargetError(
            f"ETTR {float(target_ettr):g} at {int(n_gpus):,} GPUs needs a node MTBF of {node:.3g} h "
            f"({node / 8766:.3g} years), above the {hours(max_node_mtbf_h):.3g} h ceiling; no server reaches it. "
            "Lower the target, shorten restart and checkpoint, or use fewer GPUs per job")
    return node


def _node_under_law(target, d, model, r, n_gpus, n_nodes, fixed, law, law_of, fleet, run):
    """Node MTBF for one size: the job-gap route (the law's shape at each job mean) or the node-life route."""
    law_of = check_law_of(law, law_of)
    if fleet != "mature" and law_of != "node lives":
        raise ModelInputError(f"fleet={fleet!r} describes node ages: it needs law_of='node lives' and its law")
    if law_of == "node lives":
        reload, down = restart_terms(r, model, n_gpus)
        return node_mtbf_for(target, life_of(law), n_nodes, fixed, d, reload, down, fleet=fleet,
                             run_h=None if run is None else float(hours(run)))[0]
    m_req = needed_job_mtbf(target, d, model, r, n_gpus, law)[0]
    room = 1.0 / m_req - fixed
    if room <= 0:
        raise InfeasibleTargetError(_infeasible_message(n_gpus, float(target), d, r, m_req, fixed))
    return n_nodes / room


def required_gpu_mtbf(n_gpus, target_ettr=TARGET_ETTR, ckpt_cost=CKPT_COST, restart=None, *,
                      fixed_rate_per_h=None, source=None):
    """The per-GPU MTBF (hours) that meets the target when every hardware fault is counted per GPU.

    Arguments as in :func:`required_node_mtbf` (one of ``fixed_rate_per_h``
    or ``source`` says which per-job rate is held).

    Examples
    --------
    >>> round(required_gpu_mtbf(16_384, 0.9, "1min", "10min", fixed_rate_per_h=0))
    95245
    """
    if source is not None:
        fixed_rate_per_h = _fixed_rate(None, source, n_gpus, GPUS_PER_NODE, "required_gpu_mtbf")
    return required_node_mtbf(n_gpus, target_ettr, ckpt_cost, restart, gpus_per_node=1,
                              fixed_rate_per_h=fixed_rate_per_h)


def job_mtbf(node_mtbf, n_nodes, fixed_rate_per_h=0.0):
    """Job MTBF (hours) of ``n_nodes`` nodes of MTBF ``node_mtbf``, plus a per-job rate; vectorised.

    Examples
    --------
    >>> round(float(job_mtbf("10000h", 2048, fixed_rate_per_h=0.05)), 3)
    3.925
    """
    m = np.asarray(hours(node_mtbf), dtype=float)
    n = np.asarray(n_nodes, dtype=float)
    if np.any(~(m > 0)) or np.any(~(n >= 1)):
        raise ModelInputError(f"node_mtbf must be positive hours and n_nodes >= 1; got {node_mtbf!r}, {n_nodes!r}")
    return (1.0 / (n / m + _rate(fixed_rate_per_h)))[()]


def _n_nodes(n_gpus, gpus_per_node):
    try:
        ok = float(n_gpus) >= 1 and float(gpus_per_node) >= 1 and math.isfinite(float(n_gpus) * float(gpus_per_node))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ModelInputError(f"n_gpus and gpus_per_node must be finite numbers >= 1; got {n_gpus!r}, "
                              f"{gpus_per_node!r}")
    return math.ceil(float(n_gpus) / float(gpus_per_node))


def requirements_table(n_gpus=(1_000, 10_000, 100_000, 1_000_000), target_ettr=TARGET_ETTR,
                       ckpt_costs=(CKPT_COST,), restarts=(RESTART,), gpus_per_node=GPUS_PER_NODE,
                       fixed_rate_per_h=None, *, source=None, law=None, law_of=None, fleet="mature", run=None):
    """Required job, node and GPU MTBF for every (n_gpus, ckpt_cost, restart) combination.

    Infeasible rows keep NaN requirements and ``feasible`` False, not an error.
    Columns: n_gpus, n_nodes, ckpt_cost_h, restart_h, job_mtbf_h, interval_h,
    node_mtbf_h, gpu_mtbf_h (hours), node_fit (failures per 10^9 node-hours),
    feasible.  As in :func:`required_node_mtbf`, one of ``fixed_rate_per_h``
    or ``source`` says which per-job rate is held; the sentence is in
    ``table.attrs["assumption"]``; ``law`` (with ``law_of``, ``fleet``, ``run``) and a RestartModel restart
    are as there, and ``table.attrs["law"]`` says whose shape the law is.

    Examples
    --------
    >>> t = requirements_table([16_384, 131_072], 0.9, fixed_rate_per_h=0)
    >>> [round(x) for x in t["node_mtbf_h"]], t.attrs["assumption"][:22]
    ([11906, 95245], 'every interruption cou')
    """
    rows = []
    fixed = _fixed_rate(fixed_rate_per_h, source, int(np.max(n_gpus)), gpus_per_node, "requirements_table")
    for d0 in cost_list(ckpt_costs):
        for r0 in cost_list(restarts):
            for n in np.atleast_1d(n_gpus):
                d, r = cost_hours(d0, float(n), "ckpt_cost"), cost_hours(r0, float(n), "restart")
                nodes = _n_nodes(n, gpus_per_node)
                if check_law_of(law, law_of) == "node lives":
                    reload, down = restart_terms(float(r), r0, float(n))
                    try:
                        life_node, tau = node_mtbf_for(target_ettr, life_of(law), nodes, fixed, float(d), reload,
                                                       down, fleet=fleet, run_h=None if run is None else hours(run))
                    except InfeasibleTargetError:
                        life_node, tau = float("inf"), float("nan")
                    m_req = 1.0 / (nodes / life_node + fixed)
                else:
                    if fleet != "mature":   # raises: a fleet's age needs a law of node lives
                        _node_under_law(target_ettr, d, r0, r, n, nodes, fixed, law, law_of, fleet, run)
                    m_req, tau = needed_job_mtbf(target_ettr, float(d), r0, float(r), float(n), law)
                room = 1.0 / m_req - fixed
                node = nodes / room if room > 0 else np.nan
                rows.append({
                    "n_gpus": int(n), "n_nodes": nodes, "ckpt_cost_h": float(d), "restart_h": float(r),
                    "job_mtbf_h": m_req, "interval_h": tau, "node_mtbf_h": node,
                    "gpu_mtbf_h": float(n) / room if room > 0 else np.nan,
                    "node_fit": 1e9 / node if room > 0 else np.nan, "feasible": room > 0,
                })
    table = pd.DataFrame(rows)
    table.attrs["assumption"] = assumption(fixed)
    table.attrs["law"] = law_words(law, law_of, int(np.max(n_gpus)))
    return table


def cost_list(values):
    """Checkpoint costs or restarts as a list: durations (one or many) or cost models."""
    if hasattr(values, "hours_at") or isinstance(values, str) or np.ndim(values) == 0:
        values = [values]
    return list(values)


def _quantiles(x, conf):
    a = (1.0 - conf) / 2
    lo, hi = np.quantile(np.asarray(x, dtype=float), [a, 1 - a], method="inverted_cdf", axis=0)
    return lo, hi


@dataclasses.dataclass(frozen=True)
class Requirements(Result):
    """What a cluster's parts must achieve for a target ETTR, with bootstrap intervals.

    Node and GPU figures attribute every hardware cause to nodes (or GPUs) and
    hold the per-job causes at their observed rate.  ``components`` gives, for
    each cause and for each group of causes (``scales_with``), the rate and FIT
    per unit it must reach with all other causes held at their observed rates.
    ``feasible`` is False, with ``message`` saying why, when the held causes
    alone already miss the target.
    """

    n_gpus: int
    n_nodes: int
    target_ettr: float
    ckpt_cost_h: float
    restart_h: float
    job_mtbf_h: float
    interval_h: float
    node_mtbf_h: float
    node_mtbf_lo: float
    node_mtbf_hi: float
    gpu_mtbf_h: float
    gpu_mtbf_lo: float
    gpu_mtbf_hi: float
    fixed_rate_per_h: float
    observed_job_mtbf_h: float
    observed_ettr: float
    observed_ettr_lo: float
    observed_ettr_hi: float
    p_feasible: float
    feasible: bool
    message: str
    components: pd.DataFrame
    conf: float
    costs: str = ""
    law_note: str = ""

    @property
    def assumption(self):
        """What the node and GPU figures hold fixed, e.g. "software ... faults held at 1.2 a day"."""
        return assumption(self.fixed_rate_per_h)

    def figures(self):
        """One row per headline figure: quantity, value, lo, hi, unit."""
        rows = [
            ("required job MTBF", self.job_mtbf_h, np.nan, np.nan, "h"),
            ("optimal interval at requirement", self.interval_h, np.nan, np.nan, "h"),
            ("required node MTBF", self.node_mtbf_h, self.node_mtbf_lo, self.node_mtbf_hi, "h"),
            ("required GPU MTBF", self.gpu_mtbf_h, self.gpu_mtbf_lo, self.gpu_mtbf_hi, "h"),
            ("observed job MTBF at this scale", self.observed_job_mtbf_h, np.nan, np.nan, "h"),
            ("ETTR at observed rates", self.observed_ettr, self.observed_ettr_lo, self.observed_ettr_hi, ""),
        ]
        return pd.DataFrame(rows, columns=["quantity", "value", "lo", "hi", "unit"])

    def to_frame(self):
        return self.components.copy()

    def text(self):
        """A few plain lines for a terminal or a report, every number in words ("101,000 h", "85.2%")."""
        conf = pct(self.conf, 0)
        target = pct(self.target_ettr).replace(".0%", "%")
        head = (f"Target ETTR {target} at {self.n_gpus:,} GPUs ({self.n_nodes:,} nodes), "
                f"checkpoint {duration(self.ckpt_cost_h)}, restart {duration(self.restart_h)}; "
                f"{self.assumption}") + (f"\ncosts at this size: {self.costs}" if self.costs else "") + \
            (f"\nfailure law: {self.law_note}" if self.law_note else "")
        if not self.feasible:
            return head + "\nIMPOSSIBLE: " + self.message
        if self.fixed_rate_per_h > 0:
            node = _hours_range(self.node_mtbf_lo, self.node_mtbf_hi, conf)
            gpu = _hours_range(self.gpu_mtbf_lo, self.gpu_mtbf_hi, conf)
        else:
            node = gpu = "(exact: no per-job causes observed, so no rate uncertainty enters)"
        return "\n".join([
            head,
            f"required job MTBF {duration(self.job_mtbf_h)} (optimal interval {duration(self.interval_h)})",
            f"required node MTBF {hours_text(self.node_mtbf_h)} {node}",
            f"required GPU MTBF {hours_text(self.gpu_mtbf_h)} {gpu}",
            f"at observed rates: job MTBF {duration(self.observed_job_mtbf_h)}, ETTR {pct(self.observed_ettr)} "
            f"({pct_range(self.observed_ettr_lo, self.observed_ettr_hi)}, {conf})",
        ])

    def __repr__(self):
        return "Requirements: " + self.text()

    def _repr_html_(self):
        text = html_text(self.text()).replace("\n", "<br>")
        return f"<p>{text}</p>" + html_table(self.components, index=False, float_format=lambda v: f"{v:.4g}")


def _hours_range(lo, hi, conf):
    """"(92,600–113,000 h, 95%)", or "(at least 92,600 h, 95%)" when no upper bound was found."""
    if np.isfinite(hi):
        return f"({sig(lo)}–{sig(hi)} h, {conf})"
    return f"(at least {hours_text(lo)}, {conf})"


def _component_rows(scaled, draws, lam_req, conf, share):
    """Per-cause and per-group FIT requirements with the others held (point and bootstrap)."""
    t = scaled.by_cause
    counts = scaled.target.counts()
    groups = [(g, (t["scales_with"] == g).to_numpy()) for g in dict.fromkeys(t["scales_with"]) if g != "job"]
    items = [(row.component, row.category, row.scales_with, np.arange(len(t)) == i) for i, row in enumerate(t.itertuples())]
    items += [(f"all {g} causes", "(group)", g, mask) for g, mask in groups]
    total, total_draws = float(t["rate_per_h"].sum()), draws.sum(axis=1)
    rows = []
    for name, cat, unit, mask in items:
        own, own_draws = float(t.loc[mask, "rate_per_h"].sum()), draws[:, mask].sum(axis=1)
        n_units = counts[unit]
        allow = lam_req - (total - own)
        allow_draws = np.clip(lam_req - (total_draws - own_draws), 0.0, None)
        fit_lo, fit_hi = _quantiles(allow_draws / n_units * 1e9, conf)
        cap = share / (1.0 - share)
        share_lo, share_hi = _quantiles(cap * (total_draws - own_draws) / n_units * 1e9, conf)
        rows.append({
            "component": name, "category": cat, "scales_with": unit, "units": n_units,
            "observed_fit": own / n_units * 1e9, "required_fit": max(allow, 0.0) / n_units * 1e9,
            "required_fit_lo": fit_lo, "required_fit_hi": fit_hi,
            "required_mtbf_h": n_units / allow if allow > 0 else np.inf,
            "improvement": (own / allow if allow > 0 else np.inf) if own > 0 else 0.0,
            "feasible": allow > 0,
            "share_fit": cap * (total - own) / n_units * 1e9, "share_fit_lo": share_lo, "share_fit_hi": share_hi,
        })
    return pd.DataFrame(rows)


@takes_scenario(**JOB, units="scale", conf="conf")
def plan_requirements(source, n_gpus=N_GPUS, target_ettr=TARGET_ETTR, ckpt_cost=CKPT_COST, restart=None,
                      *, source_cluster=None, target_cluster=None, units=None, share=0.1, conf=0.95, n_boot=2000, seed=None,
                      law=None, law_of=None):
    """Requirements at ``n_gpus`` (or ``target_cluster``) from rates observed in ``source``.

    ``source`` is a CountTable, InterruptionLog or per-job rates DataFrame
    (then give ``source_cluster``).  Intervals come from a parametric bootstrap
    over the Poisson counts (``n_boot`` draws, ``seed``).  ``improvement`` in
    the components table is how many times lower a cause's rate must become;
    ``share_fit`` is the FIT per unit that keeps the cause under ``share`` of
    all interruptions, the others held at their observed rates.

    The per-job causes (software, unexplained timeouts: ``scales_with`` "job")
    are held at their observed rate, as ``result.assumption`` says;
    :func:`required_node_mtbf` with ``source=`` gives the same node MTBF.
    Durations: ``ckpt_cost`` (default 1 min), ``restart`` (default None: 10 min
    plus the start-up that grows with the ranks, as :func:`relmodel.decide`
    takes it, so both give one answer); MTBFs in hours.  ``law`` and a RestartModel ``restart`` are as in
    :func:`required_node_mtbf`; ``law_of`` must be ``"job gaps"`` here (a law
    of the source's own times between interruptions: ``law_note`` says it is
    carried to the target size as it is); a law of node lives goes to
    :func:`relmodel.scale.targets.life_requirement.node_life_requirement`.

    Examples
    --------
    >>> import relmodel
    >>> plan = plan_requirements(relmodel.datasets.llama3_54day(), 16_384, 0.9, "1min", "10min", n_boot=200, seed=0)
    >>> round(plan.node_mtbf_h), plan.assumption
    (16595, 'software and other per-job faults held at 1.2 a day')
    """
    if not 0.0 < float(share) < 1.0:
        raise ModelInputError(f"share must be a fraction in (0, 1), e.g. 0.1; got {share!r}")
    if check_law_of(law, law_of) == "node lives":
        raise ModelInputError("plan_requirements reads a law of the source's job gaps (law_of='job gaps'); for a "
                              "law of node lives use node_life_requirement, which states a mature and a new fleet")
    from ..clusters.scaling import cluster_of, grow_cluster, scale_rates
    src = cluster_of(source if source_cluster is None else source_cluster)
    tgt = grow_cluster(n_gpus if target_cluster is None else target_cluster, src)
    scaled = scale_rates(source, src, tgt, units=units, conf=conf, n_boot=n_boot, seed=seed)
    restart = default_restart(restart, tgt.n_gpus)
    d, r = cost_hours(ckpt_cost, tgt.n_gpus, "ckpt_cost"), cost_hours(restart, tgt.n_gpus, "restart")
    m_req, tau_req = needed_job_mtbf(target_ettr, d, restart, r, tgt.n_gpus, law)
    lam_req = 1.0 / m_req
    draws = scaled.draws(n_boot, seed)
    job_mask = (scaled.by_cause["scales_with"] == "job").to_numpy()
    fixed, fixed_draws = scaled.rate_of("job"), draws[:, job_mask].sum(axis=1)
    room, room_draws = lam_req - fixed, lam_req - fixed_draws
    with np.errstate(divide="ignore"):
        node_draws = np.where(room_draws > 0, tgt.n_nodes / np.where(room_draws > 0, room_draws, 1.0), np.inf)
    node_lo, node_hi = _quantiles(node_draws, conf)
    gpu_scale = tgt.n_gpus / tgt.n_nodes
    with np.errstate(divide="ignore"):
        ettr_draws = ettr_at(1.0 / draws.sum(axis=1), d, restart, r, tgt.n_gpus, law)
    ettr_lo, ettr_hi = _quantiles(ettr_draws, conf)
    feasible = room > 0
    node = tgt.n_nodes / room if feasible else np.inf
    message = "" if feasible else _infeasible_message(tgt.n_gpus, float(target_ettr), d, r, m_req, fixed)
    return Requirements(
        n_gpus=tgt.n_gpus, n_nodes=tgt.n_nodes, target_ettr=float(target_ettr), ckpt_cost_h=float(d),
        restart_h=float(r), job_mtbf_h=m_req, interval_h=float(tau_req),
        node_mtbf_h=node, node_mtbf_lo=float(node_lo), node_mtbf_hi=float(node_hi),
        gpu_mtbf_h=node * gpu_scale, gpu_mtbf_lo=float(node_lo) * gpu_scale, gpu_mtbf_hi=float(node_hi) * gpu_scale,
        fixed_rate_per_h=fixed, observed_job_mtbf_h=scaled.job_mtbf_h,
        observed_ettr=float(ettr_at(scaled.job_mtbf_h, d, restart, r, tgt.n_gpus, law)), observed_ettr_lo=float(ettr_lo),
        observed_ettr_hi=float(ettr_hi), p_feasible=float(np.mean(room_draws > 0)), feasible=bool(feasible),
        message=message, components=_component_rows(scaled, draws, lam_req, conf, float(share)), conf=conf,
        costs=_costs_note(ckpt_cost, restart, tgt.n_gpus), law_note=law_words(law, law_of, tgt.n_gpus, src.n_gpus),
    )


def _costs_note(ckpt_cost, restart, n_gpus):
    """Which costs were used, when either is a model that grows with the size ("" for two constants)."""
    if not (hasattr(ckpt_cost, "hours_at") or hasattr(restart, "hours_at")):
        return ""
    return f"checkpoint {describe_cost(ckpt_cost, n_gpus)}; restart {describe_cost(restart, n_gpus)}"
