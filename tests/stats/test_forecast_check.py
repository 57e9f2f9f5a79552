"""forecast_check on simulated fleets with known laws: the 90% ranges hold about 90% of what happens next.

Each fleet is 60 logs drawn here with numpy, independently of relmodel: a homogeneous
Poisson process, power-law processes (Crow-AMSAA, mean function lam t^beta) rising
(beta = 1.7) and falling (beta = 0.6), and a rate that doubles at a change point.  A
power-law process is drawn as N ~ Poisson(lam T^beta) event times T U^(1/beta), U uniform
(the order statistics of the mean function).  Coverage must be within 7 points of nominal;
a constant-rate forecast (the window's average, a Poisson count) must fail on the rising fleet.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import relmodel
from relmodel.checkpoint.forecast_check import forecast_check

T = 1000.0          # hours of observation per log
N_LOGS = 200


def _log(times, name):
    t = np.sort(times)
    table = pd.DataFrame({"s": t, "node": "n0"})
    return relmodel.read_log(table, start="s", node="node", time_unit="h", window=(0, T), name=name)


def _power_law_fleet(seed, beta, expected=150.0):
    rng = np.random.default_rng(seed)
    return [_log(T * rng.uniform(size=rng.poisson(expected)) ** (1 / beta), f"log {i}") for i in range(N_LOGS)]


def _change_point_fleet(seed, rate=0.1, at=0.35):
    rng = np.random.default_rng(seed)
    logs = []
    for i in range(N_LOGS):
        before = rng.uniform(0, at * T, rng.poisson(rate * at * T))
        after = rng.uniform(at * T, T, rng.poisson(2.5 * rate * (1 - at) * T))
        logs.append(_log(np.concatenate([before, after]), f"log {i}"))
    return logs


def _coverage(logs, conf=0.9):
    check = forecast_check(logs, conf=conf, quantities=("failures",), n_draws=2000, seed=1)
    rows = check.to_frame()
    return rows.loc[rows["source"] != "all logs", "covered"].mean(), check


@pytest.mark.parametrize("fleet", ["poisson", "rising", "falling", "change point"])
def test_ninety_percent_ranges_hold_about_ninety_percent(fleet):
    logs = {"poisson": lambda: _power_law_fleet(1, 1.0), "rising": lambda: _power_law_fleet(2, 1.7),
            "falling": lambda: _power_law_fleet(3, 0.6), "change point": lambda: _change_point_fleet(4)}[fleet]()
    covered, check = _coverage(logs)
    assert abs(covered - 0.9) <= 0.07, check.to_frame()[["lo", "hi", "observed", "model"]]


def test_coverage_at_several_levels_on_the_poisson_fleet():
    check = forecast_check(_power_law_fleet(5, 1.0), quantities=("failures",), n_draws=2000, seed=2)
    table = check.coverage_at((0.5, 0.8, 0.95))
    assert np.all(np.abs(table["coverage"] - table["level"]) <= 0.07 + 0.03 * (table["level"] < 0.6)), table


def test_a_constant_rate_forecast_fails_on_the_rising_fleet():
    """The window's average rate with Poisson noise (written here) misses the rising fleet; the check does not."""
    logs = _power_law_fleet(2, 1.7)
    hits = []
    for log in logs:
        t = log.events["start_h"].to_numpy()
        fitted = np.sum(t <= 0.7 * T)
        mean = fitted / (0.7 * T) * 0.3 * T
        lo, hi = stats.poisson.ppf([0.05, 0.95], mean)
        hits.append(lo <= np.sum(t > 0.7 * T) <= hi)
    assert np.mean(hits) < 0.5                    # far below 90%: the count rises faster than the average says
    covered, _ = _coverage(logs)
    assert covered >= 0.83


def test_the_result_speaks_the_protocol():
    logs = _power_law_fleet(6, 1.0)[:3]
    check = forecast_check(logs, split=0.6, conf=0.8)
    frame = check.to_frame()
    assert set(frame["quantity"]) == {"failures", "job_mtbf"}
    assert (frame["source"] == "all logs").sum() == 1
    observed = [np.sum(log.events["start_h"].to_numpy() > 0.6 * T) for log in logs]
    got = frame.loc[(frame["quantity"] == "failures") & (frame["source"] != "all logs"), "observed"].tolist()
    assert got == observed and frame.loc[frame["source"] == "all logs", "observed"].item() == sum(observed)
    assert 0 <= check.coverage <= 1 and "80%" in check.text()
    assert "nan" not in check.table().to_string().lower()


@pytest.mark.parametrize("bad", [{"split": 1.0}, {"conf": 0.0}, {"quantities": ("mtbf",)}])
def test_bad_arguments_are_named_errors(bad):
    with pytest.raises(relmodel.errors.FitError):
        forecast_check(_power_law_fleet(7, 1.0)[:1], **bad)


def test_current_rate_of_a_rising_process_is_the_power_law_intensity():
    rng = np.random.default_rng(8)
    t = T * rng.uniform(size=rng.poisson(400)) ** (1 / 1.7)
    r = relmodel.stats.forecast.current_rate(t, window=(0, T), conf=0.9)
    # the truth at T: d/dt 400 (t/T)^1.7 = 400 * 1.7 / T
    assert r.model == "power law" and r.lo_per_h <= 400 * 1.7 / T <= r.hi_per_h
    assert r.average_per_h == pytest.approx(t.size / T)


def test_the_ettr_of_a_slurm_run_is_dalys_at_the_interval_its_first_part_recommends():
    from pathlib import Path
    from scipy.special import lambertw
    log = relmodel.read_sacct(Path(__file__).resolve().parents[2] / "data" / "ops-example" / "sacct.txt")
    check = forecast_check(log, seed=0).to_frame().set_index("quantity")
    t0, t1 = log.window_h
    cut = t0 + 0.7 * (t1 - t0)
    rate = relmodel.current_rate(log, window=(t0, cut)).rate_per_h
    fitted = log.events[log.events["start_h"] <= cut]
    delta, restart = 1 / 60, float((fitted["end_h"] - fitted["start_h"]).mean())   # gaps of the fitted part
    m_fit = 1 / rate
    tau = m_fit * (1 + lambertw(-np.exp(-(1 + delta / m_fit))).real)     # Daly's exact optimum
    m_obs = (t1 - cut) / check.loc["failures", "observed"]
    daly = tau / (m_obs * np.exp(restart / m_obs) * np.expm1((tau + delta) / m_obs))
    assert check.loc["ettr", "observed"] == pytest.approx(daly, rel=1e-9)
    assert check.loc["ettr", "lo"] <= check.loc["ettr", "hi"]


def test_current_rate_of_a_quiet_log_and_a_count_table():
    r = relmodel.current_rate(np.array([]), window=(0, 500))
    assert r.n == 0 and r.rate_per_h == 0 and r.hi_per_h > 0 and r.model == "constant"
    assert r.forecast("10d", seed=0).hi >= 0
    table = relmodel.load_source("llama3")
    with pytest.raises(relmodel.errors.FitError, match="count table"):
        relmodel.current_rate(table)
