"""Probabilities the compound model's closed form is built from (:mod:`relmodel.scale.design.compound`).

Sums of binomial counts of out groups and of the units bursts hold, with only
the counts of non-negligible probability evaluated, so that a cluster of a
million GPUs costs milliseconds rather than minutes.
"""

import numpy as np
from scipy import stats

__all__ = ["held_pmf", "tail"]


def tail(dist_pmf, threshold):
    """P(count >= threshold) from a pmf that is exact below its length (a truncated convolution)."""
    return float(max(1.0 - dist_pmf[:max(int(threshold), 0)].sum(), 0.0))


#: Binomial probabilities below this are left out of the convolution (their sum cannot reach 1e-20).
_NEGLIGIBLE = 1e-30
#: exp(-_TAIL_EXPONENT) bounds the chance a binomial falls outside the evaluated window (about 2e-35).
_TAIL_EXPONENT = 80.0


def _reach(sd):
    """Counts either side of a binomial's mean past which its probability is below exp(-_TAIL_EXPONENT) in all.

    Bernstein's inequality for a sum of independent 0/1 counts of variance sd^2:
    P(|X - mean| >= t) <= 2 exp(-t^2 / (2 (sd^2 + t/3))); t solves t^2 / (2 (sd^2 + t/3)) = _TAIL_EXPONENT.
    """
    a = _TAIL_EXPONENT / 3.0
    return a + np.sqrt(a * a + 2.0 * _TAIL_EXPONENT * sd * sd) + 1.0


def held_pmf(burst, length, n1, q1, n2, q2, weight):
    """pmf (first ``length`` terms) of c units held by bursts (pmf ``burst``) plus Binomial(n1 - c, q1) plus
    ``weight`` x Binomial(n2, q2).

    The binomials of every c are evaluated at once over one window of counts around their means (the counts
    outside it have probabilities far below :data:`_NEGLIGIBLE`: :func:`_reach`).
    """
    cs = np.flatnonzero(burst > _NEGLIGIBLE)
    out = np.zeros(length)
    if cs.size == 0:
        return out
    lo_b, pmf_b = _support(n2, q2)
    b = np.zeros(weight * (len(pmf_b) - 1) + 1)
    b[::weight] = pmf_b
    ns = np.maximum(n1 - cs, 0)
    mean, sd = n1 * q1, np.sqrt(n1 * q1 * (1.0 - q1))
    reach = _reach(sd)
    lo = max(0, int(mean - q1 * cs[-1] - reach))
    hi = max(lo, min(n1, int(mean + reach)))
    counts = np.arange(lo, hi + 1)
    pmf = stats.binom.pmf(counts[None, :], ns[:, None], q1)
    for i, c in enumerate(cs):
        start = int(c) + lo + weight * lo_b
        if start >= length:
            continue
        part = np.convolve(pmf[i], b)[:length - start]
        out[start:start + part.size] += burst[c] * part
    return out


def _support(n, q):
    """(first index, pmf) of Binomial(n, q) over the counts whose probability is not negligible.

    Only a window of :func:`_reach` counts either side of the mean is evaluated: the probabilities outside
    it are far below :data:`_NEGLIGIBLE`.
    """
    mean, sd = n * q, np.sqrt(n * q * (1.0 - q))
    reach = _reach(sd)
    lo, hi = max(0, int(mean - reach)), min(n, int(mean + reach))
    pmf = stats.binom.pmf(np.arange(lo, hi + 1), n, q)
    keep = np.flatnonzero(pmf > _NEGLIGIBLE)
    if keep.size == 0:
        return lo, pmf
    return lo + int(keep[0]), pmf[keep[0]:keep[-1] + 1]


def _convolve(n1, q1, n2, q2, weight):
    """pmf of Binomial(n1, q1) + weight x Binomial(n2, q2), over 0 .. n1 + weight n2."""
    length = n1 + weight * n2 + 1
    return held_pmf(np.eye(1, length)[0], length, n1, q1, n2, q2, weight)
