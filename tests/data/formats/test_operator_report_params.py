"""Report parameters for Slurm exports and kernel logs are checked before any kernel starts."""

import pytest

from relmodel.data.bundled.datasets import data_dir
from relmodel.errors import ParameterError
from relmodel.report.pipeline import params as P
from conftest import REPO

NOTEBOOKS = {p.stem: P.notebook_parameters(p) for p in sorted((REPO / "notebooks").glob("0[1-5]_*.ipynb"))}
SACCT = str(data_dir() / "ops-example" / "sacct.txt")
SYSLOG = str(data_dir() / "ops-example" / "syslog")


def test_every_notebook_reading_the_log_takes_format_job_and_year():
    for name, params in NOTEBOOKS.items():
        assert {"format", "job", "year"} <= set(params), name
    assert "ckpt_interval" in NOTEBOOKS["03_checkpoint_interval"]


def test_a_slurm_export_and_a_kernel_log_need_no_columns():
    out = P.validate({"log": SACCT, "format": "sacct", "job": "pretrain", "ckpt_interval": "30min"}, NOTEBOOKS)
    assert out["03_checkpoint_interval"]["ckpt_interval"] == "30min"
    assert out["01_log_explorer"]["job"] == "pretrain" and "ckpt_interval" not in out["01_log_explorer"]
    P.validate({"log": SYSLOG, "year": 2024}, NOTEBOOKS)          # recognised from its first lines


@pytest.mark.parametrize("bad, match", [({"format": "slurm"}, "'table', 'sacct'"), ({"year": 1900}, "whole year"),
                                        ({"ckpt_interval": "-5min"}, "duration > 0"), ({"job": ""}, "job name")])
def test_bad_values_are_refused(bad, match):
    with pytest.raises(ParameterError, match=match):
        P.validate({"log": SACCT, **bad}, NOTEBOOKS)


def test_format_table_keeps_the_column_check():
    with pytest.raises(ParameterError, match="cannot read the columns"):  # read as a table: not one
        P.validate({"log": SACCT, "format": "table"}, NOTEBOOKS)
