"""Checkpointing as large training jobs do it: asynchronous writes and two levels.

Both models keep the assumptions of Daly (2006, FGCS 22(3)): failures are
exponential with job MTBF M and may strike at any time, also during
checkpoints and restarts; a failure during a restart starts that restart
again; end-of-run effects are ignored (the work is a long sequence of
identical cycles).  Their expected times are derived here; with the extra
costs set to zero both reduce exactly to :func:`relmodel.ettr`.

A lemma used throughout: with exponential failures the expected time to get
a span B done without interruption, when every failure sends you back to
its start, is M (e^{B/M} - 1); the expected time to the first failure or the
end of a span L, whichever comes first, is M (1 - e^{-L/M}).

**Asynchronous checkpointing** (e.g. a snapshot to host memory, then a
background persist to storage).  Every τ of compute the job stalls for
``stall`` δ_b to snapshot its state; the persist then takes ``persist`` P
while compute goes on.  Only one persist is in flight: when τ < P the next
snapshot waits for the previous persist.  A checkpoint is durable once its
persist completes; a failure before that falls back to the previous durable
checkpoint.

In the functions below the blocking stall δ_b is ``ckpt_cost`` (the time a
checkpoint stalls the job, as everywhere else) and P is ``persist``.

Cycle between two durable checkpoints (the job is then already
min(τ, P) into the next segment): it needs L = max(τ, P) + δ_b of
uninterrupted time.  After a failure the job restarts (R) from the previous
durable checkpoint and needs L_r = τ + δ_b + P to make the next one durable,
which puts it back in the same state.  So per durable checkpoint (τ of work)

    E = M (1 - e^{-L/M}) + (1 - e^{-L/M}) M (e^{(R + L_r)/M} - 1)
      = M (e^{L/M} - 1) e^{(R + L_r - L)/M}
      = M (e^{(max(τ,P) + δ_b)/M} - 1) e^{(R + min(τ,P))/M},

and ETTR = τ / E.  With P = 0 this is Daly's formula with δ = δ_b; for
τ >= P the persist acts like P of extra restart time.

**Two-level checkpointing** (a fast level such as an in-memory or peer
copy, and persistent storage).  Every τ of compute the job writes a fast
checkpoint (cost δ_1); every k-th one is written to the slow level instead
(cost δ_2).  A fraction f of failures can recover from the fast level
(restart R_1, back to the last checkpoint of either level); the rest need
the slow level (restart R_2, back to the last slow checkpoint).  A failure
during R_1 of the fast kind repeats R_1, of the slow kind switches to R_2;
any failure during R_2 repeats R_2.  :func:`two_level_ettr` solves the
resulting linear equations for the expected time of a k-segment period
exactly, by a backward recursion over the segments.
"""

from dataclasses import dataclass

import numpy as np

from ..defaults import RESTART
from ..errors import ModelInputError
from .intervals import TimeBreakdown, _as, _ettr, _optimal
from .order import check_order
from ..tables import Result, duration
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps
from relmodel.base.escape import brief

__all__ = [
    "async_ettr", "async_breakdown", "async_optimal_interval",
    "two_level_ettr", "two_level_breakdown", "two_level_optimum", "TwoLevelPlan",
]


def _async_terms(t, m, db, p, r):
    """(expected time, restart time, checkpoint overhead) per durable checkpoint."""
    span = np.maximum(t, p) + db
    extra = np.minimum(t, p)
    with np.errstate(over="ignore", invalid="ignore"):
        q = -np.expm1(-span / m)
        e = m * np.expm1(span / m) * np.exp((r + extra) / m)
        # restarts: on a failure (prob q), e^{(R+L_r)/M} attempts each spending E[min(T, R)]
        rest = np.where(r > 0, q * m * np.expm1(r / m) * np.exp((t + db + p) / m), 0.0)
    return e, rest, db + np.maximum(p - t, 0.0)


def async_ettr(interval, mtbf, ckpt_cost, persist, restart=RESTART):
    """ETTR with asynchronous checkpoints (blocking ``ckpt_cost``, background ``persist``).

    τ / (M (e^{(max(τ,P) + δ_b)/M} - 1) e^{(R + min(τ,P))/M}); see the
    module docstring for the model and derivation.  ``interval`` τ,
    ``mtbf`` M, ``ckpt_cost`` δ_b (the stall), ``persist`` P and ``restart``
    R (default 10 min) are durations; the result is a fraction.  Vectorised.

    Examples
    --------
    >>> round(float(async_ettr("20min", "3h", "5s", "2min", "10min")), 4)
    0.8806
    >>> round(float(async_ettr("20min", "3h", "5s", 0, "10min")), 4)   # no persist: Daly's ETTR
    0.8905
    """
    t, m = _as("interval", interval, True), _as("mtbf", mtbf, True)
    db, p = _as("ckpt_cost", ckpt_cost, False), _as("persist", persist, False)
    r = _as("restart", restart, False)
    check_order("async_ettr(interval, mtbf, ckpt_cost, persist, restart)", mtbf=m, ckpt_cost=db)
    e, _, _ = _async_terms(t, m, db, p, r)
    with np.errstate(divide="ignore"):
        return np.where(np.isinf(e), 0.0, t / e)[()]


def async_breakdown(work, interval, mtbf, ckpt_cost, persist, restart=RESTART):
    """Expected hours of a run with asynchronous checkpoints, as a :class:`TimeBreakdown`.

    ``checkpoint_h`` counts the stalls (and the wait for a previous persist
    when τ < P) of the checkpoints that became durable; ``restart_time_h``
    all restart time; ``lost_h`` everything else that was thrown away
    (compute and stalls after the last durable checkpoint).  Arguments are
    durations as in :func:`async_ettr`, with ``work`` the compute the run
    needs; the fields of the result are hours.

    Examples
    --------
    >>> b = async_breakdown("30d", "20min", "3h", "5s", "2min", "10min")
    >>> round(float(b.wall_h) / 24, 2), round(float(b.ettr), 4)
    (34.07, 0.8806)
    """
    w = _as("work", work, True)
    t, m = _as("interval", interval, True), _as("mtbf", mtbf, True)
    db, p = _as("ckpt_cost", ckpt_cost, False), _as("persist", persist, False)
    r = _as("restart", restart, False)
    check_order("async_breakdown(work, interval, mtbf, ckpt_cost, persist, restart)", work=w, interval=t,
                mtbf=m, ckpt_cost=db, restart=r)
    w, t, m, db, p, r = np.broadcast_arrays(w, t, m, db, p, r)
    e, rest, ck = _async_terms(t, m, db, p, r)
    n = w / t
    wall = n * e
    return TimeBreakdown(
        work_h=w[()], interval_h=t[()], mtbf_h=m[()], ckpt_cost_h=db[()], restart_h=r[()],
        wall_h=wall[()], checkpoint_h=(n * ck)[()], lost_h=(n * (e - t - ck - rest))[()],
        restart_time_h=(n * rest)[()], failures=(wall / m)[()],
    )


def async_optimal_interval(mtbf, ckpt_cost, persist, restart=RESTART):
    """Interval maximising :func:`async_ettr` (hours).

    For τ >= P the ETTR is Daly's with δ = δ_b up to a constant factor, so
    its stationary point is Daly's exact optimum τ*(δ_b); for τ < P it is
    proportional to τ e^{-τ/M}, stationary at τ = M.  The best of τ*, P
    and M is the global maximum.  Durations in, hours out.  Vectorised.

    Examples
    --------
    >>> round(float(async_optimal_interval("3h", "5s", "2min", "10min")) * 60, 2)   # minutes
    5.42
    """
    m, db = _as("mtbf", mtbf, True), _as("ckpt_cost", ckpt_cost, True)
    p, r = _as("persist", persist, False), _as("restart", restart, False)
    check_order("async_optimal_interval(mtbf, ckpt_cost, persist, restart)", mtbf=m, ckpt_cost=db)
    tau = _optimal(m, db)
    cands = np.stack(np.broadcast_arrays(tau, np.where(p > 0, p, tau), m))
    e, _, _ = _async_terms(cands, m, db, p, r)
    with np.errstate(divide="ignore"):
        vals = np.where(np.isinf(e), 0.0, cands / e)
    return np.take_along_axis(cands, np.argmax(vals, axis=0)[None], axis=0)[0][()]


def _period_time(t, k, m, d1, d2, f, r1, r2, restarts_only=False):
    """Expected time of one k-segment period of the two-level model (broadcast arrays).

    Let V_i be the expected time to finish the period from checkpoint i - 1,
    W_i the same with a fast restart pending, and G = M (e^{R_2/M} - 1) + V_1
    after a slow-level failure.  With q_i = 1 - e^{-s_i/M} (s_i the span of
    segment i) and e_1 = e^{-R_1/M}:

        V_i = M q_i + (1 - q_i) V_{i+1} + q_i [f W_i + (1 - f) G],
        W_i = M (1 - e_1) + e_1 V_i + (1 - e_1) [f W_i + (1 - f) G],

    with V_{k+1} = 0.  Eliminating W_i leaves V_i = α_i + β_i G, computed
    backwards; then V_1 = (α_1 + β_1 M (e^{R_2/M} - 1)) / (1 - β_1).  The
    system is linear in the time costs, so dropping the segment costs M q_i
    (``restarts_only``) gives the expected restart time instead.
    """
    e1 = np.exp(-r1 / m)
    m1 = m * (1 - e1)
    den1 = 1 - f * (1 - e1)
    alpha, beta = np.zeros_like(t), np.zeros_like(t)
    seg = 0.0 if restarts_only else 1.0
    for i in range(k, 0, -1):
        s = t + (d2 if i == k else d1)
        q = -np.expm1(-s / m)
        c = 1 - q * f * e1 / den1
        alpha = (seg * m * q + (1 - q) * alpha + q * f * m1 / den1) / c
        beta = ((1 - q) * beta + q * (1 - f) * (1 + f * (1 - e1) / den1)) / c
    with np.errstate(divide="ignore", over="ignore"):
        return (alpha + beta * m * np.expm1(r2 / m)) / (1 - beta)


def two_level_ettr(interval, mtbf, fast_cost, slow_cost, fast_restart=RESTART, slow_restart=RESTART, *,
                   k, fast_fraction):
    """Exact ETTR of two-level checkpointing (model in the module docstring).

    ``interval`` τ between checkpoints, every ``k``-th of them (a whole
    number >= 1) to the slow level; ``fast_fraction`` f in [0, 1] of
    failures recover from the fast level.  With k = 1 and f = 0, or f = 1
    and equal costs, this is :func:`relmodel.ettr`.  Durations (``interval``,
    ``mtbf``, the two costs and the two restarts, both restarts 10 min by
    default) come first in the usual order; ``k`` and ``fast_fraction`` are
    keyword-only.  Vectorised over everything but ``k``.

    Examples
    --------
    >>> round(float(two_level_ettr("10min", "3h", "5s", "2min", "2min", "10min", k=4, fast_fraction=0.8)), 4)
    0.8844
    >>> round(float(two_level_ettr("20min", "3h", "45s", "45s", 0, "10min", k=1, fast_fraction=0.0)), 4)
    0.8602
    """
    t, m, d1, d2, f, r1, r2 = _two_level_args(interval, k, mtbf, fast_cost, slow_cost, fast_fraction,
                                             fast_restart, slow_restart)
    check_order("two_level_ettr(interval, mtbf, fast_cost, slow_cost, fast_restart, slow_restart, *, k, "
                "fast_fraction)", mtbf=m, ckpt_cost=d1)
    return _two_level_ettr(t, k, m, d1, d2, f, r1, r2)


def _two_level_ettr(t, k, m, d1, d2, f, r1, r2):
    period = _period_time(t, int(k), m, d1, d2, f, r1, r2)
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(period) & (period > 0), k * t / period, 0.0)[()]


def _two_level_args(interval, k, mtbf, fast_cost, slow_cost, fast_fraction, fast_restart, slow_restart):
    if int(k) != k or k < 1:
        raise ModelInputError(f"k (fast checkpoints per slow one) must be a whole number >= 1; got {k!r}")
    t, m = _as("interval", interval, True), _as("mtbf", mtbf, True)
    d1, d2 = _as("fast_cost", fast_cost, False), _as("slow_cost", slow_cost, False)
    r1, r2 = _as("fast_restart", fast_restart, False), _as("slow_restart", slow_restart, False)
    f = np.asarray(fast_fraction, dtype=float)
    if np.any(~np.isfinite(f)) or np.any((f < 0) | (f > 1)):
        raise ModelInputError(f"fast_fraction must be between 0 and 1; got {fast_fraction!r}")
    return np.broadcast_arrays(t, m, d1, d2, f, r1, r2)


def two_level_breakdown(work, interval, mtbf, fast_cost, slow_cost, fast_restart=RESTART,
                        slow_restart=RESTART, *, k, fast_fraction):
    """Expected hours of a two-level run, as a :class:`~relmodel.checkpoint.TimeBreakdown`.

    Per period: useful k τ, checkpoint writes (k - 1) δ_1 + δ_2 (the writes
    that completed and were kept), restarts from the same linear system with
    only restart time counted (see ``_period_time``), lost work the rest.
    ``ckpt_cost_h`` reports the slow cost, ``restart_h`` the slow restart.
    Arguments as in :func:`two_level_ettr`, with ``work`` first; hours out.

    Examples
    --------
    >>> b = two_level_breakdown("30d", "10min", "3h", "5s", "2min", "2min", "10min", k=4, fast_fraction=0.8)
    >>> round(float(b.ettr), 4)
    0.8844
    """
    w = _as("work", work, True)
    check_order("two_level_breakdown(work, interval, mtbf, fast_cost, slow_cost, fast_restart, slow_restart, "
                "*, k, fast_fraction)", work=w, interval=_as("interval", interval, True))
    t, m, d1, d2, f, r1, r2 = _two_level_args(interval, k, mtbf, fast_cost, slow_cost, fast_fraction,
                                             fast_restart, slow_restart)
    k = int(k)
    with np.errstate(over="ignore", invalid="ignore"):
        period = _period_time(t, k, m, d1, d2, f, r1, r2)
        rest = _period_time(t, k, m, d1, d2, f, r1, r2, restarts_only=True)
    n = w / (k * t)
    ck = (k - 1) * d1 + d2
    wall = n * period
    return TimeBreakdown(
        work_h=(w + 0 * t)[()], interval_h=t[()], mtbf_h=m[()], ckpt_cost_h=d2[()], restart_h=r2[()],
        wall_h=wall[()], checkpoint_h=(n * ck)[()], lost_h=(n * (period - k * t - ck - rest))[()],
        restart_time_h=(n * rest)[()], failures=(wall / m)[()],
    )


@dataclass(frozen=True)
class TwoLevelPlan(Result):
    """Optimal two-level plan next to the best single-level (slow only) plan."""

    fast_interval_h: float
    k: int
    slow_interval_h: float
    ettr: float
    single_level_interval_h: float
    single_level_ettr: float
    mtbf_h: float
    fast_fraction: float

    def to_frame(self):
        """One row per plan: two-level and slow level only."""
        import pandas as pd
        return pd.DataFrame([
            {"plan": "two-level", "fast_interval_h": self.fast_interval_h, "k": self.k,
             "slow_interval_h": self.slow_interval_h, "ettr": self.ettr},
            {"plan": "slow level only", "fast_interval_h": np.nan, "k": 1,
             "slow_interval_h": self.single_level_interval_h, "ettr": self.single_level_ettr},
        ])

    def text(self):
        """The plan's setting in a sentence; the table compares the levels."""
        return (f"Two-level checkpointing (MTBF {duration(self.mtbf_h)}, {self.fast_fraction:.0%} of failures "
                f"recover from the fast level).")


def _best_tau(k, m, d1, d2, f, r1, r2):
    """Best τ for a given k: log grid, then Brent's method between the grid neighbours."""
    from scipy.optimize import minimize_scalar  # here, not at import: `relmodel interval --mtbf` needs no optimiser
    args = (m, d1, d2, f, r1, r2)
    grid = np.geomspace(1e-4, 10.0, 121) * m
    i = int(np.argmax(_two_level_ettr(grid, k, *args)))
    lo, hi = np.log(grid[max(i - 1, 0)]), np.log(grid[min(i + 1, grid.size - 1)])
    res = minimize_scalar(lambda x: -float(_two_level_ettr(np.exp(x), k, *args)), bounds=(lo, hi),
                          method="bounded", options={"xatol": 1e-9})
    return float(np.exp(res.x)), -float(res.fun)


def two_level_optimum(mtbf, fast_cost, slow_cost, fast_restart=RESTART, slow_restart=RESTART, *,
                      fast_fraction, k_max=1000, patience=8):
    """Best pair (τ, k) of fast interval and slow-level period, and its ETTR.

    For each k = 1, 2, ... the best τ is found numerically on the exact
    :func:`two_level_ettr`; the search over k stops ``patience`` steps after
    the last improvement (or at ``k_max``).  Returns a :class:`TwoLevelPlan`
    with the best slow-level-only plan (Daly's exact optimum with the slow
    cost and restart) beside it.  Durations in the usual order (both
    restarts 10 min by default); ``fast_fraction`` is keyword-only; the
    plan's intervals are in hours.

    Examples
    --------
    >>> plan = two_level_optimum("3h", "5s", "2min", "2min", "10min", fast_fraction=0.8)
    >>> plan.k, round(plan.fast_interval_h * 60, 2), round(plan.ettr, 4), round(plan.single_level_ettr, 4)
    (10, 5.72, 0.8915, 0.8119)
    """
    m, d1, d2 = float(_as("mtbf", mtbf, True)), float(_as("fast_cost", fast_cost, True)), \
        float(_as("slow_cost", slow_cost, True))
    r1, r2 = float(_as("fast_restart", fast_restart, False)), float(_as("slow_restart", slow_restart, False))
    f = float(fast_fraction)
    if not 0.0 <= f <= 1.0:  # also NaN
        raise ModelInputError(f"fast_fraction must be a fraction from 0 to 1, got {brief(fast_fraction)}")
    k_max = count("k_max", k_max, lo=1)
    check_cost(f"two_level_optimum(k_max={k_max:,})", work=k_max * 2000, hint="use a smaller k_max")
    check_order("two_level_optimum(mtbf, fast_cost, slow_cost, fast_restart, slow_restart, *, fast_fraction)",
                mtbf=m, ckpt_cost=d1)
    best, since = (None, -1.0, 0), 0
    with steps("two-level search over fast checkpoints per slow one", total=k_max) as step:
        for k in range(1, int(k_max) + 1):
            tau, val = _best_tau(k, m, d1, d2, f, r1, r2)
            step()
            if val > best[1] * (1 + 1e-12):
                best, since = (tau, val, k), 0
            else:
                since += 1
                if since >= patience:
                    break
    tau, val, k = best
    t1 = float(_optimal(m, d2))
    return TwoLevelPlan(fast_interval_h=tau, k=k, slow_interval_h=tau * k, ettr=val,
                        single_level_interval_h=t1, single_level_ettr=float(_ettr(t1, m, d2, r2)),
                        mtbf_h=m, fast_fraction=f)
