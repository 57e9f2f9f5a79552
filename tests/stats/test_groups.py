"""Group comparisons: weighted log-rank against lifelines, Gray's test, two MCFs."""

import numpy as np
import pandas as pd
import pytest
from lifelines.statistics import logrank_test, multivariate_logrank_test

import relmodel
from relmodel.errors import FitError
from relmodel.stats.survival.group_tests import compare_mcf, gray_test


def _three_groups(seed=0, n=300):
    rng = np.random.default_rng(seed)
    grp = rng.choice(["a", "b", "c"], n)
    t = np.maximum(np.round(rng.weibull(1.5, n) * np.where(grp == "a", 100, 130)), 1)  # rounded: ties
    c = rng.uniform(0, 200, n)
    return pd.DataFrame({"duration_h": np.minimum(t, c), "observed": t <= c, "fleet": grp})


@pytest.mark.parametrize("weights", ["logrank", "wilcoxon", "tarone-ware", "peto", "fleming-harrington"])
def test_k_sample_tests_match_lifelines(weights):
    df = _three_groups()
    r = relmodel.stats.compare_groups(df, "fleet", weights=weights, p=1, q=0.5)
    kw = {"p": 1, "q": 0.5} if weights == "fleming-harrington" else {}
    ref = multivariate_logrank_test(df["duration_h"], df["fleet"], df["observed"],
                                    weightings=None if weights == "logrank" else weights, **kw)
    assert r.statistic == pytest.approx(ref.test_statistic, rel=1e-10)
    assert r.p == pytest.approx(ref.p_value, rel=1e-8)
    assert r.df == 2


def test_two_groups_match_lifelines_logrank_and_report_observed_vs_expected():
    df = _three_groups(seed=5)
    two = df[df["fleet"] != "c"]
    r = relmodel.stats.compare_groups(two, "fleet")
    a, b = two[two["fleet"] == "a"], two[two["fleet"] == "b"]
    ref = logrank_test(a["duration_h"], b["duration_h"], a["observed"], b["observed"])
    assert r.statistic == pytest.approx(ref.test_statistic, rel=1e-10)
    g = r.groups
    assert g["failures"].sum() == pytest.approx(g["expected failures"].sum())  # O - E sums to zero
    assert g["median (h)"].iloc[0] == pytest.approx(r.curves["a"].median_h)
    assert "chi-square" in r.text() and "fleet" in r._repr_html_()


def test_bad_group_input():
    df = _three_groups()
    with pytest.raises(FitError, match="single group"):
        relmodel.stats.compare_groups(df.assign(fleet="x"), "fleet")
    with pytest.raises(FitError, match="weights must be one of"):
        relmodel.stats.compare_groups(df, "fleet", weights="gehan2")
    with pytest.raises(relmodel.errors.MissingColumnError):
        relmodel.stats.compare_groups(df, "rack")


def test_gray_reduces_to_logrank_without_competing_causes():
    rng = np.random.default_rng(0)
    n = 300
    grp = rng.choice(["a", "b"], n)
    t, c = rng.exponential(np.where(grp == "a", 100, 130)), rng.uniform(0, 200, n)
    df = pd.DataFrame({"duration_h": np.minimum(t, c), "observed": t <= c, "fleet": grp,
                       "cause": np.where(t <= c, "gpu", None)})
    g = gray_test(df, "fleet", "cause", "gpu", variance="bootstrap", n_boot=300, seed=0)
    lr = relmodel.stats.compare_groups(df, "fleet")
    # With one cause, R_k is the ordinary risk set: the score is log-rank's observed - expected.
    np.testing.assert_allclose(g.score, lr.groups["failures"] - lr.groups["expected failures"], rtol=1e-10)
    # The bootstrap variance agrees with the hypergeometric one to within resampling error.
    assert g.statistic == pytest.approx(lr.statistic, rel=0.25)
    # Gray's martingale variance is then close to the log-rank (hypergeometric) one.
    assert gray_test(df, "fleet", "cause", "gpu", seed=0).statistic == pytest.approx(lr.statistic, rel=0.01)


def test_gray_detects_a_difference_in_one_cause_only():
    rng = np.random.default_rng(1)
    n = 400
    grp = rng.choice(["old", "new"], n)
    t_gpu = rng.exponential(np.where(grp == "old", 60, 200))
    t_net = rng.exponential(150, n)
    c = rng.uniform(0, 300, n)
    t = np.minimum.reduce([t_gpu, t_net, c])
    cause = np.where(t == c, None, np.where(t == t_gpu, "gpu", "network"))
    df = pd.DataFrame({"duration_h": t, "fleet": grp, "cause": cause})
    assert gray_test(df, "fleet", "cause", "gpu", seed=0).p < 1e-4
    assert gray_test(df, "fleet", "cause", "network", seed=0).p > 1e-4
    with pytest.raises(FitError, match="no failures"):
        gray_test(df, "fleet", "cause", "psu", seed=0)


def _fleet_mcf(counts, window=1000.0):
    times, nodes = [], []
    rng = np.random.default_rng(7)
    for i, k in enumerate(counts):
        times += list(rng.uniform(0, window, k))
        nodes += [f"n{i}"] * k
    return relmodel.stats.mcf(np.array(times), node=nodes, start=0.0, end=window, n_systems=len(counts))


def test_mcf_comparison_matches_the_closed_form_for_a_common_window():
    a, b = [3, 5, 0, 2, 4, 6, 1, 3], [1, 0, 2, 1, 0, 1, 2, 1, 0, 1]
    r = compare_mcf({"old": _fleet_mcf(a), "new": _fleet_mcf(b)}, at="1000h")
    # With every system watched over the same window, MCF(end) = mean count and Nelson's
    # variance is sum (n_i - mean)^2 / m^2.
    va = np.sum((np.array(a) - np.mean(a)) ** 2) / len(a) ** 2
    vb = np.sum((np.array(b) - np.mean(b)) ** 2) / len(b) ** 2
    assert r.difference == pytest.approx(np.mean(a) - np.mean(b), rel=1e-12)
    assert r.z == pytest.approx((np.mean(a) - np.mean(b)) / np.sqrt(va + vb), rel=1e-9)
    assert r.p < 0.01 and "old" in r.text()
    assert list(r.to_frame().columns[:3]) == ["hours", "MCF old", "MCF new"]


def test_group_plot_and_html():
    r = relmodel.stats.compare_groups(_three_groups(), "fleet", weights="tarone-ware")
    ax = relmodel.plots.group_survival_plot(r)
    assert len(ax.get_lines()) == 3 and ax.get_legend().get_title().get_text() == "fleet"
    t = r.table()
    assert t["median (h)"].str.fullmatch(r"[\d,]+|not reached").all()
    assert t["expected failures"].str.fullmatch(r"[\d,]+\.\d").all()
    assert "tarone-ware" in r._repr_html_()


def test_the_verdict_reads_the_confidence_level_it_was_given():
    """p = 0.026 (lifelines' logrank_test on the same data) differs at 95% but not at 99%."""
    rng = np.random.default_rng(3)
    g = rng.choice(["a", "b"], 120)
    t = rng.exponential(np.where(g == "a", 100, 140))
    df = pd.DataFrame({"duration_h": t, "observed": True, "fleet": g})
    p = logrank_test(t[g == "a"], t[g == "b"]).p_value
    assert 0.01 < p < 0.05
    assert " differs across fleet" in relmodel.stats.compare_groups(df, "fleet", conf=0.95).text()
    assert "does not differ detectably" in relmodel.stats.compare_groups(df, "fleet", conf=0.99).text()
    old = relmodel.stats.mcf([10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4)
    new = relmodel.stats.mcf([5.0, 15.0, 20.0, 35.0, 45.0], node=list("aabcd"), start=0.0, end=50.0, n_systems=4)
    assert compare_mcf({"old": old, "new": new}, at=50.0, conf=0.5).conf == 0.5          # p = 0.285 (docstring example)
    assert "the fleets differ" in compare_mcf({"old": old, "new": new}, at=50.0, conf=0.5).text()
    assert "do not differ detectably" in compare_mcf({"old": old, "new": new}, at=50.0).text()
