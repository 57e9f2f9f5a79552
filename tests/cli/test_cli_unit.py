"""--unit on rates, interval and requirements: a log of disks is counted in disks, with no per-GPU figures."""

import json

import pytest
from scipy import stats

from conftest import run_cli

ROWS = [("2024-01-01 00:00", "2024-01-01 05:00", "d1", "media"), ("2024-01-11 00:00", "2024-01-11 02:00", "d2", "media"),
        ("2024-01-21 00:00", "2024-01-21 01:00", "d3", "controller"), ("2024-01-31 00:00", "2024-01-31 04:00", "d1", "media")]


@pytest.fixture
def disks(tmp_path):
    path = tmp_path / "disks.csv"
    path.write_text("failed,replaced,disk,reason\n" + "".join(",".join(r) + "\n" for r in ROWS))
    return path


def _log(disks):
    return [disks, "--start", "failed", "--end", "replaced", "--node", "disk", "--cause", "reason", "--unit", "disk"]


def test_rates_per_disk(disks):
    res = run_cli("rates", *_log(disks), "--per", "node")
    assert res.exit_code == 0, res.output
    assert "rates per disk (3 disks)" in res.output and "FIT_per_disk" in res.output
    assert "the observed disks are taken as the 3 seen in the log" in res.output
    assert "GPU" not in res.output
    out = json.loads(run_cli("rates", *_log(disks), "--per", "node", "--format", "json").output.split("\n", 1)[1])
    total = next(r for r in out if r["component"] == "Total")
    # window: first start to last end, 30 days + 4 h; 3 disks; 4 failures -> MTBF per disk by hand
    exposure = 3 * (30 * 24 + 4)
    assert total["mtbf_h"] == pytest.approx(exposure / 4, rel=1e-9)
    assert total["mtbf_lo"] == pytest.approx(exposure / (stats.chi2.ppf(0.975, 10) / 2), rel=1e-6)  # Garwood


def test_no_gpu_figures_for_disks(disks):
    res = run_cli("rates", *_log(disks), "--per", "gpu")
    assert res.exit_code == 2 and "a log of disks covers no GPUs; use --per node" in res.output
    res = run_cli("requirements", "--log", *_log(disks), "--n-boot", "100")  # no GPU-job answer unless mapped
    assert res.exit_code == 2 and "gives no answer for a GPU job" in res.output and "--units-per-node" in res.output
    res = run_cli("requirements", "--log", *_log(disks), "--n-boot", "100", "--units-per-node", "1")
    assert res.exit_code == 0, res.output
    assert "required node MTBF" in res.output and "GPU MTBF" not in res.output
    res = run_cli("requirements", "--log", *_log(disks), "--n-boot", "100", "--format", "json", "--units-per-node", "1")
    quantities = [r["quantity"] for r in json.loads(res.output[res.output.index("{"):])["summary"]]
    assert "required node MTBF" in quantities and "required GPU MTBF" not in quantities
    for cmd in (["interval", "--log", *_log(disks), "--gpus", "16384", "--source-gpus", "800"],
                ["requirements", "--log", *_log(disks), "--source-gpus", "800"]):
        res = run_cli(*cmd)
        assert res.exit_code == 2 and "leave out --source-gpus" in res.output
    res = run_cli("rates", "llama3", "--unit", "disk")
    assert res.exit_code == 2 and "has its own units" in res.output
