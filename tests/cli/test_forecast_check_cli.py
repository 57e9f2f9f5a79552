"""``relmodel forecast-check``: the held-out count printed is the count in the log; bad input is one line, exit 2."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
from click.testing import CliRunner

from relmodel.cli import cli

SACCT = Path(__file__).resolve().parents[2] / "data" / "ops-example" / "sacct.txt"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_a_csv_log_is_checked_and_the_held_out_count_is_the_logs(tmp_path):
    rng = np.random.default_rng(3)
    t = np.sort(rng.uniform(0, 1000, 120))
    path = tmp_path / "log.csv"
    pd.DataFrame({"began": t, "host": "n1"}).to_csv(path, index=False)
    got = run("forecast-check", path, "--start", "began", "--node", "host", "--time-unit", "h",
              "--window", 0, 1000, "--format", "json", "--split", "0.6")
    assert got.exit_code == 0, got.output
    rows = json.loads(got.output)
    failures = next(r for r in rows if r["quantity"] == "failures")
    assert failures["observed"] == int(np.sum(t > 600)) and failures["lo"] <= failures["hi"]


def test_a_slurm_run_gets_an_ettr_row():
    got = run("forecast-check", SACCT, "--log-format", "sacct", "--format", "json")
    assert got.exit_code == 0, got.output
    assert {r["quantity"] for r in json.loads(got.output)} == {"failures", "job_mtbf", "ettr"}


def test_bad_split_and_missing_file_are_one_line_exit_2(tmp_path):
    for args in (["stepfun", "--split", "1.5"], [tmp_path / "nope.csv", "--start", "s"]):
        got = run("forecast-check", *args)
        assert got.exit_code == 2 and "Traceback" not in got.output
        assert len(got.output.strip().splitlines()) == 1, got.output
