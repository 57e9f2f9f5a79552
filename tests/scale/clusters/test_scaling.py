"""Scaling observed rates to other clusters (Llama 3, arXiv 2407.21783, Table 5)."""

import numpy as np
import pandas as pd
import pytest

from relmodel.scale.clusters.cluster import Cluster
from relmodel.errors import ModelInputError
from relmodel.scale.clusters.scaling import garwood, job_rates, scale_job_mtbf, scale_rates, scales_with

# Llama 3 paper, section 3.3.4, Table 5: 419 unexpected interruptions in 54 days on 16,384 GPUs.
TABLE5 = [
    ("Faulty GPU", "GPU", 148), ("GPU HBM3 Memory", "GPU", 72), ("Software Bug", "Dependency", 54),
    ("Network Switch/Cable", "Network", 35), ("Host Maintenance", "Unplanned Maintenance", 32),
    ("GPU SRAM Memory", "GPU", 19), ("GPU System Processor", "GPU", 17), ("NIC", "Host", 7),
    ("NCCL Watchdog Timeouts", "Unknown", 7), ("Silent Data Corruption", "GPU", 6),
    ("GPU Thermal Interface + Sensor", "GPU", 6), ("SSD", "Host", 3), ("Power Supply", "Host", 3),
    ("Server Chassis", "Host", 2), ("IO Expansion Board", "Host", 2), ("Dependency", "Dependency", 2),
    ("CPU", "Host", 2), ("System Memory", "Host", 2),
]
DURATION_H = 54 * 24


def llama3_frame():
    df = pd.DataFrame(TABLE5, columns=["component", "category", "count"])
    df["exposure_h"] = float(DURATION_H)
    return df


def test_llama3_job_mtbf_at_source_is_about_3_1_h():
    m = scale_job_mtbf(llama3_frame(), 16_384, source_cluster=Cluster.llama3())
    assert m == pytest.approx(DURATION_H / 419, rel=1e-12)
    assert 3.0 < m < 3.2


def test_mapping_of_table5_categories():
    units = {c: scales_with(c, k) for c, k, _ in TABLE5}
    assert units["Faulty GPU"] == "gpu" and units["GPU HBM3 Memory"] == "gpu"
    assert units["NIC"] == "node" and units["Host Maintenance"] == "node"
    assert units["Network Switch/Cable"] == "link"
    assert units["Software Bug"] == units["NCCL Watchdog Timeouts"] == units["Dependency"] == "job"
    assert scales_with("NIC", "Host", units={"Host": "gpu"}) == "gpu"
    with pytest.raises(ModelInputError):
        scales_with("NIC", "Host", units={"NIC": "widget"})


def test_scaling_factors_follow_counts():
    src = Cluster.llama3()
    out = scale_rates(llama3_frame(), src, 10 * 16_384, seed=0)
    t = out.by_cause.set_index("component")
    assert t.loc["Faulty GPU", "factor"] == pytest.approx(10.0)
    assert t.loc["NIC", "factor"] == pytest.approx(10.0)
    assert t.loc["Software Bug", "factor"] == 1.0
    links = out.target.counts()["link"] / src.counts()["link"]
    assert t.loc["Network Switch/Cable", "factor"] == pytest.approx(links)
    # the per-job rate stays put, so the job rate grows less than tenfold
    assert out.job_rate_per_h < 10 * 419 / DURATION_H
    assert out.job_rate_per_h == pytest.approx(t["rate_per_h"].sum())
    hw = 419 - 63
    assert out.rate_of("job") == pytest.approx(63 / DURATION_H)
    assert out.rate_of("gpu") + out.rate_of("node") > 10 * (hw - 35) / DURATION_H * 0.999


def test_intervals_bracket_and_scale():
    out = scale_rates(llama3_frame(), Cluster.llama3(), 100_000, seed=1)
    assert out.job_rate_lo < out.job_rate_per_h < out.job_rate_hi
    assert out.job_mtbf_lo < out.job_mtbf_h < out.job_mtbf_hi
    t = out.by_cause
    assert np.all(t["rate_lo"] <= t["rate_per_h"]) and np.all(t["rate_per_h"] <= t["rate_hi"])
    lo, hi = garwood(148, DURATION_H)
    row = t[t.component == "Faulty GPU"].iloc[0]
    assert row["rate_lo"] == pytest.approx(lo * row["factor"]) and row["rate_hi"] == pytest.approx(hi * row["factor"])


def test_garwood_matches_scipy_poisson_interval():
    from scipy import stats
    lo, hi = garwood(7, 1.0, 0.9)
    assert stats.poisson.sf(6, lo) == pytest.approx(0.05, rel=1e-6)
    assert stats.poisson.cdf(7, hi) == pytest.approx(0.05, rel=1e-6)


def test_bootstrap_total_interval_matches_exact_when_unscaled():
    out = scale_rates(llama3_frame(), Cluster.llama3(), Cluster.llama3(), n_boot=20_000, seed=3)
    lo, hi = garwood(419, DURATION_H)
    assert out.job_rate_lo == pytest.approx(lo, rel=0.03)
    assert out.job_rate_hi == pytest.approx(hi, rel=0.03)


def test_bad_rates_table():
    with pytest.raises(ModelInputError):
        job_rates(pd.DataFrame({"component": ["a"], "count": [1]}))
    df = llama3_frame()
    df.loc[0, "count"] = -1
    from relmodel.errors import CountError
    with pytest.raises(CountError):
        job_rates(df)
    with pytest.raises(ModelInputError):
        scale_job_mtbf(llama3_frame(), 1000)  # no cluster known for a bare table


def test_bundled_llama3_counts_give_3_1_h_at_16384():
    from relmodel import datasets
    table = datasets.llama3_54day()
    m = scale_job_mtbf(table, 16_384)
    assert m == pytest.approx(54 * 24 / 419, rel=1e-12) and round(m, 1) == 3.1
    assert scale_job_mtbf(table, 100_000) < m / 4
    bare = scale_job_mtbf(llama3_frame(), 100_000, source_cluster=Cluster.llama3())
    assert scale_job_mtbf(table, 100_000) == pytest.approx(bare)


def test_stepfun_log_scales_per_node():
    from relmodel import datasets
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = datasets.stepfun()
    out = scale_rates(log, None, 32_000, n_boot=200, seed=0)
    assert out.source.n_gpus == 3200 and out.target.n_nodes == 4000
    t = out.by_cause.set_index("component")
    assert t.loc["GPU", "scales_with"] == "gpu" and t.loc["NIC", "scales_with"] == "node"
    assert t.loc["Parameter Plane Cable", "scales_with"] == "link"
    assert t.loc["GPU", "factor"] == pytest.approx(10.0)


def test_unknown_override_and_node_logs():
    with pytest.raises(ModelInputError, match="no cause or category"):
        scale_rates(llama3_frame(), Cluster.llama3(), 1000, units={"Flux": "gpu"}, seed=0)
    # in a node log, software and unknown causes are node faults, not the job's
    assert scales_with("Kernel Panic", "Software") == "node"
    assert scales_with("Unknown Error", "Unknown") == "node"
    assert scales_with("NCCL Watchdog Timeouts", "Unknown") == "job"
