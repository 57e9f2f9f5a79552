"""Failure rates per component with exact Poisson or Bayesian intervals.

Rates are failures per hour per unit ("job", "node" or "gpu"); MTBF is
1/rate; FIT is failures per 10^9 unit-hours.

* ``method="exact"``: Garwood's (1936) exact Poisson interval,
  [χ²(α/2; 2k) / 2T, χ²(1−α/2; 2k+2) / 2T].  With no failures the point rate
  is 0 and only a one-sided upper bound χ²(conf; 2) / 2T is given (about 3/T
  at 95%), so the MTBF has a lower bound and no point value.
* ``method="jeffreys"``: Gamma(k + 1/2, T) posterior of the rate under the
  Jeffreys prior; point value the posterior mean, equal-tailed interval.
"""

import numpy as np
import pandas as pd
from scipy import stats

from ...data.shaping.counts import CountTable
from ...errors import CountError, InputTypeError, UnitError, UnknownColumnError
from ...data.shaping.logs import InterruptionLog
from ...data.shaping.window import check_observed_time
from ...data.source import Source
from ...units import hours

__all__ = ["component_rates", "poisson_interval", "PER"]

PER = ("job", "node", "gpu")


def poisson_interval(count, exposure_h, conf=0.95, method="exact"):
    """Rate point value and interval for ``count`` events in ``exposure_h`` unit-hours.

    Returns ``(rate, lower, upper)`` per hour, as floats or arrays.

    Examples
    --------
    >>> rate, lo, hi = poisson_interval(10, 1000.0)      # 10 failures in 1,000 unit-hours
    >>> float(rate), round(float(lo), 5), round(float(hi), 5)   # per hour; exact (Garwood) 95% bounds
    (0.01, 0.0048, 0.01839)
    """
    k = np.asarray(count, dtype=float)
    t = np.asarray(hours(exposure_h) if isinstance(exposure_h, (str, list, tuple)) or hasattr(exposure_h, "days")
                   else exposure_h, dtype=float)  # a duration ("10d", a timedelta) reads as hours
    if np.any(~np.isfinite(k)) or np.any(k < 0) or np.any(k != np.floor(k)):
        raise CountError(f"counts must be whole numbers of zero or more, got {count!r}")
    if np.any(~(t > 0)):
        raise CountError(f"exposure must be positive, got {exposure_h!r}")
    if not 0 < conf < 1:
        raise CountError(f"conf must be between 0 and 1, got {conf!r}")
    a = 1.0 - conf
    if method == "exact":
        rate = k / t
        lo = np.where(k > 0, stats.chi2.ppf(a / 2, 2 * np.maximum(k, 1)) / (2 * t), 0.0)
        hi = np.where(k > 0, stats.chi2.ppf(1 - a / 2, 2 * k + 2), stats.chi2.ppf(conf, 2)) / (2 * t)
    elif method == "jeffreys":
        rate = (k + 0.5) / t
        lo = stats.gamma.ppf(a / 2, k + 0.5) / t
        hi = stats.gamma.ppf(1 - a / 2, k + 0.5) / t
    else:
        raise CountError(f"unknown method {method!r}; use 'exact' or 'jeffreys'")
    return rate[()], lo[()], hi[()]


def _counts_and_exposure(source, per, by):
    if isinstance(source, Source):  # what load_source returns: its count table or event log
        source = source.data
    if isinstance(source, CountTable):
        if by is not None and (not isinstance(by, str) or by not in ("component", "category")):
            raise UnknownColumnError(f"{getattr(source, 'name', 'the count table')}: cannot count by {by!r:.60}: "
                                     "a count table is counted by 'component' (the default) or 'category'")
        units = {"job": 1, "node": source.n_nodes, "gpu": source.n_gpus}[per]
        t = source.counts
        if by == "category":
            g = t.groupby("category", sort=False)["count"].sum().sort_values(ascending=False, kind="stable")
            return g.index.to_numpy(), g.index.to_numpy(), g.to_numpy(), source.duration_h * units
        return t["component"].to_numpy(), t["category"].to_numpy(), t["count"].to_numpy(), source.duration_h * units
    if isinstance(source, InterruptionLog):
        return _log_counts(check_observed_time(source), per, by)
    raise CountError(f"component_rates needs a CountTable, an InterruptionLog or a Source holding one "
                     f"(relmodel.load_source), got {type(source).__name__}")


def _log_counts(log, per, by):
    if per == "gpu" and not log.gpus_per_node:
        raise UnitError(f"{log.name}: per='gpu' needs the number of GPUs per node; give gpus_per_node")
    units = {"job": 1, "node": log.n_nodes, "gpu": log.n_nodes * (log.gpus_per_node or 1)}[per]
    ev = log.interruptions()
    cols = log.cause_columns
    if by is None:
        comp = cols[1] if len(cols) > 1 else (cols[0] if cols else None)
        cat = cols[0] if cols else None
    else:
        if not isinstance(by, str):
            raise InputTypeError(f"by= must be a column name (a string); got {type(by).__name__} {by!r:.60}")
        if by not in log.events.columns or by in ("row", "start_h", "end_h", "overlaps"):
            known = ", ".join(repr(c) for c in ["node"] + cols + ["planned"])
            raise UnknownColumnError(f"{log.name}: cannot count by {by!r}: no such cause column; use one of {known}")
        comp, cat = by, (cols[0] if cols and cols[0] != by else by)
    if comp is None:
        return np.array(["All causes"]), np.array(["All"]), np.array([len(ev)]), log.duration_h * units
    g = ev.groupby([comp, cat] if cat != comp else [comp], sort=False).size().sort_values(ascending=False)
    names = [k[0] if isinstance(k, tuple) else k for k in g.index]
    cats = [k[1] if isinstance(k, tuple) else k for k in g.index]
    return np.array(names, object), np.array(cats, object), g.to_numpy(), log.duration_h * units


def component_rates(source, per="job", conf=0.95, method="exact", by=None):
    """Failure rate, MTBF and FIT per component, with a total row.

    Parameters
    ----------
    source : CountTable or InterruptionLog, or a Source (:func:`~relmodel.load_source`) holding
        one.  For a log, unexpected
        interruptions are counted by cause: the second cause column is the
        component and the first the category (``by`` picks another column).
    per : "job" (the whole job or cluster), "node" or "gpu".
    conf : confidence level of the intervals.
    method : "exact" (Garwood) or "jeffreys" (Bayesian, for tiny counts).

    Returns a DataFrame: component, category, count, exposure_h, rate_per_h,
    rate_lo, rate_hi, mtbf_h, mtbf_lo, mtbf_hi, fit, fit_lo, fit_hi, share.
    MTBF is NaN where nothing failed; ``mtbf_lo`` then still bounds it.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> total = component_rates(llama3_54day(), per="job").iloc[-1]
    >>> int(total["count"]), [round(float(total[c]), 2) for c in ("mtbf_h", "mtbf_lo", "mtbf_hi")]   # hours
    (419, [3.09, 2.81, 3.41])
    """
    if per not in PER:
        raise UnitError(f"unknown per={per!r}; use one of {', '.join(PER)}")
    comp, cat, k, exposure = _counts_and_exposure(source, per, by)
    k = np.append(np.asarray(k, float), np.sum(k))
    rate, lo, hi = poisson_interval(k, np.full(k.shape, exposure), conf, method)
    with np.errstate(divide="ignore"):
        inv = lambda r: np.where(r > 0, 1.0 / np.where(r > 0, r, 1.0), np.nan)
        mtbf, mtbf_lo = inv(rate), 1.0 / hi
        mtbf_hi = np.where(lo > 0, 1.0 / np.where(lo > 0, lo, 1.0), np.inf)
    return pd.DataFrame({
        "component": list(comp) + ["Total"], "category": list(cat) + ["All"],
        "count": k.astype(int), "exposure_h": exposure, "rate_per_h": rate, "rate_lo": lo,
        "rate_hi": hi, "mtbf_h": mtbf, "mtbf_lo": mtbf_lo, "mtbf_hi": mtbf_hi,
        "fit": rate * 1e9, "fit_lo": lo * 1e9, "fit_hi": hi * 1e9,
        "share": k / k[-1] if k[-1] > 0 else np.zeros_like(k),
    })
