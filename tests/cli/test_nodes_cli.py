"""``relmodel nodes``: the verdict and the ranked nodes from a bundled log or a user's CSV; bad input exits 2."""

import json

import numpy as np
import pytest

from conftest import run_cli


@pytest.fixture
def fleet_csv(tmp_path):
    """A year of 300 nodes, 20 of them failing ten times as often (a generator of its own, plain numpy)."""
    rng = np.random.default_rng(5)
    rows = []
    for node in range(300):
        rate = 1 / 500 if node < 20 else 1 / 5000
        t = rng.exponential(1 / rate)
        while t < 8760:
            end = t + rng.exponential(4.0)
            rows.append(f"host{node:03d},{t:.3f},{end:.3f}")
            t = end + rng.exponential(1 / rate)
    path = tmp_path / "outages.csv"
    path.write_text("host,began,ended\n" + "\n".join(rows) + "\n")
    return path


def _file(path):
    return [path, "--start", "began", "--end", "ended", "--node", "host", "--time-unit", "h",
            "--window", "0", "8760"]


def test_the_bundled_stepfun_log():
    res = run_cli("nodes", "stepfun", "--top", "5")
    assert res.exit_code == 0, res.output
    assert "This fleet has bad nodes" in res.output and "The 5 nodes most likely bad now:" in res.output
    assert "chance bad now" in res.output and "nan" not in res.output.lower()


def test_a_user_csv_with_and_without_the_population(fleet_csv):
    known = run_cli("nodes", *_file(fleet_csv), "--population", "300", "--top", "20")
    assert known.exit_code == 0, known.output
    assert "host0" in known.output and "lists only the" not in known.output
    listed = known.output.split("most likely bad now:")[1].splitlines()[2:]
    bad = sum(line.strip().startswith("host0") and int(line.split()[0][4:]) < 20 for line in listed)
    assert bad >= 15  # the ranked nodes are the generator's bad ones
    seen = run_cli("nodes", *_file(fleet_csv))
    assert seen.exit_code == 0 and "lists only the" in seen.output


def test_json_lists_the_ranked_nodes(fleet_csv):
    res = run_cli("nodes", *_file(fleet_csv), "--population", "300", "--format", "json", "--top", "3")
    rows = json.loads(res.output)
    assert len(rows) == 3 and {"node", "failures", "exposure_h", "p_bad"} <= set(rows[0])


@pytest.mark.parametrize("args, says", [
    (["--population", "5"], "population=5 but the log lists"),
    (["--start", "nope"], "nope"),
])
def test_bad_input_is_one_line_and_exit_2(fleet_csv, args, says):
    base = _file(fleet_csv)
    if args[0] == "--start":
        base = [fleet_csv, "--start", "nope", "--node", "host", "--time-unit", "h"]
        args = []
    res = run_cli("nodes", *base, *args)
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1 and says in res.output


def test_a_count_table_is_refused_in_one_line():
    res = run_cli("nodes", "llama3")
    assert res.exit_code == 2 and "count table" in res.output and len(res.output.strip().splitlines()) == 1
