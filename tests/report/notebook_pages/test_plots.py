"""Plots return Axes holding the expected lines and data values (Agg backend, see conftest)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import stats

import relmodel
from relmodel import plots
from relmodel.errors import FitError


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


class _Model:
    """A stand-in fitted model: any object with family, params, sf, cdf, hazard, ppf."""

    def __init__(self, family, dist, **params):
        self.family, self.params, self._d = family, params, dist

    def sf(self, t):
        return self._d.sf(t)

    def cdf(self, t):
        return self._d.cdf(t)

    def ppf(self, q):
        return self._d.ppf(q)

    def hazard(self, t):
        return self._d.pdf(t) / self._d.sf(t)


WEIBULL = _Model("weibull", stats.weibull_min(1.5, scale=100.0), shape=1.5, scale=100.0)
GAMMA = _Model("gamma", stats.gamma(2.0, scale=40.0), shape=2.0, scale=40.0)


def _sample(seed=3, n=60):
    rng = np.random.default_rng(seed)
    t = 100.0 * rng.weibull(1.5, n)
    c = rng.uniform(50, 300, n)
    return np.minimum(t, c), t <= c


def test_johnson_ranks_without_censoring_are_benard_median_ranks():
    t, f = plots.plotting_positions([5.0, 1.0, 3.0, 2.0])
    assert t.tolist() == [1.0, 2.0, 3.0, 5.0]
    np.testing.assert_allclose(f, (np.arange(1, 5) - 0.3) / 4.4)


def test_johnson_adjusted_ranks_by_hand():
    # 10 F, 20 S, 30 F, 40 F, n = 4: ranks 1, 1 + (5 - 1)/(1 + 2), then + (5 - O)/(1 + 1)
    t, f = plots.plotting_positions([30, 10, 40, 20], observed=[1, 1, 1, 0])
    o2 = 1 + 4 / 3
    o3 = o2 + (5 - o2) / 2
    assert t.tolist() == [10, 30, 40]
    np.testing.assert_allclose(f, (np.array([1, o2, o3]) - 0.3) / 4.4)


def test_km_positions_are_step_midpoints():
    t, f = plots.plotting_positions([1, 2, 2, 3, 5, 8], observed=[1, 1, 0, 1, 0, 1], method="km")
    s = np.array([1, 5 / 6, 4 / 6, 4 / 9, 0])
    assert t.tolist() == [1, 2, 3, 8]
    np.testing.assert_allclose(f, 1 - (s[[0, 1, 2, 3]] + s[[1, 2, 3, 4]]) / 2)


def test_weibull_paper_points_and_straight_fitted_line():
    h, obs = _sample()
    ax = relmodel.plots.probability_plot(h, "weibull", fit=WEIBULL, observed=obs)
    points, line = ax.get_lines()
    t, f = plots.plotting_positions(h, obs)
    np.testing.assert_allclose(points.get_xdata(), t)
    np.testing.assert_allclose(points.get_ydata(), np.log(-np.log(1 - f)))
    x, y = line.get_xdata(), line.get_ydata()
    slope = np.diff(y) / np.diff(np.log(x))
    np.testing.assert_allclose(slope, 1.5, rtol=1e-6)  # the Weibull shape is the slope on Weibull paper
    assert ax.get_xscale() == "log" and "weibull" in line.get_label()
    assert any("%" in lab.get_text() for lab in ax.get_yticklabels())


@pytest.mark.parametrize("family, transform", [
    ("lognormal", lambda f: stats.norm.ppf(f)),
    ("loglogistic", lambda f: np.log(f / (1 - f))),
    ("exponential", lambda f: -np.log(1 - f)),
])
def test_other_papers_transform_points(family, transform):
    h, obs = _sample(seed=8)
    fig, ax = plt.subplots()
    out = relmodel.plots.probability_plot(h, family, fit=WEIBULL, observed=obs, positions="km", ax=ax)
    assert out is ax
    t, f = plots.plotting_positions(h, obs, method="km")
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), transform(f), rtol=1e-9)
    assert len(ax.get_lines()) == 2


def test_gamma_paper_line_through_origin_with_slope_one_over_scale():
    h = GAMMA._d.rvs(size=50, random_state=1)
    ax = relmodel.plots.probability_plot(h, "gamma", fit=GAMMA)
    x, y = ax.get_lines()[1].get_xdata(), ax.get_lines()[1].get_ydata()
    np.testing.assert_allclose(y[1:] / x[1:], 1 / 40.0, rtol=1e-6)
    with pytest.raises(FitError, match="shape"):
        relmodel.plots.probability_plot(h, "gamma")
    with pytest.raises(FitError, match="valid families"):
        relmodel.plots.probability_plot(h, "cauchy")
    with pytest.raises(FitError, match="every duration is censored"):
        relmodel.plots.probability_plot([1.0, 2.0], observed=[0, 0])


def test_survival_plot_km_band_and_fits():
    h, obs = _sample()
    ax = relmodel.plots.survival_plot(h, fits=[WEIBULL, GAMMA], observed=obs)
    km = relmodel.stats.kaplan_meier(h, observed=obs)
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["Kaplan-Meier", "weibull fit", "gamma fit"]
    np.testing.assert_allclose(lines[0].get_ydata(), km.value)
    np.testing.assert_allclose(lines[1].get_ydata(), WEIBULL.sf(lines[1].get_xdata()))
    assert len(ax.collections) == 1  # the confidence band
    ax2 = relmodel.plots.survival_plot(km, fits=WEIBULL, ci=False)
    assert len(ax2.get_lines()) == 2 and not ax2.collections


def test_hazard_plot_values():
    ax = relmodel.plots.hazard_plot([WEIBULL, GAMMA])
    for line, model in zip(ax.get_lines(), [WEIBULL, GAMMA]):
        np.testing.assert_allclose(line.get_ydata(), model.hazard(line.get_xdata()))
    assert ax.get_lines()[0].get_xdata().max() == pytest.approx(min(WEIBULL.ppf(0.99), GAMMA.ppf(0.99)))
    with pytest.raises(FitError):
        relmodel.plots.hazard_plot([])


def test_cumulative_failures_with_nhpp_fit():
    times = np.array([4.3, 10.7, 17.0, 30.2, 55.9, 61.1, 80.0, 96.4, 140.5, 151.0])
    ax = relmodel.plots.cumulative_failures_plot(times, nhpp=True, end=160.0)
    step, curve = ax.get_lines()
    np.testing.assert_allclose(step.get_ydata(), np.arange(1, 11))
    fit = relmodel.stats.crow_amsaa(times, end=160.0)
    np.testing.assert_allclose(curve.get_ydata(), fit.lam * curve.get_xdata() ** fit.beta)
    assert curve.get_xdata().max() == pytest.approx(160.0)
    ax2 = relmodel.plots.cumulative_failures_plot(times, nhpp=fit, loglog=True)
    assert ax2.get_xscale() == "log" and len(ax2.get_lines()) == 2
    assert len(relmodel.plots.cumulative_failures_plot(times).get_lines()) == 1


def test_cumulative_failures_of_a_log(stepfun_log):
    ax = relmodel.plots.cumulative_failures_plot(stepfun_log, nhpp=True)
    ev = stepfun_log.events
    n = int((~ev["planned"] & ~ev["overlaps"]).sum())
    assert ax.get_lines()[0].get_ydata()[-1] == n


def test_cumulative_incidence_and_mcf_plots():
    rng = np.random.default_rng(4)
    h = rng.exponential(10, 200)
    cause = rng.choice(["GPU", "network"], 200, p=[0.7, 0.3])
    res = relmodel.stats.cumulative_incidence(h, cause)
    ax = relmodel.plots.cumulative_incidence_plot(res)
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["GPU", "network"]
    np.testing.assert_allclose(lines[1].get_ydata(), res["network"].value)
    assert len(ax.collections) == 2
    m = relmodel.stats.mcf([1.0, 2.0, 4.0], node=["a", "b", "a"], end=5.0)
    ax = relmodel.plots.mcf_plot(m)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [0, 0.5, 1.0, 1.5])


@pytest.mark.parametrize("family, slope_of", [
    ("weibull", lambda p: p["shape"]),
    ("lognormal", lambda p: 1 / p["sigma"]),
    ("loglogistic", lambda p: p["shape"]),
    ("exponential", lambda p: 1 / p["scale"]),
    ("gamma", lambda p: 1 / p["scale"]),
])
def test_real_fit_is_a_straight_line_on_its_own_paper(family, slope_of):
    h, obs = _sample(seed=12, n=150)
    fit = relmodel.fit(h, family, observed=obs)
    ax = relmodel.plots.probability_plot(h, family, fit=fit, observed=obs)
    x, y = ax.get_lines()[1].get_xdata(), ax.get_lines()[1].get_ydata()
    x = np.log(x) if ax.get_xscale() == "log" else x
    ok = np.isfinite(y) & (x > x.min())
    np.testing.assert_allclose(np.diff(y[ok]) / np.diff(x[ok]), slope_of(fit.params), rtol=1e-5)


def test_weibull_points_follow_the_fitted_shape():
    rng = np.random.default_rng(21)
    t = 50.0 * rng.weibull(2.5, 400)
    c = rng.uniform(20, 200, 400)
    h, obs = np.minimum(t, c), t <= c
    ax = relmodel.plots.probability_plot(h, "weibull", fit=relmodel.fit(h, "weibull", observed=obs),
                                         observed=obs)
    pts = ax.get_lines()[0]
    slope = np.polyfit(np.log(pts.get_xdata()), pts.get_ydata(), 1)[0]
    assert slope == pytest.approx(2.5, rel=0.15)


def test_survival_and_hazard_plots_take_real_fits():
    h, obs = _sample(seed=13)
    fits = [relmodel.fit(h, f, observed=obs) for f in ("weibull", "lognormal")]
    ax = relmodel.plots.survival_plot(h, fits, observed=obs)
    assert [ln.get_label() for ln in ax.get_lines()][1:] == ["weibull fit", "lognormal fit"]
    ax = relmodel.plots.hazard_plot(fits)
    line = ax.get_lines()[1]
    np.testing.assert_allclose(line.get_ydata(), fits[1].hazard(line.get_xdata()))


def test_probability_plot_thins_huge_samples():
    h = np.arange(1.0, 20001.0)
    ax = relmodel.plots.probability_plot(h, max_points=500)
    x = ax.get_lines()[0].get_xdata()
    assert 400 <= x.size <= 500 and x[0] == 1.0 and x[-1] == 20000.0
    assert ax.get_lines()[0].get_ydata()[-1] == pytest.approx(np.log(-np.log(1 - (20000 - 0.3) / 20000.4)))


def test_binned_hazard_of_exponential_data_is_flat_at_the_rate():
    rng = np.random.default_rng(31)
    t = rng.exponential(50.0, 4000)
    c = rng.uniform(0, 200, 4000)
    edges, rate = plots.binned_hazard(np.minimum(t, c), observed=t <= c, bins=8)
    assert edges.size == 9 and edges[0] == 0
    np.testing.assert_allclose(rate, 1 / 50.0, rtol=0.2)
    na = relmodel.stats.nelson_aalen(np.minimum(t, c), observed=t <= c)
    assert rate[2] == pytest.approx((na(edges[3]) - na(edges[2])) / (edges[3] - edges[2]))


def test_hazard_plot_with_data_and_without_fits():
    h, obs = _sample(seed=5, n=300)
    ax = relmodel.plots.hazard_plot(data=h, observed=obs, bins=5)
    (step,) = ax.get_lines()
    edges, rate = plots.binned_hazard(h, obs, bins=5)
    np.testing.assert_allclose(step.get_ydata(), np.append(rate, rate[-1]))
    ax = relmodel.plots.hazard_plot(WEIBULL, data=h, observed=obs)
    assert [ln.get_label() for ln in ax.get_lines()] == ["data (binned Nelson-Aalen)", "weibull"]
    assert ax.get_lines()[1].get_xdata().max() == pytest.approx(h[obs].max())


def test_fits_may_be_a_dict():
    h, obs = _sample()
    ax = relmodel.plots.survival_plot(h, {"w": WEIBULL, "g": GAMMA}, observed=obs)
    assert len(ax.get_lines()) == 3


def test_cumulative_failures_refuses_a_per_system_fit():
    times = np.array([1.0, 2.0, 5.0, 7.0])
    fit = relmodel.stats.crow_amsaa(times, node=["a", "b", "a", "b"], end=10.0)
    with pytest.raises(FitError, match="pooled"):
        relmodel.plots.cumulative_failures_plot(times, nhpp=fit)


def test_the_smallest_text_is_found_wherever_it_is_drawn():
    """Legend entries, tick labels and annotations all count; a hidden panel's text does not."""
    from matplotlib.figure import Figure

    from relmodel.plots.legible import figure_png, smallest_text_pt, smallest_text_px

    for where in ("legend", "ticks", "annotation"):
        fig = Figure(figsize=(6, 3), dpi=90)
        ax, hidden = fig.subplots(1, 2)
        ax.plot([1, 2], label="line")
        ax.legend(fontsize=6 if where == "legend" else 12)
        ax.tick_params(labelsize=6 if where == "ticks" else 12)
        ax.annotate("note", (1, 1), fontsize=6 if where == "annotation" else 12)
        ax.set_xlabel("x", fontsize=12)
        ax.set_ylabel("y", fontsize=12)
        hidden.set_title("hidden", fontsize=3)
        hidden.set_visible(False)
        png = figure_png(fig)
        assert smallest_text_pt(fig) == 6.0, where
        assert smallest_text_px(png) == 7.5, where  # 6 pt at 90 dpi


def test_design_bars_say_their_values_and_why_one_is_empty():
    import pandas as pd
    from types import SimpleNamespace

    from relmodel.plots.designs import designs_plot

    t = pd.DataFrame({"design": ["a", "b", "c"], "ettr": [0.85, 0.0, np.nan], "ettr_lo": [0.84, 0.0, np.nan],
                      "ettr_hi": [0.86, 0.0, np.nan], "goodput_per_gpu": [0.8, 0.0, np.nan]})
    ax = designs_plot(SimpleNamespace(by_design=t, target_ettr=0.9), ax=plt.figure().subplots())
    texts = [x.get_text() for x in ax.texts]
    assert texts.count("0% (never trains)") == 2 and texts.count("not reached") == 2, texts
    assert {"85%", "80%"} <= set(texts)
    assert ax.get_ylim() == (2.5, -0.5)  # the row with no value is still on the axis
    ettr_label = next(x for x in ax.texts if x.get_text() == "85%")
    assert ettr_label.xy[0] == pytest.approx(86.0)   # past the whisker's end (86%), not on it


def test_hazard_axis_stops_at_the_last_failure_and_the_ettr_curve_draws_its_target():
    from relmodel.plots.checkpoint import plot_ettr_curve
    from relmodel.stats.lifetimes.fitting import fit

    gaps = np.random.default_rng(3).weibull(0.7, 200) * 100.0
    ax = plots.hazard_plot([fit(gaps, "weibull")], data=gaps, ax=plt.figure().subplots())
    assert ax.get_xlim() == (0.0, pytest.approx(gaps.max()))
    assert ax.get_title()
    ax = plot_ettr_curve("3h", "1min", "10min", target=0.9, ax=plt.figure().subplots())
    assert any(line.get_label() == "target ETTR 90.0%" for line in ax.get_lines())
    assert ax.get_ylim()[1] > 90.0  # the curve peaks near 85%: the target line is still inside the axis


def test_optics_plot_gives_fit_beside_years():
    from relmodel.plots.designs import fit_text, optics_plot

    ax = optics_plot(sizes=[1024, 16384], ax=plt.figure().subplots())
    named = [t.get_text() for t in ax.get_legend().get_texts() if "years" in t.get_text()]
    assert len(named) == 2 and all("FIT, AFR" in t for t in named)   # the two reference lines, in the legend
    assert any("FIT" in child.get_ylabel() for child in ax.child_axes)
    assert fit_text(1e6) == "1,000 FIT, AFR 0.88%"     # 8,766 h / 1,000,000 h, by hand: the index's definition


def test_the_timeline_of_one_system_has_a_row_per_cause_not_one_node():
    """A Slurm job's log names one system: its outages drawn against "node 0" said nothing; a row per cause does.
    The counts per row are the hand count of the bundled export's states."""
    import pandas as pd

    import relmodel
    from relmodel.plots.logs import plot_timeline
    from conftest import REPO
    src = relmodel.load_source(str(REPO / "data" / "ops-example" / "sacct.txt"), format="sacct", job="pretrain")
    ev = src.data.events
    assert ev["node"].nunique() == 1
    ax = plot_timeline(src.data, ax=plt.figure().subplots())
    assert ax.get_ylabel() == "cause"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    counts = ev[src.data.cause_columns[-1]].value_counts()
    assert labels == list(counts.index)
    for k, label in enumerate(labels):          # each cause's points sit on its own row
        ys = pd.Series(ax.collections[k].get_offsets()[:, 1])
        assert (ys == k).all() and len(ys) == counts[label]
    many = plot_timeline(relmodel.datasets.stepfun(), ax=plt.figure().subplots())
    assert many.get_ylabel() == "node (in order of first outage)"
    plt.close("all")
