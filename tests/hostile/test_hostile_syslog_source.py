"""A Slurm export joined to a kernel log (``-p syslog=...``): a syslog that is not there, not a kernel log, or
another run's (no fault matches an interruption) fails before any kernel, one line naming 'syslog', exit 2."""

import pytest

from conftest import REPO, report_cli
from relmodel.data.source import load_source
from relmodel.errors import InputTypeError, KernelJoinError

SACCT = REPO / "data" / "ops-example" / "sacct.txt"
SYSLOG = REPO / "data" / "ops-example" / "syslog"


def refused(res, *words):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("relmodel: error: "), res.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_a_syslog_that_is_not_there(tmp_path, no_kernel):
    refused(report_cli("-n", "03", "-p", f"log={SACCT}", "-p", "format=sacct", "-p", f"syslog={tmp_path / 'no.log'}",
                       "--out", tmp_path / "r"), "'syslog'", "no such file")
    assert not (tmp_path / "r").exists()


def _other_run(tmp_path):
    """A kernel log of the same nodes months later (the bundled syslog's generator at its old start, 1 December):
    none of its faults falls within 6 hours before one of the export's ends, which are all in March-April."""
    from relmodel.data.formats.synthetic_ops import synthetic_syslog

    path = tmp_path / "other.log"
    synthetic_syslog(path, days=45, nodes=64, noise_per_day=0.5, seed=24, start="2024-12-01")
    return path


def test_a_syslog_of_another_run(tmp_path, no_kernel):
    refused(report_cli("-n", "03", "-p", f"log={SACCT}", "-p", "format=sacct", "-p", f"syslog={_other_run(tmp_path)}",
                       "-p", "year=2024", "--out", tmp_path / "r"), "'syslog'", "matches")
    assert not (tmp_path / "r").exists()


def test_a_syslog_that_is_not_a_kernel_log(tmp_path, no_kernel):
    bad = tmp_path / "notes.log"
    bad.write_text("shopping list\neggs\nmilk\n")
    refused(report_cli("-n", "03", "-p", f"log={SACCT}", "-p", "format=sacct", "-p", f"syslog={bad}",
                       "--out", tmp_path / "r"), "'syslog'")


def test_the_api_names_the_same_errors(tmp_path):
    other = _other_run(tmp_path)
    with pytest.raises(KernelJoinError, match="matches"):
        load_source(str(SACCT), format="sacct", syslog=str(other), year=2024)
    assert load_source(str(SACCT), format="sacct", syslog=str(SYSLOG), year=2024)  # the bundled pair joins
    table = tmp_path / "t.csv"
    table.write_text("start,node\n2024-01-01,a\n2024-01-03,b\n")
    with pytest.raises(InputTypeError, match="syslog"):
        load_source(str(table), start="start", node="node", syslog=str(SYSLOG))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.log", "t.csv"]


# --- a log that says neither its nodes nor its size ------------------------------------------------

NO_SIZE = {"no node column": ("start,end\n2024-01-01,2024-01-01 02:00\n2024-01-03,2024-01-03 01:00\n", "csv",
                              ["start=start", "end=end"]),
           "one node": ("start,end,node\n2024-01-01,2024-01-01 02:00,a\n2024-01-03,2024-01-03 01:00,a\n", "csv",
                        ["start=start", "end=end", "node=node"]),
           "sacct without nodes": ("JobID|JobName|State|ExitCode|Start|End\n"
                                   "1|train|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:20:00\n"
                                   "2|train|COMPLETED|0:0|2024-03-01T10:50:00|2024-03-02T20:00:00\n", "txt",
                                   ["format=sacct"])}


@pytest.mark.parametrize("case", sorted(NO_SIZE))
def test_a_log_without_nodes_or_size_is_refused_before_kernels(tmp_path, no_kernel, case):
    text, ext, params = NO_SIZE[case]
    log = tmp_path / f"log.{ext}"
    log.write_text(text)
    args = ["-n", "04", "-p", f"log={log}"]
    for p in params:
        args += ["-p", p]
    refused(report_cli(*args, "--out", tmp_path / "r"), "source_gpus")
    assert not (tmp_path / "r").exists()
    from relmodel.errors import ParameterError
    from relmodel.report import render
    with pytest.raises(ParameterError, match="source_gpus"):
        render(notebooks=["04"], params={"log": str(log), **dict(p.split("=") for p in params)},
               out=tmp_path / "api")
    assert not (tmp_path / "api").exists()


def test_a_syslog_beside_a_bundled_data_set(tmp_path, no_kernel):
    refused(report_cli("-n", "03", "-p", "log=llama3", "-p", f"syslog={SYSLOG}", "--out", tmp_path / "r"),
            "'syslog'", "llama3")


def test_a_syslog_beside_a_table_log(tmp_path, no_kernel):
    table = tmp_path / "t.csv"
    table.write_text("start,node\n2024-01-01,a\n2024-01-03,b\n")
    refused(report_cli("-n", "03", "-p", f"log={table}", "-p", "start=start", "-p", "node=node",
                       "-p", f"syslog={SYSLOG}", "--out", tmp_path / "r"), "'syslog'", "Slurm export")
