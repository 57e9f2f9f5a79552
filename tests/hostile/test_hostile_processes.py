"""The report's processes under hostile conditions (third hostile corpus: hangs, leaks, signals).

Each test runs ``python -m relmodel report`` in a subprocess with a temporary folder
(TMPDIR) of its own, on a tiny notebook, and watches the processes themselves through
``/proc``: a process belongs to the report when its environment holds that TMPDIR (the
zygote and every kernel inherit it). Nothing here asserts a time: the bounds are
generous limits on waiting, for a loaded machine.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import write_notebook

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

REPO = Path(__file__).resolve().parents[2]
#: Generous limit on any one wait, in seconds.
WAIT_S = 180

#: A notebook that marks a file named after ``n`` in folder ``mark`` and then sleeps (when ``mark`` is given).
CELLS = ["n: int = 1  # a number\nmark: str = ''  # folder for a file that says the cell runs",
         "import pathlib, time\nfrom relmodel.report import record\nrecord('twice', 2 * n)\n"
         "if mark:\n    pathlib.Path(mark, str(n)).touch()\n    time.sleep(600)"]


def _read(path):
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def holders(tmpdir):
    """Pids of live processes whose environment names ``tmpdir`` (the report's processes)."""
    needle = f"TMPDIR={tmpdir}\0".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        if int(entry.name) != os.getpid() and needle in _read(entry / "environ"):
            state = _read(entry / "stat").rsplit(b")", 1)[-1].split()[:1]
            if state and state[0] not in (b"Z", b"X"):
                found.append(int(entry.name))
    return found


def wait_gone(tmpdir, limit=60):
    """Wait until no process of the report runs; return those still running after ``limit`` s (then killed)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and holders(tmpdir):
        time.sleep(0.2)
    left = holders(tmpdir)
    for pid in left:  # the test cleans up after itself whatever happened
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def wait_for(check, proc, what):
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end and proc.poll() is None:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"never saw {what} (exit {proc.poll()})")


class Report:
    """``relmodel report -j 2`` of a three-value sweep of :data:`CELLS` in a subprocess with its own TMPDIR."""

    def __init__(self, root, tmpdir, jobs="2", marks=True, env=None, sweep="n=1,2,3"):
        self.root, self.tmpdir = Path(root), Path(tmpdir)
        self.tmpdir.mkdir(parents=True, exist_ok=True)
        self.marks = self.root / "marks"
        self.marks.mkdir(exist_ok=True)
        nb = write_notebook(self.root / "tiny.ipynb", CELLS)
        argv = [sys.executable, "-m", "relmodel", "report", "-q", "-n", str(nb), "--out", str(self.root / "out")]
        if jobs:
            argv += ["-j", jobs]
        if sweep:
            argv += ["--sweep", sweep]
        if marks:
            argv += ["-p", f"mark={self.marks}"]
        full_env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(self.tmpdir), **(env or {})}
        self.proc = subprocess.Popen(argv, env=full_env, cwd=self.root, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)

    def children(self):
        """Pids of the processes descending from the command (read from /proc)."""
        parents = {}
        for entry in Path("/proc").glob("[0-9]*"):
            fields = _read(entry / "stat").rsplit(b")", 1)[-1].split()
            if len(fields) > 1:
                parents[int(entry.name)] = int(fields[1])
        found, grew = {self.proc.pid}, True
        while grew:
            more = {p for p, q in parents.items() if q in found and p not in found}
            found |= more
            grew = bool(more)
        return found - {self.proc.pid}

    def running(self, count=2):
        return len(list(self.marks.iterdir())) >= count

    def zygote_up(self):
        return any(b"zygote_main" in _read(f"/proc/{pid}/cmdline") for pid in self.children())

    def importing(self):
        return b"numpy/" in _read(f"/proc/{self.proc.pid}/maps")

    def finish(self, timeout=WAIT_S):
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("relmodel report did not end") from None
        return self.proc.returncode, out, err

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.proc.kill()
        self.proc.communicate()
        wait_gone(self.tmpdir, limit=10)


@pytest.fixture
def short_tmp():
    """A TMPDIR of the test's own, short (as most are): /tmp/t-XXXXXXXX, removed afterwards."""
    import shutil

    folder = Path(tempfile.mkdtemp(prefix="t-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# ---- a long TMPDIR ----------------------------------------------------------------------------


def test_a_report_with_a_long_tmpdir_renders_and_leaves_nothing(tmp_path):
    """A TMPDIR of 150 characters puts a kernel's socket path past the 107 bytes a Unix socket holds."""
    runtime = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))  # short: where the sockets may go instead
    long_tmp = tmp_path / ("t" * 150)
    try:
        report = Report(tmp_path, long_tmp, marks=False, env={"XDG_RUNTIME_DIR": str(runtime)})
        status, out, err = report.finish()
        assert status == 0, err
        assert "report written" in out
        assert list(long_tmp.iterdir()) == [] and list(runtime.iterdir()) == []
        assert wait_gone(long_tmp) == []
    finally:
        if "report" in locals() and report.proc.poll() is None:
            report.kill()
        import shutil
        shutil.rmtree(runtime, ignore_errors=True)


def test_kernels_talk_tcp_when_no_folder_is_short_enough(monkeypatch, tmp_path):
    import asyncio

    from relmodel.report.kernels import sockets
    from relmodel.report.kernels.kernel import KernelManager

    monkeypatch.setattr(sockets, "socket_root", lambda tail: None)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    async def run():
        manager = KernelManager()
        await manager.start_kernel()
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=WAIT_S)
            printed = []
            reply = await client.execute_interactive(
                "print(6 * 7)", timeout=WAIT_S,
                output_hook=lambda m: printed.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else 0)
            return manager.transport, manager.folder, reply["content"]["status"], "".join(printed)
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)

    transport, folder, status, printed = asyncio.run(run())
    assert (transport, status, printed.strip()) == ("tcp", "ok", "42")
    assert Path(folder).parent == tmp_path and not Path(folder).exists()  # its folder went with it


# ---- worker counts -----------------------------------------------------------------------------


def test_jobs_far_above_the_machine_are_clamped_and_said_once(tmp_path, short_tmp):
    report = Report(tmp_path, short_tmp, jobs="100000", marks=False)
    # the zygote, and per clamped worker a running kernel and the warm one kept for its next notebook, with room
    most, limit = 0, 2 + 2 * min(3, len(os.sched_getaffinity(0)))
    try:
        while report.proc.poll() is None:
            most = max(most, len(report.children()))
            if most > 10 * limit:  # what a fork per asked worker does: stopped before it swamps the machine
                break
            time.sleep(0.05)
        if report.proc.poll() is None:
            report.kill()
            raise AssertionError(f"{most} processes started for -j 100000")
        status, out, err = report.finish()
    finally:
        if report.proc.poll() is None:
            report.kill()
    assert status == 0, err
    notes = [line for line in err.splitlines() if line.strip()]
    assert len(notes) == 1 and notes[0].startswith("relmodel: note: --jobs 100,000 is more than")
    assert most <= limit
    assert wait_gone(report.tmpdir) == [] and list(report.tmpdir.iterdir()) == []


@pytest.mark.parametrize("jobs", [0, -3, 2.5, True, "2"])
def test_render_refuses_a_worker_count_that_is_not_one_or_more(jobs, tmp_path, no_kernel):
    from relmodel.errors import ParameterError
    from relmodel.report import render

    nb = write_notebook(tmp_path / "tiny.ipynb", CELLS)
    with pytest.raises(ParameterError, match="jobs must be a whole number of workers from 1"):
        render(notebooks=[nb], out=tmp_path / "never", jobs=jobs)
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("jobs", ["0", "-2", "many"])
def test_cli_refuses_a_worker_count_that_is_not_one_or_more(jobs, tmp_path, no_kernel):
    from conftest import report_cli

    res = report_cli("-j", jobs, "--out", tmp_path / "never")
    assert res.exit_code == 2 and "--jobs" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "never").exists()


def test_worker_counts_follow_cores_and_memory(monkeypatch):
    from relmodel.report.kernels import capacity

    monkeypatch.setattr(capacity, "cores", lambda: 64)
    monkeypatch.setattr(capacity, "available_memory", lambda: 10**9)  # 1 GB: two workers of 400 MB
    assert capacity.usable_workers(100).count == 2 and capacity.usable_workers(1).count == 1
    assert capacity.usable_workers().count == 2
    monkeypatch.setattr(capacity, "available_memory", lambda: 0)
    assert capacity.usable_workers(8).count == 1  # never none
    monkeypatch.setattr(capacity, "available_memory", lambda: None)
    assert capacity.usable_workers(100).count == 64 and capacity.usable_workers(100).clamped
    assert not capacity.usable_workers(64).clamped


def test_a_local_dask_cluster_is_clamped_too(monkeypatch):
    pytest.importorskip("distributed")
    import distributed

    from relmodel.report.kernels import capacity
    from relmodel.report.kernels.executors import dask_client

    asked = {}

    class Cluster:
        def __init__(self, n_workers, **kwargs):
            asked["n_workers"] = n_workers
            raise OSError("not started in this test")

    monkeypatch.setattr(distributed, "LocalCluster", Cluster)
    monkeypatch.setattr(capacity, "cores", lambda: 64)
    monkeypatch.setattr(capacity, "available_memory", lambda: 2 * 10**9)
    with pytest.raises(Exception):
        with dask_client():
            pass
    assert asked == {"n_workers": 5}  # 2 GB at 400 MB a worker, not 64


# ---- SIGKILL -----------------------------------------------------------------------------------


def test_after_sigkill_no_kernel_or_zygote_stays_holding_the_pipes(tmp_path, short_tmp):
    report = Report(tmp_path, short_tmp)
    try:
        wait_for(report.running, report.proc, "two notebooks running")
        report.proc.kill()  # SIGKILL to relmodel alone: it cleans nothing up
        try:
            report.proc.communicate(timeout=60)  # ends only once no process holds its stdout and stderr
        except subprocess.TimeoutExpired:
            raise AssertionError(f"processes still hold the pipes: {holders(report.tmpdir)}") from None
        assert wait_gone(report.tmpdir) == []
    finally:
        if report.proc.poll() is None or holders(report.tmpdir):
            report.kill()


# ---- SIGINT, SIGTERM, SIGHUP -------------------------------------------------------------------

#: Each signal: how it is sent (a terminal's Ctrl-C and hang-up reach the whole foreground group,
#: ``kill`` the process), the exit status expected.
SIGNALS = {"INT": (signal.SIGINT, True, 130), "TERM": (signal.SIGTERM, False, 143), "HUP": (signal.SIGHUP, True, 129)}
#: When the signal is sent: while relmodel imports, once its zygote runs (importing), once two notebooks run.
POINTS = {"importing": Report.importing, "zygote": Report.zygote_up, "running": Report.running}


@pytest.mark.parametrize("point", list(POINTS))
@pytest.mark.parametrize("name", list(SIGNALS))
def test_a_signal_leaves_nothing_behind(tmp_path, short_tmp, name, point):
    signum, group, expected = SIGNALS[name]
    report = Report(tmp_path, short_tmp)
    try:
        wait_for(lambda: POINTS[point](report), report.proc, point)
        if group:
            os.killpg(report.proc.pid, signum)
        else:
            report.proc.send_signal(signum)
        status, out, err = report.finish()
        lines = [line for line in err.splitlines() if line.strip()]
        print(f"SIG{name} while {point}: exit {status}; stderr {err!r}")
        assert status == expected, err
        assert len(lines) == 1 and lines[0].startswith("relmodel: "), err
        assert "Traceback" not in err and "leaked" not in err
        assert wait_gone(report.tmpdir) == []  # no zygote, no kernel
        assert sorted(p.name for p in report.tmpdir.iterdir()) == []  # nothing relmodel made in TMPDIR
    finally:
        if report.proc.poll() is None or holders(report.tmpdir):
            report.kill()


def test_sigterm_during_a_one_notebook_report_leaves_nothing_behind(tmp_path, short_tmp):
    """One notebook runs in the command's own thread, not on a worker thread."""
    report = Report(tmp_path, short_tmp, jobs=None, sweep=None)
    try:
        wait_for(lambda: report.running(1), report.proc, "the notebook running")
        report.proc.send_signal(signal.SIGTERM)
        status, out, err = report.finish()
        assert status == 143, err
        assert [line for line in err.splitlines() if line.strip()] == [err.strip()] and "Traceback" not in err
        assert wait_gone(report.tmpdir) == [] and list(report.tmpdir.iterdir()) == []
    finally:
        if report.proc.poll() is None or holders(report.tmpdir):
            report.kill()


def test_a_process_pool_starts_with_a_long_tmpdir(tmp_path):
    """The fork server's socket (``pymp-*/listener-*``) is also a Unix socket path."""
    runtime = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))
    long_tmp = tmp_path / ("t" * 150)
    long_tmp.mkdir()
    code = ("from relmodel.report.kernels.executors import process_pool\n"
            "with process_pool(1) as pool:\n    print(pool.submit(abs, -3).result(timeout=120))")
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(long_tmp), "XDG_RUNTIME_DIR": str(runtime)}
    try:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=WAIT_S)
        assert done.returncode == 0 and done.stdout.strip() == "3", done.stderr[-2000:]
        assert list(long_tmp.iterdir()) == [] and list(runtime.iterdir()) == []
    finally:
        wait_gone(long_tmp, limit=10)
        import shutil
        shutil.rmtree(runtime, ignore_errors=True)
