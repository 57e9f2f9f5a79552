"""Page 09 (bad nodes) on logs written here: planted lemons, a homogeneous fleet, a count table.

The logs come from a generator in this file with known truth; the page's
figures are held equal to the API's and the CLI's on the same log, and its
verdict to the generator's truth.
"""

import json
import re
import sys
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.data.source import load_source

from conftest import report_cli, run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pipeline"))
from test_one_decision import slurm_syslog  # noqa: E402

BAD = (3, 7, 11, 19, 23, 42)


def write_fleet(path, n=300, days=365, mtbf=4000.0, bad=BAD, mult=30.0, unfixed=0.95, seed=5):
    """Nodes failing as Poisson processes in service time, repairs of 6 h on average; the ``bad`` nodes fail
    ``mult`` times as often until a repair fixes them (each repair leaves the fault with chance ``unfixed``)."""
    rng = np.random.default_rng(seed)
    rows, horizon = [], days * 24.0
    for i in range(n):
        t, is_bad = 0.0, i in bad
        while True:
            t += rng.exponential(mtbf / (mult if is_bad else 1.0))
            if t >= horizon:
                break
            rep = rng.exponential(6.0)
            rows.append((t, min(t + rep, horizon), f"node{i:03d}"))
            t += rep
            if is_bad and rng.random() >= unfixed:
                is_bad = False
    t0 = pd.Timestamp("2025-01-01")
    df = pd.DataFrame(rows, columns=["s", "e", "host"]).sort_values("s")
    df["start"] = (t0 + pd.to_timedelta(df["s"], unit="h")).dt.strftime("%Y-%m-%d %H:%M:%S")
    df["end"] = (t0 + pd.to_timedelta(df["e"], unit="h")).dt.strftime("%Y-%m-%d %H:%M:%S")
    df[["start", "end", "host"]].to_csv(path, index=False)
    return path


def visible(path):
    html = path.read_text(encoding="utf-8")
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _render(tmp_path, log, *extra):
    out = tmp_path / "r"
    res = report_cli("-n", "09", "--out", out, "-p", f"log={log}", *extra)
    assert res.exit_code == 0, res.output
    return out, json.loads((out / "summary.json").read_text())["records"]["09_bad_nodes"]


LOG_ARGS = ("-p", "start=start", "-p", "end=end", "-p", "node=host", "-p", "population=300")


def test_planted_lemons_found_named_and_priced(tmp_path):
    log = write_fleet(tmp_path / "fleet.csv")
    out, rec = _render(tmp_path, log, *LOG_ARGS, "-p", "n_gpus=2400", "-p", "policy_runs=6")
    api = relmodel.bad_nodes(load_source(str(log), start="start", end="end", node="host"), population=300, seed=0)
    assert rec["bad_nodes"]["heterogeneous"] is True and api.heterogeneous
    assert rec["bad_nodes"]["p_value"] == pytest.approx(float(api.dispersion.p_value), rel=1e-9)
    assert rec["bad_nodes"]["nodes"] == 300
    named = set(rec["bad_nodes"]["to_pull"]) | set(rec["bad_nodes"]["was_bad"])   # to pull, or to watch
    planted = {f"node{i:03d}" for i in BAD}
    assert len(named & planted) >= 4 and len(named - planted) <= 2
    # the worst node by failures is one of the planted ones (generator's truth)
    worst = api.nodes.sort_values("failures").iloc[-1]["node"]
    assert worst in {f"node{i:03d}" for i in BAD}
    text = visible(out / "09_bad_nodes.html")
    assert "This fleet has bad nodes" in text
    assert api.text().split(".")[0] in text
    assert worst in text
    pol = rec["retirement"]["policies"]
    assert [p["policy"] for p in pol][0] == "never retire"
    assert "points of ETTR" in text or "No retirement policy clearly beats" in text
    assert "nan" not in text.lower().split() and "None" not in text.split()
    # the index says it once, as summary.json does
    summary = json.loads((out / "summary.json").read_text())
    index = visible(out / "index.html")
    assert summary["nodes"] and summary["nodes"][0].startswith("Bad nodes: the 300 nodes' failures vary more")
    assert all(line in index for line in summary["nodes"]) and "Nodes to pull" in index
    # the CLI says the same test result
    res = run_cli("nodes", log, "--start", "start", "--end", "end", "--node", "host", "--population", "300")
    assert res.exit_code == 0, res.output
    assert "This fleet has bad nodes" in res.output


def test_homogeneous_fleet_gets_no_retirement_advice(tmp_path):
    log = write_fleet(tmp_path / "even.csv", bad=(), seed=9)
    out, rec = _render(tmp_path, log, *LOG_ARGS, "-p", "policy_runs=4")
    assert rec["bad_nodes"]["heterogeneous"] is False
    assert rec["bad_nodes"]["to_pull"] == []
    assert rec["retirement"] is None
    text = visible(out / "09_bad_nodes.html")
    assert "no retirement advice is given" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["nodes"][0].startswith("No bad nodes stand out") and "no node to pull" in summary["nodes"][0]


def test_count_table_says_the_page_does_not_apply(tmp_path):
    out, rec = _render(tmp_path, "llama3")
    assert rec["bad_nodes"] is None and rec["retirement"] is None
    assert "count table: it names no nodes" in visible(out / "09_bad_nodes.html")
    assert json.loads((out / "summary.json").read_text())["nodes"] == []
    summary = json.loads((out / "summary.json").read_text())
    assert summary["decisions"]["nodes"].startswith("No node named: ") and "count table" in summary["decisions"]["nodes"]
    assert "<h2>Nodes to pull</h2>" not in (out / "index.html").read_text()  # no section of ranked nodes


def write_joined_run(folder, n_nodes=24, lemons=(3, 7), weight=12.0):
    """A Slurm run and the syslog of its nodes (tests/report/pipeline/test_one_decision.py's generator): each
    interruption is an Xid 79 on one node, the ``lemons`` ``weight`` times as likely as the others to be the one.
    Returns (sacct path, syslog path, the lemons' names)."""
    weights = np.where(np.isin(np.arange(n_nodes), lemons), weight, 1.0)
    sacct, syslog, _ = slurm_syslog(folder, seed=21, days=60, n_nodes=n_nodes, mtbf_h=20.0, weights=weights)
    return sacct, syslog, [f"gpu{i + 1:02d}" for i in lemons]


def test_a_slurm_run_joined_to_its_kernel_log_names_its_lemons(tmp_path):
    sacct, syslog, lemons = write_joined_run(tmp_path)
    out, rec = _render(tmp_path, sacct, "-p", "format=sacct", "-p", "job=train", "-p", f"syslog={syslog}",
                       "-p", "year=2024", "-p", "n_gpus=192", "-p", "policy_runs=4")
    assert rec["bad_nodes"]["heterogeneous"] is True
    assert rec["bad_nodes"]["nodes"] == 24              # the run's nodes, from the export, not only those that failed
    api = relmodel.bad_nodes(load_source(str(sacct), format="sacct", job="train", syslog=str(syslog), year=2024),
                             seed=0)
    assert rec["bad_nodes"]["p_value"] == pytest.approx(float(api.dispersion.p_value), rel=1e-9)
    top2 = set(api.nodes.sort_values("failures", ascending=False)["node"].head(2))
    assert top2 == set(lemons)
    text = visible(out / "09_bad_nodes.html")
    assert "This fleet has bad nodes" in text and lemons[0] in text
    alone = run_cli("nodes", sacct, "--log-format", "sacct")
    assert alone.exit_code == 2 and "join the kernel log" in alone.output
