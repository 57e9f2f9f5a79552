"""The exponential engine of :func:`relmodel.simulate_training`: no Python loop per failure.

Failures are memoryless, so every attempt at a segment (or at a restart) is
independent of the past: per group of equal segments the number of failed
attempts is negative binomial, and each failed attempt loses a time drawn
from the exponential truncated to the attempt's span.  All lost times of all
replicas are drawn as 32-bit uniforms in cache-sized chunks and summed per
replica through one product and one log per replica.
"""

import numpy as np

__all__ = ["exponential_runs"]


def _trunc_exp_sums(rng, counts, span, mtbf):
    """Per-row sums of ``counts[i]`` exponentials truncated to [0, span).

    One draw is ``-M log(1 - a U)`` with ``a = 1 - exp(-span/M)`` and ``U``
    uniform, so a row's sum is ``-M log`` of the product of its factors
    ``1 - a U``: a product per row (``multiply.reduceat``) and one log per
    row, not per draw.  ``U`` takes 32-bit values, two per raw 64-bit draw
    of the generator.  Every factor is at least ``exp(-span/M)``, so a
    product of ``c`` factors stays above ``exp(-c span/M)``; rows where that
    could underflow take the sum of logs instead.
    """
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros(counts.size)
    if not counts.any():
        return out
    a = -np.expm1(-span / mtbf)
    ends = np.cumsum(counts)
    safe = int(_PRODUCT_EXPONENT // (span / mtbf)) if span > 0 else counts.max()
    start_row = 0
    while start_row < counts.size:  # chunks of rows that fit in cache
        base = ends[start_row - 1] if start_row else 0
        stop = max(int(np.searchsorted(ends, base + _CHUNK_DRAWS, side="right")), start_row + 1)
        rows = slice(start_row, stop)
        out[rows] = _chunk_sums(rng, counts[rows], int(ends[stop - 1] - base), a, mtbf, safe)
        start_row = stop
    return out


#: Truncated-exponential draws per chunk (two 512 KiB arrays: they stay in cache).
_CHUNK_DRAWS = 1 << 16
#: A product of factors >= exp(-x) is kept to exp(-600) and above (doubles reach exp(-708)).
_PRODUCT_EXPONENT = 600.0


def _chunk_sums(rng, counts, m, a, mtbf, safe):
    """Sums for one chunk of rows holding ``m`` draws in all (see :func:`_trunc_exp_sums`)."""
    out = np.zeros(counts.size)
    if m == 0:
        return out
    raw = rng.bit_generator.random_raw((m + 1) // 2).view(np.uint32)[:m]
    factors = np.multiply(raw, -a * 2.0 ** -32)
    factors += 1.0
    if counts.max() <= safe:
        return -mtbf * np.log(_row_products(factors, counts))
    cs = np.empty(m + 1)
    cs[0] = 0.0
    np.cumsum(np.log(factors, out=factors), out=cs[1:])
    hi = np.cumsum(counts)
    out[:] = mtbf * (cs[hi - counts] - cs[hi])
    return out


def _row_products(factors, counts):
    """Product of each row's ``counts[i]`` consecutive factors (1 for an empty row)."""
    out = np.ones(counts.size)
    has = counts > 0
    out[has] = np.multiply.reduceat(factors, (np.cumsum(counts) - counts)[has])
    return out


def exponential_runs(rng, n_runs, groups, r, mtbf):
    """Exact sampling for Poisson failures; returns (lost, restart, failures)."""
    lost = np.zeros(n_runs)
    k_tot = np.zeros(n_runs, dtype=np.int64)
    for n, span in groups:
        p = np.exp(-span / mtbf)
        k = rng.negative_binomial(n, p, size=n_runs) if p < 1 else np.zeros(n_runs, np.int64)
        lost += _trunc_exp_sums(rng, k, span, mtbf)
        k_tot += k
    rest = k_tot * r
    nfail = k_tot.copy()
    if r > 0 and k_tot.any():
        q = np.exp(-r / mtbf)
        has = k_tot > 0
        j = np.zeros(n_runs, dtype=np.int64)
        j[has] = rng.negative_binomial(k_tot[has], q)
        rest += _trunc_exp_sums(rng, j, r, mtbf)
        nfail += j
    return lost, rest, nfail
