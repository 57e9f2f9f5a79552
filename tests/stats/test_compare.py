"""compare_fits: AIC ranking, Akaike weights, KS against Kaplan-Meier, bootstrap p-values."""

import warnings

import numpy as np
import pytest
from lifelines import KaplanMeierFitter

import relmodel
from relmodel.stats.lifetimes.ranking import _draw, _censoring_law, ks_distance
from relmodel.errors import FitError
from relmodel.stats.lifetimes.fitting import FitWarning, prepare


def weibull_sample(n=300, seed=0, shape=1.6):
    rng = np.random.default_rng(seed)
    t = rng.weibull(shape, n) * 40
    c = rng.uniform(0, 100, n)
    return np.minimum(t, c), t <= c


def test_table_is_sorted_with_weights_and_consistent_fits():
    x, obs = weibull_sample()
    cmp = relmodel.stats.compare_fits(x, observed=obs, n_boot=0)
    t = cmp.by_family
    assert list(t.columns) == ["family", "loglik", "aic", "bic", "delta_aic", "akaike_weight", "ks", "p_value"]
    assert set(t.family) == {"exponential", "weibull", "lognormal", "gamma", "loglogistic"}
    assert t.aic.is_monotonic_increasing and t.delta_aic.iloc[0] == 0
    assert t.akaike_weight.sum() == pytest.approx(1.0)
    w = np.exp(-t.delta_aic / 2)
    assert np.allclose(t.akaike_weight, w / w.sum())
    assert t.p_value.isna().all()
    assert cmp.best is cmp.fits[t.family.iloc[0]]
    for row in t.itertuples():
        single = relmodel.fit(x, row.family, observed=obs)
        assert row.aic == pytest.approx(single.aic, rel=1e-10)
        assert row.loglik == pytest.approx(single.loglik, rel=1e-10)
    assert cmp.to_frame().equals(t) and "<table" in cmp._repr_html_()


def test_weibull_data_prefers_weibull_and_passes_gof():
    x, obs = weibull_sample(n=800, seed=1)
    cmp = relmodel.stats.compare_fits(x, observed=obs, n_boot=60, seed=2)
    t = cmp.by_family.set_index("family")
    assert cmp.best.family in ("weibull", "gamma")
    assert t.loc["weibull", "p_value"] > 0.05
    assert t.loc["exponential", "p_value"] < 0.05  # shape 1.6 is far from exponential


def test_lognormal_data_rejects_exponential():
    rng = np.random.default_rng(3)
    x = rng.lognormal(1.0, 1.5, 400)
    cmp = relmodel.stats.compare_fits(x, ["exponential", "lognormal"], n_boot=40, seed=1)
    t = cmp.by_family.set_index("family")
    assert cmp.best.family == "lognormal"
    assert t.loc["lognormal", "p_value"] > 0.05
    assert t.loc["exponential", "p_value"] == pytest.approx(1 / 41)


def test_bootstrap_p_value_is_calibrated_under_the_null():
    """Exponential data, exponential model: p-values are roughly uniform."""
    rng = np.random.default_rng(7)
    ps = []
    for _ in range(40):
        t = rng.exponential(10.0, 60)
        c = rng.uniform(0, 30, 60)
        cmp = relmodel.stats.compare_fits(np.minimum(t, c), "exponential", observed=t <= c, n_boot=39, seed=rng)
        ps.append(cmp.by_family.p_value.iloc[0])
    ps = np.array(ps)
    assert 0.35 < ps.mean() < 0.65
    assert (ps <= 0.1).mean() <= 0.25


def test_truncated_bootstrap_is_calibrated_under_the_null():
    """Left-truncated exponential data: entries reused, censoring redrawn after entry."""
    rng = np.random.default_rng(5)
    ps = []
    for _ in range(60):
        t, e = rng.exponential(10, 150), rng.uniform(0, 5, 150)
        t, e = t[t > e], e[t > e]
        c = e + rng.uniform(0, 30, t.size)
        cmp = relmodel.stats.compare_fits(np.minimum(t, c), "exponential", observed=t <= c, entry=e, n_boot=39,
                                    seed=rng)
        ps.append(cmp.by_family.p_value.iloc[0])
    ps = np.array(ps)
    assert 0.38 < ps.mean() < 0.62
    assert (ps <= 0.1).mean() <= 0.22


def test_redrawn_censoring_never_precedes_entry():
    rng = np.random.default_rng(2)
    t, e = rng.exponential(10, 300), rng.uniform(0, 5, 300)
    t, e = t[t > e], e[t > e]
    c = e + rng.uniform(0, 30, t.size)
    s = prepare(np.minimum(t, c), t <= c, e)
    r = relmodel.fit(np.minimum(t, c), "exponential", observed=t <= c, entry=e)
    boot = _draw(s, r, _censoring_law(s), np.random.default_rng(0), t.size)
    assert np.all(boot.t >= boot.entry) and 0.2 < boot.obs.mean() < 0.95


def test_subsampled_bootstrap_is_calibrated_under_the_null():
    """Replicates smaller than the sample (sqrt(n) scaling) still give roughly uniform p-values."""
    rng = np.random.default_rng(8)
    ps = []
    for _ in range(40):
        t = rng.weibull(1.4, 2000) * 10
        c = rng.uniform(0, 30, t.size)
        cmp = relmodel.stats.compare_fits(np.minimum(t, c), "weibull", observed=t <= c, n_boot=39, seed=rng,
                                    boot_size=200)
        ps.append(cmp.by_family.p_value.iloc[0])
    ps = np.array(ps)
    assert 0.35 < ps.mean() < 0.65
    assert (ps <= 0.1).mean() <= 0.25


def test_seed_makes_p_values_reproducible():
    x, obs = weibull_sample(n=120)
    a = relmodel.stats.compare_fits(x, ["weibull"], observed=obs, n_boot=20, seed=5).by_family
    b = relmodel.stats.compare_fits(x, ["weibull"], observed=obs, n_boot=20, seed=5).by_family
    assert a.p_value.iloc[0] == b.p_value.iloc[0]


def test_ks_distance_matches_lifelines_kaplan_meier():
    x, obs = weibull_sample(n=200)
    r = relmodel.fit(x, "weibull", observed=obs)
    km = KaplanMeierFitter().fit(x, obs)
    times = km.survival_function_.index.to_numpy()
    s = km.survival_function_.iloc[:, 0].to_numpy()
    # the KM step function against the continuous model, on both sides of each step
    before = np.concatenate([[1.0], s[:-1]])
    grid_gap = np.max(np.abs(np.concatenate([s - r.sf(times), before - r.sf(times)])))
    assert ks_distance(prepare(x, obs), r.dist) == pytest.approx(grid_gap, abs=1e-12)


def test_bootstrap_draws_follow_the_censoring_design():
    x, obs = weibull_sample(n=5000, seed=4)
    s = prepare(x, obs)
    r = relmodel.fit(x, "weibull", observed=obs)
    boot = _draw(s, r, _censoring_law(s), np.random.default_rng(0), x.size)
    assert boot.t.size == x.size
    assert abs(boot.obs.mean() - obs.mean()) < 0.03
    assert boot.t.max() <= x[~obs].max() + 1e-9 or boot.obs[boot.t > x[~obs].max()].all()


def test_few_failures_compare_only_the_exponential():
    with pytest.warns(FitWarning, match="only the exponential"):
        cmp = relmodel.stats.compare_fits([5.0, 3.0, 8.0, 2.0, 10.0], observed=[1, 0, 0, 0, 1], n_boot=10, seed=0)
    assert list(cmp.by_family.family) == ["exponential"]


def test_bad_arguments():
    x, obs = weibull_sample(n=50)
    with pytest.raises(FitError, match="unknown family"):
        relmodel.stats.compare_fits(x, ["weibull", "cauchy"], observed=obs)
    with pytest.raises(FitError, match="n_boot"):
        relmodel.stats.compare_fits(x, observed=obs, n_boot=-1)
    with pytest.raises(FitError, match="boot_size"):
        relmodel.stats.compare_fits(x, observed=obs, boot_size=3)
    with pytest.raises(FitError, match="no families"):
        relmodel.stats.compare_fits(x, [], observed=obs)
    with pytest.raises(FitError, match="no failures"):
        relmodel.stats.compare_fits(x, observed=np.zeros(x.size, bool))


def test_left_truncated_comparison_runs_with_bootstrap():
    x, obs = weibull_sample(n=200, seed=6)
    entry = x * np.random.default_rng(1).uniform(0, 0.5, x.size)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FitWarning)
        cmp = relmodel.stats.compare_fits(x, ["weibull", "lognormal"], observed=obs, entry=entry, n_boot=20, seed=0)
    assert cmp.by_family.p_value.between(0, 1).all()
