"""Kernels forked from a zygote behave as kernels jupyter_client launches (relmodel.report.kernels.zygote).

Each check compares a forked kernel with one started as a plain child process, or watches
the processes themselves (``/proc``), never the zygote's own account of them.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from relmodel.report.kernels import zygote
from relmodel.report.kernels.kernel import KernelManager

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kernels are forked on Linux only")

#: What a kernel reports of itself after the warm-up a pooled kernel runs.
STATE = r'''
__import__('relmodel.report.kernels.kernel_state', fromlist=['warm_kernel']).warm_kernel()
import json, os, signal, sys, warnings, matplotlib
from IPython import get_ipython
_ip = get_ipython()
print(json.dumps({
    "path": sys.path, "filters": sorted(map(str, warnings.filters)), "backend": matplotlib.get_backend(),
    "rc": {k: str(v) for k, v in matplotlib.rcParams.items()}, "interactive": matplotlib.is_interactive(),
    "env": sorted(k for k in os.environ if k != "RELMODEL_KERNEL_ZYGOTE"),
    "events": {k: sorted(getattr(f, "__qualname__", str(f)) for f in v) for k, v in _ip.events.callbacks.items()},
    "leader": os.getsid(0) == os.getpid() == os.getpgid(0), "cwd": os.getcwd(),
    "sigint": str(signal.getsignal(signal.SIGINT)), "sigchld": str(signal.getsignal(signal.SIGCHLD))}))
'''


def _gone(pid):
    """True when process ``pid`` no longer runs (ended, or a zombie no one has reaped)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return fields[0] in ("Z", "X")


async def _run(manager, code, timeout=120):
    """Execute ``code`` in the manager's kernel; (reply content, text printed)."""
    client = manager.client()
    client.start_channels()
    printed = []
    try:
        await client.wait_for_ready(timeout=timeout)
        reply = await client.execute_interactive(
            code, timeout=timeout,
            output_hook=lambda m: printed.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None)
        return reply["content"], "".join(printed)
    finally:
        client.stop_channels()


async def _state(cwd):
    manager = KernelManager()
    await manager.start_kernel(cwd=str(cwd))
    try:
        content, text = await _run(manager, STATE)
        assert content["status"] == "ok", content
        return type(manager.provisioner.process).__name__, json.loads(text)
    finally:
        await manager.shutdown_kernel(now=True)


def test_a_forked_kernel_is_set_up_as_a_launched_one(tmp_path, monkeypatch):
    zygote.stop_zygote()  # a zygote of this test's environment
    kind, forked = asyncio.run(_state(tmp_path))
    monkeypatch.setenv(zygote.ENV_SWITCH, "0")
    plain_kind, launched = asyncio.run(_state(tmp_path))
    assert (kind, plain_kind) == ("ZygoteProcess", "Popen")
    assert forked.keys() == launched.keys()
    for key in launched:
        assert forked[key] == launched[key], key
    assert forked["leader"] and forked["cwd"] == str(tmp_path) and forked["backend"].endswith("backend_inline")


async def _interrupt_then_kill():
    manager = KernelManager()
    await manager.start_kernel()
    process = manager.provisioner.process
    client = manager.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=120)
        msg_id = client.execute("import time; time.sleep(120)")
        await asyncio.sleep(1.0)
        start = time.monotonic()
        await manager.interrupt_kernel()
        while True:
            reply = await client.shell_channel.get_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        interrupted = time.monotonic() - start, reply["content"]
        pid = process.pid
        await manager.shutdown_kernel(now=True)
        return type(process).__name__, interrupted, pid, process.returncode
    finally:
        client.stop_channels()


def test_an_interrupt_and_a_kill_reach_a_forked_kernel():
    kind, (seconds, content), pid, code = asyncio.run(_interrupt_then_kill())
    assert kind == "ZygoteProcess"
    assert content["status"] == "error" and content["ename"] == "KeyboardInterrupt"
    assert seconds < 30  # not the two minutes of the cell
    assert code == -signal.SIGKILL  # the exit code a child process killed by SIGKILL has
    assert _gone(pid)


async def _draw():
    manager = KernelManager()
    await manager.start_kernel()
    try:
        content, text = await _run(manager, "import random, numpy; print(random.random(), numpy.random.rand())")
        return text.split()
    finally:
        await manager.shutdown_kernel(now=True)


def test_each_forked_kernel_draws_its_own_random_numbers():
    first, second = asyncio.run(_draw()), asyncio.run(_draw())
    assert len(first) == len(second) == 2
    assert first[0] != second[0] and first[1] != second[1]


def test_a_kernel_with_another_environment_imports_afresh(monkeypatch):
    asyncio.run(_draw())  # this process's zygote exists, with this environment
    monkeypatch.setenv("RELMODEL_ZYGOTE_TEST_MARK", "42")

    async def look():
        manager = KernelManager()
        await manager.start_kernel()
        try:
            content, text = await _run(manager, "import os, sys; print('numpy' in sys.modules, "
                                                "os.environ.get('RELMODEL_ZYGOTE_TEST_MARK'))")
            return type(manager.provisioner.process).__name__, text.split()
        finally:
            await manager.shutdown_kernel(now=True)

    kind, (numpy_loaded, mark) = asyncio.run(look())
    assert kind == "ZygoteProcess" and mark == "42"
    assert numpy_loaded == "False"  # a fresh interpreter, not the zygote's imports


DRIVER = textwrap.dedent("""
    import asyncio, json, os, sys, time
    sys.path.insert(0, {root!r})
    from relmodel.report.kernels.kernel import KernelManager
    from relmodel.report.kernels import zygote

    async def main():
        manager = KernelManager()
        await manager.start_kernel()
        client = manager.client()
        client.start_channels()
        await client.wait_for_ready(timeout=120)
        code = "import os; _ = os.write(1, b'kernel fd 1\\\\n') + os.write(2, b'kernel fd 2\\\\n')"
        await client.execute_interactive(code, timeout=120, output_hook=lambda msg: None)
        process = manager.provisioner.process
        end = time.monotonic() + 20
        while time.monotonic() < end and not all(w in manager.start_log() for w in ("fd 1", "fd 2")):
            time.sleep(0.1)
        print(json.dumps({{"kind": type(process).__name__, "kernel": process.pid,
                          "zygote": getattr(zygote._ZYGOTE, "pid", None), "log": manager.start_log()}}), flush=True)
        if sys.argv[1] == "hang":
            time.sleep(120)
        client.stop_channels()
        await manager.shutdown_kernel(now=True)

    asyncio.run(main())
""")


def _driver(tmp_path, mode, env=None):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER.format(root=str(Path(__file__).resolve().parents[3])))
    return subprocess.Popen([sys.executable, str(script), mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)


def test_the_zygote_and_its_kernels_end_with_the_process_that_started_them(tmp_path):
    driver = _driver(tmp_path, "hang")
    try:
        line = driver.stdout.readline()
        while line and not line.startswith("{"):  # the kernel's own line comes first
            line = driver.stdout.readline()
        seen = json.loads(line)
        assert seen["kind"] == "ZygoteProcess" and not _gone(seen["kernel"]) and not _gone(seen["zygote"])
    finally:
        driver.kill()
        driver.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (_gone(seen["kernel"]) and _gone(seen["zygote"])):
        time.sleep(0.2)
    assert _gone(seen["kernel"]) and _gone(seen["zygote"])


def test_a_forked_kernel_writes_to_its_own_log_not_its_starters_terminal(tmp_path):
    driver = _driver(tmp_path, "once")
    out, err = driver.communicate(timeout=300)
    assert driver.returncode == 0, err
    seen = json.loads(out.splitlines()[-1])
    assert seen["kind"] == "ZygoteProcess"
    assert "kernel fd 1" in seen["log"] and "kernel fd 2" in seen["log"]  # kernel.log in its folder
    assert "kernel fd" not in out.replace(seen["log"], "").replace(json.dumps(seen["log"]), "")
    assert "kernel fd" not in err


def test_a_zygote_that_cannot_import_leaves_kernels_launched_as_before(tmp_path):
    broken = tmp_path / "shadow" / "scipy"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('a broken scipy')\n")
    env = dict(os.environ, PYTHONPATH=str(broken.parent))
    env.pop(zygote.ENV_SWITCH, None)
    driver = _driver(tmp_path, "once", env=env)
    out, err = driver.communicate(timeout=300)
    assert driver.returncode == 0, err
    seen = json.loads(out.splitlines()[-1])
    assert seen["kind"] == "Popen" and seen["zygote"] is None  # no zygote; the kernel ran its cell all the same
    assert "kernel fd 1" in out


def _kernel_parent(hold):
    """In a pool worker: start a kernel; (worker pid, kernel pid, the kernel's parent pid, its process type)."""
    async def start():
        manager = KernelManager()
        await manager.start_kernel()
        try:
            pid = manager.provisioner.process.pid
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            time.sleep(hold)  # so that the other task goes to the other worker
            return os.getpid(), pid, parent, type(manager.provisioner.process).__name__
        finally:
            await manager.shutdown_kernel(now=True)

    return asyncio.run(start())


def test_the_workers_of_every_pool_fork_their_kernels_from_one_zygote():
    from relmodel.report.kernels.executors import process_pool

    seen, zygotes = [], []
    for _ in range(2):  # two pools, one after the other, as two renders in one session
        with process_pool(2) as pool:
            zygotes.append(pool.zygote)
            seen += [f.result() for f in [pool.submit(_kernel_parent, 2.0) for _ in range(2)]]
        assert all(_gone(kernel) for _, kernel, _, _ in seen)  # a worker's kernels end with it
    shared = zygotes[0]
    workers, kernels, parents, kinds = zip(*seen)
    assert zygotes[1] is shared and len(set(workers)) == 4 and set(kinds) == {"ZygoteProcess"}
    assert set(parents) == {shared.process.pid}  # every worker's kernels are children of the one zygote
    folder = os.path.dirname(shared.listen)
    assert not _gone(shared.process.pid)
    zygote.stop_zygote()  # what this process does when it ends
    assert _gone(shared.process.pid) and not os.path.exists(folder)


def test_a_runs_cleanup_stops_its_forked_kernels():
    from relmodel.report.kernels.executors import cleanup_run, new_run_id

    class RunKernel(KernelManager):
        run_id = new_run_id()

    async def start():
        manager = RunKernel()
        await manager.start_kernel()
        return manager.provisioner.process

    process = asyncio.run(start())  # a kernel left running, as a Ctrl-C leaves one
    assert type(process).__name__ == "ZygoteProcess" and not _gone(process.pid)
    cleanup_run(RunKernel.run_id)  # finds it by its folder's pid file
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _gone(process.pid):
        time.sleep(0.1)
    assert _gone(process.pid)
    assert process.wait(timeout=10) == -signal.SIGKILL


_POOL = "import pyarrow; print(pyarrow.default_memory_pool().backend_name)"


async def _arrow_pool():
    manager = KernelManager()
    await manager.start_kernel()
    try:
        content, text = await _run(manager, _POOL)
        assert content["status"] == "ok", content
        return type(manager.provisioner.process).__name__, text.strip()
    finally:
        await manager.shutdown_kernel(now=True)


def test_report_kernels_use_pyarrow_s_system_allocator():
    """With pyarrow's default allocator, kernels forked from a zygote that had forked heavy pages slowed each other."""
    zygote.stop_zygote()  # a zygote started with this test's environment
    kind, backend = asyncio.run(_arrow_pool())
    assert kind == "ZygoteProcess" and backend == "system"


def test_a_memory_pool_the_user_names_is_kept(monkeypatch):
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
    zygote.stop_zygote()
    try:
        kind, backend = asyncio.run(_arrow_pool())
    finally:
        zygote.stop_zygote()  # the next test's kernels start from a zygote of their own environment
    assert kind == "ZygoteProcess" and backend == "jemalloc"


_TWO_RENDERS = """
import json, sys
sys.path.insert(0, {root!r})
from relmodel.report import render
from relmodel.report.kernels.source_cache import ENV_CACHE
from relmodel.report.kernels.zygote_main import VOLATILE

def main():
    seen = []
    for out in ("first", "second"):  # the first creates its pool, and the process's zygote, inside its render
        report = render(notebooks={notebooks!r}, out={tmp!r} + "/" + out)
        seen.append([report.records[name]["forked"] for name in sorted(report.records)])
    print(json.dumps({{"forked": seen, "volatile": ENV_CACHE in VOLATILE}}))

if __name__ == "__main__":
    main()
"""


def test_kernels_of_a_later_render_are_forked_too(tmp_path):
    """The zygote started inside a render has that render's source-cache folder in its environment; a later
    render's kernels, with another folder, must still fork (an exec imports everything again, about 3 s each)."""
    from conftest import REPO, write_notebook

    cell = ("from relmodel.report import record\n"
            "record('forked', b'zygote_main' in open('/proc/self/cmdline', 'rb').read())")
    notebooks = [str(write_notebook(tmp_path / f"nb{i}.ipynb", ["n: int = 1  # a number", cell])) for i in (1, 2)]
    script = tmp_path / "two_renders.py"
    script.write_text(_TWO_RENDERS.format(root=str(REPO), notebooks=notebooks, tmp=str(tmp_path)))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["forked"] == [[True, True], [True, True]]
    assert result["volatile"]


def test_a_kernel_whose_folder_was_swept_says_so_in_one_line():
    # A report stopped while the zygote forks its kernels sweeps their folders first: the forked kernel cannot
    # enter its folder. It printed a FileNotFoundError traceback on the report's error stream; now one line.
    import subprocess
    import sys

    code = (
        "import os\n"
        "from relmodel.report.kernels.zygote_main import _kernel\n"
        "fds = (os.dup(1), os.dup(2))\n"
        "_kernel({'cwd': '/nonexistent/relmodel-work-gone', 'argv': [], 'env': {}}, [], fds, {}, os.getppid())\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 1
    assert res.stderr.strip() == ("relmodel: a kernel did not start: its working folder /nonexistent/relmodel-work-gone"
                                  " is gone (the report was stopped, or the folder removed)")
