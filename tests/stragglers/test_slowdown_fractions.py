"""A slowdown is a fraction in the synthetic logs, max_with_slow, the scaling table and page 07's parameter.

Step times are checked against hand counts (no noise: a step is exactly its
step time times 1 + the slowdowns that hit it) and closed forms of expected
maxima (exponential and normal order statistics), never against the code.
"""

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from relmodel.errors import ModelInputError, ParameterError
from relmodel.report.notebook_pages.straggler_page import ASSUMED_SLOWDOWN, assumed_slowdown
from relmodel.stragglers import max_with_slow, straggler_scaling
from relmodel.stragglers.synthetic import plant, synthetic_steps, write_synthetic_parquet

from conftest import REPO

QUIET = {"noise": 0.0, "spike_prob": 0.0, "burst_prob": 0.0}


def test_planted_slow_node_is_its_slowdown_longer_by_hand():
    syn = synthetic_steps(4, 2, 10, step_time="2s", n_slow=1, slowdown=0.25, onsets=3, seed=5, **QUIET)
    node = int(syn.slow["node"].iloc[0])
    assert list(syn.slow.columns) == ["node", "onset_step", "slowdown"] and syn.slow["slowdown"].iloc[0] == 0.25
    seconds = syn.log.times_h * 3600
    want = np.full((10, 8), 2.0)
    want[3:, 2 * node:2 * node + 2] = 2.5          # 2 s x 1.25 from step 3 on, on the node's two ranks
    assert np.allclose(seconds, want, rtol=1e-12)


def test_spikes_and_bursts_are_slowdowns_too():
    every_spike = synthetic_steps(2, 2, 5, step_time="1s", noise=0.0, spike_prob=1.0, spike_slowdown=0.5,
                                  burst_prob=0.0, n_slow=0, seed=1)
    assert np.allclose(every_spike.log.times_h * 3600, 1.5)
    every_burst = synthetic_steps(2, 2, 5, step_time="1s", noise=0.0, spike_prob=0.0, burst_prob=1.0, burst_len=1,
                                  burst_slowdown=0.3, n_slow=0, seed=1)
    assert np.allclose(every_burst.log.times_h * 3600, 1.3)  # one burst of one step starts on every node each step


@pytest.mark.parametrize("old", ["slow_factor", "spike_factor", "burst_factor"])
def test_the_multipliers_of_0_2_are_refused(old):
    with pytest.raises(TypeError, match=old):
        synthetic_steps(n_nodes=6, ranks_per_node=2, n_steps=20, seed=3, **{old: 1.3})


def test_plant_and_the_parquet_writer_take_slowdowns(tmp_path):
    new = plant(10, 100, n_slow=3, slowdown=0.2, seed=4)
    assert len(new) == 3 and np.all(new["slowdown"] == 0.2)
    with pytest.raises(ModelInputError, match="a fraction >= 0"):
        plant(10, 100, slowdown=-0.2)
    with pytest.raises(ModelInputError, match="spike_slowdown must be a fraction"):
        synthetic_steps(2, 2, 5, spike_slowdown=float("nan"))
    planted = write_synthetic_parquet(tmp_path / "s.parquet", 4, 2, 30, n_slow=1, slowdown=0.4, onsets=0,
                                      seed=2, **QUIET)
    table = pd.read_parquet(tmp_path / "s.parquet")
    slow_rows = table["node"] == int(planted["node"].iloc[0])
    assert planted["slowdown"].iloc[0] == pytest.approx(0.4)
    assert np.allclose(table.loc[slow_rows, "duration_s"], 2.8) and np.allclose(table.loc[~slow_rows, "duration_s"], 2)


def test_the_planted_table_is_shown_in_percent():
    html = synthetic_steps(4, 2, 50, n_slow=1, slowdown=0.15, onsets=10, seed=1)._repr_html_()
    assert "slower (%)" in html and "15.0" in html and "factor" not in html


def test_max_with_slow_against_exponential_closed_forms():
    d = stats.expon()
    # E[max(X, 1.5 Y)], X, Y ~ Exp(1): 1 + 1.5 - E[min], the min having rate 1 + 1/1.5
    assert max_with_slow(d, 2, 1, slowdown=0.5) == pytest.approx(1 + 1.5 - 1 / (1 + 1 / 1.5), rel=1e-8)
    # E[max(X1, X2, 2 Y)] by inclusion-exclusion over the minima (rates 1, 1, 1/2)
    want = (1 + 1 + 2) - (1 / 2 + 2 / 1.5) + 1 / 2.5
    assert max_with_slow(d, 3, 1, slowdown=1.0) == pytest.approx(want, rel=1e-8)


def test_max_with_slow_takes_the_slowdown_by_keyword():
    d = stats.expon()
    with pytest.raises(TypeError):
        max_with_slow(d, 3, 1, 2.0)                  # the factor of 0.2, fourth and positional
    with pytest.raises(TypeError, match="factor"):
        max_with_slow(d, 3, 1, factor=2.0)
    with pytest.raises(ModelInputError, match="slowdown > -1"):
        max_with_slow(d, 3, 1, slowdown=-1.5)


def test_scaling_table_slowdown_is_a_fraction():
    d = stats.norm(1.0, 0.1)                   # median 1; the max of two normals has mean 1 + 0.1 / sqrt(pi)
    t = straggler_scaling(d, [1, 2]).by_size
    assert t["slowdown"].tolist() == pytest.approx([0.0, 0.1 / math.sqrt(math.pi)], abs=1e-9)
    assert np.allclose(t["loss_noise"], t["slowdown"] / (1 + t["slowdown"]))
    curve = straggler_scaling(stats.lognorm(0.05), [8], fail_slow_rate=1e-3, slowdown=0.5)
    assert "factor" not in curve.fail_slow and curve.fail_slow["slowdown"] == 0.5


def _page_parameters():
    nb = json.loads((REPO / "notebooks" / "07_stragglers.ipynb").read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    return {m[1]: m[2] for m in re.finditer(r"^(\w+): [^=]+= (\S+)", "".join(cell["source"]), re.M)}


def test_page_parameter_is_a_fraction():
    params = _page_parameters()
    assert float(params["fail_slow_slowdown"]) == ASSUMED_SLOWDOWN == 0.2 and "slow_factor" not in params
    assert "step_log" not in params
    assert assumed_slowdown(0.35) == 0.35 and assumed_slowdown(None) == 0.2


def test_report_rules_check_the_slowdown_and_refuse_the_old_multiplier():
    from relmodel.report.parameters.rules import check_values
    assert check_values({"fail_slow_slowdown": 0.2}) == {"fail_slow_slowdown": 0.2}
    with pytest.raises(ParameterError, match="a fraction from 0 to 99"):
        check_values({"fail_slow_slowdown": -0.1})


def test_seed_none_draws_fresh_entropy_that_repeats_the_draw():
    a, b = synthetic_steps(4, 2, 50, seed=None), synthetic_steps(4, 2, 50, seed=None)
    assert not np.array_equal(a.log.times_h, b.log.times_h)
    again = synthetic_steps(4, 2, 50, seed=a.settings["seed"])
    assert np.array_equal(a.log.times_h, again.log.times_h) and a.slow.equals(again.slow)
    assert len(plant(10, 100, n_slow=3)) == 3


def test_synthetic_op_traces_take_slowdowns():
    from relmodel.stragglers.synthetic_ops import BASE_S, synthetic_ops
    flat = dict(dp=2, pp=2, n_micro=2, n_steps=2, noise=0.0, seed=0)
    trace = synthetic_ops(**flat, slow_workers=[(1, 0, 0.5)], last_stage_slowdown=0.25)
    ops = trace.graph.optype.astype(str)
    fwd = (ops == "forward-compute") & (trace.graph.stage == 1)       # the last stage's forward computes
    # by hand: base time x 1.25 (last stage) x 1.5 (slow worker, DP rank 0) and x 1.25 alone on DP rank 1
    assert np.allclose(trace.x[fwd][:, :, 0], BASE_S["forward-compute"] * 1.25 * 1.5)
    assert np.allclose(trace.x[fwd][:, :, 1], BASE_S["forward-compute"] * 1.25)
    with pytest.raises(TypeError, match="slow"):
        synthetic_ops(**flat, slow=[(1, 0, 1.5)])
    with pytest.raises(ModelInputError, match="slowdown > -1"):
        synthetic_ops(**flat, slow_workers=[(0, 0, -2.0)])


def test_whatif_names_the_published_multiplier_factor_and_warns_on_the_old_name():
    # The bundled trace-ST: S = mean original step / mean ideal step, published 1.1787 (data/result-ST.json).
    import relmodel
    from relmodel.stragglers.synthetic_ops import synthetic_ops
    trace = synthetic_ops(seed=0)
    r = relmodel.stragglers.whatif(trace, n_boot=0, seed=0)
    recorded = r.per_step["simulated_s"].mean() / r.per_step["ideal_s"].mean()  # by hand from the per-step table
    assert r.factor == pytest.approx(recorded, rel=1e-12)
    assert r.share_lost == pytest.approx(1 - 1 / recorded, rel=1e-12)
    assert not hasattr(r, "slowdown")          # 0.2's name of the multiplier S, which is factor
