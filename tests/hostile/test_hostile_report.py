"""Hostile input and faults against `relmodel report` (issue 10, items 1, 2, 3, 5 and 6).

Grouped by kind: parameters that try to run code, YAML 1.1 traps, values that used to
fail inside a kernel, --force on folders relmodel did not write, write failures, and
Ctrl-C. Everything but the Ctrl-C and cell-number cases is refused before any kernel
starts (the ``no_kernel`` fixture fails the test if one is started).
"""

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from relmodel.cli import cli
from relmodel.errors import ParameterError, ReportError, ReportWriteError
from relmodel.report.safety import folders as F
from relmodel.report.pipeline import params as P
from relmodel.report.pipeline import run as R
from relmodel.report.pipeline import sweep as S
from conftest import write_notebook, report_cli

REPO = Path(__file__).resolve().parents[2]
EVIL = "IitzdHIoX19pbXBvcnRfXygib3MiKS5zeXN0ZW0oInRvdWNoIFBXTkVEIikpKyI="  # os.system("touch PWNED")


invoke = report_cli


def refused(res, needle, status=2):
    assert res.exit_code == status, res.output
    assert isinstance(res.exception, SystemExit), res.exception  # no traceback
    assert needle in res.output, res.output
    assert "Traceback" not in res.output


OLD_PAGE = "<!DOCTYPE html>\n<html><body>old</body></html>\n"


def marked(folder, status="complete", extra=()):
    """A report folder as relmodel leaves it: each page in ``extra`` and a marker listing them with their SHA-256."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in extra:
        (folder / name).write_text(OLD_PAGE)
    sha = {name: hashlib.sha256(OLD_PAGE.encode()).hexdigest() for name in extra}
    (folder / "summary.json").write_text(json.dumps({"relmodel": {**F.marker(status), "files": list(extra),
                                                                  "sha256": sha}}))
    return folder


# --- parameters that try to run code ------------------------------------------------------------

@pytest.mark.parametrize("yaml_text", [
    f"start: !!binary {EVIL}\n",
    "families: [weibull, !!set {a}]\n",
    "log: !!python/object/apply:os.system ['touch PWNED']\n",
    "cause: !custom x\n",
    "node: &a x\ncause: *a\n",
])
def test_params_file_tags_are_refused_and_nothing_runs(tmp_path, monkeypatch, no_kernel, yaml_text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil.yaml").write_text(yaml_text)
    res = invoke("-n", "01", "--params", "evil.yaml", "--out", "r/x")
    refused(res, "evil.yaml")
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "r").exists()


@pytest.mark.parametrize("assignment", [f"start=!!binary {EVIL}", "sizes=[1, !!binary AAAA]",
                                        "n_gpus=!!int 5", "column=!!str x"])
def test_command_line_tags_are_refused(tmp_path, no_kernel, assignment):
    refused(invoke("-p", assignment, "--out", tmp_path / "x"), "tag")


@pytest.mark.parametrize("value", [b"abc", {1, 2}, {"a": 1}, object(), float("nan"), float("inf")])
def test_only_plain_data_reaches_papermill(value):
    by = {"nb": {"start": P.Parameter("start", None, "", "nb", "str | None"),
                 "n": P.Parameter("n", 1.0, "", "nb", "float")}}
    for name in ("start", "n"):
        with pytest.raises(ParameterError):
            P.validate({name: value}, by)


def test_types_are_strict():
    by = {"nb": {"n_gpus": P.Parameter("n_gpus", 8, "", "nb", "int"),
                 "seed": P.Parameter("seed", 0, "", "nb", "int"),
                 "sizes": P.Parameter("sizes", [1], "", "nb", "list[int]"),
                 "start": P.Parameter("start", None, "", "nb", "str | None")}}
    for bad in ({"n_gpus": True}, {"n_gpus": 8.0}, {"sizes": [1, "a"]}, {"sizes": 4}, {"start": 3},
                {"sizes": [True]}):
        with pytest.raises(ParameterError):
            P.validate(bad, by)
    with pytest.raises(ParameterError) as err:
        P.validate({"seed": None}, by)
    assert "not null" in str(err.value) and "or null" not in str(err.value)
    assert P.validate({"start": None, "seed": 3}, by) == {"nb": {"start": None, "seed": 3}}


# --- YAML 1.1 traps ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("restart=1:00", "1:00"), ("ckpt_cost=1:30", "1:30"), ("n_gpus=010", 10),
    ("target_ettr=1e-3", 0.001), ("x=yes", "yes"), ("x=off", "off"), ("x=0o17", 15),
    ("x=2024-01-02", "2024-01-02"), ("x=~", None), ("x='010'", "010")])
def test_values_are_yaml_1_2(text, expected):
    value = P.parse_assignment(text)[1]
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("assignment", ["restart=1:00", "ckpt_cost=1:30"])
def test_sexagesimal_durations_are_refused_not_read_as_hours(tmp_path, no_kernel, assignment):
    refused(invoke("-n", "03", "-p", assignment, "--out", tmp_path / "x"), "duration")


def test_octal_and_exponent_values_are_read_right():
    plans = R.plan(["03", "04"], {"n_gpus": P.parse_assignment("n_gpus=010")[1],
                                  "target_ettr": P.parse_assignment("target_ettr=1e-3")[1]})
    assert plans[0][1]["n_gpus"] == 10 and plans[1][1]["target_ettr"] == 0.001


# --- values that used to fail inside a kernel -------------------------------------------------------

@pytest.mark.parametrize("nb, assignment, needle", [
    ("03", "ckpt_cost=0", "duration > 0"), ("03", "stall=0", "duration > 0"),
    ("03", "fast_cost=0s", "duration > 0"), ("03", "work=0", "duration > 0"),
    ("03", "persist=-5min", "duration > 0"), ("03", "n_runs=1", "from 2"),
    ("01", "log=no_such_file.csv", "no such file"), ("01", "column=nocol", "cause columns"),
    ("02", "families=[foo]", "known family names"), ("02", "families=[]", "non-empty"),
    ("04", "sizes=[-1]", "element -1"), ("04", "ckpt_costs=[5parsecs]", "element '5parsecs'"),
    ("04", "repair=bogus", "empirical"), ("01", "start=time", "takes no column names"),
    ("03", "restart=-1min", "duration >= 0"), ("03", "n_gpus=10000000000", "100,000,000"),
])
def test_checked_before_any_kernel(tmp_path, no_kernel, nb, assignment, needle):
    out = tmp_path / "x"
    refused(invoke("-n", nb, "-p", assignment, "--out", out), needle)
    assert not out.exists()


@pytest.fixture
def user_log(tmp_path, monkeypatch):
    """A log file in the caller's folder, named by a relative path."""
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    (work / "data" / "log.csv").write_text("time,host,reason\n2024-01-01T00:00,a,gpu\n2024-01-04T00:00,b,gpu\n"
                                           "2024-01-09T00:00,a,net\n")  # a log the pages can read: its file is read
    monkeypatch.chdir(work)
    return work / "data" / "log.csv"


def test_relative_log_resolves_from_the_callers_folder(user_log):
    (plan01,) = R.plan(["01"], {"log": "data/log.csv", "start": "time", "node": "host"})
    assert plan01[1]["log"] == str(user_log.resolve())


@pytest.mark.parametrize("params, needle", [
    ({"log": "data/log.csv", "start": "tme"}, "no such column"),
    ({"log": "data/log.csv", "start": "time", "cause": "why"}, "its columns are time, host, reason"),
    ({"log": "data/log.csv"}, "'start' is needed"),
])
def test_log_columns_are_read_from_the_header(user_log, no_kernel, params, needle):
    with pytest.raises(ParameterError, match=needle):
        R.plan(["01"], params)


def test_same_notebook_twice_runs_once():
    assert len(R.find_notebooks(["05", "05", "05_interactive", str(R.find_notebooks("05")[0])])) == 1


def test_sweep_values_equal_after_normalising_are_refused_before_clearing(tmp_path, no_kernel):
    old = marked(tmp_path / "old", extra=["index.html"])
    res = invoke("-n", "03", "--sweep", "ckpt_cost=1 min,1  min", "--out", old, "--force")
    refused(res, "distinct values")
    assert (old / "index.html").read_text() == OLD_PAGE
    with pytest.raises(ParameterError):
        S.combinations({"n_gpus": [4096, 4096.0]})


def test_sweeps_make_a_cross_product():
    names, combos = S.combinations({"n_gpus": [1, 2], "ckpt_cost": ["30s", "2min"], "seed": [0]})
    assert names == ["n_gpus", "ckpt_cost", "seed"] and len(combos) == 4
    assert {(c["n_gpus"], c["ckpt_cost"]) for c in combos} == {(1, "30s"), (1, "2min"), (2, "30s"), (2, "2min")}


def test_non_utf8_params_file_and_bad_seed_are_named_errors(tmp_path, no_kernel):
    f = tmp_path / "p.yaml"
    f.write_bytes(b"n_gpus: 4096\nlog: caf\xe9.csv\n")
    refused(invoke("--params", f, "--out", tmp_path / "x"), "line 2: not UTF-8")
    res = CliRunner().invoke(cli, ["fit", "--seed", "-1"])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit) and "--seed" in res.output


# --- --force on folders relmodel did not write ------------------------------------------------------

def test_force_never_replaces_the_working_folder(tmp_path, monkeypatch, no_kernel):
    marked(tmp_path, extra=["index.html", "notes.txt"])
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    for out in (".", "..", str(tmp_path / "sub")):
        refused(invoke("-n", "05", "--out", out, "--force"), "working folder")
    assert {p.name for p in tmp_path.iterdir()} == {"summary.json", "index.html", "notes.txt", "sub"}


def test_force_never_replaces_the_home_folder(tmp_path, monkeypatch, no_kernel):
    home = marked(tmp_path / "home", extra=["index.html"])
    monkeypatch.setenv("HOME", str(home))
    refused(invoke("-n", "05", "--out", home, "--force"), "home folder")
    assert (home / "index.html").exists()


def test_force_refuses_a_docs_site_without_marker(tmp_path, no_kernel):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("index.html", "summary.json", "notes.txt"):
        (docs / name).write_text("{}")
    refused(invoke("-n", "05", "--out", docs, "--force"), "holds no report")
    assert len(list(docs.iterdir())) == 3


def test_force_refuses_a_symlink(tmp_path, no_kernel):
    real = marked(tmp_path / "real", extra=["index.html"])
    link = tmp_path / "link"
    link.symlink_to(real)
    refused(invoke("-n", "05", "--out", link, "--force"), "symbolic link")
    assert (real / "index.html").read_text() == OLD_PAGE and link.is_symlink()


def test_force_replaces_an_interrupted_report(tmp_path, tiny):
    old = marked(tmp_path / "r", "interrupted", extra=["stale.html"])
    res = invoke("-n", tiny, "--out", old, "--force")
    assert res.exit_code == 0, res.output
    assert not (old / "stale.html").exists() and F.read_marker(old)["status"] == "complete"
    assert [p.name for p in tmp_path.iterdir() if ".relmodel-" in p.name] == []


def test_two_runs_racing_for_one_folder(tmp_path):
    out = tmp_path / "r"
    first, second = F.Staging(out), F.Staging(out)  # both checked before either started
    with first:
        with pytest.raises(ReportError, match="another run"):
            with second:
                pass
        first.mark("complete")
        first.commit()
    assert F.read_marker(out)["status"] == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"]


def test_staging_left_by_a_killed_run_is_removed(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = tmp_path / ".r.relmodel-new-0badc0de"
    stale.mkdir()
    (stale / "summary.json").write_text(json.dumps({"relmodel": {**F.marker("in progress"), "pid": int(dead)}}))
    live = marked(tmp_path / ".r.relmodel-new-live", "in progress")  # this process: still running
    foreign = tmp_path / ".r.relmodel-new-notours"
    foreign.mkdir()
    with F.Staging(tmp_path / "r") as staging:
        staging.commit()
    assert not stale.exists() and live.exists() and foreign.exists()


def test_out_under_a_file_is_a_named_error(tmp_path, no_kernel):
    (tmp_path / "file").write_text("x")
    refused(invoke("-n", "05", "--out", tmp_path / "file" / "r"), "is a file")
    with pytest.raises(ReportError):
        F.check_target(tmp_path / "file", force=True)


# --- write failures ------------------------------------------------------------------------------

class _FullDisk:
    def __init__(self, *args, **kwargs):
        self.path = args[0]
        Path(self.path).write_bytes(b"")  # the temporary file exists, then the write fails

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path))


def test_disk_full_is_a_named_error_and_leaves_no_files(tmp_path, monkeypatch, no_kernel):
    monkeypatch.setattr(F, "open", _FullDisk, raising=False)
    out = tmp_path / "r"
    res = invoke("-n", "05", "--out", out)
    refused(res, "No space left on device", status=1)
    assert str(out) in res.output
    assert list(tmp_path.iterdir()) == []  # no report, no staging folder, no truncated file


def test_failure_midway_leaves_the_old_report_whole(tmp_path, monkeypatch, tiny):
    old = marked(tmp_path / "r", extra=["index.html", "tiny.html"])
    calls = []

    def full_after_first(path, data):
        calls.append(path)
        if len(calls) > 1:
            raise F.write_error(OSError(errno.ENOSPC, "No space left on device"), path)
        real(path, data)

    real = F.write_bytes
    monkeypatch.setattr(F, "write_bytes", full_after_first)
    monkeypatch.setattr(R, "write_bytes", full_after_first)
    res = invoke("-n", tiny, "--out", old, "--force")
    refused(res, "No space left", status=1)
    assert (old / "index.html").read_text() == OLD_PAGE and (old / "tiny.html").read_text() == OLD_PAGE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "tiny.ipynb"]


def test_read_only_folder_is_a_named_error(tmp_path, monkeypatch, no_kernel):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if os.access(ro, os.W_OK):  # root ignores the mode: simulate what the kernel would say
            real = Path.mkdir

            def mkdir(self, *args, **kwargs):
                if self.parent == ro:
                    raise PermissionError(errno.EACCES, "Permission denied", str(self))
                return real(self, *args, **kwargs)
            monkeypatch.setattr(Path, "mkdir", mkdir)
        res = invoke("-n", "05", "--out", ro / "r")
        refused(res, "Permission denied", status=1)
        assert str(ro / "r") in res.output
        with pytest.raises(ReportWriteError) as err:
            with F.Staging(ro / "r"):
                pass
        assert isinstance(err.value, OSError) and err.value.errno == errno.EACCES
    finally:
        ro.chmod(0o755)
    assert list(ro.iterdir()) == []


# --- messages --------------------------------------------------------------------------------------

def test_failed_cell_number_is_the_notebooks_own(tmp_path):
    bad = write_notebook(tmp_path / "bad.ipynb", ["x: int = 1  # a number", "y = 2", "1 / 0", "z = 3"])
    res = invoke("-n", bad, "-p", "x=5", "--out", tmp_path / "r")
    assert res.exit_code == 1 and "bad: cell 3 of the notebook" in res.output, res.output


# --- Ctrl-C -------------------------------------------------------------------------------------------

def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_ctrl_c_stops_kernels_cleans_up_and_marks_the_report(tmp_path):
    """Two notebooks on two worker processes (the in-process path for one notebook was
    checked the same way by hand; its cleanup is the same function)."""
    n_notebooks = 2
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="rm-", dir="/tmp"))  # short: kernels' ipc socket paths are limited
    try:
        _interrupt(tmp_path, tmp, n_notebooks)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _interrupt(tmp_path, tmp, n_notebooks):
    slow = [write_notebook(tmp_path / f"slow{i}.ipynb", ["n: int = 1  # a number",
                                                          "import time\ntime.sleep(120)"])
            for i in range(n_notebooks)]
    out = tmp_path / "r"
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-m", "relmodel", "report", "-q", "--out", str(out)]
    for nb in slow:
        args += ["-n", str(nb)]
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        pids, deadline = [], time.monotonic() + 120
        while len(pids) < n_notebooks and time.monotonic() < deadline and proc.poll() is None:
            pids = [int(p.read_text()) for p in tmp.glob("relmodel-kernel-*/pid") if p.read_text()]
            time.sleep(0.2)
        assert len(pids) == n_notebooks, "the kernels did not start"
        time.sleep(1.0)  # the kernels are in their sleeping cell
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = err.decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "interrupted" in err
    assert not any(_alive(pid) for pid in pids)
    assert sorted(p.name for p in tmp.iterdir() if p.name.startswith("relmodel-")) == []
    assert F.read_marker(out)["status"] == "interrupted"
    assert F.check_target(out, force=True) == out  # the next --force run may replace it
    assert [p.name for p in tmp_path.iterdir() if ".relmodel-" in p.name] == []
    assert list(tmp.iterdir()) == []  # no connection files either
