"""The CLI says what it took as the observed cluster, takes --source-gpus, and warns as Python does."""

import json
import warnings

import pytest
from click.testing import CliRunner

from relmodel.cli.main import cli

# Seven rows, one an exact duplicate: six outages on five hosts from Jan 1 to Jan 9 (192 h).
LOG = """time,host
2024-01-01 00:00,n1
2024-01-02 00:00,n2
2024-01-02 00:00,n2
2024-01-03 12:00,n3
2024-01-05 00:00,n1
2024-01-07 00:00,n4
2024-01-09 00:00,n5
"""
SPAN_H, EVENTS = 8 * 24, 6


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "xid.csv"
    path.write_text(LOG)
    return path


def run(*args):
    with warnings.catch_warnings():
        warnings.simplefilter("default")  # shown on stderr, as outside the suite (pyproject: error)
        return CliRunner().invoke(cli, [*map(str, args)])


def _mtbf(out):
    return json.loads(out)["mtbf_h"]  # the table shows it for people (4.7 min); the JSON keeps every digit


def test_interval_with_source_gpus_scales_from_the_given_cluster(log):
    res = run("interval", "--log", log, "--start", "time", "--node", "host", "--gpus", 16384,
              "--source-gpus", 8000, "--format", "json")
    assert res.exit_code == 0, res.output + res.stderr
    # hand count: 6 outages in 192 h on 1,000 nodes, scaled per node to 2,048 nodes
    assert _mtbf(res.stdout) == pytest.approx(SPAN_H / EVENTS / (2048 / 1000), rel=1e-3)
    assert "nodes seen in the log" not in res.stderr


def test_interval_without_it_says_it_took_the_nodes_seen(log):
    res = run("interval", "--log", log, "--start", "time", "--node", "host", "--gpus", 16384, "--format", "json")
    assert res.exit_code == 0, res.output + res.stderr
    assert "the 5 nodes seen in the log (40 GPUs at 8 per node)" in res.stderr and "--source-gpus" in res.stderr
    assert _mtbf(res.stdout) == pytest.approx(SPAN_H / EVENTS / (2048 / 5), rel=1e-3)


def test_source_gpus_needs_a_target_size(log):
    res = run("interval", "--log", log, "--start", "time", "--node", "host", "--source-gpus", 8000)
    assert res.exit_code == 2 and "--source-gpus needs --gpus" in res.stderr


def test_rates_warns_of_merged_rows_and_takes_source_gpus(log):
    res = run("rates", log, "--start", "time", "--node", "host", "--per", "node", "--source-gpus", 80,
              "--format", "csv")
    assert res.exit_code == 0, res.output + res.stderr
    assert "1 duplicate row;" in res.stderr
    total = [line for line in res.stdout.splitlines() if line.startswith("Total")][0].split(",")
    header = res.stdout.splitlines()[0].split(",")
    # hand count: 10 nodes x 192 h / 6 outages = 320 h per node
    assert float(total[header.index("mtbf_h")]) == pytest.approx(10 * SPAN_H / EVENTS)
    assert run("rates", log, "--start", "time", "--node", "host", "--source-gpus", 81).exit_code == 2


def test_requirements_says_it_took_the_nodes_seen(log):
    res = run("requirements", "--log", log, "--start", "time", "--node", "host", "--gpus", 64,
              "--target-ettr", 0.5, "--n-boot", 100)
    assert "nodes seen in the log" in res.stderr
