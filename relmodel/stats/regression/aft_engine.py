"""Accelerated-failure-time fits by Newton-Raphson with analytic score and information.

``log T = x'b + s W`` with W standard extreme-value (Weibull), normal
(lognormal) or logistic (log-logistic), as R's ``survreg``: the parameters are
``b`` (with the intercept) and ``log s``.  Right censoring, left truncation
(``entry``: the likelihood is conditioned on surviving to entry), case weights
and the Lin-Wei sandwich (by cluster, or each row its own) are supported; as in
``survreg``, the sandwich's middle sums the unweighted per-row scores.  The
log-likelihood is on the time scale (densities in hours), as ``survreg`` and
lifelines report it.
"""

from dataclasses import dataclass

import numpy as np
from scipy import special

from .cox_engine import gram

__all__ = ["AFTFit", "aft_fit", "LAWS"]

LAWS = ("weibull", "lognormal", "loglogistic")


def _gumbel(z, observed):
    ez = np.exp(np.minimum(z, 700.0))
    logp = np.where(observed, z - ez, -ez)
    return logp, np.where(observed, 1 - ez, -ez), -ez


def _normal(z, observed):
    log_sf = special.log_ndtr(-z)
    lam = np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - log_sf)   # hazard of the standard normal
    logp = np.where(observed, -0.5 * z * z - 0.5 * np.log(2 * np.pi), log_sf)
    return logp, np.where(observed, -z, -lam), np.where(observed, -1.0, -lam * (lam - z))


def _logistic(z, observed):
    f = special.expit(z)
    logp = np.where(observed, z - 2 * np.logaddexp(0, z), -np.logaddexp(0, z))
    return logp, np.where(observed, 1 - 2 * f, -f), np.where(observed, -2 * f * (1 - f), -f * (1 - f))


_TERMS = {"weibull": _gumbel, "lognormal": _normal, "loglogistic": _logistic}


@dataclass(frozen=True, eq=False)
class AFTFit:
    """Result of :func:`aft_fit`: ``coef`` (x columns, then log scale), covariances, log-likelihood."""

    law: str
    coef: np.ndarray
    var: np.ndarray
    robust_var: np.ndarray | None
    loglik: float
    n_iter: int
    infinite: np.ndarray
    residuals: np.ndarray
    eta: np.ndarray

    @property
    def scale(self):
        return float(np.exp(self.coef[-1]))


def _pieces(law, z, observed, w):
    """Per-row log-likelihood and its first two derivatives in (eta, log s) for one time point."""
    logp, u, v = _TERMS[law](z, observed)
    d_eta, d_th = -u, -u * z - observed          # divided by s for eta (applied by the caller)
    return w * logp, w * d_eta, w * d_th, w * v, w * (v * z + u), w * (v * z * z + u * z)


def _evaluate(law, x, logt, observed, w, log_entry, theta):
    b, th = theta[:-1], theta[-1]
    s = np.exp(th)
    eta = np.einsum("ij,j->i", x, b)
    z = (logt - eta) / s
    ll, de, dt, hee, het, htt = _pieces(law, z, observed, w)
    ll = ll - observed * w * th
    if log_entry is not None:
        cut = np.isfinite(log_entry)
        ze = (np.where(cut, log_entry, 0.0) - eta) / s
        p = _pieces(law, ze, np.zeros(z.size, bool), np.where(cut, w, 0.0))
        ll, de, dt, hee, het, htt = ll - p[0], de - p[1], dt - p[2], hee - p[3], het - p[4], htt - p[5]
    de = de / s
    hee, het = hee / s**2, het / s
    score = np.concatenate([np.einsum("ij,i->j", x, de), [dt.sum()]])
    info = np.empty((b.size + 1, b.size + 1))
    info[:-1, :-1] = -gram(x * hee[:, None], x)
    info[:-1, -1] = info[-1, :-1] = -np.einsum("ij,i->j", x, het)
    info[-1, -1] = -htt.sum()
    rows = np.column_stack([x * de[:, None], dt])
    return float(ll.sum()), score, info, rows, eta


def _start(x, logt, observed, w):
    """The exponential fit (intercept only, unit scale): log of time on test per failure."""
    theta = np.zeros(x.shape[1] + 1)
    theta[0] = np.log(np.sum(w * np.exp(logt)) / max(np.sum(w * observed), 1.0))
    return theta


def _step(info, score):
    """Newton's step, or a damped one (Levenberg-Marquardt) where the information is not positive definite."""
    lam = 0.0
    scale = np.abs(np.diag(info)).max() + 1e-12
    for _ in range(40):
        try:
            c = np.linalg.cholesky(info + lam * scale * np.eye(info.shape[0]))
            return np.linalg.solve(c.T, np.linalg.solve(c, score))
        except np.linalg.LinAlgError:
            lam = max(1e-8, lam * 10)
    return score / scale


def aft_fit(time, event, x, law, *, entry=None, weights=None, cluster=None, robust=False, max_iter=100,
            tol=1e-11):
    """Fit ``log T = x'b + s W``; ``x`` must hold the intercept column.  Returns an :class:`AFTFit`."""
    logt = np.log(np.asarray(time, float))
    observed = np.asarray(event, float) > 0
    x = np.asarray(x, float).reshape(logt.size, -1)
    w = np.ones(logt.size) if weights is None else np.asarray(weights, float)
    log_entry = None
    if entry is not None:
        e = np.asarray(entry, float)
        with np.errstate(divide="ignore"):
            log_entry = np.where(e > 0, np.log(np.where(e > 0, e, 1.0)), -np.inf)
    theta = _start(x, logt, observed, w)
    ll, score, info, rows, eta = _evaluate(law, x, logt, observed, w, log_entry, theta)
    it = 0
    for it in range(1, max_iter + 1):
        step = _step(info, score)
        new, scale = theta + step, 1.0
        trial = _evaluate(law, x, logt, observed, w, log_entry, new)
        while not trial[0] >= ll - 1e-12 * abs(ll) and scale > 1e-9:
            scale /= 2
            new = theta + scale * step
            trial = _evaluate(law, x, logt, observed, w, log_entry, new)
        small = np.all(np.abs(new - theta) <= tol * np.maximum(1.0, np.abs(new)))
        gain = trial[0] - ll
        theta, (ll, score, info, rows, eta) = new, trial
        if small or abs(gain) <= 1e-14 * max(1.0, abs(ll)):
            break
    var = np.linalg.pinv(info)
    step = np.abs(var @ score)
    infinite = ((step > 1e-9) & (step > np.sqrt(1e-9) * np.abs(theta))) | ((np.abs(theta) > 8) & (np.diag(var) > 1e2))
    robust_var = None
    if robust or cluster is not None:
        plain = rows / w[:, None]      # survreg's sandwich sums unweighted scores (coxph's weights them)
        if cluster is not None:
            _, grp = np.unique(np.asarray(cluster), return_inverse=True)
            summed = np.column_stack([np.bincount(grp, weights=plain[:, k]) for k in range(rows.shape[1])])
        else:
            summed = plain
        d = np.einsum("ij,jk->ik", summed, var)
        robust_var = gram(d, d)
    ll_time = ll - float((w * observed) @ logt)
    return AFTFit(law, theta, var, robust_var, ll_time, it, infinite, rows, eta)
