"""The Monte Carlo training simulator against the exact model, a plain event loop, and bad input."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from relmodel.checkpoint import ettr, time_breakdown
from relmodel.errors import ArgumentOrderWarning, ModelInputError
from relmodel.checkpoint.simulate import simulate_training
from relmodel.checkpoint.sources import LogReplay, NodeRenewals


class StandInFit:
    """Minimal fitted-distribution stand-in: vectorised ppf and mean_h."""

    def __init__(self, dist, name="stand-in"):
        self.dist, self.mean_h, self.name = dist, float(dist.mean()), name

    def ppf(self, q):
        return self.dist.ppf(q)


class SamplingFit(StandInFit):
    """Stand-in with the FitResult sampling method as well."""

    def sample(self, n, rng=None):
        return self.dist.rvs(size=n, random_state=np.random.default_rng(rng))


class FakeLog:
    def __init__(self, starts, window, planned=None):
        self.events = pd.DataFrame({"start_h": starts, "planned": planned if planned is not None
                                    else np.zeros(len(starts), bool)})
        self.window_h = window
        self.name = "fake"


GRID = [  # (M, delta, R, tau) in hours
    (24.0, 5 / 60, 10 / 60, 2.0), (6.0, 5 / 60, 10 / 60, 0.95), (0.25, 5 / 60, 10 / 60, 0.15),
    (3.09, 45 / 3600, 10 / 60, 0.27), (3.09, 45 / 3600, 10 / 60, 1.5), (1.0, 0.1, 0.0, 0.5),
    (1.0, 0.0, 0.3, 0.2), (0.5, 0.3, 0.6, 0.4), (50.0, 0.5, 2.0, 8.0),
]


@pytest.mark.parametrize("m, d, r, tau", GRID)
def test_simulator_matches_exact_ettr_within_99pct(m, d, r, tau):
    s = simulate_training(60 * tau, tau, m, d, r, n_runs=3000, seed=11)
    lo, hi = s.ettr_ci(0.99)
    assert lo <= ettr(tau, m, d, r) <= hi
    exact = time_breakdown(60 * tau, tau, m, d, r)
    br = s.breakdown(0.99).set_index("part")
    for part, want in (("lost work", exact.lost_h), ("restarts", exact.restart_time_h)):
        assert br.loc[part, "lo"] - 1e-12 <= want <= br.loc[part, "hi"] + 1e-12
    assert br.loc["checkpoint writes", "hours"] == pytest.approx(exact.checkpoint_h)


@pytest.mark.parametrize("m, d, r, tau", GRID[:6])
def test_gap_engine_matches_exact_for_exponential_fit(m, d, r, tau):
    fit = StandInFit(stats.expon(scale=m))
    s = simulate_training(40 * tau, tau, fit, d, r, n_runs=1500, seed=5)
    lo, hi = s.ettr_ci(0.99)
    assert lo <= ettr(tau, m, d, r) <= hi
    exact = time_breakdown(40 * tau, tau, m, d, r)
    br = s.breakdown(0.99).set_index("part")
    for part, want in (("lost work", exact.lost_h), ("restarts", exact.restart_time_h)):
        assert br.loc[part, "lo"] - 1e-12 <= want <= br.loc[part, "hi"] + 1e-12


def test_sampling_fit_and_real_fitresult_match_exact():
    s = simulate_training(20, 0.5, SamplingFit(stats.expon(scale=2.0)), 0.05, 0.1, n_runs=3000, seed=8)
    lo, hi = s.ettr_ci(0.99)
    assert lo <= ettr(0.5, 2.0, 0.05, 0.1) <= hi
    import relmodel
    x = stats.expon(scale=2.0).rvs(size=3000, random_state=np.random.default_rng(0))
    fit = relmodel.fit(x, "exponential")
    s = simulate_training(20, 0.5, fit, 0.05, 0.1, n_runs=3000, seed=8)
    lo, hi = s.ettr_ci(0.99)
    assert lo <= ettr(0.5, fit.mean_h, 0.05, 0.1) <= hi


def test_rescaled_fit_keeps_shape_and_moves_mean():
    from relmodel.checkpoint.sources import Rescaled
    base = SamplingFit(stats.weibull_min(0.7, scale=10.0))
    r = Rescaled(base, "2h")
    assert r.mean_h == pytest.approx(2.0) and r.factor == pytest.approx(2.0 / base.mean_h)
    np.testing.assert_allclose(r.ppf([0.1, 0.5, 0.9]), base.ppf([0.1, 0.5, 0.9]) * r.factor)
    x = r.sample(200000, 1)
    assert x.mean() == pytest.approx(2.0, rel=0.02)
    assert stats.weibull_min.fit(x[:20000], floc=0)[0] == pytest.approx(0.7, rel=0.03)
    with pytest.raises(ModelInputError):
        Rescaled(base, 0)


def test_partial_last_segment_matches_segment_sum():
    # a run of 20.3 tau: 20 full segments and one of 0.3 tau, each a Daly segment
    m, d, r, tau = 2.0, 0.05, 0.2, 0.5
    seg = lambda x: m * np.exp(r / m) * np.expm1((x + d) / m)  # noqa: E731
    want = 20 * seg(tau) + seg(0.3 * tau)
    s = simulate_training(20.3 * tau, tau, m, d, r, n_runs=5000, seed=21)
    se = s.wall_h.std(ddof=1) / np.sqrt(s.n_runs)
    assert abs(s.wall_h.mean() - want) < 2.576 * se


def test_partial_last_segment_agrees_between_engines():
    a = simulate_training(10.35, 1.0, 4.0, 0.05, 0.2, n_runs=6000, seed=1)
    b = simulate_training(10.35, 1.0, StandInFit(stats.expon(scale=4.0)), 0.05, 0.2, n_runs=6000, seed=2)
    se = np.hypot(a.wall_h.std() / np.sqrt(6000), b.wall_h.std() / np.sqrt(6000))
    assert abs(a.wall_h.mean() - b.wall_h.mean()) < 3.3 * se
    assert a.checkpoint_h == pytest.approx(11 * 0.05)


def _event_loop(work, tau, d, r, draw, rng, replicas):
    """Plain per-event simulation of the same model (independent reference)."""
    walls = []
    for _ in range(replicas):
        t, done, next_fail, restarting = 0.0, 0.0, draw(rng), False
        while done < work - 1e-12:
            if restarting:
                if next_fail < t + r:
                    t, next_fail = next_fail, next_fail + draw(rng)
                    continue
                t, restarting = t + r, False
            seg = min(tau, work - done) + d
            if next_fail < t + seg:
                t, next_fail, restarting = next_fail, next_fail + draw(rng), True
                continue
            t, done = t + seg, done + seg - d
        walls.append(t)
    return np.array(walls)


def test_weibull_renewal_matches_event_loop():
    dist = stats.weibull_min(0.6, scale=2.0)
    rng = np.random.default_rng(3)
    ref = _event_loop(12.5, 0.5, 0.05, 0.2, lambda g: dist.ppf(g.random()), rng, 1500)
    s = simulate_training(12.5, 0.5, StandInFit(dist), 0.05, 0.2, n_runs=4000, seed=4)
    se = np.hypot(ref.std() / np.sqrt(ref.size), s.wall_h.std() / np.sqrt(s.n_runs))
    assert abs(ref.mean() - s.wall_h.mean()) < 3.3 * se


def test_whole_wall_time_distribution_matches_event_loop():
    # not only the mean: the exponential engine, the gap engine and a plain event loop
    # sample the same distribution of wall times (two-sample Kolmogorov-Smirnov)
    rng = np.random.default_rng(12)
    ref = _event_loop(6.3, 0.5, 0.05, 0.2, lambda g: g.exponential(1.5), rng, 1500)
    fast = simulate_training(6.3, 0.5, 1.5, 0.05, 0.2, n_runs=4000, seed=13).wall_h
    gaps = simulate_training(6.3, 0.5, SamplingFit(stats.expon(scale=1.5)), 0.05, 0.2, n_runs=4000,
                             seed=14).wall_h
    ref, fast, gaps = (np.round(x, 9) for x in (ref, fast, gaps))  # runs without failures tie exactly
    assert stats.ks_2samp(ref, fast).pvalue > 0.001
    assert stats.ks_2samp(ref, gaps).pvalue > 0.001
    assert stats.ks_2samp(fast, gaps).pvalue > 0.001


def test_failure_count_and_wall_identity():
    s = simulate_training(50, 0.5, 2.0, 0.02, 0.1, n_runs=4000, seed=9)
    assert np.mean(s.failures) == pytest.approx(np.mean(s.wall_h) / 2.0, rel=0.03)
    np.testing.assert_allclose(s.wall_h, 50 + s.checkpoint_h + s.lost_h + s.restart_time_h)
    assert np.all(s.lost_h >= 0) and np.all(s.restart_time_h <= 0.1 * s.failures + 1e-9)


def test_node_renewals_of_exponential_nodes_match_exact():
    n, node_mtbf = 64, 64 * 2.0
    src = NodeRenewals(StandInFit(stats.weibull_min(1.0, scale=node_mtbf)), n)
    s = simulate_training(20, 0.4, src, 0.03, 0.1, n_runs=1500, seed=2)
    lo, hi = s.ettr_ci(0.99)
    assert lo <= ettr(0.4, 2.0, 0.03, 0.1) <= hi
    assert src.mean_h == pytest.approx(2.0)


def test_node_renewals_infant_mortality_hurts_new_fleet():
    fit = StandInFit(stats.weibull_min(0.6, scale=200.0))
    new = simulate_training(10, 0.3, NodeRenewals(fit, 32), 0.02, 0.1, n_runs=800, seed=1)
    aged = simulate_training(10, 0.3, NodeRenewals(fit, 32, warmup_h="2000h"), 0.02, 0.1, n_runs=800, seed=1)
    assert new.ettr < aged.ettr


def test_log_replay_periodic_failures():
    # one failure every 2 h: a 1.5 h segment with no restart cost fits between failures
    log = FakeLog(np.arange(0, 100, 2.0), (0.0, 100.0))
    s = simulate_training(15, 1.5, log, 0.0, 0.0, n_runs=500, seed=1)
    # each full 2 h gap holds one 1.5 h segment and loses 0.5 h; the first gap
    # (from a random start) loses at most 1.5 h
    assert np.all(s.lost_h <= 1.5 + 0.5 * s.failures + 1e-9)
    assert np.all(s.lost_h >= 0.5 * (s.failures - 1) - 1e-9)
    assert np.all(s.failures >= 9) and np.all(s.failures <= 10)


def test_log_replay_times_are_the_rotated_log():
    rng = np.random.default_rng(0)
    starts = np.sort(rng.uniform(0, 50, 40))
    src = LogReplay(FakeLog(starts, (0.0, 50.0)))
    for horizon in (3.0, 49.0, 120.0):
        t = src.times(np.random.default_rng(1), 30, horizon)
        off = np.random.default_rng(1).random(30) * 50.0
        for i in range(30):
            tiled = np.concatenate([starts + 50.0 * j for j in range(5)]) - off[i]
            want = np.sort(tiled[(tiled >= 0) & (tiled <= horizon)])
            got = t[i][np.isfinite(t[i])]
            np.testing.assert_allclose(got, want)


def test_log_replay_fraction_and_planned():
    starts = np.arange(0, 100, 1.0)
    planned = np.arange(100) % 2 == 0
    full = LogReplay(FakeLog(starts, (0.0, 100.0), planned))
    assert full.mean_h == pytest.approx(1.0)
    assert LogReplay(FakeLog(starts, (0.0, 100.0), planned), include_planned=False).mean_h == pytest.approx(2.0)
    half = LogReplay(FakeLog(starts, (0.0, 100.0)), fraction=0.5)
    s = simulate_training(20, 0.2, half, 0.01, 0.05, n_runs=400, seed=3)
    assert np.mean(s.failures) == pytest.approx(np.mean(s.wall_h) / 2.0, rel=0.1)
    with pytest.raises(ModelInputError):
        LogReplay(FakeLog(starts, (0.0, 100.0)), fraction=0)


@pytest.mark.filterwarnings("ignore:StepFun")
def test_replay_of_bundled_stepfun_log():
    import relmodel
    log = relmodel.datasets.stepfun()
    s = simulate_training("20d", "1h", log, "2min", "10min", n_runs=300, seed=1)
    assert 0 < s.ettr < 1 and np.all(np.isfinite(s.wall_h))
    assert np.mean(s.failures) == pytest.approx(np.mean(s.wall_h) / s.mtbf_h, rel=0.25)


def test_count_table_means_exponential_at_its_job_mtbf():
    import relmodel
    s = simulate_training("10d", "16min", relmodel.datasets.llama3_54day(), "45s", "10min", n_runs=500, seed=1)
    assert s.source.startswith("exponential") and s.mtbf_h == pytest.approx(54 * 24 / 419)
    lo, hi = s.ettr_ci()
    assert lo <= ettr(16 / 60, 54 * 24 / 419, 45 / 3600, 1 / 6) <= hi


def test_results_api_and_reproducible():
    a = simulate_training("2d", "30min", "3h", "1min", "5min", n_runs=200, seed=7)
    b = simulate_training("2d", "30min", "3h", "1min", "5min", n_runs=200, seed=7)
    np.testing.assert_array_equal(a.wall_h, b.wall_h)
    assert a.to_frame().shape == (200, 6)
    assert set(a.summary().index) >= {"ettr", "ettr_lo", "ettr_hi", "wall_p50_h"}
    q = a.wall_quantiles()
    assert q["wall_h"].is_monotonic_increasing and np.all((q["lo"] <= q["wall_h"]) & (q["wall_h"] <= q["hi"]))
    assert "ETTR" in a._repr_html_()


def test_wall_quantile_interval_covers_the_true_median():
    # exponential failures: the true median of the wall time from a very large run
    big = simulate_training(5, 0.5, 1.0, 0.05, 0.1, n_runs=400000, seed=1)
    true_median = np.median(big.wall_h)
    covered = 0
    for seed in range(40):
        q = simulate_training(5, 0.5, 1.0, 0.05, 0.1, n_runs=500, seed=100 + seed).wall_quantiles([0.5], 0.9)
        covered += q["lo"].iloc[0] <= true_median <= q["hi"].iloc[0]
    assert covered >= 32  # nominal 90% of 40 = 36


def test_step_rounds_interval_and_rejects_short_interval():
    s = simulate_training(10, "25min", 5.0, 0.01, 0.05, n_runs=50, seed=1, step="10min")
    assert s.interval_h == pytest.approx(20 / 60)
    with pytest.raises(ModelInputError, match="shorter than one step"):
        simulate_training(10, "5min", 5.0, 0.01, 0.05, n_runs=50, step="10min")


@pytest.mark.parametrize("kw", [dict(work=-1), dict(work=0), dict(interval=0), dict(ckpt_cost=-0.1),
                                dict(restart=-1), dict(failures=0), dict(failures=-3), dict(failures="x"),
                                dict(failures=[1, 2]), dict(n_runs=1), dict(interval=np.nan)])
def test_bad_input(kw):
    args = dict(work=10, interval=1, ckpt_cost=0.1, restart=0.1, failures=3.0, n_runs=10)
    args.update(kw)
    with pytest.raises(ModelInputError):
        simulate_training(**args)


def test_hopeless_run_is_refused_not_hung():
    with pytest.raises(ModelInputError, match="ETTR near 0"), pytest.warns(ArgumentOrderWarning):
        simulate_training(1000, 50, 0.5, 1, 1, n_runs=100)


def test_job_that_never_finishes_is_refused():
    log = FakeLog(np.arange(0, 100, 0.1), (0.0, 100.0))  # a failure every 6 minutes
    with pytest.raises(ModelInputError, match="does not finish"):
        simulate_training(10, 1.0, log, 0.01, 0.01, n_runs=20)
    short = StandInFit(stats.uniform(0, 0.5))  # gaps never longer than 0.5 h
    with pytest.raises(ModelInputError, match="does not finish"):
        simulate_training(10, 1.0, short, 0.01, 0.01, n_runs=20)


def test_bad_ppf_is_named():
    class Bad(StandInFit):
        def ppf(self, q):
            return np.full(np.shape(q), np.nan)
    with pytest.raises(ModelInputError, match="NaN"):
        simulate_training(10, 1, Bad(stats.expon()), 0.1, 0.1, n_runs=10)
