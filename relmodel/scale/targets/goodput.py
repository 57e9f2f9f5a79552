"""Goodput at the best interval, and the job MTBF a target ETTR needs.

The job's failures are a Poisson process of rate 1/M and the job checkpoints
at the exact optimum of Daly's model (Daly 2006, FGCS 22(3);
:func:`relmodel.checkpoint.optimal_interval`, :func:`relmodel.checkpoint.ettr`).
The best achievable ETTR rises monotonically with M, so a target has one
required job MTBF, found by bisection on its logarithm.  :mod:`relmodel.scale.targets.requirements`
turns it into node, GPU and component requirements.
"""

import math

import numpy as np

from ...checkpoint.costs import cost_hours
from ...checkpoint.intervals import _ettr, _optimal, ettr, optimal_interval
from ...defaults import CKPT_COST, RESTART, TARGET_ETTR
from ...errors import InfeasibleTargetError, ModelInputError
from ...units import hours

__all__ = ["best_ettr", "ettr_of_rates", "required_job_mtbf", "assumption"]


def best_ettr(mtbf, ckpt_cost=CKPT_COST, restart=RESTART):
    """ETTR (a fraction) at the optimal checkpoint interval for job MTBF ``mtbf`` (exact exponential model).

    ``mtbf``, ``ckpt_cost`` (default 1 min) and ``restart`` (default 10 min)
    are durations.  Vectorised.

    Examples
    --------
    >>> round(float(best_ettr("3h", "45s", "10min")), 4)
    0.8622
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        tau = optimal_interval(mtbf, ckpt_cost)
        return ettr(tau, mtbf, ckpt_cost, restart)


def _best_ettr(m, d, r):
    """:func:`best_ettr` on float hours, unchecked (for root searches)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _ettr(_optimal(m, d), m, d, r)


def assumption(fixed_rate_per_h):
    """The sentence that says what a requirement holds fixed, e.g. "software faults held at 1.2 a day".

    Examples
    --------
    >>> assumption(0.05)
    'software and other per-job faults held at 1.2 a day'
    >>> assumption(0)
    'every interruption counted against the nodes (no per-job faults held)'
    """
    rate = _rate(fixed_rate_per_h)
    if rate == 0:
        return "every interruption counted against the nodes (no per-job faults held)"
    return f"software and other per-job faults held at {24 * rate:.2g} a day"


def ettr_of_rates(rate_per_h, ckpt_cost=CKPT_COST, restart=RESTART):
    """Best ETTR for job failure rates (per hour), vectorised; a zero rate gives ETTR 1.

    Examples
    --------
    >>> [round(float(x), 4) for x in ettr_of_rates([1 / 3, 0.0], "45s", "10min")]
    [0.8622, 1.0]
    """
    lam = np.asarray(rate_per_h, dtype=float)
    ok = lam > 0
    out = np.ones(lam.shape)
    if ok.any():
        out[ok] = _best_ettr(1.0 / lam[ok], cost_hours(ckpt_cost, name="ckpt_cost"), cost_hours(restart, name="restart"))
    return out[()]


def _check_target(target_ettr):
    t = float(target_ettr)
    if not (0.0 < t <= 1.0) or math.isnan(t):
        raise ModelInputError(f"target_ettr must be a fraction in (0, 1), e.g. 0.9; got {target_ettr!r}")
    if t == 1.0:
        raise InfeasibleTargetError(
            "target_ettr 1 cannot be reached: any checkpoint cost or restart time loses some time; "
            "choose a target below 1, e.g. 0.95")
    return t


def required_job_mtbf(target_ettr=TARGET_ETTR, ckpt_cost=CKPT_COST, restart=RESTART, *, sdc_rate=0.0,
                      sdc_delay=0.0, latency=0.0):
    """The job MTBF (hours) at which the best ETTR equals ``target_ettr``.

    ``ckpt_cost`` (default 1 min) must be positive; ``restart`` defaults to
    10 min (:mod:`relmodel.defaults`); durations go through :func:`relmodel.units.hours`.
    ``sdc_rate`` (silent corruptions per hour, held fixed), ``sdc_delay`` and
    ``latency`` (fail-stop detection latency) make it the fail-stop MTBF
    needed beside them (:mod:`relmodel.checkpoint.detection`); a corruption
    rate that alone misses the target raises
    :class:`~relmodel.errors.InfeasibleTargetError`.

    Examples
    --------
    >>> m = required_job_mtbf(0.9, "1min", "10min")
    >>> round(m, 3), round(float(best_ettr(m, "1min", "10min")), 6)
    (5.813, 0.9)
    """
    t = _check_target(target_ettr)
    d, r = cost_hours(ckpt_cost, name="ckpt_cost"), cost_hours(restart, name="restart")
    if not np.isscalar(d) or not np.isscalar(r):
        raise ModelInputError("required_job_mtbf takes one ckpt_cost and one restart; use requirements_table for grids")
    ettr(1.0, 1.0, d, r)  # validates the durations with named errors
    if not d > 0:
        raise ModelInputError(f"ckpt_cost must be a positive duration; got {ckpt_cost!r}")

    detect = bool(sdc_rate or sdc_delay or latency)
    if detect:
        from ...checkpoint.detection import detection_terms
        m_inf, _, extra_inf = detection_terms(np.inf, sdc_rate, sdc_delay, latency)
        if np.isfinite(m_inf) and float(_best_ettr(m_inf, d, r + extra_inf)) <= t:
            raise InfeasibleTargetError(
                f"silent corruption at {24 * float(sdc_rate):.3g} a day, each unnoticed for "
                f"{float(hours(sdc_delay)):.3g} h, alone keeps ETTR at {float(_best_ettr(m_inf, d, r + extra_inf)):.3f}"
                f", below the target {t:g}: detect corruption sooner or checkpoint faster")

    def gap(log_m):
        if detect:
            m_all, _, extra = detection_terms(math.exp(log_m), sdc_rate, sdc_delay, latency)
            return float(_best_ettr(m_all, d, r + extra)) - t
        return float(_best_ettr(math.exp(log_m), d, r)) - t

    scale = math.log(max(d + r, 1e-9))
    lo, hi = scale - 2.0, scale + 2.0
    while gap(lo) > 0:
        lo -= 4.0
    while gap(hi) < 0:
        hi += 4.0
        if hi > 700:
            raise InfeasibleTargetError(f"target_ettr {t} needs a job MTBF beyond 1e300 h")
    return math.exp(_bisect(gap, lo, hi))


def _bisect(gap, lo, hi):
    """The root of the increasing ``gap`` between ``lo`` (gap <= 0) and ``hi`` (gap >= 0), by bisection to the
    last digit (until the bracket is two adjacent floats).  ``lo`` and ``hi`` are numbers, or arrays of one
    shape for a vectorised ``gap`` (one root each).  No scipy: the one-line ``relmodel requirements --mtbf``
    answer loads numpy only."""
    lo, hi = np.array(lo, dtype=float), np.array(hi, dtype=float)
    while True:
        mid = 0.5 * (lo + hi)
        moving = (lo < mid) & (mid < hi)
        if not moving.any():
            return float(mid) if mid.ndim == 0 else mid
        below = np.asarray(gap(mid)) < 0
        lo, hi = np.where(moving & below, mid, lo), np.where(moving & ~below, mid, hi)


def _rate(x):
    v = float(x)
    if not (v >= 0 and math.isfinite(v)):
        raise ModelInputError(f"a rate must be a finite number of failures per hour >= 0; got {x!r}")
    return v
