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


def test_a_syslog_of_another_run(tmp_path, no_kernel):
    """The bundled export and syslog come from independent generators (data/ops-example/settings.json): the
    syslog's faults match none of the run's ends."""
    refused(report_cli("-n", "03", "-p", f"log={SACCT}", "-p", "format=sacct", "-p", f"syslog={SYSLOG}",
                       "-p", "year=2024", "--out", tmp_path / "r"), "'syslog'", "matches")
    assert not (tmp_path / "r").exists()


def test_a_syslog_that_is_not_a_kernel_log(tmp_path, no_kernel):
    bad = tmp_path / "notes.log"
    bad.write_text("shopping list\neggs\nmilk\n")
    refused(report_cli("-n", "03", "-p", f"log={SACCT}", "-p", "format=sacct", "-p", f"syslog={bad}",
                       "--out", tmp_path / "r"), "'syslog'")


def test_the_api_names_the_same_errors(tmp_path):
    with pytest.raises(KernelJoinError, match="matches"):
        load_source(str(SACCT), format="sacct", syslog=str(SYSLOG), year=2024)
    table = tmp_path / "t.csv"
    table.write_text("start,node\n2024-01-01,a\n2024-01-03,b\n")
    with pytest.raises(InputTypeError, match="syslog"):
        load_source(str(table), start="start", node="node", syslog=str(SYSLOG))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
