"""The planning answer for one data source: interval, ETTR, requirement, reach.

:func:`decide` scales the rates observed in a source (a
:class:`~relmodel.data.source.Source`, or a log or count table with its
cluster) to the job's size and answers the report's question in numbers:
how often to checkpoint and the ETTR that gives (with intervals from the
Poisson uncertainty of the counts), what job MTBF the target needs, and
what node MTBF that means with the per-job causes held at their observed
rate.  When those per-job causes alone cap ETTR below the target the answer
says so: ``reachable`` is False, ``cap_ettr`` is the best ETTR perfect
hardware would give, and ``max_fixed_per_day`` is the per-job failure rate
the target needs.  :func:`cause_impact` ranks causes by their share of lost
time and the ETTR gained by removing each.
"""

import dataclasses
import math

import pandas as pd

from ..checkpoint.intervals import optimal_interval
from ..tables import Result
from ..units import hours
from .cluster import Cluster
from .requirements import best_ettr, plan_requirements, required_job_mtbf
from .scaling import cluster_of, grow_cluster, scale_rates

__all__ = ["Decision", "decide", "source_cluster", "cause_impact", "failure_law"]


def _finite(x):
    return x is not None and math.isfinite(float(x))


@dataclasses.dataclass(frozen=True)
class Decision(Result):
    """Numbers that answer "how often to checkpoint, and what must the hardware reach?".

    Durations are hours, rates per hour unless the name says per day.  A
    requirement that no hardware can meet is ``None`` (``reachable`` False).
    """

    n_gpus: int
    n_nodes: int
    gpus_per_node: int
    target_ettr: float
    ckpt_cost_h: float
    restart_h: float
    job_mtbf_h: float
    job_mtbf_lo: float
    job_mtbf_hi: float
    interval_h: float
    interval_lo: float
    interval_hi: float
    ettr: float
    ettr_lo: float
    ettr_hi: float
    required_job_mtbf_h: float
    fixed_per_day: float
    hardware_per_day: float
    observed_node_mtbf_h: object
    required_node_mtbf_h: object
    required_node_lo: object
    required_node_hi: object
    reachable: bool
    cap_ettr: float
    max_fixed_per_day: float
    p_reachable: float
    conf: float

    @property
    def meets_target(self):
        """True when the observed rates already give the target ETTR."""
        return self.ettr >= self.target_ettr

    @property
    def improvement(self):
        """How many times the node MTBF must grow (None when out of reach or unknown)."""
        if not (self.reachable and _finite(self.observed_node_mtbf_h) and _finite(self.required_node_mtbf_h)):
            return None
        return self.required_node_mtbf_h / self.observed_node_mtbf_h

    def to_dict(self):
        """Plain numbers (JSON-able; non-finite values become None)."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v if isinstance(v, (bool, int)) or _finite(v) else None
        out["improvement"] = self.improvement
        out["meets_target"] = self.meets_target
        return out

    def to_frame(self):
        """One row per quantity: quantity, value."""
        return pd.DataFrame(list(self.to_dict().items()), columns=["quantity", "value"])

    def text(self):
        """The decision in a sentence."""
        state = "reachable" if self.reachable else f"out of reach (cap {self.cap_ettr:.1%})"
        return (f"At {self.n_gpus:,} GPUs: job MTBF {self.job_mtbf_h:.3g} h, checkpoint every "
                f"{60 * self.interval_h:.0f} min, ETTR {self.ettr:.1%}; target {self.target_ettr:.0%} is {state}.")

    def _repr_html_(self):
        state = "reachable" if self.reachable else f"out of reach (cap {self.cap_ettr:.1%})"
        return (f"<p>At {self.n_gpus:,} GPUs: job MTBF {self.job_mtbf_h:.3g} h, checkpoint every "
                f"{60 * self.interval_h:.0f} min, ETTR {self.ettr:.1%}; target {self.target_ettr:.0%} is "
                f"{state}.</p>")


def source_cluster(source):
    """The :class:`Cluster` a Source (or log / count table) was observed on."""
    data = getattr(source, "data", source)
    gpus = getattr(source, "source_gpus", None)
    gpn = getattr(source, "gpus_per_node", None)
    try:
        found = cluster_of(data, gpn)
    except Exception:
        found = None
    if found is not None and (gpus is None or found.n_gpus == gpus):
        return found
    return Cluster(n_gpus=int(gpus), gpus_per_node=int(gpn or 8), name=str(getattr(source, "name", "source")))


def decide(source, n_gpus, target_ettr, ckpt_cost, restart, *, gpus_per_node=None, conf=0.95, n_boot=2000,
           seed=None):
    """Answer the planning question for ``n_gpus`` from the rates in ``source``; returns a :class:`Decision`.

    ``source`` is a count table or interruption log; ``n_gpus`` GPUs;
    ``target_ettr`` a fraction; ``ckpt_cost`` and ``restart`` durations
    (hours or strings such as "1min").  Intervals come from ``n_boot``
    bootstrap draws of the rates.

    Examples
    --------
    >>> import relmodel
    >>> d = decide(relmodel.datasets.llama3_54day(), 16384, 0.9, "1min", "10min", n_boot=200, seed=0)
    >>> round(d.job_mtbf_h, 3), round(60 * d.interval_h, 1), round(d.ettr, 3), d.reachable   # hours, minutes
    (3.093, 18.6, 0.853, True)
    """
    data = getattr(source, "data", source)
    src = source_cluster(source)
    tgt = grow_cluster(int(n_gpus), src, gpus_per_node=gpus_per_node)
    if int(n_boot) < 2:  # no bootstrap: point answers, no intervals
        point = decide(source, n_gpus, target_ettr, ckpt_cost, restart, gpus_per_node=gpus_per_node, conf=conf,
                       n_boot=2, seed=seed)
        return dataclasses.replace(point, **{k: None for k in (
            "job_mtbf_lo", "job_mtbf_hi", "interval_lo", "interval_hi", "ettr_lo", "ettr_hi", "required_node_lo",
            "required_node_hi")}, p_reachable=float(point.reachable))
    d, r = float(hours(ckpt_cost)), float(hours(restart))
    req = plan_requirements(data, tgt.n_gpus, target_ettr, d, r, source_cluster=src, target_cluster=tgt,
                            conf=conf, n_boot=n_boot, seed=seed)
    scaled = scale_rates(data, src, tgt, conf=conf, n_boot=n_boot, seed=seed)
    m, lo, hi = scaled.job_mtbf_h, scaled.job_mtbf_lo, scaled.job_mtbf_hi
    fixed = req.fixed_rate_per_h
    hardware = scaled.job_rate_per_h - fixed
    m_req = required_job_mtbf(target_ettr, d, r)
    node = req.node_mtbf_h if req.feasible else None
    return Decision(
        n_gpus=tgt.n_gpus, n_nodes=tgt.n_nodes, gpus_per_node=tgt.gpus_per_node, target_ettr=float(target_ettr),
        ckpt_cost_h=d, restart_h=r, job_mtbf_h=m, job_mtbf_lo=lo, job_mtbf_hi=hi,
        interval_h=float(optimal_interval(mtbf=m, ckpt_cost=d, restart=r)),
        interval_lo=float(optimal_interval(mtbf=lo, ckpt_cost=d, restart=r)),
        interval_hi=float(optimal_interval(mtbf=hi, ckpt_cost=d, restart=r)),
        ettr=req.observed_ettr, ettr_lo=req.observed_ettr_lo, ettr_hi=req.observed_ettr_hi,
        required_job_mtbf_h=m_req, fixed_per_day=24 * fixed, hardware_per_day=24 * hardware,
        observed_node_mtbf_h=tgt.n_nodes / hardware if hardware > 0 else None,
        required_node_mtbf_h=node,
        required_node_lo=req.node_mtbf_lo if node is not None and _finite(req.node_mtbf_lo) else None,
        required_node_hi=req.node_mtbf_hi if node is not None and _finite(req.node_mtbf_hi) else None,
        reachable=bool(req.feasible), cap_ettr=float(best_ettr(1 / fixed, d, r)) if fixed > 0 else 1.0,
        max_fixed_per_day=24 / m_req, p_reachable=req.p_feasible, conf=conf,
    )


def cause_impact(scaled, ckpt_cost, restart, top=8):
    """Causes ranked by their share of lost time, and the ETTR gained by removing each.

    Every interruption costs the same expected time (a restart plus half an
    interval of lost work), so a cause's share of lost time is its share of
    the rate.  Returns columns component, scales_with, per_day, share,
    ettr_without, gain; the rest are pooled in one "all other causes" row.
    """
    d, r = float(hours(ckpt_cost)), float(hours(restart))
    t = scaled.by_cause.sort_values("rate_per_h", ascending=False, kind="stable")
    total = float(t["rate_per_h"].sum())
    base = float(best_ettr(1 / total, d, r)) if total > 0 else 1.0
    rows = []
    head, rest = t.head(int(top)), t.iloc[int(top):]
    items = [(row.component, row.scales_with, row.rate_per_h) for row in head.itertuples()]
    if len(rest):
        items.append((f"all other causes ({len(rest)})", "mixed", float(rest["rate_per_h"].sum())))
    for name, unit, rate in items:
        left = total - rate
        without = float(best_ettr(1 / left, d, r)) if left > 0 else 1.0
        rows.append({"component": name, "scales_with": unit, "per_day": 24 * rate,
                     "share": rate / total if total > 0 else 0.0, "ettr_without": without,
                     "gain": without - base})
    return pd.DataFrame(rows)


def failure_law(source, job_mtbf_h, families=("exponential", "weibull", "lognormal", "gamma")):
    """The failure law the data supports for simulating the job, and its description.

    A log: the AIC-best family fitted to the whole log's times between
    interruptions, stretched to the job's MTBF (same shape; see
    :class:`~relmodel.checkpoint.sources.Rescaled`).  A count table has no
    times, so the law is exponential at the job MTBF.  Returns ``(law, text)``.
    """
    import warnings

    from ..checkpoint.sources import ExponentialFailures, Rescaled
    from ..stats.lifetimes.ranking import compare_fits
    m = float(hours(job_mtbf_h))
    data = getattr(source, "data", source)
    if not hasattr(data, "interarrivals"):
        return ExponentialFailures(m), "exponential failures (a count table has no times to fit a shape to)"
    gaps = data.interarrivals()
    if gaps.n_observed < 10:
        return ExponentialFailures(m), (f"exponential failures (only {gaps.n_observed} gaps between "
                                        "interruptions, too few to fit a shape)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = compare_fits(gaps, list(families), n_boot=0).best
    shape = "".join(f", {k} {v:.2g}" for k, v in best.params.items() if k in ("shape", "k", "sigma", "alpha"))
    return Rescaled(best, m), (f"the {best.family} law fitted to the log's times between interruptions{shape}, "
                               "stretched to the job's MTBF")
