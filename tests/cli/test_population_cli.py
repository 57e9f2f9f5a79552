"""--population on the CLI: the same population as the API's and the report's, by the same name."""

import json
import sys
from pathlib import Path

import pytest

from relmodel.data.source import load_source
from relmodel.scale.targets.decision import decide

from conftest import run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from test_population import _only_failures  # noqa: E402

COLS = ["--start", "began", "--end", "ended", "--node", "host"]


def test_cli_population_matches_the_api_and_a_hand_count(tmp_path):
    log = _only_failures(tmp_path / "hw.csv")
    src = load_source(str(log), start="began", end="ended", node="host", population=49_152)
    api = decide(src, 16384, 0.9, "1min", None, seed=0).headline()
    # by hand: 1,143 failures over 49,152 nodes for the window, 2,048 nodes in the job
    node_mtbf = 49_152 * src.data.duration_h / 1_143
    assert api["job_mtbf_h"] == pytest.approx(node_mtbf / 2_048, rel=1e-9)
    for cmd in ("interval", "requirements"):
        res = run_cli(cmd, "--log", log, *COLS, "--population", 49_152, "--gpus", 16384, "--format", "json",
                      *(["--seed", 0] if cmd == "interval" else []))
        assert res.exit_code == 0, res.output
        got = json.loads(res.output[res.output.index("{"):])["decision"]
        for k in ("job_mtbf_h", "ettr", "optimal_interval_h", "required_node_mtbf_h"):
            assert got[k] == pytest.approx(api[k], rel=1e-9), (cmd, k)
    rates = run_cli("rates", log, *COLS, "--population", 49_152, "--per", "node", "--format", "json")
    assert rates.exit_code == 0, rates.output
    assert f"{node_mtbf:,.0f}"[:3] in run_cli("rates", log, *COLS, "--population", 49_152, "--per", "node").output


def test_cli_population_errors_are_one_line(tmp_path):
    log = _only_failures(tmp_path / "hw.csv", machine=5_000, listed=300)
    res = run_cli("interval", "--log", log, *COLS, "--population", 299, "--gpus", 1024)
    assert res.exit_code == 2 and "fewer than the 300 nodes" in res.output
    res = run_cli("requirements", "--log", log, *COLS, "--population", 500, "--source-gpus", 8, "--gpus", 1024)
    assert res.exit_code == 2 and "is not --source-gpus" in res.output
