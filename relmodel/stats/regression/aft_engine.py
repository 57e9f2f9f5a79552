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
from scipy import optimize, special

from ...errors import FitError
from .cox_engine import gram

__all__ = ["AFTFit", "aft_fit", "LAWS"]

LAWS = ("weibull", "lognormal", "loglogistic")


def _gumbel(z, observed):
    with np.errstate(over="ignore"):
        ez = np.exp(z)          # inf past exp's range: the log-likelihood is then -inf and the step is refused
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


def _standardiser(x):
    """The matrix ``a`` with ``theta = a @ theta_std`` when the non-constant columns are centred and scaled.

    Fitting on standardised columns keeps Newton's information matrix well conditioned when
    covariates differ in scale by many orders of magnitude (a serial number next to a 0/1 flag).
    None when ``x`` has no intercept column (nothing to centre against) or a value that is not finite.
    """
    if x.shape[1] < 2 or not np.all(x[:, 0] == 1.0) or not np.isfinite(x).all():
        return None
    mean, sd = x.mean(axis=0), x.std(axis=0)
    moving = np.arange(x.shape[1]) > 0
    moving &= sd > 0
    p = x.shape[1]
    a = np.eye(p + 1)
    a[1:p, 1:p][np.diag_indices(p - 1)] = np.where(moving[1:], 1.0 / np.where(sd[1:] > 0, sd[1:], 1.0), 1.0)
    a[0, 1:p] = -np.where(moving[1:], mean[1:] / np.where(sd[1:] > 0, sd[1:], 1.0), 0.0)
    return a


def _inverse(a):
    """The inverse of :func:`_standardiser`'s matrix, written out (its entries may span 600 decades)."""
    inv = np.eye(a.shape[0])
    p = a.shape[0] - 1
    sd = 1.0 / np.diag(a)[1:p]
    inv[1:p, 1:p][np.diag_indices(p - 1)] = sd
    inv[0, 1:p] = -a[0, 1:p] * sd
    return inv


def _guarded(evaluate):
    """``evaluate`` with overflow silenced; a non-finite log-likelihood reads as -inf (a refused point)."""
    def run(theta):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = evaluate(theta)
        return out if np.isfinite(out[0]) else (-np.inf,) + out[1:]
    return run


def _newton(evaluate, theta, max_iter, tol, max_log_scale_step=2.0):
    """Newton-Raphson with step-halving; a step never moves log s by more than ``max_log_scale_step``.

    When halving cannot raise the log-likelihood, the step is not kept: a trust-region
    Newton (scipy's ``trust-exact``, which copes with an indefinite information matrix)
    carries on from the last accepted point.
    """
    current = evaluate(theta)
    it = 0
    for it in range(1, max_iter + 1):
        ll, score, info = current[:3]
        step = _step(info, score)
        step = step * min(1.0, max_log_scale_step / max(abs(step[-1]), 1e-300))
        scale = 1.0
        trial = evaluate(theta + step)
        while not trial[0] >= ll - 1e-12 * abs(ll) and scale > 1e-9:
            scale /= 2
            trial = evaluate(theta + scale * step)
        if not trial[0] >= ll - 1e-12 * abs(ll):
            return _trust_region(evaluate, theta, current, it)
        new = theta + scale * step
        small = np.all(np.abs(new - theta) <= tol * np.maximum(1.0, np.abs(new)))
        gain = trial[0] - ll
        theta, current = new, trial
        if small or abs(gain) <= 1e-14 * max(1.0, abs(ll)):
            break
    return theta, current, it


def _trust_region(evaluate, theta, current, it):
    """Maximise from ``theta`` by scipy's exact trust-region Newton; keeps ``current`` if it does no better."""
    def fun(th):
        ll, score, info = evaluate(th)[:3]
        return (-ll, -score) if np.isfinite(ll) else (np.inf, np.zeros_like(th))

    res = optimize.minimize(fun, theta, jac=True, hess=lambda th: evaluate(th)[2], method="trust-exact",
                            options={"gtol": 1e-9, "maxiter": 500})
    if np.isfinite(res.fun) and -res.fun >= current[0]:
        return res.x, evaluate(res.x), it + res.nit
    return theta, current, it


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
    a = _standardiser(x)                                   # theta = a @ theta_std
    xs = x @ a[:-1, :-1] if a is not None else x
    theta = _start(xs, logt, observed, w)
    evaluate = _guarded(lambda th: _evaluate(law, xs, logt, observed, w, log_entry, th))
    theta, (ll, score, info, rows, eta), it = _newton(evaluate, theta, max_iter, tol)
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(info)) and np.isfinite(ll)):
        raise FitError(f"the {law} AFT fit did not converge (the log-likelihood is not finite near "
                       f"{np.round(theta, 4).tolist()}); rescale the covariates or use fewer of them")
    var = np.linalg.pinv(info)
    step = np.abs(var @ score)
    if a is not None:
        theta, var, step = a @ theta, a @ var @ a.T, np.abs(a @ (var @ score))
        rows = rows @ _inverse(a)
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
