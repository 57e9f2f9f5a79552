"""Checkpoint cost and restart that grow with the job (relmodel.checkpoint.costs, RestartModel growth terms)."""

import math

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.checkpoint import ettr, expected_wall_time, optimal_interval, time_breakdown
from relmodel.checkpoint.costs import CheckpointModel, cost_hours, fit_growth
from relmodel.checkpoint.restart import RestartModel
from relmodel.errors import ModelInputError
from relmodel.scale import Cluster
from relmodel.scale.targets.budget import budget_what_if
from relmodel.scale.design.designs import compare_designs, design_presets
from relmodel.scale.targets.grid import sweep_grid
from relmodel.scale.targets.optics import transceiver_requirement
from relmodel.scale.targets.requirements import (best_ettr, plan_requirements, required_job_mtbf, required_node_mtbf,
                                         requirements_table)
from relmodel.scale.clusters.scaling import scale_rates

FLAT_CKPT = CheckpointModel(state_bytes=0.0, write_bandwidth_per_node=1e9, fixed="1min", n_gpus=16_384)
# all reload: the whole restart is exposed to failures, as a plain duration is
FLAT_RESTART = RestartModel(reload="10min", n_gpus=16_384)


def test_checkpoint_cost_by_hand():
    # 2.8e12 bytes at 2e9 B/s per node: 128 nodes write at 2.56e11 B/s (10.9 s); 512 nodes would exceed the
    # 1e12 B/s storage cap, so the cap decides (2.8 s); a per-GPU term grows past the cap.
    m = CheckpointModel(state_bytes=2.8e12, write_bandwidth_per_node=2e9, storage_bandwidth_cap=1e12)
    assert m.hours_at(1_024) * 3600 == pytest.approx(2.8e12 / (128 * 2e9), rel=1e-12)
    assert m.hours_at(16_384) * 3600 == pytest.approx(2.8, rel=1e-12)
    grow = CheckpointModel(state_bytes=2.8e12, write_bandwidth_per_node=2e9, storage_bandwidth_cap=1e12,
                           state_bytes_per_gpu=1e8, fixed="5s")
    assert grow.hours_at(65_536) * 3600 == pytest.approx(5 + (2.8e12 + 65_536 * 1e8) / 1e12, rel=1e-12)
    assert grow.hours_at(131_072) > grow.hours_at(65_536)


def test_restart_growth_by_hand():
    r = RestartModel(detection="2min", reload="3min", per_doubling="20s", per_1k_ranks="1s")
    n = 16_384
    expected = (2 * 60 + 3 * 60 + 20 * math.log2(n) + 1 * n / 1000) / 3600
    assert r.hours_at(n) == pytest.approx(expected, rel=1e-12)
    bound = RestartModel(detection="2min", reload="3min", per_doubling="20s", per_1k_ranks="1s", n_gpus=n)
    assert bound.mean_h == pytest.approx(expected, rel=1e-12)
    assert bound.downtime_h == pytest.approx(expected - 3 / 60, rel=1e-12)
    assert "start-up that grows with the ranks" in set(bound.to_frame()["phase"])
    with pytest.raises(ModelInputError, match="needs the job's size"):
        r.growth_h()


def test_growth_terms_at_zero_give_todays_answers(llama3):
    d, r = "1min", "10min"
    D, R = FLAT_CKPT, FLAT_RESTART
    assert cost_hours(D) == relmodel.units.hours(d) and cost_hours(R) == relmodel.units.hours(r)
    assert optimal_interval("3h", D) == optimal_interval("3h", d)
    assert ettr("20min", "3h", D, R) == ettr("20min", "3h", d, r)
    assert expected_wall_time(100, "20min", "3h", D, R) == expected_wall_time(100, "20min", "3h", d, r)
    assert time_breakdown(100, "20min", "3h", D, R).to_frame().equals(
        time_breakdown(100, "20min", "3h", d, r).to_frame())
    assert best_ettr("3h", D, R) == best_ettr("3h", d, r)
    assert required_job_mtbf(0.9, D, R) == required_job_mtbf(0.9, d, r)
    # a restart that is all reload is all exposed to failures: today's answer; a detection-only restart is
    # downtime no failure can strike, so its requirement lies between a zero restart and the fully exposed one
    assert required_node_mtbf(16_384, 0.9, D, R, source=llama3) == \
        pytest.approx(required_node_mtbf(16_384, 0.9, d, r, source=llama3), rel=1e-12)
    exposed = required_node_mtbf(16_384, 0.9, d, r, source=llama3)
    assert required_node_mtbf(16_384, 0.9, d, 0.0, source=llama3) < \
        required_node_mtbf(16_384, 0.9, D, RestartModel(detection="10min", n_gpus=16_384), source=llama3) < exposed
    a = requirements_table([4_096, 16_384], 0.9, ckpt_costs=[D], restarts=[R], fixed_rate_per_h=0)
    b = requirements_table([4_096, 16_384], 0.9, ckpt_costs=[d], restarts=[r], fixed_rate_per_h=0)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)  # the exposed share is summed, not copied
    p1 = plan_requirements(llama3, 16_384, 0.9, D, R, n_boot=50, seed=0)
    p2 = plan_requirements(llama3, 16_384, 0.9, d, r, n_boot=50, seed=0)
    assert (p1.node_mtbf_h, p1.observed_ettr, p1.interval_h) == \
        pytest.approx((p2.node_mtbf_h, p2.observed_ettr, p2.interval_h), rel=1e-7)  # interval: solver tolerance
    g1 = sweep_grid({"n_gpus": [1_024, 16_384], "ckpt_cost": [D]}, restart=R)
    g2 = sweep_grid({"n_gpus": [1_024, 16_384], "ckpt_cost": [d]}, restart=r)
    assert g1.equals(g2)
    scaled = scale_rates(llama3, target_cluster=Cluster.llama3(), n_boot=50, seed=0)
    assert budget_what_if(scaled, {"Faulty GPU": 0.5}, D, R, n_boot=50, seed=0).to_frame().equals(
        budget_what_if(scaled, {"Faulty GPU": 0.5}, d, r, n_boot=50, seed=0).to_frame())
    assert transceiver_requirement(Cluster.llama3(), 0.9, ckpt_cost=D, restart=R) == pytest.approx(
        transceiver_requirement(Cluster.llama3(), 0.9, ckpt_cost=d, restart=r), rel=1e-12)  # all reload: all exposed
    kw = dict(n_gpus=1_152, n_runs=100, n_boot=20, seed=0)
    c1 = compare_designs(["nvl72-whole-rack", "h100-rail"], llama3, ckpt_cost=D, restart=R, **kw).by_design
    c2 = compare_designs(["nvl72-whole-rack", "h100-rail"], llama3, ckpt_cost=d, restart=r, **kw).by_design
    num = [c for c in c1.columns if c not in ("costs",)]
    pd.testing.assert_frame_equal(c1[num], c2[num], check_exact=False, rtol=1e-6)  # interval solver tolerance
    s1 = relmodel.simulate_training(50, "20min", "3h", D, R, n_runs=200, seed=1)
    s2 = relmodel.simulate_training(50, "20min", "3h", d, r, n_runs=200, seed=1)
    assert s1.ettr == s2.ettr


def test_costs_that_grow_change_the_answers_as_the_law_says(llama3):
    ckpt = CheckpointModel(state_bytes=2.8e12, write_bandwidth_per_node=2e9, storage_bandwidth_cap=1e12,
                           state_bytes_per_gpu=2e8, fixed="10s")
    restart = RestartModel(detection="5min", reload="3min", per_doubling="15s", per_1k_ranks="2s")
    for n in (4_096, 65_536):
        d, r = ckpt.hours_at(n), restart.hours_at(n)
        # only the reload (3 min) is exposed to failures: less conservative than exposing the whole restart
        # (0.4-1.6% at these sizes), more than a restart of the reload alone
        model = required_node_mtbf(n, 0.9, ckpt, restart, fixed_rate_per_h=0)
        whole = required_node_mtbf(n, 0.9, d, r, fixed_rate_per_h=0)
        assert required_node_mtbf(n, 0.9, d, relmodel.units.hours("3min"), fixed_rate_per_h=0) < model < whole
        assert 0.001 < 1 - model / whole < 0.03
    t = requirements_table([4_096, 65_536], 0.9, ckpt_costs=[ckpt], restarts=[restart], fixed_rate_per_h=0)
    assert t["ckpt_cost_h"].tolist() == [ckpt.hours_at(4_096), ckpt.hours_at(65_536)]
    assert t["restart_h"].is_monotonic_increasing and t["restart_h"].iloc[1] > t["restart_h"].iloc[0]
    g = sweep_grid({"n_gpus": [4_096, 65_536]}, ckpt_cost=ckpt, restart=restart)
    assert g["ckpt_cost_h"].tolist() == [ckpt.hours_at(4_096), ckpt.hours_at(65_536)]
    plan = plan_requirements(llama3, 65_536, 0.9, ckpt, restart, n_boot=50, seed=0)
    assert "checkpoint model" in plan.text() and "growing with the ranks" in plan.text()
    cmp = compare_designs(["nvl72-whole-rack"], llama3, ckpt_cost=ckpt, restart=restart, n_gpus=16_384, n_runs=100, n_boot=0, seed=0)
    row = cmp.by_design.iloc[0]
    assert row["ckpt_cost_h"] == ckpt.hours_at(16_416) and row["restart_h"] == restart.hours_at(16_416)
    assert "Costs used: checkpoint" in cmp.text() and "16,416 GPUs" in cmp.text()
    flat = compare_designs(["nvl72-whole-rack"], llama3, ckpt_cost="1min", restart="10min", n_gpus=16_384, n_runs=100, n_boot=0, seed=0)
    assert "(fixed)" in flat.text()


def test_fit_growth_recovers_the_law():
    n = np.array([512, 2_048, 8_192, 32_768, 131_072])
    y = 30 + 5 * np.log2(n) + 2 * n / 1000
    assert fit_growth(n, y) == pytest.approx((30, 5, 2), rel=1e-9)
    a, b, c = fit_growth(n, 30 + 5 * np.log2(n))
    assert (round(a, 9), round(b, 9), c) == (30, 5, 0)


def test_bad_cost_models():
    with pytest.raises(ModelInputError, match="needs the job's size"):
        ettr("20min", "3h", CheckpointModel(state_bytes=1e12, write_bandwidth_per_node=1e9), "10min")
    for kw in (dict(state_bytes=-1, write_bandwidth_per_node=1e9), dict(state_bytes=1, write_bandwidth_per_node=0),
               dict(state_bytes=1, write_bandwidth_per_node=1e9, storage_bandwidth_cap=-5),
               dict(state_bytes=1, write_bandwidth_per_node=1e9, fixed="-1min")):
        with pytest.raises(relmodel.errors.RelmodelError):
            CheckpointModel(**kw)
    with pytest.raises(ModelInputError):
        fit_growth([1, 2], [3, 4])
    assert design_presets(1_152)["nvl72-whole-rack"].tp_span == 72
