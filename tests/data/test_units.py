import datetime as dt

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import DurationError, UnitError


@pytest.mark.parametrize("value, expected", [
    (3, 3.0), (2.5, 2.5), ("45s", 45 / 3600), ("10min", 10 / 60), ("3h", 3.0), ("2d", 48.0),
    ("1h30min", 1.5), ("1.5 h", 1.5), ("2", 2.0), ("1e3s", 1000 / 3600),
    (dt.timedelta(minutes=90), 1.5), (pd.Timedelta("45s"), 45 / 3600), (np.timedelta64(2, "h"), 2.0),
])
def test_hours_accepts_every_form(value, expected):
    assert relmodel.units.hours(value) == pytest.approx(expected, rel=1e-12)


def test_hours_arrays():
    out = relmodel.units.hours(["1h", "30min", pd.Timedelta("1d")])
    np.testing.assert_allclose(out, [1.0, 0.5, 24.0])
    np.testing.assert_allclose(relmodel.units.hours(np.array([1, 2])), [1.0, 2.0])
    np.testing.assert_allclose(relmodel.units.hours(pd.Series(pd.to_timedelta(["1h", "2h"]))), [1.0, 2.0])


@pytest.mark.parametrize("bad", ["", "abc", "3 parsecs", "h3", "1h garbage", None, True, object()])
def test_hours_bad_input_names_valid_forms(bad):
    with pytest.raises(DurationError, match="45s"):
        relmodel.units.hours(bad)


def test_unit_hours():
    assert relmodel.units.unit_hours("min") == pytest.approx(1 / 60)
    with pytest.raises(UnitError, match="valid units"):
        relmodel.units.unit_hours("fortnights")


def test_fit_mtbf_round_trip():
    assert relmodel.units.fit_from_mtbf(1e6) == pytest.approx(1000.0)
    assert relmodel.units.mtbf_from_fit(relmodel.units.fit_from_mtbf(5e4)) == pytest.approx(5e4)
    assert relmodel.units.afr_from_mtbf(8766) == pytest.approx(1.0)
