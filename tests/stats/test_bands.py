"""Curve bands, B-lives, profile-likelihood intervals and Weibayes against closed forms and lifelines."""

import numpy as np
import pytest
from lifelines import LogLogisticFitter, LogNormalFitter, WeibullFitter
from scipy import optimize, stats

import relmodel
from relmodel.errors import FitError
from relmodel.stats.lifetimes.bands import b_life, curve_band, profile_intervals
from relmodel.stats.lifetimes.weibayes import weibayes

Z = stats.norm.ppf(0.975)


def _data(seed=0, n=15):
    rng = np.random.default_rng(seed)
    t, c = rng.weibull(1.5, n) * 100, rng.uniform(50, 300, n)
    return np.minimum(t, c), t <= c


def test_exponential_survival_band_is_the_closed_form():
    x, obs = _data()
    r = relmodel.fit(x, "exponential", observed=obs)
    t = np.array([10.0, 50.0, 200.0])
    b = curve_band(r, t)
    theta, d = r.params["scale"], obs.sum()
    # ln H = ln t - ln theta, and se(ln theta) = 1/sqrt(d) from the observed information.
    np.testing.assert_allclose(b.lower, np.exp(-t / theta * np.exp(Z / np.sqrt(d))), rtol=1e-6)
    np.testing.assert_allclose(b.upper, np.exp(-t / theta * np.exp(-Z / np.sqrt(d))), rtol=1e-6)
    assert np.all(b.lower < b.estimate) and np.all(b.estimate < b.upper)


@pytest.mark.parametrize("family,cls", [("weibull", WeibullFitter), ("lognormal", LogNormalFitter),
                                        ("loglogistic", LogLogisticFitter)])
def test_cumulative_hazard_standard_error_matches_lifelines(family, cls):
    x, obs = _data(seed=3, n=60)
    t = np.array([20.0, 80.0, 150.0])
    r = relmodel.fit(x, family, observed=obs)
    b = curve_band(r, t, quantity="cumulative hazard")
    ref = cls().fit(x, obs, timeline=t)
    ref_se = (ref.confidence_interval_cumulative_hazard_.iloc[:, 1].to_numpy() - ref.cumulative_hazard_at_times(
        t).to_numpy()) / Z
    ours = b.estimate * np.log(b.upper / b.estimate) / Z  # se(H) = H se(ln H)
    np.testing.assert_allclose(ours, ref_se, rtol=2e-4)
    h = curve_band(r, t, quantity="hazard")
    np.testing.assert_allclose(h.estimate, r.hazard(t), rtol=1e-10)
    assert list(h.to_frame().columns) == ["hours", "hazard", "95% lower", "95% upper"]


def test_b10_life_interval_by_the_analytic_delta_method():
    x, obs = _data(seed=1, n=40)
    r = relmodel.fit(x, "weibull", observed=obs)
    k, eta = r.params["shape"], r.params["scale"]
    c = np.log(-np.log(0.9))
    g = np.array([-c / k**2, 1 / eta])  # d ln t10 / d(shape, scale)
    se = np.sqrt(g @ r.cov @ g)
    t10 = eta * np.exp(c / k)
    est, lo, hi = b_life(r, 0.10)
    assert est == pytest.approx(t10, rel=1e-10)
    assert lo == pytest.approx(t10 * np.exp(-Z * se), rel=1e-5)
    assert hi == pytest.approx(t10 * np.exp(Z * se), rel=1e-5)
    with pytest.raises(FitError, match="fraction"):
        b_life(r, 10)


def test_profile_interval_of_the_exponential_mean_is_the_closed_form():
    x, obs = _data(seed=2)
    d, total = obs.sum(), x.sum()
    ll = lambda th: -d * np.log(th) - total / th  # noqa: E731
    mle, cut = total / d, stats.chi2.ppf(0.95, 1) / 2
    lo = optimize.brentq(lambda th: ll(mle) - ll(th) - cut, mle / 100, mle)
    hi = optimize.brentq(lambda th: ll(mle) - ll(th) - cut, mle, mle * 100)
    p = profile_intervals(x, "exponential", observed=obs).iloc[0]
    assert p["lower"] == pytest.approx(lo, rel=1e-7) and p["upper"] == pytest.approx(hi, rel=1e-7)


def test_profile_interval_of_the_weibull_shape_matches_an_independent_profile():
    x, obs = _data(seed=4, n=12)
    d = obs.sum()

    def prof(k):  # the scale maximising the likelihood for a fixed shape is (sum t^k / d)^(1/k)
        eta = (np.sum(x**k) / d) ** (1 / k)
        return (stats.weibull_min.logpdf(x[obs], k, scale=eta).sum()
                + stats.weibull_min.logsf(x[~obs], k, scale=eta).sum())

    p = profile_intervals(x, "weibull", observed=obs).set_index("param").loc["shape"]
    k_hat = p["estimate"]
    cut = prof(k_hat) - stats.chi2.ppf(0.95, 1) / 2
    lo = optimize.brentq(lambda k: prof(k) - cut, k_hat / 20, k_hat)
    hi = optimize.brentq(lambda k: prof(k) - cut, k_hat, k_hat * 20)
    assert p["lower"] == pytest.approx(lo, rel=1e-5) and p["upper"] == pytest.approx(hi, rel=1e-5)
    assert p["wald_lower"] != pytest.approx(lo, rel=1e-3)  # a different (Wald) interval is kept beside it


def test_weibayes_with_shape_one_is_the_exponential_chi_square_interval():
    x, obs = _data(seed=5)
    w = weibayes(x, 1.0, observed=obs)
    ex = relmodel.fit(x, "exponential", observed=obs).ci.iloc[0]
    assert (w.scale, w.lower, w.upper) == pytest.approx((ex["estimate"], ex["lower"], ex["upper"]), rel=1e-12)


def test_weibayes_without_failures_gives_abernethys_bound():
    # Abernethy, The New Weibull Handbook (2006), ch. 6: with no failures and "one assumed failure",
    # eta = (sum t^beta)^(1/beta) is a 63.2% lower confidence bound.
    t = np.array([1200.0, 1500.0, 900.0, 2000.0])
    w = weibayes(t, 2.0, observed=np.zeros(4, bool), conf=1 - np.exp(-1))
    assert w.lower == pytest.approx(np.sqrt(np.sum(t**2)), rel=1e-12)
    assert np.isinf(w.upper) and "at least" in w.text()
    w95 = weibayes(t, 2.0, observed=np.zeros(4, bool))
    assert w95.lower == pytest.approx(np.sqrt(2 * np.sum(t**2) / stats.chi2.ppf(0.95, 2)), rel=1e-12)


def test_weibayes_takes_the_shape_of_a_fleet_fit_and_gives_b_lives():
    x, obs = _data(seed=6, n=80)
    fleet = relmodel.fit(x, "weibull", observed=obs)
    few = np.array([300.0, 450.0, 500.0, 800.0, 800.0])
    w = weibayes(few, fleet, observed=[1, 0, 0, 0, 0])
    k = fleet.params["shape"]
    assert w.shape == k and w.scale == pytest.approx(np.sum(few**k) ** (1 / k), rel=1e-12)
    b10 = w.b_life(0.10)
    assert b10[0] == pytest.approx(w.scale * (-np.log(0.9)) ** (1 / k))
    assert list(w.to_frame()["quantity"]) == ["characteristic life (h)", "B10 life (h)"]
    with pytest.raises(FitError, match="Weibull fit"):
        weibayes(few, relmodel.fit(x, "lognormal", observed=obs))
    with pytest.raises(FitError, match="positive"):
        weibayes(few, -1)


def test_fit_can_report_profile_intervals():
    x, obs = _data(seed=4, n=12)
    r = relmodel.fit(x, "weibull", observed=obs, ci="profile")
    p = profile_intervals(x, "weibull", observed=obs)
    np.testing.assert_allclose(r.ci["lower"], p["lower"], rtol=1e-12)
    assert "profile" in r.note
    with pytest.raises(FitError, match="'wald' or 'profile'"):
        relmodel.fit(x, "weibull", observed=obs, ci="bootstrap")


def test_band_plot_fills_between_the_bounds():
    x, obs = _data(seed=1, n=40)
    b = curve_band(relmodel.fit(x, "weibull", observed=obs), np.linspace(1, 200, 50))
    ax = relmodel.plots.band_plot(b)
    assert ax.get_ylabel() == "survival" and len(ax.collections) == 1
    assert "95% band" in b._repr_html_() or "band" in b._repr_html_()
