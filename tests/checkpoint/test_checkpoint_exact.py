"""Closed-form checkpoint models: published vectors, optimality, exact breakdown, bad input."""

import numpy as np
import pytest
from scipy import optimize, stats

import relmodel
from relmodel.checkpoint import (best_step_interval, daly_interval, ettr, expected_wall_time,
                                 optimal_interval, time_breakdown, young_interval)
from relmodel.errors import ArgumentOrderWarning, ModelInputError

MIN = 1 / 60


@pytest.mark.parametrize("mtbf_h, daly_min, young_min, digits",
                         [(24.0, 117, 120, 0), (6.0, 57, 60, 0), (0.25, 9.1, 12.2, 1)])
def test_daly_2006_published_vectors(mtbf_h, daly_min, young_min, digits):
    # Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
    # Future Generation Computer Systems 22(3), 2006: delta = 5 min, R = 10 min; the paper
    # prints whole minutes (117, 57) and 9.1 min, so compare at the printed precision.
    assert round(daly_interval(mtbf_h, "5min") / MIN, digits) == daly_min
    assert round(young_interval(mtbf_h, "5min") / MIN, digits) == young_min


def test_daly_vectors_unrounded_from_reference():
    # REFERENCE.md: the higher-order formula gives 116.69, 56.71, 9.14 minutes.
    got = daly_interval(np.array([24.0, 6.0, 0.25]), 5 * MIN) / MIN
    np.testing.assert_allclose(got, [116.69, 56.71, 9.14], atol=0.006)


def test_daly_is_mtbf_when_cost_exceeds_twice_mtbf():
    with pytest.warns(ArgumentOrderWarning, match=r"daly_interval\(mtbf, ckpt_cost\)"):
        assert daly_interval(1.0, 3.0) == 1.0


def test_lambert_optimum_matches_numerical_minimum():
    for m, d, r in [(24, 5 * MIN, 10 * MIN), (3.09, 45 / 3600, 10 * MIN), (0.3, 0.2, 0.5)]:
        res = optimize.minimize_scalar(lambda t: -ettr(t, m, d, r), bounds=(1e-6, 10 * m),
                                       method="bounded", options={"xatol": 1e-10})
        assert optimal_interval(m, d, restart=r) == pytest.approx(res.x, rel=1e-5)


def test_optimum_is_accurate_for_tiny_cost_over_mtbf():
    # near W0's branch point: continuity across the switch to the series, and the
    # first-order limit sqrt(2 delta M) (Young) as delta/M -> 0
    m = 1.0
    below, above = optimal_interval(m, 1e-6 * (1 - 1e-9)), optimal_interval(m, 1e-6 * (1 + 1e-9))
    assert below == pytest.approx(above, rel=1e-9)
    for eps in (1e-9, 1e-14, 1e-18, 1e-25):
        tau = optimal_interval(m, eps)
        assert tau > 0 and tau == pytest.approx(np.sqrt(2 * eps) * (1 - np.sqrt(2 * eps) / 3), rel=1e-6)
        # it is a stationary point of ETTR: derivative zero, i.e. e^x (1 - tau) = 1 with x = tau + delta
        assert np.exp(tau + eps) * (1 - tau) == pytest.approx(1.0, abs=1e-15)


def test_exact_optimum_beats_young_and_daly_on_a_grid():
    m, d = np.meshgrid(np.geomspace(0.05, 500, 60), np.geomspace(1e-3, 5, 50))
    r = 0.2
    with pytest.warns(ArgumentOrderWarning):  # the grid has costs above the MTBF
        best = ettr(optimal_interval(m, d), m, d, r)
        assert np.all(best >= ettr(young_interval(m, d), m, d, r) - 1e-15)
        assert np.all(best >= ettr(daly_interval(m, d), m, d, r) - 1e-15)
    assert np.all((best > 0) & (best < 1))


def test_expected_wall_time_is_daly_formula_written_out():
    ts, tau, m, d, r = 500.0, 2.0, 24.0, 5 * MIN, 10 * MIN
    want = m * np.exp(r / m) * (np.exp((tau + d) / m) - 1) * ts / tau
    assert expected_wall_time(ts, tau, m, d, r) == pytest.approx(want, rel=1e-13)
    assert ts / want == pytest.approx(ettr(tau, m, d, r), rel=1e-13)


@pytest.mark.parametrize("tau, m, d, r", [(2.0, 24.0, 5 * MIN, 10 * MIN), (0.27, 3.09, 45 / 3600, 10 * MIN),
                                          (1.0, 0.3, 0.2, 0.5), (0.05, 30.0, 0.01, 0.0)])
def test_breakdown_adds_up_and_matches_independent_terms(tau, m, d, r):
    b = time_breakdown(100.0, tau, m, d, r)
    total = b.work_h + b.checkpoint_h + b.lost_h + b.restart_time_h
    assert total == pytest.approx(b.wall_h, rel=1e-12)
    assert b.ettr == pytest.approx(ettr(tau, m, d, r), rel=1e-12)
    # independent: geometric attempts, truncated-exponential loss (scipy), restart of R
    L, nseg = tau + d, 100.0 / tau
    p = np.exp(-L / m)
    k = (1 - p) / p
    lost_one = stats.truncexpon(b=L / m, scale=m).mean()
    assert b.lost_h == pytest.approx(nseg * k * lost_one, rel=1e-6)
    restart_one = stats.expon(scale=m).expect(lambda t: t, lb=0, ub=r) + np.exp(-r / m) * r if r else 0
    per_restart = restart_one / np.exp(-r / m) if r else 0  # attempts until R runs clean
    assert b.restart_time_h == pytest.approx(nseg * k * per_restart, rel=1e-6, abs=1e-12)
    assert b.checkpoint_h == pytest.approx(nseg * d)
    assert b.failures == pytest.approx(b.wall_h / m, rel=1e-12)


@pytest.mark.parametrize("x", [1e-9, 3.3e-5, 0.004, 0.0099, 0.0101, 0.3])
def test_lost_work_has_no_cancellation_for_short_segments(x):
    # M (e^x - 1 - x) per segment, summed from its Taylor series with math.fsum
    import math
    m, tau = 10.0, 0.9 * x * 10.0
    want = m * math.fsum(x ** k / math.factorial(k) for k in range(2, 30)) / tau
    got = time_breakdown(100.0, tau, m, 0.1 * x * 10.0).lost_h / 100.0
    assert got == pytest.approx(want, rel=1e-13)


def test_breakdown_frame_and_html():
    b = time_breakdown("500h", "2h", "24h", "5min", "10min")
    df = b.to_frame()
    assert list(df["part"]) == ["useful", "checkpoint writes", "lost work", "restarts", "total"]
    assert df["share"].iloc[:4].sum() == pytest.approx(1.0)
    assert "ETTR" in b._repr_html_()
    grid = time_breakdown(10, np.array([0.5, 1, 2]), np.array([[3.0], [30.0]]), 0.1, 0.2)
    assert grid.to_frame().shape[0] == 6
    np.testing.assert_allclose(grid.ettr, ettr(np.array([0.5, 1, 2]), np.array([[3.0], [30.0]]), 0.1, 0.2))


def test_vectorised_grid_one_call():
    t = np.geomspace(0.01, 10, 1000)[None, :]
    m = np.geomspace(0.1, 100, 1000)[:, None]
    e = ettr(t, m, 0.01, 0.1)
    assert e.shape == (1000, 1000) and np.all(np.isfinite(e))


def test_best_step_interval_matches_brute_force():
    for step, m, d, r in [(1 * MIN, 3.09, 45 / 3600, 10 * MIN), (7 * MIN, 3.09, 45 / 3600, 0.2),
                          (0.01, 24, 5 * MIN, 10 * MIN)]:
        res = best_step_interval(step, m, d, r)
        n = np.arange(1, 5000)
        brute = n[np.argmax(ettr(n * step, m, d, r))]
        assert res.steps == brute
        assert res.ettr <= res.optimal_ettr
        assert res.interval_h == pytest.approx(brute * step)


def test_step_longer_than_optimum_gives_one_step():
    res = best_step_interval("3h", 3.09, "45s", "10min")
    assert res.steps == 1 and res.interval_h == pytest.approx(3.0)
    assert res.to_frame().shape == (1, 6)


@pytest.mark.parametrize("args", [(-1, 3.0, 0.1), (0, 3.0, 0.1), (1.0, 0, 0.1), (1.0, -3, 0.1),
                                  (1.0, 3.0, -0.1), (np.nan, 3.0, 0.1), (1.0, np.inf, 0.1)])
def test_bad_input_raises_named_error(args):
    with pytest.raises(ModelInputError):
        ettr(*args)
    with pytest.raises(ModelInputError):
        time_breakdown(10, *args)


def test_zero_costs_rejected_where_meaningless():
    with pytest.raises(ModelInputError):
        optimal_interval(3.0, 0)
    with pytest.raises(ModelInputError):
        young_interval(3.0, 0)
    with pytest.raises(ModelInputError):
        best_step_interval(0, 3.0, 0.1)
    assert ettr(1.0, 3.0, 0.0, 0.0) == pytest.approx(1 / (3 * np.expm1(1 / 3)))


def test_checkpoint_longer_than_mtbf_is_documented_not_nan():
    with pytest.warns(ArgumentOrderWarning, match="ckpt_cost .* is at or above mtbf"):
        e = ettr(1.0, 0.5, 2.0, 0.1)
    assert 0 < e < 0.01
    with pytest.warns(ArgumentOrderWarning):
        assert ettr(100.0, 0.01, 1.0, 1.0) == 0.0
        b = time_breakdown(1000, 100.0, 0.01, 1.0, 1.0)
        assert np.isinf(expected_wall_time(1000, 100.0, 0.01, 1.0, 1.0))
    df = b.to_frame()
    assert not df["share"].isna().any() and b.ettr == 0.0


def test_exports():
    for name in ("expected_wall_time", "time_breakdown", "best_step_interval"):
        assert hasattr(relmodel.checkpoint, name)
