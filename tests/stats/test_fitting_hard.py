"""Hard data: few failures, all censored, zeros, negatives, ties, extreme ranges, bad input."""

import warnings

import numpy as np
import pytest
import scipy.stats as st

import relmodel
from relmodel.errors import FitError
from relmodel.stats.lifetimes.fitting import FitWarning

SHAPED = ["weibull", "lognormal", "gamma", "loglogistic"]


@pytest.mark.parametrize("family", SHAPED)
def test_one_failure_falls_back_to_the_exponential(family):
    # Five observations with one failure: other tools return a Weibull scale near 3e16 h.
    x = [5.0, 3.0, 8.0, 2.0, 10.0]
    obs = [True, False, False, False, False]
    with pytest.warns(FitWarning, match="exponential"):
        r = relmodel.fit(x, family, observed=obs)
    assert r.family == "exponential" and r.requested == family
    assert r.params["scale"] == pytest.approx(28.0)  # 28 h at risk / 1 failure
    lo, hi = r.ci.loc[0, ["lower", "upper"]]
    assert lo == pytest.approx(56 / st.chi2.ppf(0.975, 4))
    assert hi == pytest.approx(56 / st.chi2.ppf(0.025, 2))
    assert r.note


def test_two_failures_also_fall_back():
    with pytest.warns(FitWarning):
        r = relmodel.fit([1.0, 4.0, 9.0, 9.0], "weibull", observed=[1, 1, 0, 0])
    assert r.family == "exponential" and r.n_observed == 2


def test_identical_failure_times_fall_back():
    with pytest.warns(FitWarning, match="distinct"):
        r = relmodel.fit([5, 5, 5, 7], "lognormal", observed=[1, 1, 1, 0])
    assert r.family == "exponential"
    assert r.params["scale"] == pytest.approx(22 / 3)


def test_three_distinct_failures_fit_the_shape():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = relmodel.fit([2.0, 5.0, 9.0, 12.0], "weibull", observed=[1, 1, 1, 0])
    assert r.family == "weibull" and 0.3 < r.params["shape"] < 10


def test_all_censored_is_an_error_with_a_usable_bound():
    with pytest.raises(FitError, match="lower bound on the mean") as exc:
        relmodel.fit([10.0, 20.0, 30.0], "weibull", observed=[0, 0, 0])
    bound = 2 * 60 / st.chi2.ppf(0.95, 2)
    assert f"{bound:.6g}" in str(exc.value)


def test_far_extrapolation_warns():
    x = np.r_[1.0, 2.0, 3.0, np.full(1000, 10.0)]
    obs = np.r_[np.ones(3, bool), np.zeros(1000, bool)]
    with pytest.warns(FitWarning, match="poorly determined"):
        r = relmodel.fit(x, "weibull", observed=obs)
    assert np.isfinite(r.params["scale"])


@pytest.mark.parametrize("bad", [[1.0, -2.0, 3.0], [1.0, np.nan, 3.0], [1.0, np.inf, 3.0]])
def test_negative_or_missing_durations_are_errors(bad):
    with pytest.raises(FitError, match="row 2"):
        relmodel.fit(bad, "weibull")


def test_other_bad_input():
    with pytest.raises(FitError, match="no durations"):
        relmodel.fit([], "weibull")
    with pytest.raises(FitError, match="unknown family"):
        relmodel.fit([1.0, 2.0, 3.0], "normal")
    with pytest.raises(FitError, match="observed has 2"):
        relmodel.fit([1.0, 2.0, 3.0], "weibull", observed=[1, 0])
    with pytest.raises(FitError, match="True/False"):
        relmodel.fit([1.0, 2.0, 3.0], "weibull", observed=[1, 2, 0])
    with pytest.raises(FitError, match="entry time"):
        relmodel.fit([1.0, 2.0, 3.0], "weibull", entry=[0.0, 2.5, 0.0])
    with pytest.raises(FitError, match="conf"):
        relmodel.fit([1.0, 2.0, 3.0], "weibull", conf=95)
    with pytest.raises(FitError, match="every duration is zero"):
        relmodel.fit([0.0, 0.0], "weibull")
    with pytest.raises(relmodel.errors.DurationError):
        relmodel.fit(["3 parsecs"], "weibull")


def test_zero_durations_warn_and_are_lifted():
    x = np.array([0.0, 0.0, 0.5, 1.0, 2.0, 4.0, 6.0])
    with pytest.warns(FitWarning, match="zero duration"):
        r = relmodel.fit(x, "weibull")
    ref = relmodel.fit(np.where(x == 0, 0.25, x), "weibull")
    assert r.params == pytest.approx(ref.params)


def test_heavy_ties_match_lifelines():
    from lifelines import WeibullFitter
    x = np.repeat([1.0, 2.0, 3.0, 5.0, 8.0], [40, 30, 20, 6, 4])
    obs = np.tile([True, True, False, True], 25)
    r = relmodel.fit(x, "weibull", observed=obs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = WeibullFitter().fit(x, obs, fit_options={"ftol": 1e-15, "gtol": 1e-12})
    assert r.params["shape"] == pytest.approx(ref.rho_, rel=1e-5)
    assert r.params["scale"] == pytest.approx(ref.lambda_, rel=1e-5)


@pytest.mark.parametrize("family", ["exponential"] + SHAPED)
def test_wide_range_is_scale_equivariant(family):
    """Durations from 1e-6 h to 1e7 h: the fit in seconds is the fit in hours, rescaled."""
    rng = np.random.default_rng(0)
    x = np.exp(rng.uniform(np.log(1e-6), np.log(1e7), 300))
    obs = rng.random(x.size) < 0.8
    a = relmodel.fit(x, family, observed=obs)
    b = relmodel.fit(x * 3600, family, observed=obs)
    assert b.loglik == pytest.approx(a.loglik - obs.sum() * np.log(3600), rel=1e-7)
    for name, value in a.params.items():
        expected = value + np.log(3600) if name == "mu" else value * (3600 if name == "scale" else 1)
        assert b.params[name] == pytest.approx(expected, rel=1e-6)
    assert np.all(np.isfinite(a.ci[["lower", "upper"]].to_numpy()))


def test_huge_sample_with_tiny_failure_share():
    """10^5 units, under 0.1% failing: a finite fit, a warning that the median is extrapolated."""
    rng = np.random.default_rng(4)
    t = rng.weibull(0.8, 100_000) * 5e5
    c = np.full(t.size, 50.0)
    with pytest.warns(FitWarning, match="median"):
        r = relmodel.fit(np.minimum(t, c), "weibull", observed=t <= c)
    assert 3 <= r.n_observed < 100
    lo, hi = r.ci.set_index("param").loc["shape", ["lower", "upper"]]
    assert lo < 0.8 < hi


# Left-truncated data with no information on the lower tail: the likelihood keeps
# rising towards an improper law (lifelines returns a log-normal mu of -171648 here).
DEGENERATE = ([0.3, 4.2, 136.4, 10.9], [0.2, 2.9, 9.3, 3.7])


@pytest.mark.parametrize("family", SHAPED)
def test_no_finite_maximum_is_an_error(family):
    x, entry = DEGENERATE
    with pytest.raises(FitError, match=f"{family} fit failed"):
        relmodel.fit(x, family, entry=entry)


def test_compare_leaves_out_families_that_cannot_be_fitted():
    x, entry = DEGENERATE
    with pytest.warns(FitWarning, match="left out of the comparison"):
        cmp = relmodel.stats.compare_fits(x, entry=entry, n_boot=0)
    assert list(cmp.by_family.family) == ["exponential"]
