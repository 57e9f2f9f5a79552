"""Is the fleet homogeneous?  Poisson against negative binomial counts, and the worst nodes' share.

Node i has ``y_i`` failures in ``E_i`` hours of service.  Under a homogeneous
fleet ``y_i ~ Poisson(mu E_i)``; a gamma-mixed (negative binomial) fleet has
the same mean and variance ``mu E_i + d (mu E_i)^2``.  The likelihood-ratio
test of ``d = 0`` sits on the boundary, so its p-value is
``0.5 P(chi2_1 > LR)`` (Self & Liang 1987).  ``d`` gets a profile-likelihood
interval.  When only nodes that failed are listed, each node's likelihood is
conditioned on at least one failure (zero-truncated).

Groups of identical nodes (the unlisted nodes of a known population, all
without failures over the whole window) enter once with a weight.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats


__all__ = ["Dispersion", "dispersion_test", "worst_shares"]


def _dot(a, b):
    """Sum of products without BLAS (whose threads spin on a busy machine)."""
    return float(np.einsum("i,i->", a, b))

_LOG_D = (-25.0, 8.0)


@dataclass(frozen=True)
class Dispersion:
    """The test's numbers: rate ``mu`` per hour, dispersion ``d`` with its interval, LR statistic, p-value."""

    mu: float
    d: float
    d_lo: float
    d_hi: float
    lr: float
    p_value: float


def _log_poch(y, r):
    """log Gamma(y + r) - log Gamma(r) - y log r, kept accurate where r is huge (d near 0)."""
    big = r > 1e7
    rr = np.where(big, 1.0, r)
    return np.where(big, y * (y - 1) / (2 * r), special.gammaln(y + rr) - special.gammaln(rr) - y * np.log(rr))


def _dpsi(y, r):
    """digamma(y + r) - digamma(r), likewise."""
    big = r > 1e7
    rr = np.where(big, 1.0, r)
    return np.where(big, y / r - y * (y - 1) / (2 * r * r), special.digamma(y + rr) - special.digamma(rr))


def _counts(y, e, w):
    """What :func:`_nb` needs of the counts beyond each call's parameters: the counts, their distinct values and
    the weight on each, and the weighted sums that do not involve the parameters."""
    uy, at = np.unique(y, return_inverse=True)
    wy = w * y
    return y, uy, at, np.bincount(at, weights=w, minlength=uy.size), wy, _dot(w, y), _dot(wy, np.log(e))


def _nb(theta, y, e, w, truncated):
    """Weighted negative-binomial log-likelihood (without -log y!) and its gradient in (log mu, log d).

    ``y`` is :func:`_counts` of the counts: the gamma functions are taken once per distinct count, and the
    terms linear in the counts summed once."""
    log_mu, log_d = theta
    y, uy, at, w_at, wy, sum_wy, sum_wy_loge = y
    r = np.exp(-log_d)
    x = np.exp(log_d + log_mu) * e
    l1x = np.log1p(x)
    share = x / (1 + x)
    w_l1x, wy_l1x, w_share, wy_share = _dot(w, l1x), _dot(wy, l1x), _dot(w, share), _dot(wy, share)
    ll = _dot(w_at, _log_poch(uy, r)) + sum_wy * log_mu + sum_wy_loge - wy_l1x - r * w_l1x
    g_mu = sum_wy - wy_share - r * w_share
    g_d = -r * (_dot(w_at, _dpsi(uy, r)) - w_l1x) + g_mu
    if truncated:
        lp0 = -r * l1x
        odds = 1 / np.expm1(-lp0)  # P0 / (1 - P0)
        ll -= _dot(w, np.log(-np.expm1(lp0)))
        g_mu -= r * _dot(w, odds * share)
        g_d += r * _dot(w, odds * (l1x - share))
    return float(ll), np.array([g_mu, g_d])


def _poisson(y, e, w, log_mu, truncated):
    mu = np.exp(log_mu)
    ll = y * (log_mu + np.log(e)) - mu * e
    if truncated:
        ll -= np.log(-np.expm1(-mu * e))
    return float(_dot(w, ll))


def _best_mu(fn, guess):
    res = optimize.minimize_scalar(lambda v: -fn(v), bounds=(guess - 6, guess + 6), method="bounded",
                                   options={"xatol": 1e-9})
    return res.x, -res.fun


def _maximise(fn, x0, lo, hi, scale):
    """Maximise ``fn`` (value, gradient) from ``x0`` inside [lo, hi] with BFGS and a steep wall outside (scipy's
    L-BFGS-B calls BLAS, whose threads spin on a busy machine), on ``x * scale`` (about unit curvature)."""
    lo, hi, scale = (np.asarray(v, float) for v in (lo, hi, scale))

    def fenced(v):
        inside = np.clip(v / scale, lo, hi)
        over = v - inside * scale
        ll, grad = fn(inside)
        wall = 1e3 * (1.0 + abs(ll))
        return -ll + wall * float(over @ over), -grad / scale + 2 * wall * over

    res = optimize.minimize(fenced, np.asarray(x0, float) * scale, jac=True, method="BFGS", options={"gtol": 1e-3})
    x = np.clip(res.x / scale, lo, hi)
    return x, fn(x)[0]


def _nb_fit(y, e, w, truncated, lmu0, log_d=None):
    """Maximum of the NB likelihood over (log mu, log d), or over log mu alone at a fixed ``log_d``."""
    lo, hi = [lmu0 - 6, _LOG_D[0]], [lmu0 + 6, _LOG_D[1]]
    scale = [np.sqrt(max(y[5], 1.0)), 1.0]   # log mu times the root of the failures (y[5]): about unit curvature
    if log_d is not None:
        def one(v):
            ll, grad = _nb((v[0], log_d), y, e, w, truncated)
            return ll, grad[:1]
        x, ll = _maximise(one, [lmu0], lo[:1], hi[:1], scale[:1])
        return np.array([x[0], log_d]), ll
    fits = [_maximise(lambda v: _nb(v, y, e, w, truncated), [lmu0, ld], lo, hi, scale) for ld in (-4.0, 0.5)]
    return max(fits, key=lambda f: f[1])


def dispersion_test(y, e, w, truncated, conf=0.95):
    """Poisson against negative binomial for counts ``y`` over hours ``e`` (``w`` identical nodes each)."""
    y, e, w = (np.asarray(v, float) for v in (y, e, w))
    counts = _counts(y, e, w)
    guess = np.log(max(_dot(w, y), 0.5) / _dot(w, e))
    lmu0, ll0 = _best_mu(lambda v: _poisson(y, e, w, v, truncated), guess)
    profile = lambda ld: _nb_fit(counts, e, w, truncated, lmu0, ld)[1]  # noqa: E731
    (lmu1, ld), ll1 = _nb_fit(counts, e, w, truncated, lmu0)
    if ll1 < ll0:
        lmu1, ld, ll1 = lmu0, _LOG_D[0], ll0
    lr = max(0.0, 2 * (ll1 - ll0))
    p = 1.0 if lr < 1e-9 else 0.5 * stats.chi2.sf(lr, 1)
    crit = stats.chi2.ppf(conf, 1)
    gap = lambda v: 2 * (ll1 - profile(v)) - crit  # noqa: E731
    lo = 0.0 if 2 * (ll1 - ll0) <= crit else np.exp(optimize.brentq(gap, _LOG_D[0], ld, xtol=1e-4))
    hi = np.inf if gap(_LOG_D[1]) < 0 else np.exp(optimize.brentq(gap, ld, _LOG_D[1], xtol=1e-4))
    d = 0.0 if ld <= _LOG_D[0] + 1e-6 else float(np.exp(ld))
    mu = float(np.exp(lmu1 if d > 0 else lmu0))
    return Dispersion(mu, d, float(lo), float(hi), float(lr), float(p))


def _ks(n_nodes):
    """The k's the worst-k shares are given for: 1, 3, 10, 1% and 5% of the nodes (distinct, at most all)."""
    ks = [1, 3, 10, int(np.ceil(0.01 * n_nodes)), int(np.ceil(0.05 * n_nodes))]
    return sorted({k for k in ks if 1 <= k <= n_nodes})


def _top_sums(counts, ks):
    """Per row of ``counts``, the sum of its k largest entries for each k."""
    n = counts.shape[1]
    kmax = max(ks)
    part = -np.partition(-counts, kmax - 1, axis=1)[:, :kmax] if kmax < n else counts.copy()
    part = -np.sort(-part, axis=1)
    cum = np.cumsum(part, axis=1)
    return cum[:, [k - 1 for k in ks]]


def _multinomial(rng, total, p, rows):
    """``rows`` draws of Multinomial(total, p), exactly: independent Poisson counts of mean a little under
    ``total`` (given their sum they are multinomial), topped up by single draws to the total."""
    mean = total - 4 * np.sqrt(total)
    if mean <= 0:
        return rng.multinomial(total, p, size=rows)
    out = rng.poisson(mean * p, size=(rows, p.size))
    short = total - out.sum(axis=1)
    over = np.flatnonzero(short < 0)
    if over.size:  # rarely: a row passed the total; draw it afresh
        out[over] = rng.multinomial(total, p, size=over.size)
        short[over] = 0
    row = np.repeat(np.arange(rows), short)
    draw = rng.random(row.size) * p.sum()
    by = np.argsort(draw)   # looked up in order (the same cells, found faster), counted in one pass
    cell = np.minimum(np.searchsorted(np.cumsum(p), draw[by], side="right"), p.size - 1)
    out += np.bincount(row[by] * p.size + cell, minlength=out.size).reshape(out.shape).astype(out.dtype)
    return out


def worst_shares(y, e, n_zero, zero_e, truncated, seed=None, ks=None, q=0.95, budget=2e6):
    """Share of all failures held by the worst k nodes, against a homogeneous fleet's ``q`` quantile.

    The homogeneous fleet spreads the same total over the nodes in proportion to exposure (multinomial,
    drawn with ``seed``); when only failing nodes are listed, each node's count is Poisson at the one rate
    that fits the total given at least one failure (zero-truncated), and each draw's share is of its own total.
    ``runs`` draws (as many as ``budget`` node-draws allow, 39 to 999, one short of a multiple of 20): the
    envelope is their ``q (runs + 1)``-th smallest, a Monte Carlo test of level ``1 - q`` (for q = 0.95).
    Returns ``(ks, observed shares, envelope shares, runs)``.
    """
    y = np.concatenate([np.asarray(y, float), np.zeros(int(n_zero))])
    e = np.concatenate([np.asarray(e, float), np.full(int(n_zero), zero_e)])
    total, n = int(y.sum()), y.size
    ks = _ks(n) if ks is None else sorted({int(k) for k in np.atleast_1d(ks) if 1 <= int(k) <= n})
    if total == 0 or not ks:
        return ks, np.zeros(len(ks)), np.zeros(len(ks)), 0
    observed = _top_sums(y[None, :], ks)[0] / total
    runs = int(max(39, min(999, budget // n)) + 1) // 20 * 20 - 1
    rng = np.random.default_rng(seed)
    chunk = max(1, int(2e6 // n))
    if truncated:   # each listed node failed at least once: zero-truncated Poisson counts at the fitted rate
        lam = _truncated_rate(total, e) * e
        sims = []
        for i in range(0, runs, chunk):
            y_sim = _zero_truncated(rng, lam, min(chunk, runs - i))
            sims.append(_top_sums(y_sim, ks) / y_sim.sum(axis=1, keepdims=True))
        envelope = np.quantile(np.concatenate(sims), q, axis=0, method="higher")
        return ks, observed, envelope, runs
    sims = [_top_sums(_multinomial(rng, total, e / e.sum(), min(chunk, runs - i)), ks)
            for i in range(0, runs, chunk)]
    envelope = np.quantile(np.concatenate(sims) / total, q, axis=0, method="higher")
    return ks, observed, envelope, runs


def _truncated_rate(total, e):
    """The rate per hour at which zero-truncated Poisson counts over hours ``e`` add up, in expectation, to
    ``total`` (0 when every node failed exactly once)."""
    n = e.size
    if total <= n:
        return 0.0

    def gap(log_mu):
        x = np.exp(log_mu) * e
        return float(np.sum(np.where(x < 1e-8, 1 + x / 2, x / -np.expm1(-x)))) - total
    lo, hi = np.log(1e-12 / e.max()), np.log(10.0 * total / e.min())
    return float(np.exp(optimize.brentq(gap, lo, hi, xtol=1e-10)))


def _zero_truncated(rng, lam, rows):
    """``rows`` draws of independent Poisson(lam) counts given each is at least 1: the first event's time in
    the unit interval, given one comes, then Poisson events in the time left."""
    if not np.any(lam > 0):
        return np.ones((rows, lam.size))
    u = rng.random((rows, lam.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(lam > 0, -np.log1p(u * np.expm1(-lam)) / np.where(lam > 0, lam, 1.0), 1.0)
    return 1 + rng.poisson(lam * (1 - first))
