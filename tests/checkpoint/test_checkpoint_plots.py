"""Checkpoint figures return Axes and draw what they say."""

import matplotlib.pyplot as plt
import pytest
from scipy import stats

import relmodel
from relmodel.plots import checkpoint as pc


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_ettr_curve_marks_three_intervals():
    ax = pc.plot_ettr_curve("3h", "45s", "10min")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(lab.startswith("Young") for lab in labels) and any(lab.startswith("exact") for lab in labels)
    exact_line = [ln for ln in ax.get_lines() if ln.get_label().startswith("exact")][0]
    assert exact_line.get_xdata()[0] == pytest.approx(60 * float(relmodel.optimal_interval(3, 45 / 3600)))


def test_simulated_histogram_with_exact_line():
    s = relmodel.simulate_training("3d", "16min", "3h", "45s", "10min", n_runs=300, seed=1)
    fig, ax = plt.subplots()
    assert pc.plot_simulated_ettr(s, ax=ax) is ax
    xs = [ln.get_xdata()[0] for ln in ax.get_lines()]
    assert 100 * float(relmodel.ettr(16 / 60, 3, 45 / 3600, 1 / 6)) == pytest.approx(xs[-1])


def test_breakdown_bar_sums_to_100():
    ax = pc.plot_breakdown(relmodel.checkpoint.time_breakdown(100, 0.27, 3.09, 45 / 3600, 1 / 6).to_frame())
    widths = [p.get_width() for p in ax.patches]
    assert sum(widths) == pytest.approx(100)


def test_interval_search_plot():
    class Fit:
        mean_h = 2.0

        def ppf(self, q):
            return stats.expon(scale=2.0).ppf(q)
    res = relmodel.checkpoint.best_interval(Fit(), "1min", "5min", n_runs=100, grid=5, work="100h")
    ax = pc.plot_interval_search(res)
    assert len(ax.get_lines()) == 4


def test_two_level_plot_marks_the_optimum():
    plan = relmodel.checkpoint.two_level_optimum("3h", "5s", "2min", "1min", "10min", fast_fraction=0.8)
    ax = pc.plot_two_level(plan, "5s", "2min", "1min", "10min")
    star = [ln for ln in ax.get_lines() if ln.get_label().startswith("best")][0]
    assert star.get_ydata()[0] == pytest.approx(100 * plan.ettr)
    curves = [ln for ln in ax.get_lines() if ln.get_label().startswith("k =")]
    assert max(max(c.get_ydata()) for c in curves) <= 100 * plan.ettr + 1e-6


def test_curve_label_gives_durations_for_a_person():
    # 1,048,576 GPUs on the Llama 3 rates: a job MTBF of 0.0542 h is 3.25 min; no "0.0542 h" or "60 s" on the page
    ax = pc.plot_ettr_curve(0.0542, "1min", "10min")
    labels = [line.get_label() for line in ax.get_lines()]
    assert "job MTBF 3.3 min, checkpoint 1 min, restart 10 min" in labels
    plt.close(ax.figure)


def test_ettr_curve_legend_reads_like_the_pages():
    """The marks' labels say the interval in the unit a person would and ETTR to one decimal, as the tables beside
    the figure do: Young's interval by hand is sqrt(2 x 45 s x 3 h) = 16.43 min, printed "16 min"."""
    import re

    ax = pc.plot_ettr_curve("3h", "45s", "10min")
    labels = {t.get_text().split(":")[0]: t.get_text() for t in ax.get_legend().get_texts()}
    assert labels["Young"].startswith(f"Young: {round((2 * 45 / 3600 * 3) ** 0.5 * 60)} min, ETTR ")
    for name in ("Young", "Daly", "exact"):
        assert re.fullmatch(rf"{name}: \d+(\.\d)? min, ETTR \d+\.\d%", labels[name]), labels[name]


def test_breakdown_legend_one_decimal():
    import re

    ax = pc.plot_breakdown(relmodel.checkpoint.time_breakdown("30d", "16min", "3h", "45s", "10min").to_frame())
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels and all(re.search(r": \d+\.\d%$", lab) for lab in labels), labels
