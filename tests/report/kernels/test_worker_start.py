"""How relmodel's pool workers start and end (relmodel.report.kernels.worker_start)."""

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest

from conftest import REPO, write_notebook
from relmodel.report.kernels import worker_start as W
from relmodel.report.kernels.executors import process_pool

# Strings whose "iri" format answer is compared with and without the deferred grammar.
IRIS = ["http://example.com/a?b=c#d", "https://例え.jp/パス", "http://[::1]:8080/x", "mailto:someone@example.org",
        "relative/path", "http://exa mple.com/", "", "http://example.com/%zz", "urn:isbn:0451450523"]

_CHECK = """
import json, sys
sys.path.insert(0, {root!r})
deferred = None
if {defer}:
    from relmodel.report.kernels.worker_start import defer_iri_grammar
    deferred = defer_iri_grammar()
import jsonschema
built_on_import = "lark" in sys.modules
checker = jsonschema.Draft7Validator.FORMAT_CHECKER
answers = [checker.conforms(s, "iri") for s in {iris!r}]
import rfc3987_syntax
other = rfc3987_syntax.is_valid_syntax_iri("http://example.com/a")
print(json.dumps({{"deferred": deferred, "built_on_import": built_on_import, "answers": answers, "other": other,
                  "real_after_use": type(sys.modules["rfc3987_syntax"]) is type(sys)}}))
"""


def _fresh(defer):
    code = _CHECK.format(root=str(REPO), defer=defer, iris=IRIS)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_deferred_iri_checker_answers_as_the_real_one():
    real, deferred = _fresh(False), _fresh(True)
    assert real["built_on_import"] is True  # without the stand-in, importing jsonschema builds the grammar
    assert deferred["deferred"] is True and deferred["built_on_import"] is False
    assert deferred["answers"] == real["answers"]  # the reference: the real module in a process of its own
    assert True in real["answers"] and False in real["answers"]  # the strings tell valid from invalid
    assert deferred["other"] == real["other"] is True  # other names reach the real module
    assert deferred["real_after_use"] is True  # and, once used, the real module replaces the stand-in


def test_an_imported_or_missing_module_is_left_alone(monkeypatch):
    already = types.ModuleType(W.IRI_MODULE)
    monkeypatch.setitem(sys.modules, W.IRI_MODULE, already)
    assert W.defer_iri_grammar() is False
    assert sys.modules[W.IRI_MODULE] is already
    monkeypatch.delitem(sys.modules, W.IRI_MODULE)
    monkeypatch.setattr(W.importlib.util, "find_spec", lambda name: None)
    assert W.defer_iri_grammar() is False
    assert W.IRI_MODULE not in sys.modules  # a stand-in would make jsonschema offer a checker that cannot run


def _probe(_):
    return {"pid": os.getpid(), "sigint_ignored": signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
            "papermill": "papermill" in sys.modules, "exporter": "nbconvert.exporters.html" in sys.modules,
            "page_exporter": getattr(sys.modules.get("relmodel.report.blocks.page_scripts"), "_EXPORTER", None) is not None,
            "stand_in": type(sys.modules.get(W.IRI_MODULE)).__name__}


def test_workers_start_with_the_pool_ready_to_execute():
    before = len(multiprocessing.active_children())
    with process_pool(2) as pool:
        assert len(multiprocessing.active_children()) - before == 2  # both started before any task
        seen = list(pool.map(_probe, range(4)))
    for probe in seen:
        assert probe["sigint_ignored"] and probe["papermill"] and probe["exporter"]
        assert probe["page_exporter"]  # made, its templates compiled, before the first notebook
        assert probe["stand_in"] == "_DeferredModule"


def _ends(folder, code):
    """A process's work: leave a file from an exit handler, a finalizer and the interpreter's teardown."""
    import atexit
    from multiprocessing.util import Finalize

    folder = Path(folder)
    atexit.register((folder / "atexit").touch)
    Finalize(None, (folder / "finalizer").touch, exitpriority=10)
    sys.modules[__name__]._kept = _Teardown(folder / "teardown")
    sys.stdout.write("unflushed")
    raise SystemExit(code)


class _Teardown:
    """Writes into its file when the interpreter frees it (with what it holds: modules are gone by then)."""

    def __init__(self, path):
        self.fd, self.write = os.open(path, os.O_WRONLY | os.O_CREAT), os.write

    def __del__(self):
        self.write(self.fd, b"torn down")


@pytest.mark.parametrize("code", [0, 3])
@pytest.mark.parametrize("quick", [False, True])
def test_a_worker_ends_as_a_forked_one_does(tmp_path, quick, code):
    context = W.worker_context() if quick else multiprocessing.get_context("spawn")  # the reference: plain spawn
    process = context.Process(target=_ends, args=(str(tmp_path), code))
    process.start()
    process.join(120)
    assert process.exitcode == code  # the status is the process's own
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == (["finalizer", "teardown"] if quick else ["atexit", "finalizer", "teardown"])
    assert (tmp_path / "teardown").read_bytes() == (b"" if quick else b"torn down")


def test_a_sweep_on_a_worker_pool_leaves_no_kernel_or_folder(tmp_path):
    tmp = Path(tempfile.mkdtemp(prefix="rm-", dir="/tmp"))  # short: kernels' ipc socket paths are limited
    try:
        nb = write_notebook(tmp_path / "tiny.ipynb", ["n: int = 1  # a number",
                                                      "from relmodel.report import record\nrecord('twice', 2 * n)"])
        env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO)}
        out = tmp_path / "r"
        done = subprocess.run([sys.executable, "-m", "relmodel", "report", "-q", "--jobs", "2", "--out", str(out),
                               "-n", str(nb), "--sweep", "n=1,2,3"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        twice = [json.loads((out / f"n-{n}" / "summary.json").read_text())["records"]["tiny"]["twice"]
                 for n in (1, 2, 3)]
        assert twice == [2, 4, 6]
        assert list(tmp.iterdir()) == []  # no kernel folder, no scratch folder
        assert not [p for p in Path("/proc").glob("[0-9]*/cmdline") if str(tmp).encode() in _read(p)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read(path):
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _environ_and_parent(name):
    return os.environ.get(name), os.getppid(), "nbconvert" in sys.modules


def test_a_pool_made_after_an_environment_change_gets_it(monkeypatch):
    from relmodel.report.kernels.executors import process_pool

    with process_pool(1) as pool:
        pool.submit(int).result()  # the fork server runs from here on, with the environment of now
    monkeypatch.setenv("RELMODEL_WORKER_TEST", "set after the fork server started")
    with process_pool(1) as pool:
        value, parent, preloaded = pool.submit(_environ_and_parent, "RELMODEL_WORKER_TEST").result()
    assert value == "set after the fork server started"
    assert parent != os.getpid() and preloaded  # forked from the fork server, with the execute step imported


@pytest.mark.parametrize("code", [0, 3])
def test_a_spawned_worker_ends_as_a_forked_one_does_where_there_is_no_fork_server(tmp_path, code):
    process = W.SpawnWorkerContext().Process(target=_ends, args=(str(tmp_path), code))
    process.start()
    process.join(120)
    assert process.exitcode == code
    assert sorted(p.name for p in tmp_path.iterdir()) == ["finalizer", "teardown"]
    assert (tmp_path / "teardown").read_bytes() == b""  # no teardown, as in a forked child


_UNGUARDED = """
from pathlib import Path
from relmodel.report import render
with open({log!r}, "a") as f:  # top-level code: a worker that ran this script again would write twice
    f.write("ran\\n")
render(notebooks=[{nb!r}], sweep={{"n": [1, 2, 3]}}, out={out!r}, progress=False)
"""


@pytest.mark.parametrize("as_module", [False, True])
def test_a_script_without_a_main_guard_renders_on_the_pool_and_runs_once(tmp_path, as_module):
    """No ``if __name__ == "__main__":``: the workers must not run the script again (multiprocessing's
    spawn and fork server do, and a second render inside a worker kills it)."""
    nb = write_notebook(tmp_path / "tiny.ipynb", ["n: int = 1  # a number",
                                                  "from relmodel.report import record\nrecord('twice', 2 * n)"])
    log, out = tmp_path / "ran.txt", tmp_path / "r"
    (tmp_path / "plan_script.py").write_text(_UNGUARDED.format(log=str(log), nb=str(nb), out=str(out)))
    command = ["-m", "plan_script"] if as_module else [str(tmp_path / "plan_script.py")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)])}
    done = subprocess.run([sys.executable, *command], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert log.read_text() == "ran\n"
    twice = [json.loads((out / f"n-{n}" / "summary.json").read_text())["records"]["tiny"]["twice"] for n in (1, 2, 3)]
    assert twice == [2, 4, 6]


def test_other_processes_still_get_the_main_module(tmp_path, monkeypatch):
    """Only relmodel's workers skip it: multiprocessing's own processes are prepared as before."""
    from multiprocessing import spawn

    script = tmp_path / "plan_script.py"
    script.write_text("")
    main_module = types.ModuleType("__main__")
    main_module.__file__, main_module.__spec__ = str(script), None  # as for `python plan_script.py`
    monkeypatch.setitem(sys.modules, "__main__", main_module)  # under xdist, __main__ is execnet's, without one
    W.worker_context()
    mine = spawn.get_preparation_data(f"{W.WORKER_NAME}-1")
    theirs = spawn.get_preparation_data("SpawnProcess-1")
    main = {"init_main_from_path", "init_main_from_name"}
    assert not main & set(mine)
    assert theirs["init_main_from_path"] == str(script)
    assert {k: v for k, v in theirs.items() if k not in main | {"name"}} == \
        {k: v for k, v in mine.items() if k != "name"}


def test_a_worker_drops_nbclients_kernel_died_line_and_keeps_the_rest(caplog):
    """Under Ctrl-C a worker's kernel is stopped on purpose; nbclient's "Kernel died" line reached the report's
    stderr beside its one "interrupted" line (seen under load in the hostile stop test)."""
    import logging

    from relmodel.report.kernels.worker_start import quiet_kernel_deaths
    quiet_kernel_deaths()
    quiet_kernel_deaths()                                  # once is enough: no second filter
    log = logging.getLogger("papermill")
    assert sum(type(f).__name__ == "_NoKernelDied" for f in log.filters) == 1
    with caplog.at_level(logging.INFO, logger="papermill"):
        log.error("Kernel died while waiting for execute reply.")
        log.error("Something else went wrong.")
    assert [r.getMessage() for r in caplog.records] == ["Something else went wrong."]
