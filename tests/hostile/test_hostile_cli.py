"""Hostile input to the rates, fit, interval and requirements commands.

Each case must end in one line on stderr, exit 2 for input errors and 1 for
errors of the machine (permissions, disk, memory), never a traceback.  Most run
in-process (click's runner); a few run ``python -m relmodel`` for real.
"""

import gzip
import lzma
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from relmodel.cli import cli

SINGLE = "start,end\n2024-01-01 00:00,2024-01-01 02:00\n"
LOG = "start,host\n2024-01-01,a\n2024-01-03,b\n2024-01-05,a\n"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line_error(r, code=2):
    """The command failed with ``code`` and said why in one line, without a traceback."""
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("relmodel: error: "), r.stderr
    assert "Traceback" not in r.output
    return lines[0]


@pytest.fixture
def single(tmp_path):
    p = tmp_path / "single.csv"
    p.write_text(SINGLE)
    return p


@pytest.fixture
def log(tmp_path):
    p = tmp_path / "log.csv"
    p.write_text(LOG)
    return p


# ----- a window that cannot be known --------------------------------------------------------

def test_rates_on_a_one_event_log(single):
    msg = one_line_error(run("rates", single, "--start", "start", "--end", "end", "--per", "node"))
    assert "one event" in msg and "--window T0 T1" in msg and "window=" not in msg


def test_interval_from_a_one_event_log(single):
    one_line_error(run("interval", "--log", single, "--start", "start", "--ckpt-cost", "1min"))


def test_requirements_from_a_one_event_log(single):
    one_line_error(run("requirements", "--gpus", 1000, "--log", single, "--start", "start",
                       "--source-gpus", 8))


def test_window_option_makes_a_one_event_log_usable(single):
    r = run("rates", single, "--start", "start", "--end", "end", "--window", "2024-01-01", "2024-01-31",
            "--format", "json")
    assert r.exit_code == 0, r.output
    assert '"mtbf_h": 720.0' in r.output


# ----- values that contradict or make no sense ----------------------------------------------

def test_source_gpus_contradicting_a_dataset():
    msg = one_line_error(run("requirements", "--gpus", 1000, "--source-gpus", 3))
    assert "3" in msg and "16,384" in msg


def test_simulate_zero_runs():
    msg = one_line_error(run("interval", "--mtbf", "3h", "--ckpt-cost", "1min", "--simulate", 0))
    assert "--simulate" in msg


def test_huge_bootstrap_is_capped():
    msg = one_line_error(run("requirements", "--gpus", 1000, "--n-boot", 1_000_000_000))
    assert "--n-boot" in msg and "200,000" in msg


def test_negative_seed_is_a_usage_error():
    r = run("interval", "--mtbf", "3h", "--ckpt-cost", "1min", "--work", "1d", "--simulate", 10, "--seed", -1)
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_plot_to_a_text_file(tmp_path):
    msg = one_line_error(run("fit", "stepfun", "--n-boot", 0, "--plot", tmp_path / "x.txt"))
    assert ".png" in msg


def test_unknown_time_format_directive(log):
    msg = one_line_error(run("rates", log, "--start", "start", "--time-format", "%Q"))
    assert "%Q" in msg and "--time-format" in msg


def test_per_gpu_suggests_an_option_the_command_has(log):
    msg = one_line_error(run("rates", log, "--start", "start", "--node", "host", "--per", "gpu"))
    assert "--gpus-per-node" in msg and "read_log" not in msg
    r = run("rates", log, "--start", "start", "--node", "host", "--per", "gpu", "--gpus-per-node", 8)
    assert r.exit_code == 0, r.output


# ----- files --------------------------------------------------------------------------------

def test_truncated_gzip_log(tmp_path):
    blob = gzip.compress((LOG * 300).encode())
    p = tmp_path / "log.csv.gz"
    p.write_bytes(blob[: len(blob) // 2])
    assert "truncated or corrupt" in one_line_error(run("rates", p, "--start", "start"))


def test_corrupt_xz_log(tmp_path):
    p = tmp_path / "log.csv.xz"
    p.write_bytes(lzma.compress(LOG.encode())[:12] + b"garbage" * 20)
    one_line_error(run("rates", p, "--start", "start"))


def test_missing_log_file(tmp_path):
    assert "no such file" in one_line_error(run("rates", tmp_path / "nope.csv", "--start", "t"))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_log_symlinked_to_dev_zero(tmp_path):
    p = tmp_path / "zero.csv"
    p.symlink_to("/dev/zero")
    assert "not a regular file" in one_line_error(run("rates", p, "--start", "t"))


def test_non_utf8_log(tmp_path):
    """Read as Windows-1252, with one warning naming the line and the byte (was refused)."""
    import warnings
    from relmodel.data import LogWarning
    p = tmp_path / "l.csv"
    p.write_bytes("start,host\n2024-01-01,a\n2024-01-02,caf\xe9\n".encode("latin-1"))
    with warnings.catch_warnings():
        warnings.simplefilter("default", LogWarning)
        r = run("rates", p, "--start", "start", "--node", "host")
    assert r.exit_code == 0, r.output
    assert "line 3: byte 0xe9 is not UTF-8" in r.stderr


# ----- errors of the machine: exit 1 --------------------------------------------------------

def test_permission_error_exits_1(monkeypatch, log):
    from relmodel.cli import rates

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied", str(log))
    monkeypatch.setattr(rates, "load_source", denied)
    assert "Permission denied" in one_line_error(run("rates", log, "--start", "start"), code=1)


def test_full_disk_exits_1(monkeypatch, tmp_path):
    from relmodel.cli import fit

    def full(*a, **k):
        raise OSError(28, "No space left on device", str(tmp_path / "p.png"))
    monkeypatch.setattr(fit, "write_plot", full)
    msg = one_line_error(run("fit", "stepfun", "--what", "uptimes", "--n-boot", 0, "--plot", tmp_path / "p.png"),
                         code=1)  # a chosen kind: no note of the auto rule before the error
    assert "No space left" in msg


def test_out_of_memory_exits_1(monkeypatch):
    from relmodel.scale.targets import decision  # the command imports it when it runs

    def oom(*a, **k):
        raise MemoryError()
    monkeypatch.setattr(decision, "decide", oom)
    assert "out of memory" in one_line_error(run("requirements", "--gpus", 1000), code=1)


# ----- the real process: one line, no traceback ---------------------------------------------

@pytest.mark.parametrize("args", [
    ["rates", "{single}", "--start", "start", "--end", "end", "--per", "node"],
    ["rates", "{tmp}/log.csv.gz", "--start", "start"],
])
def test_real_process_prints_one_line(tmp_path, single, args):
    blob = gzip.compress((LOG * 300).encode())
    (tmp_path / "log.csv.gz").write_bytes(blob[: len(blob) // 2])
    args = [a.replace("{single}", str(single)).replace("{tmp}", str(tmp_path)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "relmodel", *args], capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args, says", [(["interval", "--seed", "-1", "--simulate", "5"], "--seed"),
                                        (["rates", "--per", "bogus"], "--per"),
                                        (["requirements", "--gpus", "many"], "--gpus")])
def test_bad_option_values_are_one_line_with_exit_2(args, says):
    res = subprocess.run([sys.executable, "-m", "relmodel", *args], capture_output=True, text=True, timeout=120)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith("relmodel: error:") and says in lines[0] and "Usage:" not in res.stderr


def test_lanl_recipe_on_a_missing_path_is_a_named_error(tmp_path):
    import relmodel
    with pytest.raises(relmodel.errors.LogFileNotFound, match="no such file"):
        relmodel.datasets.lanl(tmp_path / "missing.csv")
