"""Interval censoring: parametric fits against lifelines and scipy, Turnbull, the log's last-healthy column."""

import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import (ExponentialFitter, GeneralizedGammaFitter, KaplanMeierFitter, LogLogisticFitter,
                       LogNormalFitter, WeibullFitter)
from lifelines.fitters.npmle import npmle
from scipy import optimize, stats

import relmodel
from relmodel.errors import FitError
from relmodel.stats.lifetimes.interval import uptime_intervals
from relmodel.stats.survival.turnbull import turnbull


def _checked(seed=0, n=200, every=24.0, stop=300.0):
    """Weibull failures seen by a check every ``every`` hours; unfailed units censored at the last check."""
    rng = np.random.default_rng(seed)
    t = rng.weibull(1.6, n) * 100
    checks = np.arange(0, 2000, every)
    i = np.searchsorted(checks, t)
    lo, up = checks[i - 1], checks[i]
    late = up > stop
    return np.where(late, checks[checks <= stop][-1], lo), np.where(late, np.inf, up)


LIFELINES = {"weibull": (WeibullFitter, {"shape": "rho_", "scale": "lambda_"}),
             "lognormal": (LogNormalFitter, {"mu": "mu_", "sigma": "sigma_"}),
             "loglogistic": (LogLogisticFitter, {"shape": "beta_", "scale": "alpha_"}),
             "exponential": (ExponentialFitter, {"scale": "lambda_"})}


@pytest.mark.parametrize("family", list(LIFELINES))
def test_interval_fits_match_lifelines(family):
    lo, up = _checked()
    r = relmodel.fit(None, family, interval=(lo, up))
    cls, names = LIFELINES[family]
    ref = cls().fit_interval_censoring(lo, up)
    assert r.loglik == pytest.approx(ref.log_likelihood_, rel=1e-9)
    se = r.ci.set_index("param")["se"]
    for ours, theirs in names.items():
        assert r.params[ours] == pytest.approx(ref.params_[theirs], rel=1e-5)
        assert se[ours] == pytest.approx(ref.summary.loc[theirs, "se(coef)"], rel=1e-4)
    assert "interval-censored" in r.note


def test_gengamma_interval_fit_matches_lifelines():
    lo, up = _checked(seed=3, n=150)
    r = relmodel.fit(None, "gengamma", interval=(lo, up))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = GeneralizedGammaFitter().fit_interval_censoring(lo, up)
    assert r.loglik >= ref.log_likelihood_ - 1e-6
    assert r.params["lambda"] == pytest.approx(ref.lambda_, abs=2e-3)


def test_gamma_interval_fit_matches_a_direct_scipy_likelihood():
    lo, up = _checked(seed=1)
    r = relmodel.fit(None, "gamma", interval=(lo, up))

    def nll(x):
        k, s = np.exp(x)
        p = stats.gamma.sf(lo, k, scale=s) - stats.gamma.sf(up, k, scale=s)
        return -np.sum(np.log(p))

    ref = optimize.minimize(nll, [0.5, 4.0], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12})
    assert r.loglik == pytest.approx(-ref.fun, abs=1e-7)
    assert r.params["shape"] == pytest.approx(np.exp(ref.x[0]), rel=1e-4)


def test_exact_and_right_censored_rows_reproduce_the_ordinary_fit():
    rng = np.random.default_rng(2)
    t, c = rng.weibull(1.3, 80) * 50, rng.uniform(0, 100, 80)
    x, obs = np.minimum(t, c), t <= c
    ordinary = relmodel.fit(x, "weibull", observed=obs)
    as_interval = relmodel.fit(None, "weibull", interval=(x, np.where(obs, x, np.inf)))
    assert as_interval.params["shape"] == pytest.approx(ordinary.params["shape"], rel=1e-6)
    assert as_interval.loglik == pytest.approx(ordinary.loglik, rel=1e-10)
    # Exact rows may also come as data, alongside interval rows.
    lo, up = _checked(seed=4, n=50)
    both = relmodel.fit(x, "lognormal", observed=obs, interval=(lo, up))
    assert both.n == 130 and both.n_observed == int(obs.sum()) + int(np.isfinite(up).sum())


def test_bad_intervals_are_named():
    with pytest.raises(FitError, match="interval row 1"):
        relmodel.fit(None, "weibull", interval=([1.0, 5.0], [2.0, 4.0]))
    with pytest.raises(FitError, match="pair"):
        relmodel.fit(None, "weibull", interval=[1.0, 2.0, 3.0])
    with pytest.raises(FitError, match="no failures"):
        relmodel.fit(None, "weibull", interval=([5.0, 6.0], [np.inf, np.inf]))


def test_turnbull_is_kaplan_meier_without_interval_censoring():
    rng = np.random.default_rng(0)
    t, c = rng.weibull(1.6, 200) * 100, rng.uniform(0, 200, 200)
    x, obs = np.minimum(t, c), t <= c
    tb = turnbull(x, np.where(obs, x, np.inf))
    km = KaplanMeierFitter().fit(x, obs)
    at = tb.right_h[np.isfinite(tb.right_h)]
    np.testing.assert_allclose(tb(at), km.survival_function_at_times(at).to_numpy(), atol=1e-9)


def test_turnbull_matches_lifelines_npmle():
    rng = np.random.default_rng(5)
    lo = rng.uniform(0, 50, 80)
    up = lo + rng.uniform(1, 40, 80)
    up[::7] = np.inf
    tb = turnbull(lo, up)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probs, intervals = npmle(lo, up)
    ref = pd.Series(probs, index=[iv.left for iv in intervals])
    ref = ref[ref > 1e-4]
    np.testing.assert_allclose(tb.left_h[tb.mass > 1e-4], ref.index.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(tb.mass[tb.mass > 1e-4], ref.to_numpy(), atol=5e-3)  # lifelines' EM is slow here
    # The same support, and a likelihood at least as high as lifelines' (EM stopped at 1e-7).
    inside = (lo[:, None] <= ref.index.to_numpy()[None, :]) & (
        np.array([iv.right for iv in intervals])[probs > 1e-4][None, :] <= up[:, None])
    assert tb.loglik >= np.sum(np.log(inside @ (ref.to_numpy() / ref.sum()))) - 1e-9
    # Kuhn-Tucker conditions of the NPMLE: no innermost interval could take more mass.
    alpha = (lo[:, None] <= tb.left_h[None, :]) & (tb.right_h[None, :] <= up[:, None])
    assert np.max((alpha / (alpha @ tb.mass)[:, None]).mean(axis=0)) < 1 + 1e-6
    assert tb.median_h == pytest.approx(tb.right_h[np.argmax(tb.survival <= 0.5)])
    assert list(tb.to_frame().columns) == ["from (h)", "to (h)", "probability mass", "survival after"]


def test_read_log_carries_last_seen_healthy_into_interval_fits():
    df = pd.DataFrame({"node": ["a", "a", "b", "b"],
                       "start": ["2024-01-02 00:00", "2024-01-05 00:00", "2024-01-03 00:00", "2024-01-04 12:00"],
                       "end": ["2024-01-02 02:00", "2024-01-05 01:00", "2024-01-03 01:00", "2024-01-04 13:00"],
                       "ok": [None, "2024-01-04 12:00", "2024-01-02 00:00", "2024-01-04 06:00"]})
    log = relmodel.read_log(df, start="start", end="end", node="node", last_healthy="ok",
                            window=("2024-01-01", "2024-01-10"))
    iv = uptime_intervals(log).sort_values(["node", "upper_h"]).reset_index(drop=True)
    # a: repaired at day 2 02:00, seen healthy day 4 12:00, down day 5 00:00 -> (58, 70] h.
    # b: repaired day 3 01:00, seen healthy day 4 06:00, down day 4 12:00 -> (29, 35] h.
    np.testing.assert_allclose(iv["lower_h"], [58, 24 * 9 - 97, 29, 24 * 9 - 85])
    np.testing.assert_allclose(iv["upper_h"], [70, np.inf, 35, np.inf])
    r = relmodel.fit(None, "exponential", interval=(iv["lower_h"], iv["upper_h"]))
    assert r.n == 4 and r.n_observed == 2
    with pytest.raises(FitError, match="last_healthy"):
        uptime_intervals(relmodel.read_log(df, start="start", end="end", node="node"))
