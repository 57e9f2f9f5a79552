"""Every log axis the report draws is labelled with plain numbers, never mathtext powers."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from relmodel.plots.axes import plain_log_ticks, plain_number  # noqa: E402


@pytest.mark.parametrize("v, text", [(1, "1"), (2, "2"), (1000, "1,000"), (1_048_576, "1,048,576"), (0.5, "0.5"),
                                     (0.05, "0.05"), (2e-6, "0.000002"), (3.25, "3.25"), (0.1 + 0.2, "0.3"),
                                     (0, "0"), (-20, "-20")])
def test_plain_number(v, text):
    assert plain_number(v) == text


def _labels(ax):
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]


def test_log_axes_get_plain_labels_and_linear_ones_are_left_alone():
    ax = Figure().subplots()
    ax.loglog(np.geomspace(1e3, 1e6, 10), np.geomspace(0.01, 100, 10))
    plain_log_ticks(ax)
    labels = _labels(ax)
    assert labels and not any("$" in t or "mathdefault" in t for t in labels)
    assert "1,000" in labels and "100,000" in labels and "0.1" in labels
    lin = Figure().subplots()
    lin.plot([0, 1], [0, 1])
    before = type(lin.xaxis.get_major_formatter())
    plain_log_ticks(lin)
    assert type(lin.xaxis.get_major_formatter()) is before


def test_report_plots_draw_no_mathtext():
    from relmodel.checkpoint import optimal_interval  # noqa: F401  (the plots below import their layers)
    from relmodel.plots.checkpoint import plot_ettr_curve
    from relmodel.plots.designs import optics_plot
    from relmodel.plots.scaling import required_mtbf_plot
    for draw in (lambda ax: plot_ettr_curve(3.0, "1min", ax=ax), lambda ax: optics_plot(sizes=[1000, 100000], ax=ax),
                 lambda ax: required_mtbf_plot(fixed_rate_per_h=0.05, ax=ax)):
        ax = draw(Figure().subplots())
        labels = _labels(ax)
        assert labels and not any("$" in t for t in labels), labels
