"""Harrell's concordance index in O(n log n) numpy passes.

A pair is comparable when the shorter time ends in a failure (a unit
censored at the same time counts as the longer); it is concordant when the
unit that failed first has the higher risk score, and counts one half when
the scores tie (Harrell et al., JAMA 247, 1982; lifelines' convention).
For every failure the comparable units form a prefix of the rows sorted by
time (descending, censored first at a tie), so each count is a prefix
"how many scores below mine" query, answered for all rows at once with a
wavelet matrix over the positions in that order.
"""

import numpy as np

__all__ = ["concordance_index"]


def _levels(values, n_bits):
    """Wavelet matrix of ``values``: per level, prefix counts of zero bits and the number of zeros."""
    seq, out = values, []
    for b in range(n_bits - 1, -1, -1):
        bit = (seq >> b) & 1
        zeros = np.concatenate([[0], np.cumsum(1 - bit)])
        out.append((b, zeros, int(zeros[-1])))
        seq = np.concatenate([seq[bit == 0], seq[bit == 1]])
    return out


def _count_below(levels, hi, bound):
    """For each query, how many of the first ``hi`` values are below ``bound``."""
    lo = np.zeros_like(hi)
    count = np.zeros_like(hi)
    for b, zeros, n_zero in levels:
        z_lo, z_hi = zeros[lo], zeros[hi]
        one = ((bound >> b) & 1).astype(bool)
        count += np.where(one, z_hi - z_lo, 0)
        lo = np.where(one, n_zero + lo - z_lo, z_lo)
        hi = np.where(one, n_zero + hi - z_hi, z_hi)
    return count


def concordance_index(time, score, event):
    """Harrell's C of risk ``score`` (higher = fails sooner) against ``time`` and 0/1 ``event``."""
    time, score = np.asarray(time, float), np.asarray(score, float)
    event = np.asarray(event, bool)
    n = time.size
    order = np.lexsort((event, -time))        # time descending, censored before failures at a tie
    t_sorted, pos = time[order], np.empty(n, np.int64)
    pos[order] = np.arange(n)
    dead = np.flatnonzero(event)
    first_dead = np.flatnonzero(event[order])
    # comparable units of a failure at t: rows before the first failure at t in that order
    times_dead = t_sorted[first_dead]
    k = np.searchsorted(-times_dead, -time[dead], side="left")
    prefix = first_dead[k]
    by_score = np.argsort(score, kind="stable")
    levels = _levels(pos[by_score], max(1, int(n - 1).bit_length()))
    s_sorted = score[by_score]
    below = _count_below(levels, np.searchsorted(s_sorted, score[dead], side="left"), prefix)
    at_most = _count_below(levels, np.searchsorted(s_sorted, score[dead], side="right"), prefix)
    ties = at_most - below
    total = prefix.sum()
    if total == 0:
        return 0.5
    return float((below.sum() + 0.5 * ties.sum()) / total)
