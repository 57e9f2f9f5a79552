"""Required job, node, GPU and component reliability for a target ETTR."""

import numpy as np
import pytest

from relmodel import datasets
from relmodel.checkpoint import ettr, optimal_interval
from relmodel.scale.clusters.cluster import Cluster
from relmodel.errors import InfeasibleTargetError, ModelInputError
from relmodel.scale.targets.requirements import (best_ettr, job_mtbf, plan_requirements, required_gpu_mtbf,
                                   required_job_mtbf, required_node_mtbf, requirements_table)

LLAMA_H = 54 * 24  # Llama 3 Table 5 window (arXiv 2407.21783, 3.3.4)


@pytest.mark.parametrize("target,ckpt,restart", [(0.9, "1min", "10min"), (0.5, "30min", "1h"),
                                                 (0.99, "10s", "2min"), (0.97, "5min", 0)])
def test_round_trip_ettr_equals_target(target, ckpt, restart):
    m = required_job_mtbf(target, ckpt, restart)
    tau = optimal_interval(m, ckpt)
    assert ettr(tau, m, ckpt, restart) == pytest.approx(target, abs=1e-6)
    node = required_node_mtbf(100_000, target, ckpt, restart, fixed_rate_per_h=0)
    assert best_ettr(job_mtbf(node, 12_500), ckpt, restart) == pytest.approx(target, abs=1e-6)


def test_optimum_is_a_maximum_so_requirement_is_tight():
    m = required_job_mtbf(0.9, "1min", "10min")
    tau = optimal_interval(m, "1min")
    for f in (0.8, 1.25):
        assert ettr(tau * f, m, "1min", "10min") < 0.9


def test_required_mtbf_grows_with_n_and_falls_with_cheaper_checkpoints():
    n = [1_000, 10_000, 100_000, 1_000_000]
    t = requirements_table(n, 0.9, ckpt_costs=["30s", "1min", "5min"], restarts=["10min"], fixed_rate_per_h=0)
    for _, g in t.groupby("ckpt_cost_h"):
        assert np.all(np.diff(g.sort_values("n_gpus")["node_mtbf_h"]) > 0)
    at = t[t.n_gpus == 100_000].sort_values("ckpt_cost_h")["node_mtbf_h"].to_numpy()
    assert np.all(np.diff(at) > 0)
    r = requirements_table([10_000], 0.9, ckpt_costs=["1min"], restarts=["1min", "10min", "30min"],
                           fixed_rate_per_h=0)
    assert np.all(np.diff(r.sort_values("restart_h")["node_mtbf_h"]) > 0)


def test_node_and_job_mtbf_are_inverse():
    node = required_node_mtbf(16_384, 0.95, "1min", "10min", fixed_rate_per_h=0)
    m = required_job_mtbf(0.95, "1min", "10min")
    assert job_mtbf(node, 2048) == pytest.approx(m, rel=1e-12)
    assert required_gpu_mtbf(16_384, 0.95, "1min", "10min", fixed_rate_per_h=0) == pytest.approx(8 * node, rel=1e-12)
    assert job_mtbf(1000.0, 10, fixed_rate_per_h=0.01) == pytest.approx(1 / 0.02)


def test_young_limit_for_tiny_checkpoints():
    # waste ~ sqrt(2 d / M) for d << M and R = 0 (Young 1974), so M ~ 2 d / (1 - E)^2
    d = 1e-4
    m = required_job_mtbf(0.99, d, 0.0)
    assert m == pytest.approx(2 * d / 0.01 ** 2, rel=0.02)


def test_unreachable_target_says_so():
    fixed = 63 / LLAMA_H  # Llama 3 software bug + dependency + NCCL watchdog, per job
    with pytest.raises(InfeasibleTargetError, match="out of reach.*1,000,000 GPUs.*per-job causes"):
        required_node_mtbf(1_000_000, 0.999, "1min", "10min", fixed_rate_per_h=fixed)
    r = plan_requirements(datasets.llama3_54day(), 1_000_000, 0.999, "1min", "10min", n_boot=200, seed=0)
    assert not r.feasible and "out of reach" in r.message and "IMPOSSIBLE" in r.text()
    assert r.p_feasible == 0.0
    with pytest.raises(InfeasibleTargetError):
        required_job_mtbf(1.0, "1min", "10min")


def test_bad_inputs():
    for bad in (0.0, 1.5, -0.1, float("nan")):
        with pytest.raises(ModelInputError):
            required_job_mtbf(bad, "1min", "10min")
    with pytest.raises(ModelInputError):
        required_job_mtbf(0.9, 0, "10min")
    with pytest.raises(ModelInputError):
        required_node_mtbf(0, 0.9, "1min", fixed_rate_per_h=0)
    with pytest.raises(ModelInputError):
        job_mtbf(-1.0, 10)
    with pytest.raises(ModelInputError):
        plan_requirements(datasets.llama3_54day(), 1000, 0.9, "1min", share=1.5, seed=0)


def test_plan_from_llama3_counts():
    r = plan_requirements(datasets.llama3_54day(), 100_000, 0.9, "1min", "10min", n_boot=2000, seed=4)
    assert r.feasible and r.n_nodes == 12_500
    fixed = 63 / LLAMA_H
    expect = required_node_mtbf(100_000, 0.9, "1min", "10min", fixed_rate_per_h=fixed)
    assert r.node_mtbf_h == pytest.approx(expect, rel=1e-9)
    assert r.node_mtbf_lo < r.node_mtbf_h < r.node_mtbf_hi
    assert r.gpu_mtbf_h == pytest.approx(8 * r.node_mtbf_h)
    assert r.observed_ettr_lo < r.observed_ettr < r.observed_ettr_hi < 0.9
    assert r.figures().shape[0] == 6 and "required node MTBF" in r.text()


def test_component_fit_holding_others():
    src = Cluster.llama3()
    r = plan_requirements(datasets.llama3_54day(), 16_384, 0.5, "1min", "10min", n_boot=500, seed=0)
    c = r.components.set_index("component")
    lam_req = 1 / required_job_mtbf(0.5, "1min", "10min")
    others = (419 - 148) / LLAMA_H
    assert c.loc["Faulty GPU", "required_fit"] == pytest.approx((lam_req - others) / 16_384 * 1e9)
    assert c.loc["Faulty GPU", "feasible"] == (lam_req > others)
    # the share rule: optics under 10% of interruptions, others held
    net = c.loc["Network Switch/Cable"]
    assert net["share_fit"] == pytest.approx(0.1 / 0.9 * (419 - 35) / LLAMA_H / src.counts()["link"] * 1e9)
    assert net["share_fit_lo"] < net["share_fit"] < net["share_fit_hi"]
    assert c.loc["all gpu causes", "observed_fit"] == pytest.approx(268 / LLAMA_H / 16_384 * 1e9)


def test_required_mtbf_plot_lines_and_axes():
    import matplotlib.pyplot as plt
    from relmodel.plots.scaling import interruptions_plot, required_mtbf_plot
    fig, ax = plt.subplots()
    out = required_mtbf_plot(n_gpus=[1_000, 10_000, 1_000_000], ckpt_costs=["1min", "5min"],
                             restarts=["10min"], fixed_rate_per_h=0, ax=ax)
    assert out is ax and ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = ax.get_lines()
    assert len(lines) == 2
    y = lines[0].get_ydata()
    assert y[-1] == pytest.approx(required_node_mtbf(1_000_000, 0.9, "1min", "10min", fixed_rate_per_h=0))
    ax2 = interruptions_plot(datasets.llama3_54day(), [16_384, 100_000])
    assert ax2.get_ylabel() == "expected interruptions per day"
    with pytest.raises(ModelInputError):
        required_mtbf_plot(per="rack", fixed_rate_per_h=0)
    plt.close("all")


def test_bootstrap_node_interval_agrees_with_exact_garwood_propagation():
    # only the per-job count (63 of 419, Llama 3 Table 5) is uncertain in the node requirement,
    # and the node MTBF is monotone in it, so its exact interval maps through directly
    from relmodel.scale.clusters.scaling import garwood
    r = plan_requirements(datasets.llama3_54day(), 100_000, 0.9, "1min", "10min", n_boot=20_000, seed=7)
    lo, hi = garwood(63, LLAMA_H)
    lam = 1 / required_job_mtbf(0.9, "1min", "10min")
    # the bootstrap quantiles fall on whole counts, Garwood's between them: agreement to ~2%
    assert r.node_mtbf_lo == pytest.approx(12_500 / (lam - lo), rel=0.02)
    assert r.node_mtbf_hi == pytest.approx(12_500 / (lam - hi), rel=0.02)


def test_no_per_job_causes_gives_exact_requirement():
    import pandas as pd
    rates = pd.DataFrame({"component": ["GPU", "PSU"], "category": ["GPU", "Host"], "count": [10, 5],
                          "exposure_h": [1000.0, 1000.0]})
    r = plan_requirements(rates, 8_000, 0.9, "1min", "10min", source_cluster=Cluster(n_gpus=800), n_boot=200, seed=0)
    assert r.node_mtbf_lo == r.node_mtbf_h == r.node_mtbf_hi
    assert r.node_mtbf_h == pytest.approx(required_node_mtbf(8_000, 0.9, "1min", "10min", fixed_rate_per_h=0))
    assert "exact" in r.text()


def test_ceiling_on_node_mtbf():
    node = required_node_mtbf(1_000_000, 0.999, "1min", "10min", fixed_rate_per_h=0)
    m = required_job_mtbf(0.999, "1min", "10min")
    assert node == pytest.approx(125_000 * m) and m > 10 / 60 / 0.001  # restart alone needs M > R / (1 - E)
    with pytest.raises(InfeasibleTargetError, match="above the .* ceiling"):
        required_node_mtbf(1_000_000, 0.999, "1min", "10min", max_node_mtbf_h="100y", fixed_rate_per_h=0)
    assert required_node_mtbf(1_000, 0.9, "1min", "10min", max_node_mtbf_h=1e7, fixed_rate_per_h=0) < 1e7


def test_a_restart_that_grows_with_the_size_is_one_line_each_point_at_its_own_restart():
    """The report's plot takes the decision's restart at every size (a smaller job does not pay a larger one's
    NCCL start-up): one line whose points follow Daly's exact model, written here, at that size's restart."""
    import matplotlib.pyplot as plt
    from scipy.optimize import brentq
    from scipy.special import lambertw

    from relmodel.plots.scaling import required_mtbf_plot
    from relmodel.scale.targets.restart_growth import PlannedRestart

    measured_at, base_h, per_gpu_h = 512, 10 / 60, 265.0 / 98_304 / 3600   # 265 s at 96K GPUs (Si et al.)
    planned = 1_048_576
    grown = per_gpu_h * (planned - measured_at)

    def best_ettr(m, d, r):               # Daly's exact optimum and ETTR, exponential failures
        tau = m * (1 + lambertw(-np.exp(-(1 + d / m)), 0).real)
        return tau / (m * np.exp(r / m) * (np.exp((tau + d) / m) - 1))

    sizes = [1_024, 16_384, 262_144]
    fig, ax = plt.subplots()
    required_mtbf_plot(n_gpus=sizes, ckpt_costs=["1min"], restarts=[PlannedRestart(base_h + grown, grown, planned)],
                       fixed_rate_per_h=0, ax=ax)
    lines = ax.get_lines()
    assert len(lines) == 1
    restart_at = [base_h + per_gpu_h * (n - measured_at) for n in sizes]
    want = [n / 8 * brentq(lambda m: best_ettr(m, 1 / 60, r) - 0.9, 0.01, 1e6) for n, r in zip(sizes, restart_at)]
    assert lines[0].get_ydata() == pytest.approx(want, rel=1e-6)
    label = lines[0].get_label()
    assert label == f"checkpoint 1 min, restart {60 * restart_at[0]:.3g} min to {60 * restart_at[-1]:.3g} min"
    plt.close(fig)
