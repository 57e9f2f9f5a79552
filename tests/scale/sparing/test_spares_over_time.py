"""Spares over a planning horizon (relmodel.scale.sparing.spares_time) against independent simulations."""

import math

import numpy as np
import pytest
from scipy import stats

from relmodel.errors import ModelInputError
from relmodel.scale.sparing.spares import EmpiricalRepair
from relmodel.scale.sparing.spares_time import spares_over_time

LAM, C, LEAD = 2048 / 50_000, 14, 240.0        # swaps per hour, spares, mean RMA hours (10 days)


def away_counts(rng, lam, lead, scrap, grid, runs):
    """Units away at each grid time from a full start, with no failures of spares: no event loop needed,
    since each failure is away from its time until its return (or for good when scrapped)."""
    out = np.zeros((runs, grid.size), int)
    for i in range(runs):
        n = rng.poisson(lam * grid[-1])
        t = rng.uniform(0, grid[-1], n)
        back = np.where(rng.random(n) < scrap, np.inf, t + rng.exponential(lead, n))
        out[i] = ((t[None, :] <= grid[:, None]) & (grid[:, None] < back[None, :])).sum(axis=1)
    return out


def test_no_spare_failures_closed_form_and_both_simulations():
    grid = np.linspace(0, 90 * 24, 31)
    for scrap in (0.0, 0.1):
        r = spares_over_time(LAM, C, LEAD, "90d", scrap=scrap, n_runs=1500, seed=3)
        mean = LAM * ((1 - scrap) * LEAD * -np.expm1(-grid / LEAD) + scrap * grid)   # M/G/inf from empty
        closed = stats.poisson.sf(C - 1, mean)
        np.testing.assert_allclose(r.frame["p_empty"], closed, rtol=1e-12)
        ref = (away_counts(np.random.default_rng(8), LAM, LEAD, scrap, grid, 3000) >= C).mean(axis=0)
        se = np.sqrt(closed * (1 - closed) / 3000) + 1e-9
        assert np.all(np.abs(ref - closed) < 4 * se + 2e-3)
        se_lib = np.sqrt(closed * (1 - closed) / 1500) + 1e-9
        assert np.all(np.abs(r.frame["p_empty_sim"] - closed) < 4 * se_lib + 2e-3)
    # settled, with nothing scrapped: the stationary Poisson(lam E[S]) tail of relmodel.scale.sparing.spares
    r = spares_over_time(LAM, C, LEAD, "90d", n_runs=10, seed=0)
    assert r.stationary == pytest.approx(stats.poisson.sf(C - 1, LAM * LEAD), rel=1e-12)
    assert r.frame["p_empty"].iloc[0] == 0 and r.frame["p_empty"].iloc[-1] == pytest.approx(r.stationary, rel=1e-3)


def test_fixed_lead_time_is_exact_too():
    # a fixed 10-day RMA: units away at t are the failures of the last min(t, 10 d): Poisson(lam min(t, S))
    r = spares_over_time(LAM, C, EmpiricalRepair(np.array([LEAD])), "30d", n_runs=10, points=7, seed=0)
    t = np.linspace(0, 30 * 24, 7)
    np.testing.assert_allclose(r.frame["p_empty"], stats.poisson.sf(C - 1, LAM * np.minimum(t, LEAD)), rtol=1e-12)


def uniformised_run(rng, lam, nu, c, lead, horizon):
    """Failures of spares by uniformisation: candidate events at the top rate lam + nu c, one accepted with
    probability (lam + nu x spares on the shelf) / (lam + nu c).  Returns (spares on the shelf at the horizon,
    the time the shelf first ran dry or inf)."""
    top = lam + nu * c
    t, free, back, dry = 0.0, c, [], np.inf
    while True:
        t += rng.exponential(1 / top)
        if t > horizon:
            break
        back.sort()
        while back and back[0] <= t:
            back.pop(0)
            free += 1
        if rng.random() * top < lam + nu * max(free, 0):
            free -= 1
            back.append(t + rng.exponential(lead))
            if free <= 0 and dry == np.inf:
                dry = t
    return free + sum(b <= horizon for b in back), dry


def test_spare_failures_against_a_uniformised_simulation():
    nu, horizon = 2e-3, 60 * 24.0
    r = spares_over_time(LAM, C, LEAD, "60d", spare_rate_per_h=nu, n_runs=2000, seed=5, points=2)
    rng = np.random.default_rng(9)
    end_free, dry = zip(*(uniformised_run(rng, LAM, nu, C, LEAD, horizon) for _ in range(2000)))
    p_end = np.mean(np.array(end_free) <= 0)
    p_dry = np.mean(np.isfinite(dry))
    se = math.sqrt(p_end * (1 - p_end) / 2000 * 2) + 1e-9
    assert abs(r.frame["p_empty_sim"].iloc[-1] - p_end) < 4 * se + 2e-3
    se = math.sqrt(p_dry * (1 - p_dry) / 2000 * 2) + 1e-9
    assert abs(r.p_ever_empty - p_dry) < 4 * se + 2e-3
    # spares that fail while they wait empty the shelf more often than the same pool of perfect spares
    perfect = spares_over_time(LAM, C, LEAD, "60d", n_runs=2000, seed=5, points=2)
    assert r.frame["p_empty_sim"].iloc[-1] > perfect.frame["p_empty"].iloc[-1]
    assert np.isnan(r.frame["p_empty"]).all()


def test_scrap_runs_the_pool_down_and_the_text_says_so():
    r = spares_over_time(LAM, C, LEAD, "180d", scrap=0.2, n_runs=200, seed=1)
    p = r.frame["p_empty"].to_numpy()
    assert np.all(np.diff(p[5:]) > 0) and r.stationary == 1.0
    assert "never replaced" in r.text() and "nan" not in r._repr_html_().lower()


def test_bounded_work():
    from relmodel.errors import ResourceLimitError
    with pytest.raises(ResourceLimitError, match="fewer runs"):
        spares_over_time(1000.0, C, LEAD, "90d", n_runs=2000, seed=0)


@pytest.mark.parametrize("kw", [dict(spares=-1), dict(spares=2.5), dict(scrap=1.5), dict(spare_rate_per_h=-1.0),
                                dict(horizon="0h"), dict(n_runs=0)])
def test_bad_inputs(kw):
    args = dict(failure_rate_per_h=LAM, spares=C, lead_time=LEAD, horizon="30d", n_runs=10)
    args.update(kw)
    with pytest.raises(ModelInputError):
        spares_over_time(**args)


def test_runs_within_keeps_a_million_gpu_shelf_inside_the_event_budget():
    from relmodel.scale.sparing.spares_time import MAX_EVENTS, runs_within
    # hand count: 18.5 swaps an hour for 90 days, each leaving and coming back: 2 x 18.5 x 2,160 = 79,920 events a run
    assert runs_within(18.5, "90d", 500) == 20_000_000 // 79_920 == 250
    assert runs_within(0.1, "90d", 500) == 500            # 432 events a run: every run asked for
    assert runs_within(1e9, "90d", 500) == 1               # never zero runs
    got = runs_within(18.5, "90d", 500)
    assert 2 * 18.5 * 2160 * got <= MAX_EVENTS < 2 * 18.5 * 2160 * (got + 1)
    assert runs_within(18.5, "90d", 500, events=2e6) == 2_000_000 // 79_920 == 25   # the designs page's budget


def test_running_dry_without_spare_failures_against_the_event_loop_reference():
    # only job failures take spares: relmodel draws every run at once; the reference steps one event at a time
    horizon = 60 * 24.0
    for c, scrap in ((C, 0.0), (0, 0.0), (3, 0.0)):
        r = spares_over_time(LAM, c, LEAD, "60d", scrap=scrap, n_runs=3000, seed=11, points=5)
        rng = np.random.default_rng(12)
        dry = np.array([uniformised_run(rng, LAM, 0.0, c, LEAD, horizon)[1] for _ in range(3000)])
        for day, got in zip(np.linspace(0, 60, 5), r.frame["p_ever_empty_sim"]):
            want = np.mean(dry <= day * 24)
            se = math.sqrt(max(want * (1 - want), 1e-4) / 3000 * 2)
            assert abs(got - want) < 4 * se + 2e-3, (c, scrap, day, got, want)
        assert r.frame["p_ever_empty_sim"].iloc[0] == 0.0
