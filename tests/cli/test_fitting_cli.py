"""The ``relmodel fit`` command."""

import json

import pandas as pd
import pytest

from conftest import run_cli


run = run_cli


def test_default_is_stepfun_fitted_by_the_reports_rule():
    r = run("fit", "--n-boot", "10")
    assert r.exit_code == 0, r.output
    # StepFun gives repair times for 400 nodes: auto fits per-node up times, as page 02 does, and says why
    assert "StepFun" in r.output and ": uptimes, n = " in r.output
    assert "fitting per-node up times, since the log gives repair times for 400 nodes" in r.output
    r = run("fit", "--what", "interarrivals", "--n-boot", "0")
    assert r.exit_code == 0 and ": interarrivals, n = " in r.output
    for name in ("exponential", "weibull", "lognormal", "gamma", "loglogistic", "akaike_weight", "p_value"):
        assert name in r.output
    assert "best by AIC" in r.output


def test_json_output_matches_the_library(stepfun_log):
    import relmodel
    r = run("fit", "stepfun", "--what", "uptimes", "--families", "weibull,lognormal", "--n-boot", "0",
            "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    cmp = relmodel.stats.compare_fits(stepfun_log.uptimes(), ["weibull", "lognormal"], n_boot=0)
    assert [x["family"] for x in rows] == list(cmp.by_family.family)
    assert rows[0]["aic"] == pytest.approx(cmp.by_family.aic.iloc[0])


def test_plot_is_written_and_not_overwritten(tmp_path):
    out = tmp_path / "fit.png"
    r = run("fit", "stepfun", "--n-boot", "0", "--families", "weibull,gamma", "--plot", str(out))
    assert r.exit_code == 0, r.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    before = out.stat().st_mtime_ns
    r = run("fit", "stepfun", "--n-boot", "0", "--plot", str(out))
    assert r.exit_code == 2 and "--force" in r.output
    assert out.stat().st_mtime_ns == before
    r = run("fit", "stepfun", "--n-boot", "0", "--families", "exponential", "--plot", str(out), "--force")
    assert r.exit_code == 0


def test_a_csv_log(tmp_path):
    starts = pd.date_range("2024-01-01", periods=40, freq="7h") + pd.to_timedelta(
        [i * i % 13 for i in range(40)], unit="h")
    df = pd.DataFrame({"began": starts, "ended": starts + pd.Timedelta("1h"), "host": ["a", "b"] * 20})
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    r = run("fit", str(path), "--start", "began", "--end", "ended", "--node", "host", "--n-boot", "0",
            "--what", "downtimes", "--families", "exponential")
    assert r.exit_code == 0, r.output
    assert "exponential" in r.output


def test_errors_are_one_line():
    r = run("fit", "llama3")
    assert r.exit_code == 2 and "counts" in r.output
    r = run("fit", "stepfun", "--families", "weibull,normal")
    assert r.exit_code == 2 and "unknown family" in r.output


def test_help_has_an_example():
    r = run("fit", "--help")
    assert r.exit_code == 0 and "relmodel fit stepfun --what uptimes" in r.output


def test_plot_of_a_family_without_its_own_paper(tmp_path):
    out = tmp_path / "gg.png"
    r = run("fit", "stepfun", "--n-boot", "0", "--families", "gengamma", "--plot", str(out))
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 1000


def test_fit_warnings_become_notes(tmp_path):
    starts = pd.Timestamp("2024-01-01") + pd.to_timedelta([0, 5, 9, 30, 31, 60], unit="h")
    df = pd.DataFrame({"began": starts, "ended": starts})  # zero-length outages
    path = tmp_path / "zero.csv"
    df.to_csv(path, index=False)
    r = run_cli("fit", path, "--start", "began", "--end", "ended", "--what", "interarrivals",
                "--n-boot", "0", "--families", "weibull")
    assert r.exit_code == 0, r.output
    assert "weibull" in r.output and "Traceback" not in r.output
