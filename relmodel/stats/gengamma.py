"""The generalized gamma family (Prentice 1974 parameterisation), ``"gengamma"``.

With ``w = (ln t - mu)/sigma``, ``k = 1/lambda^2`` and ``u = k exp(lambda w)``
(Prentice, "A log gamma model and its maximum likelihood estimation",
Biometrika 61, 1974; the parameterisation of lifelines'
``GeneralizedGammaFitter``, whose ``mu_``, ``sigma_``, ``lambda_`` these are):

* ``S(t) = Q(k, u)`` for lambda > 0 and ``P(k, u)`` for lambda < 0 (regularised
  upper / lower incomplete gamma), the log-normal in the limit lambda -> 0;
* ``ln f(t) = ln|lambda| - ln sigma - ln t - lnGamma(k) + k ln k + k lambda w - u``.

lambda = 1 is the Weibull (shape 1/sigma), lambda = sigma the gamma (shape
1/sigma^2), lambda = 0 the log-normal: the fit starts from the best of those
three and climbs with Newton steps on ``(mu, ln sigma, lambda)``, so its
log-likelihood is never below theirs.  Not part of the default comparison.
"""

import numpy as np
from scipy import special

from . import mle
from .classic import Gamma, LogNormal, Weibull
from .family import Family

__all__ = ["GeneralizedGamma"]

_SMALL = 1e-4  # |lambda| below this uses the log-normal limit
_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def _log_gammainc(a, x):
    """``log P(a, x)`` with a series tail for tiny values."""
    p = special.gammainc(a, x)
    with np.errstate(divide="ignore"):
        out = np.log(p)
    small = p < 1e-280
    if np.any(small):
        xs = x[small]
        out[small] = a * np.log(xs) - xs - special.gammaln(a + 1)
    return out


def _terms(y, lam, mu, sigma, failed):
    """Per-row ``ln f`` (failed rows) or ``ln S`` (others) at log-times ``y``."""
    w = (y - mu) / sigma
    out = np.empty_like(w)
    if abs(lam) < _SMALL:
        out[failed] = -0.5 * w[failed] ** 2 - _LOG_SQRT_2PI - np.log(sigma) - y[failed]
        out[~failed] = special.log_ndtr(-w[~failed])
        return out
    k = 1.0 / lam**2
    with np.errstate(over="ignore"):
        u = k * np.exp(lam * w)
    wf = w[failed]
    out[failed] = (np.log(abs(lam)) - np.log(sigma) - y[failed] - special.gammaln(k) + k * np.log(k)
                   + k * lam * wf - u[failed])
    uc = u[~failed]
    out[~failed] = mle.log_gammaincc(k, uc) if lam > 0 else _log_gammainc(k, uc)
    return out


class GenGammaLaw:
    """sf, cdf, pdf, ppf, mean, median and random draws of a generalized gamma.

    Written on the incomplete gamma functions directly: ``scipy.stats.gengamma``
    loses accuracy for the huge shape ``1/lambda^2`` that small lambda gives.
    """

    def __init__(self, mu, sigma, lam):
        self.mu, self.sigma, self.lam = float(mu), float(sigma), float(lam)
        self.normal = abs(self.lam) < _SMALL
        self.k = None if self.normal else 1.0 / self.lam**2

    def logsf(self, t):
        t = np.asarray(t, float)
        y = np.log(np.maximum(t, 1e-300))
        return _terms(np.atleast_1d(y), self.lam, self.mu, self.sigma, np.zeros(y.size, bool)).reshape(t.shape)

    def logpdf(self, t):
        t = np.asarray(t, float)
        y = np.log(np.maximum(t, 1e-300))
        return _terms(np.atleast_1d(y), self.lam, self.mu, self.sigma, np.ones(y.size, bool)).reshape(t.shape)

    def sf(self, t):
        return np.exp(self.logsf(t))

    def cdf(self, t):
        return -np.expm1(self.logsf(t))

    def pdf(self, t):
        return np.exp(self.logpdf(t))

    def ppf(self, q):
        q = np.asarray(q, float)
        if self.normal:
            return np.exp(self.mu + self.sigma * special.ndtri(q))
        p = q if self.lam > 0 else 1 - q
        u = special.gammaincinv(self.k, p)
        with np.errstate(divide="ignore", over="ignore"):
            return np.exp(self.mu + self.sigma / self.lam * np.log(u / self.k))

    def median(self):
        return float(self.ppf(0.5))

    def mean(self):
        if self.normal:
            return float(np.exp(self.mu + self.sigma**2 / 2))
        s = self.sigma / self.lam
        if self.k + s <= 0:
            return np.inf
        with np.errstate(over="ignore"):
            return float(np.exp(self.mu - s * np.log(self.k) + special.gammaln(self.k + s) - special.gammaln(self.k)))

    def rvs(self, size=None, random_state=None):
        rng = np.random.default_rng(random_state)
        if self.normal:
            return np.exp(self.mu + self.sigma * rng.standard_normal(size))
        return np.exp(self.mu + self.sigma / self.lam * np.log(rng.gamma(self.k, size=size) / self.k))


class GeneralizedGamma(Family):
    name = "gengamma"
    param_names = ("mu", "sigma", "lambda")
    positive = (False, True, False)

    def dist(self, p):
        return GenGammaLaw(p["mu"], p["sigma"], p["lambda"])

    law = dist

    def log_sd(self, p):
        lam = max(abs(p["lambda"]), _SMALL)
        return p["sigma"] / lam * float(np.sqrt(special.polygamma(1, 1.0 / lam**2)))

    def loglik(self, sample, theta):
        mu, sigma, lam = float(theta[0]), float(np.exp(theta[1])), float(theta[2])
        total = sample.total(_terms(sample.logt, lam, mu, sigma, sample.obs))
        if sample.entry is not None:
            cut = sample.entry > 0
            if cut.any():
                y = np.log(sample.entry[cut])
                w = None if sample.w is None else sample.w[cut]
                s = _terms(y, lam, mu, sigma, np.zeros(y.size, bool))
                total -= float(s.sum() if w is None else w @ s)
        return total if np.isfinite(total) else -np.inf

    def start(self, sample):
        """The best of the nested Weibull, gamma and log-normal fits, as a start."""
        best, theta0 = -np.inf, None
        for name, fam in (("weibull", Weibull()), ("gamma", Gamma()), ("lognormal", LogNormal())):
            try:
                p = fam.params(fam.maximise(sample)[0])
            except Exception:  # a nested fit that fails is simply not a start
                continue
            if name == "weibull":
                th = [np.log(p["scale"]), -np.log(p["shape"]), 1.0]
            elif name == "gamma":
                lam = 1 / np.sqrt(p["shape"])
                th = [np.log(p["scale"] * p["shape"]), np.log(lam), lam]
            else:
                th = [p["mu"], np.log(p["sigma"]), 0.01]
            ll = self.loglik(sample, np.array(th))
            if ll > best:
                best, theta0 = ll, np.array(th)
        return theta0 if theta0 is not None else np.array([np.mean(sample.logt), 0.0, 1.0])

    def maximise(self, sample):
        return mle.newton(lambda x: mle.numeric_derivs(lambda th: self.loglik(sample, th), x, h=1e-4),
                          self.start(sample), tol=1e-7)

