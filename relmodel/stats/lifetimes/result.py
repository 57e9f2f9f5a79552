"""The result of a failure-time fit: :class:`FitResult`, and the :class:`FitWarning` a fit may give."""

from relmodel.base.escape import html_text
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .registry import get_family
from ...units import hours
from ...tables import Result, count, duration, html_table, interval, number

__all__ = ["FitResult", "FitWarning"]


class FitWarning(UserWarning):
    """A fit was made, but the data limit what it can say (read the message)."""


@dataclass(frozen=True, eq=False)
class FitResult(Result):
    """A fitted failure-time distribution (all times in hours).

    ``ci`` has one row per parameter: ``param, estimate, lower, upper, se``.
    Intervals for positive parameters are computed on the log scale (so they
    stay positive); ``mu`` of the log-normal gets a symmetric interval; the
    exponential's interval is the chi-square one.  ``cov`` is the covariance of
    the natural parameters (inverse observed information, delta method).
    """

    family: str
    params: dict
    ci: pd.DataFrame
    loglik: float
    aic: float
    bic: float
    n: int
    n_observed: int
    mean_h: float
    median_h: float
    conf: float = 0.95
    cov: np.ndarray = field(default=None, repr=False)
    requested: str = None
    note: str = ""

    @cached_property
    def dist(self):
        """The frozen ``scipy.stats`` distribution."""
        return get_family(self.family).dist(self.params)

    def sf(self, t):
        """Survival function S(t) = P(T > t)."""
        return self.dist.sf(hours(t))

    def cdf(self, t):
        """Cumulative distribution F(t) = P(T <= t)."""
        return self.dist.cdf(hours(t))

    def pdf(self, t):
        """Probability density f(t), per hour."""
        return self.dist.pdf(hours(t))

    def hazard(self, t):
        """Hazard rate h(t) = f(t)/S(t), failures per hour."""
        t = hours(t)
        d = self.dist
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.exp(d.logpdf(t) - d.logsf(t))

    def cumhazard(self, t):
        """Cumulative hazard H(t) = -ln S(t)."""
        return -self.dist.logsf(hours(t))

    def ppf(self, q):
        """Quantile function: the time by which a fraction ``q`` has failed."""
        return self.dist.ppf(q)

    def sample(self, n, rng=None):
        """``n`` random durations (hours) from the fitted distribution."""
        return self.dist.rvs(size=n, random_state=np.random.default_rng(rng))

    def to_frame(self):
        """The parameter table, with a leading ``family`` column."""
        out = self.ci.copy()
        out.insert(0, "family", self.family)
        return out

    def table(self):
        """The parameters for people: estimate and interval in words, the scale in hours."""
        t = self.ci
        level = f"{self.conf:.0%} interval"
        return pd.DataFrame({"parameter": t["param"], "estimate": [number(v) for v in t["estimate"]],
                             level: [interval(lo, hi) for lo, hi in zip(t["lower"], t["upper"])]})

    def text(self):
        """The fit in one sentence: family, data, parameters with intervals, median."""
        level = f"{self.conf:.0%}"
        unit = {"scale": " h"}  # the other parameters are shapes or on the log scale
        parts = [f"{name} {number(row.estimate)}{unit.get(name, '')} "
                 f"({level} interval {interval(row.lower, row.upper)}{unit.get(name, '')})"
                 for name, row in zip(self.ci["param"], self.ci.itertuples())]
        head = (f"{self.family.capitalize()} fit to {count(self.n)} durations ({count(self.n_observed)} failures): "
                + ", ".join(parts) + f"; median life {duration(self.median_h)}.")
        return head + (f" {self.note[0].upper()}{self.note[1:]}." if self.note else "")

    def summary(self):
        """Headline numbers as a Series."""
        keys = ("family", "n", "n_observed", "loglik", "aic", "bic", "mean_h", "median_h")
        return pd.Series({k: getattr(self, k) for k in keys})

    def _repr_html_(self):
        head = (f"<b>{html_text(self.family)} fit</b>: n = {self.n}, failures = {self.n_observed}, "
                f"log-likelihood = {self.loglik:.4f}, AIC = {self.aic:.2f}, "
                f"mean = {self.mean_h:.4g} h, median = {self.median_h:.4g} h")
        note = f"<br><i>{html_text(self.note)}</i>" if self.note else ""
        return head + note + html_table(self.ci, index=False, float_format=lambda x: f"{x:.6g}")

    def __repr__(self):
        ps = ", ".join(f"{k}={v:.6g}" for k, v in self.params.items())
        return f"FitResult({self.family}: {ps}; n={self.n}, failures={self.n_observed}, loglik={self.loglik:.4f})"
