"""What-if on synthetic 1F1B traces with known causes; the heat map; bad arguments."""

import numpy as np
import pytest

from relmodel.errors import ModelInputError
from relmodel.plots.stragglers import straggler_heatmap, whatif_steps_plot
from relmodel.stragglers import whatif
from relmodel.stragglers.synthetic_ops import synthetic_ops


def test_no_stragglers_no_slowdown():
    r = whatif(synthetic_ops(dp=3, pp=3, n_micro=4, n_steps=5, noise=0.0, seed=0), n_boot=50, seed=0)
    assert r.factor == pytest.approx(1.0, abs=1e-12)
    assert r.mw == 0.0 and r.ms == 0.0
    assert r.by_optype["S"].to_numpy() == pytest.approx(1.0, abs=1e-12)


def test_planted_slow_worker_is_found_and_explains_the_slowdown():
    r = whatif(synthetic_ops(dp=8, pp=4, n_micro=8, n_steps=30, slow_workers=[(2, 5, 0.3)], seed=4), n_boot=100, seed=0)
    assert r.top_workers == ("DP rank 5, stage 2",)
    assert r.by_dp_rank.iloc[0]["DP rank"] == 5 and r.by_stage.iloc[0]["stage"] == 2
    assert r.mw > 0.9 and abs(r.ms) < 0.1
    assert r.recoverable.iloc[0]["worker"] == "DP rank 5, stage 2"
    assert 1.1 < r.factor < 1.3  # the pipeline bubble absorbs part of the 30%


def test_long_last_stage_is_stage_imbalance():
    r = whatif(synthetic_ops(dp=4, pp=4, n_micro=8, n_steps=30, last_stage_slowdown=0.4, seed=5), n_boot=100, seed=0)
    assert r.by_stage.iloc[0]["stage"] == 3
    assert r.ms > 0.8 and r.mw < 0.3


def test_slowdown_grows_with_the_planted_slowdown():
    s = [whatif(synthetic_ops(dp=4, pp=2, n_micro=4, n_steps=10, slow_workers=[(0, 1, f)], noise=0.0,
                       seed=0), n_boot=0, seed=0).factor for f in (0.0, 0.2, 0.5, 1.0)]
    assert np.all(np.diff(s) > 0) and s[0] == pytest.approx(1.0)


def test_heatmap_is_steps_by_workers():
    r = whatif(synthetic_ops(dp=4, pp=2, n_micro=4, n_steps=12, slow_workers=[(1, 3, 0.5)], seed=6), n_boot=0, seed=0)
    ax = straggler_heatmap(r)
    img = ax.get_images()[0].get_array()
    assert img.shape == (8, 12)  # workers x steps
    row = list(r.step_workers.columns).index("DP rank 3, stage 1")
    assert np.argmax(np.asarray(img).mean(axis=1)) == row
    assert whatif_steps_plot(r).get_ylabel() == "step time (s)"


def test_bad_arguments():
    t = synthetic_ops(dp=2, pp=2, n_micro=2, n_steps=3, seed=0)
    with pytest.raises(ModelInputError, match="conf"):
        whatif(t, conf=1.5, seed=0)
    with pytest.raises(ModelInputError, match="top_share"):
        whatif(t, top_share=0, seed=0)
    with pytest.raises(ModelInputError, match="slow workers"):
        synthetic_ops(dp=2, pp=2, slow_workers=[(5, 0, 0.2)], seed=0)
    with pytest.raises(ModelInputError, match="n_micro"):
        synthetic_ops(n_micro=0, seed=0)
