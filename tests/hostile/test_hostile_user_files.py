"""Nothing the user wrote is deleted: --force, SIGTERM and a dead kernel.

Data loss was the first kind of the second hostile corpus: ``--force`` replaced a
marked report folder wholesale, notes and input logs included. A report's marker now
lists the files relmodel wrote; ``--force`` refuses, naming them, when the folder
holds anything else.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from relmodel.errors import KernelDiedError, ReportError
from relmodel.report.safety import folders as F
from conftest import write_notebook, report_cli

REPO = Path(__file__).resolve().parents[2]


invoke = report_cli


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_marker_lists_every_file_the_report_wrote(tmp_path, tiny):
    out = tmp_path / "r"
    res = invoke("-n", tiny, "--out", out)
    assert res.exit_code == 0, res.output
    listed = F.read_marker(out)["files"]
    assert listed == _files(out)  # hand count: exactly what is in the folder
    assert {"index.html", "summary.json", "tiny.html", "tiny.ipynb"} <= set(listed)
    res = invoke("-n", tiny, "--out", out, "--force")  # only its own files: replaced
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("user_file", ["my-notes.txt", "data/log.csv"])
def test_force_refuses_and_names_the_users_files(tmp_path, tiny, user_file):
    out = tmp_path / "r"
    assert invoke("-n", tiny, "--out", out).exit_code == 0
    before = {f: (out / f).read_bytes() for f in _files(out)}
    mine = out / user_file
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("start,cause\n2024-01-01,gpu\n")
    res = invoke("-n", tiny, "--out", out, "--force")
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert str(mine) in res.output and "did not write" in res.output
    assert mine.read_text() == "start,cause\n2024-01-01,gpu\n"
    assert {f: (out / f).read_bytes() for f in before} == before  # the old report is whole too


def test_input_log_inside_out_is_never_replaced(tmp_path):
    """The log the report reads sits inside --out: the rerun refuses before any kernel."""
    out = tmp_path / "r"
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"relmodel": {**F.marker("complete"),
                                                               "files": ["index.html"]}}))
    (out / "index.html").write_text("old")
    log = out / "data" / "log.csv"
    log.parent.mkdir()
    log.write_text("start,cause\n2024-01-01T00:00:00,gpu\n")
    res = invoke("-n", "01", "-p", f"log={log}", "-p", "start=start", "--out", out, "--force")
    assert res.exit_code == 2, res.output
    assert str(log) in res.output
    assert log.read_text() == "start,cause\n2024-01-01T00:00:00,gpu\n"


def test_a_file_added_while_the_report_runs_is_kept(tmp_path):
    out = tmp_path / "r"
    with F.Staging(out) as staging:
        staging.commit()
    assert F.check_target(out, force=True) == out
    with pytest.raises(ReportError, match="notes.txt"):
        with F.Staging(out, replace=True) as staging:
            (out / "notes.txt").write_text("mine")  # after the check, before the swap
            staging.commit()
    assert (out / "notes.txt").read_text() == "mine"
    assert [p.name for p in tmp_path.iterdir() if ".relmodel-" in p.name] == []


def test_report_without_a_file_list_keeps_what_its_summary_does_not_name(tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    summary = {"relmodel": F.marker("complete"),
               "notebooks": [{"name": "03", "ipynb": "03.ipynb", "html": "03.html"}]}
    (out / "summary.json").write_text(json.dumps(summary))
    pages = {"03.ipynb": b'{"cells": [], "nbformat": 4}', "03.html": b"<!DOCTYPE html><html></html>",
             "index.html": b"<html><body></body></html>", "key-1-ettr.png": b"\x89PNG\r\n\x1a\n..."}
    for name, content in pages.items():
        (out / name).write_bytes(content)
    # a marker without hashes (the older format) proves nothing: a user's index.html or key-*.png in such a
    # folder looks the same as relmodel's, so none of it is counted as relmodel's (fourth hostile corpus)
    assert F.foreign_files(out) == sorted(pages)
    (out / "plan.docx").write_text("mine")
    assert "plan.docx" in F.foreign_files(out)
    with pytest.raises(ReportError, match="did not write"):
        F.check_target(out, force=True)
    assert all((out / name).read_bytes() == content for name, content in pages.items())


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start(tmp_path, tmp, cells, out):
    nb = write_notebook(tmp_path / "slow.ipynb", cells)
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "relmodel", "report", "-q", "--out", str(out), "-n", str(nb)],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def _wait_for_kernel(proc, tmp):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        pids = [int(p.read_text()) for p in tmp.glob("relmodel-kernel-*/pid") if p.read_text()]
        if pids:
            return pids
        time.sleep(0.2)
    raise AssertionError("the kernel did not start")


def test_sigterm_cleans_up_as_ctrl_c_does(tmp_path):
    tmp = Path(tempfile.mkdtemp(prefix="rm-", dir="/tmp"))  # short: ipc socket paths are limited
    out = tmp_path / "r"
    proc = _start(tmp_path, tmp, ["n: int = 1  # a number", "import time\ntime.sleep(120)"], out)
    try:
        pids = _wait_for_kernel(proc, tmp)
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)  # the main process only, as kill(1) does
        _, err = proc.communicate(timeout=30)
        err = err.decode()
        assert proc.returncode == 143, err
        assert "Traceback" not in err and "interrupted" in err
        assert not any(_alive(pid) for pid in pids)
        assert sorted(p.name for p in tmp.iterdir()) == []  # no kernel or work folders
        assert [p.name for p in tmp_path.iterdir() if ".relmodel-" in p.name] == []
        assert F.read_marker(out)["status"] == "interrupted"
        assert F.check_target(out, force=True) == out  # a rerun with --force may replace it
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_killed_kernel_exits_1_naming_the_notebook(tmp_path):
    tmp = Path(tempfile.mkdtemp(prefix="rm-", dir="/tmp"))
    out = tmp_path / "r"
    cells = ["n: int = 1  # a number", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"]
    proc = _start(tmp_path, tmp, cells, out)
    try:
        _, err = proc.communicate(timeout=240)
        err = err.decode()
        assert proc.returncode == 1, err
        assert "slow" in err and "kernel" in err and "died" in err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    assert issubclass(KernelDiedError, ReportError)
