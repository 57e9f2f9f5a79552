"""Cumulative incidence variance and band against cmprsk::cuminc (R 4.2, cmprsk 2.2, Debian packages).

The band is log(-log): F ** exp(+-z sqrt(var) / (F log F)) (Pintilie 2006, the construction relmodel
uses for every cumulative incidence band), computed here from R's variance.  R calls:

    library(cmprsk); options(digits = 15)
    # "six": the last unit at risk fails (cause 1 at 6 h): the variance stays finite
    timepoints(cuminc(c(1,2,3,4,5,6), c(1,2,1,0,2,1), cencode = 0), 1:6)
    # "ties": three of the three at risk fail at 4 h, two of them from cause 1
    timepoints(cuminc(c(1,2,2,3,4,4,4), c(1,2,1,0,1,2,1), cencode = 0), 1:4)
    # competing_300.csv (tests/stats/data; integer times, many ties)
    cc <- read.csv("competing_300.csv"); timepoints(cuminc(cc$time, cc$cause, cencode = 0), c(2, 5, 10, 20, 40))

Causes 1, 2 are "a", "b" (relmodel orders causes by count: "a" has more events in each case).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import relmodel

CASES = {
    "six": ([1, 2, 3, 4, 5, 6], [1, 2, 1, 0, 2, 1], [1, 2, 3, 4, 5, 6], {
        "a": ([0.166666666666667, 0.166666666666667, 0.333333333333333, 0.333333333333333, 0.333333333333333,
               0.583333333333333],
              [0.0277777777777778, 0.0277777777777778, 0.0472916666666667, 0.0472916666666667,
               0.0472916666666667, 0.1497395833333335]),
        "b": ([0, 0.166666666666667, 0.166666666666667, 0.166666666666667, 0.416666666666667, 0.416666666666667],
              [0, 0.0288888888888889, 0.0288888888888889, 0.0288888888888889, 0.0872395833333334,
               0.0872395833333334])}),
    "ties": ([1, 2, 2, 3, 4, 4, 4], [1, 2, 1, 0, 1, 2, 1], [1, 2, 3, 4], {
        "a": ([0.142857142857143, 0.285714285714286, 0.285714285714286, 0.666666666666667],
              [0.0204081632653061, 0.0345804988662131, 0.0345804988662131, 0.050705467372134]),
        "b": ([0, 0.142857142857143, 0.142857142857143, 0.333333333333333],
              [0, 0.0209750566893424, 0.0209750566893424, 0.050705467372134])}),
}

C300_TIMES = [2, 5, 10, 20, 40]
C300 = {
    "a": ([0.0266666666666667, 0.0833333333333333, 0.163333333333333, 0.281043262514424, 0.417121827237281],
          [8.67850726325593e-05, 0.000255175236955335, 0.000455621931382987, 0.000686603636227788,
           0.000915328750847638]),
    "b": ([0.0333333333333333, 0.0833333333333333, 0.156666666666667, 0.236085713321815, 0.351359526332837],
          [1.07749465381590e-04, 0.000255223402918635, 0.000440693986283440, 0.000609680684726622,
           0.000837989478538880]),
}


def _band(f, var, conf=0.95):
    f, var = np.asarray(f, float), np.asarray(var, float)
    z = stats.norm.ppf(0.5 + conf / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.exp(z * np.sqrt(var) / (f * np.log(f)))
        lo, hi = f ** (1 / k), f ** k   # f log f < 0: 1/k is the larger power, the lower bound
    return np.where(f > 0, lo, 0.0), np.where(f > 0, hi, 0.0)


def _check(ci, times, ref):
    for cause, (est, var) in ref.items():
        curve = ci[cause]
        idx = np.searchsorted(curve.hours, times, side="right") - 1
        np.testing.assert_allclose(curve.value[idx], est, rtol=1e-12, atol=1e-14)
        lo, hi = _band(est, var)
        np.testing.assert_allclose(curve.lower[idx], lo, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(curve.upper[idx], hi, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", list(CASES))
def test_band_is_cuminc_variance_with_log_log(case):
    t, code, times, ref = CASES[case]
    causes = [{1: "a", 2: "b"}.get(c) for c in code]
    _check(relmodel.stats.cumulative_incidence(t, causes), times, ref)


def test_last_time_where_everyone_at_risk_fails_keeps_a_finite_band():
    ci = relmodel.stats.cumulative_incidence([1, 2, 3, 4, 5, 6], ["a", "b", "a", None, "b", "a"])
    for cause in ("a", "b"):
        lo, hi = ci[cause].lower[-1], ci[cause].upper[-1]
        assert 0 < lo < ci[cause].value[-1] < hi < 1, (cause, lo, hi)
    assert ci["b"].lower[-1] == pytest.approx(0.01384, abs=1e-5)
    assert ci["b"].upper[-1] == pytest.approx(0.83605, abs=1e-5)


def test_competing_300_with_ties():
    cc = pd.read_csv(Path(__file__).parent / "data" / "competing_300.csv")
    causes = cc["cause"].map({1: "a", 2: "b"}).where(cc["cause"] > 0, None)
    _check(relmodel.stats.cumulative_incidence(cc["time"].to_numpy(float), causes.to_list()), C300_TIMES, C300)
