"""Which assumption decides the ranking: each swing recomputed by a direct comparison, and the page's blocks."""

import pytest

import relmodel
from relmodel.report.notebook_pages import design_page as D
from relmodel.scale.design.design_swings import design_swings
from relmodel.scale.design.designs import compare_designs
from relmodel.scale.targets.restart_growth import PER_1K_RANKS_H, growing_restart

DESIGNS = ["h100-fat-tree", "nvl72-whole-rack", "nvl72-in-rack-spares"]


@pytest.fixture(scope="module")
def llama3():
    return relmodel.datasets.llama3_54day()


@pytest.fixture(scope="module")
def swings(llama3):
    return design_swings(DESIGNS, llama3, 16_384, "1min", "10min", repair="24h", seed=0)


def test_each_end_is_the_comparison_with_that_value(swings, llama3):
    f = swings.frame.set_index("assumption")
    base = compare_designs(DESIGNS, llama3, 16_384, ckpt_cost="1min", restart="10min", n_runs=0, n_boot=0)
    assert swings.base_best == base.best()
    hi = compare_designs(DESIGNS, llama3, 16_384, ckpt_cost="1min", restart="10min", n_runs=0, n_boot=0,
                         rack_fit=10_000.0)
    t = hi.by_design.set_index("design")
    assert f.loc["whole-rack faults", "goodput_high"] == pytest.approx(t.loc[swings.base_best, "goodput_per_gpu"])
    assert f.loc["whole-rack faults", "best_high"] == hi.best()
    slow = compare_designs(DESIGNS, llama3, 16_384, ckpt_cost="1min", n_runs=0, n_boot=0,
                           restart=growing_restart("10min", 2 * PER_1K_RANKS_H))
    assert f.loc["restart growth", "goodput_high"] == pytest.approx(
        slow.by_design.set_index("design").loc[swings.base_best, "goodput_per_gpu"])
    # sorted by the swing, and a row decides exactly when its two ends name different designs
    assert list(swings.frame["swing"]) == sorted(swings.frame["swing"], reverse=True)
    assert list(swings.frame["decides"]) == list(swings.frame["best_low"] != swings.frame["best_high"])


def test_page_blocks_say_where_figures_come_from(swings, llama3):
    cmp = compare_designs(["nvl72-whole-rack"], llama3, 16_384, ckpt_cost="1min", n_runs=0, n_boot=0,
                          restart=growing_restart("10min"))
    html = str(D.capacity_block(cmp.results[0], "24h", growing_restart("10min"), 0.0))
    assert "arXiv 2510.20171" in html and "no published figure" in html and "relmodel-note" in html
    assert "e+" not in html
    html = str(D.swings_block(swings))
    assert swings.base_best in html and "e+" not in html


def test_growing_restart_follows_the_published_start_up():
    r = growing_restart("10min")
    # 265 s at 96 x 1,024 GPUs, in proportion to the ranks (Si et al., arXiv 2510.20171)
    assert 3600 * r.growth_h(96 * 1024) == pytest.approx(265.0)
    assert r.hours_at(1_048_576) == pytest.approx(10 / 60 + 265.0 / 3600 * 1_048_576 / (96 * 1024))
