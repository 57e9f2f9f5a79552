"""The window and unit report parameters: checked before any kernel starts, applied by the data
source, listed by papermill and by `relmodel report --help` from the notebooks themselves."""

import ast
import re

import nbformat
import papermill
import pytest
from click.testing import CliRunner

from relmodel.cli.main import cli
from relmodel.data.source import load_source
from relmodel.errors import ParameterError, UnitError, WindowError
from relmodel.report import NOTEBOOK_DIR
from relmodel.report.pipeline.run import plan
from relmodel.report.pipeline.summary import null_reasons

DATA_PAGES = ["01_log_explorer", "02_failure_distributions", "03_checkpoint_interval",
              "04_requirements_at_scale", "05_interactive"]


@pytest.fixture
def one_event(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("failed,repaired,disk\n2024-01-05 10:00,2024-01-05 12:00,d1\n")
    return path


@pytest.fixture
def disks(tmp_path):
    path = tmp_path / "disks.csv"
    path.write_text("failed,repaired,disk,reason\n"
                    "2024-01-02 00:00,2024-01-02 06:00,d1,media\n"
                    "2024-01-10 00:00,2024-01-10 03:00,d2,media\n"
                    "2024-01-20 00:00,2024-01-21 00:00,d3,controller\n"
                    "2024-02-01 00:00,2024-02-01 02:00,d1,media\n")
    return path


def test_window_as_a_length_from_the_first_outage(one_event):
    with pytest.raises(WindowError, match="cannot be known from one event"):
        load_source(str(one_event), start="failed", end="repaired", source_gpus=64)
    src = load_source(str(one_event), start="failed", end="repaired", source_gpus=64, window="54d")
    assert src.span_h == 54 * 24  # 1,296 h by hand
    assert src.data.window_h == (0.0, 1296.0)


def test_window_as_a_pair_of_times(disks):
    src = load_source(str(disks), start="failed", end="repaired", node="disk",
                      window=["2024-01-01", "2024-03-01"])
    assert src.span_h == 60 * 24  # January 31 days + February 29 days (2024 is a leap year)


def test_window_checked_before_any_kernel(disks):
    base = {"log": str(disks), "start": "failed", "node": "disk"}
    for good in ("54d", ["54d"], ["2024-01-01", "2024-03-01"]):
        chosen = {p.stem: v for p, v in plan(DATA_PAGES, {**base, "window": good})}
        assert set(chosen) == set(DATA_PAGES)
        assert all("window" in v for v in chosen.values())
    assert plan(["01"], {**base, "window": ["54d"]})[0][1]["window"] == "54d"
    # [0, 100]: numbers for a log of timestamps, refused once the validate step has read the log
    for bad in ("soon", ["2024-01-01", "2024-02-01", "2024-03-01"], "-3d", True, [0, 100]):
        with pytest.raises(ParameterError, match="window"):
            plan(["01"], {**base, "window": bad})
    with pytest.raises(ParameterError, match="bundled data set 'llama3' has its own window"):
        plan(["03"], {"window": "54d"})
    table = disks.parent / "counts.csv"
    table.write_text("component,count\nGPU,10\n")
    with pytest.raises(ParameterError, match="'window' is for an event log; the count table"):
        plan(["03"], {"log": str(table), "source_gpus": 64, "exposure": "30d", "window": "54d"})


def test_unit_checked_before_any_kernel(disks):
    base = {"log": str(disks), "start": "failed", "node": "disk"}
    assert plan(["02"], {**base, "unit": "disk"})[0][1]["unit"] == "disk"
    with pytest.raises(ParameterError, match="'gpu-node' \\(default\\), or 'node', 'disk', 'server'"):
        plan(["02"], {**base, "unit": "rack"})
    with pytest.raises(ParameterError, match="its own unit"):
        plan(["04"], {"unit": "disk"})
    # gpus_per_node=0: the units hold no GPUs; the planned job keeps 8 GPUs a node
    chosen = plan(["03"], {**base, "gpus_per_node": 0})[0][1]
    assert chosen["unit"] == "node" and chosen["gpus_per_node"] == 8


def test_a_disk_log_is_stated_in_disks(disks):
    src = load_source(str(disks), start="failed", end="repaired", node="disk", cause="reason", unit="disk")
    assert src.units_text() == "3 disks"  # d1, d2, d3 by hand
    assert "3 disks" in src.describe() and "GPU" not in src.describe()
    assert "3 disks seen in the log" in src.cluster_from
    facts = src.to_dict()
    assert facts["unit"] == "disk" and facts["counted"] == "3 disks" and facts["units"] == 3
    assert facts["source_gpus"] is None
    assert "not GPU nodes" in null_reasons({"source": facts}, {})["source.source_gpus"]
    node = load_source(str(disks), start="failed", end="repaired", node="disk", gpus_per_node=0)
    assert node.unit == "node" and node.units_text() == "3 nodes" and node.gpus_per_node == 8
    with pytest.raises(UnitError, match="leave source_gpus unset"):
        load_source(str(disks), start="failed", node="disk", unit="disk", source_gpus=800)
    with pytest.raises(UnitError, match="'gpu-node', 'node', 'disk', 'server'"):
        load_source(str(disks), start="failed", node="disk", unit="rack")


def _cell_lines(name):
    """name -> (annotation, default, comment) read straight from the notebook's parameters cell."""
    nb = nbformat.read(NOTEBOOK_DIR / f"{name}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    out = {}
    for line in cell.source.splitlines():
        m = re.match(r"(\w+): ([^=]+) = (.+?)  # (.*)$", line)
        out[m.group(1)] = (m.group(2).strip(), ast.literal_eval(m.group(3)), m.group(4))
    return out


def test_papermill_lists_window_and_unit():
    for name in DATA_PAGES:
        inferred = papermill.inspect_notebook(str(NOTEBOOK_DIR / f"{name}.ipynb"))
        assert inferred["window"]["default"] == "None"
        assert inferred["unit"]["default"] == '"gpu-node"'
        assert inferred["window"]["help"] == _cell_lines(name)["window"][2]


def test_report_help_lists_the_data_parameters_from_the_notebooks():
    text = CliRunner().invoke(cli, ["report", "--help"], terminal_width=400).output
    help_part = text.split("Data parameters", 1)[1]
    common = set.intersection(*(set(_cell_lines(n)) for n in DATA_PAGES))
    for name in ("log", "start", "node", "cause", "source_gpus", "min_outage", "window", "unit"):
        assert name in common
        _, default, comment = _cell_lines("01_log_explorer")[name]
        assert re.search(rf"^\s+{name}: \S.* = {re.escape(repr(default))}\s+{re.escape(comment)}$",
                         help_part, re.M), name
    assert "n_gpus:" not in help_part  # a planning parameter, not a data one
