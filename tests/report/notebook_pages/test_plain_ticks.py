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


def _overlaps(ax):
    """Pairs of neighbouring x tick labels whose drawn boxes touch (matplotlib's own text extents)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = sorted((t.get_window_extent(renderer) for t in ax.get_xticklabels()
                    if t.get_text() and t.get_visible() and ax.get_xlim()[0] <= t.get_position()[0] <= ax.get_xlim()[1]),
                   key=lambda b: b.x0)
    return [(a, b) for a, b in zip(boxes, boxes[1:]) if a.x1 >= b.x0]


@pytest.mark.parametrize("width", [3.0, 5.5, 11.0])
def test_wide_labels_thin_out_until_they_do_not_touch(width):
    """GPU counts 1,024-262,144 on a narrow axis: 1, 2, 5 per decade would run 50,000100,000200,000 together."""
    ax = Figure(figsize=(width, 3), dpi=90).subplots()
    ax.loglog([1024, 262144], [1e3, 1e5])
    plain_log_ticks(ax)
    assert _overlaps(ax) == []
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "10,000" in labels and "100,000" in labels
    if width >= 11:  # with room, the densest ticks stay
        assert "2,000" in labels and "50,000" in labels
