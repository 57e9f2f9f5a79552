"""Lifetimes: failure-time families, their likelihood, one ``fit``, comparison and bands.

Belongs here: the family base class (which owns every censoring kind: exact,
right-censored, left-truncated, left- and interval-censored), the concrete
families in their registry (exponential, Weibull, lognormal, gamma,
log-logistic, generalised gamma), the maximum likelihood engines, the one
``fit`` and its result, profile-likelihood intervals, ranking fits (AIC, KS),
confidence bands and B-lives, and Weibayes.  May import
the data layer (durations) and the base (errors, units, tables), plus numpy,
pandas and scipy; never another part of ``relmodel.stats``, never planning or
presentation.
"""

from .base import Family, Law
from .registry import FAMILIES, get_family
from .result import FitResult, FitWarning
from .fitting import MIN_FAILURES, fit
from .interval import uptime_intervals
from .ranking import Comparison, compare_fits
from .bands import Band, b_life, curve_band, profile_intervals
from .weibayes import WeibayesResult, weibayes

__all__ = ["Family", "Law", "FAMILIES", "get_family", "MIN_FAILURES", "FitResult", "FitWarning",
           "fit", "uptime_intervals", "Comparison", "compare_fits",
           "Band", "b_life", "curve_band", "profile_intervals", "WeibayesResult", "weibayes"]
