"""The report pipeline's steps: a plan holds every run, and one orchestration runs a report or a sweep.

The execute step is replaced by a function that returns what a worker would
(no kernel starts), so these tests check planning, storing, summarising and
indexing alone; the expected numbers are worked out by hand from the fake
notebook's rule (job MTBF = 50,000 h / n_gpus).
"""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

import relmodel.report
from relmodel.errors import KernelDiedError, ParameterError, ReportIncomplete
from relmodel.report.kernels import records as REC
from relmodel.report.pipeline import run as R
from relmodel.report.pipeline.plan import plan

from conftest import write_notebook


@pytest.fixture
def two(tmp_path):
    """Two notebooks: one takes n_gpus, one does not."""
    a = write_notebook(tmp_path / "aa.ipynb", ["n_gpus = 16384  # GPUs", "pass"])
    b = write_notebook(tmp_path / "bb.ipynb", ["label = 'x'  # a label", "pass"])
    return a, b


def fake_execute(fail=None, die=None):
    """What a worker returns, without a kernel: a notebook given n_gpus records job_mtbf_h = 50000 / n_gpus."""
    def execute(task):
        n = task.parameters.get("n_gpus")
        result = {"name": task.name, "ipynb_bytes": b"{}", "html_bytes": b"<html><body></body></html>",
                  "records": {"job_mtbf_h": 50000.0 / n} if n else {}, "failure": None, "seconds": 0.0,
                  "error": None}
        if n is not None and n == fail:
            result.update(error=f"{task.name}: stopped at cell 2 (ValueError)",
                          failure={"cell": 2, "error": "ValueError"})
        if n is not None and n == die:
            result.update(error=f"{task.name}: the kernel running the notebook died", kernel_died=True)
        return result
    return execute


def test_a_report_is_a_plan_of_one_run(two):
    a, b = two
    p = plan([a, b], {"n_gpus": 4096})
    assert len(p.runs) == 1 and p.runs[0].folder == "" and p.swept == ()
    assert [t.name for t in p.tasks] == ["aa", "bb"]
    assert p.tasks[0].parameters == {"n_gpus": 4096} and p.tasks[1].parameters == {}
    assert list(p) == [(a, {"n_gpus": 4096}), (b, {})]  # it reads as (notebook, values) pairs
    assert p[0][1]["n_gpus"] == 4096 and len(p) == 2


def test_a_sweep_is_a_plan_with_a_run_per_combination(two):
    a, b = two
    p = plan([a], {}, {"n_gpus": [1024, 2048, 4096]})
    assert [r.folder for r in p.runs] == ["n_gpus-1024", "n_gpus-2048", "n_gpus-4096"]
    assert [r.combination for r in p.runs] == [{"n_gpus": 1024}, {"n_gpus": 2048}, {"n_gpus": 4096}]
    assert p.where == [0, 1, 2] and p.swept == ("n_gpus",)
    assert len({id(t.source) for t in p.tasks}) == 1  # the notebook was read once, not per run
    assert len({t.run_id for t in p.tasks}) == 1  # one run id: one cleanup on Ctrl-C


def test_without_notebooks_a_sweep_plans_only_those_taking_the_swept_name(tmp_path, monkeypatch, two):
    from relmodel.report.pipeline import plan as PL

    monkeypatch.setattr(PL, "NOTEBOOK_DIR", tmp_path)
    (tmp_path / "aa.ipynb").rename(tmp_path / "01_aa.ipynb")
    (tmp_path / "bb.ipynb").rename(tmp_path / "02_bb.ipynb")
    p = plan(None, {}, {"n_gpus": [1, 2]})
    assert [t.name for t in p.tasks] == ["01_aa", "01_aa"]
    with pytest.raises(ParameterError, match="both fixed"):
        plan(None, {"n_gpus": 3}, {"n_gpus": [1, 2]})
    with pytest.raises(ParameterError, match="no notebook takes 'gpus'"):
        plan(None, {}, {"gpus": [1, 2]})


def test_one_orchestration_writes_every_run_and_the_comparison(tmp_path, two, monkeypatch):
    monkeypatch.setattr(R, "execute", fake_execute())
    calls = []
    real = R.run_tasks
    monkeypatch.setattr(R, "run_tasks", lambda tasks, *a, **k: calls.append(len(tasks)) or real(tasks, *a, **k))
    p = plan(list(two), {}, {"n_gpus": [1000, 4000]})
    with ThreadPoolExecutor(2) as pool:
        report = R.render_plan(p, tmp_path / "out", executor=pool)
    assert calls == [4]  # every task of every run on one executor, in one call
    top = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert top["status"] == "complete" and top["sweep"] == ["n_gpus"]
    for k, n in enumerate([1000, 4000]):
        run = json.loads((tmp_path / "out" / f"n_gpus-{n}" / "summary.json").read_text())
        assert run["headline"]["job_mtbf_h"] == 50000.0 / n == top["runs"][k]["headline"]["job_mtbf_h"]
        assert [e["name"] for e in run["notebooks"]] == ["aa", "bb"]
        assert (tmp_path / "out" / f"n_gpus-{n}" / "index.html").exists()
        assert report.runs[k].headline == {"job_mtbf_h": 50000.0 / n}
    assert (tmp_path / "out" / "index.html").exists() and (tmp_path / "out" / "comparison.png").exists()


def test_a_single_report_goes_the_same_way(tmp_path, two, monkeypatch):
    monkeypatch.setattr(R, "execute", fake_execute())
    report = R.render_plan(plan([two[0]], {"n_gpus": 2500}), tmp_path / "one")
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert summary["headline"] == {"job_mtbf_h": 20.0} == report.headline  # 50,000 / 2,500
    assert report.runs == () and summary["status"] == "complete"


def test_a_failed_run_leaves_the_sweep_written_and_partial(tmp_path, two, monkeypatch):
    monkeypatch.setattr(R, "execute", fake_execute(fail=2000))
    p = plan([two[0]], {}, {"n_gpus": [1000, 2000]})
    with pytest.raises(ReportIncomplete, match=r"the sweep is partial: n_gpus=2000: the report is partial") as exc:
        with ThreadPoolExecutor(2) as pool:
            R.render_plan(p, tmp_path / "out", executor=pool)
    assert list(exc.value.failed) == ["aa"]
    top = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert top["status"] == "partial" and top["runs"][0]["error"] is None and top["runs"][1]["error"]
    second = json.loads((tmp_path / "out" / "n_gpus-2000" / "summary.json").read_text())
    assert second["status"] == "partial" and second["failed"] == ["aa"]


def test_a_dead_kernel_in_a_sweep_still_writes_the_sweep(tmp_path, two, monkeypatch):
    monkeypatch.setattr(R, "execute", fake_execute(die=2000))
    with pytest.raises(KernelDiedError, match="died"), ThreadPoolExecutor(2) as pool:
        R.render_plan(plan([two[0]], {}, {"n_gpus": [1000, 2000]}), tmp_path / "out", executor=pool)
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["status"] == "partial"


def test_the_in_kernel_api_is_one_module_reached_from_the_old_paths():
    assert relmodel.report.record is REC.record is R.record
    assert relmodel.report.key_figure is REC.key_figure and relmodel.report.recorded is REC.recorded
    REC.record("probe_h", 2)
    assert REC.recorded()["probe_h"] == 2
    REC.forget()
    assert "probe_h" not in REC.recorded()


def test_a_sweep_indexes_each_run_as_it_ends_not_after_the_last(tmp_path, two, monkeypatch):
    """The first run's summary.json and index.html are written while the second run's notebook is still running
    (its execute waits until it sees them), so the index work overlaps the other runs' notebooks."""
    import threading
    import time
    seen = threading.Event()
    base = fake_execute()

    def execute(task):
        if task.parameters.get("n_gpus") == 4000:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not seen.is_set():
                if any("n_gpus-1000" in str(f.parent) for f in tmp_path.rglob("index.html")):
                    seen.set()
                time.sleep(0.01)
        return base(task)

    monkeypatch.setattr(R, "execute", execute)
    p = plan([two[0]], {}, {"n_gpus": [1000, 4000]})
    with ThreadPoolExecutor(2) as pool:
        R.render_plan(p, tmp_path / "out", executor=pool)
    assert seen.is_set()  # run 1000 was indexed while run 4000's notebook ran
    run = json.loads((tmp_path / "out" / "n_gpus-1000" / "summary.json").read_text())
    assert run["headline"]["job_mtbf_h"] == 50.0  # 50,000 / 1,000, the same as when indexed at the end
    assert (tmp_path / "out" / "index.html").exists()
