"""``relmodel interval`` end to end."""

import json
import math
import re
import warnings

import pytest

from conftest import run_cli
from relmodel.checkpoint import ettr, optimal_interval
from relmodel.cli import cli
from relmodel.errors import ArgumentOrderWarning


def run(*args):
    return run_cli("interval", *args)


def _daly_ettr(tau, m, d, r):
    """Daly's expected useful share for exponential failures, written out: tau / (M e^(R/M) (e^((tau+d)/M) - 1))."""
    return tau / (m * math.exp(r / m) * math.expm1((tau + d) / m))


def test_table_has_three_methods_and_breakdown():
    r = run("--mtbf", "3h", "--ckpt-cost", "45s", "--restart", "10min")
    assert r.exit_code == 0, r.output
    for word in ("Young", "Daly", "exact", "ETTR", "lost", "restart", "checkpoint", "failures a day"):
        assert word in r.output


def test_table_says_numbers_as_a_person_does():
    """Young's interval sqrt(2 d M) = sqrt(2 x 45 s x 3 h) = 16.43 min reads "16.4 min"; its ETTR from Daly's
    formula, to one decimal; 8 failures a day; no long decimals, no "_%" headers, no exponents."""
    r = run("--mtbf", "3h", "--ckpt-cost", "45s", "--restart", "10min")
    young = next(line.split() for line in r.output.splitlines() if line.strip().startswith("Young"))
    tau = math.sqrt(2 * 0.0125 * 3)
    assert young[:4] == ["Young", "16.4", "min", f"{100 * _daly_ettr(tau, 3, 0.0125, 1 / 6):.1f}%"]
    assert young[-1] == "8"
    assert not re.search(r"\d\.\d{2,}|_%|e[+-]\d", r.output)


def test_a_share_too_small_to_show_says_so():
    """A job that fails once in a million hours loses under 0.1% to restarts: never "0.0%"."""
    r = run("--mtbf", "1000000h", "--ckpt-cost", "1s", "--restart", "10min")
    assert r.exit_code == 0, r.output
    assert "under 0.1%" in r.output and "0.0%" not in r.output


def test_json_values_match_library():
    r = run("--mtbf", "3h", "--ckpt-cost", "45s", "--restart", "10min", "--format", "json")
    out = json.loads(r.output)
    rows = {m["method"]: m for m in out["methods"]}
    assert rows["exact"]["interval_h"] == pytest.approx(float(optimal_interval(3.0, 45 / 3600)))
    assert rows["Young"]["interval_h"] == pytest.approx((2 * 45 / 3600 * 3.0) ** 0.5)  # sqrt(2 delta M)
    assert rows["exact"]["ettr"] == pytest.approx(float(ettr(rows["exact"]["interval_h"], 3.0, 45 / 3600, 1 / 6)))
    for m in rows.values():
        total = m["ettr"] + m["checkpoint_share"] + m["lost_share"] + m["restart_share"]
        assert total == pytest.approx(1.0)


def test_restart_and_checkpoint_default_to_the_defaults_table():
    # one table of defaults: --restart 10 min and --ckpt-cost 1 min, as in requirements and the notebooks
    out = json.loads(run("--mtbf", "3h", "--format", "json").output)
    assert out["restart_h"] == pytest.approx(10 / 60) and out["ckpt_cost_h"] == pytest.approx(1 / 60)


def test_cli_table_is_the_library_table():
    import relmodel
    df = relmodel.checkpoint.compare_intervals("3h", "45s", "10min", work="10d", step="7s")
    r = run("--mtbf", "3h", "--ckpt-cost", "45s", "--restart", "10min", "--work", "10d", "--step", "7s",
            "--format", "json")
    got = [m["interval_h"] for m in json.loads(r.output)["methods"]]
    assert got == pytest.approx(df["interval_h"].tolist())
    assert list(df["method"]) == ["Young", "Daly", "exact", "whole steps"]


def test_csv_and_step_and_work():
    r = run("--mtbf", "3h", "--ckpt-cost", "45s", "--step", "7s", "--work", "10d", "--format", "csv")
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[0].startswith("method,") and "wall_h" in lines[0]
    assert any(line.startswith("whole steps,") for line in lines)


def test_log_scaled_to_gpus():
    from relmodel.scale.clusters.scaling import scale_job_mtbf
    import relmodel
    r = run("--log", "llama3", "--gpus", "32768", "--ckpt-cost", "45s", "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["mtbf_h"] == pytest.approx(scale_job_mtbf(relmodel.datasets.llama3_54day(), 32768))
    base = json.loads(run("--log", "llama3", "--ckpt-cost", "45s", "--format", "json").output)
    assert base["mtbf_h"] == pytest.approx(54 * 24 / 419, rel=1e-3)


def test_async_and_two_level_rows():
    from relmodel.checkpoint.multilevel import async_ettr, two_level_optimum
    r = run("--mtbf", "3h", "--ckpt-cost", "5s", "--persist", "2min", "--restart", "10min", "--format", "json")
    rows = {m["method"]: m for m in json.loads(r.output)["methods"]}
    a = rows["async exact"]
    assert a["ettr"] == pytest.approx(float(async_ettr(a["interval_h"], 3, 5 / 3600, 2 / 60, 1 / 6)))
    assert a["ettr"] + a["checkpoint_share"] + a["lost_share"] + a["restart_share"] == pytest.approx(1)
    r = run("--mtbf", "3h", "--ckpt-cost", "2min", "--fast-cost", "5s", "--fast-fraction", "0.8",
            "--fast-restart", "2min", "--restart", "10min")
    assert r.exit_code == 0, r.output
    plan = two_level_optimum(3, "5s", "2min", "2min", "10min", fast_fraction=0.8)
    assert f"1 in {plan.k} to storage" in r.output and f"ETTR {100 * plan.ettr:.1f}%" in r.output
    bad = run("--mtbf", "3h", "--ckpt-cost", "2min", "--fast-cost", "5s", "--fast-fraction", "1.5")
    assert bad.exit_code == 2


def test_log_file_with_column_options(tmp_path):
    import relmodel
    from relmodel.scale.clusters.scaling import job_mtbf_from_source
    f = tmp_path / "outages.csv"
    f.write_text("began,host\n" + "".join(f"{t},{t % 3}\n" for t in range(0, 200, 7)))
    r = run("--log", str(f), "--start", "began", "--node", "host", "--time-unit", "h", "--ckpt-cost", "1min",
            "--format", "json")
    assert r.exit_code == 0, r.output
    want = job_mtbf_from_source(relmodel.read_log(f, start="began", node="host", time_unit="h"))
    assert json.loads(r.output)["mtbf_h"] == pytest.approx(want)


@pytest.mark.filterwarnings("ignore")
def test_fit_option_simulates_beside_exponential():
    r = run("--log", "stepfun", "--fit", "weibull", "--ckpt-cost", "2min", "--restart", "10min",
            "--simulate", "200", "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    rows = {x["interval"]: x for x in out["fitted"]["intervals"]}
    exact = {m["method"]: m for m in out["methods"]}["exact"]
    assert rows["exponential optimum"]["interval_h"] == pytest.approx(exact["interval_h"])
    assert rows["exponential optimum"]["ettr_if_exponential"] == pytest.approx(exact["ettr"])
    assert "weibull" in out["fitted"]["source"]
    assert run("--mtbf", "3h", "--fit", "weibull", "--ckpt-cost", "1s").exit_code == 2
    assert run("--log", "llama3", "--fit", "weibull", "--ckpt-cost", "1s").exit_code == 2


def test_simulate_option():
    r = run("--mtbf", "3h", "--ckpt-cost", "45s", "--restart", "10min", "--work", "5d", "--simulate", "200",
            "--seed", "1")
    assert r.exit_code == 0, r.output
    assert "simulated at the exact interval" in r.output


@pytest.mark.parametrize("args", [("--mtbf", "-3h", "--ckpt-cost", "45s"), ("--mtbf", "3h", "--ckpt-cost", "0"),
                                  ("--ckpt-cost", "45s"), ("--mtbf", "3h", "--log", "llama3", "--ckpt-cost", "1s"),
                                  ("--mtbf", "3h", "--gpus", "8", "--ckpt-cost", "1s"),
                                  ("--mtbf", "soon", "--ckpt-cost", "45s"),
                                  ("--mtbf", "3h", "--ckpt-cost", "45s", "--simulate", "10")])
def test_bad_input_is_one_line_exit_2(args):
    r = run(*args)
    assert r.exit_code == 2
    assert "Traceback" not in r.output


def test_swapped_values_warn_in_one_line():
    with warnings.catch_warnings():
        warnings.simplefilter("default", ArgumentOrderWarning)  # shown, as outside the suite (pyproject: error)
        r = run("--mtbf", "45s", "--ckpt-cost", "3h")
    assert r.exit_code == 0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("relmodel: warning: ckpt_cost (3 h) is at or above mtbf")


def test_the_formula_table_beside_a_fitted_law_says_so_and_gives_the_answer():
    """The Slurm run joined to its kernel log answers with a gamma law (9.7 min); the Young/Daly/exact table is
    the exponential formulas', and its heading now says so and gives the answer beside it, as the report does."""
    from conftest import REPO
    from relmodel import decide, load_source
    from relmodel.tables import duration, pct
    ops = REPO / "data" / "ops-example"
    r = run_cli("interval", "--log", ops / "sacct.txt", "--log-format", "sacct", "--job", "pretrain",
                "--syslog", ops / "syslog", "--year", "2024", "--gpus", "16384")
    assert r.exit_code == 0, r.output
    src = load_source(str(ops / "sacct.txt"), format="sacct", job="pretrain", syslog=str(ops / "syslog"), year=2024)
    d = decide(src, 16_384, seed=0)
    assert d.basis == "simulation"
    assert (f"exponential formulas, beside the answer's {d.law} law (every {duration(d.interval_h)}, ETTR "
            f"{pct(d.ettr)})") in r.stdout
