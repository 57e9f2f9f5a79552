"""E[max of N] against exact order statistics and Monte Carlo; fail-slow scaling; eviction policy."""

import numpy as np
import pytest
from scipy import integrate, stats

import relmodel
from relmodel.errors import ModelInputError
from relmodel.stragglers import expected_max, gumbel_max, max_with_slow, straggler_scaling
from relmodel.stragglers.policy import eviction_policy, goodput_with_stragglers


@pytest.mark.parametrize("n", [1, 2, 8, 100, 4096, 1_000_000])
def test_exponential_max_is_the_harmonic_number(n):
    """E[max of n Exp(rate)] = H_n / rate (Rényi's representation of exponential order statistics)."""
    h = np.sum(1.0 / np.arange(1, n + 1))
    assert expected_max(stats.expon(scale=2.0), n) == pytest.approx(2.0 * h, rel=1e-9)


def test_normal_max_closed_forms():
    """Standard normal: E[max of 2] = 1/√π, of 3 = 3/(2√π), of 4 = (3/√π)(1/2 + asin(1/3)/π),
    of 5 = (5/(2√π))(1/2 + 3 asin(1/3)/π) (Bose and Gupta 1959; David and Nagaraja, Order Statistics)."""
    rp = np.sqrt(np.pi)
    exact = [1 / rp, 3 / (2 * rp), 3 / rp * (0.5 + np.arcsin(1 / 3) / np.pi),
             5 / (2 * rp) * (0.5 + 3 * np.arcsin(1 / 3) / np.pi)]
    assert list(expected_max(stats.norm(), [2, 3, 4, 5])) == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("n", [100, 10_000, 1_000_000])
def test_normal_max_against_the_density_of_the_maximum(n):
    """∫ x n φ(x) Φ(x)^(n-1) dx, integrated independently in x."""
    def f(x):
        return x * n * stats.norm.pdf(x) * np.exp((n - 1) * stats.norm.logcdf(x))

    ref = integrate.quad(f, -10, 12, points=[stats.norm.isf(1 / n)], limit=500, epsrel=1e-12)[0]
    assert expected_max(stats.norm(loc=3.0, scale=0.5), n) == pytest.approx(3.0 + 0.5 * ref, rel=1e-8)


def test_monte_carlo_for_fitted_and_given_distributions():
    rng = np.random.default_rng(11)
    times = stats.lognorm(0.1, scale=2.0).rvs(size=3000, random_state=rng) / 3600  # step times in hours
    fitted = relmodel.fit(times, "lognormal")
    for dist in (fitted, stats.weibull_min(8.0, scale=1.0), stats.gamma(20.0, scale=0.05)):
        d = getattr(dist, "dist", dist) if hasattr(dist, "family") else dist
        sims = d.rvs(size=(20_000, 64), random_state=rng).max(axis=1)
        se = sims.std() / np.sqrt(len(sims))
        assert abs(expected_max(dist, 64) - sims.mean()) < 4 * se


def test_gumbel_asymptote_approaches_the_exact_value():
    d = stats.expon()
    exact = expected_max(d, [10, 1_000_000])
    gap = np.abs(gumbel_max(d, [10, 1_000_000]) - exact)
    assert gap[1] < 1e-5 < gap[0]  # H_n - (ln n + γ) ≈ 1/(2n)


def test_max_with_slow_ranks_against_monte_carlo():
    rng = np.random.default_rng(5)
    d = stats.lognorm(0.05)
    sims = d.rvs(size=(40_000, 64), random_state=rng)
    sims[:, :8] *= 1.3
    se = sims.max(axis=1).std() / np.sqrt(len(sims))
    assert abs(max_with_slow(d, 64, 8, slowdown=0.3) - sims.max(axis=1).mean()) < 4 * se
    assert max_with_slow(d, 64, 0, slowdown=0.3) == pytest.approx(expected_max(d, 64))


def test_scaling_table_from_8_to_a_million_gpus():
    d = stats.lognorm(0.03, scale=2.0 / 3600)
    curve = straggler_scaling(d, [8, 1024, 1_048_576])
    t = curve.by_size
    assert list(t["n_gpus"]) == [8, 1024, 1_048_576]
    assert np.all(np.diff(t["loss_noise"]) > 0)
    assert t["loss_noise"].iloc[0] == pytest.approx(1 - d.median() / expected_max(d, 8))
    assert np.allclose(t["loss_total"], t["loss_noise"])  # no fail-slow rate given
    assert not curve.table().isna().any().any()


def test_fail_slow_rate_averages_over_the_poisson_count_of_slow_nodes():
    d = stats.lognorm(0.03)
    rate, dur, n, g = 2e-4, 3.0, 4096, 8
    t = straggler_scaling(d, [n], fail_slow_rate=rate, slowdown=0.4, duration=f"{dur}h", gpus_per_node=g).by_size
    mean = rate * n / g * dur
    assert t["mean_slow_nodes"].iloc[0] == pytest.approx(mean)
    ks = np.arange(12)
    by_hand = sum(stats.poisson.pmf(k, mean) * max_with_slow(d, n, k * g, slowdown=0.4) for k in ks)
    assert t["step_total_h"].iloc[0] == pytest.approx(by_hand / stats.poisson.cdf(11, mean), rel=1e-6)
    with pytest.raises(ModelInputError):
        straggler_scaling(d, [0])


def test_eviction_costs_and_break_even_by_hand():
    s, dly, r, tau, m = 0.25, 0.5, 1 / 6, 2.0, 20.0
    plan = eviction_policy(slowdown=s, detection="30min", restart="10min", interval="2h", mtbf="20h")
    lost = plan.by_policy.set_index("policy")["lost_h"]
    stay = m  # no end of run given: the node stays until the next fail-stop restart, on average M
    assert lost["never evict"] == pytest.approx(0.2 * (dly + stay))
    assert lost["evict at once"] == pytest.approx(0.2 * dly + r + tau / 2)
    assert lost["evict at next checkpoint"] == pytest.approx(0.2 * dly + s * tau / 2 + r)
    assert plan.best == "evict at next checkpoint"
    be = plan.breakeven_slowdown
    at = eviction_policy(slowdown=be, detection=dly, restart=r, interval=tau, mtbf=m).by_policy.set_index("policy")
    assert at.loc["never evict", "lost_h"] == pytest.approx(at.loc["evict at next checkpoint", "lost_h"], rel=1e-6)


def test_never_evict_when_the_run_is_about_to_end():
    plan = eviction_policy(slowdown=0.1, detection="10min", restart="20min", interval="1h", remaining="15min")
    assert plan.best == "never evict" and np.isnan(plan.breakeven_slowdown)
    assert "never pays" in plan.text()


def test_combined_goodput_is_ettr_times_the_share_left():
    kw = dict(mtbf=10.0, ckpt_cost=0.05, restart=0.2)
    tau = relmodel.optimal_interval(mtbf=10.0, ckpt_cost=0.05, restart=0.2)
    base = relmodel.ettr(interval=tau, mtbf=10.0, ckpt_cost=0.05, restart=0.2)
    assert goodput_with_stragglers(**kw, straggler_loss=0.0) == pytest.approx(base)
    assert goodput_with_stragglers(**kw, straggler_loss=0.1, interval=1.0) == pytest.approx(
        0.9 * relmodel.ettr(interval=1.0, mtbf=10.0, ckpt_cost=0.05, restart=0.2))
    plan = eviction_policy(slowdown=0.2, detection="30min", restart="10min", interval="1h", mtbf="20h",
                           rate=1e-5, n_nodes=2048, ckpt_cost="1min")
    t = plan.by_policy
    e = relmodel.ettr(interval=1.0, mtbf=20.0, ckpt_cost=1 / 60, restart=1 / 6)
    lam = 1e-5 * 2048
    present = np.array([0.5 + 20.0, 0.5, 0.5 + 1.2 * 0.5])  # slow node in the job: never, at once, next checkpoint
    overhead = np.array([0.0, 1 / 6 + 0.5, 1 / 6])
    share = 1 - (1 - (0.2 / 1.2) * (1 - np.exp(-lam * present))) * (1 - lam * overhead / (1 + lam * overhead))
    assert np.allclose(t["straggler_loss"], share)
    assert np.allclose(t["straggler_loss"][1:], lam * t["lost_h"][1:], rtol=0.05)  # rare events: rate x cost
    assert np.allclose(t["goodput"], e * (1 - t["straggler_loss"]))
    with pytest.raises(ModelInputError):
        relmodel.stragglers.combined_goodput(1.2, 0.1)
