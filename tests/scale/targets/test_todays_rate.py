"""Today's rate is current_rate's: checked against the generator's truth on power-law and steady logs."""

import numpy as np
import pandas as pd

from relmodel import InterruptionLog
from relmodel.scale.targets.today import todays_rate
from relmodel.stats.forecast import current_rate

T = 3000.0


def _log(times, n_nodes=50, seed=0):
    rng = np.random.default_rng(seed)
    ev = pd.DataFrame({"start_h": times, "end_h": times + rng.uniform(0.5, 3, times.size),
                       "node": rng.integers(0, n_nodes, times.size).astype(str),
                       "planned": False, "overlaps": False})
    return InterruptionLog(ev, (0.0, T), n_nodes=n_nodes)


def _power_law(beta, expected, seed):
    """A Crow-AMSAA process with E[N(t)] = expected (t/T)^beta; its rate at T is expected beta / T."""
    rng = np.random.default_rng(seed)
    return np.sort(T * rng.uniform(size=rng.poisson(expected)) ** (1 / beta))


def test_a_rising_power_law_is_read_at_the_window_end():
    """Shape 1.7: the rate now is 1.7x the average. Over 30 logs the 90% interval of the rate now holds the
    generator's rate at T about 90% of the time, and the point estimate's average ratio to the truth is near 1."""
    beta, expected = 1.7, 250
    truth = expected * beta / T
    hits, ratio = 0, []
    for seed in range(30):
        log = _log(_power_law(beta, expected, seed), seed=seed)
        today = todays_rate(log, conf=0.9)
        avg = len(log.interruptions()) / T
        assert today.trend == "rising", seed
        hits += today.factor_lo * avg <= truth <= today.factor_hi * avg
        ratio.append(today.factor * avg / truth)
    assert 0.75 <= hits / 30 <= 1.0
    assert abs(np.mean(ratio) - 1) < 0.1


def test_a_steady_log_keeps_about_the_average():
    """A homogeneous Poisson log: the constant carries the most weight in most logs, and today's rate is within
    a few per cent of the window's average (the trends it is mixed with read close to it)."""
    rng = np.random.default_rng(4)
    steady, factors = 0, []
    for seed in range(20):
        today = todays_rate(_log(np.sort(rng.uniform(0, T, 200)), seed=seed))
        steady += not today.moving and today.trend == "steady"
        factors.append(today.factor)
    assert steady >= 11  # the power law with a shape near 1 forecasts about as well, and keeps some weight
    assert np.all(np.abs(np.array(factors) - 1) < 0.3) and abs(np.mean(factors) - 1) < 0.05


def test_the_decision_and_the_forecast_check_share_one_rate():
    """The rate the report shows is the rate forecast_check fits: the same model and interval."""
    log = _log(_power_law(2.0, 300, 11), seed=11)
    today, cr = todays_rate(log, conf=0.9), current_rate(log, conf=0.9)
    assert cr.model == "power law" and today.trend == "rising" and "power law" in today.reason
    avg = len(log.interruptions()) / T
    np.testing.assert_allclose([today.factor * avg, today.factor_lo * avg, today.factor_hi * avg],
                               [cr.rate_per_h, cr.lo_per_h, cr.hi_per_h], rtol=1e-12)
