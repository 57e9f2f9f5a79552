"""Requirements under non-exponential failures and a restart with an unexposed downtime.

References written here: an event simulation of a checkpointed job (failures
drawn from the law, lost work since the last checkpoint, downtime that no
failure can lengthen, a reload that a failure can strike), and Daly's exact
optimum through Lambert W (REFERENCE: tau* = M [1 + W0(-e^{-(1 + d/M)})]).
"""

import math

import numpy as np
import pytest
from scipy import optimize, special, stats

import relmodel
from relmodel.checkpoint import RestartModel
from relmodel.errors import ModelInputError
from relmodel.scale.targets.law_requirements import best_law_ettr, law_ettr, needed_job_mtbf
from relmodel.scale.targets.requirements import plan_requirements, required_node_mtbf

D, R = 1 / 60, 1 / 6


def simulate_job(draw, tau, ckpt, reload, downtime, n_fail, seed):
    """Useful time over wall time of a job that checkpoints every ``tau`` of work.

    After each failure the job is down for ``downtime`` (nothing can fail), reloads for ``reload`` (a failure
    may strike), then alternates ``tau`` of work and ``ckpt`` of writing; a failure loses the work since the
    last completed checkpoint.  ``draw(rng)`` gives the time to the next failure, counted from the reload.
    """
    rng = np.random.default_rng(seed)
    wall = useful = 0.0
    for _ in range(n_fail):
        wall += downtime
        x = draw(rng)
        wall += x
        run = x - reload
        while run >= tau + ckpt:                 # completed segments are kept
            useful += tau
            run -= tau + ckpt
    return useful / wall


def daly(m, d, r):
    tau = m * (1 + special.lambertw(-math.exp(-(1 + d / m)), 0).real)
    return tau / (m * math.exp(r / m) * math.expm1((tau + d) / m))


@pytest.fixture(scope="module")
def weibull():
    x = stats.weibull_min.rvs(0.7, scale=3.0, size=4000, random_state=1)
    return relmodel.fit(x, "weibull")


def test_renewal_reward_equals_the_event_simulation(weibull):
    k, lam = weibull.params["shape"], weibull.params["scale"]
    m = 5.0
    scale = lam * m / weibull.mean_h                       # the fitted shape, rescaled to mean 5 h

    def draw(rng):
        return scale * rng.weibull(k)
    e, tau = best_law_ettr(m, weibull, D, R)
    sim = simulate_job(draw, tau, D, R, 0.0, 400_000, seed=2)
    assert e == pytest.approx(sim, abs=0.002)
    # with a downtime no failure can strike
    e2 = law_ettr(tau, m, weibull, D, 0.05, 0.2)
    assert e2 == pytest.approx(simulate_job(draw, tau, D, 0.05, 0.2, 400_000, seed=3), abs=0.002)


def test_required_mtbf_under_a_weibull_meets_the_target_in_simulation(weibull):
    m, tau = needed_job_mtbf(0.9, D, None, R, 16_384, weibull)
    k, lam = weibull.params["shape"], weibull.params["scale"]
    scale = lam * m / weibull.mean_h
    sim = simulate_job(lambda rng: scale * rng.weibull(k), tau, D, R, 0.0, 400_000, seed=4)
    assert sim == pytest.approx(0.9, abs=0.002)
    expo = needed_job_mtbf(0.9, D, None, R, 16_384)[0]
    assert m < expo                                        # infant mortality: ETTR higher at the same mean
    node_w = required_node_mtbf(16_384, 0.9, "1min", "10min", fixed_rate_per_h=0, law=weibull, law_of="job gaps")
    node_e = required_node_mtbf(16_384, 0.9, "1min", "10min", fixed_rate_per_h=0)
    assert node_w == pytest.approx(2048 * m, rel=1e-9) and node_w < node_e


def test_exponential_law_is_daly():
    expo = stats.expon.rvs(scale=4.0, size=4000, random_state=5)
    law = relmodel.fit(expo, "exponential")
    for m in (3.0, 8.0):
        assert best_law_ettr(m, law, D, R)[0] == pytest.approx(daly(m, D, R), rel=1e-7)


def test_restart_model_counts_only_the_reload_as_exposed():
    model = RestartModel(detection="3min", diagnosis="4min", reload="5min")
    m, _ = needed_job_mtbf(0.9, D, model, 12 / 60, 16_384)
    # Daly with R_eff(M) = R_l + M ln(1 + D_own/M) equal to the target, solved here by hand
    reload, down = 5 / 60, 7 / 60
    ref = optimize.brentq(lambda x: daly(x, D, reload + x * math.log1p(down / x)) - 0.9, 1.0, 50.0, xtol=1e-12)
    assert m == pytest.approx(ref, rel=1e-6)
    whole = needed_job_mtbf(0.9, D, None, 12 / 60, 16_384)[0]
    assert m < whole and (whole - m) / whole == pytest.approx(0.01, abs=0.01)
    assert required_node_mtbf(16_384, 0.9, "1min", model, fixed_rate_per_h=0) == pytest.approx(2048 * m, rel=1e-9)


def test_plan_requirements_takes_the_law(weibull):
    src = relmodel.datasets.llama3_54day()
    plan = plan_requirements(src, 16_384, 0.9, "1min", "10min", n_boot=200, seed=0, law=weibull, law_of="job gaps")
    assert plan.node_mtbf_h == pytest.approx(
        required_node_mtbf(16_384, 0.9, "1min", "10min", source=src, law=weibull, law_of="job gaps"), rel=1e-9)
    plain = plan_requirements(src, 16_384, 0.9, "1min", "10min", n_boot=200, seed=0)
    assert plan.node_mtbf_h < plain.node_mtbf_h
    assert plan.observed_ettr_lo <= plan.observed_ettr <= plan.observed_ettr_hi
    with pytest.raises(ModelInputError, match="law must be a fitted"):
        required_node_mtbf(16_384, 0.9, fixed_rate_per_h=0, law="weibull", law_of="job gaps")
    with pytest.raises(ModelInputError, match="law_of='node lives'"):
        required_node_mtbf(16_384, 0.9, fixed_rate_per_h=0, law=weibull)     # whose shape it is, said


def test_requirements_table_agrees_with_required_node_mtbf(weibull):
    from relmodel.scale.targets.requirements import requirements_table
    model = RestartModel(detection="3min", diagnosis="4min", reload="5min")
    t = requirements_table([16_384, 131_072], 0.9, restarts=[model], fixed_rate_per_h=0, law=weibull,
                           law_of="job gaps")
    for n, node in zip(t["n_gpus"], t["node_mtbf_h"]):
        assert node == pytest.approx(required_node_mtbf(n, 0.9, "1min", model, fixed_rate_per_h=0, law=weibull,
                                                        law_of="job gaps"),
                                     rel=1e-9)


@pytest.mark.parametrize("m", [50.0, 2000.0, 1e5])
def test_a_fitted_exponential_law_gives_the_closed_form_at_short_intervals(m):
    """With thousands of checkpoint periods per failure the renewal sum is long: summed (and its tail
    integrated), an exponential law fitted by relmodel must give the exponential closed form (law=None)."""
    law = relmodel.fit(np.random.default_rng(2).exponential(5, 400), "exponential")
    for tau in (0.001, 0.01, 1.0):
        assert law_ettr(tau, m, law, 0.02, 0.1) == pytest.approx(law_ettr(tau, m, None, 0.02, 0.1), rel=1e-8)


@pytest.mark.parametrize("m, tau", [(5.0, 0.1), (2000.0, 0.1)])
def test_a_heavy_tailed_law_against_a_long_plain_sum(m, tau):
    """A log-logistic of shape near 1.2 (its survival falls as t^-1.2): the renewal sum written here in
    plain numpy, 2e7 terms and the x^-c integral of the rest (the rest is under 2% of the sum)."""
    law = relmodel.fit(np.random.default_rng(2).weibull(0.8, 400) * 10, "loglogistic")
    c, scale = law.params["shape"], law.params["scale"]
    period, reload, stretch = tau + 0.02, 0.1, law.mean_h / m / law.params["scale"]
    k = np.arange(1, 20_000_001, dtype=float)
    total = np.sum(1.0 / (1.0 + ((reload + k * period) * stretch) ** c))
    total += (period * stretch) ** -c * (k[-1] + 0.5) ** (1 - c) / (c - 1)
    assert 1.1 < c < 1.3 and scale > 0
    assert law_ettr(tau, m, law, 0.02, reload) == pytest.approx(tau * total / m, rel=1e-6)
