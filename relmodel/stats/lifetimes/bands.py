"""Confidence bands on fitted curves, B-lives, and profile-likelihood parameter intervals.

* :func:`curve_band` - pointwise bands on a fitted survival, cumulative
  hazard or hazard curve (delta method on the covariance of the fit; the
  survival band is built on ln H = ln(-ln S) and the hazard band on ln h, so
  they stay inside their ranges; Meeker and Escobar, *Statistical Methods for
  Reliability Data*, 1998, section 8.4).
* :func:`b_life` - the time by which a fraction ``q`` has failed (B10 life for
  q = 0.10) with its interval (delta method on ln t_q).
* :func:`profile_intervals` - likelihood-ratio intervals for each parameter:
  the values where the profile log-likelihood falls chi2(1, conf)/2 below its
  maximum (Meeker and Escobar section 8.2).  They are better than Wald
  intervals in small samples.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import FitError
from ...units import hours
from .registry import get_family
from .fitting import fit_sample, prepare
from .profile import profile_table
from ...tables import Result, html_table
from relmodel.base.escape import html_text

__all__ = ["curve_band", "Band", "b_life", "profile_intervals"]

_CURVES = ("survival", "cumulative hazard", "hazard")


@dataclass(frozen=True, eq=False)
class Band(Result):
    """A fitted curve at ``hours`` with a pointwise band at level ``conf``."""

    quantity: str
    hours: np.ndarray
    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    conf: float
    family: str

    def to_frame(self):
        pct = f"{100 * self.conf:g}%"
        return pd.DataFrame({"hours": self.hours, self.quantity: self.estimate, f"{pct} lower": self.lower,
                             f"{pct} upper": self.upper})

    def text(self):
        return f"{self.family} {self.quantity} with {100 * self.conf:g}% band."

    def _repr_html_(self):
        return (f"<p>{html_text(self.family)} {html_text(self.quantity)} with {100 * self.conf:g}% band</p>"
                + html_table(self.to_frame().head(15), index=False, float_format="{:.4g}".format))


def _curve(fam, params, quantity, t):
    law = fam.law(params)
    with np.errstate(all="ignore"):
        if quantity == "survival":
            return np.log(-law.logsf(t))  # ln H, transformed back below
        if quantity == "cumulative hazard":
            return np.log(-law.logsf(t))
        return law.logpdf(t) - law.logsf(t)  # ln h


def _grad(f, fam, params, names):
    """Gradient of ``f(params)`` over the natural parameters (central differences, relative steps)."""
    out = []
    for name in names:
        step = 1e-6 * max(abs(params[name]), 1e-3)
        up, dn = dict(params), dict(params)
        up[name] += step
        dn[name] -= step
        out.append((f(up) - f(dn)) / (2 * step))
    return np.array(out)


def _check_fit(result):
    if result.cov is None or not np.all(np.isfinite(result.cov)):
        raise FitError("the fit has no covariance (singular information): no band can be drawn")


def curve_band(result, t, *, quantity="survival", conf=None):
    """Pointwise band on a fitted curve at times ``t`` (hours or duration strings).

    ``result`` is a :class:`~relmodel.stats.lifetimes.fitting.FitResult`; ``quantity``
    is ``"survival"``, ``"cumulative hazard"`` or ``"hazard"``; ``conf``
    defaults to the fit's level.  Returns a :class:`Band`.

    Examples
    --------
    >>> from relmodel.stats.lifetimes.fitting import fit
    >>> r = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])   # hours
    >>> b = curve_band(r, [10, "1d"])
    >>> b.hours.tolist(), b.estimate.round(3).tolist()    # survival probability at 10 h and 24 h
    ([10.0, 24.0], [0.832, 0.534])
    >>> b.lower.round(3).tolist(), b.upper.round(3).tolist()
    ([0.405, 0.188], [0.963, 0.79])
    """
    if quantity not in _CURVES:
        raise FitError(f"quantity must be one of {', '.join(_CURVES)}, got {quantity!r}")
    _check_fit(result)
    conf = result.conf if conf is None else conf
    fam = get_family(result.family)
    t = np.atleast_1d(np.asarray(hours(t), float))
    names = list(fam.param_names)
    g = _grad(lambda p: _curve(fam, p, quantity, t), fam, result.params, names)  # params x times
    est = _curve(fam, result.params, quantity, t)
    se = np.sqrt(np.maximum(np.einsum("it,ij,jt->t", g, result.cov, g), 0.0))
    z = stats.norm.ppf(0.5 + conf / 2)
    lo, hi = est - z * se, est + z * se
    if quantity == "survival":  # ln H up means S down
        est, lo, hi = np.exp(-np.exp(est)), np.exp(-np.exp(hi)), np.exp(-np.exp(lo))
    else:
        est, lo, hi = np.exp(est), np.exp(lo), np.exp(hi)
    return Band(quantity, t, est, lo, hi, conf, result.family)


def b_life(result, q=0.10, *, conf=None):
    """``(estimate, lower, upper)`` of the time by which a fraction ``q`` has failed (B10 life: q = 0.1).

    ``result`` is a :class:`~relmodel.stats.lifetimes.fitting.FitResult`; the three
    times are in hours; ``q`` is a fraction in (0, 1); ``conf`` defaults to
    the fit's level.

    Examples
    --------
    >>> from relmodel.stats.lifetimes.fitting import fit
    >>> r = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])   # hours
    >>> [round(float(x), 2) for x in b_life(r, 0.1)]       # B10 life and its 95% bounds, hours
    [6.73, 1.69, 26.83]
    """
    if not 0 < q < 1:
        raise FitError(f"q must be a fraction between 0 and 1 (0.1 for the B10 life), got {q!r}")
    _check_fit(result)
    conf = result.conf if conf is None else conf
    fam = get_family(result.family)
    f = lambda p: np.log(float(fam.law(p).ppf(q)))  # noqa: E731
    g = _grad(f, fam, result.params, list(fam.param_names))
    est, se = f(result.params), float(np.sqrt(max(g @ result.cov @ g, 0.0)))
    z = stats.norm.ppf(0.5 + conf / 2)
    return float(np.exp(est)), float(np.exp(est - z * se)), float(np.exp(est + z * se))


def profile_intervals(source, family, *, observed=None, entry=None, conf=0.95):
    """Likelihood-ratio (profile) intervals for each parameter of a fit.

    Same inputs as :func:`relmodel.fit` (durations in hours).  Returns a DataFrame ``param,
    estimate, lower, upper, wald_lower, wald_upper`` (natural parameters; the
    scale in hours).  An unbounded side is reported as 0 (positive parameters)
    or infinity.

    Examples
    --------
    >>> p = profile_intervals([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])
    >>> print(p.round(3).to_string(index=False))   # profile bounds are asymmetric, unlike Wald's
    param  estimate  lower  upper  wald_lower  wald_upper
    shape     1.404  0.589  2.638       0.681       2.894
    scale    33.453 15.927 82.290      17.838      62.738
    """
    sample = prepare(source, observed, entry)
    return profile_table(sample, fit_sample(sample, family, conf=conf))
