"""Finite repair capacity: the closed form, the event simulation and a separate simulation written here.

References: the M/M/c (Erlang C) stationary law from the textbook formula
(Kleinrock, Queueing Systems vol. 1, 1975, section 3.5), the Poisson count of
unlimited repairs, a Gillespie simulation of the exponential model and a
plain list-based event simulation of deterministic repairs, all written below.
"""

import math

import numpy as np
import pytest

from relmodel.errors import ModelInputError
from relmodel.scale.sparing.repair_queue import (QueuedRepair, away_pmf, crew_wait_h, erlang_c, pool_figures,
                                         simulate_pool)
from relmodel.scale.sparing.spares import spare_pool, spares_table, spares_for
from relmodel.scale.sparing.spares_time import spares_over_time


def mmc_pmf(lam, mu, c, n_max):
    """M/M/c stationary pmf, textbook: p_n = p0 a^n/n! (n < c), p0 a^n / (c! c^(n-c)) (n >= c)."""
    a = lam / mu
    terms = [a ** n / math.factorial(n) if n < c else a ** n / (math.factorial(c) * c ** (n - c))
             for n in range(n_max)]
    rho = a / c
    p0 = 1.0 / (sum(a ** n / math.factorial(n) for n in range(c)) + a ** c / (math.factorial(c) * (1 - rho)))
    return np.array(terms) * p0


def gillespie(lam, s_mean, lead, crews, spares, nu, n_fail, seed):
    """Exponential repairs and lead times: the stall model by competing clocks (no heaps, no queues)."""
    rng = np.random.default_rng(seed)
    crew_stage, rma, free, stalled = 0, 0, spares, False
    t, stall_t, empty_t, jobs, none = 0.0, 0.0, 0.0, 0, 0
    while jobs < n_fail:
        r_job = 0.0 if stalled else lam
        r_spare = nu * free
        r_fix = min(crew_stage, crews if crews else crew_stage) / s_mean
        r_back = rma / lead if lead > 0 else 0.0
        total = r_job + r_spare + r_fix + r_back
        dt = rng.exponential(1.0 / total)
        if stalled:
            stall_t += dt
        if free == 0:
            empty_t += dt
        t += dt
        u = rng.random() * total
        if u < r_job:
            jobs += 1
            crew_stage += 1
            if free:
                free -= 1
            else:
                none += 1
                stalled = True
        elif u < r_job + r_spare:
            free -= 1
            crew_stage += 1
        else:
            if u < r_job + r_spare + r_fix:
                crew_stage -= 1
                if lead > 0:
                    rma += 1
                    continue
            else:
                rma -= 1
            if stalled:
                stalled = False
            else:
                free += 1
    return {"p_no_spare": none / jobs, "stall_share": stall_t / t, "p_empty": empty_t / t,
            "mean_stall_h": stall_t / jobs}


def fixed_repairs(lam, s, crews, spares, n_fail, seed):
    """Deterministic repairs of ``s`` hours, first come first served, no lead time: the stall model."""
    rng = np.random.default_rng(seed)
    crews_free_at = [0.0] * crews
    returns = []                               # times units come back
    free, t, jobs, none, stall = spares, 0.0, 0, 0, 0.0
    while jobs < n_fail:
        t += rng.exponential(1.0 / lam)
        returns.sort()
        while returns and returns[0] <= t:     # units back before this failure
            returns.pop(0)
            free += 1
        jobs += 1
        i = int(np.argmin(crews_free_at))      # first crew free, first come first served
        done = max(t, crews_free_at[i]) + s
        crews_free_at[i] = done
        returns.append(done)
        if free:
            free -= 1
            continue
        none += 1
        returns.sort()
        back = returns.pop(0)                 # the job waits for the first unit back and takes it
        stall += back - t
        t = back
    return none / jobs, stall / jobs


def test_mmc_against_textbook():
    lam, mu, c = 2.0, 0.5, 6
    p = away_pmf(lam, 1 / mu, crews=c)
    ref = mmc_pmf(lam, mu, c, 60)
    np.testing.assert_allclose(p[:60], ref, rtol=1e-9, atol=1e-15)
    # Erlang C: the chance of waiting is P(N >= c)
    assert erlang_c(c, lam / mu) == pytest.approx(1 - ref[:c].sum(), rel=1e-9)
    # mean wait: C / (c mu - lam)
    assert crew_wait_h(lam, 1 / mu, c) == pytest.approx((1 - ref[:c].sum()) / (c * mu - lam), rel=1e-9)


def test_unlimited_is_poisson_and_many_crews_tend_to_it():
    from scipy import stats
    lam, s, lead = 0.7, 10.0, 30.0
    ref = stats.poisson.pmf(np.arange(80), lam * (s + lead))
    np.testing.assert_allclose(away_pmf(lam, s, rma_h=lead)[:80], ref, rtol=1e-9, atol=1e-16)
    many = away_pmf(lam, s, crews=200, rma_h=lead)[:80]
    np.testing.assert_allclose(many, ref, atol=1e-9)
    assert spare_pool(lam, s, 0.01, crews=200, rma_lead_time=lead).n_spares == spare_pool(lam, s + lead, 0.01).n_spares


@pytest.mark.parametrize("crews,lead,nu", [(None, 0.0, 0.0), (3, 0.0, 0.0), (3, 5.0, 0.0), (4, 0.0, 0.05),
                                           (4, 3.0, 0.05)])
def test_closed_form_simulation_and_gillespie_agree(crews, lead, nu):
    lam, s, spares = 1.0, 2.0, 4
    closed = pool_figures(lam, s, spares, crews=crews, rma_h=lead, spare_rate=nu, model="stall")
    sim = simulate_pool(lam, s, spares, crews=crews, rma_lead_time=lead, spare_rate_per_h=nu, n_runs=60_000,
                        seed=3)
    ref = gillespie(lam, s, lead, crews, spares, nu, 60_000, seed=4)
    for key in ("p_no_spare", "stall_share", "p_empty"):
        assert sim[key] == pytest.approx(closed[key], abs=0.015), key
        assert ref[key] == pytest.approx(closed[key], abs=0.015), key
    assert sim["mean_stall_h"] == pytest.approx(closed["mean_stall_h"], rel=0.08)
    assert ref["mean_stall_h"] == pytest.approx(closed["mean_stall_h"], rel=0.08)


def test_general_repair_law_against_list_simulation():
    class Fixed:
        mean_h = 3.0

        def sample(self, n, rng=None):
            return np.full(int(n), 3.0)
    lam, crews, spares = 0.5, 2, 3
    sim = simulate_pool(lam, Fixed(), spares, crews=crews, n_runs=80_000, seed=5)
    p_ref, stall_ref = fixed_repairs(lam, 3.0, crews, spares, 80_000, seed=6)
    assert sim["p_no_spare"] == pytest.approx(p_ref, abs=0.01)
    assert sim["mean_stall_h"] == pytest.approx(stall_ref, rel=0.06)
    # the law matters with finite crews: with exponential repairs of the same mean the job waits longer
    expo = pool_figures(lam, 3.0, spares, crews=crews, model="stall")
    assert expo["mean_stall_h"] > 1.3 * stall_ref


def test_crews_make_pools_bigger_and_too_few_crews_are_refused():
    lam, s = 0.2, 24.0                                  # about 4.8 units in repair on average
    unlimited = spare_pool(lam, s, 0.01).n_spares
    assert spare_pool(lam, s, 0.01, crews=20).n_spares == unlimited
    assert spare_pool(lam, s, 0.01, crews=6).n_spares > unlimited
    with pytest.raises(ModelInputError, match="at least 5 crews"):
        spare_pool(lam, s, 0.01, crews=4)
    with pytest.raises(ModelInputError, match="crews must be a whole number"):
        spare_pool(lam, s, 0.01, crews=0)
    # failing spares need more of them
    assert spare_pool(lam, s, 0.01, spare_rate_per_h=0.01).n_spares >= unlimited + 1


def test_spares_table_columns_check_each_other():
    t = spares_table(0.5, "4h", "1min", "10min", spares=[2, 4], n_runs=40_000, seed=1, crews=3, rma_lead_time="2h")
    np.testing.assert_allclose(t["p_stall_sim"], t["p_stall_closed"], atol=0.015)
    np.testing.assert_allclose(t["mean_stall_h"], t["mean_stall_closed_h"], rtol=0.1)
    assert (t["ettr"] < 1).all() and t["ettr"].is_monotonic_increasing


def test_spares_over_time_with_crews_settles_to_closed_form():
    lam = 2048 / 50_000
    r = spares_over_time(lam, 16, "10d", horizon="400d", n_runs=200, seed=0, crews=1, repair="20h", points=5)
    assert r.frame["p_empty_sim"].iloc[-1] == pytest.approx(r.stationary, abs=0.08)
    ref = pool_figures(lam, 20.0, 16, crews=1, rma_h=240.0)["p_empty"]
    assert r.stationary == pytest.approx(ref)
    with pytest.raises(ModelInputError, match="repair="):
        spares_over_time(lam, 16, "10d", crews=2)


def test_queued_repair_mean_and_sample():
    q = QueuedRepair.of(4.0, 1.0, crews=6, lead=10.0)
    wait = crew_wait_h(1.0, 4.0, 6)
    assert q.mean_h == pytest.approx(4.0 + wait + 10.0)
    draws = q.sample(200_000, rng=0)
    assert draws.mean() == pytest.approx(q.mean_h, rel=0.02)


def test_spares_for_hot_spares_need_at_least_as_many():
    from relmodel.data.bundled.datasets import llama3_54day
    from relmodel.scale.clusters.scaling import scale_rates
    scaled = scale_rates(llama3_54day(), n_boot=50, seed=0)
    hot = spares_for(scaled, "24h", n_boot=50, seed=0)
    cold = spares_for(scaled, "24h", n_boot=50, seed=0, spare_rate_per_h=0)
    assert hot.n_spares >= cold.n_spares
    assert "crews" not in hot.text() or "unlimited repairs" in hot.text()
