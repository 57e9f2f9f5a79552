import json
import subprocess
import sys

import pandas as pd
import pytest

from conftest import run_cli

run = run_cli


def test_default_table_is_llama3():
    r = run("rates")
    assert r.exit_code == 0, r.output
    assert "Faulty GPU" in r.output and "Total" in r.output and "3.093" in r.output
    assert "35.3%" in r.output  # the printed 30.1% is flagged


def test_per_gpu_json():
    r = run("rates", "--per", "gpu", "--format", "json")
    rows = json.loads(r.output)
    assert rows[-1]["component"] == "Total"
    assert rows[-1]["mtbf_h"] == pytest.approx(50677, rel=1e-4)


def test_csv_from_a_file(tmp_path):
    p = tmp_path / "log.csv"
    p.write_text("t,host,why\n2024-01-01,a,gpu\n2024-01-03,b,gpu\n2024-01-05,a,nic\n")
    r = run("rates", str(p), "--start", "t", "--node", "host", "--cause", "why", "--format", "csv")
    assert r.exit_code == 0, r.output
    df = pd.read_csv(pd.io.common.StringIO(r.output))
    assert df.set_index("component").loc["gpu", "count"] == 2


@pytest.mark.parametrize("args, fragment", [
    (["rates", "missing.csv", "--start", "t"], "missing.csv"),
    (["rates", "{tmp}/bad.csv", "--start", "nope"], "no column 'nope'"),
    (["rates", "{tmp}/bad.csv", "--start", "t"], "row 2 (line 3), column 't'"),
    (["rates", "{tmp}/bad.txt", "--start", "t"], "unknown file type"),
])
def test_bad_input_one_line_exit_2(tmp_path, args, fragment):
    (tmp_path / "bad.csv").write_text("t\n2024-01-01\nnot a time\n")
    (tmp_path / "bad.txt").write_text("t\n1\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "relmodel", *args], capture_output=True, text=True)
    assert proc.returncode == 2
    assert fragment in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_help_has_examples():
    r = run("rates", "--help")
    assert r.exit_code == 0 and "Examples" in r.output and "--per" in r.output
