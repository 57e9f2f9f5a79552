"""Every CLI command that reads a log also reads a count table (the bundled one, and one of yours)."""

import json

import pandas as pd
import pytest

import relmodel
from relmodel.errors import CountError, FitError
from conftest import run_cli

from relmodel.data.bundled.datasets import data_dir

TABLE = str(data_dir() / "llama3-54day" / "table5.csv")


def _json(r):
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_rates_reads_the_bundled_count_table_file_as_llama3():
    by_file = _json(run_cli("rates", TABLE, "--format", "json"))
    by_name = _json(run_cli("rates", "llama3", "--format", "json"))
    assert by_file == by_name
    assert by_file[-1]["count"] == 419 and by_file[-1]["mtbf_h"] == pytest.approx(1296 / 419)


def test_rates_per_gpu_from_the_file():
    rows = _json(run_cli("rates", TABLE, "--per", "gpu", "--format", "json"))
    assert rows[-1]["mtbf_h"] == pytest.approx(1296 * 16384 / 419)


def test_interval_takes_the_mtbf_from_the_count_table_file():
    args = ["--ckpt-cost", "45s", "--restart", "10min", "--format", "json"]
    by_file = _json(run_cli("interval", "--log", TABLE, *args))
    by_name = _json(run_cli("interval", "--log", "llama3", *args))
    assert by_file.pop("mtbf_source") == f"from {TABLE}" and by_name.pop("mtbf_source") == "from llama3"
    assert by_file == by_name and by_file["mtbf_h"] == pytest.approx(1296 / 419)


def test_requirements_from_the_count_table_file():
    args = ["--gpus", "32768", "--n-boot", "100", "--format", "json"]
    by_file = _json(run_cli("requirements", "--log", TABLE, *args))
    assert by_file == _json(run_cli("requirements", "--log", "llama3", *args))


@pytest.mark.parametrize("args", [["fit", TABLE], ["forecast-check", TABLE]])
def test_commands_needing_event_times_say_a_count_table_has_none(args):
    r = run_cli(*args)
    assert r.exit_code == 2
    assert "count" in r.output and "event times" in r.output and "Traceback" not in r.output
    assert "window=" not in r.output


def test_a_count_table_of_yours_with_exposure_and_cluster_options(tmp_path):
    p = tmp_path / "counts.csv"
    p.write_text("component,count\nGPU,30\nPSU,10\n")
    r = run_cli("rates", p)
    assert r.exit_code == 2 and "--exposure" in r.output
    r = run_cli("rates", p, "--exposure", "10d")
    assert r.exit_code == 2 and "--source-gpus" in r.output
    rows = _json(run_cli("rates", p, "--exposure", "10d", "--n-nodes", "4", "--per", "node", "--format", "json"))
    assert rows[-1]["count"] == 40 and rows[-1]["mtbf_h"] == pytest.approx(240 * 4 / 40)
    dec = _json(run_cli("interval", "--log", p, "--exposure", "10d", "--source-gpus", "32", "--gpus", "32",
                        "--format", "json"))
    assert dec["mtbf_h"] == pytest.approx(240 / 40)  # the job MTBF of the table's own cluster


def test_exposure_is_refused_for_an_event_log():
    r = run_cli("rates", "stepfun", "--exposure", "3d")
    assert r.exit_code == 2 and "count table" in r.output


def test_component_rates_takes_a_source():
    for name in ("llama3", TABLE, "stepfun"):
        src = relmodel.load_source(name)
        pd.testing.assert_frame_equal(relmodel.stats.component_rates(src), relmodel.stats.component_rates(src.data))
    with pytest.raises(CountError, match="Source"):
        relmodel.stats.component_rates(object())


def test_load_source_reads_a_count_csv_with_its_columns(tmp_path):
    p = tmp_path / "counts.csv"
    p.write_text("component,count,days,n_gpus\nGPU,3,10,64\nPSU,1,10,64\n")
    src = relmodel.load_source(str(p))
    total = relmodel.stats.component_rates(src, per="gpu").iloc[-1]
    assert src.kind == "counts" and total["exposure_h"] == 240 * 64


def test_bundled_count_table_has_no_event_times_for_todays_rate():
    from relmodel.stats.forecast.current import current_rate
    with pytest.raises(FitError, match="count table"):
        current_rate(relmodel.load_source(TABLE).data)


def test_a_small_count_table_whose_rate_bound_reaches_zero(tmp_path):
    """4 interruptions: the bootstrap's lower job rate can be 0, so the MTBF's upper bound is unbounded
    (it divided by zero: a traceback from interval, 'mtbf must be finite' from decide)."""
    p = tmp_path / "counts.csv"
    p.write_text("component,count\nGPU,3\nPSU,1\n")
    for fmt in ("table", "json"):
        r = run_cli("interval", "--log", p, "--exposure", "10d", "--source-gpus", "32", "--gpus", "32", "--format", fmt)
        assert r.exit_code == 0, r.output
    assert json.loads(r.output)["mtbf_h"] == pytest.approx(60.0)
    src = relmodel.load_source(str(p), exposure="10d", source_gpus=32)
    dec = relmodel.decide(src, 32, 0.9, "1min", "10min", seed=0)
    assert dec.job_mtbf_hi == float("inf") and dec.interval_hi == float("inf")
    assert dec.job_mtbf_lo < dec.job_mtbf_h < dec.job_mtbf_hi


def test_report_parameters_take_the_bundled_count_table_file(tmp_path, no_kernel):
    from conftest import report_cli
    r = report_cli("-n", "03", "-p", f"log={TABLE}", "--out", tmp_path / "out")
    assert "source_gpus" not in r.output, r.output  # it was asked for: the file has no n_gpus column
    assert isinstance(r.exception, AssertionError) and "kernel was started" in str(r.exception)
    p = tmp_path / "counts.csv"
    p.write_text("component,count\nGPU,30\n")
    r = report_cli("-n", "03", "-p", f"log={p}", "--out", tmp_path / "out2")
    assert r.exit_code == 2 and "source_gpus" in r.output  # a table of yours still needs its cluster


def test_compare_rates_takes_a_source():
    from relmodel.stats.rates.comparison import compare_rates
    for name in ("llama3", TABLE):
        src = relmodel.load_source(name)
        assert compare_rates(src, "rsc1") == compare_rates(src.data, "rsc1")
