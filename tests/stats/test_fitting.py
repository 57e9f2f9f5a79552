"""Censored fits agree with lifelines and scipy, recover known parameters, and expose curves."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats as st
from lifelines import ExponentialFitter, LogLogisticFitter, LogNormalFitter, WeibullFitter

import relmodel
from relmodel.stats.lifetimes.registry import FAMILIES
from relmodel.stats.lifetimes.fitting import prepare

RTOL = 1e-5
TIGHT = {"ftol": 1e-15, "gtol": 1e-12}  # lifelines' L-BFGS-B defaults stop early on flat likelihoods


def censored(seed=5, n=400, shape=1.3, scale=50.0, cmax=120.0):
    rng = np.random.default_rng(seed)
    t = rng.weibull(shape, n) * scale
    c = rng.uniform(0, cmax, n)
    return np.minimum(t, c), t <= c


LIFELINES = {
    "exponential": (ExponentialFitter, lambda f: {"scale": f.lambda_}),
    "weibull": (WeibullFitter, lambda f: {"shape": f.rho_, "scale": f.lambda_}),
    "lognormal": (LogNormalFitter, lambda f: {"mu": f.mu_, "sigma": f.sigma_}),
    "loglogistic": (LogLogisticFitter, lambda f: {"shape": f.beta_, "scale": f.alpha_}),
}


@pytest.mark.parametrize("family", sorted(LIFELINES))
@pytest.mark.parametrize("truncated", [False, True])
def test_agrees_with_lifelines(family, truncated):
    x, obs = censored()
    entry = np.minimum(x, np.random.default_rng(1).uniform(0, 20, x.size)) * 0.9 if truncated else None
    fitter, get = LIFELINES[family]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = fitter().fit(x, obs, entry=entry, fit_options=TIGHT)
    r = relmodel.fit(x, family, observed=obs, entry=entry)
    for name, value in get(ref).items():
        assert r.params[name] == pytest.approx(value, rel=RTOL), name
    assert r.loglik == pytest.approx(ref.log_likelihood_, rel=RTOL)
    assert r.aic == pytest.approx(ref.AIC_, rel=RTOL)
    assert r.loglik >= ref.log_likelihood_ - 1e-9  # never a worse optimum


SCIPY = {
    "weibull": (st.weibull_min, lambda p: {"shape": p[0], "scale": p[2]}),
    "lognormal": (st.lognorm, lambda p: {"mu": np.log(p[2]), "sigma": p[0]}),
    "loglogistic": (st.fisk, lambda p: {"shape": p[0], "scale": p[2]}),
    "gamma": (st.gamma, lambda p: {"shape": p[0], "scale": p[2]}),
}


def scipy_loglik(dist, x, obs):
    return float(np.sum(dist.logpdf(x[obs])) + np.sum(dist.logsf(x[~obs])))


@pytest.mark.parametrize("family", sorted(SCIPY))
def test_agrees_with_scipy_censored_data(family):
    x, obs = censored()
    law, get = SCIPY[family]
    p = law.fit(st.CensoredData(uncensored=x[obs], right=x[~obs]), floc=0)
    r = relmodel.fit(x, family, observed=obs)
    for name, value in get(p).items():
        assert r.params[name] == pytest.approx(value, rel=RTOL), name
    assert r.loglik == pytest.approx(scipy_loglik(law(p[0], scale=p[2]), x, obs), rel=RTOL)
    # our optimum is at least as good as scipy's
    assert r.loglik >= scipy_loglik(law(p[0], scale=p[2]), x, obs) - 1e-9


def test_gamma_uncensored_matches_scipy_closed_form():
    x = np.random.default_rng(2).gamma(2.5, 10.0, 300)
    k, _, scale = st.gamma.fit(x, floc=0)
    r = relmodel.fit(x, "gamma")
    assert r.params["shape"] == pytest.approx(k, rel=1e-6)
    assert r.params["scale"] == pytest.approx(scale, rel=1e-6)


@pytest.mark.parametrize("family", sorted(set(FAMILIES) - {"gengamma"}))
def test_engine_loglik_matches_scipy_formula(family):
    """The fast likelihood used by the optimiser equals logpdf/logsf from scipy.stats."""
    x, obs = censored(n=100)
    entry = x * 0.3
    fam = FAMILIES[family]
    s = prepare(x, obs, entry)
    theta = fam.theta({"exponential": {"scale": 40.0}, "weibull": {"shape": 1.2, "scale": 40.0},
                       "lognormal": {"mu": 3.5, "sigma": 0.9}, "gamma": {"shape": 1.4, "scale": 30.0},
                       "loglogistic": {"shape": 1.6, "scale": 35.0}}[family])
    d = fam.dist(fam.params(theta))
    expected = scipy_loglik(d, x, obs) - np.sum(d.logsf(entry))
    assert fam.loglik(s, theta) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("family", ["weibull", "lognormal", "loglogistic", "gamma"])
def test_analytic_hessian_matches_finite_differences(family):
    from relmodel.stats.lifetimes.mle import numeric_derivs
    x, obs = censored(n=200)
    s = prepare(x, obs, x * 0.2)
    fam = FAMILIES[family]
    theta, ll, hess = fam.maximise(s)
    _, g, num = numeric_derivs(lambda th: fam.loglik(s, th), theta, h=1e-4)
    assert np.allclose(g, 0, atol=1e-4)
    assert np.allclose(hess, num, rtol=1e-4)


TRUE = {
    "exponential": {"scale": 30.0},
    "weibull": {"shape": 1.7, "scale": 100.0},
    "lognormal": {"mu": 2.0, "sigma": 0.8},
    "gamma": {"shape": 2.5, "scale": 8.0},
    "loglogistic": {"shape": 2.2, "scale": 12.0},
}


@pytest.mark.parametrize("family", sorted(TRUE))
def test_recovers_known_parameters(family):
    fam = FAMILIES[family]
    law = fam.dist(TRUE[family])
    rng = np.random.default_rng(11)
    t = law.rvs(size=600, random_state=rng)
    c = rng.uniform(0, 3 * law.median(), t.size)
    r = relmodel.fit(np.minimum(t, c), family, observed=t <= c)
    for _, row in r.ci.iterrows():
        assert row.lower < TRUE[family][row.param] < row.upper, row.param
        assert row.lower < row.estimate < row.upper


def test_interval_coverage_is_close_to_nominal():
    """Over 200 censored Weibull samples the 90% shape interval covers about 90% of the time."""
    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(200):
        t = rng.weibull(1.5, 80) * 10
        c = rng.uniform(0, 25, t.size)
        r = relmodel.fit(np.minimum(t, c), "weibull", observed=t <= c, conf=0.9)
        lo, hi = r.ci.set_index("param").loc["shape", ["lower", "upper"]]
        hits += lo < 1.5 < hi
    assert 0.84 <= hits / 200 <= 0.96


def test_fit_result_curves_are_consistent():
    x, obs = censored()
    r = relmodel.fit(x, "weibull", observed=obs)
    k, lam = r.params["shape"], r.params["scale"]
    t = np.array([1.0, 10.0, 100.0])
    assert np.allclose(r.sf(t), np.exp(-(t / lam) ** k))
    assert np.allclose(r.cdf(t), 1 - r.sf(t))
    assert np.allclose(r.hazard(t), k / lam * (t / lam) ** (k - 1))
    assert np.allclose(r.cumhazard(t), (t / lam) ** k)
    assert r.ppf(0.5) == pytest.approx(r.median_h)
    assert r.cdf(r.ppf(0.3)) == pytest.approx(0.3)
    assert r.sf("10h") == pytest.approx(r.sf(10.0))
    assert r.sf("600min") == pytest.approx(r.sf(10.0))
    assert r.mean_h == pytest.approx(st.weibull_min(k, scale=lam).mean())
    a, b = r.sample(5, rng=7), r.sample(5, rng=7)
    assert np.array_equal(a, b) and a.shape == (5,)
    assert r.n == x.size and r.n_observed == obs.sum()
    assert r.bic == pytest.approx(2 * np.log(x.size) - 2 * r.loglik)
    f = r.to_frame()
    assert list(f.columns) == ["family", "param", "estimate", "lower", "upper", "se"]
    assert "weibull" in r._repr_html_() and "<table" in r._repr_html_()


def test_input_forms_give_the_same_fit():
    x, obs = censored(n=60)
    a = relmodel.fit(x, "lognormal", observed=obs)
    b = relmodel.fit(relmodel.data.Durations(x, obs), "lognormal")
    c = relmodel.fit(pd.Series(x), "lognormal", observed=obs.astype(int))
    d = relmodel.fit([f"{v * 60}min" for v in x], "lognormal", observed=list(obs))
    for other in (b, c, d):
        assert other.params["mu"] == pytest.approx(a.params["mu"], rel=1e-9)
        assert other.loglik == pytest.approx(a.loglik, rel=1e-9)


def test_exponential_interval_is_chi_square():
    x, obs = censored(n=50)
    r = relmodel.fit(x, "exponential", observed=obs)
    d, total = obs.sum(), x.sum()
    lo, hi = r.ci.loc[0, ["lower", "upper"]]
    assert r.params["scale"] == pytest.approx(total / d)
    assert lo == pytest.approx(2 * total / st.chi2.ppf(0.975, 2 * d + 2))
    assert hi == pytest.approx(2 * total / st.chi2.ppf(0.025, 2 * d))


def test_ties_are_compressed_without_changing_the_fit():
    from relmodel.stats.lifetimes.mle import Sample
    x, obs = censored(n=2000)
    x = np.ceil(x)  # whole hours: many ties
    s = Sample(x, obs)
    packed = s.compressed()
    assert packed is not None and packed.t.size < x.size / 2
    for name in ("lognormal", "gamma", "loglogistic"):
        fam = FAMILIES[name]
        a, b = fam.maximise(s), fam.maximise(packed)
        assert np.allclose(a[0], b[0], rtol=1e-7, atol=1e-9)
        assert a[1] == pytest.approx(b[1], rel=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = LogNormalFitter().fit(x, obs, fit_options=TIGHT)
    assert relmodel.fit(x, "lognormal", observed=obs).params["sigma"] == pytest.approx(ref.sigma_, rel=RTOL)
