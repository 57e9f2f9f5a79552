"""What-if slowdown: exact on hand-made logs; the bootstrap interval agrees with the delta method."""

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.data.formats.steps import StepLog
from relmodel.errors import ModelInputError

# 3 steps on 4 ranks (two nodes of two), seconds
HAND = np.array([[1.0, 1.0, 1.0, 1.0],
                 [1.0, 1.0, 1.0, 3.0],
                 [2.0, 1.0, 1.0, 1.0]])


def hand_log():
    return StepLog(HAND / 3600, [0, 1, 2], [0, 1, 2, 3], ["a", "a", "b", "b"], name="hand")


def test_median_baseline_by_hand():
    r = relmodel.stragglers.slowdown(hand_log(), n_boot=0, seed=0)
    # actual 1 + 3 + 2 = 6 s; without stragglers 1 + 1 + 1 = 3 s
    assert r.actual_h * 3600 == pytest.approx(6.0)
    assert r.ideal_h * 3600 == pytest.approx(3.0)
    assert r.share_lost == pytest.approx(0.5) and r.factor == pytest.approx(2.0)
    assert list(r.per_step["lost_s"]) == pytest.approx([0.0, 2.0, 1.0])
    assert list(r.per_step["slowest_rank"][1:]) == [3, 0]
    ranks = r.by_rank.set_index("rank")
    assert ranks.loc[3, "lost_s"] == pytest.approx(2.0) and ranks.loc[0, "lost_s"] == pytest.approx(1.0)
    nodes = r.by_node.set_index("node")
    assert nodes.loc["b", "share"] == pytest.approx(2 / 6) and nodes.loc["a", "share"] == pytest.approx(1 / 6)
    assert np.isnan(r.share_lo)
    assert "nan" not in r._repr_html_().lower()


def test_mean_and_quantile_baselines_by_hand():
    log = hand_log()
    assert relmodel.stragglers.slowdown(log, baseline="mean", n_boot=0, seed=0).share_lost == pytest.approx(1 - (1 + 1.5 + 1.25) / 6)
    q = np.quantile(HAND, 0.9, axis=1).sum()  # numpy's linear interpolation, computed independently
    assert relmodel.stragglers.slowdown(log, baseline=0.9, n_boot=0, seed=0).share_lost == pytest.approx(1 - q / 6)
    with pytest.raises(ModelInputError):
        relmodel.stragglers.slowdown(log, baseline="typical", seed=0)


def test_single_rank_log_is_measured_against_its_typical_step():
    log = StepLog(np.array([[1.0], [1.0], [4.0]]) / 3600, [1, 2, 3], ["job"])
    r = relmodel.stragglers.slowdown(log, n_boot=0, seed=0)
    assert r.across == "steps"
    assert r.share_lost == pytest.approx(1 - 3 / 6)


def test_no_stragglers_means_no_loss():
    log = StepLog(np.full((50, 8), 2.0 / 3600), np.arange(50), np.arange(8))
    r = relmodel.stragglers.slowdown(log, n_boot=200, seed=0)
    assert r.share_lost == pytest.approx(0.0, abs=1e-12)
    assert r.share_lo == pytest.approx(0.0, abs=1e-12) and r.share_hi == pytest.approx(0.0, abs=1e-12)


def test_bootstrap_interval_matches_the_delta_method_for_independent_steps():
    rng = np.random.default_rng(3)
    grid = np.exp(0.05 * rng.standard_normal((3000, 16)))
    r = relmodel.stragglers.slowdown(StepLog(grid / 3600, np.arange(3000), np.arange(16)), n_boot=2000, block=1, seed=1)
    top, typ = grid.max(axis=1), np.median(grid, axis=1)
    ratio = typ.sum() / top.sum()
    se = np.std(typ - ratio * top, ddof=1) / np.sqrt(len(top)) / top.mean()  # delta method for a ratio
    assert r.share_lo < r.share_lost < r.share_hi
    assert (r.share_hi - r.share_lo) == pytest.approx(2 * 1.959964 * se, rel=0.15)


def test_synthetic_loss_matches_its_construction():
    """One node 30% slow from step 0, no noise: each step takes 1.3 against 1.0, a loss of 0.3/1.3."""
    syn = relmodel.stragglers.synthetic_steps(8, 2, 200, noise=0.0, spike_prob=0, burst_prob=0, n_slow=1,
                                   slowdown=0.3, onsets=0, seed=2)
    r = relmodel.stragglers.slowdown(syn.log, n_boot=0, seed=0)
    assert r.share_lost == pytest.approx(0.3 / 1.3)
    assert r.by_node.iloc[0]["node"] == syn.slow["node"].iloc[0]


def test_tables_read_like_a_document():
    r = relmodel.stragglers.slowdown(relmodel.stragglers.synthetic_steps(seed=4).log, n_boot=100, seed=0)
    for t in (r.table(), r.top_nodes()):
        assert isinstance(t, pd.DataFrame) and len(t) <= 15
        assert not t.isna().any().any()
    assert "interval" in r.table().iloc[4]["value"]
