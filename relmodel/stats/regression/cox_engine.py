"""Cox proportional-hazards fits by Newton-Raphson, with analytic score and information.

:func:`cox_fit` maximises the partial likelihood of counting-process data
``(entry, stop]`` (plain right-censored data when ``entry`` is None) with Efron
or Breslow ties, strata, case weights and offsets, as R's ``coxph`` does
(Therneau and Grambsch, *Modeling Survival Data*, 2000, chapters 3 and 7).
Every risk-set sum is a suffix sum over rows sorted once by a composite
(stratum, time) key (less the rows that entered later, or that belong to a
later stratum), so an iteration costs a few passes over the rows and one
``X' diag(v) X`` product; the information never forms per-time p x p sums.

The robust (sandwich) variance is Lin and Wei's (JASA 84, 1989):
``V (sum_c U_c U_c') V`` with ``U_c`` the weighted score residuals summed
over cluster ``c``; ``robust=True`` without clusters makes every row its own
cluster, as ``coxph(robust=TRUE)``.
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CoxFit", "cox_fit", "information", "gram", "time_fix", "TIES"]

TIES = ("efron", "breslow")


@dataclass(frozen=True, eq=False)
class CoxFit:
    """Result of :func:`cox_fit`: estimates, naive and robust covariance, log partial likelihoods.

    ``infinite`` flags coefficients whose estimate runs off to +-infinity
    (the log-likelihood converged while the Newton step for them did not
    shrink, R's rule); ``residuals`` are the weighted score residuals (one
    row per data row; computed for robust fits, else None), ``risk`` the
    linear predictor ``x'b + offset``.
    """

    coef: np.ndarray
    var: np.ndarray
    robust_var: np.ndarray | None
    loglik: float
    loglik_null: float
    n_iter: int
    infinite: np.ndarray
    residuals: np.ndarray | None
    risk: np.ndarray
    ties: str
    layout: object = field(default=None, repr=False)
    state: dict = field(default=None, repr=False)
    times: tuple = field(default=None, repr=False)


def time_fix(stop, entry=None, tolerance=np.sqrt(np.finfo(float).eps)):
    """Times closer than ``tolerance`` (absolute, or relative to their mean size) made equal, as R's
    ``aeqSurv`` does before every ``coxph`` fit: (stop, entry) with near-ties merged."""
    vals = stop if entry is None else np.concatenate([stop, entry])
    y = np.unique(vals[np.isfinite(vals)])
    if y.size < 2:
        return stop, entry
    dy = np.diff(y)
    tied = (dy <= tolerance) | (dy / np.mean(np.abs(y)) <= tolerance)
    if not tied.any():
        return stop, entry
    cuts = y[np.concatenate([[True], ~tied])]

    def snap(v):
        return cuts[np.clip(np.searchsorted(cuts, v, side="right") - 1, 0, None)]
    return snap(stop), None if entry is None else snap(entry)


def _keys(stop, entry, strata):
    """Integer (stratum, time) keys of each row's stop and entry: comparisons between them are exact."""
    grid = np.unique(stop) if entry is None else np.unique(np.concatenate([stop, entry]))
    span = grid.size + 1
    base = np.zeros(stop.size, np.int64) if strata is None else np.unique(strata, return_inverse=True)[1] * span
    k_stop = base + np.searchsorted(grid, stop)
    k_entry = base - 1 if entry is None else base + np.searchsorted(grid, entry)
    return k_stop, k_entry, span


class _Layout:
    """Everything about the data that does not depend on the coefficients (rows sorted by stratum, stop)."""

    def __init__(self, stop, event, x, entry, strata, weights, offset, ties):
        k_stop, k_entry, span = _keys(stop, entry, strata)
        self.perm = np.argsort(k_stop, kind="stable")
        k_stop, k_entry = k_stop[self.perm], k_entry[self.perm]
        self.x = (x - x.mean(axis=0))[self.perm]
        self.w, self.offset = weights[self.perm], offset[self.perm]
        self.dead = event[self.perm] > 0
        self.k_events, dead_idx = np.unique(k_stop[self.dead], return_inverse=True)
        self.dead_rows = np.flatnonzero(self.dead)
        self.dead_event = dead_idx
        m = self.k_events.size
        self.pos_stop = np.searchsorted(k_stop, self.k_events, side="left")
        self.order_entry = self.cut = None
        if entry is not None:
            self.order_entry = np.argsort(k_entry, kind="stable")
            self.pos_entry = np.searchsorted(k_entry[self.order_entry], self.k_events, side="left")
        elif strata is not None:     # the risk set ends where the stratum does
            self.cut = np.searchsorted(k_stop, (self.k_events // span + 1) * span, side="left")
        # per row: event times in (entry, stop] are those with index in [lo, hi)
        self.hi = np.searchsorted(self.k_events, k_stop, side="right")
        self.lo = np.searchsorted(self.k_events, k_entry, side="right")
        n_dead = np.bincount(dead_idx, minlength=m)
        self._pairs(ties, n_dead, np.bincount(dead_idx, weights=self.w[self.dead], minlength=m))
        self.tied = bool(np.any(n_dead > 1))
        self.dead_x_sum = np.einsum("i,ij->j", self.w[self.dead], self.x[self.dead])

    def _pairs(self, ties, n_dead, dead_w):
        """Efron's steps at each event time (one step of the whole weight for Breslow)."""
        m = n_dead.size
        if ties == "efron":
            self.pair_event = np.repeat(np.arange(m), n_dead)
            first = np.concatenate([[0], np.cumsum(n_dead)[:-1]])
            step = np.arange(self.pair_event.size) - np.repeat(first, n_dead)
            self.pair_c = step / n_dead[self.pair_event]
            self.pair_a = (dead_w / n_dead)[self.pair_event]
        else:
            self.pair_event = np.arange(m)
            self.pair_c = np.zeros(m)
            self.pair_a = dead_w
        self.pairs_per_event = np.bincount(self.pair_event, minlength=m)


def gram(a, b):
    """``a' b`` by numpy's own loop: a threaded BLAS on a busy machine can be many times slower."""
    return np.einsum("ij,ik->jk", a, b)


def _reverse_cumsum(v):
    """``out[k]`` = sum of the last k rows of ``v`` (``out[0]`` = 0)."""
    out = np.empty((v.shape[0] + 1,) + v.shape[1:])
    out[0] = 0
    np.cumsum(v[::-1], axis=0, out=out[1:])
    return out


def _risk_sums(lay, v):
    """Sums of ``v`` (rows, or rows x columns) over each event time's risk set."""
    n = v.shape[0]
    tail = _reverse_cumsum(v)
    s = tail[n - lay.pos_stop]
    if lay.order_entry is not None:
        s -= _reverse_cumsum(v[lay.order_entry])[n - lay.pos_entry]
    elif lay.cut is not None:
        s -= tail[n - lay.cut]
    return s


def _over_interval(lay, per_event):
    """For each row, the sum of ``per_event`` over the event times in its (entry, stop]."""
    c = np.concatenate([np.zeros((1,) + per_event.shape[1:]), np.cumsum(per_event, axis=0)])
    return c[lay.hi] - c[lay.lo]


def _by_event(index, values, m):
    """Sums of ``values`` rows per event index; ``index`` is sorted and holds every event at least once."""
    if values.shape[0] == 0:
        return np.zeros((m,) + values.shape[1:])
    starts = np.flatnonzero(np.concatenate([[True], index[1:] != index[:-1]]))
    return np.add.reduceat(values, starts, axis=0)


def _evaluate(lay, beta, want_info=True):
    """Log partial likelihood, score and information at ``beta``; plus the pieces residuals need."""
    x, w, m = lay.x, lay.w, lay.k_events.size
    eta = np.einsum("ij,j->i", x, beta) + lay.offset
    shift = eta.max() if eta.size else 0.0
    wr = w * np.exp(eta - shift)
    wrx = wr[:, None] * x
    s0 = _risk_sums(lay, wr)
    s1 = _risk_sums(lay, wrx)
    j, c, a = lay.pair_event, lay.pair_c, lay.pair_a
    if lay.tied:
        e0 = _by_event(lay.dead_event, wr[lay.dead_rows], m)
        e1 = _by_event(lay.dead_event, wrx[lay.dead_rows], m)
        den = s0[j] - c * e0[j]
        mean = (s1[j] - c[:, None] * e1[j]) / den[:, None]
    else:                       # one failure per time: a step per event time, no Efron correction
        den, mean = s0, s1 / s0[:, None]
    wd = w[lay.dead_rows]
    loglik = float(wd @ (eta[lay.dead_rows] - shift) - a @ np.log(den))
    score = lay.dead_x_sum - np.einsum("i,ij->j", a, mean)
    out = {"loglik": loglik, "score": score, "wr": wr, "mean": mean, "den": den, "eta": eta}
    if want_info:
        out["h1"] = np.bincount(j, weights=a / den, minlength=m)
        out["h2"] = np.bincount(j, weights=a * c / den, minlength=m)
        out["info"] = information(lay, out)
    return out


def information(lay, ev, g=None, h=None):
    """``sum_j g_j h_j I_j``: the information, each event time's share weighted (all weights 1 when None).

    ``g`` and ``h`` are per-event-time weights (``x`` and ``g(t) x`` blocks of
    an augmented model; the proportional-hazards score test uses them).
    """
    x, j, a, mean, wr = lay.x, lay.pair_event, lay.pair_a, ev["mean"], ev["wr"]
    gh = np.ones(lay.k_events.size) if g is None else g * (1.0 if h is None else h)
    row = wr * _over_interval(lay, ev["h1"] * gh)
    row[lay.dead] -= wr[lay.dead] * (ev["h2"] * gh)[lay.dead_event]
    return gram(x * row[:, None], x) - gram(mean * (a * gh[j])[:, None], mean)


def _residuals(lay, ev):
    """Weighted score residuals, one row per data row (they sum to the score)."""
    x, m = lay.x, lay.k_events.size
    j, c, a, den, mean, wr = lay.pair_event, lay.pair_c, lay.pair_a, ev["den"], ev["mean"], ev["wr"]
    g1 = _by_event(j, mean * (a / den)[:, None], m)
    g2 = _by_event(j, mean * (a * c / den)[:, None], m)
    h = _over_interval(lay, ev["h1"])
    g = _over_interval(lay, g1)
    d, dj = lay.dead_rows, lay.dead_event
    h[d] -= ev["h2"][dj]
    g[d] -= g2[dj]
    res = -wr[:, None] * (x * h[:, None] - g)
    mbar = _by_event(j, mean, m) / lay.pairs_per_event[:, None]
    res[d] += lay.w[d, None] * (x[d] - mbar[dj])
    return res


def _solve(info, score):
    try:
        return np.linalg.solve(info, score)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(info, score, rcond=None)[0]


def _newton(lay, p, init, max_iter, tol):
    beta = np.zeros(p) if init is None else np.asarray(init, float).copy()
    ev = _evaluate(lay, beta)
    null = ev["loglik"] if init is None else _evaluate(lay, np.zeros(p), False)["loglik"]
    it = 0
    for it in range(1, max_iter + 1):
        step = _solve(ev["info"], ev["score"])
        new = beta + step
        trial = _evaluate(lay, new)
        halvings = 0
        while not trial["loglik"] >= ev["loglik"] - 1e-12 * abs(ev["loglik"]) and halvings < 30:
            new = (beta + new) / 2
            trial = _evaluate(lay, new)
            halvings += 1
        gain = trial["loglik"] - ev["loglik"]
        small = np.all(np.abs(new - beta) <= tol * np.maximum(1.0, np.abs(new)))
        beta, ev = new, trial
        if small or abs(gain) <= 1e-14 * max(1.0, abs(ev["loglik"])):
            break
    return beta, ev, null, it


def cox_fit(stop, event, x, *, entry=None, strata=None, weights=None, offset=None, ties="efron", cluster=None,
            robust=False, init=None, max_iter=40, tol=1e-11, timefix=True):
    """Fit a Cox model; see the module docstring.

    ``stop`` (n,), ``event`` 0/1 (n,), ``x`` (n, p) as floats; ``entry`` the
    start of each row's interval (rows are at risk on ``(entry, stop]``),
    ``strata`` any labels, ``weights`` case weights, ``offset`` a fixed part of
    the linear predictor, ``cluster`` labels for the robust variance;
    ``timefix`` merges times that differ by rounding error (:func:`time_fix`).
    Returns a :class:`CoxFit`; callers check inputs (this is the numeric core).
    """
    stop = np.asarray(stop, float)
    x = np.asarray(x, float).reshape(stop.size, -1)
    w = np.ones(stop.size) if weights is None else np.asarray(weights, float)
    off = np.zeros(stop.size) if offset is None else np.asarray(offset, float)
    entry = None if entry is None else np.asarray(entry, float)
    if timefix:
        stop, entry = time_fix(stop, entry)
    lay = _Layout(stop, np.asarray(event, float), x, entry, strata, w, off, ties)
    p = x.shape[1]
    beta, ev, null, it = _newton(lay, p, init, max_iter, tol)
    var = np.linalg.pinv(ev["info"])
    step = np.abs(var @ ev["score"])
    # a flat likelihood far out: a huge variance, or an information so small that pinv returns 0 for it
    diverged = (np.abs(beta) > 8) & ((np.diag(var) > 1e2) | (np.diag(ev["info"]) < 1e-2))
    infinite = ((step > 1e-9) & (step > np.sqrt(1e-9) * np.abs(beta))) | diverged
    risk = np.empty(stop.size)
    risk[lay.perm] = ev["eta"]
    res = robust_var = None
    if robust or cluster is not None:
        res = np.empty_like(lay.x)
        res[lay.perm] = _residuals(lay, ev)
        if cluster is not None:
            _, grp = np.unique(np.asarray(cluster), return_inverse=True)
            res_c = np.column_stack([np.bincount(grp, weights=res[:, k]) for k in range(p)])
        else:
            res_c = res
        dfbeta = np.einsum("ij,jk->ik", res_c, var)
        robust_var = gram(dfbeta, dfbeta)
    return CoxFit(beta, var, robust_var, ev["loglik"], null, it, infinite, res, risk, ties, lay, ev, (stop, entry))
