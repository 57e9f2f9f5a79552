"""Regression: failure times and recurrent failures explained by covariates.

Belongs here: building design matrices from covariate columns, proportional
hazards and accelerated failure time models (``regress``), their
proportional-hazards checks, and the Andersen-Gill model for recurrent
failures on counting-process rows.  May import
:mod:`relmodel.stats.lifetimes` (the location-scale laws), the data layer and
the base, plus numpy, pandas, scipy and lifelines; never the survival or rates
parts of ``relmodel.stats``, never planning or presentation.
"""

from .covariates import CovariateWarning, design, pick_column, survival_columns
from .regression import MODELS, PHCheck, RegressionResult, regress
from .recurrent import andersen_gill, counting_process

__all__ = ["CovariateWarning", "design", "pick_column", "survival_columns", "MODELS", "PHCheck",
           "RegressionResult", "regress", "andersen_gill", "counting_process"]
