"""Kaplan-Meier and Nelson-Aalen with delayed entry against R's survfit (risk sets (entry, stop])."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lifelines import KaplanMeierFitter

import relmodel

DATA = Path(__file__).parent / "data" / "cox_fleet.csv"   # written by data/generate.py (seed 22)


@pytest.fixture(scope="module")
def fleet():
    return pd.read_csv(DATA)


# R 4.2, survival 3.5:
#   d <- read.csv("cox_fleet.csv"); k <- survfit(Surv(entry, stop, event) ~ 1, data = d)
#   dput(k$time); dput(k$n.risk); dput(k$n.event)
R_TIME = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
          29, 30, 31, 32, 34, 35, 36, 37, 38, 39, 40, 41, 42, 44, 45, 46, 47, 48, 49, 50, 51, 53, 55, 56, 57, 58,
          59, 62, 64, 66, 67, 70, 72, 75, 78, 79, 82, 83, 84, 87, 89, 119, 125, 128, 130]
R_RISK = [165, 159, 161, 153, 151, 148, 141, 131, 126, 123, 116, 116, 113, 113, 108, 101, 95, 94, 87, 82, 79, 78,
          77, 74, 74, 72, 66, 64, 64, 63, 60, 54, 51, 51, 50, 49, 47, 46, 45, 44, 42, 42, 39, 38, 36, 35, 33, 31,
          28, 26, 25, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
R_EVENT = [16, 5, 10, 7, 10, 7, 9, 3, 5, 12, 2, 2, 5, 7, 7, 5, 3, 7, 5, 2, 2, 2, 3, 1, 2, 5, 1, 1, 2, 3, 4, 2, 1,
           1, 1, 2, 2, 1, 1, 2, 1, 2, 0, 2, 1, 2, 2, 2, 2, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 2, 1, 1, 1, 0, 0,
           1, 1, 0, 0, 0, 0]
# k <- survfit(Surv(entry, stop, event) ~ 1, data = d, conf.type = "log-log"); idx <- c(1, 2, 3, 10, 25, 60)
# print(k$surv[idx]); print(k$lower[idx]); print(k$upper[idx]); print(k$cumhaz[idx]); print(k$std.chaz[idx])
IDX = [0, 1, 2, 9, 24, 59]
R_SURV = [0.9030303030303031, 0.8746331236897276, 0.8203080849512352, 0.5520318870788778, 0.3067750183657500,
          0.0749790413441783]
R_LOWER = [0.8465984599398654, 0.8142616458994769, 0.7545157024861957, 0.4786523290686637, 0.2459977291951450,
           0.0446828646930934]
R_UPPER = [0.939436856689185, 0.916379973352434, 0.869979625712686, 0.619322119666471, 0.369498428048026,
           0.115425525266849]
R_CUMHAZ = [0.096969696969697, 0.128416237850200, 0.190528039092436, 0.573776201824692, 1.147141017604600,
            2.520703554824316]
R_STD_CHAZ = [0.0242424242424242, 0.0280262755252907, 0.0342236717079716, 0.0629608731651971, 0.1003846504260313,
              0.2343507806609221]


def test_risk_sets_with_entry_are_survfits(fleet):
    km = relmodel.stats.kaplan_meier(fleet["stop"], observed=fleet["event"] > 0, entry=fleet["entry"])
    assert km.hours[0] == 0 and km.at_risk[0] == int((fleet["entry"] == 0).sum())
    np.testing.assert_array_equal(km.hours[1:], R_TIME)
    np.testing.assert_array_equal(km.at_risk[1:], R_RISK)
    np.testing.assert_array_equal(km.events[1:], R_EVENT)
    idx = np.array(IDX) + 1
    np.testing.assert_allclose(km.value[idx], R_SURV, rtol=1e-12)
    np.testing.assert_allclose(km.lower[idx], R_LOWER, rtol=1e-12)
    np.testing.assert_allclose(km.upper[idx], R_UPPER, rtol=1e-12)


def test_nelson_aalen_with_entry_and_its_band_are_survfits(fleet):
    na = relmodel.stats.nelson_aalen(fleet["stop"], observed=fleet["event"] > 0, entry=fleet["entry"])
    np.testing.assert_array_equal(na.at_risk[1:], R_RISK)
    idx = np.array(IDX) + 1
    np.testing.assert_allclose(na.value[idx], R_CUMHAZ, rtol=1e-12)
    # the band is H exp(-+ z sd / H) with survfit's std.chaz
    h, sd = np.array(R_CUMHAZ), np.array(R_STD_CHAZ)
    z = 1.959963984540054
    np.testing.assert_allclose(na.lower[idx], h * np.exp(-z * sd / h), rtol=1e-10)
    np.testing.assert_allclose(na.upper[idx], h * np.exp(z * sd / h), rtol=1e-10)


def test_a_unit_entering_at_a_failure_time_is_not_at_risk_then():
    # Hand count: failures at 1, 2, 2(censored), 3, 5(censored), 8; entries 0, 0, 1, 2, 2, 0.
    # At t = 1 the unit entering at 1 is not yet at risk: 3 at risk (lifelines counts 4).
    stop, obs, entry = [1, 2, 2, 3, 5, 8], [1, 1, 0, 1, 0, 1], [0, 0, 1, 2, 2, 0]
    km = relmodel.stats.kaplan_meier(stop, observed=obs, entry=entry)
    # at 2: (0, 2], (1, 2] and (0, 8]; at 3: (2, 3], (2, 5] and (0, 8]
    assert km.at_risk.tolist() == [3, 3, 3, 3, 2, 1]
    assert km.value.tolist() == pytest.approx([1, 2 / 3, 4 / 9, 8 / 27, 8 / 27, 0])
    lif = KaplanMeierFitter().fit(stop, obs, entry=entry)
    assert lif.event_table["at_risk"].iloc[1] == 4
