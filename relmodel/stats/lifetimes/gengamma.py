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
from .base import Family

__all__ = ["GeneralizedGamma", "GenGammaLaw"]

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


def _stirling_tail(k):
    """``lnGamma(k) - ((k - 1/2) ln k - k + ln sqrt(2 pi))``, without cancellation for large ``k``."""
    if k < 20:
        return float(special.gammaln(k) - (k - 0.5) * np.log(k) + k - _LOG_SQRT_2PI)
    r = 1.0 / k
    r2 = r * r
    return r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))


def _expm1_minus(x):
    """``exp(x) - 1 - x``, accurate for small ``x`` (a Taylor series below |x| = 0.1)."""
    small = np.abs(x) < 0.1
    with np.errstate(over="ignore"):
        out = np.expm1(x) - x
    if np.any(small):
        xs = x[small]
        term, acc = xs * xs / 2, np.zeros_like(xs)
        for j in range(3, 13):
            acc += term
            term = term * xs / j
        out[small] = acc
    return out


def _log_density(y, w, lam, sigma):
    """``ln f`` at log-times ``y`` (``w`` standardised), stable as lambda -> 0.

    With ``x = lambda w`` the density's ``k ln k - lnGamma(k) + k x - k e^x``
    is rewritten as ``-ln|lambda| - ln sqrt(2 pi) - tail(k) - (e^x - 1 - x)/lambda^2``
    (``tail`` the Stirling remainder), which has no huge cancelling terms and
    tends to the log-normal density as lambda -> 0.
    """
    base = -np.log(sigma) - y - _LOG_SQRT_2PI
    if lam == 0:
        return base - 0.5 * w * w
    return base - _stirling_tail(1.0 / lam**2) - _expm1_minus(lam * w) / lam**2


def _log_surv(w, lam):
    """``ln S`` at standardised log-times ``w`` for ``lambda != 0`` (incomplete gamma)."""
    k = 1.0 / lam**2
    with np.errstate(over="ignore"):
        u = k * np.exp(lam * w)
    return mle.log_gammaincc(k, u) if lam > 0 else _log_gammainc(k, u)


def _terms(y, lam, mu, sigma, failed):
    """Per-row ``ln f`` (failed rows) or ``ln S`` (others) at log-times ``y``.

    For |lambda| below ``_SMALL`` the survival term is the quadratic in lambda
    through its values at ``-_SMALL``, 0 (the log-normal) and ``_SMALL``: the
    incomplete gamma function of shape ``1/lambda^2`` loses digits there, and
    the interpolation error (of order ``_SMALL^2 |lambda|``) is far below them.
    """
    w = (y - mu) / sigma
    out = np.empty_like(w)
    out[failed] = _log_density(y[failed], w[failed], lam, sigma)
    wc = w[~failed]
    if abs(lam) >= _SMALL:
        out[~failed] = _log_surv(wc, lam)
        return out
    s0 = special.log_ndtr(-wc)
    if lam == 0:
        out[~failed] = s0
        return out
    sp, sm = _log_surv(wc, _SMALL), _log_surv(wc, -_SMALL)
    slope, curve = (sp - sm) / (2 * _SMALL), (sp - 2 * s0 + sm) / (2 * _SMALL**2)
    out[~failed] = s0 + lam * (slope + lam * curve)
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

    #: The nested families a fit starts from (:meth:`nested_theta` maps their parameters).
    NESTED = ("weibull", "gamma", "lognormal")

    @staticmethod
    def nested_theta(name, p):
        """``(mu, ln sigma, lambda)`` of the generalized gamma equal to the ``name`` law with parameters ``p``."""
        if name == "weibull":
            return np.array([np.log(p["scale"]), -np.log(p["shape"]), 1.0])
        if name == "gamma":
            lam = 1 / np.sqrt(p["shape"])
            return np.array([np.log(p["scale"] * p["shape"]), np.log(lam), lam])
        return np.array([p["mu"], np.log(p["sigma"]), 0.01])

    def start(self, sample):
        """The best of the nested Weibull, gamma and log-normal fits, as a start."""
        best, theta0 = -np.inf, None
        for name, fam in (("weibull", Weibull()), ("gamma", Gamma()), ("lognormal", LogNormal())):
            try:
                p = fam.params(fam.maximise(sample)[0])
            except Exception:  # a nested fit that fails is simply not a start
                continue
            th = self.nested_theta(name, p)
            ll = self.loglik(sample, th)
            if ll > best:
                best, theta0 = ll, np.array(th)
        return theta0 if theta0 is not None else np.array([np.mean(sample.logt), 0.0, 1.0])

    def maximise(self, sample):
        """Newton climb, then the Hessian by Richardson-combined differences (``mle.richardson_hessian``)."""
        theta, ll, _ = mle.newton(lambda x: mle.numeric_derivs(lambda th: self.loglik(sample, th), x, h=1e-4),
                                  self.start(sample), tol=1e-7)
        return theta, ll, mle.richardson_hessian(lambda th: self.loglik(sample, th), theta)

