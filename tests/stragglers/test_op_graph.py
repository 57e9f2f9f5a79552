"""The step's dependency model and its simulator, against timelines worked out by hand."""

import numpy as np
import pytest

from relmodel.errors import OpGraphError
from relmodel.stragglers import build_graph, one_f_one_b, simulate_steps
from relmodel.stragglers.graph import interleaved_1f1b
from relmodel.stragglers.synthetic_ops import BASE_S, synthetic_ops
from relmodel.stragglers.simulate import simulate_timeline
from relmodel.stragglers.synthetic_ops import counts_1f1b

F, B = "forward-compute", "backward-compute"
# one microbatch on two stages; seconds
TIMES = {F: 1.0, B: 2.0, "forward-send": 0.5, "forward-recv": 0.5, "backward-send": 0.5, "backward-recv": 0.5,
         "params-all-gather": 0.1, "grads-reduce-scatter": 0.2, "gc": 0.0, "layernorm-grads-all-reduce": 0.0,
         "embedding-grads-all-reduce": 0.3, "optimizer-clip-main-grad": 0.0, "optimizer": 0.4}


def two_stage_graph():
    return build_graph(2, counts_1f1b(2, 1), [one_f_one_b(2, s, 1) for s in range(2)])


def test_1f1b_orders_by_hand():
    assert one_f_one_b(4, 0, 6) == [(F, 0), (F, 1), (F, 2), (F, 3), (B, 0), (F, 4), (B, 1), (F, 5), (B, 2),
                                    (B, 3), (B, 4), (B, 5)]
    assert one_f_one_b(4, 3, 3) == [(F, 0), (B, 0), (F, 1), (B, 1), (F, 2), (B, 2)]
    assert one_f_one_b(4, 1, 1) == [(F, 0), (B, 0)]  # fewer microbatches than warm-up slots


def test_two_stage_step_by_hand():
    """Stage 0: all-gather 0-0.1, F 0.1-1.1, send/recv 1.1-1.6; stage 1: F 1.6-2.6, B 2.6-4.6; backward
    send/recv 4.6-5.1; stage 0 B 5.1-7.1; embedding all-reduce waits for stage 0: 7.1-7.4; reduce-scatter
    7.4-7.6; clip 7.6; optimizer 7.6-8.0."""
    g = two_stage_graph()
    step = simulate_steps(g, lambda i: np.array([TIMES[g.optype[i]]]))
    assert step == pytest.approx(8.0)  # the last axis is the DP rank, reduced
    start, end = simulate_timeline(g, lambda i: np.array([TIMES[g.optype[i]]]), (1,))
    at = g.index()
    assert start[at[(1, F, 0)]] == pytest.approx([1.6]) and end[at[(0, B, 0)]] == pytest.approx([7.1])
    assert end[at[(1, "embedding-grads-all-reduce", 0)]] == pytest.approx([7.4])


def test_collectives_wait_for_the_slowest_dp_rank():
    """DP rank 1's stage-1 forward takes 3 s instead of 1: its stage 0 backward ends at 9.1, the embedding
    all-reduce at 9.4, and the reduce-scatter (across DP ranks) holds rank 0 back too: both end at 10.0."""
    g = two_stage_graph()

    def value(i):
        v = np.full((1, 2), TIMES[g.optype[i]])
        if g.optype[i] == F and g.stage[i] == 1:
            v[0, 1] = 3.0
        return v
    assert simulate_steps(g, value) == pytest.approx([10.0])
    start, end = simulate_timeline(g, value, (1, 2))
    at = g.index()
    assert end[at[(0, "embedding-grads-all-reduce", 0)]][0] == pytest.approx([7.4, 9.4])
    assert end[at[(0, "grads-reduce-scatter", 0)]][0] == pytest.approx([9.6, 9.6])


def test_steps_and_scenarios_broadcast():
    """A number for every node equals a full array of that number; leading axes are simulated independently."""
    g = two_stage_graph()
    rng = np.random.default_rng(0)
    x = {i: rng.uniform(0.5, 1.5, (3, 5, 2)) for i in range(g.n_nodes)}
    batch = simulate_steps(g, lambda i: x[i])
    one = np.array([[simulate_steps(g, lambda i: x[i][a, b][None, :])[0] for b in range(5)] for a in range(3)])
    assert batch.shape == (3, 5) and batch == pytest.approx(one)
    assert simulate_steps(g, lambda i: TIMES[g.optype[i]]) == pytest.approx(8.0)


def test_a_schedule_that_cannot_run_is_a_cycle():
    """Stage 0 running its backward before its forward waits on itself through stage 1."""
    with pytest.raises(OpGraphError, match="cycle"):
        build_graph(2, counts_1f1b(2, 1), [[(B, 0), (F, 0)], one_f_one_b(2, 1, 1)])


def test_unknown_op_types_are_named():
    counts = counts_1f1b(2, 1)
    counts[0]["warp-drive"] = 1
    with pytest.raises(OpGraphError, match="warp-drive"):
        build_graph(2, counts, [one_f_one_b(2, s, 1) for s in range(2)])


def test_interleaved_order_by_hand():
    """pp 2, 4 microbatches, 2 chunks: stage 1 warms up with (vpp - 1) pp = 2 forwards; forwards run chunk 0 of
    microbatches 0-1, chunk 1 of 0-1, chunk 0 of 2-3, ...; backwards the chunks in reverse."""
    assert interleaved_1f1b(2, 1, 4, 2) == [
        (F, 0, 0), (F, 1, 0), (F, 2, 1), (B, 0, 1), (F, 3, 1), (B, 1, 1), (F, 4, 0), (B, 2, 0), (F, 5, 0),
        (B, 3, 0), (F, 6, 1), (B, 4, 1), (F, 7, 1), (B, 5, 1), (B, 6, 0), (B, 7, 0)]
    assert interleaved_1f1b(4, 2, 8, 1) == [(t, m, 0) for t, m in one_f_one_b(4, 2, 8)]
    with pytest.raises(OpGraphError, match="multiple of pp"):
        interleaved_1f1b(4, 0, 6, 2)


@pytest.mark.parametrize("pp, m, v", [(4, 8, 1), (4, 8, 2), (4, 8, 4), (2, 4, 2), (8, 16, 2), (3, 6, 3)])
def test_pipeline_bubble_matches_the_published_formula(pp, m, v):
    """With free communication a step of m microbatches takes m (t_f + t_b) + (p - 1)(t_f + t_b) / v
    (Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
    SC 2021, section 2.2: the bubble of 1F1B and of the interleaved schedule with v chunks per stage)."""
    base = {k: 0.0 for k in BASE_S} | {F: 0.1, B: 0.2}
    trace = synthetic_ops(dp=1, pp=pp, n_micro=m, n_steps=1, vpp=v, noise=0.0, base=base, seed=0)
    step = simulate_steps(trace.graph, lambda i: trace.x[i])
    assert float(step[0]) == pytest.approx(m * 0.3 + (pp - 1) * 0.3 / v)
