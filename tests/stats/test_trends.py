"""Trend tests and the Crow-AMSAA fit against their textbook definitions, plus recovery tests.

Formulas: Cox and Lewis (1966) chapter 3 for the Laplace test; MIL-HDBK-189C
(2011) and Crow (1974) for the MIL-HDBK-189 test and the power-law
NHPP fit.
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats

import relmodel
from relmodel.errors import FitError
from relmodel.stats.survival.trends import VERDICTS, event_times

TIMES = [4.3, 10.7, 17.0, 30.2, 55.9, 61.1, 80.0, 96.4, 140.5, 151.0]


def _power_law(beta, lam, end, rng):
    """Time-truncated power-law NHPP: N ~ Poisson(lam T^beta), times T U^(1/beta)."""
    n = rng.poisson(lam * end**beta)
    return np.sort(end * rng.uniform(size=n) ** (1 / beta))


def _power_law_first(beta, lam, n, rng):
    """First n events of a power-law NHPP: Lambda(t_i) is a unit-rate Poisson process."""
    return (np.cumsum(rng.exponential(size=n)) / lam) ** (1 / beta)


def test_laplace_time_truncated_by_hand():
    n, T = len(TIMES), 160.0
    u = (sum(TIMES) / n - T / 2) / (T * math.sqrt(1 / (12 * n)))
    res = relmodel.stats.laplace_test(TIMES, end=T)
    assert res.statistic == pytest.approx(u, rel=1e-12)
    assert res.p_value == pytest.approx(2 * (1 - stats.norm.cdf(abs(u))), rel=1e-9)
    assert res.truncation == "time" and res.n == n and res.direction == ("wearing out" if u > 0 else "improving")


def test_laplace_failure_truncated_leaves_out_last_event():
    first, tn = TIMES[:-1], TIMES[-1]
    m = len(first)
    u = (sum(first) / m - tn / 2) / (tn * math.sqrt(1 / (12 * m)))
    res = relmodel.stats.laplace_test(TIMES)
    assert res.statistic == pytest.approx(u, rel=1e-12)
    assert res.truncation == "failure" and res.end_h == tn and res.n == m


def test_lewis_robinson_by_hand():
    n, T = len(TIMES), 160.0
    u = (sum(TIMES) / n - T / 2) / (T * math.sqrt(1 / (12 * n)))
    gaps = np.diff([0.0] + TIMES)
    cv = np.std(gaps, ddof=1) / np.mean(gaps)
    res = relmodel.stats.survival.trends.lewis_robinson_test(TIMES, end=T)
    assert res.statistic == pytest.approx(u / cv, rel=1e-12)
    assert res.p_value == pytest.approx(2 * stats.norm.sf(abs(u / cv)), rel=1e-9)
    assert relmodel.stats.trend(TIMES, end=T, method="lewis_robinson").method == "Lewis-Robinson"


def test_mil_hdbk_189_by_hand():
    T = 160.0
    x = 2 * sum(math.log(T / t) for t in TIMES)
    res = relmodel.stats.mil_hdbk_189_test(TIMES, end=T)
    assert res.statistic == pytest.approx(x, rel=1e-12)
    assert res.df == 20
    lower = stats.chi2.cdf(x, 20)
    assert res.p_value == pytest.approx(2 * min(lower, 1 - lower), rel=1e-9)
    xf = 2 * sum(math.log(TIMES[-1] / t) for t in TIMES[:-1])
    resf = relmodel.stats.mil_hdbk_189_test(TIMES)
    assert resf.statistic == pytest.approx(xf, rel=1e-12) and resf.df == 18


def test_crow_amsaa_time_truncated_by_hand():
    T, n = 160.0, len(TIMES)
    beta = n / sum(math.log(T / t) for t in TIMES)
    fit = relmodel.stats.crow_amsaa(TIMES, end=T, conf=0.9)
    assert fit.beta == pytest.approx(beta, rel=1e-12)
    assert fit.lam == pytest.approx(n / T**beta, rel=1e-12)
    assert fit.beta_lo == pytest.approx(beta * stats.chi2.ppf(0.05, 2 * n) / (2 * n), rel=1e-10)
    assert fit.beta_hi == pytest.approx(beta * stats.chi2.ppf(0.95, 2 * n) / (2 * n), rel=1e-10)
    assert fit.beta_unbiased == pytest.approx(beta * (n - 1) / n)
    assert fit.cumulative(T) == pytest.approx(n)  # the MLE puts Lambda(T) = n
    assert fit.mtbf_now_h == pytest.approx(T / (n * beta))
    assert fit.to_frame().loc[0, "beta"] == fit.beta and "Crow-AMSAA" in fit._repr_html_()


def test_crow_amsaa_failure_truncated_by_hand():
    n, tn = len(TIMES), TIMES[-1]
    beta = n / sum(math.log(tn / t) for t in TIMES[:-1])
    fit = relmodel.stats.crow_amsaa(TIMES)
    assert fit.truncation == "failure" and fit.n == n
    assert fit.beta == pytest.approx(beta, rel=1e-12)
    assert fit.beta_lo == pytest.approx(beta * stats.chi2.ppf(0.025, 2 * (n - 1)) / (2 * n), rel=1e-10)
    assert fit.beta_unbiased == pytest.approx(beta * (n - 2) / n)


@pytest.mark.parametrize("beta", [0.5, 1.0, 1.7])
def test_power_law_recovery_beta_inside_interval(beta):
    rng = np.random.default_rng(11)
    t = _power_law(beta, 0.8, 1000.0, rng)
    fit = relmodel.stats.crow_amsaa(t, end=1000.0)
    assert fit.beta_lo < beta < fit.beta_hi
    assert fit.beta == pytest.approx(beta, rel=0.2)


@pytest.mark.parametrize("truncated", ["time", "failure"])
def test_beta_interval_coverage_is_nominal(truncated):
    rng = np.random.default_rng(7)
    hits = 0
    reps = 400
    for _ in range(reps):
        if truncated == "time":
            fit = relmodel.stats.crow_amsaa(_power_law(1.4, 0.05, 100.0, rng), end=100.0, conf=0.9)
        else:
            fit = relmodel.stats.crow_amsaa(_power_law_first(1.4, 0.05, 25, rng), conf=0.9)
        hits += fit.beta_lo < 1.4 < fit.beta_hi
    # 90% nominal: a binomial(400, 0.9) count lies in [340, 380] with probability > 0.999
    assert 340 <= hits <= 380


def test_verdicts_steady_improving_wearing_out():
    rng = np.random.default_rng(2024)
    hpp = np.sort(rng.uniform(0, 5000.0, 300))
    steady = relmodel.stats.trend(hpp, end=5000.0)
    assert steady.verdict == "steady" and steady.p_value > 0.05
    burn_in = relmodel.stats.trend(_power_law(0.5, 5.0, 5000.0, rng), end=5000.0)
    assert burn_in.verdict == "improving" and burn_in.p_value < 0.05 and burn_in.beta < 1
    wear = relmodel.stats.trend(_power_law(2.0, 1e-5, 5000.0, rng), end=5000.0, method="laplace")
    assert wear.verdict == "wearing out" and wear.method == "Laplace"


def test_trend_result_table_and_html():
    res = relmodel.stats.trend(TIMES, end=160.0)
    df = res.to_frame()
    assert list(df["test"]) == ["MIL-HDBK-189", "Laplace", "Lewis-Robinson"]
    assert df["decides"].tolist() == [True, False, False]
    assert res.p_value == df.loc[0, "p_value"]
    assert res.verdict in VERDICTS and res.verdict in res._repr_html_() and res.verdict in str(res)


def test_trend_of_stepfun_log_pools_unplanned_events(stepfun_log):
    ev = stepfun_log.events
    assert ev["overlaps"].any()  # the log has overlap rows, which are not new interruptions
    t0, t1 = stepfun_log.window_h
    starts = ev.loc[~ev["planned"] & ~ev["overlaps"], "start_h"].to_numpy() - t0
    res = relmodel.stats.trend(stepfun_log)
    ref = relmodel.stats.trend(starts[starts > 0], end=t1 - t0)
    assert res.verdict == ref.verdict and res.p_value == pytest.approx(ref.p_value)
    assert res.fit.n == (starts > 0).sum() and res.fit.end_h == pytest.approx(t1 - t0)


def test_event_times_start_offset_and_events_at_start():
    t, T = event_times([10.0, 12.0, 15.0], 30.0, start=10.0)
    assert t.tolist() == [2.0, 5.0] and T == 20.0


def test_bad_inputs():
    with pytest.raises(FitError, match="after the end"):
        relmodel.stats.laplace_test([1.0, 50.0], end=10.0)
    with pytest.raises(FitError, match="before the start"):
        relmodel.stats.crow_amsaa([1.0, 5.0], end=10.0, start=2.0)
    with pytest.raises(FitError, match="at least 3"):
        relmodel.stats.crow_amsaa([1.0, 2.0])
    with pytest.raises(FitError, match="unknown trend method"):
        relmodel.stats.trend(TIMES, method="cramer")
    with pytest.raises(FitError, match="NaN"):
        relmodel.stats.mil_hdbk_189_test([1.0, float("nan")], end=5.0)
    with pytest.raises(FitError, match="conf"):
        relmodel.stats.crow_amsaa(TIMES, end=200.0, conf=95)


def test_too_few_events_give_named_errors_not_absurd_estimates():
    with pytest.raises(FitError, match="at least 2"):
        relmodel.stats.trend([5.0], end=10.0)
    with pytest.raises(FitError, match="at least 1"):
        relmodel.stats.laplace_test([], end=10.0)
    # events only at the start of the window carry no information
    with pytest.raises(FitError):
        relmodel.stats.crow_amsaa([0.0, 0.0, 0.0], end=10.0)
    # two events are enough for a time-truncated fit, with a wide interval
    fit = relmodel.stats.crow_amsaa([3.0, 7.0], end=10.0)
    assert fit.beta_lo < 1 < fit.beta_hi and fit.beta_hi / fit.beta_lo > 5


@pytest.mark.parametrize("truncated", [True, False])
def test_mil_verdict_agrees_with_the_beta_interval(truncated):
    rng = np.random.default_rng(99)
    for beta in np.linspace(0.6, 1.6, 21):
        t = _power_law(beta, 0.3, 100.0, rng)
        res = relmodel.stats.trend(t, end=100.0 if truncated else None, alpha=0.1, conf=0.9)
        inside = res.fit.beta_lo < 1 < res.fit.beta_hi
        assert (res.verdict == "steady") == inside
        if not inside:
            assert res.verdict == ("wearing out" if res.fit.beta > 1 else "improving")


def test_power_law_gof_statistic_by_hand():
    T, n = 160.0, len(TIMES)
    beta = n / sum(math.log(T / t) for t in TIMES)
    beta_bar = beta * (n - 1) / n
    c2 = 1 / (12 * n) + sum(((t / T) ** beta_bar - (2 * i - 1) / (2 * n)) ** 2
                            for i, t in enumerate(TIMES, start=1))
    res = relmodel.stats.survival.power_law.power_law_gof(TIMES, end=T, seed=3)
    assert res.statistic == pytest.approx(c2, rel=1e-12)
    assert res.p_value == relmodel.stats.survival.power_law.power_law_gof(TIMES, end=T, seed=3).p_value
    assert 0 < res.p_value <= 1


def test_power_law_gof_p_values_uniform_under_the_model_and_small_off_it():
    rng = np.random.default_rng(17)
    ps = np.array([relmodel.stats.survival.power_law.power_law_gof(_power_law(0.7, 2.0, 500.0, rng), end=500.0,
                                                 n_runs=300, seed=k).p_value for k in range(80)])
    assert 0.35 < ps.mean() < 0.65 and np.mean(ps < 0.05) < 0.15
    # a rate that jumps tenfold half way is no power law
    jump = np.sort(np.r_[rng.uniform(0, 500, 30), rng.uniform(500, 1000, 300)])
    res = relmodel.stats.survival.power_law.power_law_gof(jump, end=1000.0, seed=1)
    assert res.p_value < 0.01 and res.direction == "does not fit"


# several systems, each with its own window (Crow 1974's setting)
FLEET_T = np.array([12.0, 30.0, 45.0, 8.0, 20.0, 33.0, 50.0, 61.0])
FLEET_NODE = np.array(["a", "a", "a", "b", "b", "c", "c", "c"])
FLEET_START = {"a": 0.0, "b": 5.0, "c": 25.0, "d": 10.0}  # d never fails
FLEET_END = {"a": 60.0, "b": 40.0, "c": 70.0, "d": 30.0}


def _fleet_by_hand():
    age = FLEET_T - np.array([FLEET_START[k] for k in FLEET_NODE])
    window = np.array([FLEET_END[k] - FLEET_START[k] for k in FLEET_NODE])
    every = np.array([FLEET_END[k] - FLEET_START[k] for k in "abcd"])
    return age, window, every


def test_fleet_crow_amsaa_and_tests_by_hand():
    age, window, every = _fleet_by_hand()
    n = age.size
    closed = n / np.log(window / age).sum()        # the equal-window formula, used by the tests below
    # unequal windows: the MLE solves n/b + sum ln t - n sum T^b ln T / sum T^b = 0 (profile score)
    beta = optimize.brentq(lambda b: n / b + np.log(age).sum()
                           - n * (every**b @ np.log(every)) / (every**b).sum(), 0.01, 50.0, xtol=1e-14)
    kw = {"node": FLEET_NODE, "start": FLEET_START, "end": FLEET_END}
    fit = relmodel.stats.crow_amsaa(FLEET_T, **kw)
    assert fit.beta == pytest.approx(beta, rel=1e-10)
    beta = closed
    assert fit.lam == pytest.approx(n / (every**fit.beta).sum(), rel=1e-10)
    assert fit.n_systems == 4 and fit.end_h == 60.0
    assert fit.beta_hi == pytest.approx(fit.beta * stats.chi2.ppf(0.975, 2 * n) / (2 * n), rel=1e-10)
    mil = relmodel.stats.mil_hdbk_189_test(FLEET_T, **kw)
    assert mil.statistic == pytest.approx(2 * np.log(window / age).sum(), rel=1e-12) and mil.df == 2 * n
    lap = relmodel.stats.laplace_test(FLEET_T, **kw)
    assert lap.statistic == pytest.approx((age - window / 2).sum() / np.sqrt((window**2).sum() / 12), rel=1e-12)
    gof = relmodel.stats.power_law_gof(FLEET_T, seed=0, **kw)
    beta_bar = beta * (n - 1) / n
    expected = (2 * np.arange(1, n + 1) - 1) / (2 * n)
    c2 = 1 / (12 * n) + ((np.sort(age / window) ** beta_bar - expected) ** 2).sum()
    assert gof.statistic == pytest.approx(c2, rel=1e-12)


def test_fleet_on_a_common_window_matches_the_pooled_process():
    rng = np.random.default_rng(41)
    nodes = rng.integers(0, 6, 40)
    times = rng.uniform(0, 100.0, 40)
    pooled = relmodel.stats.trend(times, end=100.0, method="laplace")
    fleet = relmodel.stats.trend(times, end=100.0, node=nodes, method="laplace", n_systems=6)
    assert fleet.p_value == pytest.approx(pooled.p_value, rel=1e-12)
    assert fleet.beta == pytest.approx(pooled.beta, rel=1e-12)
    assert fleet.fit.lam * 6 == pytest.approx(pooled.fit.lam, rel=1e-12)
    assert [t.test for t in fleet.tests] == ["MIL-HDBK-189", "Laplace"]


def test_staggered_fleet_of_steady_nodes_is_steady_per_node_but_not_pooled():
    rng = np.random.default_rng(8)
    starts = rng.uniform(0, 900.0, 60)  # nodes enter service over time, all observed to 1000 h
    times, nodes = [], []
    for q, s in enumerate(starts):
        k = rng.poisson(0.05 * (1000.0 - s))
        times += list(rng.uniform(s, 1000.0, k))
        nodes += [q] * k
    start = {str(q): s for q, s in enumerate(starts)}
    per_node = relmodel.stats.trend(np.array(times), node=np.array(nodes), start=start, end=1000.0)
    assert per_node.verdict == "steady" and per_node.fit.beta_lo < 1 < per_node.fit.beta_hi
    pooled = relmodel.stats.trend(np.array(times), end=1000.0)
    assert pooled.verdict == "wearing out"  # the fleet grows, so pooled failures crowd late


def test_fleet_power_law_recovery():
    rng = np.random.default_rng(19)
    ends = rng.uniform(200.0, 2000.0, 40)
    times, nodes = [], []
    for q, end in enumerate(ends):
        t = _power_law(0.6, 0.5, end, rng)
        times += list(t)
        nodes += [q] * t.size
    fit = relmodel.stats.crow_amsaa(np.array(times), node=np.array(nodes), end=dict(zip(map(str, range(40)), ends)))
    assert fit.beta_lo < 0.6 < fit.beta_hi
    assert fit.lam == pytest.approx(0.5, rel=0.5)


def test_fleet_bad_inputs(stepfun_log):
    with pytest.raises(FitError, match="pool"):
        relmodel.stats.trend(stepfun_log, node=["x"])
    with pytest.raises(FitError, match="Lewis-Robinson"):
        relmodel.stats.trend(FLEET_T, node=FLEET_NODE, start=FLEET_START, end=FLEET_END, method="lewis-robinson")
    with pytest.raises(FitError, match="end of observation"):
        relmodel.stats.crow_amsaa(FLEET_T, node=FLEET_NODE)
    with pytest.raises(FitError, match="outside"):
        relmodel.stats.crow_amsaa(FLEET_T, node=FLEET_NODE, end=40.0)
