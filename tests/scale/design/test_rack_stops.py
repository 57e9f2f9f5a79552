"""Rack faults stop the job and nothing fails while it waits: evaluate_design against an event simulation.

The reference is a plain Python event loop written from the physical story alone: a job on 144 nodes in racks
of 4 with 2 hot spare nodes; node faults, whole-rack faults and per-job faults strike only while the job runs;
a failed node takes a spare, a rack fault takes 4; idle spares die on the shelf at the node rate; every repair
is exponential (24 h mean); when the units out exceed the pool the job stops until enough come back; after each
interruption (and after each wait) the job restarts (restart time), then computes ``tau`` and writes a checkpoint
(``delta``) in turn, losing the work since its last checkpoint at the next interruption.  ETTR is useful work over
wall time.  It shares no code with relmodel: neither Daly's formula nor the compound model's closed form.
"""

import dataclasses
import heapq
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from relmodel import Cluster
from relmodel.data.shaping.counts import count_table
from relmodel.scale.design.designs import design_presets
from relmodel.scale.design.policies import evaluate_design
from relmodel.scale.sparing.repair_queue import pool_figures

H = 1000.0           # hours the count table covers
REPAIR = 24.0


def _source(n_gpus, node_faults, job_faults):
    table = pd.DataFrame({"component": ["Faulty GPU", "Software Bug"], "category": ["GPU", "Dependency"],
                          "count": [node_faults, job_faults]})
    return count_table(table, n_gpus=n_gpus, gpus_per_node=8, duration=H)


def simulate(n_nodes, per_rack, pool, node_rate, rack_rate, job_rate, tau, delta, restart, horizon, seed,
             batches=20):
    """(ETTR, its standard error, share of time stopped, its standard error) from batch means of one long run."""
    rng = np.random.default_rng(seed)
    rates = np.array([n_nodes * node_rate, n_nodes // per_rack * rack_rate, job_rate, 0.0])
    ends, held, t, running, seg, stop_from = [], 0, 0.0, True, 0.0, 0.0
    useful, stopped = np.zeros(batches), np.zeros(batches)

    def work(x):                                          # whole compute stretches done since the restart began
        return tau * math.floor(max(x - restart, 0.0) / (tau + delta))

    def batch(x):
        return min(int(x / horizon * batches), batches - 1)
    while t < horizon:
        if not running:                                   # stopped: only repairs
            end, units = heapq.heappop(ends)
            t, held = min(end, horizon), held - units
            if held <= pool or t >= horizon:
                stopped[batch(stop_from)] += t - stop_from
                running, seg = True, t
            continue
        rates[3] = max(pool - held, 0) * node_rate        # idle spares fail too
        dt = rng.exponential(1.0 / rates.sum())
        if ends and ends[0][0] <= t + dt:                 # a repair comes first (memoryless: redraw after it)
            end, units = heapq.heappop(ends)
            t, held = end, held - units
            continue
        t += dt
        if t >= horizon:
            break
        kind = rng.choice(4, p=rates / rates.sum())
        if kind == 3:                                     # a spare dies on the shelf: no interruption
            heapq.heappush(ends, (t + rng.exponential(REPAIR), 1))
            held += 1
            continue
        useful[batch(t)] += work(t - seg)
        if kind < 2:
            units = 1 if kind == 0 else per_rack
            heapq.heappush(ends, (t + rng.exponential(REPAIR), units))
            held += units
        if held > pool:
            running, stop_from = False, t
        else:
            seg = t
    if running:
        useful[-1] += work(horizon - seg)
    e, s = useful / (horizon / batches), stopped / (horizon / batches)
    return e.mean(), e.std(ddof=1) / math.sqrt(batches), s.mean(), s.std(ddof=1) / math.sqrt(batches)


@pytest.mark.parametrize("fit, horizon", [(1e6, 4e5), (2e5, 1.6e6)])
def test_rack_faults_against_an_event_simulation(fit, horizon):
    # 144 nodes of 8 GPUs in racks of 4, two hot spare nodes: a rack fault always needs more than the pool
    c = dataclasses.replace(Cluster.megascale(1152), spare_pool=2, policy="spare-pool")
    assert (c.n_nodes, c.nodes_per_rack, c.n_racks) == (144, 4, 36)
    node_faults, job_faults = 16, 5                        # about Llama 3's node rate: 1.1e-4 an hour a node
    r = evaluate_design(c, _source(1152, node_faults, job_faults), "1min", "10min", rack_fit=fit, repair=REPAIR,
                        n_runs=0, n_boot=0, seed=0)
    node, job, rack = node_faults / H / 144, job_faults / H, fit * 1e-9
    assert r.interruption_rate == pytest.approx(144 * node + job + 36 * rack, rel=1e-12)
    e, e_se, s, s_se = simulate(144, 4, 2, node, rack, job, r.interval_h, 1 / 60, 1 / 6, horizon, seed=1)
    assert abs(r.stall_share - s) < 4 * s_se
    assert abs(r.ettr - e) < 4 * e_se
    # failures going on during the waits (the old answer) is far outside the simulation's error
    free = r.ettr / (1 - r.stall_share) * (1 - r.stall_share_free)
    assert e - free > 4 * e_se


def test_rack_faults_equal_the_stall_model():
    # Whole NVL72 racks as the pool's units and rack faults the only hardware faults: each fault takes one rack
    # and the job stops when it finds no spare rack, nothing failing meanwhile: the spare pool's "stall" model.
    c = design_presets(1152)["nvl72-whole-rack"]
    fit = 3e5
    r = evaluate_design(c, _source(1152, 0, 5), "1min", "10min", rack_fit=fit, n_runs=0, n_boot=0, seed=0)
    racks = c.n_racks
    lam = racks * fit * 1e-9
    for spares in (0, 1, 2):
        d = evaluate_design(dataclasses.replace(c, spare_pool=spares), _source(1152, 0, 5), "1min", "10min",
                            rack_fit=fit, n_runs=0, n_boot=0, seed=0, spare_rate_per_h=0)   # spares never fail
        stall = pool_figures(lam, REPAIR, spares, model="stall")
        assert d.stall_share == pytest.approx(stall["stall_share"], rel=1e-9)
        # the wait per interruption the job sees, and the stall model's per rack fault
        assert d.mean_stall_h * d.interruption_rate == pytest.approx(stall["mean_stall_h"] * lam, rel=1e-9)
        # a hot spare rack sits in a rack too: rack faults strike it on the shelf (they did not, given as rack_fit)
        hot = evaluate_design(dataclasses.replace(c, spare_pool=spares), _source(1152, 0, 5), "1min", "10min",
                              rack_fit=fit, n_runs=0, n_boot=0, seed=0)
        k = np.arange(spares + 2)
        held = np.convolve(stats.poisson.pmf(k, lam * REPAIR),
                           stats.binom.pmf(k, spares, -math.expm1(-fit * 1e-9 * REPAIR)))[:spares + 2]
        assert hot.stall_share == pytest.approx(held[-1] / held.sum(), rel=1e-9)
        assert hot.spare_rate_per_h == pytest.approx(fit * 1e-9 if spares else 0.0, rel=1e-12)
    assert r.stall_share > 0
    # 4-node racks and 2 spare nodes: every rack fault stops the job until that rack is back, as a pool of
    # rack-sized units with no spare does
    m = dataclasses.replace(Cluster.megascale(1152), spare_pool=2, policy="spare-pool")
    d = evaluate_design(m, _source(1152, 0, 5), "1min", "10min", rack_fit=fit, n_runs=0, n_boot=0, seed=0,
                        spare_rate_per_h=0)
    a = m.n_racks * fit * 1e-9 * REPAIR
    assert d.stall_share == pytest.approx(pool_figures(a / REPAIR, REPAIR, 0, model="stall")["stall_share"], rel=1e-9)
    assert d.stall_share == pytest.approx(a / (1 + a), rel=1e-9)
