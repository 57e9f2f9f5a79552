"""The classic failure-time families: exponential, Weibull, lognormal, gamma, log-logistic."""

import numpy as np
from scipy import special, stats

from . import mle
from ...errors import FitError
from .weibull_large import weibull_large
from .base import Family, _Gumbel, _Logistic, _Normal, _log_moments

__all__ = ["Exponential", "Weibull", "LogNormal", "Gamma", "LogLogistic"]


class Exponential(Family):
    name = "exponential"
    param_names = ("scale",)
    positive = (True,)
    compress = False

    rv = stats.expon

    def log_sd(self, p):
        return np.pi / np.sqrt(6)

    def shapes_scale(self, p):
        return (), p["scale"]

    def maximise(self, sample):
        scale, ll, d, _ = mle.exponential_mle(sample)
        return np.array([np.log(scale)]), ll, np.array([[-d]])

    def exact_interval(self, sample, failures, conf):
        """Chi-square interval for the mean (time-terminated test; Epstein 1960)."""
        exposure = sample.exposure
        a = 1 - conf
        # chi2.ppf(p, 2 v) is 2 gammaincinv(v, p): the same numbers without scipy's per-call checks
        return {"scale": (exposure / special.gammaincinv(failures + 1, 1 - a / 2),
                          exposure / special.gammaincinv(failures, a / 2))}


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
    compress = False
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
        large = weibull_large(sample)
        if large is not None:
            return large
        k0 = np.exp(-self.start(sample)[1])
        return mle.weibull_profile(sample, k0)


class LogNormal(_LogLocationScale):
    name = "lognormal"
    param_names = ("mu", "sigma")
    positive = (False, True)
    compress = False  # merged here, and only for the Newton solve (the closed form needs no merging)
    base = _Normal

    rv = stats.lognorm

    def log_sd(self, p):
        return p["sigma"]

    def shapes_scale(self, p):
        return (p["sigma"],), np.exp(p["mu"])

    def maximise(self, sample):
        if sample.entry is None and sample.obs.all():
            return _lognormal_exact(sample)
        return super().maximise(sample.compressed() or sample)


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


def _lognormal_exact(sample):
    """Log-normal MLE of exact (uncensored, untruncated) durations in closed form.

    ``mu`` and ``sigma^2`` are the mean and the (divide-by-n) variance of
    ``ln t``; at the maximum the information in ``(mu, ln sigma)`` is
    ``diag(n / sigma^2, 2 n)`` (the cross term is the sum of the residuals, zero).
    """
    n, s_y, ss = _log_sums(sample)
    if not ss > 0:
        raise FitError("every failure time is the same: the log-normal spread is zero")
    mu = s_y / n
    a = 0.5 * np.log(ss / n)
    ll = -n * a - n / 2 - n / 2 * np.log(2 * np.pi) - s_y
    return np.array([mu, a]), float(ll), np.array([[-n / np.exp(2 * a), 0.0], [0.0, -2 * n]])


def _log_sums(sample, block=8192):
    """``(n, sum ln t, sum (ln t - mean)^2)``, weighted, in one pass of cache-sized blocks.

    The sums are taken about the mean ``c`` of ``ln t`` on a subsample, so the
    squares lose nothing to cancellation; ``ln t`` is taken per block unless
    the sample holds it already.  Blocks stay below the 10,000 rows from which
    OpenBLAS spreads a dot product over threads.
    """
    logt, t, w = sample.__dict__.get("logt"), sample.t, sample.w
    n = float(t.size if w is None else w.sum())
    c = float(np.mean(np.log(t[::max(1, t.size // 1000)])))
    size = min(block, t.size)
    buf = np.empty(size)
    s1 = s2 = 0.0
    for start in range(0, t.size, size):
        r = buf[:min(size, t.size - start)]
        if logt is None:
            np.log(t[start:start + size], out=r)
            np.subtract(r, c, out=r)
        else:
            np.subtract(logt[start:start + size], c, out=r)
        if w is None:
            s1 += float(r.sum())
            s2 += float(np.dot(r, r))
        else:
            wb = w[start:start + size]
            s1 += float(np.dot(wb, r))
            s2 += float(np.einsum("i,i,i->", wb, r, r))
    m = s1 / n
    return n, s1 + n * c, s2 - n * m * m
