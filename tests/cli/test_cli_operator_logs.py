"""The CLI reads Slurm exports and kernel logs: --log-format, --job, --year, and the sniffed form said."""

import json

import pytest
from click.testing import CliRunner

from relmodel.cli import cli
from relmodel.data.formats.synthetic_ops import synthetic_sacct, synthetic_syslog


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ops")
    sacct = synthetic_sacct(d / "sacct.txt", days=20, nodes=100, seed=1)
    syslog = synthetic_syslog(d / "syslog", days=20, nodes=50, seed=1)
    return d, sacct, syslog


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_rates_of_a_slurm_run_with_the_sniffed_form_said(files):
    d, truth, _ = files
    r = run("rates", d / "sacct.txt", "--job", "pretrain", "--format", "json")
    assert r.exit_code == 0, r.output
    assert "recognised from its first lines" in r.stderr
    rows = {row["component"]: row["count"] for row in json.loads(r.stdout)}
    assert rows == {**truth.counts, "Total": sum(truth.counts.values())}


def test_rates_of_a_kernel_log_named_with_log_format(files):
    d, _, truth = files
    r = run("rates", d / "syslog", "--log-format", "xid", "--year", "2024", "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.stderr == ""  # named, so nothing to say
    total = [ln for ln in r.stdout.splitlines() if ln.startswith("Total,")][0]
    assert int(total.split(",")[2]) == sum(truth.counts.values())


def test_interval_fit_and_requirements_take_the_same_options(files):
    d, _, _ = files
    assert run("interval", "--log", d / "sacct.txt", "--job", "pretrain").exit_code == 0
    assert run("fit", d / "sacct.txt", "--job", "pretrain", "--n-boot", "0").exit_code == 0
    r = run("requirements", "--log", d / "syslog", "--year", "2024", "--gpus", "8000", "--n-boot", "200")
    assert r.exit_code == 0, r.output


def test_an_unknown_job_is_one_line_and_exit_2(files):
    d, _, _ = files
    r = run("rates", d / "sacct.txt", "--job", "nope")
    assert r.exit_code == 2 and "no job named or numbered nope" in r.stderr
    assert "Traceback" not in r.output


def test_a_folder_of_kernel_logs_reads_as_the_one_file_they_make(files, tmp_path):
    """The syslog cut into two daily files in a folder: the same counts as the whole file, through --log-format xid."""
    d = files[0]
    syslog = d / "syslog"
    lines = syslog.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "syslog-1").write_bytes(b"".join(lines[:half]))
    (folder / "syslog-2").write_bytes(b"".join(lines[half:]))
    whole = run("rates", syslog, "--log-format", "xid", "--year", 2024, "--format", "json")
    parts = run("rates", folder, "--log-format", "xid", "--year", 2024, "--format", "json")
    assert whole.exit_code == 0 and parts.exit_code == 0, parts.output
    count = lambda r: {row["component"]: row["count"] for row in json.loads(r.stdout)}  # noqa: E731
    assert count(parts) == count(whole) and count(whole)["Total"] > 0
