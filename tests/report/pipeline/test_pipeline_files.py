"""Each step of the report pipeline lives in the file named for it, and one render calls them in order, once.

The steps, in order: parse, validate, plan, execute, store, summarise,
index.  A real render of two small notebooks (a sweep of two values, so four
tasks) runs with every step wrapped to record its call; the execute step is
replaced by a function returning what a worker would, so no kernel starts.
The expected counts are the hand count of that render: one call of each step
that works on the whole plan, one execute and one store per task.
"""

import ast
import collections
import importlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import relmodel.report
from relmodel.errors import ParameterError
from relmodel.report.pipeline import html, index, params, parse, plan, run, store, summarise, summary, validate
from relmodel.report.blocks import markup
from relmodel.report.kernels import records
from relmodel.report.pipeline import execute as execute_step

from conftest import write_notebook

REPORT = Path(relmodel.report.__file__).parent
render = importlib.import_module("relmodel.report.render")  # the module; relmodel.report.render is its function

#: Each step, the module named for it, and the function of it the pipeline calls.
STEPS = [("parse", "load_params"), ("validate", "validate_runs"), ("plan", "plan"), ("execute", "execute"),
         ("store", "store"), ("summarise", "summarise_runs"), ("index", "index_runs")]


def _defined(name):
    """The report modules whose top level defines ``name`` (a function or a class)."""
    out = []
    for path in sorted(REPORT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name for n in tree.body):
            out.append(path.stem)
    return out


@pytest.mark.parametrize("step, func", STEPS)
def test_each_step_is_defined_once_in_the_file_named_for_it(step, func):
    assert _defined(func) == [step]


@pytest.mark.parametrize("name, home", [
    ("parse_value", "parse"), ("parse_assignment", "parse"), ("parse_sweep", "parse"),
    ("check_type", "validate"), ("validate", "validate"), ("describe", "validate"),
    ("notebook_parameters", "params"), ("Parameter", "params"),
    ("answer_sentences", "summarise"), ("warning_lines", "summarise"), ("recommendation", "summarise"),
    ("null_reasons", "summarise"), ("summarise", "summarise"), ("merged_records", "summarise"),
    ("clean", "records"), ("index_page", "index"), ("inputs_rows", "index"),
    ("page", "markup"), ("fmt", "markup"),
])
def test_moved_names_have_one_definition(name, home):
    assert _defined(name) == [home]


def test_old_import_paths_reach_the_step_files():
    assert params.load_params is parse.load_params and params.parse_value is parse.parse_value
    assert params.parse_assignment is parse.parse_assignment and plan.parse_sweep is parse.parse_sweep
    assert params.validate is validate.validate and params.check_type is validate.check_type
    assert params.TYPES is validate.TYPES and params.describe is validate.describe
    assert summary.answer_sentences is summarise.answer_sentences and summary.clean is records.clean
    assert summary.warning_lines is summarise.warning_lines and summary.USEFUL_ETTR == summarise.USEFUL_ETTR
    assert html.index_page is index.index_page and html.NOTEBOOK_TITLES is index.NOTEBOOK_TITLES
    assert html.fmt is markup.fmt is relmodel.report.fmt and html.HEADLINE is markup.HEADLINE
    assert run.summarise is summarise.summarise and run.merged_records is summarise.merged_records
    assert run.index_page is index.index_page and run.execute is execute_step.execute


def test_the_step_files_say_in_their_docstring_which_step_they_are():
    for step, _ in STEPS:
        doc = ast.get_docstring(ast.parse((REPORT / "pipeline" / f"{step}.py").read_text(encoding="utf-8")))
        assert doc.startswith(f"The {step} step"), step


@pytest.fixture
def two(tmp_path):
    """Two notebooks: one takes n_gpus, one does not."""
    a = write_notebook(tmp_path / "aa.ipynb", ["n_gpus = 16384  # GPUs", "pass"])
    b = write_notebook(tmp_path / "bb.ipynb", ["label = 'x'  # a label", "pass"])
    return a, b


def _worker_result(task):
    """What a worker returns for a task, without a kernel: job_mtbf_h = 50,000 h / n_gpus when given."""
    n = task.parameters.get("n_gpus")
    return {"name": task.name, "ipynb_bytes": b"{}", "html_bytes": b"<html><body></body></html>",
            "records": {"job_mtbf_h": 50000.0 / n} if n else {}, "failure": None, "seconds": 0.0, "error": None}


@pytest.fixture
def calls(monkeypatch):
    """Wrap every step where the orchestration looks it up; return the list of (step, detail) calls."""
    seen, lock = [], threading.Lock()

    def note(step, detail=None):
        with lock:
            seen.append((step, detail))

    def wrap(module, name, step, after=False, detail=lambda *a, **k: None):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            if not after:
                note(step, detail(*args, **kwargs))
            out = real(*args, **kwargs)
            if after:  # the plan step ends once its runs are made, after it hands them to validate
                note(step, detail(*args, **kwargs))
            return out
        monkeypatch.setattr(module, name, wrapper)

    wrap(render, "load_params", "parse")
    wrap(plan, "validate_runs", "validate", detail=lambda runs, by_nb: len(runs))
    wrap(render, "plan", "plan", after=True)
    monkeypatch.setattr(run, "execute", lambda task: note("execute", task.parameters.get("n_gpus")) or
                        _worker_result(task))
    wrap(run, "store", "store", detail=lambda result, folder: Path(folder).name)
    wrap(run, "summarise_runs", "summarise")
    wrap(run, "index_runs", "index")
    wrap(run, "summarise_run", "summarise run")  # a sweep: each run as its last page ends
    wrap(run, "index_run", "index run")
    wrap(run, "index_sweep", "index")
    return seen


def test_a_sweep_render_calls_each_step_once_in_order(tmp_path, two, calls):
    with ThreadPoolExecutor(2) as pool:
        report = relmodel.report.render(list(two), {"label": "y"}, tmp_path / "out", sweep={"n_gpus": [1000, 4000]},
                                        executor=pool)
    steps = [s for s, _ in calls]
    # hand count: 2 combinations x 2 notebooks = 4 tasks; each run summarised and indexed once, as its second
    # page is stored; the comparison page once, last
    assert collections.Counter(steps) == {"parse": 1, "validate": 1, "plan": 1, "execute": 4, "store": 4,
                                          "summarise run": 2, "index run": 2, "index": 1}
    assert steps[:3] == ["parse", "validate", "plan"] and steps[-1] == "index"
    assert ("validate", 2) in calls  # both runs' values checked in the one call
    middle = steps[3:-1]
    for k, step in enumerate(middle):  # nothing is stored before its result was executed
        if step == "store":
            assert middle[:k].count("execute") > middle[:k].count("store")
        if step == "summarise run":  # a run is summarised once both its pages are stored, then indexed
            assert middle[:k].count("store") >= 2 * (middle[:k].count("summarise run") + 1)
            assert middle[k + 1] == "index run"
    assert sorted(d for s, d in calls if s == "store") == ["n_gpus-1000"] * 2 + ["n_gpus-4000"] * 2
    assert report.runs[1].headline == {"job_mtbf_h": 12.5}  # 50,000 h / 4,000 GPUs
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["status"] == "complete"


def test_a_single_report_calls_the_same_steps(tmp_path, two, calls):
    relmodel.report.render([two[0]], {"n_gpus": 2500}, tmp_path / "one")
    assert [s for s, _ in calls] == ["parse", "validate", "plan", "execute", "store", "summarise", "index"]
    assert json.loads((tmp_path / "one" / "summary.json").read_text())["headline"] == {"job_mtbf_h": 20.0}


def test_a_bad_value_in_any_run_stops_before_the_plan_has_tasks(tmp_path, two, calls):
    with pytest.raises(ParameterError, match="n_gpus"):
        relmodel.report.render([two[0]], {}, tmp_path / "out", sweep={"n_gpus": [1000, -5]})
    assert [s for s, _ in calls] == ["parse", "validate"]
    assert not (tmp_path / "out").exists()


def test_the_index_shows_the_sentences_the_summarise_step_built(tmp_path, two, monkeypatch):
    built = []

    def sentences(merged, *args, **kwargs):
        built.append(merged.get("job_mtbf_h"))
        return [f"Probe answer for a job MTBF of {merged.get('job_mtbf_h')} h."]

    monkeypatch.setattr(run, "execute", _worker_result)
    monkeypatch.setattr(summarise, "answer_sentences", sentences)
    with ThreadPoolExecutor(2) as pool:
        run.render_plan(plan.plan([two[0]], {}, {"n_gpus": [1000, 2000]}), tmp_path / "out", executor=pool)
    assert built == [50.0, 25.0]  # once per run, in the summarise step (50,000 h / 1,000 and / 2,000)
    for n, mtbf in ((1000, 50.0), (2000, 25.0)):
        folder = tmp_path / "out" / f"n_gpus-{n}"
        expected = f"Probe answer for a job MTBF of {mtbf} h."
        assert json.loads((folder / "summary.json").read_text())["answers"] == [expected]
        assert expected in (folder / "index.html").read_text()


def test_store_and_summarise_write_the_run_folder(tmp_path, two):
    folder = tmp_path / "r"
    folder.mkdir()
    task = plan.plan([two[0]], {"n_gpus": 500}).tasks[0]
    entry = store.store(_worker_result(task), folder)
    summary_, merged = summarise.summarise_run([entry], {"n_gpus": 500}, folder)
    assert merged["job_mtbf_h"] == 100.0 == summary_["headline"]["job_mtbf_h"]  # 50,000 h / 500 GPUs
    assert json.loads((folder / "summary.json").read_text())["headline"] == {"job_mtbf_h": 100.0}
    assert sorted(p.name for p in folder.iterdir()) == ["aa.html", "aa.ipynb", "summary.json"]
