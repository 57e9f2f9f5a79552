"""The ``relmodel requirements`` command."""

import json
import math
import re

import numpy as np
import pytest

from conftest import run_cli, grown_restart
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
    expect = required_node_mtbf(16_384, 0.5, "1min", grown_restart(16_384), fixed_rate_per_h=63 / (54 * 24))
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


def _best_ettr_by_hand(m, d, r):
    """Daly's ETTR tau / (M e^(R/M) (e^((tau+d)/M) - 1)) at its best tau, found on a log grid refined three times."""
    lo, hi = math.log(d) - 3, math.log(m) + 3
    for _ in range(4):
        tau = np.exp(np.linspace(lo, hi, 4001))
        e = tau / (m * math.exp(r / m) * np.expm1((tau + d) / m))
        i = int(np.argmax(e))
        step = (hi - lo) / 4000
        lo, hi = math.log(tau[i]) - 2 * step, math.log(tau[i]) + 2 * step
    return float(e[i]), float(tau[i])


def _needed_job_mtbf_by_hand(target, d, r):
    lo, hi = 1e-3, 1e6
    for _ in range(80):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if _best_ettr_by_hand(mid, d, r)[0] < target else (lo, mid)
    return math.sqrt(lo * hi)


def test_mtbf_answer_is_daly_solved_by_hand():
    """--mtbf: the job MTBF the target needs (Daly's formula maximised and solved here with numpy alone), times the
    nodes and the GPUs; today's ETTR at the given MTBF."""
    r = run("--gpus", "100000", "--mtbf", "3h", "--ckpt-cost", "1min", "--restart", "10min", "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    d, rs = 1 / 60, 1 / 6
    m = _needed_job_mtbf_by_hand(0.9, d, rs)
    assert out["required_job_mtbf_h"] == pytest.approx(m, rel=1e-5)
    assert out["nodes"] == 12_500
    assert out["required_node_mtbf_h"] == pytest.approx(12_500 * m, rel=1e-5)
    assert out["required_gpu_mtbf_h"] == pytest.approx(100_000 * m, rel=1e-5)
    today, tau = _best_ettr_by_hand(3.0, d, rs)
    assert out["ettr_today"] == pytest.approx(today, rel=1e-6)
    assert out["interval_today_h"] == pytest.approx(tau, rel=1e-3)
    assert out["improvement"] == pytest.approx(m / 3, rel=1e-5)


def test_mtbf_answer_in_words():
    r = run("--gpus", "16384", "--mtbf", "3h")
    assert r.exit_code == 0, r.output
    m = _needed_job_mtbf_by_hand(0.9, 1 / 60, 1 / 6)  # 5.81 h: the defaults, 1 min and 10 min
    node = f"{round(2048 * m, -2):,.0f} h"  # three significant digits, thousands separated
    assert f"Required node MTBF {node} (today 6,140 h)" in r.output  # 2,048 nodes x 3 h = 6,144 h
    assert "Target ETTR 90% at 16,384 GPUs (2,048 nodes of 8 GPUs)" in r.output
    assert f"Required job MTBF {m:.1f} h" in r.output and "1.9× today's" in r.output
    assert not re.search(r"\d\.\d{3,}|e[+-]\d|0\.0%", r.output)
    met = run("--gpus", "16384", "--mtbf", "30h")
    assert "already meets the target" in met.output


def test_mtbf_with_gpus_per_node_and_csv():
    out = run("--gpus", "100", "--gpus-per-node", "4", "--mtbf", "3h", "--format", "csv").output.splitlines()
    row = dict(zip(out[0].split(","), out[1].split(",")))
    assert row["nodes"] == "25" and float(row["required_node_mtbf_h"]) == pytest.approx(
        25 * float(row["required_job_mtbf_h"]))


@pytest.mark.parametrize("args", [("--mtbf", "3h", "--log", "stepfun"), ("--mtbf", "3h", "--cluster", "nvl72"),
                                  ("--mtbf", "3h", "--start", "began"), ("--mtbf", "0h"), ("--mtbf", "soon"),
                                  ("--gpus-per-node", "4",), ("--mtbf", "3h", "--target-ettr", "1")])
def test_mtbf_refusals_are_one_line_exit_2(args):
    r = run(*args)
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
