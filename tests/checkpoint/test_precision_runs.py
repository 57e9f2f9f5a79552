"""Monte Carlo runs sized to the printed precision, against a plain-numpy simulation of the same job."""

import warnings

import numpy as np
import pytest

import relmodel
from relmodel.checkpoint.precision import half_width
from relmodel.errors import ModelInputError, PrecisionWarning
from lockstep_reference import lockstep_walls

WORK, TAU, DELTA, R, MTBF = 48.0, 16 / 60, 45 / 3600, 10 / 60, 3.0  # hours: a short job, so replicas vary a lot
Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


def plain_numpy_walls(replicas, seed):
    """Wall hours of each replica, one event per step for every replica (Daly's model, exponential failures)."""
    return lockstep_walls(WORK, TAU, DELTA, R, MTBF, replicas, seed)[0]


def ettr_half_width(walls):
    """Half-width of the 95% interval of work / mean wall, by hand from the replicas."""
    m, se = walls.mean(), walls.std(ddof=1) / np.sqrt(walls.size)
    return (WORK / (m - Z95 * se) - WORK / (m + Z95 * se)) / 2


@pytest.fixture(scope="module")
def reference():
    walls = plain_numpy_walls(20_000, seed=123)
    return WORK / walls.mean(), walls


def test_sized_run_agrees_with_plain_numpy(reference):
    ref, walls = reference
    s = relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, resolution=0.001, seed=4)
    mine = s.work_h + s.checkpoint_h + s.lost_h + s.restart_time_h
    hw = ettr_half_width(mine)
    assert hw < 0.0005
    se = np.hypot(hw / Z95, ettr_half_width(walls) / Z95)
    assert abs(s.ettr - ref) < 4 * se  # 4 standard errors of the difference
    assert s.n_runs > 200  # the pilot alone is not precise enough for this job


def test_stops_near_the_replicas_it_needs(reference):
    _, walls = reference
    target = 0.0005
    # replicas the reference spread needs: hw = Z * sd * W / m^2 / sqrt(n)
    need = (Z95 * walls.std(ddof=1) * WORK / walls.mean() ** 2 / target) ** 2
    s = relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, resolution=2 * target, seed=9)
    assert 0.8 * need < s.n_runs < 1.5 * need
    looser = relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, resolution=0.01, seed=9)
    assert looser.n_runs < s.n_runs / 10
    assert half_width(looser) < 0.005


def test_half_width_is_the_simulators_interval():
    s = relmodel.simulate_training(WORK, TAU, MTBF, DELTA, R, n_runs=500, seed=2)
    walls = s.work_h + s.checkpoint_h + s.lost_h + s.restart_time_h
    assert half_width(s) == pytest.approx(ettr_half_width(walls), rel=1e-9)


def test_cap_warns_and_stops_at_the_cap():
    with pytest.warns(PrecisionWarning, match="raise max_runs"):
        s = relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, resolution=0.0001, max_runs=3000,
                                           seed=1)
    assert s.n_runs == 3000


def test_same_seed_same_replicas():
    a = relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, seed=5)
    b = relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(a.lost_h, b.lost_h)
    np.testing.assert_array_equal(a.failures, b.failures)


def test_no_warning_when_reached():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, resolution=0.01, seed=3)


@pytest.mark.parametrize("kwargs", [dict(resolution=0), dict(resolution=1.5), dict(conf=95), dict(first=1),
                                    dict(max_runs=100, first=200), dict(replicas=500), dict(n_runs=500),
                                    dict(executor=object())])
def test_bad_options_are_named(kwargs):
    with pytest.raises(ModelInputError):
        relmodel.checkpoint.simulate_to_precision(WORK, TAU, MTBF, DELTA, R, seed=0, **kwargs)


@pytest.mark.parametrize("replicas", ["many", 1.5, float("nan"), True])
def test_bad_replicas_are_named(replicas):
    with pytest.raises(ModelInputError, match="whole number"):
        relmodel.simulate_training(WORK, TAU, MTBF, DELTA, R, n_runs=replicas, seed=0)
