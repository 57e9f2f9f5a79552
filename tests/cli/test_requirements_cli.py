"""The ``relmodel requirements`` command."""

import json

import pytest

from conftest import run_cli
from relmodel.scale.targets.requirements import required_node_mtbf


def run(*args):
    return run_cli("requirements", *args)


def test_issue_example_prints_node_gpu_and_components():
    r = run("--gpus", "100000", "--target-ettr", "0.9", "--ckpt-cost", "1min", "--restart", "10min",
            "--n-boot", "300")
    assert r.exit_code == 0, r.output
    assert "required node MTBF" in r.output and "required GPU MTBF" in r.output
    assert "95%" in r.output and "Faulty GPU" in r.output and "all gpu causes" in r.output
    assert "Llama 3" in r.output


def test_json_matches_library():
    r = run("--gpus", "16384", "--target-ettr", "0.5", "--format", "json", "--n-boot", "200")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    node = [row for row in out["summary"] if row["quantity"] == "required node MTBF"][0]
    expect = required_node_mtbf(16_384, 0.5, "1min", "10min", fixed_rate_per_h=63 / (54 * 24))
    assert node["value"] == pytest.approx(expect, rel=1e-9)
    assert node["lo"] < node["value"] < node["hi"]
    assert {row["component"] for row in out["components"]} >= {"Faulty GPU", "NIC"}


def test_unreachable_target_is_one_line_and_exit_2():
    r = run("--gpus", "1000000", "--target-ettr", "0.999", "--restart", "10min", "--n-boot", "100")
    assert r.exit_code == 2
    assert "out of reach" in r.output and "Traceback" not in r.output


def test_stepfun_on_nvl72_and_csv():
    r = run("--gpus", "100800", "--cluster", "nvl72", "--log", "stepfun", "--target-ettr", "0.8",
            "--format", "csv", "--n-boot", "100")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].startswith("component,")


def test_bad_inputs_exit_2():
    assert run("--gpus", "1000", "--ckpt-cost", "soon").exit_code == 2
    assert run("--gpus", "1000", "--target-ettr", "1.5").exit_code == 2
    assert run("--gpus", "0").exit_code == 2


def test_scale_override():
    base = json.loads(run("--gpus", "16384", "--target-ettr", "0.5", "--format", "json", "--n-boot", "100").output)
    r = run("--gpus", "16384", "--target-ettr", "0.5", "--format", "json", "--n-boot", "100",
            "--scale", "Network Switch/Cable=transceiver")
    assert r.exit_code == 0, r.output
    rows = {row["component"]: row for row in json.loads(r.output)["components"]}
    old = {row["component"]: row for row in base["components"]}
    assert rows["Network Switch/Cable"]["scales_with"] == "transceiver"
    assert rows["Network Switch/Cable"]["units"] > old["Network Switch/Cable"]["units"]
    assert run("--gpus", "1000", "--scale", "nonsense").exit_code == 2
    assert run("--gpus", "1000", "--scale", "NIC=widget").exit_code == 2


def test_small_file_log_with_source_gpus(tmp_path):
    # five outages: some bootstrap draws have no failures at all, which must not break the ETTR interval
    f = tmp_path / "mini.csv"
    f.write_text("start,host,reason\n2024-01-01 00:00,n1,GPU\n2024-01-03 00:00,n2,PSU\n"
                 "2024-01-05 00:00,n3,GPU\n2024-01-09 00:00,n1,Software Bug\n2024-01-20 00:00,n4,GPU\n")
    r = run("--gpus", "2000", "--target-ettr", "0.8", "--log", str(f), "--start", "start", "--node", "host",
            "--cause", "reason", "--source-gpus", "32", "--n-boot", "500")
    assert r.exit_code == 0, r.output
    assert "required node MTBF" in r.output and "Software Bug" in r.output
    assert run("--gpus", "2000", "--log", str(f)).exit_code == 2  # no --start for a file
