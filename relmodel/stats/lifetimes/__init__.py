"""Lifetimes: failure-time families, their likelihood, one ``fit``, comparison and bands.

Belongs here: the family base class and the concrete families (exponential,
Weibull, lognormal, gamma, log-logistic, generalised gamma), the maximum
likelihood engines, fitting right-, left- and interval-censored durations,
ranking fits (AIC, KS), confidence bands and B-lives, and Weibayes.  May import
the data layer (durations) and the base (errors, units, tables), plus numpy,
pandas and scipy; never another part of ``relmodel.stats``, never planning or
presentation.
"""

from .family import Family, Law
from .families import FAMILIES, get_family
from .fitting import MIN_FAILURES, FitResult, FitWarning
from .interval import fit, fit_interval, uptime_intervals
from .compare import Comparison, compare_fits
from .bands import Band, b_life, curve_band, profile_intervals
from .weibayes import WeibayesResult, weibayes

__all__ = ["Family", "Law", "FAMILIES", "get_family", "MIN_FAILURES", "FitResult", "FitWarning",
           "fit", "fit_interval", "uptime_intervals", "Comparison", "compare_fits",
           "Band", "b_life", "curve_band", "profile_intervals", "WeibayesResult", "weibayes"]
