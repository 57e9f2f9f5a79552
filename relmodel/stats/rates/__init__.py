"""Rates: failure counts over exposure, fleet priors, shrinkage, comparisons, change points.

Belongs here: per-component rates with Poisson intervals, the rate table a
prior is built from, gamma fleet priors and posterior updates, empirical-Bayes
shrinkage of component rates, rate ratios between two sources, change points
in a rate over time, and the one-call fleet summary.  May import the data
layer (logs, count tables, fleets) and the base, plus numpy, pandas and scipy;
never another part of ``relmodel.stats``, never planning or presentation.
"""

from .rates import PER, component_rates, poisson_interval
from .rate_data import RateData, rate_data
from .priors import GammaPrior, PredictiveCounts, PriorWarning, RatePosterior, fleet_prior, update_rate
from .shrinkage import ComponentShrinkage, shrink_components
from .comparison import ComponentComparison, RateComparison, compare_rates
from .changepoint import RateChanges, rate_changes
from .fleet_summary import FleetSummary, fleet_summary

__all__ = ["PER", "component_rates", "poisson_interval", "RateData", "rate_data", "GammaPrior", "PredictiveCounts",
           "PriorWarning", "RatePosterior", "fleet_prior", "update_rate", "ComponentShrinkage",
           "shrink_components", "ComponentComparison", "RateComparison", "compare_rates", "RateChanges",
           "rate_changes", "FleetSummary", "fleet_summary"]
