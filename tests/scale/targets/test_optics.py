"""Transceiver requirements, field rates, the CLI and the figures (relmodel.scale.targets.optics, relmodel.plots.designs)."""

import math

import numpy as np

import matplotlib.pyplot as plt
import pytest
from click.testing import CliRunner
from scipy.optimize import brentq
from scipy.special import lambertw

from relmodel.cli.main import cli
from relmodel.errors import DesignError
from relmodel.plots.designs import designs_plot, optics_plot
from relmodel.scale.clusters.cluster import Cluster
from relmodel.scale.targets.optics import field_rates, optics_requirements, transceiver_requirement


def _job_mtbf_for(target, d, r):
    """Job MTBF whose best ETTR is ``target``, from Daly's exact model (REFERENCE.md), independently."""
    def best(m):
        tau = m * (1 + lambertw(-math.exp(-(1 + d / m))).real)
        return tau / (m * math.exp(r / m) * (math.exp((tau + d) / m) - 1))
    return brentq(lambda lm: best(math.exp(lm)) - target, math.log(1e-3), math.log(1e7), xtol=1e-14)


def test_transceiver_fit_by_hand():
    c = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="rail")  # 256 transceivers, counted by hand
    m = math.exp(_job_mtbf_for(0.9, 1 / 60, 10 / 60))
    req = transceiver_requirement(c, 0.9, ckpt_cost="1min", restart="10min", share=0.1)
    assert req["transceivers"] == 256
    assert req["fit"] == pytest.approx(0.1 / (m * 256) * 1e9, rel=1e-8)
    assert req["mtbf_h"] == pytest.approx(m * 256 / 0.1, rel=1e-8)
    half = transceiver_requirement(c, 0.9, ckpt_cost="1min", restart="10min", share=0.1, tolerated=0.5)
    assert half["fit"] == pytest.approx(2 * req["fit"], rel=1e-12)
    assert transceiver_requirement(c, 0.9, ckpt_cost="1min", restart="10min", tolerated=1.0)["mtbf_h"] == 0


def test_growth_with_size_fabric_and_tiers():
    o = optics_requirements((1024, 8192, 65536), target_ettr=0.9, ckpt_cost="1min", restart="10min")
    t = o.rows.set_index(["fabric", "tiers", "n_gpus"])
    # 2 transceivers per optical link; rail optical from the NIC up (k links per NIC), fat tree copper to the leaf
    assert t.loc[("rail", 2, 1024), "per_gpu"] == 4 and t.loc[("rail", 3, 8192), "per_gpu"] == 6
    assert t.loc[("fat-tree", 2, 1024), "per_gpu"] == 2 and t.loc[("fat-tree", 3, 65536), "per_gpu"] == 4
    assert t.loc[("rail", 3, 1024), "fit"] / t.loc[("rail", 3, 8192), "fit"] == pytest.approx(8, rel=1e-12)
    assert t.loc[("rail", 2, 1024), "fit"] / t.loc[("rail", 3, 1024), "fit"] == pytest.approx(1.5, rel=1e-12)
    big = optics_requirements((1_000_000,), tiers=(2,), fabrics=("rail",)).rows.iloc[0]
    assert not big["fits"]  # 2 tiers of radix 512 reach 2 x 256^2 = 131,072 NICs
    shown = optics_requirements().table().to_html(index=False).lower()
    assert "nan" not in shown and "e+" not in shown


def test_field_rates_from_the_cited_figures():
    f = field_rates().set_index("per")
    # Llama 3 Table 5: 35 network interruptions in 54 days; Cluster.llama3 has 2 x (16,384 + ceil(16,384/7)) optics
    tx = 2 * (16_384 + math.ceil(16_384 / 7))
    assert f.loc["transceiver", "fit"] == pytest.approx(35 / (54 * 24) / tx * 1e9, rel=1e-12)
    # Singh et al. 2021: about 2% of switches fail within 3 months of production
    assert f.loc["switch", "fit"] == pytest.approx(-math.log(0.98) / (8766 / 4) * 1e9, rel=1e-12)


@pytest.mark.parametrize("kw", [dict(share=0.0), dict(share=1.5), dict(sizes=()), dict(fabrics=("torus",))])
def test_bad_optics_inputs(kw):
    with pytest.raises(DesignError):
        optics_requirements(**kw)


def test_cli_prints_transceiver_requirements():
    res = CliRunner().invoke(cli, ["requirements", "--component", "transceiver", "--gpus", "16384"])
    assert res.exit_code == 0, res.output
    assert "1,000,000" in res.output and "16,384" in res.output and "Singh" in res.output
    csv = CliRunner().invoke(cli, ["requirements", "--component", "transceiver", "--format", "csv"])
    assert csv.exit_code == 0 and csv.output.startswith("fabric,tiers,n_gpus")
    bad = CliRunner().invoke(cli, ["requirements", "--component", "transceiver", "--gpus", "0"])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    share = CliRunner().invoke(cli, ["requirements", "--component", "transceiver", "--share", "2"])
    assert share.exit_code == 2


def test_figures(llama3):
    from relmodel.scale.design.designs import compare_designs
    ax = optics_plot(sizes=[1000, 10_000, 100_000])
    assert len(ax.get_lines()) == 4 + 2  # four fabrics, two field rates
    cmp = compare_designs(["h100-rail", "nvl72-whole-rack"], llama3, ckpt_cost="1min", restart="10min", n_gpus=2048, n_runs=50,
                          n_boot=0, seed=0)
    ax2 = designs_plot(cmp)
    assert [t.get_text() for t in ax2.get_yticklabels()] == list(cmp.by_design["design"])
    plt.close("all")



def _job_mtbf_exposed(target, d, reload_h, down):
    """Job MTBF whose best ETTR is ``target`` when only the reload is exposed, by a grid over the interval.

    One cycle per failure: a downtime ``down`` no failure can strike, then the reload, then segments of
    tau + d; with exponential failures ETTR(tau) = tau exp(-R_l/M) / ((D + M)(exp((tau + d)/M) - 1)).
    """
    def best(m):
        tau = np.geomspace(1e-4, 50, 200_001) * math.sqrt(2 * d * m)
        return np.max(tau * math.exp(-reload_h / m) / ((down + m) * np.expm1((tau + d) / m)))
    return math.exp(brentq(lambda lm: best(math.exp(lm)) - target, math.log(1e-2), math.log(1e5), xtol=1e-12))


def test_restart_model_exposes_only_its_reload():
    """A RestartModel's downtime (detection, start-up growing with the ranks) cannot be struck by a failure."""
    from relmodel.checkpoint.restart import RestartModel
    from relmodel.data.bundled.datasets import llama3_54day
    from relmodel.scale.design.designs import compare_designs, design_presets
    c = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="rail")  # 256 transceivers
    model = RestartModel(detection="30min", reload="6min", per_1k_ranks="30s")
    d, reload_h = 1 / 60, 6 / 60
    down = 30 / 60 + 30 / 3600 * 64 / 1000
    m = _job_mtbf_exposed(0.9, d, reload_h, down)
    req = transceiver_requirement(c, 0.9, ckpt_cost="1min", restart=model, share=0.1)
    assert req["job_mtbf_h"] == pytest.approx(m, rel=1e-6)
    assert req["fit"] == pytest.approx(0.1 / (m * 256) * 1e9, rel=1e-6)
    # counting the whole restart as exposed asks for a longer job MTBF: not what is computed
    assert math.exp(_job_mtbf_for(0.9, d, reload_h + down)) > 1.005 * req["job_mtbf_h"]
    # compare_designs' transceiver column uses the same exposure, at the design's size
    cmp = compare_designs(["h100-rail"], llama3_54day(), 1_152, 0.9, ckpt_cost="1min", restart=model, n_runs=0,
                          n_boot=0, seed=0)
    row, tolerated = cmp.by_design.iloc[0], cmp.results[0].link_tolerated
    m_design = _job_mtbf_exposed(0.9, d, reload_h, 30 / 60 + 30 / 3600 * 1_152 / 1000)
    expected = m_design * row["transceivers"] * (1 - tolerated) / 0.1
    assert row["required_transceiver_mtbf_h"] == pytest.approx(expected, rel=1e-6)
