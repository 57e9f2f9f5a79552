"""The exponential engine of :func:`relmodel.simulate_training`: no Python loop per failure.

Failures are memoryless, so every attempt at a segment (or at a restart) is
independent of the past: per group of equal segments the number of failed
attempts is negative binomial, and each failed attempt loses a time drawn
from the exponential truncated to the attempt's span, by inversion from one
32-bit uniform.  The lost times of a replica are summed through products of
blocks of factors and one log per block (see :func:`_trunc_exp_sums`).

All draws come from a SFC64 stream seeded from the caller's generator (four
64-bit words drawn from it), so the same seed gives the same result, and the
generator the caller passed advances by those four words.  SFC64 gives its
raw words about twice as fast as numpy's default PCG64.
"""

import numpy as np

__all__ = ["exponential_runs"]

#: Uniform draws per chunk: about 0.8 MiB of working arrays, which stay in the core's cache.
_CHUNK_DRAWS = 1 << 16
#: A block product of B factors in [x, y] is kept inside [1e-300, 1e300] (doubles reach 1e-308 and 1e308).
_PRODUCT_DIGITS = 300.0
#: Block sizes tried, largest first.
_BLOCKS = (16, 8, 4, 2, 1)


def fast_stream(rng):
    """A SFC64 generator seeded from ``rng`` (four raw words): the engine's uniforms come from it."""
    words = rng.bit_generator.random_raw(4)
    return np.random.Generator(np.random.SFC64(np.random.SeedSequence([int(w) for w in words])))


def _block_size(counts, span, mtbf):
    """Factors per block: at most a quarter of the mean count, and no product leaves double range.

    The engine multiplies ``|v|`` with ``v = u - 2**32 / a`` for a 32-bit
    ``u`` (see :func:`_trunc_exp_sums`), so every ``|v|`` lies between
    ``2**32 exp(-span/M) / a`` and ``2**32 / a``.
    """
    a = -np.expm1(-span / mtbf)
    top = np.log10(2.0 ** 32 / a)
    low = np.log10(2.0 ** 32 / a) - span / mtbf / np.log(10)
    mean = counts.mean() if counts.size else 0.0
    for b in _BLOCKS:
        if b * max(top, -low) <= _PRODUCT_DIGITS and 4 * b <= max(mean, 4):
            return b
    return 1


def _trunc_exp_sums(rng, counts, span, mtbf):
    """Per-row sums of ``counts[i]`` exponentials (mean ``mtbf``) truncated to [0, span).

    One draw is ``-M log(1 - a U)`` with ``a = 1 - exp(-span/M)`` (inversion
    of the truncated distribution function) and ``U = u / 2**32`` for a
    uniform 32-bit integer ``u``: two draws per raw 64-bit word.  A row's sum
    is ``-M`` times the log of the product of its factors ``1 - a U``.  Each
    factor is taken as ``(a / 2**32) |v|`` with ``v = u - 2**32 / a`` (one
    subtraction per draw), and the constant goes to the log of the row.

    Products are formed in blocks of B factors (B a power of two, up to 16):
    a row of ``c`` draws fills ``c // B`` full blocks and one padded block
    (pad value ``|v| = 2**32 / a``, a factor of 1).  The draws are laid out
    as a (B, blocks) matrix, so halving it B -> B/2 -> ... -> 1 multiplies
    whole contiguous rows; then one log per block and one sum per row.  The
    layout of independent draws does not change their distribution.
    Relative rounding of a sum is below about ``1e-15 log2(2**32 / a) / a``
    (1e-13 for a typical segment), far under Monte Carlo error.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if not counts.any():
        return np.zeros(counts.size)
    a = -np.expm1(-span / mtbf)
    b = _block_size(counts, span, mtbf)
    full = counts // b
    first = np.concatenate([[0], np.cumsum(full)])  # first full block of each row, and the total
    ends = np.cumsum(counts)
    block_logs, tail_logs = np.empty(first[-1]), np.empty(counts.size)
    buf = np.empty(_CHUNK_DRAWS + int(counts.max()))
    start = 0
    while start < counts.size:  # chunks of rows that fit in cache
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + _CHUNK_DRAWS, side="right")), start + 1)
        _chunk_logs(rng, counts[start:stop] - b * full[start:stop], block_logs[first[start]:first[stop]],
                    tail_logs[start:stop], buf, b, 2.0 ** 32 / a)
        start = stop
    sums = tail_logs
    has = full > 0
    if has.any():
        sums[has] += np.add.reduceat(block_logs, first[:-1][has])
    sums += counts * np.log(a * 2.0 ** -32)
    sums *= -mtbf
    return sums


def _chunk_logs(rng, rem, block_logs, tail_logs, buf, b, c):
    """Logs of the products of |v| of one chunk of rows into ``block_logs`` and ``tail_logs``.

    ``rem`` is each row's count of draws left over after its full blocks, ``c`` is ``2**32 / a``.
    """
    n_full = block_logs.size
    m = b * n_full + int(rem.sum())
    raw = rng.bit_generator.random_raw((m + 1) // 2).view(np.uint32)[:m]
    v = np.subtract(raw, c, out=buf[:m])
    blocks = v[:b * n_full].reshape(b, n_full)
    h = b
    while h > 1:
        h //= 2
        np.multiply(blocks[:h], blocks[h:2 * h], out=blocks[:h])
    np.log(blocks[0] if b > 1 else np.abs(blocks[0]), out=block_logs)  # an even number of negatives is positive
    tail_logs[:] = 0.0
    has = rem > 0
    if has.any():
        tails = np.multiply.reduceat(v[b * n_full:], (np.cumsum(rem) - rem)[has])
        tail_logs[has] = np.log(np.abs(tails, out=tails), out=tails)


def exponential_runs(rng, n_runs, groups, r, mtbf):
    """Exact sampling for Poisson failures; returns (lost, restart, failures)."""
    rng = fast_stream(rng)
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
