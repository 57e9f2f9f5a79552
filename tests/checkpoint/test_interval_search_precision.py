"""best_interval(resolution=...): the confirming simulations stop once the printed ETTR digit is sure.

The reference for exponential failures is Daly's exact expected wall time (Daly 2006, FGCS 22(3)),
written out here: a segment of tau work plus a checkpoint delta, with restart R after each failure
and mean time between failures M, takes M e^(R/M) (e^((tau+delta)/M) - 1) on average.
"""

import math

import pytest

import relmodel
from relmodel.errors import ModelInputError
from relmodel.report.notebook_pages.pages import precision_sentence

M, DELTA, R = 3.0, 45 / 3600, 10 / 60  # hours


def daly_ettr(tau):
    return tau / (M * math.exp(R / M) * (math.exp((tau + DELTA) / M) - 1))


def test_a_coarse_step_stops_early_and_agrees_with_the_formula():
    s = relmodel.checkpoint.best_interval("3h", "45s", "10min", n_runs=200, grid=7, work="300h", seed=3, resolution=0.01)
    cap = 4 * 200
    assert s.precise is True and s.resolution == 0.01
    assert 2 <= s.n_runs_best < cap and 2 <= s.n_runs_exp < cap  # a whole-percent step needs few runs
    assert (s.ettr_hi - s.ettr_lo) / 2 < 0.005 and (s.exp_interval_sim_hi - s.exp_interval_sim_lo) / 2 < 0.005
    assert s.exp_interval_sim_ettr == pytest.approx(daly_ettr(s.exp_interval_h), abs=0.01)
    assert "until its 99% interval was narrower" in precision_sentence(s)


def test_the_cap_binds_and_the_page_says_so():
    s = relmodel.checkpoint.best_interval("3h", "45s", "10min", n_runs=10, grid=5, work="300h", seed=3, resolution=0.0001)
    assert s.precise is False and s.n_runs_best == s.n_runs_exp == 40  # 4 x n_runs
    text = precision_sentence(s)
    assert "stopped at their cap (40 runs" in text and "raise n_runs" in text


def test_fixed_sizes_without_a_resolution():
    s = relmodel.checkpoint.best_interval("3h", "45s", "10min", n_runs=20, grid=3, work="50h", seed=1)
    assert (s.resolution, s.precise, s.n_runs_best, s.n_runs_exp) == (None, None, 80, 80)
    assert precision_sentence(s) == ""


@pytest.mark.parametrize("bad", [0, 1, -0.1, "0.1%"])
def test_a_resolution_outside_0_1_is_refused(bad):
    with pytest.raises(ModelInputError, match="printed step"):
        relmodel.checkpoint.best_interval("3h", "45s", "10min", n_runs=20, grid=3, work="50h", seed=1, resolution=bad)
