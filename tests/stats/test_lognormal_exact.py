"""The closed-form log-normal fit of exact durations against the Newton engine, numpy and scipy."""

import numpy as np
import pytest
from scipy import stats

import relmodel
from relmodel.stats.lifetimes import mle
from relmodel.stats.lifetimes.base import _Normal
from relmodel.stats.lifetimes.classic import LogNormal, _lognormal_exact
from relmodel.stats.lifetimes.fitting import prepare


def _exact(n, seed, mu=3.0, sigma=1.2):
    return np.random.default_rng(seed).lognormal(mu, sigma, n)


@pytest.mark.parametrize("mu, sigma", [(3.0, 1.2), (9.0, 0.05), (-2.0, 3.0)])
def test_same_answer_as_the_newton_engine(mu, sigma):
    x = _exact(50_001, seed=1, mu=mu, sigma=sigma)
    sample = prepare(x)
    fast = _lognormal_exact(sample)
    y = np.log(x)
    start = np.array([y.mean() + 0.3 * sigma, np.log(y.std()) + 0.2])  # away from the answer
    # tol: the engine returns the point before its last step, so its default (1e-10) is its accuracy
    slow = mle.newton(lambda th: mle.aft_derivs(_Normal, sample, th), start, tol=1e-13)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-12, atol=1e-13)
    assert fast[1] == pytest.approx(slow[1], rel=1e-12)
    np.testing.assert_allclose(fast[2], slow[2], rtol=1e-10, atol=1e-8 * abs(slow[2]).max())


def test_fit_is_the_mean_and_spread_of_log_t():
    x = _exact(200_000, seed=2)
    r = relmodel.fit(x, "lognormal")
    y = np.log(x)
    assert r.params["mu"] == pytest.approx(np.mean(y), rel=1e-13)
    assert r.params["sigma"] == pytest.approx(np.std(y), rel=1e-12)  # divide by n: the MLE
    s, loc, scale = stats.lognorm.fit(x, floc=0)  # scipy's own closed form
    assert (r.params["sigma"], r.params["mu"]) == pytest.approx((s, np.log(scale)), rel=1e-10)
    assert r.loglik == pytest.approx(stats.lognorm.logpdf(x, s, scale=scale).sum(), rel=1e-11)
    se = r.ci.set_index("param")["se"]
    n, sig = x.size, np.std(y)
    assert se["mu"] == pytest.approx(sig / np.sqrt(n), rel=1e-12)  # information n / sigma^2
    assert se["sigma"] == pytest.approx(sig / np.sqrt(2 * n), rel=1e-12)  # information 2n in ln sigma


def test_weights_count_as_repeated_rows():
    base = np.round(_exact(3_000, seed=3), 1)  # ties
    t, counts = np.unique(base, return_counts=True)
    weighted = _lognormal_exact(mle.Sample(t, np.ones(t.size, bool), None, counts.astype(float)))
    expanded = _lognormal_exact(prepare(base))
    np.testing.assert_allclose(weighted[0], expanded[0], rtol=1e-12)
    assert weighted[1] == pytest.approx(expanded[1], rel=1e-12)


def test_censored_samples_keep_the_newton_engine():
    rng = np.random.default_rng(4)
    t = rng.lognormal(3, 1, 20_000)
    c = rng.uniform(0, 60, t.size)
    x, obs = np.minimum(t, c), t <= c
    r = relmodel.fit(x, "lognormal", observed=obs)
    s = stats.CensoredData(uncensored=x[obs], right=x[~obs])
    ref = stats.lognorm.fit(s, floc=0)  # scipy's numerical MLE (optimizer tolerance about 1e-4)
    assert r.params["sigma"] == pytest.approx(ref[0], rel=1e-3)
    assert r.params["mu"] == pytest.approx(np.log(ref[2]), rel=1e-3)
    sample = prepare(x, obs)
    assert LogNormal().maximise(sample)[1] == pytest.approx(r.loglik, rel=1e-12)


def test_truncated_samples_keep_the_newton_engine():
    x = _exact(5_000, seed=6)
    entry = np.minimum(x, 5.0) * 0.5  # every unit already up for a while: left-truncated
    sample = prepare(x, None, entry)
    got = LogNormal().maximise(sample)
    ref = mle.newton(lambda th: mle.aft_derivs(_Normal, sample, th), _lognormal_exact(sample)[0], tol=1e-13)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-9)
    assert abs(got[0][0] - _lognormal_exact(sample)[0][0]) > 1e-4  # truncation moves the estimate
