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
best τ is found numerically and M* by a root search on the best ETTR.
Treating each interruption as a renewal of the job's failure clock is the
assumption: it holds for a fitted law of the job's own times between
interruptions.
"""

import math

import numpy as np
from scipy import optimize

from ...errors import InfeasibleTargetError, ModelInputError

__all__ = ["restart_terms", "law_ettr", "best_law_ettr", "required_mean", "needed_job_mtbf", "ettr_at", "MAX_TERMS"]

#: Most checkpoint segments summed per cycle (the tail beyond them is bounded by the law's mean residual).
MAX_TERMS = 200_000


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


def _sf(law, t, mean_h):
    """Survival of ``law`` rescaled in time to mean ``mean_h``, at times ``t`` (hours)."""
    if law is None:
        return np.exp(-np.asarray(t) / mean_h)
    return np.asarray(law.sf(np.asarray(t) * (_check_law(law) / mean_h)), dtype=float)


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
        if s[-1] < 1e-13 * max(total, 1e-300) or start + terms > MAX_TERMS:
            break
        start += terms
        terms *= 2
    return tau * total / (downtime_h + m)


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
