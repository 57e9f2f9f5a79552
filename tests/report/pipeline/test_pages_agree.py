"""Pages 05 and 06 cost with the restart pages 03-04 use (measured, else 10 min), and the index lists an
unplanned outage that began inside planned maintenance (kept as an interruption, never merged away)."""

import json
import re

import numpy as np
import pytest

from conftest import REPO, run_cli
from relmodel.data.source import load_source
from relmodel.report.notebook_pages.page_setup import page_restart, page_restart_base
from relmodel.scale.targets.decision import decide
from test_one_decision import _text, slurm_syslog

SACCT = REPO / "data" / "ops-example" / "sacct.txt"


def _gaps_h(path):
    """Requeue gaps read by hand from the export: each run's start minus the previous NODE_FAIL's end."""
    rows = [line.split("|") for line in path.read_text().splitlines()[1:] if "." not in line.split("|")[0]]
    out = []
    for prev, row in zip(rows, rows[1:]):
        if prev[2] in ("NODE_FAIL",):
            out.append((np.datetime64(row[4]) - np.datetime64(prev[5])) / np.timedelta64(1, "s") / 3600)
    return np.asarray(out)


def test_the_restart_of_every_page_is_the_decisions(tmp_path):
    sacct, syslog, latency = slurm_syslog(tmp_path, seed=31)
    joined = load_source(str(sacct), format="sacct", job="train", syslog=str(syslog), year=2024)
    plain = load_source(str(SACCT), format="sacct")
    for src in (joined, plain, load_source("llama3")):
        n = 256 if src.is_log else 16384
        d = decide(src, n, 0.9, "1min", None, simulate=False, n_boot=0, seed=0)
        assert page_restart(src, None, n) == pytest.approx(d.restart_h, rel=1e-12)
        flat = decide(src, n, 0.9, "1min", None, simulate=False, n_boot=0, seed=0, restart_grows=False)
        assert page_restart(src, None, n, grows=False) == pytest.approx(flat.restart_h, rel=1e-12)
        if src is not plain:  # a planned job no smaller than the observed cluster (ops-example has more GPUs)
            # the designs page grows the restart with no growth in it to each design's size: at n, the decision's
            assert page_restart_base(src, None) + 265 / 3600 * n / 98304 == pytest.approx(d.restart_h, rel=1e-12)
    # a count table has no restarts: 10 min, plus NCCL's 265 s at 98,304 GPUs in proportion at 16,384 (by hand)
    assert page_restart(load_source("llama3"), None) == pytest.approx(10 / 60)
    assert page_restart(load_source("llama3"), None, 16384) == pytest.approx(10 / 60 + 265 / 3600 * 16384 / 98304)
    # measured on the 128 GPUs of the run: the planned 256 pay only the start-up of the 128 more
    jd = decide(joined, 256, 0.9, "1min", None, simulate=False, n_boot=0, seed=0)
    jf = decide(joined, 256, 0.9, "1min", None, simulate=False, n_boot=0, seed=0, restart_grows=False)
    assert jd.restart_h - jf.restart_h == pytest.approx(265 / 3600 * 128 / 98304)
    assert page_restart(plain, "3min") == pytest.approx(3 / 60)  # a parameter wins
    gaps = _gaps_h(sacct)
    assert gaps.min() >= 20 / 60 - 1e-9
    assert page_restart(joined, None) >= gaps.min()  # measured, not the 10-min default


@pytest.mark.parametrize("nb", ["05_interactive", "06_designs"])
def test_pages_05_and_06_take_the_measured_restart(nb):
    cells = json.loads((REPO / "notebooks" / f"{nb}.ipynb").read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert re.search(r"^restart: str = None\b", code[0], flags=re.M)
    assert any(re.search(r"^restart = page_restart(_base)?\(src, restart", c, flags=re.M) for c in code)


def test_the_index_lists_an_outage_inside_maintenance(tmp_path):
    log = tmp_path / "maint.csv"
    log.write_text("start,end,node,planned\n"
                   "2024-01-01 00:00,2024-01-01 10:00,a,true\n"   # planned maintenance on a
                   "2024-01-01 02:00,2024-01-01 03:00,a,false\n"  # row 2: a fault during it
                   + "".join(f"2024-01-{d:02d} 00:00,2024-01-{d:02d} 01:00,{n},false\n"
                             for d, n in zip(range(3, 28), "bcdefghijklmnopqrstuvwxyz")))
    src = load_source(str(log), start="start", end="end", node="node", planned="planned")
    assert src.inside_maintenance == [(2, "a")]
    assert src.n_events == 26  # 25 on other nodes + the one inside maintenance (the maintenance is not one)
    folder = tmp_path / "r"
    res = run_cli("report", "-q", "-j", "1", "-n", "01", "--out", folder, "-p", f"log={log}", "-p", "start=start",
                  "-p", "end=end", "-p", "node=node", "-p", "planned=planned")
    assert res.exit_code == 0, res.output
    assert "1 unplanned outage began inside planned maintenance and is counted as an interruption: row 2 (node a)" \
        in _text(folder / "index.html")
    assert "merged or dropped" not in _text(folder / "index.html")
