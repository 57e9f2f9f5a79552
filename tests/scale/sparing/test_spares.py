"""Hot-spare pool sizing (M/G/inf occupancy, Erlang loss) and ETTR lost to repairs."""

import warnings

import numpy as np
import pytest
from scipy import stats

from relmodel import datasets
from relmodel.errors import ModelInputError
from relmodel.scale.targets.requirements import best_ettr
from relmodel.scale.sparing.spares import (EmpiricalRepair, erlang_b, p_no_spare, repair_model, simulate_stalls,
                             spare_pool, spares_table)


def test_erlang_b_matches_truncated_poisson():
    # B(c, a) = P(N = c | N <= c) for N ~ Poisson(a)
    for a in (0.3, 2.0, 40.0):
        for c in (0, 1, 3, 17, 60):
            assert erlang_b(c, a) == pytest.approx(stats.poisson.pmf(c, a) / stats.poisson.cdf(c, a), rel=1e-9)
    assert np.allclose(erlang_b([5, 0, 2], 2.0), [erlang_b(5, 2.0), 1.0, erlang_b(2, 2.0)])


def test_pool_is_smallest_meeting_target():
    plan = spare_pool(0.5, "20h", target=0.01)
    a = 10.0
    assert plan.offered_load == pytest.approx(a)
    n = plan.n_spares
    assert stats.poisson.sf(n - 1, a) < 0.01 <= stats.poisson.sf(n - 2, a)
    e = spare_pool(0.5, "20h", target=0.01, model="erlang")
    assert erlang_b(e.n_spares, a) < 0.01 <= erlang_b(e.n_spares - 1, a)
    assert e.n_spares <= n  # the loss model is less demanding
    assert spare_pool(0.5, "40h", 0.01).n_spares > n
    assert plan.curve["p_no_spare"].is_monotonic_decreasing


def test_no_spares_means_waiting_for_each_repair():
    # light load: with no spares, nearly every failure waits a whole repair
    p, wait = simulate_stalls(0.001, 5.0, 0, n_runs=20_000, seed=1)
    assert p == 1.0 and wait == pytest.approx(5.0, rel=0.03)


def test_simulated_stall_chance_between_loss_and_poisson_models():
    lam, s = 0.5, 10.0
    for c in (3, 6, 9):
        p, _ = simulate_stalls(lam, s, c, n_runs=40_000, seed=2)
        assert 0.8 * erlang_b(c, lam * s) < p < 1.1 * p_no_spare(c, lam * s)


def test_ettr_falls_with_fewer_spares():
    t = spares_table(0.5, 10.0, "1min", "10min", job_mtbf_h=1.5, n_runs=5000, seed=3)
    assert t["spares"].iloc[0] == 0
    assert np.all(np.diff(t["ettr"]) >= -1e-12)
    base = best_ettr(1.5, "1min", "10min")
    assert t["ettr"].iloc[-1] == pytest.approx(base, rel=1e-3)
    assert t["ettr_lost"].iloc[0] > 0.5 * base * 0.5 * 10 / (1 + 0.5 * 10)


def test_repair_model_from_stepfun_downtimes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = datasets.stepfun()
        d = log.downtimes().hours
        emp = repair_model(log, "empirical")
        wb = repair_model(log, "weibull")
    assert isinstance(emp, EmpiricalRepair) and emp.mean_h == pytest.approx(d.mean())
    assert wb.params["shape"] < 1 and 0.5 * d.mean() < wb.mean_h < 2 * d.mean()
    assert spare_pool(1.0, wb, 0.01).offered_load == pytest.approx(wb.mean_h)
    x = emp.sample(1000, rng=0)
    assert set(np.unique(x)) <= set(np.unique(d))
    p, _ = simulate_stalls(1.0, emp, 200, n_runs=2000, seed=0)
    assert 0 <= p <= 1


def test_bad_spare_inputs():
    with pytest.raises(ModelInputError):
        spare_pool(0, "1h")
    with pytest.raises(ModelInputError):
        spare_pool(1.0, "1h", target=1.5)
    with pytest.raises(ModelInputError):
        erlang_b(-1, 2.0)
    with pytest.raises(ModelInputError):
        p_no_spare(2, 1.0, model="queue")
    with pytest.raises(ModelInputError):
        simulate_stalls(1.0, 1.0, 1.5)
    with pytest.raises(ModelInputError):
        repair_model([0.0, 0.0], "empirical")


def test_spares_for_a_scaled_cluster_with_interval():
    from relmodel.scale.clusters.scaling import scale_rates
    from relmodel.scale.sparing.spares import spares_for, swap_rate
    sc = scale_rates(datasets.llama3_54day(), None, 100_000, n_boot=10, seed=0)
    lam = swap_rate(sc)
    t = sc.by_cause
    assert lam == pytest.approx(t.loc[t.scales_with.isin(["gpu", "node"]), "rate_per_h"].sum())
    assert lam < sc.job_rate_per_h
    plan = spares_for(sc, "24h", 0.01, n_boot=500, seed=0)
    assert plan.n_spares == spare_pool(lam, "24h", 0.01).n_spares
    assert plan.n_spares_lo <= plan.n_spares <= plan.n_spares_hi
