"""Gray's K-sample test of cumulative incidence: the score and Gray's own variance estimate.

Gray (Annals of Statistics 16, 1988, sections 2 and 3) compares the
subdistribution hazards of one cause across groups.  At each failure time
with ``n_k`` at risk in group k, ``S_k(t-)`` its all-cause Kaplan-Meier and
``F_k(t-)`` its cumulative incidence of the cause, the weights are
``h_k = n_k / S_k(t-)`` and ``R_k = h_k (1 - F_k(t-))``; group k scores
``w(t) (d_1k - d_1 R_k / sum R)`` with ``w = (1 - F(t-))^rho`` from the pooled
incidence ``F``.  The variance is the paper's martingale estimate: a sum over
failure times of outer products of ``a_k - t4_k c_k`` (``a`` the weight
matrix at that time, ``c`` its running integral) for failures of the cause,
of ``t4_k c_k`` for the competing ones, closed by the cross terms at the end.
Everything is computed as arrays over (time, group), strata summed.
"""

import numpy as np

__all__ = ["gray_score_variance"]


def _tables(t, code, g, k):
    """Failure times of one stratum with risk sets and failures per group: (n, d1, d2), each times x k."""
    times = np.unique(t[code > 0])
    order = np.argsort(t, kind="stable")
    n = np.empty((times.size, k))
    for i in range(k):
        ti = np.sort(t[g == i])
        n[:, i] = ti.size - np.searchsorted(ti, times, side="left")
    pos = np.searchsorted(times, t[order])
    cell = pos * k + g[order]
    cause = code[order]
    d1 = np.bincount(cell[cause == 1], minlength=times.size * k).reshape(times.size, k).astype(float)
    d2 = np.bincount(cell[cause == 2], minlength=times.size * k).reshape(times.size, k).astype(float)
    return n, d1, d2


def _stratum(t, code, g, k, rho):
    """Score (k,) and variance (k, k) of one stratum; ``code`` 1 = the cause, 2 = another, 0 = censored."""
    n, d1, d2 = _tables(t, code, g, k)
    if n.shape[0] == 0:
        return np.zeros(k), np.zeros((k, k))
    live = n > 0
    safe_n = np.where(live, n, 1.0)
    step = np.where(live, 1 - (d1 + d2) / safe_n, 1.0)
    s_after = np.cumprod(step, axis=0)
    s_before = np.vstack([np.ones((1, k)), s_after[:-1]])
    f_after = np.cumsum(np.where(live, s_before * d1 / safe_n, 0.0), axis=0)
    f_before = np.vstack([np.zeros((1, k)), f_after[:-1]])
    h = np.where(live, n / np.where(live, s_before, 1.0), 0.0)
    tr = h.sum(1)
    tq = (h * (1 - f_before)).sum(1)
    nd1 = d1.sum(1)
    pooled = np.cumsum(nd1 / tr)
    pooled_before = np.concatenate([[0.0], pooled[:-1]])
    w = (1 - pooled_before) ** rho
    score = (w[:, None] * np.where(live, d1 - nd1[:, None] * h * (1 - f_before) / tq[:, None], 0.0)).sum(0)
    # a_j = w (diag(h) - h h' / tr); c = running sum of a_j d1 / (tr (1 - F(t-)))
    a = w[:, None, None] * (h[:, :, None] * np.eye(k) - h[:, :, None] * h[:, None, :] / tr[:, None, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        inc = np.where((nd1 > 0)[:, None, None], a * (nd1 / (tr * (1 - pooled_before)))[:, None, None], 0.0)
    c = np.cumsum(inc, axis=0)
    return score, _variance(a, c, live, s_before, s_after, pooled, nd1, tr, n, d2)


def _variance(a, c, live, s_before, s_after, pooled, nd1, tr, n, d2):
    k = a.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        # failures of the cause
        t4 = np.where(s_after > 0, 1 - (1 - pooled)[:, None] / s_after, 1.0)
        t5 = np.where(nd1[:, None] > 1, 1 - (nd1[:, None] - 1) / (tr[:, None] * s_before - 1), 1.0)
        w1 = np.where(live & (nd1[:, None] > 0), t5 * s_before * nd1[:, None] / (tr[:, None] * n), 0.0)
        # failures of other causes
        u4 = np.where(s_after > 0, (1 - pooled)[:, None] / s_after, 0.0)
        u5 = np.where(d2 > 1, 1 - (d2 - 1) / (n - 1), 1.0)
        w2 = np.where((s_after > 0) & (d2 > 0), u5 * s_before**2 * d2 / np.where(live, n, 1.0) ** 2, 0.0)
    x = a - t4[:, None, :] * c                          # (time, i, group k)
    wc = w2 * u4**2
    v = _outer_sum(x, w1) + _outer_sum(c, wc)
    v3 = (w1 * t4**2 + wc).sum(0)
    v2 = (x * (w1 * t4)[:, None, :]).sum(0) - (c * wc[:, None, :]).sum(0)
    end = c[-1] if c.shape[0] else np.zeros((k, k))
    return v + end @ np.diag(v3) @ end.T + end @ v2.T + v2 @ end.T


def _outer_sum(x, w):
    """sum over times j and groups k of w[j, k] x[j, :, k] x[j, :, k]'."""
    k = x.shape[1]
    flat = np.ascontiguousarray(x.transpose(1, 0, 2)).reshape(k, -1)
    return np.einsum("ij,lj->il", flat * w.reshape(-1), flat)


def gray_score_variance(t, code, g, k, strata=None, rho=0.0):
    """Gray's score per group and its variance, summed over strata.

    ``t`` times, ``code`` 1 for the cause tested, 2 for any other cause, 0
    for censored; ``g`` group indices 0..k-1; ``strata`` indices or None.
    """
    if strata is None:
        return _stratum(t, code, g, k, rho)
    score, var = np.zeros(k), np.zeros((k, k))
    for s in np.unique(strata):
        m = strata == s
        sc, vv = _stratum(t[m], code[m], g[m], k, rho)
        score, var = score + sc, var + vv
    return score, var
