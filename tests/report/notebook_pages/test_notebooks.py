"""The notebook suite: committed clean, parameters cell by convention, executes under Papermill."""

import ast
import json

import nbformat
import papermill
import pytest
from click.testing import CliRunner

from relmodel.report.pipeline.params import notebook_parameters
from relmodel.report import NOTEBOOK_DIR

from conftest import SUITE_PARAMS

from test_report_content import no_raw_output

NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = ["01_log_explorer", "02_failure_distributions", "03_checkpoint_interval",
            "04_requirements_at_scale", "05_interactive", "06_designs", "07_stragglers", "08_covariates",
            "09_bad_nodes"]

#: Notebooks that draw no figure.
NO_FIGURE = {"09_bad_nodes"}  # on the default data, a count table: no nodes to draw

#: Small values so the whole suite runs in seconds: the shared report's (tests/conftest.py).
SMALL = SUITE_PARAMS


def test_the_suite_is_there():
    assert [p.stem for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name} cell {i} has outputs; clear them before committing"
            assert cell.execution_count is None, f"{path.name} cell {i} has an execution count"
    assert "widgets" not in nb.metadata, f"{path.name} carries saved widget state"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameters_cell_is_first_tagged_literals_with_comments(path):
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "parameters" in first.metadata.get("tags", []), "first code cell must be tagged 'parameters'"
    lines = [line for line in first.source.splitlines() if line.strip()]
    tree = ast.parse(first.source)
    assert len(tree.body) == len(lines), "one assignment per line, nothing else"
    for node, line in zip(tree.body, lines):
        assert isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name), line  # typed
        ast.literal_eval(node.value)  # raises unless a literal
        name, _, comment = line.partition("#")
        assert comment.strip(), f"parameter line without a comment: {line!r}"
    assert nb.metadata["kernelspec"]["language"] == "python"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_help_notebook_lists_the_parameters(path):
    from papermill.cli import papermill as papermill_cli

    result = CliRunner().invoke(papermill_cli, ["--help-notebook", str(path)])
    assert result.exit_code == 0, result.output
    ours = notebook_parameters(path)
    inferred = papermill.inspect_notebook(str(path))
    # papermill's pattern cannot read 'X | None' (nteract/papermill#806): the suite writes 'X = None'
    readable = {n for n, p in ours.items() if p.default is None or "|" not in p.type_name}
    assert set(inferred) == readable
    for name in readable:
        written = ours[name].type_name.replace(" | None", "") if ours[name].default is None else ours[name].type_name
        assert inferred[name]["inferred_type_name"] == written  # not "Unknown type"
        assert f"{name}: {written}" in result.output and ours[name].comment in result.output


def test_later_cells_only_call_the_package():
    """No function or class definitions live in a notebook: the logic is in relmodel."""
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and not cell.source.lstrip().startswith("%"):
                source = "\n".join(l for l in cell.source.splitlines() if not l.startswith("%"))
                defs = [n for n in ast.walk(ast.parse(source))
                        if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
                assert not defs, f"{path.name} defines {defs[0].name}; move it into relmodel"


def test_every_notebook_executes_under_papermill(suite_report):
    assert suite_report.exit_code == 0, suite_report.output
    folder = suite_report.path
    summary = json.loads((folder / "summary.json").read_text())
    assert [nb["name"] for nb in summary["notebooks"]] == EXPECTED
    for name in EXPECTED:
        nb = nbformat.read(folder / f"{name}.ipynb", as_version=4)
        errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
        assert not errors, f"{name}: {errors[0]['ename']}: {errors[0]['evalue']}"
        injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
        taken = set(notebook_parameters(NOTEBOOK_DIR / f"{name}.ipynb")) & set(SMALL)
        assert bool(injected) == bool(taken)
        html = (folder / f"{name}.html").read_text(encoding="utf-8")
        assert "<img" in html or name in NO_FIGURE
        no_raw_output(folder / f"{name}.html")
    # issue 36's headline: the decision's numbers with their ranges, each input's source, and the design page's
    assert {"ettr", "ettr_lo", "ettr_hi", "optimal_interval_h", "job_mtbf_h", "required_node_mtbf_h",
            "todays_node_mtbf_h", "restart_h", "source"} <= set(summary["headline"])
    # the design page's figures sit under the designs, apart from the job's answer
    assert not {"design_ettr", "design_goodput_per_gpu"} & set(summary["headline"])
    assert {"design_ettr", "design_goodput_per_gpu", "examined_design", "best_design"} <= set(summary["designs"])
    assert summary["parameters"] == SMALL
