"""The generalized gamma agrees with lifelines' GeneralizedGammaFitter and scipy's gengamma."""

import warnings

import numpy as np
import pytest
import scipy.stats as st
from lifelines import GeneralizedGammaFitter

import relmodel
from relmodel.stats.lifetimes.fitting import prepare
from relmodel.stats.lifetimes.gengamma import GenGammaLaw

TIGHT = {"ftol": 1e-15, "gtol": 1e-12}


def scipy_gengamma(mu, sigma, lam):
    k = 1 / lam**2
    return st.gengamma(k, lam / sigma, scale=np.exp(mu - sigma / lam * np.log(k)))


def sample(kind, seed, n=300):
    rng = np.random.default_rng(seed)
    t = {"weibull": lambda: rng.weibull(1.3, n) * 50, "lognormal": lambda: rng.lognormal(3, 1.2, n),
         "gamma": lambda: rng.gamma(2.5, 10, n), "frechet": lambda: 10 / rng.weibull(1.5, n)}[kind]()
    c = rng.uniform(0, 3 * np.median(t), n)
    return np.minimum(t, c), t <= c


@pytest.mark.parametrize("kind", ["weibull", "lognormal", "gamma", "frechet"])
def test_agrees_with_lifelines(kind):
    x, obs = sample(kind, seed=4)
    r = relmodel.fit(x, "gengamma", observed=obs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = GeneralizedGammaFitter().fit(x, obs, fit_options=TIGHT)
    assert r.params["mu"] == pytest.approx(ref.mu_, rel=1e-5)
    assert r.params["sigma"] == pytest.approx(np.exp(ref.ln_sigma_), rel=1e-5)
    assert r.params["lambda"] == pytest.approx(ref.lambda_, rel=1e-4, abs=1e-5)
    assert r.loglik == pytest.approx(ref.log_likelihood_, rel=1e-7)


def test_nests_the_weibull_gamma_and_lognormal():
    x, obs = sample("gamma", seed=1)
    gg = relmodel.fit(x, "gengamma", observed=obs)
    for name in ("weibull", "gamma", "lognormal"):
        assert gg.loglik >= relmodel.fit(x, name, observed=obs).loglik - 1e-9


@pytest.mark.parametrize("lam", [1.3, 0.4, -0.7])
def test_law_matches_scipy(lam):
    mu, sigma = 2.0, 0.6
    law, ref = GenGammaLaw(mu, sigma, lam), scipy_gengamma(mu, sigma, lam)
    t = np.array([0.5, 3.0, 10.0, 40.0])
    assert np.allclose(law.sf(t), ref.sf(t), rtol=1e-10, atol=1e-300)
    assert np.allclose(law.logpdf(t), ref.logpdf(t), rtol=1e-10)
    assert law.median() == pytest.approx(ref.median(), rel=1e-10)
    assert law.mean() == pytest.approx(ref.mean(), rel=1e-10)
    assert law.cdf(law.ppf(0.3)) == pytest.approx(0.3)


def test_small_lambda_is_the_lognormal_limit():
    law = GenGammaLaw(1.0, 0.8, 1e-6)
    ln = st.lognorm(0.8, scale=np.e)
    assert law.median() == pytest.approx(ln.median())
    assert law.sf(3.0) == pytest.approx(ln.sf(3.0))
    near = GenGammaLaw(1.0, 0.8, 2e-3)
    assert near.sf(3.0) == pytest.approx(ln.sf(3.0), rel=1e-2)


def test_loglik_with_truncation_matches_scipy():
    x, obs = sample("weibull", seed=2, n=80)
    entry = x * 0.3
    fam = relmodel.stats.lifetimes.registry.get_family("gengamma")
    theta = np.array([3.5, np.log(0.7), 0.6])
    d = scipy_gengamma(3.5, 0.7, 0.6)
    expected = d.logpdf(x[obs]).sum() + d.logsf(x[~obs]).sum() - d.logsf(entry).sum()
    assert fam.loglik(prepare(x, obs, entry), theta) == pytest.approx(expected, rel=1e-10)


def test_gengamma_in_a_comparison():
    x, obs = sample("weibull", seed=3)
    cmp = relmodel.stats.compare_fits(x, ["weibull", "gengamma"], observed=obs, n_boot=10, seed=0)
    assert set(cmp.by_family.family) == {"weibull", "gengamma"}
    r = cmp.fits["gengamma"]
    assert r.ci.shape[0] == 3 and np.isfinite(r.ci[["lower", "upper"]].to_numpy()).all()
    assert r.sample(5, rng=1).shape == (5,)
