"""Censored Weibull MLE on large samples: a subsample start, then two passes over the data.

The profile likelihood of the shape ``k`` (see
:func:`relmodel.stats.lifetimes.mle.weibull_profile`) needs the power sums
``A_j(k) = sum t^k (ln t)^j``.  On a large sample each evaluation is a pass
over the data, so the number of passes is the cost.  Here

1. the shape is solved on a systematic subsample (about 20,000 rows), which
   lands within about 1% of the full-sample answer;
2. each full pass computes ``A_0 .. A_4`` in one ``t^k`` evaluation and takes a
   Halley step (cubic convergence: 1e-2, 1e-6, 1e-18);
3. once the step is so small that ``|h| max|ln t| < 2e-4``, the sums at
   ``k + h`` follow from a Taylor series in ``h`` (``dA_j/dk = A_{j+1}``),
   exact to about 1e-12, so no further pass is needed.

Only right-censored, unweighted, untruncated samples come here; the general
engine in :mod:`relmodel.stats.lifetimes.mle` handles the rest and is the
reference the tests compare this one with.
"""

import math

import numpy as np

from ...errors import FitError
from . import mle

__all__ = ["LARGE", "weibull_large"]

#: Samples at least this big (unweighted, untruncated) take this path.
LARGE = 50_000

_SUB = 20_000
_TAYLOR = 2e-4


def _sums(logt, logc, k, obs=None, block=1 << 15):
    """``A_0 .. A_4`` at shape ``k`` (durations in units of ``e^logc``), one exponential pass.

    The data go through in blocks that stay in the processor's cache, so each
    row is read from memory once.  With ``obs`` (the failure mask, given on
    the first pass) a sixth number is returned, the sum of ``ln t`` over the
    failures, and ``A_4`` (needed only to move the sums after the last step)
    is left as NaN.
    """
    a = np.zeros(6)
    lt_b, tk_b, x_b = np.empty(block), np.empty(block), np.empty(block)
    e = np.einsum
    for start in range(0, logt.size, block):
        part = logt[start:start + block]
        m = part.size
        lt, tk, x = lt_b[:m], tk_b[:m], x_b[:m]
        if obs is not None:
            np.copyto(x, obs[start:start + block])
            a[5] += e("i,i->", part, x)
        np.subtract(part, logc, out=lt)
        np.multiply(lt, k, out=tk)
        np.exp(tk, out=tk)
        np.multiply(tk, lt, out=x)
        a[0] += tk.sum()
        a[1] += x.sum()
        a[2] += e("i,i->", x, lt)
        np.multiply(x, lt, out=x)
        a[3] += e("i,i->", x, lt)
        if obs is None:
            np.multiply(x, lt, out=x)
            a[4] += e("i,i->", x, lt)
    if obs is not None:
        a[4] = np.nan
        return a
    return a[:5]


def _moved(a, h):
    """``A_0 .. A_2`` at ``k + h`` from ``A_0 .. A_4`` at ``k`` (Taylor series to third order)."""
    h2, h3 = h * h / 2, h ** 3 / 6
    return np.array([a[j] + h * a[j + 1] + h2 * a[j + 2] + (h3 * a[j + 3] if j + 3 < 5 else 0.0)
                     for j in range(3)])


def _step(k, d, s_l, a):
    """Halley step on the profile score; Newton when Halley's denominator is not safe."""
    m1, m2, m3 = a[1] / a[0], a[2] / a[0], a[3] / a[0]
    var = m2 - m1 * m1
    f = d / k + s_l - d * m1
    f1 = -d / k**2 - d * var
    f2 = 2 * d / k**3 - d * (m3 - 3 * m2 * m1 + 2 * m1**3)
    den = 2 * f1 * f1 - f * f2
    newton = -f / f1
    halley = -2 * f * f1 / den if den > 0 else newton
    return halley if abs(halley) <= 2 * abs(newton) else newton


def _start(sample):
    """Shape fitted to a systematic subsample, or None when the subsample cannot be fitted."""
    step = max(1, sample.t.size // _SUB)
    sub = mle.Sample(sample.t[::step], sample.obs[::step])
    if sub.d < 3:
        return None
    try:
        theta = mle.weibull_profile(sub, 1.0)[0]
    except FitError:
        return None
    return float(np.exp(theta[0]))


def weibull_large(sample):
    """Weibull MLE of a large right-censored sample: ``(theta, loglik, hessian)``, or None.

    None means "use the general engine" (weights, truncation, a subsample that
    cannot be fitted, or steps that do not settle in a few passes).
    """
    if sample.w is not None or sample.entry is not None or sample.t.size < LARGE:
        return None
    k = _start(sample)
    if k is None:
        return None
    logc = math.log(sample.tmax)
    span = max(logc - math.log(sample.tmin), 1.0)  # the largest |ln(t / tmax)|
    d = sample.d
    a = _sums(sample.logt, logc, k, sample.obs)
    s_logt = float(a[5])
    sample.__dict__["failure_log_sum"] = s_logt  # found in the same pass
    s_l = s_logt - d * logc
    for i in range(6):
        a = _sums(sample.logt, logc, k) if i else a[:5]
        h = _step(k, d, s_l, a)
        if not np.isfinite(h) or k + h <= 0:
            return None
        if abs(h) * span < _TAYLOR and i:
            k, (a0, a1, a2) = k + h, _moved(a, h)
            break
        k += h
    else:
        return None
    u = math.log(a0 / d) / k
    theta = np.array([math.log(k), u + logc])
    ll = d * math.log(k) - d * k * (u + logc) + (k - 1) * s_logt - d
    return theta, ll, mle._weibull_hessian(k, u, d, a0, a1, a2)
