"""Weibayes: a Weibull scale from few (or no) failures, with the shape known beforehand.

With the shape beta fixed (from engineering knowledge, or from a fleet of
similar parts), ``u_i = t_i^beta - e_i^beta`` are exponential exposures with
mean ``theta = eta^beta``, so everything known about the exponential applies
exactly (Nelson, "Weibull analysis of reliability data with few or no
failures", J. Quality Technology 17(3), 1985; Abernethy, *The New Weibull
Handbook*, 5th ed., 2006, chapter 6):

* the MLE ``eta = (sum u_i / r)^(1/beta)`` with r failures;
* the exact (time-terminated) interval ``2U/chi2(1 - a/2; 2r + 2) <= theta <=
  2U/chi2(a/2; 2r)``, and with r = 0 the one-sided lower bound
  ``2U/chi2(conf; 2)``;
* intervals on ``eta`` and on every B-life follow by the monotone map
  ``t_q = eta (-ln(1 - q))^(1/beta)``.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import FitError
from .fitting import prepare
from ...tables import Result, html_table
from relmodel.base.escape import html_text

__all__ = ["weibayes", "WeibayesResult"]


@dataclass(frozen=True, eq=False)
class WeibayesResult(Result):
    """Weibayes scale (hours) with its exact interval; ``upper`` is inf when no unit failed."""

    shape: float
    scale: float
    lower: float
    upper: float
    n: int
    n_failures: int
    exposure: float
    conf: float

    def b_life(self, q=0.10):
        """``(estimate, lower, upper)`` of the time by which a fraction ``q`` has failed."""
        f = (-np.log1p(-q)) ** (1 / self.shape)
        return self.scale * f, self.lower * f, self.upper * f

    def text(self):
        """The estimate in one sentence."""
        pct = f"{100 * self.conf:g}%"
        if self.n_failures == 0:
            return (f"No failures in {self.n:,} units: with shape {self.shape:g}, the characteristic life is at "
                    f"least {self.lower:,.0f} h ({pct} one-sided)")
        return (f"{self.n_failures} failure(s) in {self.n:,} units: with shape {self.shape:g}, characteristic life "
                f"{self.scale:,.0f} h ({pct} interval {self.lower:,.0f} to {self.upper:,.0f} h)")

    def to_frame(self):
        b10 = self.b_life(0.10)
        return pd.DataFrame({"quantity": ["characteristic life (h)", "B10 life (h)"],
                             "estimate": [self.scale, b10[0]], "lower": [self.lower, b10[1]],
                             "upper": [self.upper, b10[2]]})

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.to_frame(), index=False)


def weibayes(source, shape, *, observed=None, entry=None, conf=0.95):
    """Weibayes estimate of the Weibull scale with the shape fixed.

    ``source``: durations (hours) of every unit, failed or still running, with
    ``observed`` (False = still running) and optional ``entry`` times, as for
    :func:`relmodel.fit`.  ``shape``: the Weibull shape, a number or a Weibull
    :class:`~relmodel.stats.lifetimes.fitting.FitResult` of a similar fleet (its shape is
    used).  With no failure the scale is a one-sided lower bound: ``scale``
    is then that bound and ``upper`` is infinite.

    Examples
    --------
    >>> w = weibayes([100.0, 250.0, 400.0], 2.0, observed=[1, 0, 0])   # one failure in three units, hours
    >>> round(w.scale, 1), round((100**2 + 250**2 + 400**2) ** 0.5, 1)  # (sum t^k / r)^(1/k)
    (482.2, 482.2)
    >>> round(float(w.lower), 1), round(float(w.upper), 1)
    (204.3, 3030.4)
    >>> w0 = weibayes([100.0, 250.0, 400.0], 1.5, observed=[0, 0, 0])  # no failure yet
    >>> round(float(w0.scale), 1), w0.upper
    (265.4, inf)
    """
    if hasattr(shape, "params"):
        if getattr(shape, "family", None) != "weibull":
            raise FitError(f"shape must come from a Weibull fit, not a {shape.family!r} one")
        shape = shape.params["shape"]
    shape = float(shape)
    if not np.isfinite(shape) or shape <= 0:
        raise FitError(f"shape must be a positive number, got {shape!r}")
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1, got {conf!r}")
    s = prepare(source, observed, entry)
    u = float(np.sum(s.t**shape) - (0.0 if s.entry is None else np.sum(s.entry**shape)))
    r = int(s.obs.sum())
    a = 1 - conf
    if r == 0:
        lower = (2 * u / stats.chi2.ppf(conf, 2)) ** (1 / shape)
        return WeibayesResult(shape, lower, lower, np.inf, s.t.size, 0, u, conf)
    theta = u / r
    lo = 2 * u / stats.chi2.ppf(1 - a / 2, 2 * r + 2)
    hi = 2 * u / stats.chi2.ppf(a / 2, 2 * r)
    return WeibayesResult(shape, theta ** (1 / shape), lo ** (1 / shape), hi ** (1 / shape), s.t.size, r, u, conf)
