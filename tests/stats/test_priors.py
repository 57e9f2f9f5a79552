"""Fleet priors (empirical Bayes), conjugate updates, predictive counts and per-cause shrinkage."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, stats

import relmodel
from relmodel.errors import CountError, ExposureError, PriorError, UnitError
from relmodel.stats.rates.priors import (GammaPrior, PriorWarning, RateData, fleet_prior, marginal_loglik, rate_data,
                                   update_rate)
from relmodel.stats.rates.shrinkage import shrink_components

K = np.array([419, 4355, 784, 582, 105, 30, 12])
E = np.array([2048 * 54, 2000 * 335, 1000 * 335, 400 * 349, 124 * 60, 64 * 30, 16 * 90]) * 24.0


def _nb_loglik(shape, mean, k, e):
    # independent form: scipy's negative binomial with n = shape, p = b / (b + E), b = shape / mean
    b = shape / mean
    return stats.nbinom.logpmf(k, shape, b / (b + e)).sum()


def test_marginal_likelihood_is_the_negative_binomial():
    for shape, rate in ((0.7, 300.0), (3.0, 2e4), (50.0, 1e6)):
        assert marginal_loglik(shape, rate, K, E) == pytest.approx(_nb_loglik(shape, shape / rate, K, E), rel=1e-10)


def _nelder_mead(k, e, xatol=1e-9, fatol=1e-10, maxiter=5000):
    """(shape, mean per hour) maximising scipy's negative binomial likelihood, by Nelder-Mead in logs."""
    best = optimize.minimize(lambda x: -_nb_loglik(np.exp(x[0]), np.exp(x[1]), k, e),
                             [0.0, np.log(k.sum() / e.sum())], method="Nelder-Mead",
                             options={"xatol": xatol, "fatol": fatol, "maxiter": maxiter})
    return np.exp(best.x[0]), np.exp(best.x[1])


def test_fleet_prior_maximises_the_marginal_likelihood():
    prior = fleet_prior(list(zip(K, E)))
    shape, mean = _nelder_mead(K, E)
    assert prior.shape == pytest.approx(shape, rel=1e-3)
    assert prior.mean_per_h == pytest.approx(mean, rel=1e-3)
    assert "marginal likelihood" in prior.method and "empirical Bayes" in prior.method


def test_fleet_prior_recovers_a_simulated_spread():
    rng = np.random.default_rng(3)
    shape, mean = 4.0, 5e-3 / 24   # 5 per 1,000 node-days, CV 50%
    e = rng.uniform(2e4, 2e5, 400) * 24
    k = rng.poisson(rng.gamma(shape, mean / shape, e.size) * e)
    prior = fleet_prior(list(zip(k, e)))
    # 400 fleets: the shape's standard error is about 0.3 and the mean's about 2.5%
    assert prior.shape == pytest.approx(shape, rel=0.3)
    assert prior.mean_per_h == pytest.approx(mean, rel=0.08)


def test_default_prior_uses_the_gpu_fleets_with_counts():
    prior = fleet_prior()
    assert set(prior.fleets) == {"llama3", "rsc1", "rsc2", "stepfun", "opt175b"}
    lo, hi = prior.interval()
    assert lo < 419 / E[0] < hi  # Llama 3 lies inside the fleets' spread
    gpu = fleet_prior(per="gpu")
    assert gpu.mean_per_h == pytest.approx(prior.mean_per_h / 8, rel=1e-3)  # every fleet has 8 GPUs per node


def test_one_fleet_warns_and_falls_back_to_the_stated_vague_prior():
    with pytest.warns(PriorWarning, match="only one fleet"):
        prior = fleet_prior([(419, E[0])])
    assert prior.shape == 0.5
    assert prior.mean_per_h == pytest.approx(419.5 / E[0])
    assert "vague" in prior.method
    with pytest.warns(PriorWarning, match="no fleet had an interruption"):
        zero = fleet_prior([(0, 100.0), (0, 300.0)])
    assert zero.mean_per_h == pytest.approx(0.5 / 400.0) and zero.shape == 0.5


def test_no_usable_fleet_mixed_units_and_bad_rows():
    table = relmodel.datasets.fleets()
    with pytest.raises(PriorError, match="no fleet"):
        fleet_prior(table[table["fleet"] == "bloom"].assign(primary=True))
    with pytest.raises(UnitError, match="mixes units"):
        fleet_prior(pd.DataFrame({"fleet": ["a", "b"], "count": [1, 2], "exposure_h": [10.0, 20.0],
                                  "per": ["node", "gpu"]}))
    with pytest.raises(UnitError, match="same unit"):
        fleet_prior([RateData(3, 100.0, "gpu"), RateData(4, 100.0, "node")], per="node")
    with pytest.raises(CountError):
        fleet_prior([(-1, 100.0), (3, 50.0)])
    with pytest.raises(ExposureError):
        fleet_prior([(1, 0.0), (3, 50.0)])
    with pytest.raises(UnitError):
        fleet_prior(per="job")


def test_update_is_the_conjugate_gamma_posterior():
    prior = GammaPrior(2.5, 1.2e4)
    post = update_rate(prior, 37, 9000 * 24.0)
    a, b = 2.5 + 37, 1.2e4 + 9000 * 24.0
    assert (post.shape, post.rate_h) == (a, b)
    # the posterior mean by integrating likelihood x prior numerically
    dens = lambda x: stats.poisson.pmf(37, x * 9000 * 24) * stats.gamma.pdf(x, 2.5, scale=1 / 1.2e4)
    scale = a / b
    num = integrate.quad(lambda u: u * scale * dens(u * scale), 0, 20)[0]
    den = integrate.quad(lambda u: dens(u * scale), 0, 20)[0]
    assert post.mean_per_h == pytest.approx(num / den, rel=1e-6)
    lo, hi = post.interval(0.9)
    assert stats.gamma.cdf(lo, a, scale=1 / b) == pytest.approx(0.05)
    assert stats.gamma.cdf(hi, a, scale=1 / b) == pytest.approx(0.95)
    assert post.prob_above(hi) == pytest.approx(0.05)
    # exposure as a duration string of unit-days, and from a count table
    assert update_rate(prior, 37, "9000d").rate_h == b
    llama = update_rate(prior, relmodel.datasets.llama3_54day())
    assert (llama.count, llama.exposure_h) == (419, 2048 * 54 * 24)


def test_predictive_is_negative_binomial_and_matches_the_mixture():
    post = update_rate(GammaPrior(3.0, 2e4), 50, 20000 * 24.0)
    pred = post.predict("30d", n_gpus=4096, gpus_per_node=8)
    future = 512 * 30 * 24.0
    assert pred.mean == pytest.approx(post.mean_per_h * future)
    for k in (0, 20, 40, 80):
        mix = integrate.quad(lambda x: stats.poisson.pmf(k, x * future) * stats.gamma.pdf(x, post.shape,
                             scale=1 / post.rate_h), 0, 40 * post.mean_per_h, limit=200)[0]
        assert pred.dist.pmf(k) == pytest.approx(mix, rel=1e-6)
    lo, hi = pred.interval(0.9)
    assert pred.dist.cdf(lo) >= 0.05 and pred.dist.cdf(lo - 1) < 0.05
    assert pred.prob_at_least(hi + 1) <= 0.05
    with pytest.raises(UnitError, match="gpus_per_node"):
        post.predict("30d", n_gpus=4096)
    with pytest.raises(ExposureError):
        post.predict("0d", n_nodes=10)


def test_credible_interval_coverage_within_monte_carlo_error():
    # draw rates from the prior, counts from the rates: 95% credible intervals must cover 95% of the rates
    rng = np.random.default_rng(11)
    prior = GammaPrior(2.0, 2.0 / (4e-3 / 24))
    reps, covered = 2000, 0
    for lam in rng.gamma(prior.shape, 1 / prior.rate_h, reps):
        e = 5000 * 24.0
        lo, hi = update_rate(prior, rng.poisson(lam * e), e).interval()
        covered += lo <= lam <= hi
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(covered / reps - 0.95) < 3.5 * se


def test_bad_counts_and_exposures_are_named_errors():
    prior = GammaPrior(1.0, 1e3)
    with pytest.raises(CountError, match="whole number"):
        update_rate(prior, -3, 100.0)
    with pytest.raises(CountError):
        update_rate(prior, 2.5, 100.0)
    with pytest.raises(ExposureError, match="positive"):
        update_rate(prior, 3, 0.0)
    with pytest.raises(ExposureError):
        update_rate(prior, 3, "0d")
    with pytest.raises(PriorError):
        update_rate((1.0, 1e3), 3, 100.0)
    with pytest.raises(UnitError, match="same unit"):
        update_rate(prior, RateData(3, 100.0, "gpu"))
    with pytest.raises(PriorError, match="unknown fleet"):
        rate_data("no-such-fleet")
    with pytest.raises(ExposureError, match="no count"):
        rate_data("megascale")


def test_shrinkage_across_causes_matches_the_conjugate_form():
    llama = relmodel.datasets.llama3_54day()
    res = shrink_components(llama, per="node")
    t = res.by_cause
    e = 2048 * 54 * 24.0
    prior = fleet_prior(list(zip(t["count"], [e] * len(t))))
    np.testing.assert_allclose(t["post_mean"], (prior.shape + t["count"]) / (prior.rate_h + e), rtol=1e-3)
    raw, shrunk, mean = t["rate_per_h"], t["post_mean"], prior.mean_per_h
    assert ((shrunk - raw) * (mean - raw) >= -1e-15).all()  # each cause moves toward the common mean
    assert ((t["weight"] > 0) & (t["weight"] < 1)).all()
    assert len(res.to_frame()) == 18


def test_shrinkage_toward_a_reference_fleet():
    rng = np.random.default_rng(5)
    causes = [f"c{i}" for i in range(12)]
    ref = dict(zip(causes, rng.gamma(2.0, 1e-5, 12)))
    e = 3e5
    k = rng.poisson(np.array(list(ref.values())) * 1.2 * e)
    t = relmodel.count_table(pd.DataFrame({"component": causes, "count": k}), n_gpus=8, gpus_per_node=8,
                             duration=f"{e}h")
    res = shrink_components(t, reference=ref)
    m = np.array([ref[c] for c in res.by_cause["component"]])
    # posterior mean = (nu m + k) / (nu + E): solve for nu from every cause, all the same
    nus = (res.by_cause["count"] - res.by_cause["post_mean"] * e) / (res.by_cause["post_mean"] - m)
    assert np.ptp(nus) / nus.mean() < 1e-6
    with pytest.raises(PriorError, match="no rate for"):
        shrink_components(t, reference={"c0": 1e-5})


def test_shrinkage_lowers_the_error_on_simulated_causes():
    rng = np.random.default_rng(8)
    err_raw = err_shrunk = 0.0
    for _ in range(5):
        lam = rng.gamma(1.5, 2e-6, 25)
        e = 2e5
        t = relmodel.count_table(pd.DataFrame({"component": [f"c{i}" for i in range(25)],
                                               "count": rng.poisson(lam * e)}),
                                 n_gpus=8, gpus_per_node=8, duration=f"{e}h")
        res = shrink_components(t).by_cause.set_index("component").loc[[f"c{i}" for i in range(25)]]
        err_raw += np.sum((res["rate_per_h"].to_numpy() - lam) ** 2)
        err_shrunk += np.sum((res["post_mean"].to_numpy() - lam) ** 2)
    assert err_shrunk < 0.9 * err_raw


def test_results_render():
    prior = fleet_prior()
    post = update_rate(prior, 30, "8000d")
    for obj in (prior, post, post.predict("30d", n_nodes=512)):
        html = obj._repr_html_()
        assert "<p>" in html and "nan" not in html.lower()
        assert isinstance(obj.to_frame(), pd.DataFrame)
    assert "per 1,000 node-days" in post.text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fleet_prior(relmodel.datasets.fleets("gpu"))  # primary rows only: no warning


def test_fleets_that_agree_hold_the_shape_at_its_bound_and_say_so():
    # counts exactly proportional to exposure: the marginal likelihood rises all the way to the Poisson limit
    from relmodel.stats.rates.priors import MAX_SHAPE
    e = np.array([1e4, 2e4, 4e4, 8e4])
    prior = fleet_prior(list(zip(e / 1e3, e)))
    assert prior.shape == pytest.approx(MAX_SHAPE, rel=1e-6)
    assert prior.mean_per_h == pytest.approx(1e-3, rel=1e-3)
    assert "one common rate" in prior.note


def test_profiled_fit_against_nelder_mead_on_scipy_for_wide_fleets():
    # 60 fleets with a wide spread (shape 0.8) and exposures over three decades
    rng = np.random.default_rng(11)
    e = 10 ** rng.uniform(3, 6, 60)
    k = rng.poisson(rng.gamma(0.8, 2e-3 / 0.8, e.size) * e)
    prior = fleet_prior(list(zip(k, e)))
    shape, mean = _nelder_mead(k, e, xatol=1e-10, fatol=1e-12, maxiter=8000)
    assert prior.shape == pytest.approx(shape, rel=1e-5)
    assert prior.mean_per_h == pytest.approx(mean, rel=1e-5)
