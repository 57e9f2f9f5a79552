"""Fourth hostile corpus, the rest: closed standard streams, braces in notebook paths, other languages'
kernels, kernels that cannot start or are stopped, and what a report leaves behind (a notebook's child
process, folders of killed reports, IPython's and matplotlib's folders). Mistyped budget variables are
in test_hostile_corpus4.py.

Each case runs what a user would run (the command in a subprocess, or the library call) and
checks the outcome against what the test itself knows to be right.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _env(**extra):
    """The environment a user's shell would give the command (no pytest variables: with them the
    kernels start another way, and a closed stream went unnoticed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {**env, "PYTHONPATH": str(REPO), **extra}


# --- 1. standard error closed when the command starts ---------------------------------------------

def test_closed_stderr_is_the_null_device_and_children_inherit_it():
    # The child lists what its own descriptor 2 is after exec: a closed one would raise.
    code = ("import relmodel, os, subprocess, sys; "
            "r = subprocess.run([sys.executable, '-c', 'import os; print(os.readlink(\"/proc/self/fd/2\"))'], "
            "capture_output=False, stdout=subprocess.PIPE, text=True); print(r.stdout.strip())")
    # is_command() must see the relmodel command: run it as `python -m relmodel`'s module would
    script = f"import sys; sys.orig_argv = [sys.executable, '-m', 'relmodel']; {code}"
    out = subprocess.run(["bash", "-c", f'exec "$0" -c "$1" 2>&-', sys.executable, script],
                         stdout=subprocess.PIPE, text=True, env=_env(), timeout=120)
    assert out.returncode == 0
    assert out.stdout.strip() == os.devnull


def test_a_report_started_with_stderr_closed_renders_its_page(tmp_path):
    out = tmp_path / "rep"
    cmd = f'exec "$0" -m relmodel report -n 01 --out "$1" -q 2>&-'
    res = subprocess.run(["bash", "-c", cmd, sys.executable, str(out)], stdout=subprocess.PIPE,
                         text=True, env=_env(), cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete", summary.get("failed")
    assert not summary.get("failed")
    html = (out / "01_log_explorer.html").read_text()
    assert "died" not in html and "Traceback" not in html


# --- 2. braces in a user notebook's name or the report folder: papermill formats paths -------------

def _user_notebook(path, code="print(n_gpus * 2)", kernelspec=None):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = kernelspec or {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell("n_gpus: int = 16384  # GPUs")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Tiny page"), params, nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, path)
    return path


def test_a_notebook_and_folder_named_with_braces_render(tmp_path):
    from click.testing import CliRunner

    from relmodel.cli import cli

    nb = _user_notebook(tmp_path / "a{x}b.ipynb")
    out = tmp_path / "r{n_gpus}"
    res = CliRunner().invoke(cli, ["report", "-q", "-n", str(nb), "-p", "n_gpus=4096", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in out.iterdir()) == ["a{x}b.html", "a{x}b.ipynb", "index.html", "summary.json"]
    assert "8192" in (out / "a{x}b.html").read_text()  # 4096 * 2: the parameter reached the page
    assert not (tmp_path / "r4096").exists()


# --- 4. a notebook for another language's kernel is refused before any kernel starts ---------------

R_SPEC = {"name": "ir", "display_name": "R", "language": "R"}


def test_an_r_notebook_is_refused_naming_its_kernel(tmp_path):
    from click.testing import CliRunner

    from relmodel.cli import cli
    from relmodel.errors import NotebookKernelError
    from relmodel.report import render

    nb = _user_notebook(tmp_path / "r_page.ipynb", code="x <- 1\nprint(x)", kernelspec=R_SPEC)
    out = tmp_path / "rep"
    with pytest.raises(NotebookKernelError, match="'R' kernel"):
        render(notebooks=[str(nb)], out=str(out))
    res = CliRunner().invoke(cli, ["report", "-q", "-n", str(nb), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "'R' kernel" in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_a_notebook_naming_its_language_only_in_language_info_is_refused(tmp_path):
    import nbformat

    from relmodel.errors import NotebookKernelError
    from relmodel.report.parameters.notebook_json import read_cells

    path = _user_notebook(tmp_path / "j.ipynb", kernelspec={"name": "julia-1.10", "display_name": "Julia 1.10"})
    nb = nbformat.read(path, as_version=4)
    nb.metadata["language_info"] = {"name": "julia"}
    nbformat.write(nb, path)
    with pytest.raises(NotebookKernelError, match="Julia 1.10"):
        read_cells(path)
    assert read_cells(_user_notebook(tmp_path / "py.ipynb")).cells  # a Python notebook still reads


# --- 3. kernels that cannot start (as while a report is being stopped) write nowhere on the terminal --

def test_a_kernel_that_cannot_start_says_why_in_the_error_not_as_a_traceback(tmp_path):
    # A module that shadows ipykernel's launcher makes every kernel fail at start, as a kernel whose
    # folders were removed by an interrupt does: what it writes must not reach the terminal.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "ipykernel_launcher.py").write_text('raise RuntimeError("boom: this kernel cannot start")\n')
    env = _env(PYTHONPATH=f"{REPO}{os.pathsep}{shadow}")
    res = subprocess.run([sys.executable, "-m", "relmodel", "report", "-q", "-n", "01", "--out", str(tmp_path / "r")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert res.returncode != 0
    assert "Traceback" not in res.stderr and "File \"" not in res.stderr
    assert "RuntimeError: boom: this kernel cannot start" in res.stderr  # why, said once, in the error line
    assert "out of memory" not in res.stderr


def test_a_ctrl_c_python_drops_in_a_callback_still_stops_the_report(capfd):
    import signal
    import weakref

    from relmodel.report.kernels.executors import run_tasks
    from relmodel.report.kernels.interrupts import terminate_as_interrupt

    class Thing:
        pass

    def task(_):
        thing = Thing()
        ref = weakref.ref(thing, lambda _: signal.raise_signal(signal.SIGINT))  # noqa: F841
        del thing  # the callback's KeyboardInterrupt is printed as "Exception ignored" and dropped
        return {"name": "page"}

    with terminate_as_interrupt():
        with pytest.raises(KeyboardInterrupt):
            run_tasks([("page",)], task, run_id="dropped0ctrlc")
    assert "Exception ignored" not in capfd.readouterr().err  # no traceback around the one line


# --- 5. leftovers: a notebook's child process, stale folders, IPython and matplotlib folders -------

def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended (its new parent has not reaped it yet)


@pytest.mark.parametrize("pool", ["1", "0"])
def test_a_process_a_notebook_started_ends_with_the_report(tmp_path, pool):
    import time

    nb = _user_notebook(tmp_path / "child.ipynb",
                        code="import subprocess\np = subprocess.Popen(['sleep', '600'])\nprint('child', p.pid)")
    out = tmp_path / "r"
    res = subprocess.run([sys.executable, "-m", "relmodel", "report", "-q", "-n", str(nb), "--out", str(out)],
                         capture_output=True, text=True, env=_env(RELMODEL_KERNEL_POOL=pool), timeout=600)
    assert res.returncode == 0, res.stderr
    executed = json.loads((out / "child.ipynb").read_text())
    text = "".join("".join(o.get("text", "")) for c in executed["cells"] for o in c.get("outputs", []))
    pid = int(text.split("child")[1].split()[0])
    end = time.monotonic() + 20
    while _alive(pid) and time.monotonic() < end:
        time.sleep(0.2)
    try:
        assert not _alive(pid), "the notebook's child outlived the report"
    finally:
        if _alive(pid):
            os.kill(pid, 9)


def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_only_relmodel_folders_of_ended_processes_are_swept(tmp_path):
    from relmodel.report.kernels.stale import OWNER_FILE, process_start, sweep_stale

    def folder(name, record=None, raw=None):
        path = tmp_path / name
        path.mkdir()
        (path / "user-notes.txt").write_text("kept unless the folder is stale")
        if record is not None or raw is not None:
            (path / OWNER_FILE).write_text(raw if raw is not None else json.dumps(record))
        return path

    dead = _dead_pid()
    me = os.getppid()  # alive (the shell or runner that started pytest)
    stale = folder("relmodel-work-aaaaaaaaaaaa-x1", {"what": "relmodel temporary folder", "pid": dead, "started": 1})
    stale_kernel = folder("relmodel-kernel-aaaaaaaaaaaa-bbbbbbbbbbbbbbbb",
                          {"what": "relmodel temporary folder", "pid": dead, "started": None})
    reused = folder("relmodel-work-aaaaaaaaaaaa-x2",  # the id lives on in another program: another start time
                    {"what": "relmodel temporary folder", "pid": me, "started": (process_start(me) or 0) + 1})
    kept = {
        "alive": folder("relmodel-work-aaaaaaaaaaaa-x3",
                        {"what": "relmodel temporary folder", "pid": me, "started": process_start(me)}),
        "no record": folder("relmodel-work-aaaaaaaaaaaa-x4"),
        "someone else's record": folder("relmodel-work-aaaaaaaaaaaa-x5", {"what": "mine", "pid": dead}),
        "not JSON": folder("relmodel-kernel-aaaaaaaaaaaa-x6", raw="{pid: 1"),
        "pid not a number": folder("relmodel-work-aaaaaaaaaaaa-x7", {"what": "relmodel temporary folder",
                                                                     "pid": "123"}),
        "other prefix": folder("relmodel-zygote-x8", {"what": "relmodel temporary folder", "pid": dead}),
    }
    link = tmp_path / "relmodel-work-aaaaaaaaaaaa-link"
    link.symlink_to(kept["alive"])
    removed = sweep_stale([tmp_path])
    assert sorted(removed) == sorted([stale, stale_kernel, reused])
    assert not stale.exists() and not stale_kernel.exists() and not reused.exists()
    for why, path in kept.items():
        assert (path / "user-notes.txt").exists(), why
    assert link.is_symlink()


def test_folders_of_a_killed_report_are_swept_by_the_next(tmp_path):
    import signal
    import tempfile
    import time

    tmp = Path(tempfile.mkdtemp(prefix="rmT", dir="/tmp"))  # short: the kernel's sockets fit under it
    try:
        env = _env(TMPDIR=str(tmp))
        nb = _user_notebook(tmp_path / "slow.ipynb", code="import time\ntime.sleep(8)")  # killed as soon as its folders exist
        proc = subprocess.Popen([sys.executable, "-m", "relmodel", "report", "-q", "-n", str(nb), "--out",
                                 str(tmp_path / "r")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 300
        while time.monotonic() < end and not (list(tmp.glob("relmodel-work-*/slow.ipynb"))
                                              and list(tmp.glob("relmodel-kernel-*/relmodel-owner.json"))):
            time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        left = sorted(p.name for p in tmp.glob("relmodel-*-*") if not p.name.startswith("relmodel-zygote"))
        assert any(n.startswith("relmodel-work-") for n in left) and any(n.startswith("relmodel-kernel-")
                                                                         for n in left), left
        time.sleep(2)  # the zygote and kernel end with their owner
        code = "from relmodel.report.kernels.stale import sweep_stale; print(len(sweep_stale()))"
        swept = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert swept.stdout.strip() == str(len(left)), (swept.stdout, swept.stderr, left)
        assert not list(tmp.glob("relmodel-work-*")) and not list(tmp.glob("relmodel-kernel-*"))
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_home_that_cannot_be_written_leaves_nothing_in_the_temporary_folder(tmp_path):
    import shutil
    import tempfile

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the home folder's parent should be")
    tmp = Path(tempfile.mkdtemp(prefix="rmH", dir="/tmp"))
    try:
        env = _env(HOME=str(blocker / "home"), TMPDIR=str(tmp))
        for name in ("IPYTHONDIR", "MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            env.pop(name, None)
        out = tmp_path / "r"
        res = subprocess.run([sys.executable, "-m", "relmodel", "report", "-q", "-n", "01", "--out", str(out)],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
        assert res.returncode == 0, res.stderr
        assert json.loads((out / "summary.json").read_text())["status"] == "complete"
        assert "Matplotlib created a temporary" not in res.stderr
        assert sorted(p.name for p in tmp.iterdir()) == []  # no matplotlib-*, no IPython tmp*, nothing of ours
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_page_of_a_stopped_run_says_it_was_interrupted_not_killed(tmp_path):
    from relmodel.report.kernels.executors import new_run_id
    from relmodel.report.kernels.kernel import stop_run
    from relmodel.report.pipeline.execute import execute
    from relmodel.report.pipeline.plan import make_tasks

    run_id = new_run_id()
    task = make_tasks([(_user_notebook(tmp_path / "page.ipynb"), {})], run_id)[0]
    stop_run(run_id)  # what Ctrl-C, SIGTERM or SIGHUP do first: no kernel of the run starts any more
    result = execute(task)
    assert result["error"] == "page: stopped: the report was interrupted"
    assert not result.get("kernel_died")


@pytest.mark.parametrize("signame, wait_s", [("SIGINT", 0.0), ("SIGHUP", 2.0)])
def test_a_report_stopped_while_its_kernels_start_prints_one_line(tmp_path, signame, wait_s):
    """The signal comes once the first kernel's folder is made, and later while the zygote that forks the
    kernels still imports: kernels then start after their folders were removed, and cannot."""
    import shutil
    import signal
    import tempfile
    import time

    signum = getattr(signal, signame)
    tmp = Path(tempfile.mkdtemp(prefix="rmS", dir="/tmp"))
    try:
        proc = subprocess.Popen([sys.executable, "-m", "relmodel", "report", "-q", "-n", "01", "-n", "02", "-n", "03",
                                 "--out", str(tmp_path / "r")], env=_env(TMPDIR=str(tmp)), cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 300
        while time.monotonic() < end and proc.poll() is None and not list(tmp.glob("relmodel-kernel-*")):
            time.sleep(0.05)
        time.sleep(wait_s)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 128 + signum, err
        assert "Traceback" not in err and "Error" not in err, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("relmodel: interrupted"), err
        summary = tmp_path / "r" / "summary.json"
        if summary.exists():  # the partial report says it was interrupted, and blames no kernel
            text = summary.read_text()
            assert "out of memory" not in text and '"interrupted"' in text
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
