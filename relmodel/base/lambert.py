"""The real Lambert W function, W(z) e^{W(z)} = z, in numpy (no scipy).

Two real branches: ``k=0`` (the principal branch W0, defined for
z >= -1/e, W0 >= -1) and ``k=-1`` (defined for -1/e <= z < 0, W-1 <= -1).
A starting value from the series at the branch point -1/e, or from the
asymptotic expansion log z - log log z + log log z / log z, is refined by
Halley's iteration (Corless et al. 1996, "On the Lambert W function",
Adv. Comput. Math. 5, eqs. 4.20-4.22 and 5.9).  Outside a branch's domain
the result is NaN.  Importing this module costs numpy only, which keeps the
closed-form checkpoint intervals free of scipy.
"""

import numpy as np

__all__ = ["lambert_w"]

_E = np.e
_BRANCH_SERIES = -0.32  # below this z the branch-point series is the better start


def _start(z, k):
    """A starting value within a few per cent of W_k(z)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.sqrt(np.clip(2.0 * (_E * z + 1.0), 0.0, 1.0))  # the series is used only for p < 1
        sign = 1.0 if k == 0 else -1.0
        q = sign * p
        near = -1.0 + q - q * q / 3.0 + 11.0 / 72.0 * q ** 3
        if k == 0:
            big = np.log(np.where(z > 3.0, z, 3.0))
            far = big - np.log(big) + np.log(big) / big
            mid = np.log1p(np.where(z > -0.5, z, 0.0))
            return np.where(z < _BRANCH_SERIES, near, np.where(z < 3.0, mid, far))
        l1 = np.log(np.where(z < 0, -z, 1.0))
        l2 = np.log(-np.where(l1 < 0, l1, -1.0))
        far = l1 - l2 + l2 / l1
        return np.where(z < -0.25, near, far)


def lambert_w(z, k=0):
    """W_k(z) for real ``z`` and branch ``k`` (0 or -1), as float (array).

    Examples
    --------
    >>> round(float(lambert_w(1.0)), 12)          # the omega constant
    0.56714329041
    >>> round(float(lambert_w(-0.2, -1)), 10)
    -2.5426413578
    """
    if k not in (0, -1):
        raise ValueError(f"lambert_w has the real branches k=0 and k=-1; got k={k!r}")
    z = np.asarray(z, dtype=float)
    w = _start(z, k)
    at_point = z == -1.0 / _E
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for _ in range(40):
            ew = np.exp(w)
            f = w * ew - z
            wp1 = w + 1.0
            step = f / (ew * wp1 - (w + 2.0) * f / (2.0 * wp1))
            step = np.where(np.isfinite(step) & (wp1 != 0) & ~at_point, step, 0.0)
            w = w - step
            if not np.any(np.abs(step) > 1e-15 * np.maximum(np.abs(w), 1.0)):
                break
    valid = (z >= -1.0 / _E) & ((z < 0) if k == -1 else np.isfinite(z) | (z == np.inf))
    w = np.where(z == np.inf, np.inf, w) if k == 0 else w
    w = np.where(at_point, -1.0, w)
    w = np.where((z == 0) & (k == -1), -np.inf, w)
    return np.where(valid | ((z == 0) & (k == -1)), w, np.nan)[()]
