"""Statistics layer: rates with intervals, censored fits, comparisons and tests.

Belongs here: failure-time families and their likelihood, ``fit`` and
``compare_fits``, Kaplan-Meier and friends, trend tests, recurrence,
component rates, fleet priors, rate comparisons and change points, regression
on covariates, group comparisons, interval censoring, bands and Weibayes.  May
import the data layer and the base, plus numpy, pandas, scipy and lifelines;
never planning or presentation, never matplotlib or papermill.
"""

from .compare import Comparison, compare_fits
from .fitting import FitResult, FitWarning
from .nonparam import cumulative_incidence, kaplan_meier, nelson_aalen
from .rates import component_rates, poisson_interval
from .recurrence import mcf
from .regression import RegressionResult, regress
from .interval import fit, uptime_intervals
from .turnbull import TurnbullEstimate, turnbull
from .bands import b_life, curve_band, profile_intervals
from .weibayes import WeibayesResult, weibayes
from .groups import GroupComparison, compare_groups, compare_mcf, gray_test
from .recurrent_regression import andersen_gill, counting_process
from .trends import crow_amsaa, laplace_test, lewis_robinson_test, mil_hdbk_189_test, power_law_gof, trend
from .priors import GammaPrior, PriorWarning, RateData, RatePosterior, fleet_prior, update_rate
from .shrinkage import ComponentShrinkage, shrink_components
from .rate_compare import ComponentComparison, RateComparison, compare_rates
from .changepoint import RateChanges, rate_changes
from .fleet_summary import FleetSummary, fleet_summary

__all__ = ["Comparison", "compare_fits", "FitResult", "FitWarning", "fit", "cumulative_incidence", "kaplan_meier",
           "nelson_aalen", "component_rates", "poisson_interval", "mcf", "crow_amsaa", "laplace_test",
           "lewis_robinson_test", "mil_hdbk_189_test", "power_law_gof", "trend",
           "GammaPrior", "PriorWarning", "RateData", "RatePosterior", "fleet_prior", "update_rate",
           "ComponentShrinkage", "shrink_components", "ComponentComparison", "RateComparison", "compare_rates",
           "RateChanges", "rate_changes", "FleetSummary", "fleet_summary",
           "RegressionResult", "regress", "andersen_gill", "counting_process",
           "GroupComparison", "compare_groups", "compare_mcf", "gray_test",
           "uptime_intervals", "TurnbullEstimate", "turnbull",
           "b_life", "curve_band", "profile_intervals", "WeibayesResult", "weibayes"]
