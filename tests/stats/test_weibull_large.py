"""The large-sample censored Weibull path against the general engine and lifelines."""

import numpy as np
import pytest

import relmodel
from relmodel.stats.lifetimes import mle, weibull_large
from relmodel.stats.lifetimes.fitting import prepare


def _censored(n, shape, seed, cmax=250.0):
    rng = np.random.default_rng(seed)
    t = rng.weibull(shape, n) * 100.0
    c = rng.uniform(0, cmax, n)
    return np.minimum(t, c), t <= c


@pytest.mark.parametrize("shape, cmax", [(1.5, 250.0), (0.5, 1e4), (3.0, 120.0)])
def test_same_answer_as_the_general_engine(shape, cmax):
    x, obs = _censored(80_000, shape, seed=7, cmax=cmax)
    fast = weibull_large.weibull_large(prepare(x, obs))
    assert fast is not None
    slow = mle.weibull_profile(mle.Sample(x, obs), 1.0)  # the general Newton engine, from a plain start
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-12)
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-12)
    np.testing.assert_allclose(fast[2], slow[2], rtol=1e-10)


def test_public_fit_unchanged_to_1e10(monkeypatch):
    x, obs = _censored(60_000, 1.2, seed=3)
    new = relmodel.fit(x, "weibull", observed=obs)
    monkeypatch.setattr(weibull_large, "LARGE", 10**12)  # every sample takes the general engine
    old = relmodel.fit(x, "weibull", observed=obs)
    for name in ("shape", "scale"):
        assert new.params[name] == pytest.approx(old.params[name], rel=1e-10)
    np.testing.assert_allclose(new.ci[["estimate", "lower", "upper", "se"]].to_numpy(float),
                               old.ci[["estimate", "lower", "upper", "se"]].to_numpy(float), rtol=1e-10)
    assert new.loglik == pytest.approx(old.loglik, rel=1e-12)
    assert (new.mean_h, new.median_h) == pytest.approx((old.mean_h, old.median_h), rel=1e-10)
    np.testing.assert_allclose(new.cov, old.cov, rtol=1e-9)


def test_matches_lifelines():
    lifelines = pytest.importorskip("lifelines")
    x, obs = _censored(60_000, 0.8, seed=11)
    r = relmodel.fit(x, "weibull", observed=obs)
    ll = lifelines.WeibullFitter().fit(x, obs)
    assert r.params["shape"] == pytest.approx(ll.rho_, rel=1e-5)
    assert r.params["scale"] == pytest.approx(ll.lambda_, rel=1e-5)
    assert r.loglik == pytest.approx(ll.log_likelihood_, rel=1e-8)
    se_ll = ll.summary.loc[["lambda_", "rho_"], "se(coef)"].to_numpy()
    se = r.ci.set_index("param").loc[["scale", "shape"], "se"].to_numpy()
    np.testing.assert_allclose(se, se_ll, rtol=1e-3)


def test_weights_and_truncation_take_the_general_engine():
    x, obs = _censored(60_000, 1.5, seed=5)
    assert weibull_large.weibull_large(prepare(x, obs, entry=np.full(x.size, 0.01) * (x > 0.02))) is None
    s = mle.Sample(x, obs, None, np.ones(x.size))
    assert weibull_large.weibull_large(s) is None
    assert weibull_large.weibull_large(prepare(x[:1000], obs[:1000])) is None


def test_exponential_fit_is_exposure_over_failures():
    x, obs = _censored(100_000, 1.0, seed=2)
    r = relmodel.fit(x, "exponential", observed=obs)
    assert r.params["scale"] == pytest.approx(float(np.sum(x)) / int(np.sum(obs)), rel=1e-12)
    assert r.loglik == pytest.approx(-obs.sum() * np.log(x.sum() / obs.sum()) - obs.sum(), rel=1e-12)
