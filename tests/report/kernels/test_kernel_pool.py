"""Warm kernels reused across one run's notebooks: nothing leaks, broken kernels are replaced."""

import sys

import pytest

from conftest import write_notebook
from relmodel.report.kernels import pool
from relmodel.report.pipeline import run
from relmodel.report.kernels.executors import cleanup_run, new_run_id

# What a notebook can see of the state a previous notebook might have left behind.
PROBE = """\
import os, sys, warnings
import matplotlib, matplotlib.pyplot as plt
import numpy as np
import relmodel.report.pipeline.run as _run
from relmodel.report import record
record("pid", os.getpid())
record("has_secret", "secret" in globals())
record("linewidth", float(plt.rcParams["lines.linewidth"]))
record("facecolor", str(plt.rcParams["axes.facecolor"]))
record("figures", len(plt.get_fignums()))
record("cwd_scratch", os.path.basename(os.getcwd()).startswith("relmodel-work-"))
record("env", os.environ.get("RELMODEL_LEAK_PROBE"))
record("filters", len(warnings.filters))
record("seterr", np.geterr()["divide"])
record("leaked_record", "leaked" in _run.recorded())
record("in_path", "/nonexistent-leak-probe" in sys.path)
"""

# Changes every kind of state the reset must undo.
SPOIL = """\
secret = 42
plt.style.use("ggplot")
plt.rcParams["lines.linewidth"] = 7.0
fig = plt.figure()
os.makedirs("sub", exist_ok=True); os.chdir("sub")
os.environ["RELMODEL_LEAK_PROBE"] = "set"
warnings.simplefilter("ignore")
np.seterr(divide="raise")
record("leaked", 1)
sys.path.append("/nonexistent-leak-probe")
"""


def run_notebooks(tmp_path, sources, run_id):
    """Execute notebooks made of ``sources`` (lists of cells) in this process, in order."""
    paths = [write_notebook(tmp_path / f"nb{i}.ipynb", ["x = 1  # a parameter"] + cells)
             for i, cells in enumerate(sources)]
    tasks = run.make_tasks([(p, {}) for p in paths], run_id)
    return [run.execute(task) for task in tasks]


@pytest.fixture
def run_id():
    rid = new_run_id()
    yield rid
    pool.retire_all()
    cleanup_run(rid)


def test_nothing_leaks_into_the_next_notebook(tmp_path, run_id, monkeypatch):
    monkeypatch.delenv(pool.ENV_SWITCH, raising=False)
    first, second = run_notebooks(tmp_path, [[PROBE, SPOIL], [PROBE]], run_id)
    assert first["error"] is None and second["error"] is None
    before, after = first["records"], second["records"]
    assert after["pid"] == before["pid"]  # the same kernel process ran both: reuse happened
    # hand reference: matplotlib's default line width is 1.5 points, face colour white
    assert before["linewidth"] == 1.5 and before["facecolor"] == "white"
    assert before["has_secret"] is False and before["figures"] == 0
    assert before.pop("leaked") == 1  # the first notebook's own record came back ...
    assert after == before  # ... and none of its changes reached the second
    assert pool.idle_kernels(run_id) == 1


def test_execution_counts_start_at_one_again(tmp_path, run_id):
    import nbformat

    results = run_notebooks(tmp_path, [["y = 2", "y"], ["y = 2", "y"]], run_id)
    counts = [[c.get("execution_count") for c in nbformat.reads(r["ipynb_bytes"].decode(), 4).cells]
              for r in results]
    assert counts == [[1, 2, 3], [1, 2, 3]]  # counted by hand: parameters cell, then two cells


def test_timed_out_and_dead_kernels_are_replaced(tmp_path, run_id, monkeypatch):
    monkeypatch.setattr(sys.modules["relmodel.report.pipeline.execute"], "CELL_TIMEOUT_S", 2)
    pid = "import os\nfrom relmodel.report import record\nrecord('pid', os.getpid())"
    results = run_notebooks(tmp_path, [
        [pid],
        [pid, "import time; time.sleep(30)"],  # times out
        [pid],
        [pid, "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],  # dies
        [pid],
    ], run_id)
    pids = [r["records"].get("pid") for r in results]
    assert results[0]["error"] is None and results[1]["error"] is not None
    assert pids[1] == pids[0]  # a healthy kernel was reused ...
    assert pids[2] != pids[1]  # ... a timed-out one was not
    assert results[2]["error"] is None
    assert results[3]["error"] is not None and pids[3] == pids[2]
    assert pids[4] not in (pids[3], None) and results[4]["error"] is None


def test_switch_turns_reuse_off(tmp_path, run_id, monkeypatch):
    monkeypatch.setenv(pool.ENV_SWITCH, "0")
    pid = "import os\nfrom relmodel.report import record\nrecord('pid', os.getpid())"
    first, second = run_notebooks(tmp_path, [[pid], [pid]], run_id)
    assert first["records"]["pid"] != second["records"]["pid"]
    assert pool.idle_kernels() == 0


def test_runs_do_not_share_kernels(tmp_path, monkeypatch):
    monkeypatch.delenv(pool.ENV_SWITCH, raising=False)
    pid = "import os\nfrom relmodel.report import record\nrecord('pid', os.getpid())"
    ids = [new_run_id(), new_run_id()]
    try:
        first = run_notebooks(tmp_path, [[pid]], ids[0])[0]
        second = run_notebooks(tmp_path, [[pid]], ids[1])[0]
        assert first["records"]["pid"] != second["records"]["pid"]
        assert pool.idle_kernels(ids[0]) == 0 and pool.idle_kernels(ids[1]) == 1
    finally:
        pool.retire_all()
        for rid in ids:
            cleanup_run(rid)
