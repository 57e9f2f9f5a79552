"""Report parameters a user can find and use: readable by papermill, lists for node and cause,
and the observed cluster checked before any kernel starts."""

import papermill
import pytest

from relmodel.errors import ParameterError
from relmodel.report import NOTEBOOK_DIR
from relmodel.report.pipeline.params import notebook_parameters
from relmodel.report.pipeline.run import plan

LOG_PARAMS = ("start", "end", "node", "cause", "planned", "time_format", "time_unit", "source_gpus", "exposure")


@pytest.mark.parametrize("name", ["01_log_explorer", "03_checkpoint_interval", "05_interactive"])
def test_papermill_lists_the_log_parameters(name):
    path = NOTEBOOK_DIR / f"{name}.ipynb"
    inferred = papermill.inspect_notebook(str(path))
    ours = notebook_parameters(path)
    for p in LOG_PARAMS:
        assert p in inferred, p
        assert ours[p].default is None and ours[p].type_name.endswith("| None")
    assert ours["node"].type_name == "list[str] | None" and ours["cause"].type_name == "list[str] | None"


@pytest.fixture
def disk_log(tmp_path):
    path = tmp_path / "disks.csv"
    path.write_text("time,SSC,SSU,Enclosure,Slot,reason\n"
                    "2024-01-01,1,2,3,4,bad\n2024-01-03,1,2,3,5,bad\n2024-01-04,2,1,1,1,worn\n")
    return path


def test_node_takes_a_list_of_columns_or_one(disk_log):
    plans = plan(["01"], {"log": str(disk_log), "start": "time", "node": ["SSC", "SSU", "Enclosure", "Slot"],
                          "cause": "reason"})
    assert plans[0][1]["node"] == ["SSC", "SSU", "Enclosure", "Slot"]
    assert plan(["01"], {"log": str(disk_log), "start": "time", "node": "Slot"})[0][1]["node"] == "Slot"
    with pytest.raises(ParameterError, match="no such column"):
        plan(["01"], {"log": str(disk_log), "start": "time", "node": ["SSC", "Rack"]})


def test_a_log_without_nodes_needs_source_gpus_before_any_kernel(disk_log):
    with pytest.raises(ParameterError, match="'source_gpus' or 'node' is needed"):
        plan(["03"], {"log": str(disk_log), "start": "time"})
    assert plan(["03"], {"log": str(disk_log), "start": "time", "source_gpus": 64})


def test_a_count_table_without_n_gpus_needs_source_gpus(tmp_path):
    table = tmp_path / "counts.csv"
    table.write_text("component,count\nGPU,10\nNetwork,4\n")
    with pytest.raises(ParameterError, match="'source_gpus' is needed for the count table"):
        plan(["04"], {"log": str(table), "exposure": "30d"})
    assert plan(["04"], {"log": str(table), "exposure": "30d", "source_gpus": 4096})
