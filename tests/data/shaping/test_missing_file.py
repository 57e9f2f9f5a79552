"""A path that names nothing is said to be missing, whatever else was asked for (format, year, columns)."""

import pytest

import relmodel
from relmodel.errors import LogFileNotFound
from conftest import report_cli, run_cli


@pytest.mark.parametrize("name", ["nonexistent.log", "nonexistent.csv", "nonexistent.txt", "no/such/folder.csv"])
@pytest.mark.parametrize("extra", [[], ["--year", "2024"], ["--log-format", "xid"], ["--log-format", "sacct"],
                                   ["--start", "t"]])
def test_cli_rates_says_the_file_does_not_exist(tmp_path, name, extra):
    path = tmp_path / name
    r = run_cli("rates", path, *extra)
    assert r.exit_code == 2, r.output
    assert r.output.count("\n") == 1 and "no such file" in r.output and str(path) in r.output
    assert "format" not in r.output and "--start" not in r.output


@pytest.mark.parametrize("args", [["fit", "{p}"], ["forecast-check", "{p}"], ["interval", "--log", "{p}"],
                                  ["requirements", "--log", "{p}"]])
def test_every_command_taking_a_log_says_missing(tmp_path, args):
    p = tmp_path / "gone.log"
    r = run_cli(*[a.format(p=p) for a in args], "--year", "2024")
    assert r.exit_code == 2 and "no such file" in r.output, r.output


@pytest.mark.parametrize("kwargs", [{}, {"year": 2024}, {"format": "xid"}, {"format": "sacct"}, {"start": "t"},
                                    {"format": "table", "start": "t"}])
def test_load_source_names_the_missing_path(tmp_path, kwargs):
    path = tmp_path / "gone.log"
    with pytest.raises(LogFileNotFound, match="no such file") as err:
        relmodel.load_source(str(path), **kwargs)
    assert str(path) in str(err.value)
    assert isinstance(err.value, FileNotFoundError)


@pytest.mark.parametrize("name", ["gone.log", "gone.csv", "gone"])
def test_read_log_names_the_missing_path(tmp_path, name):
    with pytest.raises(LogFileNotFound, match="no such file"):
        relmodel.read_log(str(tmp_path / name), start="t")


def test_report_parameter_names_the_missing_path(tmp_path):
    r = report_cli("-p", f"log={tmp_path / 'gone.log'}", "-p", "year=2024", "--out", tmp_path / "out")
    assert r.exit_code == 2 and "no such file" in r.output
    assert not (tmp_path / "out").exists()
