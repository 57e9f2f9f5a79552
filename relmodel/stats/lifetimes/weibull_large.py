"""Censored Weibull MLE on large samples: a subsample start, then one pass over the data.

The profile likelihood of the shape ``k`` (see
:func:`relmodel.stats.lifetimes.mle.weibull_profile`) needs the power sums
``A_j(k) = sum t^k (ln t)^j`` (durations in units of the longest one, so
``ln t <= 0``).  On a large sample each evaluation is a pass over the data, so
the number of passes is the cost.  Here

1. the shape ``k0`` is solved on a systematic subsample (about 20,000 rows),
   which lands within about 1% of the full-sample answer;
2. one pass over the data takes ``ln t`` and ``t^k0`` once per row and the
   sums ``A_0 .. A_8`` at ``k0`` (and the sum of ``ln t`` over the failures);
3. the sums at any nearby shape follow from the Taylor series
   ``A_j(k0 + h) = sum_m h^m / m! A_{j+m}(k0)``, so Newton's method on the
   profile score runs on nine numbers, with no further pass.  The series is
   kept only when a bound on what it leaves out (below) is under 1e-14 of
   ``A_0`` and ``A_1`` (the estimate rests on them) and 1e-12 of ``A_2`` (its
   standard error); otherwise a second pass at the new shape, where the step
   left is tiny, settles it.  With a 20,000-row subsample ``|h ln t|`` is
   about 0.01 over the rows that carry the sums, whatever the scale and
   shape, and one pass is the rule; a sample with very few failures (under
   about 1%) takes two.

The bound on the terms left out: with ``x = h ln t`` the remainder of
``e^x`` after the ``x^m`` term is at most ``e^max(x, 0) |x|^(m+1) / (m+1)!``,
and ``sum t^k |ln t|^9 <= span * A_8`` where ``span`` is the largest
``|ln t|``.

The pass works in blocks of 8,192 rows that stay in the processor's cache,
so every row is read from memory once.  With ``z_i = t^(k/2) (ln t)^i``
(``i = 0 .. 4``) each sum is one dot product, ``A_(a+b) = z_a . z_b``: one
exponential and four products make the nine sums, and two stacked
``matmul`` calls take the nine dot products.  (Blocks stay below 10,000
rows, the size from which OpenBLAS spreads a dot product over threads, which
only costs on a busy machine.)

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
_BLOCK = 8192
_HALF_ORDER = 4  # z_0 .. z_4: the sums A_0 .. A_8
_TOL = (1e-14, 1e-14, 1e-12)  # the largest relative error left in A_0, A_1 (the estimate) and A_2 (its curvature)


def _block_sums(part, logc, half, rows, pairs, even, odd):
    """Add the sums of one block to ``even`` (``A_0, A_2 .. A_8``) and ``odd``.

    ``rows`` is ``(mask, ln(t / c), z_0 .. z_4)`` for this block; ``pairs``
    the rows whose neighbours are multiplied: from ``z_0`` (the odd sums), or
    from the mask, whose product with ``ln(t / c)`` is the sum over the
    failures (and one product, ``ln(t / c) . z_0``, goes unused).
    """
    lt, z = rows[1], rows[2:]
    np.log(part, out=lt)
    np.subtract(lt, logc, out=lt)
    np.multiply(lt, half, out=z[0])
    np.exp(z[0], out=z[0])
    for i in range(1, len(z)):
        np.multiply(z[i - 1], lt, out=z[i])
    even += np.matmul(z[:, None, :], z[:, :, None])  # z_i . z_i, one dot product each
    odd += np.matmul(pairs[:-1, None, :], pairs[1:, :, None])  # neighbours


def _sums(t, logc, k, obs=None):
    """``A_0 .. A_8`` at shape ``k`` (durations in units of ``e^logc``) in one pass over ``t``.

    With ``obs`` (the failure mask) a tenth number is returned: the sum of
    ``ln(t / c)`` over the failures, the mask taken as a 0/1 row in a dot.
    """
    size = min(_BLOCK, t.size)
    rows_b = np.empty((_HALF_ORDER + 3, size))  # mask, ln(t / c), z_0 .. z_4
    first = 0 if obs is not None else 2
    even, odd = np.zeros((_HALF_ORDER + 1, 1, 1)), np.zeros((_HALF_ORDER + 3 - first - 1, 1, 1))
    for start in range(0, t.size, size):
        part = t[start:start + size]
        rows = rows_b[:, :part.size]
        if obs is not None:
            np.copyto(rows[0], obs[start:start + size])
        _block_sums(part, logc, k / 2, rows, rows[first:], even, odd)
    a = np.empty(2 * _HALF_ORDER + 2)
    odd = odd.ravel()
    a[0:-1:2], a[1:-1:2] = even.ravel(), odd[-_HALF_ORDER:]
    a[-1] = odd[0] if obs is not None else np.nan
    return a if obs is not None else a[:-1]


def _moved(a, h, j):
    """``A_j(k0 + h)`` from the sums at ``k0`` (the Taylor series to the last sum known)."""
    total, term = 0.0, 1.0
    for m in range(len(a) - j):
        total += term * a[j + m]
        term *= h / (m + 1)
    return total


def _left_out(a, h, span, j):
    """Bound on the part of ``A_j(k0 + h)`` the series in :func:`_moved` leaves out."""
    order = len(a) - j  # the power of h of the first term left out
    return math.exp(max(-h, 0.0) * span) * abs(h) ** order / math.factorial(order) * span * a[-1]


def _solve(k0, d, s_l, a, span):
    """Newton on the profile score with the sums moved from ``k0``: ``(k, (A_0, A_1, A_2), exact)``.

    ``exact`` says whether the series bound allows the sums at ``k`` to be
    used as they are; ``k`` is None when the steps do not settle.
    """
    h = 0.0
    for _ in range(60):
        k = k0 + h
        b0, b1, b2 = (_moved(a, h, j) for j in range(3))
        f = d / k + s_l - d * b1 / b0
        f1 = -d / k**2 - d * (b2 / b0 - (b1 / b0) ** 2)
        step = -f / f1 if f1 < 0 else math.nan
        if not math.isfinite(step) or k + step <= 0:
            return None, None, False
        step = max(min(step, 0.5 * k), -0.5 * k)
        h += step
        if abs(step) <= 1e-15 * k:
            break
    else:
        return None, None, False
    b = tuple(_moved(a, h, j) for j in range(3))
    exact = all(_left_out(a, h, span, j) <= tol * abs(bj) for j, (bj, tol) in enumerate(zip(b, _TOL)))
    return k0 + h, b, exact


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
    cannot be fitted, or steps that do not settle in two passes).
    """
    if sample.w is not None or sample.entry is not None or sample.t.size < LARGE:
        return None
    k = _start(sample)
    if k is None:
        return None
    logc = math.log(sample.tmax)
    span = max(logc - math.log(sample.tmin), 1.0)  # the largest |ln(t / tmax)|
    d = sample.d
    a = _sums(sample.t, logc, k, sample.obs)
    s_l = float(a[-1])
    a = a[:-1]
    for _pass in range(2):
        k, sums, exact = _solve(k, d, s_l, a, span)
        if k is None or exact:
            break
        a = _sums(sample.t, logc, k)  # the step left from here is tiny: the series is exact
    if k is None or not exact:
        return None
    a0, a1, a2 = sums
    s_logt = s_l + d * logc
    sample.__dict__["failure_log_sum"] = s_logt  # found in the same pass
    u = math.log(a0 / d) / k
    theta = np.array([math.log(k), u + logc])
    ll = d * math.log(k) - d * k * (u + logc) + (k - 1) * s_logt - d
    return theta, ll, mle._weibull_hessian(k, u, d, a0, a1, a2)
