"""Statistics layer: rates with intervals, censored fits, comparisons and tests.

Cut by concept, one subpackage each (each ``__init__`` says what it may import):

* :mod:`~relmodel.stats.lifetimes`: failure-time families, likelihood, one
  ``fit`` (right-, left- and interval-censored), comparison, bands, Weibayes;
* :mod:`~relmodel.stats.regression`: covariates, proportional hazards and AFT
  models, Andersen-Gill for recurrent failures;
* :mod:`~relmodel.stats.survival`: Kaplan-Meier and friends, Turnbull, group
  tests, the mean cumulative function and trend tests;
* :mod:`~relmodel.stats.rates`: component rates, fleet priors, shrinkage, rate
  comparisons, change points and fleet summaries;
* :mod:`~relmodel.stats.nodes`: bad ("lemon") nodes and repairs that do not
  fix them: per-node rates, a homogeneity test and the two-class model.

Inside the layer, lifetimes, rates and nodes import nothing else of it, regression
may import lifetimes, survival may import lifetimes and regression.  The layer
may import the data layer and the base, plus numpy, pandas, scipy and
lifelines; never planning or presentation, never matplotlib or papermill.
Earlier module paths (the flat layout of 0.2: ``relmodel.stats.fitting`` and so
on) still import, as aliases of the moved modules (:data:`MOVED`).
"""

import sys as _sys

from . import forecast, lifetimes, nodes, rates, regression, survival
from .forecast import CurrentRate, current_rate
from .nodes import BadNodes, bad_nodes
from .lifetimes import (Comparison, FitResult, FitWarning, WeibayesResult, b_life, compare_fits, curve_band, fit,
                        profile_intervals, uptime_intervals, weibayes)
from .survival import (GroupComparison, TurnbullEstimate, compare_groups, compare_mcf, crow_amsaa,
                       cumulative_incidence, gray_test, kaplan_meier, laplace_test, lewis_robinson_test, mcf,
                       mil_hdbk_189_test, nelson_aalen, power_law_gof, trend, turnbull)
from .regression import RegressionResult, andersen_gill, counting_process, regress
from .rates import (ComponentComparison, ComponentShrinkage, FleetSummary, GammaPrior, PriorWarning, RateChanges,
                    RateComparison, RateData, RatePosterior, component_rates, compare_rates, fleet_prior,
                    fleet_summary, poisson_interval, rate_changes, shrink_components, update_rate)

__all__ = ["Comparison", "compare_fits", "FitResult", "FitWarning", "fit", "cumulative_incidence", "kaplan_meier",
           "nelson_aalen", "component_rates", "poisson_interval", "mcf", "crow_amsaa", "laplace_test",
           "lewis_robinson_test", "mil_hdbk_189_test", "power_law_gof", "trend",
           "GammaPrior", "PriorWarning", "RateData", "RatePosterior", "fleet_prior", "update_rate",
           "ComponentShrinkage", "shrink_components", "ComponentComparison", "RateComparison", "compare_rates",
           "RateChanges", "rate_changes", "FleetSummary", "fleet_summary",
           "RegressionResult", "regress", "andersen_gill", "counting_process",
           "GroupComparison", "compare_groups", "compare_mcf", "gray_test",
           "uptime_intervals", "TurnbullEstimate", "turnbull",
           "b_life", "curve_band", "profile_intervals", "WeibayesResult", "weibayes",
           "lifetimes", "survival", "regression", "rates", "forecast", "CurrentRate", "current_rate",
           "nodes", "BadNodes", "bad_nodes"]

#: Earlier module path (the flat layout of 0.2, and the first cut by concept) -> where it is now.
MOVED = {
    "family": "lifetimes.base", "families": "lifetimes.registry", "classic": "lifetimes.classic",
    "gengamma": "lifetimes.gengamma", "mle": "lifetimes.mle", "fitting": "lifetimes.fitting",
    "interval": "lifetimes.interval", "compare": "lifetimes.ranking", "bands": "lifetimes.bands",
    "weibayes": "lifetimes.weibayes",
    "nonparam": "survival.nonparam", "turnbull": "survival.turnbull", "groups": "survival.group_tests",
    "recurrence": "survival.recurrence", "trends": "survival.trends",
    "covariates": "regression.covariates", "recurrent_regression": "regression.recurrent",
    "rate_data": "rates.rate_data", "priors": "rates.priors", "shrinkage": "rates.shrinkage",
    "rate_compare": "rates.comparison", "changepoint": "rates.changepoint", "fleet_summary": "rates.fleet_summary",
    "lifetimes.family": "lifetimes.base", "lifetimes.families": "lifetimes.registry",
    "lifetimes.compare": "lifetimes.ranking", "survival.groups": "survival.group_tests",
    "rates.rate_compare": "rates.comparison", "regression.recurrent_regression": "regression.recurrent",
}


def _alias_old_paths():
    """Make each earlier ``relmodel.stats.<path>`` import the module now holding it, as an attribute
    too where nothing of that name is there already (``regression`` and ``rates`` name both a
    subpackage and a module in it; the subpackage re-exports the module's names)."""
    for old, new in MOVED.items():
        module = _sys.modules[f"{__name__}.{new}"]
        _sys.modules.setdefault(f"{__name__}.{old}", module)
        parent, _, name = f"{__name__}.{old}".rpartition(".")
        if not hasattr(_sys.modules[parent], name):
            setattr(_sys.modules[parent], name, module)


_alias_old_paths()
