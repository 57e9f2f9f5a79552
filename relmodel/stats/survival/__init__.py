"""Survival: nonparametric estimates, group tests, recurrence and trends.

Belongs here: Kaplan-Meier, Nelson-Aalen and cumulative incidence, the
Turnbull estimate for interval-censored data, comparing groups (log-rank
family, Gray's test, mean cumulative functions), the mean cumulative function
of recurrent failures and the trend tests of a repairable system (Laplace,
MIL-HDBK-189, Lewis-Robinson, Crow-AMSAA).  May import
:mod:`relmodel.stats.lifetimes` and :mod:`relmodel.stats.regression` (column
helpers), the data layer and the base, plus numpy, pandas, scipy and
lifelines; never the rates part, never planning or presentation.
"""

from .nonparam import CumulativeIncidence, StepEstimate, cumulative_incidence, kaplan_meier, nelson_aalen
from .turnbull import TurnbullEstimate, turnbull
from .recurrence import mcf
from .group_tests import GrayTest, GroupComparison, MCFComparison, compare_groups, compare_mcf, gray_test
from .trends import (CrowAMSAA, TrendResult, TrendTest, crow_amsaa, event_times, laplace_test,
                     lewis_robinson_test, mil_hdbk_189_test, trend)
from .power_law import power_law_gof

__all__ = ["CumulativeIncidence", "StepEstimate", "cumulative_incidence", "kaplan_meier", "nelson_aalen",
           "TurnbullEstimate", "turnbull", "mcf", "GrayTest", "GroupComparison", "MCFComparison",
           "compare_groups", "compare_mcf", "gray_test", "CrowAMSAA", "TrendResult", "TrendTest",
           "crow_amsaa", "event_times", "laplace_test", "lewis_robinson_test", "mil_hdbk_189_test",
           "power_law_gof", "trend"]
