"""Checkpoint intervals and ETTR for exponential failures (closed forms).

Notation (../REFERENCE in the docs): ``ckpt_cost`` δ is the time the job is
stalled writing one checkpoint, ``mtbf`` M the job's mean time between
failures, ``restart`` R the time to detect, reschedule and reload, and
``interval`` τ the compute time between checkpoints.  All accept anything
:func:`relmodel.hours` does and broadcast over numpy arrays.
"""

import numpy as np
from scipy.special import lambertw

from .errors import ModelInputError
from .units import hours

__all__ = ["young_interval", "daly_interval", "optimal_interval", "ettr"]


def _positive(name, x):
    v = hours(x)
    a = np.asarray(v, dtype=float)
    if np.any(~np.isfinite(a)) or np.any(a <= 0):
        raise ModelInputError(f"{name} must be a positive, finite duration; got {x!r}")
    return v


def _nonnegative(name, x):
    v = hours(x)
    a = np.asarray(v, dtype=float)
    if np.any(~np.isfinite(a)) or np.any(a < 0):
        raise ModelInputError(f"{name} must be a finite duration of zero or more; got {x!r}")
    return v


def young_interval(ckpt_cost, mtbf):
    """Young's first-order interval sqrt(2 δ M) (Young 1974, CACM 17(9)), hours."""
    d, m = _positive("ckpt_cost", ckpt_cost), _positive("mtbf", mtbf)
    return np.sqrt(2.0 * np.asarray(d) * np.asarray(m))[()]


def daly_interval(ckpt_cost, mtbf):
    """Daly's higher-order interval (Daly 2006, FGCS 22(3)), hours; M when δ >= 2M."""
    d = np.asarray(_positive("ckpt_cost", ckpt_cost), dtype=float)
    m = np.asarray(_positive("mtbf", mtbf), dtype=float)
    x = d / (2.0 * m)
    tau = np.sqrt(2.0 * d * m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - d
    return np.where(d < 2.0 * m, tau, m)[()]


def optimal_interval(mtbf, ckpt_cost, restart=0.0):
    """Exact optimum τ* = M [1 + W0(-exp(-(1 + δ/M)))] of Daly's wall-time model.

    The optimum does not depend on ``restart``; the argument is accepted so
    the call reads like :func:`ettr`.
    """
    m = np.asarray(_positive("mtbf", mtbf), dtype=float)
    d = np.asarray(_positive("ckpt_cost", ckpt_cost), dtype=float)
    _nonnegative("restart", restart)
    w = lambertw(-np.exp(-(1.0 + d / m)), 0).real
    return (m * (1.0 + w))[()]


def ettr(interval, mtbf, ckpt_cost, restart=0.0):
    """Useful fraction of wall time, τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)) (Daly 2006).

    Exact for exponential failures that may also strike during checkpoints
    and restarts.
    """
    t = np.asarray(_positive("interval", interval), dtype=float)
    m = np.asarray(_positive("mtbf", mtbf), dtype=float)
    d = np.asarray(_nonnegative("ckpt_cost", ckpt_cost), dtype=float)
    r = np.asarray(_nonnegative("restart", restart), dtype=float)
    return (t / (m * np.exp(r / m) * np.expm1((t + d) / m)))[()]
