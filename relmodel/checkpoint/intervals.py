"""Checkpoint intervals and ETTR for exponential failures (closed forms).

Notation (../REFERENCE in the docs): ``ckpt_cost`` δ is the time the job is
stalled writing one checkpoint, ``mtbf`` M the job's mean time between
failures, ``restart`` R the time to detect, reschedule and reload, and
``interval`` τ the compute time between checkpoints.  All accept anything
:func:`relmodel.units.hours` does and broadcast over numpy arrays.

* intervals: :func:`young_interval`, :func:`daly_interval`,
  :func:`optimal_interval` (exact, Lambert W), :func:`best_step_interval`
  (a whole number of training steps);
* goodput: :func:`ettr`, :func:`expected_wall_time` and
  :func:`time_breakdown` (useful work, checkpoint writes, lost work and
  restarts, adding up exactly to the expected wall time).

Asynchronous and two-level checkpointing are in :mod:`relmodel.checkpoint.multilevel`,
restart phases in :mod:`relmodel.checkpoint.restart`, non-exponential failures in
:mod:`relmodel.checkpoint.simulate` and :mod:`relmodel.checkpoint.search`.
"""

from dataclasses import dataclass

import numpy as np

from ..scenario import takes_scenario
from ..base.lambert import lambert_w
from ..defaults import RESTART
from ..errors import ModelInputError
from .breakdown import TimeBreakdown
from .costs import cost_hours
from .detection import detection_terms, p_unrecoverable
from .order import check_order
from ..tables import Result, count, duration, number

__all__ = [
    "young_interval", "daly_interval", "optimal_interval", "ettr",
    "expected_wall_time", "time_breakdown", "TimeBreakdown",
    "best_step_interval", "StepInterval",
]


def _positive(name, x):
    v = cost_hours(x, name=name)
    a = np.asarray(v, dtype=float)
    if np.any(~np.isfinite(a)) or np.any(a <= 0):
        raise ModelInputError(f"{name} must be a positive, finite duration; got {x!r}")
    return v


def _nonnegative(name, x):
    v = cost_hours(x, name=name)
    a = np.asarray(v, dtype=float)
    if np.any(~np.isfinite(a)) or np.any(a < 0):
        raise ModelInputError(f"{name} must be a finite duration of zero or more; got {x!r}")
    return v


def young_interval(mtbf, ckpt_cost):
    """Young's first-order interval sqrt(2 δ M) in hours (Young 1974, CACM 17(9)).

    ``mtbf`` M is the job's mean time between failures and ``ckpt_cost`` δ
    the time one checkpoint write stalls the job; both are durations (float
    hours, ``"3h"``, ``"45s"``...).  Vectorised.  Since 0.2.0 the order is
    (mtbf, ckpt_cost), as everywhere else; a cost at or above the MTBF warns
    (:class:`~relmodel.errors.ArgumentOrderWarning`).

    Examples
    --------
    >>> round(float(young_interval("3h", "45s")), 4)        # hours
    0.2739
    >>> round(float(young_interval(mtbf=3.0, ckpt_cost=45 / 3600)) * 60, 2)  # minutes
    16.43
    """
    d, m = _positive("ckpt_cost", ckpt_cost), _positive("mtbf", mtbf)
    check_order("young_interval(mtbf, ckpt_cost)", mtbf=m, ckpt_cost=d)
    return (np.sqrt(2.0 * np.asarray(d, dtype=float)) * np.sqrt(np.asarray(m, dtype=float)))[()]  # no overflow


def daly_interval(mtbf, ckpt_cost):
    """Daly's higher-order interval in hours (Daly 2006, FGCS 22(3)); M when δ >= 2M.

    sqrt(2 δ M) (1 + sqrt(δ/(2M))/3 + δ/(18 M)) - δ, for job MTBF ``mtbf``
    M and checkpoint cost ``ckpt_cost`` δ (durations).  Vectorised.  Since
    0.2.0 the order is (mtbf, ckpt_cost); a cost at or above the MTBF warns.

    Examples
    --------
    >>> round(float(daly_interval("3h", "45s")), 4)          # hours
    0.2656
    >>> round(float(daly_interval("24h", "5min")) * 60, 1)   # minutes; Daly (2006) prints 117
    116.7
    """
    d = np.asarray(_positive("ckpt_cost", ckpt_cost), dtype=float)
    m = np.asarray(_positive("mtbf", mtbf), dtype=float)
    check_order("daly_interval(mtbf, ckpt_cost)", mtbf=m, ckpt_cost=d)
    return _daly(m, d)


def _daly(m, d):
    """:func:`daly_interval` on float hours, unchecked."""
    m, d = np.asarray(m, dtype=float), np.asarray(d, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):  # the branch with d >= 2M is not used
        x = d / (2.0 * m)
        tau = np.sqrt(2.0 * d) * np.sqrt(m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return np.where(d < 2.0 * m, tau, m)[()]


@takes_scenario(ckpt_cost="ckpt_cost")
def optimal_interval(mtbf, ckpt_cost, *, restart=None):
    """Exact optimum τ* = M [1 + W0(-exp(-(1 + δ/M)))] of Daly's wall-time model, in hours.

    ``mtbf`` M and ``ckpt_cost`` δ are durations.  The optimum does not
    depend on the restart time; ``restart=`` is accepted (and ignored) so
    keyword calls that pass it keep working.  When δ/M is tiny the argument
    of W0 is next to its branch point -1/e, where 1 + W0 loses digits (and
    becomes 0 once e^{-δ/M} rounds to 1); there the branch-point series
    1 + W0 = p - p²/3 + 11p³/72 - 43p⁴/540 + 769p⁵/17280 with
    p = sqrt(2 (1 - e^{-δ/M})) is used instead (Corless et al. 1996, "On the
    Lambert W function", Adv. Comput. Math. 5).  Vectorised.

    Examples
    --------
    >>> round(float(optimal_interval("3h", "45s")), 4)       # hours
    0.2656
    """
    m = np.asarray(_positive("mtbf", mtbf), dtype=float)
    d = np.asarray(_positive("ckpt_cost", ckpt_cost), dtype=float)
    if restart is not None:
        _nonnegative("restart", restart)
    check_order("optimal_interval(mtbf, ckpt_cost)", mtbf=m, ckpt_cost=d)
    return _optimal(m, d)


def _optimal(m, d):
    """:func:`optimal_interval` on float hours, unchecked (for internal searches)."""
    m, d = np.asarray(m, dtype=float), np.asarray(d, dtype=float)
    with np.errstate(over="ignore", under="ignore"):  # eps = inf gives tau = M, eps = 0 the series
        eps = d / m
    w1 = 1.0 + lambert_w(-np.exp(-(1.0 + eps)), 0)
    # p = sqrt(2 (1 - e^-eps)) = sqrt(2 ratio) sqrt(d/M); M p is formed as sqrt(d) sqrt(M) so that
    # d/M may underflow (M = 1e300, d = 1e-300) without the answer becoming 0
    small = np.minimum(eps, 1e-6)
    ratio = np.where(small > 0, -np.expm1(-small) / np.where(small > 0, small, 1.0), 1.0)
    root = np.sqrt(2.0 * ratio) * np.sqrt(d)
    p, mp = root / np.sqrt(m), root * np.sqrt(m)
    with np.errstate(over="ignore", invalid="ignore"):  # only used where eps < 1e-6
        series = mp * (1 + p * (-1 / 3 + p * (11 / 72 + p * (-43 / 540 + p * 769 / 17280))))
    return np.where(eps < 1e-6, series, m * w1)[()]


def _ettr(t, m, d, r):
    """:func:`ettr` on float hours, unchecked (for internal searches)."""
    t, m, d, r = (np.asarray(x, dtype=float) for x in (t, m, d, r))
    # τ / (M e^{R/M} (e^x - 1)) written as τ/(τ+δ) · x/(e^x - 1) · e^{-R/M}, x = (τ+δ)/M, so that
    # x may underflow (M huge) or e^x overflow (ETTR 0) without inf or NaN
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        x = t / m + d / m
        em = np.expm1(x)
        shape = np.where(x > 0, np.where(np.isfinite(em), x / np.where(em > 0, em, 1.0), 0.0), 1.0)
        return np.clip(shape / (1.0 + d / t) * np.exp(-r / m), 0.0, 1.0)[()]


@takes_scenario(ckpt_cost="ckpt_cost", restart="restart")
def ettr(interval, mtbf, ckpt_cost, restart=RESTART):
    """Useful fraction of wall time, τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)) (Daly 2006).

    ``interval`` τ (compute between checkpoints), ``mtbf`` M, ``ckpt_cost`` δ
    and ``restart`` R are durations (R defaults to
    :data:`relmodel.defaults.RESTART`, 10 min); the result is a fraction in
    [0, 1].  Exact for exponential failures that may also strike during
    checkpoints and restarts.  A checkpoint cost of zero is allowed; a cost
    at or above the MTBF gives a small but valid ETTR (0.0 once the
    exponential overflows, never NaN) and an
    :class:`~relmodel.errors.ArgumentOrderWarning`.  Vectorised.

    Examples
    --------
    >>> tau = optimal_interval("3h", "45s")
    >>> round(float(ettr(tau, "3h", "45s", "10min")), 4)
    0.8622
    >>> round(float(ettr(tau, "3h", "45s", 0)), 4)            # no restart time
    0.9115
    """
    t = np.asarray(_positive("interval", interval), dtype=float)
    m = np.asarray(_positive("mtbf", mtbf), dtype=float)
    d = np.asarray(_nonnegative("ckpt_cost", ckpt_cost), dtype=float)
    r = np.asarray(_nonnegative("restart", restart), dtype=float)
    check_order("ettr(interval, mtbf, ckpt_cost, restart)", mtbf=m, ckpt_cost=d)
    return _ettr(t, m, d, r)


def _segment_terms(interval, mtbf, ckpt_cost, restart):
    """Expected hours per segment of Daly's model, split by where they go.

    A segment is τ of compute followed by a δ checkpoint write; it needs an
    uninterrupted span L = τ + δ.  With exponential failures (rate 1/M, also
    during restarts) let x = L/M and p = e^{-x}.

    * The number K of failed attempts before the successful one is geometric:
      E[K] = (1 - p)/p = e^x - 1.  Every failure (also during restarts) is one
      event of a Poisson process, so the expected count is wall time / M.
    * A failed attempt loses its elapsed time t, an exponential truncated to
      [0, L): E[t | t < L] = M - L p/(1 - p) = M - L/(e^x - 1).  Hence the
      expected re-done time is E[K] E[t | t < L] = M (e^x - 1) - L
      = M (e^x - 1 - x), summed with ``expm1`` to avoid cancellation.
    * After each failure the restart R must run uninterrupted; failures
      during it start it again, so one restart costs M (e^{R/M} - 1) on
      average and all restarts of a segment M (e^x - 1)(e^{R/M} - 1).
    * The successful attempt spends τ computing and δ writing.

    The four terms add up to M e^{R/M} (e^x - 1), Daly's (2006)
    expected time per segment, exactly:
    τ + δ + [M(e^x - 1) - τ - δ] + M(e^x - 1)(e^{R/M} - 1) = M e^{R/M}(e^x - 1).
    """
    m = interval * 0 + mtbf  # broadcast
    with np.errstate(over="ignore"):  # a segment of 1e300 MTBFs is x = inf: never completes (ETTR 0), not an error
        x = np.true_divide(interval + ckpt_cost, m)
        em = np.expm1(x)
    # e^x - 1 - x without cancellation for small x (series to x^6)
    small = x < 1e-2
    xs = np.where(small, x, 0.0)
    series = xs * xs / 2 * (1 + xs / 3 * (1 + xs / 4 * (1 + xs / 5 * (1 + xs / 6))))
    with np.errstate(invalid="ignore"):  # e^x overflowed: the lost time is unbounded, not NaN
        lost = m * np.where(small, series, np.where(np.isinf(em), np.inf, em - x))
    with np.errstate(invalid="ignore", over="ignore"):  # inf * 0 when x overflows, R = 0
        restarts = np.where(restart > 0, m * em * np.expm1(restart / m), 0.0)
        failures = em * np.exp(restart / m)
    return {
        "useful": interval * np.ones_like(x),
        "checkpoint": ckpt_cost * np.ones_like(x),
        "lost": lost,
        "restart": restarts,
        "failures": failures,
    }


def expected_wall_time(work, interval, mtbf, ckpt_cost, restart=RESTART):
    """Expected wall-clock hours to finish ``work`` hours of computation.

    ``work``, ``interval`` τ, ``mtbf`` M, ``ckpt_cost`` δ and ``restart`` R
    are durations (R defaults to 10 min, :mod:`relmodel.defaults`).

    Daly (2006, FGCS 22(3)): T_w = M e^{R/M} (e^{(τ+δ)/M} - 1) T_s/τ,
    exact for exponential failures that may also strike during checkpoint
    writes and restarts.  As in the paper the work is cut into T_s/τ
    segments (a fractional count is allowed).  A checkpoint that takes longer
    than the MTBF is a valid input: the answer is finite but very large, and
    becomes ``inf`` (never NaN) once e^{(τ+δ)/M} overflows.  Vectorised.

    Examples
    --------
    >>> round(float(expected_wall_time("30d", "20min", "3h", "45s", "10min")) / 24, 2)   # days
    34.87
    """
    return _breakdown(work, interval, mtbf, ckpt_cost, restart,
                      "expected_wall_time(work, interval, mtbf, ckpt_cost, restart)").wall_h


def _as(name, x, positive):
    return np.asarray((_positive if positive else _nonnegative)(name, x), dtype=float)


def time_breakdown(work, interval, mtbf, ckpt_cost, restart=RESTART, *, sdc_rate=0.0, sdc_delay=0.0, latency=0.0,
                   keep=2):
    """Where the expected wall time of a run goes: a :class:`TimeBreakdown`.

    Splits Daly's expected wall time (see :func:`expected_wall_time`) into
    useful compute, checkpoint writes, lost (re-done) work and restarts; the
    parts add up exactly to the wall time, and useful / wall equals
    :func:`ettr`.  The derivation is in the docstring of ``_segment_terms``:
    per segment of τ hours of work, with x = (τ + δ)/M,

    * checkpoint writes: δ (the successful write; interrupted writes are lost time),
    * lost work: M (e^x - 1) - τ - δ,
    * restarts: M (e^x - 1)(e^{R/M} - 1), including restarts that were
      themselves interrupted,

    and the expected number of failures is wall time / M.  All arguments
    are durations (``restart`` defaults to 10 min); every field of the
    result is in hours except ``failures`` (a count).  Vectorised.

    ``latency`` (fail-stop detection latency), ``sdc_rate`` (silent
    corruptions per hour) with ``sdc_delay`` (how long one goes unnoticed)
    and ``keep`` (checkpoints kept) add the time spent before a failure is
    noticed (``detection_h``) and the chance a corruption outlives every
    kept clean checkpoint (``p_unrecoverable``); see
    :mod:`relmodel.checkpoint.detection`.

    Examples
    --------
    >>> tau = optimal_interval("3h", "45s")
    >>> b = time_breakdown("54d", tau, "3h", "45s", "10min")
    >>> round(float(b.wall_h) / 24, 2), round(float(b.ettr), 4), round(float(b.failures))
    (62.63, 0.8622, 501)
    """
    detect = (sdc_rate, sdc_delay, latency, keep) if (sdc_rate or latency or sdc_delay) else None
    return _breakdown(work, interval, mtbf, ckpt_cost, restart,
                      "time_breakdown(work, interval, mtbf, ckpt_cost, restart)", detect)


def _breakdown(work, interval, mtbf, ckpt_cost, restart, signature, detect=None):
    """Daly's terms scaled to the work; with ``detect`` = (sdc_rate, sdc_delay, latency, keep) the failures come
    at the combined rate and each restart cycle starts after the time until the failure is noticed
    (:mod:`relmodel.checkpoint.detection`): (e^x - 1) E[D] e^{R/M'} per segment."""
    w = _as("work", work, True)
    t, m = _as("interval", interval, True), _as("mtbf", mtbf, True)
    d, r = _as("ckpt_cost", ckpt_cost, False), _as("restart", restart, False)
    check_order(signature, work=w, interval=t, mtbf=m, ckpt_cost=d, restart=r, stacklevel=4)
    dwell, p_lost = 0.0, 0.0
    if detect is not None:
        m, dwell, _ = detection_terms(m, *detect[:3])
        p_lost = p_unrecoverable(float(np.ravel(t)[0]), float(np.ravel(d)[0]), detect[1], detect[3]) \
            if float(detect[0]) > 0 else 0.0
    w, t, m, d, r, dwell = np.broadcast_arrays(w, t, m, d, r, np.asarray(dwell, dtype=float))
    terms = _segment_terms(t, m, d, r)
    with np.errstate(over="ignore", invalid="ignore"):
        terms["detection"] = np.where(dwell > 0, np.expm1((t + d) / m) * dwell * np.exp(r / m), 0.0)
    with np.errstate(invalid="ignore", under="ignore", over="ignore"):  # per hour of interval, times the work:
        parts = {k: np.where(v == 0, 0.0, v / t * w)[()] for k, v in terms.items()}  # w/t may underflow
    wall = parts["useful"] + parts["checkpoint"] + parts["lost"] + parts["restart"] + parts["detection"]
    return TimeBreakdown(
        work_h=w[()], interval_h=t[()], mtbf_h=m[()], ckpt_cost_h=d[()], restart_h=r[()],
        wall_h=wall, checkpoint_h=parts["checkpoint"], lost_h=parts["lost"],
        restart_time_h=parts["restart"], failures=parts["failures"], detection_h=parts["detection"],
        p_unrecoverable=p_lost,
    )


def best_step_interval(step, mtbf, ckpt_cost, restart=RESTART):
    """Best checkpoint interval that is a whole number of training steps.

    A checkpoint can only be taken between steps, so τ = n * step with n a
    positive integer.  Daly's ETTR has a single maximum in τ (at
    :func:`optimal_interval`), so the best whole n is the floor or the
    ceiling of τ*/step, whichever gives the higher ETTR.  When a step is
    longer than τ* the answer is n = 1 (checkpoint after every step);
    this is the documented answer, not an error.  ``step`` (the time of one
    training step, which takes the place of the interval), ``mtbf``,
    ``ckpt_cost`` and ``restart`` (default 10 min) are durations; the
    result's ``*_h`` fields are hours.  Vectorised.

    Examples
    --------
    >>> s = best_step_interval("4s", "3h", "45s", "10min")
    >>> int(s.steps), round(float(s.interval_h), 4), round(float(s.ettr), 4)
    (239, 0.2656, 0.8622)
    """
    s = _as("step", step, True)
    m, d = _as("mtbf", mtbf, True), _as("ckpt_cost", ckpt_cost, True)
    r = _as("restart", restart, False)
    check_order("best_step_interval(step, mtbf, ckpt_cost, restart)", mtbf=m, ckpt_cost=d)
    s, m, d, r = np.broadcast_arrays(s, m, d, r)
    tau = _optimal(m, d)
    with np.errstate(over="ignore"):
        lo = np.maximum(np.floor(tau / s), 1.0)
    if np.any(~(lo < 2.0 ** 53)):
        raise ModelInputError(f"the best interval is more than 2^53 steps of {step!r}; a step this short "
                              "does not constrain the interval: use optimal_interval instead")
    hi = lo + 1.0
    e_lo, e_hi = _ettr(lo * s, m, d, r), _ettr(hi * s, m, d, r)
    n = np.where(e_hi > e_lo, hi, lo)
    return StepInterval(
        steps=n.astype(np.int64)[()], step_h=s[()], interval_h=(n * s)[()],
        ettr=np.maximum(e_lo, e_hi)[()], optimal_interval_h=np.asarray(tau)[()],
        optimal_ettr=_ettr(tau, m, d, r),
    )


@dataclass(frozen=True)
class StepInterval(Result):
    """Best whole-step checkpoint interval next to the continuous optimum."""

    steps: object
    step_h: object
    interval_h: object
    ettr: object
    optimal_interval_h: object
    optimal_ettr: object

    def to_frame(self):
        """One row per input point."""
        import pandas as pd
        return pd.DataFrame({k: np.ravel(getattr(self, k)) for k in self.__dataclass_fields__})

    def text(self):
        """The best whole-step interval in a sentence (the first point when there are several)."""
        first = lambda v: float(np.ravel(v)[0])  # noqa: E731
        return (f"Best whole-step interval: every {count(first(self.steps))} steps ({duration(first(self.interval_h))}), "
                f"ETTR {number(first(self.ettr), 4)}, against {number(first(self.optimal_ettr), 4)} at the "
                f"continuous optimum of {duration(first(self.optimal_interval_h))}.")


