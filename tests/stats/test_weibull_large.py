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


def _plain_sums(x, k, orders):
    """``sum (t/c)^k ln(t/c)^j`` in plain numpy with exactly rounded totals (math.fsum)."""
    import math
    lt = np.log(x) - np.log(x.max())
    tk = np.exp(k * lt)
    return np.array([math.fsum(tk * lt**j) for j in orders])


def test_one_pass_sums_match_plain_numpy():
    import math
    x, obs = _censored(30_001, 1.3, seed=21)  # not a multiple of the block: the last block is short
    a = weibull_large._sums(x, math.log(x.max()), 1.7, obs)
    np.testing.assert_allclose(a[:-1], _plain_sums(x, 1.7, range(9)), rtol=1e-13)
    lt = np.log(x) - math.log(x.max())
    assert a[-1] == pytest.approx(math.fsum(lt[obs]), rel=1e-13)
    np.testing.assert_array_equal(weibull_large._sums(x, math.log(x.max()), 1.7), a[:-1])


@pytest.mark.parametrize("h", [0.02, -0.02, 0.004, -0.3])
def test_moved_sums_within_their_bound(h):
    """The sums at k0 + h from the series at k0, against plain numpy at k0 + h; the error under the bound."""
    import math
    x, _ = _censored(20_000, 1.5, seed=4)
    k0 = 1.5
    a = _plain_sums(x, k0, range(9))
    exact = _plain_sums(x, k0 + h, range(3))
    span = math.log(x.max() / x.min())
    for j in range(3):
        moved = weibull_large._moved(a, h, j)
        bound = weibull_large._left_out(a, h, span, j)
        assert abs(moved - exact[j]) <= bound + 1e-15 * abs(exact[j])
        if abs(h) <= 0.02:
            assert abs(moved / exact[j] - 1) < 1e-10  # small steps: the series is as good as a pass
    # a step of 0.3 leaves far more out than the estimate may carry: the bound says so
    if h == -0.3:
        assert weibull_large._left_out(a, h, span, 2) > 1e-12 * abs(exact[2])


def _counting_passes(monkeypatch):
    calls = []
    real = weibull_large._sums
    monkeypatch.setattr(weibull_large, "_sums", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


@pytest.mark.parametrize("n, shape, cmax, passes", [(200_000, 1.5, 250.0, 1), (200_000, 1.5, 5.0, 2)])
def test_passes_over_the_data(monkeypatch, n, shape, cmax, passes):
    """One pass when the subsample's shape is close; a second when few failures leave it far (0.4% here)."""
    x, obs = _censored(n, shape, seed=9, cmax=cmax)
    calls = _counting_passes(monkeypatch)
    fast = weibull_large.weibull_large(prepare(x, obs))
    assert len(calls) == passes
    slow = mle.weibull_profile(mle.Sample(x, obs), 1.0)
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-12)
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-12)
    np.testing.assert_allclose(fast[2], slow[2], rtol=1e-10)


def test_loglik_is_the_maximum_of_scipys_likelihood():
    """An independent likelihood (scipy's logpdf/logsf) is flat at the estimate, equal to it, and curved as its Hessian."""
    from scipy import stats
    x, obs = _censored(60_000, 2.2, seed=13)
    r = relmodel.fit(x, "weibull", observed=obs)

    def ll(log_k, log_scale):
        k, lam = np.exp(log_k), np.exp(log_scale)
        return (stats.weibull_min.logpdf(x[obs], k, scale=lam).sum()
                + stats.weibull_min.logsf(x[~obs], k, scale=lam).sum())

    th = np.log([r.params["shape"], r.params["scale"]])
    assert r.loglik == pytest.approx(ll(*th), rel=1e-12)
    e = 1e-4
    grad = [(ll(*(th + e * u)) - ll(*(th - e * u))) / (2 * e) for u in np.eye(2)]
    np.testing.assert_allclose(grad, 0.0, atol=1e-3)  # the score of 60,000 rows: differences of 1e5-size sums
    hess = np.array([[(ll(*(th + e * (u + v))) - ll(*(th + e * (u - v))) - ll(*(th - e * (u - v)))
                       + ll(*(th - e * (u + v)))) / (4 * e * e) for v in np.eye(2)] for u in np.eye(2)])
    cov = np.linalg.inv(-hess)  # covariance of (ln k, ln scale): se of the natural parameters by the delta method
    se = r.ci.set_index("param").loc[["shape", "scale"], "se"].to_numpy()
    np.testing.assert_allclose(se, np.sqrt(np.diag(cov)) * [r.params["shape"], r.params["scale"]], rtol=1e-4)
