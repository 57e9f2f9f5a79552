"""relmodel report / relmodel.report.render: headline numbers, failures, sweeps."""

import json
import sys
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

import relmodel
from relmodel.report.pipeline import params as P
from relmodel.report.blocks import present
from relmodel.report.pipeline import run as R
from relmodel.report.pipeline import sweep as S
from relmodel.report import render
from relmodel.report.safety.folders import marker
from relmodel.checkpoint import ettr, optimal_interval
from relmodel.errors import ParameterError, ReportError
from relmodel.scale.targets.requirements import required_node_mtbf
from relmodel.scale.clusters.scaling import scale_job_mtbf, scale_rates
from conftest import SUITE_PARAMS, write_notebook, report_cli, grown_restart


@pytest.fixture
def tiny_untyped(tmp_path):
    """Unlike conftest's ``tiny``: untyped parameters (n_gpus, a label); it also records its interpreter and folder."""
    return write_notebook(tmp_path / "tiny.ipynb", [
        "n_gpus = 16384  # GPUs\nlabel = 'x'  # a label",
        "import os, sys\nfrom relmodel.report import record\n"
        "record('job_mtbf_h', 50000.0 / n_gpus)\nrecord('python', sys.executable)\n"
        "record('cwd', os.getcwd())",
    ])


invoke = report_cli


def test_cli_renders_report_with_headline_numbers(suite_report):
    """The session's shared report: ``relmodel report -p n_gpus=65536 -p ckpt_cost=2min ...`` (SUITE_PARAMS)."""
    out, res = suite_report.path, suite_report
    assert res.exit_code == 0, res.output
    llama3 = relmodel.datasets.llama3_54day()
    m = scale_job_mtbf(llama3, 65536)
    tau = float(optimal_interval(m, "2min"))
    fixed = scale_rates(llama3, target_cluster=65536, n_boot=1, seed=0).rate_of("job")
    restart = grown_restart(65536)  # 10 min plus NCCL start-up at 65,536 GPUs, by hand
    expected = {"job_mtbf_h": m, "optimal_interval_h": tau, "ettr": float(ettr(tau, m, "2min", restart)),
                "required_node_mtbf_h": required_node_mtbf(65536, 0.9, "2min", restart,
                                                           fixed_rate_per_h=fixed)}
    summary = json.loads((out / "summary.json").read_text())
    index = (out / "index.html").read_text()
    assert summary["parameters"] == SUITE_PARAMS
    assert SUITE_PARAMS["n_gpus"] == 65536 and SUITE_PARAMS["ckpt_cost"] == "2min"  # the values checked below
    shown = {"job_mtbf_h": present.duration, "optimal_interval_h": present.duration, "ettr": present.pct,
             "required_node_mtbf_h": present.sig}
    for key, value in expected.items():
        assert summary["headline"][key] == pytest.approx(value, rel=1e-9), key
        assert shown[key](value) in index and shown[key](value) in res.output, key
    for name in ("03_checkpoint_interval", "04_requirements_at_scale"):
        assert (out / f"{name}.ipynb").exists() and f"href='{name}.html'" in index
        html = (out / f"{name}.html").read_text()
        assert "scale_rates(" not in html and "import relmodel" not in html  # code hidden
    assert "report written" in res.output


@pytest.mark.parametrize("args, needle", [
    (["-p", "foo=1"], "unknown parameter 'foo'"),
    (["-p", "n_gpus=abc"], "must be int"),
    (["-p", "n_gpus=-4"], "whole number of GPUs from 1"),
    (["-p", "target_ettr=1.5"], "strictly between 0 and 1"),
    (["-p", "ckpt_cost=5parsecs"], "duration"),
    (["-p", "n_gpus"], "expected NAME=VALUE"),
    (["--sweep", "n_gpus=4096,-1"], "whole number of GPUs from 1"),
    (["--sweep", "n_gpus=4096,4096"], "distinct values"),
    (["--sweep", "gpus=4096,8192"], "no notebook takes 'gpus'"),
    (["--sweep", "n_gpus=4096", "-p", "n_gpus=8"], "both fixed"),
])
def test_bad_parameter_exits_2_before_any_kernel(tmp_path, no_kernel, args, needle):
    out = tmp_path / "never"
    res = invoke(*args, "--out", out)
    assert res.exit_code == 2, res.output
    assert needle in res.output
    assert not out.exists()
    if "foo" in needle:  # the valid names, in one short line (the full listing ran to thousands of characters)
        assert "n_gpus, ckpt_cost" in res.output and len(res.output) < 700
    if "must be" in needle:  # what the parameter is, not every parameter of every notebook
        assert "GPUs in the planned job" in res.output and len(res.output) < 300


def test_parameter_file_is_checked_too(tmp_path, no_kernel):
    f = tmp_path / "p.yaml"
    f.write_text("n_gpus: 4096\ntarget_ettr: 2\n")
    res = invoke("--params", f, "--out", tmp_path / "never")
    assert res.exit_code == 2 and "target_ettr" in res.output
    f.write_text("- just\n- a list\n")
    assert invoke("--params", f).exit_code == 2


def test_existing_folder_is_never_overwritten_without_force(tmp_path, tiny_untyped, monkeypatch):
    out = tmp_path / "old"
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"relmodel": marker("complete")}))  # a relmodel report
    (out / "keep.txt").write_text("mine")
    monkeypatch.setattr(R, "run_tasks", lambda *a, **k: pytest.fail("ran before refusing"))
    res = invoke("-n", tiny_untyped, "--out", out)
    assert res.exit_code == 2 and "--force" in res.output
    assert (out / "keep.txt").read_text() == "mine"
    monkeypatch.undo()
    res = invoke("-n", tiny_untyped, "--out", out, "--force")  # keep.txt is the user's: refused, named, kept
    assert res.exit_code == 2 and "keep.txt" in res.output, res.output
    assert (out / "keep.txt").read_text() == "mine"
    (out / "keep.txt").unlink()  # the user moves it out; now only relmodel's files are there
    res = invoke("-n", tiny_untyped, "--out", out, "--force")
    assert res.exit_code == 0, res.output
    assert (out / "tiny.html").exists()


def test_force_refuses_a_folder_that_is_not_a_report(tmp_path, tiny_untyped, no_kernel):
    out = tmp_path / "photos"
    out.mkdir()
    (out / "holiday.jpg").write_text("x")
    res = invoke("-n", tiny_untyped, "--out", out, "--force")
    assert res.exit_code == 2 and "holds no report" in res.output
    assert (out / "holiday.jpg").exists()


def test_failing_cell_keeps_partial_notebook_and_names_the_cell(tmp_path, tiny_untyped):
    bad = write_notebook(tmp_path / "bad.ipynb", [
        "x = 1  # a number", "print('before the failure')", "1 / 0", "print('never reached')"])
    out = tmp_path / "r"
    res = invoke("-n", tiny_untyped, "-n", bad, "-j", "1", "--out", out)  # one worker: its warm kernel runs both
    assert res.exit_code != 0
    assert "bad: cell" in res.output and "1 / 0" in res.output and "ZeroDivisionError" in res.output
    nb = nbformat.read(out / "bad.ipynb", as_version=4)
    texts = ["".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells]
    assert any("before the failure" in t for t in texts)
    assert not any("never reached" in t for t in texts)
    assert (out / "tiny.html").exists() and (out / "bad.html").exists()
    summary = json.loads((out / "summary.json").read_text())
    errors = {n["name"]: n["error"] for n in summary["notebooks"]}
    assert errors["tiny"] is None and "ZeroDivisionError" in errors["bad"]
    assert summary["headline"]["job_mtbf_h"] == pytest.approx(50000.0 / 16384)


def test_sweep_renders_each_value_and_a_comparison_page(tmp_path, tiny_untyped, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative --out, with threads sharing one working directory
    calls = []
    with ThreadPoolExecutor(2) as pool:
        rep = render(notebooks=[tiny_untyped], sweep={"n_gpus": [4096, 16384, 65536]}, out="sw",
                       executor=pool, progress=lambda done, total, name: calls.append((done, total)))
    assert sorted(calls) == [(1, 3), (2, 3), (3, 3)]
    assert [run.parameters["n_gpus"] for run in rep.runs] == [4096, 16384, 65536]
    for run in rep.runs:
        assert run.headline["job_mtbf_h"] == pytest.approx(50000.0 / run.parameters["n_gpus"])
        assert run.records["tiny"]["python"] == sys.executable  # a kernel of this interpreter
        # each kernel works in a scratch folder of its own (workers write no report files), removed after
        cwd = Path(run.records["tiny"]["cwd"])
        assert cwd.name.startswith("relmodel-work-") and not cwd.exists()
        assert (run.path / "index.html").exists()
    page = (tmp_path / "sw" / "index.html").read_text()
    assert "n_gpus-65536/index.html" in page and present.duration(50000 / 65536) in page and "<img" in page
    assert (tmp_path / "sw" / "comparison.png").stat().st_size > 1000
    summary = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert [r["value"] for r in summary["runs"]] == [4096, 16384, 65536]


def test_cli_sweep_and_default_out(tmp_path, tiny_untyped, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = invoke("-n", tiny_untyped, "--sweep", "n_gpus=1000,2000", "-j", "2")
    assert res.exit_code == 0, res.output
    (folder,) = (tmp_path / "reports").iterdir()
    assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == ["n_gpus-1000", "n_gpus-2000"]


def test_parse_and_validate_values(tmp_path):
    assert P.parse_assignment("n_gpus=4096") == ("n_gpus", 4096)
    assert P.parse_assignment("ckpt_cost=5min") == ("ckpt_cost", "5min")
    assert P.parse_assignment("sizes=[1, 2]") == ("sizes", [1, 2])
    assert S.parse_sweep("target_ettr=0.9,0.95") == {"target_ettr": [0.9, 0.95]}
    with pytest.raises(ParameterError):
        S.parse_sweep("n_gpus=")
    nb = write_notebook(tmp_path / "t.ipynb", [
        "a = 1.5  # float\nb = 3  # int\nc = [1, 2]  # list\nd = None  # anything\nckpt_cost = '1min'  # cost",
        "pass"])
    by = {"t": P.notebook_parameters(nb)}
    assert P.validate({"a": 2, "d": "x", "c": [3], "ckpt_cost": 0.5}, by) == {
        "t": {"a": 2, "d": "x", "c": [3], "ckpt_cost": 0.5}}
    for bad in ({"b": 1.5}, {"b": True}, {"c": 3}, {"a": "x"}, {"ckpt_cost": "-5min"}):
        with pytest.raises(ParameterError):
            P.validate(bad, by)


def test_notebook_parameter_rules(tmp_path):
    with pytest.raises(ParameterError, match="no code cell tagged"):
        nb = nbformat.v4.new_notebook()
        nb.cells.append(nbformat.v4.new_code_cell("x = 1"))
        nbformat.write(nb, tmp_path / "u.ipynb")
        P.notebook_parameters(tmp_path / "u.ipynb")
    with pytest.raises(ParameterError, match="literal"):
        P.notebook_parameters(write_notebook(tmp_path / "v.ipynb", ["x = len('a')  # no"]))


def test_find_notebooks_and_record_outside_a_kernel():
    assert R.find_notebooks("03")[0].stem == "03_checkpoint_interval"
    assert R.find_notebooks(["04_requirements_at_scale"])[0].name == "04_requirements_at_scale.ipynb"
    with pytest.raises(ReportError, match="choose from"):
        R.find_notebooks("99")
    R.record("answer", 42)
    assert R.recorded()["answer"] == 42


def test_widget_notebook_runs_in_this_process(tmp_path, monkeypatch):
    """The static figure and the live sliders, executed without a worker process."""
    monkeypatch.setattr(sys.modules["relmodel.report.pipeline.execute"], "CELL_TIMEOUT_S", 300)  # a hung cell fails the test instead of stalling it
    from relmodel.report.kernels.pool import retire_all

    try:
        result = R.execute_one(R.find_notebooks("05")[0], tmp_path, {"n_gpus": 4096})
    finally:
        retire_all()  # the run's warm kernel stays idle in this process otherwise; later tests count them
    assert result["error"] is None
    nb = nbformat.read(tmp_path / "05_interactive.ipynb", as_version=4)
    kinds = [set(o.get("data", {})) for c in nb.cells for o in c.get("outputs", [])]
    assert {"image/png", "text/plain"} in kinds  # the static figure
    assert any("application/vnd.jupyter.widget-view+json" in k for k in kinds)  # the sliders


def test_kernel_is_this_interpreter_without_any_kernelspec():
    from relmodel.report.kernels.kernel import KernelManager

    spec = KernelManager(kernel_name="no-such-kernelspec-installed").kernel_spec
    assert spec.argv[0] == sys.executable and "ipykernel_launcher" in spec.argv
    assert spec.env["MPLBACKEND"].endswith("backend_inline")  # figures even under MPLBACKEND=Agg
