"""Failure-time families: parameter names, transforms, start values, likelihood.

Each family is a small class.  It names its parameters, maps them to and from
unconstrained coordinates ``theta`` (logs of positive parameters), gives
starting values, builds the matching frozen ``scipy.stats`` distribution and
says which engine of :mod:`relmodel.mle` maximises its likelihood.  All times
are hours.

==============  =====================  =======================================
family          parameters             survival function
==============  =====================  =======================================
exponential     scale (the mean)       exp(-t/scale)
weibull         shape k, scale l       exp(-(t/l)^k)
lognormal       mu, sigma (of ln t)    1 - Phi((ln t - mu)/sigma)
gamma           shape k, scale l       Q(k, t/l) (regularised upper gamma)
loglogistic     shape b, scale a       1/(1 + (t/a)^b)
==============  =====================  =======================================

The generalized gamma (``"gengamma"``: mu, sigma, lambda) lives in
:mod:`relmodel.gengamma` and registers itself here.

Parameter names map to lifelines as: WeibullFitter ``lambda_`` = scale,
``rho_`` = shape; LogNormalFitter ``mu_``, ``sigma_``; LogLogisticFitter
``alpha_`` = scale, ``beta_`` = shape; ExponentialFitter ``lambda_`` = scale.
"""

import numpy as np
from scipy import special, stats

from . import mle
from .errors import FitError

__all__ = ["Family", "Law", "FAMILIES", "get_family"]

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


class _Gumbel:
    """Standard minimum-extreme-value law: ln of a unit exponential (Weibull)."""

    @staticmethod
    def terms(z, obs):
        with np.errstate(over="ignore"):
            ez = np.exp(z)
        ob = obs.astype(float)
        return ob * z - ez, ob - ez, -ez


class _Normal:
    """Standard normal law (log-normal)."""

    @staticmethod
    def terms(z, obs):
        v = -0.5 * z * z - _LOG_SQRT_2PI
        g = -z
        g2 = -np.ones_like(z)
        cen = ~obs
        if cen.any():
            zc = z[cen]
            ls = special.log_ndtr(-zc)
            lam = np.exp(-0.5 * zc * zc - _LOG_SQRT_2PI - ls)  # inverse Mills ratio
            v[cen], g[cen], g2[cen] = ls, -lam, -lam * (lam - zc)
        return v, g, g2


class _Logistic:
    """Standard logistic law (log-logistic)."""

    @staticmethod
    def terms(z, obs):
        p = special.expit(z)
        sp = np.logaddexp(0.0, z)  # -log S0(z)
        q = p * (1 - p)
        ob = obs.astype(float)
        v = -sp + ob * (z - sp)
        g = ob * (1 - p) - p
        g2 = -q * (1 + ob)
        return v, g, g2


class Law:
    """A ``scipy.stats`` distribution with fixed parameters, without freezing it.

    Freezing builds docstrings and costs milliseconds, which dominates a
    bootstrap of small samples; this calls the unfrozen methods instead.
    """

    def __init__(self, rv, shapes, scale):
        self.rv, self.shapes, self.scale = rv, tuple(shapes), float(scale)

    def __getattr__(self, name):
        if name in ("sf", "cdf", "pdf", "ppf", "logpdf", "logsf", "mean", "median", "isf"):
            method = getattr(self.rv, name)
            return lambda *x: method(*x, *self.shapes, scale=self.scale)
        raise AttributeError(name)

    def rvs(self, size=None, random_state=None):
        return self.rv.rvs(*self.shapes, scale=self.scale, size=size, random_state=random_state)


class Family:
    """Base class.  Subclasses set ``name``, ``param_names``, ``positive``."""

    name = ""
    param_names = ()
    positive = ()

    @property
    def n_params(self):
        return len(self.param_names)

    def params(self, theta):
        """Natural parameters (dict) from unconstrained ``theta``."""
        return {
            p: float(np.exp(x) if pos else x)
            for p, x, pos in zip(self.param_names, theta, self.positive)
        }

    def theta(self, params):
        """Unconstrained ``theta`` from natural parameters."""
        return np.array([
            np.log(params[p]) if pos else float(params[p])
            for p, pos in zip(self.param_names, self.positive)
        ])

    rv = None  # the scipy.stats distribution

    def shapes_scale(self, params):
        """``(shape arguments, scale)`` of :attr:`rv` for these parameters."""
        raise NotImplementedError

    def dist(self, params):
        """The frozen ``scipy.stats`` distribution with these parameters."""
        shapes, scale = self.shapes_scale(params)
        return self.rv(*shapes, scale=scale)

    def law(self, params):
        """The same distribution unfrozen (:class:`Law`): far cheaper to build in loops."""
        shapes, scale = self.shapes_scale(params)
        return Law(self.rv, shapes, scale)

    def log_sd(self, params):
        """Standard deviation of ln T (how many e-folds of time the law spans)."""
        raise NotImplementedError

    def loglik(self, sample, theta):
        """Log-likelihood of a :class:`relmodel.mle.Sample` (slow, generic path)."""
        dist = self.dist(self.params(theta))
        obs = sample.obs
        vals = np.where(obs, 0.0, 0.0)
        vals[obs] = dist.logpdf(sample.t[obs])
        vals[~obs] = dist.logsf(sample.t[~obs])
        total = sample.total(vals)
        if sample.entry is not None:
            total -= sample.total(dist.logsf(sample.entry))
        return total

    def maximise(self, sample):
        """Return ``(theta, loglik, hessian)`` at the maximum likelihood."""
        raise NotImplementedError


def _log_moments(sample):
    """Mean and standard deviation of ln t over failures (all rows if none)."""
    pick = sample.obs if sample.obs.any() else slice(None)
    y = sample.logt[pick]
    w = None if sample.w is None else sample.w[pick]
    if y.size > 50_000:  # start values only: a systematic subsample is plenty
        step = y.size // 20_000
        y, w = y[::step], (None if w is None else w[::step])
    m = float(np.average(y, weights=w))
    sd = float(np.sqrt(np.average((y - m) ** 2, weights=w)))
    return m, max(sd, 1e-3)


class Exponential(Family):
    name = "exponential"
    param_names = ("scale",)
    positive = (True,)

    rv = stats.expon

    def log_sd(self, p):
        return np.pi / np.sqrt(6)

    def shapes_scale(self, p):
        return (), p["scale"]

    def maximise(self, sample):
        scale, ll, d, _ = mle.exponential_mle(sample)
        return np.array([np.log(scale)]), ll, np.array([[-d]])


class _LogLocationScale(Family):
    """ln T = m + s W: shared Newton solve with analytic derivatives."""

    base = None
    swap = False  # True when theta = (ln shape, ln scale) = (-ln s, m)

    def _to_ma(self, theta):
        return np.array([theta[1], -theta[0]]) if self.swap else np.asarray(theta, float)

    def _from_ma(self, ma, hess):
        if not self.swap:
            return ma, hess
        j = np.array([[0.0, -1.0], [1.0, 0.0]])  # d(m, a)/d(theta)
        return np.array([-ma[1], ma[0]]), j.T @ hess @ j

    def start(self, sample):
        m, sd = _log_moments(sample)
        return np.array([m, np.log(sd)])

    def loglik(self, sample, theta):
        return mle.aft_derivs(self.base, sample, self._to_ma(theta))[0]

    def maximise(self, sample):
        ma, ll, hess = mle.newton(lambda x: mle.aft_derivs(self.base, sample, x), self.start(sample))
        theta, hess = self._from_ma(ma, hess)
        return theta, ll, hess


class Weibull(_LogLocationScale):
    name = "weibull"
    param_names = ("shape", "scale")
    positive = (True, True)
    base = _Gumbel
    swap = True

    rv = stats.weibull_min

    def log_sd(self, p):
        return np.pi / (np.sqrt(6) * p["shape"])

    def shapes_scale(self, p):
        return (p["shape"],), p["scale"]

    def start(self, sample):
        m, sd = _log_moments(sample)
        k = float(np.clip(np.pi / (np.sqrt(6) * sd), 0.05, 20.0))
        return np.array([m, -np.log(k)])

    def maximise(self, sample):
        k0 = np.exp(-self.start(sample)[1])
        return mle.weibull_profile(sample, k0)


class LogNormal(_LogLocationScale):
    name = "lognormal"
    param_names = ("mu", "sigma")
    positive = (False, True)
    base = _Normal

    rv = stats.lognorm

    def log_sd(self, p):
        return p["sigma"]

    def shapes_scale(self, p):
        return (p["sigma"],), np.exp(p["mu"])


class LogLogistic(_LogLocationScale):
    name = "loglogistic"
    param_names = ("shape", "scale")
    positive = (True, True)
    base = _Logistic
    swap = True

    rv = stats.fisk

    def log_sd(self, p):
        return np.pi / (np.sqrt(3) * p["shape"])

    def shapes_scale(self, p):
        return (p["shape"],), p["scale"]

    def start(self, sample):
        m, sd = _log_moments(sample)
        return np.array([m, np.log(sd * np.sqrt(3) / np.pi)])


class Gamma(Family):
    name = "gamma"
    param_names = ("shape", "scale")
    positive = (True, True)

    rv = stats.gamma

    def log_sd(self, p):
        return float(np.sqrt(special.polygamma(1, p["shape"])))

    def shapes_scale(self, p):
        return (p["shape"],), p["scale"]

    def start(self, sample):
        t = sample.t[sample.obs] if sample.obs.any() else sample.t
        m, v = float(np.mean(t)), float(np.var(t))
        k = float(np.clip(m * m / v, 0.05, 50.0)) if v > 0 else 1.0
        return np.array([np.log(k), np.log(m / k)])

    def _parts(self, sample):
        """Sufficient sums of the failures, plus the censored and truncated rows."""
        obs = sample.obs
        tc = sample.t[~obs]
        wc = None if sample.w is None else sample.w[~obs]
        te, we = None, None
        if sample.entry is not None and np.any(sample.entry > 0):
            cut = sample.entry > 0
            te, we = sample.entry[cut], (None if sample.w is None else sample.w[cut])
        return (sample.d, sample.total(sample.logt, obs), sample.total(sample.t, obs), tc, wc, te, we)

    def loglik(self, sample, theta):
        return mle.gamma_derivs(self._parts(sample), theta)[0]

    def maximise(self, sample):
        parts = self._parts(sample)
        return mle.newton(lambda x: mle.gamma_derivs(parts, x), self.start(sample))


FAMILIES = {f.name: f for f in (Exponential(), Weibull(), LogNormal(), Gamma(), LogLogistic())}
_ALIASES = {"exp": "exponential", "lognorm": "lognormal", "log-normal": "lognormal",
            "log-logistic": "loglogistic", "fisk": "loglogistic", "weibull_min": "weibull",
            "generalized gamma": "gengamma", "generalizedgamma": "gengamma", "generalized_gamma": "gengamma"}


def get_family(name):
    """The :class:`Family` called ``name``; raises :class:`FitError` if unknown."""
    if isinstance(name, Family):
        return name
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FAMILIES:
        raise FitError(f"unknown family {name!r}; valid families are " + ", ".join(FAMILIES))
    return FAMILIES[key]


from . import gengamma  # noqa: E402,F401  (registers "gengamma")
