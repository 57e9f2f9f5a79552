"""One spare pool per plan: the requirements page (04) sizes it, the designs page (06) holds it in its spare-pool
designs and prices the same repairs; summary.json records both, and a Slurm run joined to its kernel log takes its
repairs from the kernel (fault to reboot), which the generator fixes at one hour."""

import json
import re

import pytest

from conftest import run_cli
from test_one_decision import _text, slurm_syslog


def _render(folder, *params):
    args = ["report", "--out", str(folder), "-q", "-n", "04", "-n", "06", "-p", "n_runs=200"]
    for p in params:
        args += ["-p", p]
    res = run_cli(*args)
    assert res.exit_code == 0, res.output
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["status"] == "complete", summary["failed"]
    return summary, _text(folder / "04_requirements_at_scale.html"), _text(folder / "06_designs.html")


def _records(summary):
    out = {}
    for nb in summary["records"].values():
        out.update(nb)
    return out


def _h100_idle(page6):
    """GPUs idle as spares of the H100 rail design, read from the designs table's row."""
    m = re.search(r"H100, rail fabric spare-pool ([\d,]+) ([\d,]+) ", page6)
    assert m, page6[:2000]
    return int(m.group(2).replace(",", ""))


@pytest.fixture(scope="module")
def bundled(suite_report):
    """Pages 04 and 06 of the session's shared report of the bundled data (tests/conftest.py)."""
    folder = suite_report.path
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["status"] == "complete", summary["failed"]
    return summary, _text(folder / "04_requirements_at_scale.html"), _text(folder / "06_designs.html")


def test_the_designs_hold_the_requirements_pages_spare_nodes(bundled):
    summary, page4, page6 = bundled
    rec = _records(summary)
    n = int(re.search(r"Keep ([\d,]+) spare nodes", page4).group(1).replace(",", ""))
    assert rec["n_spares"] == n and rec["design_spare_nodes"] == n
    assert _h100_idle(page6) == 8 * n  # 8-GPU nodes held idle
    assert f"Spare pool of {n:,} nodes" in page6 or f"{n:,} spare nodes" in page6
    # one repair time: the designs' is the mean of the StepFun repairs page 04 borrows (a count table has none)
    assert "repairs are taken from the StepFun trace" in page4
    assert ("the requirements page sizes its spare nodes with (borrowed from the StepFun trace, an assumption)"
            in page6)


def test_no_range_on_the_designs_page_reads_x_to_x(bundled):
    _, _, page6 = bundled
    for a, b in re.findall(r"\((under 0\.1%|[\d.]+%) to (under 0\.1%|[\d.]+%)\)", page6):
        assert a != b, (a, b)
    for a, b in re.findall(r"\(([\d.]+)–([\d.]+)%\)", page6):
        assert a != b, (a, b)


def test_a_slurm_run_with_its_kernel_log_takes_repairs_from_the_kernel(tmp_path):
    sacct, syslog, _ = slurm_syslog(tmp_path)  # each fault's node reboots 3,600 s after its Xid
    summary, page4, page6 = _render(tmp_path / "r", f"log={sacct}", "format=sacct", "job=train", f"syslog={syslog}",
                                    "year=2024", "n_gpus=256")
    assert re.search(r"Repairs are the kernel log's \d+ outages from a fault to the node's reboot \(mean 60 min", page4)
    assert "(measured: the kernel log's outages, fault to reboot)" in page6
    rec = _records(summary)
    assert rec["n_spares"] == rec["design_spare_nodes"]


def test_a_slurm_export_alone_does_not_take_requeue_gaps_for_repairs(tmp_path):
    from conftest import REPO
    summary, page4, _ = _render(tmp_path / "r", f"log={REPO / 'data' / 'ops-example' / 'sacct.txt'}",
                                "format=sacct", "n_gpus=256")
    assert "gaps are the job's requeues, not the nodes' repairs" in page4
