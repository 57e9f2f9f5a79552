"""Base of every failure-time family: the :class:`Family` interface and the frozen law it builds.

Concrete families live in :mod:`relmodel.stats.lifetimes.classic` and
:mod:`relmodel.stats.lifetimes.gengamma`; :mod:`relmodel.stats.lifetimes.registry` holds the registry.
"""

import numpy as np
from scipy import special, stats

from . import mle
from ...errors import FitError

__all__ = ["Family", "Law"]

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
    """Base class.  Subclasses set ``name``, ``param_names``, ``positive``.

    The base class owns every kind of observation a fit can meet: exact
    failures, right-censored durations and left-truncated entries
    (:meth:`loglik`), failures known only to lie between two checks and
    left-censored ones (:meth:`interval_loglik`).  A subclass may override
    :meth:`loglik` with a faster exact form and :meth:`maximise` with its own
    engine, and may give an exact interval for its parameters
    (:meth:`exact_interval`).
    """

    name = ""
    param_names = ()
    positive = ()
    #: whether the generic engine should merge tied durations first (False for closed-form engines)
    compress = True

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
        """Log-likelihood of a :class:`relmodel.stats.lifetimes.mle.Sample` (slow, generic path)."""
        dist = self.dist(self.params(theta))
        obs = sample.obs
        vals = np.where(obs, 0.0, 0.0)
        vals[obs] = dist.logpdf(sample.t[obs])
        vals[~obs] = dist.logsf(sample.t[~obs])
        total = sample.total(vals)
        if sample.entry is not None:
            total -= sample.total(dist.logsf(sample.entry))
        return total

    def interval_loglik(self, theta, lower, upper):
        """Log-likelihood of failures in ``(lower, upper]`` hours: ``log(S(lower) - S(upper))``.

        ``lower == 0`` is a left-censored failure (``log F(upper)``).
        """
        if lower.size == 0:
            return 0.0
        law = self.law(self.params(theta))
        with np.errstate(all="ignore"):
            s_lo = np.where(lower > 0, law.logsf(np.maximum(lower, 1e-300)), 0.0)
            s_up = law.logsf(upper)
            return float(np.sum(s_lo + mle.log1mexp(s_up - s_lo)))

    def exact_interval(self, sample, failures, conf):
        """Exact confidence bounds ``{param: (lower, upper)}`` from exact failure times, or None.

        None (the default) keeps the Wald intervals of the observed information.
        """
        return None

    def maximise(self, sample):
        """Return ``(theta, loglik, hessian)`` at the maximum likelihood."""
        raise NotImplementedError


def _log_moments(sample):
    """Mean and standard deviation of ln t over failures (all rows if none)."""
    y, obs, w = sample.logt, sample.obs, sample.w
    if y.size > 50_000:  # start values only: a systematic subsample is plenty
        step = y.size // 20_000
        y, obs, w = y[::step], obs[::step], (None if w is None else w[::step])
    pick = obs if obs.any() else slice(None)
    y, w = y[pick], (None if w is None else w[pick])
    m = float(np.average(y, weights=w))
    sd = float(np.sqrt(np.average((y - m) ** 2, weights=w)))
    return m, max(sd, 1e-3)


