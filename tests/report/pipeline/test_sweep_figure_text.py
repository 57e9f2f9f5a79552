"""The sweep's comparison figure is read on the page at 10 px or more.

The comparison page (``<out>/index.html``) shows ``comparison.png`` in a
column 960 px wide (60em of :data:`relmodel.report.blocks.markup.STYLE`); a
figure wider than that is shrunk to it.  Its smallest text, written in the PNG
(:mod:`relmodel.plots.legible`), times the shrink must reach 10 px.  The
browser tier (tests/report/test_browser.py) measures the rendered pages.
"""

import pytest

from relmodel.plots.legible import MIN_TEXT_PX, smallest_text_px
from relmodel.report.blocks.markup import HEADLINE
from relmodel.report.pipeline import sweep

COLUMN_PX = 960


def _rows(n_values=4):
    values = [{"n_gpus": g, "ckpt_cost": c} for g in (4096, 16384, 65536, 131072)[:n_values] for c in ("30s", "2min")]
    return [{"values": v, "headline": {k: 0.8 if "ettr" in k or "goodput" in k else 5_000_000.0 * (i + 1)
                                       for k in HEADLINE}} for i, v in enumerate(values)]


def _shown_px(png):
    from PIL import Image
    import io

    width = Image.open(io.BytesIO(png)).size[0]
    return smallest_text_px(png) * min(1.0, COLUMN_PX / width)


@pytest.mark.parametrize("names", [["n_gpus"], ["n_gpus", "ckpt_cost"]])
def test_comparison_text_is_at_least_10px_in_the_page_column(names):
    png = sweep._png(sweep.comparison_figure(names, _rows()))
    assert _shown_px(png) >= MIN_TEXT_PX, _shown_px(png)


def test_the_check_catches_the_old_sizes(monkeypatch):
    monkeypatch.setattr(sweep, "COMPARISON_STYLE", {})  # matplotlib's own sizes, with the legend "small"
    png = sweep._png(sweep.comparison_figure(["n_gpus", "ckpt_cost"], _rows()))
    assert _shown_px(png) < MIN_TEXT_PX
