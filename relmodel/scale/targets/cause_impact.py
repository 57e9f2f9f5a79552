"""What each cause costs the planned job, and the failure law its log supports for a simulation.

:func:`cause_impact` ranks causes by the ETTR their removal would give back; :func:`failure_law` picks the law
the job is simulated with (the AIC-best family of the log's gaps, stretched to the job's MTBF).
"""

import pandas as pd

from ...units import hours
from .decision_inputs import law_name
from .requirements import best_ettr

__all__ = ["cause_impact", "failure_law"]


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

    from ...checkpoint.sources import ExponentialFailures, Rescaled
    from ...stats.lifetimes.ranking import compare_fits
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
    return Rescaled(best, m), (f"the {law_name(best.family)} law fitted to the log's times between interruptions{shape}, "
                               "stretched to the job's MTBF")
