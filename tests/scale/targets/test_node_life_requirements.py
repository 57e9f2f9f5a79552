"""Node requirements under a law of node lives, against an event simulation of a checkpointed job written here.

The reference: n nodes, each failing at the end of a Weibull life and starting a new one at once (a repaired or
swapped node, age 0), the others keeping their ages; per-job faults (software) as a Poisson stream; the job
restarts after every failure (the restart can be struck), then computes ``tau`` and writes a checkpoint
(``ckpt``) in turn, losing the work since its last checkpoint.  A mature fleet starts every node at a random age
of its renewal process (the life in progress is length-biased, a Weibull(k, l) one is l G^(1/k) with
G ~ Gamma(1 + 1/k), and a uniform share of it is lived); a new fleet starts every node at age 0.  ETTR is useful
work over wall time.  No relmodel code runs inside it.
"""

import math

import numpy as np
import pytest

from relmodel.errors import ModelInputError
from relmodel.scale.lifecycle.lives import Life
from relmodel.scale.targets.life_requirement import node_life_requirement
from relmodel.scale.targets.requirements import required_node_mtbf, requirements_table

D, R = 1 / 60, 1 / 6
K = 0.7                       # infant mortality: a decreasing hazard
LIFE = Life(1.0, "weibull", K)


def simulate_job(n, mean, fixed, tau, horizon, mature, seed):
    rng = np.random.default_rng(seed)
    scale = mean / math.gamma(1 + 1 / K)
    if mature:
        life = scale * rng.gamma(1 + 1 / K, size=n) ** (1 / K)
        nxt = life * rng.random(n)                      # time left of the life in progress
    else:
        nxt = scale * rng.weibull(K, size=n)
    seg = useful = 0.0
    period = tau + D
    while True:
        i = int(np.argmin(nxt))
        job = seg + (rng.exponential(1 / fixed) if fixed > 0 else math.inf)
        t = min(nxt[i], job)
        if t >= horizon:
            return (useful + tau * math.floor(max(horizon - seg - R, 0.0) / period)) / horizon
        useful += tau * math.floor(max(t - seg - R, 0.0) / period)
        if nxt[i] <= job:
            nxt[i] = t + scale * rng.weibull(K)
        seg = t


def _mean_se(x):
    x = np.asarray(x)
    return x.mean(), x.std(ddof=1) / math.sqrt(x.size)


N_GPUS, FIXED = 2048, 0.02        # 256 nodes of 8 GPUs; software faults about once in two days


@pytest.fixture(scope="module")
def answer():
    return node_life_requirement(N_GPUS, 0.9, "1min", "10min", law=LIFE, run="54d", fixed_rate_per_h=FIXED)


def test_mature_fleet_meets_the_target_in_simulation(answer):
    m, tau = answer.mature_node_mtbf_h, answer.mature_interval_h
    assert m == pytest.approx(required_node_mtbf(N_GPUS, 0.9, "1min", "10min", fixed_rate_per_h=FIXED, law=LIFE,
                                                 law_of="node lives"), rel=1e-9)
    e, se = _mean_se([simulate_job(256, m, FIXED, tau, 2e4, True, s) for s in range(20)])
    assert abs(e - 0.9) < 4 * se + 2e-4
    # the shape read as the job's gaps asks for less, and a mature fleet then misses the target
    g, _ = _mean_se([simulate_job(256, answer.job_gaps_node_mtbf_h, FIXED, tau, 2e4, True, s) for s in range(20)])
    assert answer.job_gaps_node_mtbf_h < 0.97 * m and 0.9 - g > 4 * se


def test_new_fleet_meets_the_target_over_its_run(answer):
    m, tau, run = answer.new_node_mtbf_h, answer.new_interval_h, answer.run_h
    assert run == 54 * 24
    assert m == pytest.approx(required_node_mtbf(N_GPUS, 0.9, "1min", "10min", fixed_rate_per_h=FIXED, law=LIFE,
                                                 law_of="node lives", fleet="new", run="54d"), rel=1e-9)
    e, se = _mean_se([simulate_job(256, m, FIXED, tau, run, False, s) for s in range(300)])
    assert abs(e - 0.9) < 4 * se + 2e-4
    # new nodes front-load their failures: at the mature fleet's figure a new fleet misses the target
    assert m > 1.3 * answer.mature_node_mtbf_h
    lo, _ = _mean_se([simulate_job(256, answer.mature_node_mtbf_h, FIXED, answer.mature_interval_h, run, False, s)
                      for s in range(100, 300)])
    assert 0.9 - lo > 0.01


def test_many_nodes_superpose_to_poisson_and_the_result_says_which_fleet():
    # 16,384 GPUs, shape 0.7: a mature fleet needs the exponential answer (superposed gaps near Poisson); the
    # shape read as the job's gaps asks 835 h less, and a new fleet over 54 days much more
    r = node_life_requirement(16_384, 0.9, "1min", "10min", law=LIFE, run="54d", fixed_rate_per_h=0)
    assert r.mature_node_mtbf_h == pytest.approx(r.exponential_node_mtbf_h, rel=2e-3)
    assert r.exponential_node_mtbf_h - r.job_gaps_node_mtbf_h == pytest.approx(835, abs=3)
    assert r.new_node_mtbf_h > 1.5 * r.mature_node_mtbf_h
    text = r.text()
    assert "mature fleet" in text and "new fleet" in text and "54 d" in text.replace("54 days", "54 d")
    assert set(r.figures()["fleet"].str.split(" ").str[0]) >= {"mature", "new"}
    assert "NaN" not in r.table().to_string() and "nan" not in r.table().to_string()


def test_a_law_must_say_whose_shape_it_is():
    with pytest.raises(ModelInputError, match="law_of"):
        required_node_mtbf(16_384, 0.9, fixed_rate_per_h=0, law=LIFE)
    with pytest.raises(ModelInputError, match="run"):
        required_node_mtbf(16_384, 0.9, fixed_rate_per_h=0, law=LIFE, law_of="node lives", fleet="new")
    with pytest.raises(ModelInputError, match="node lives"):
        required_node_mtbf(16_384, 0.9, fixed_rate_per_h=0, fleet="new", run="54d")
    t = requirements_table([2048, 16_384], 0.9, fixed_rate_per_h=0, law=LIFE, law_of="node lives")
    assert "node lives" in t.attrs["law"]
    assert t["node_mtbf_h"].iloc[1] == pytest.approx(
        required_node_mtbf(16_384, 0.9, "1min", "10min", fixed_rate_per_h=0, law=LIFE, law_of="node lives"),
        rel=1e-9)
