"""The job MTBF a target ETTR needs when failures are not exponential, and when only part of a restart is exposed.

**Restart exposure.**  A :class:`relmodel.checkpoint.RestartModel` splits a
restart into a downtime D (detection, diagnosis, node replacement, start-up
that grows with the ranks: the job is not running, so no failure can
lengthen it) and a reload R_l (the job runs on every node, so a failure
during it is a new failure).  The exponential model is then exact with the
effective restart R_eff(M) = R_l + M ln(1 + D/M) (see that class), which is
below D + R_l; counting the whole restart as exposed overstates the MTBF a
target needs.

**Failure laws.**  With the job's times between interruptions drawn from a
law F of mean M (a Weibull, log-normal or gamma fitted to the log, rescaled
in time to mean M, its shape kept), a failure starts a cycle: the downtime
D, then the reload, then segments of τ of work and δ of checkpoint.  The
failure clock starts at the reload, so a cycle lasts D + X, X ~ F, and saves
τ floor((X - R_l)^+ / (τ + δ)) of work.  By renewal-reward,

    ETTR(τ) = τ sum_{k >= 1} S(R_l + k (τ + δ)) / (D + M),

S = 1 - F.  With S exponential this is Daly's exact model with R_eff.  The
sum takes its first 3,840 terms one by one and the rest as its integral
(midpoint rule, Euler-Maclaurin error about 1e-8 of the rest), so a short
period beside M, or a heavy tail, loses nothing.  The
best τ is found numerically and M* by a root search on the best ETTR.
Treating each interruption as a renewal of the job's failure clock is the
assumption: it holds for a fitted law of the job's own times between
interruptions.
"""

import math

import numpy as np
from scipy import optimize, special

from ...errors import InfeasibleTargetError, ModelInputError

__all__ = ["restart_terms", "law_ettr", "best_law_ettr", "required_mean", "needed_job_mtbf", "ettr_at", "TAIL_AFTER"]


def restart_terms(restart_h, restart_model=None, n_gpus=None):
    """(reload hours exposed to failures, downtime hours not exposed): a bare restart is all exposed."""
    if restart_model is None or not hasattr(restart_model, "reload"):
        return float(restart_h), 0.0
    total = float(restart_model.hours_at(n_gpus)) if n_gpus is not None else float(restart_model.mean_h)
    reload = float(restart_model.reload)
    return reload, max(total - reload, 0.0)


def _check_law(law):
    mean = getattr(law, "mean_h", None)
    if not hasattr(law, "sf") or mean is None or not (float(mean) > 0 and math.isfinite(float(mean))):
        raise ModelInputError(f"law must be a fitted failure-time law with sf() and a positive finite mean_h (e.g. "
                              f"relmodel.fit(log.interarrivals(), 'weibull')); got {law!r}")
    return float(mean)


#: Survival functions of scipy's frozen laws at ``x`` (times over the law's scale) and the shape, written out:
#: the renewal sums below take up to 200,000 values per call, where scipy's argument checks and its general
#: Burr formula (for the log-logistic) cost ten times the arithmetic.
_PLAIN_SF = {"expon": lambda x: np.exp(-x), "weibull_min": lambda x, k: np.exp(-x ** k),
             "lognorm": lambda x, s: special.ndtr(-np.log(x) / s), "gamma": lambda x, a: special.gammaincc(a, x),
             "fisk": lambda x, c: 1.0 / (1.0 + x ** c)}


def _sf(law, t, mean_h):
    """Survival of ``law`` rescaled in time to mean ``mean_h``, at times ``t`` (hours)."""
    if law is None:
        return np.exp(-np.asarray(t) / mean_h)
    stretched = np.asarray(t, dtype=float) * (_check_law(law) / mean_h)
    frozen = getattr(law, "dist", None)
    plain = _PLAIN_SF.get(getattr(getattr(frozen, "dist", None), "name", None))
    if (plain is not None and set(frozen.kwds) <= {"scale"} and len(frozen.args) == frozen.dist.numargs
            and not any(np.ndim(a) for a in frozen.args)):
        with np.errstate(divide="ignore", over="ignore"):
            x = np.maximum(stretched, 0.0) / float(frozen.kwds.get("scale", 1.0))
            return plain(x, *map(float, frozen.args))
    return np.asarray(law.sf(stretched), dtype=float)


def law_ettr(tau_h, mean_h, law, ckpt_h, reload_h, downtime_h=0.0):
    """ETTR at interval ``tau_h`` by renewal-reward (module notes); ``law=None`` is exponential."""
    tau, m, d = float(tau_h), float(mean_h), float(ckpt_h)
    if not (tau > 0 and m > 0):
        return 0.0
    period = tau + d
    if law is None:
        return tau * math.exp(-reload_h / m) / ((downtime_h + m) * math.expm1(period / m))
    terms = 256
    total = 0.0
    start = 1
    while True:
        k = np.arange(start, start + terms)
        s = _sf(law, reload_h + k * period, m)
        total += float(s.sum())
        if s[-1] < 1e-13 * max(total, 1e-300):
            break
        start += terms
        terms *= 2
        if start + terms > TAIL_AFTER:  # a long tail: the rest of the sum is its integral (midpoint rule)
            total += _tail(law, reload_h + (start - 0.5) * period, m) / period
            break
    return tau * total / (downtime_h + m)


#: Terms of a renewal sum added one by one before the rest is taken as an integral (its error, by the
#: Euler-Maclaurin formula, about a 10^-8 share of the rest for a power-law tail).
TAIL_AFTER = 4096
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)


def _tail(law, start_h, mean_h):
    """Integral of the rescaled survival from ``start_h`` to infinity, on a log scale (u = start_h e^s: unit
    steps of s, 24-point Gauss-Legendre on each), stopped where a block of 16 steps adds under 1e-15."""
    total = 0.0
    for first in range(0, 688, 16):
        s = first + np.arange(16)[:, None] + (_NODES + 1) / 2
        u = start_h * np.exp(s)
        part = float(np.sum(_sf(law, u, mean_h) * u * _WEIGHTS / 2))
        total += part
        if part <= 1e-15 * total:
            break
    return total


def best_law_ettr(mean_h, law, ckpt_h, reload_h, downtime_h=0.0):
    """(best ETTR, its interval in hours) for job MTBF ``mean_h`` under ``law`` (None: exponential)."""
    m, d = float(mean_h), float(ckpt_h)
    guess = math.sqrt(2.0 * d * m) if d > 0 else m / 100

    def loss(log_tau):
        return -law_ettr(math.exp(log_tau), m, law, d, reload_h, downtime_h)
    lo, hi = math.log(guess) - 4.0, math.log(max(guess, 1e-9)) + 4.0
    res = optimize.minimize_scalar(loss, bounds=(lo, hi), method="bounded", options={"xatol": 1e-7})
    return -float(res.fun), math.exp(float(res.x))


def required_mean(target, ckpt_h, reload_h, downtime_h=0.0, law=None, restart_at=None):
    """Job MTBF (hours) whose best ETTR equals ``target`` under ``law``; ``restart_at(M)`` gives (reload, downtime).

    ``restart_at`` lets the exposed and unexposed parts depend on M (they do
    not for a RestartModel, whose split is fixed); by default they are
    ``reload_h`` and ``downtime_h``.
    """
    t = float(target)

    def gap(log_m):
        m = math.exp(log_m)
        r, dn = restart_at(m) if restart_at else (reload_h, downtime_h)
        return best_law_ettr(m, law, ckpt_h, r, dn)[0] - t
    scale = math.log(max(ckpt_h + reload_h + downtime_h, 1e-6))
    lo, hi = scale - 2.0, scale + 3.0
    while gap(lo) > 0:
        lo -= 3.0
    while gap(hi) < 0:
        hi += 3.0
        if hi > 60:
            raise InfeasibleTargetError(f"target_ettr {t:g} needs a job MTBF beyond e^60 h under this law")
    return math.exp(optimize.brentq(gap, lo, hi, xtol=1e-10, rtol=1e-12))


def _plain(restart, law):
    return law is None and not hasattr(restart, "reload")


def needed_job_mtbf(target, ckpt_h, restart, restart_h, n_gpus, law=None):
    """(job MTBF a target needs, best interval there): Daly's exact model for a bare restart and no law,
    else renewal-reward with the restart model's exposure (module notes)."""
    from ...checkpoint.intervals import _optimal
    from .goodput import _check_target, required_job_mtbf
    if _plain(restart, law):
        m = required_job_mtbf(target, ckpt_h, restart_h)
        return m, float(_optimal(m, ckpt_h))
    t = _check_target(target)
    if law is not None:
        _check_law(law)
    reload, down = restart_terms(restart_h, restart, n_gpus)
    m = required_mean(t, ckpt_h, reload, down, law)
    return m, best_law_ettr(m, law, ckpt_h, reload, down)[1]


def ettr_at(mtbf_h, ckpt_h, restart, restart_h, n_gpus, law=None):
    """Best ETTR at job MTBFs ``mtbf_h`` (array; inf gives 1) under the restart's exposure and ``law``.

    Many MTBFs are interpolated on a log grid of 64 exact values (the best ETTR is smooth in log M).
    """
    from .goodput import ettr_of_rates
    m = np.asarray(mtbf_h, dtype=float)
    if _plain(restart, law):
        with np.errstate(divide="ignore"):
            return ettr_of_rates(np.where(np.isfinite(m), 1.0 / m, 0.0), ckpt_h, restart_h)
    reload, down = restart_terms(restart_h, restart, n_gpus)
    finite = np.isfinite(m) & (m > 0)
    out = np.ones(m.shape)
    if not finite.any():
        return out[()]
    lo, hi = float(m[finite].min()), float(m[finite].max())
    if hi / lo < 1.0001 or finite.sum() <= 8:
        out[finite] = [best_law_ettr(x, law, ckpt_h, reload, down)[0] for x in m[finite]]
        return out[()]
    grid = np.geomspace(lo, hi, 64)
    values = [best_law_ettr(x, law, ckpt_h, reload, down)[0] for x in grid]
    out[finite] = np.interp(np.log(m[finite]), np.log(grid), values)
    return out[()]
