"""Values that are only wrong together with a file fail before any kernel (third hostile corpus).

``-p job=<no such job>``, a reversed ``window``, an unreadable ``steps``,
``trace`` or ``lives`` file, an absurd ``ckpt_cost`` and a notebook that is not
JSON used to start kernels and leave a partial report (exit 1) or a traceback.
Each now ends with one line on stderr naming the parameter (or the notebook
file), exit 2, and no kernel started (the ``no_kernel`` fixture fails the test
if one is). A job that cannot make progress is an answer, not an error: page
03 says so instead of failing.
"""

import json
import math

import numpy as np
import pytest

import relmodel.errors

from conftest import report_cli
from relmodel.data.formats.synthetic_ops import synthetic_sacct


def refused(res, *words):
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert isinstance(res.exception, SystemExit), res.exception
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("relmodel: error: "), res.stderr
    assert "Traceback" not in res.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def event_log(tmp_path):
    path = tmp_path / "events.csv"
    path.write_text("start,node\n2024-01-01,a\n2024-01-03,b\n2024-01-05,a\n2024-01-08,c\n")
    return path


# --- the source -----------------------------------------------------------------------------------

def test_a_job_the_export_does_not_hold(tmp_path, no_kernel):
    path = tmp_path / "sacct.txt"
    synthetic_sacct(path, seed=1, days=5, nodes=20)
    jobs = {line.split("|")[1] for line in path.read_text().splitlines()[1:] if "." not in line.split("|")[0]}
    assert "nosuchjob" not in jobs  # the export's own job names, read by hand
    refused(report_cli("-n", "01", "-p", f"log={path}", "-p", "job=nosuchjob", "--out", tmp_path / "r"),
            "'job'", "nosuchjob")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("window", ["[2024-01-09, 2024-01-01]", "[2024-01-05, 2024-01-05]", "[10, 2]"])
def test_a_window_that_ends_before_it_starts(tmp_path, event_log, no_kernel, window):
    refused(report_cli("-n", "01", "-p", f"log={event_log}", "-p", "start=start", "-p", "node=node",
                       "-p", f"window={window}", "--out", tmp_path / "r"), "'window'")


def test_a_job_on_a_table_log_is_refused_before_kernels(tmp_path, event_log, no_kernel):
    refused(report_cli("-n", "01", "-p", f"log={event_log}", "-p", "start=start", "-p", "node=node",
                       "-p", "job=train", "--out", tmp_path / "r"), "'log'")


# --- the stragglers and covariates pages' files ----------------------------------------------------

@pytest.mark.parametrize("text, word", [
    ("step,rank,duration_ms,node\n0,0,abc,n0\n0,1,12,n0\n", "'steps'"),
    ("a,b\n1,2\n", "'steps'"),
    ("", "'steps'")])
def test_a_bad_step_log(tmp_path, no_kernel, text, word):
    path = tmp_path / "steps.csv"
    path.write_text(text)
    refused(report_cli("-n", "07", "-p", f"steps={path}", "--out", tmp_path / "r"), word)


@pytest.mark.parametrize("content", [b"not a parquet file", b""])
def test_a_bad_trace(tmp_path, no_kernel, content):
    path = tmp_path / "ops.parquet"
    path.write_bytes(content)
    refused(report_cli("-n", "07", "-p", f"trace={path}", "--out", tmp_path / "r"), "'trace'")


def test_a_missing_trace_is_refused_as_a_path(tmp_path, no_kernel):
    refused(report_cli("-n", "07", "-p", f"trace={tmp_path / 'nope.parquet'}", "--out", tmp_path / "r"),
            "'trace'", "no such file")


@pytest.mark.parametrize("text", ["x,y\n1,2\n", "duration_h,observed\nlong,1\n", ""])
def test_a_bad_lives_table(tmp_path, no_kernel, text):
    path = tmp_path / "lives.csv"
    path.write_text(text)
    refused(report_cli("-n", "08", "-p", f"lives={path}", "--out", tmp_path / "r"), "'lives'")


@pytest.mark.parametrize("with_table", [True, False])
def test_a_group_column_the_table_does_not_have(tmp_path, no_kernel, with_table):
    path = tmp_path / "lives.csv"
    path.write_text("duration_h,observed,rack\n10,1,a\n20,0,b\n30,1,a\n40,1,b\n")
    args = ["-p", f"lives={path}"] if with_table else []
    line = refused(report_cli("-n", "08", *args, "-p", "group_by=nosuch", "--out", tmp_path / "r"), "'group_by'")
    assert ("rack" in line) if with_table else ("cabinet_row" in line)  # the columns there are


def test_a_titan_folder_without_the_titan_file(tmp_path, no_kernel):
    folder = tmp_path / "titan"
    folder.mkdir()
    (folder / "notes.txt").write_text("not the data")
    refused(report_cli("-n", "08", "-p", f"data_path={folder}", "--out", tmp_path / "r"), "'data_path'",
            "gc_full.csv")


@pytest.mark.parametrize("args, word", [
    (["-p", "min_outage=100d"], "min_outage"),  # no end times to measure outages with
    (["-p", "time_unit=h"], "time_unit"),  # the times are timestamps
    (["-p", "format=sacct"], "'log'")])
def test_source_options_the_log_cannot_take(tmp_path, event_log, no_kernel, args, word):
    refused(report_cli("-n", "02", "-p", f"log={event_log}", "-p", "start=start", "-p", "node=node", *args,
                       "--out", tmp_path / "r"), word)


# --- checkpoint costs no run can have ------------------------------------------------------------

@pytest.mark.parametrize("notebook, args, word", [
    ("03", ["-p", "ckpt_cost=1y"], "'ckpt_cost'"),
    ("03", ["-p", "ckpt_cost=25h"], "'ckpt_cost'"),
    ("03", ["-p", "ckpt_cost=2h", "-p", "work=1h"], "'ckpt_cost'"),
    ("03", ["-p", "work=3min"], "'persist'"),  # the default 5 min write would not fit in the run
    ("03", ["-p", "fast_cost=2d"], "'fast_cost'"),
    ("04", ["-p", "ckpt_costs=[1min, 2y]"], "'ckpt_costs'"),
    ("06", ["-p", "ckpt_cost=1000d"], "'ckpt_cost'")])
def test_a_checkpoint_longer_than_a_run(tmp_path, no_kernel, notebook, args, word):
    refused(report_cli("-n", notebook, *args, "--out", tmp_path / "r"), word)


def test_a_day_long_checkpoint_is_still_taken(tmp_path):
    """The rule's edge: 24 h is allowed (the job then cannot make progress: an answer, not an error)."""
    from relmodel.report.pipeline.input_rules import check_inputs
    check_inputs({"ckpt_cost": "24h", "work": "30d"}, {"ckpt_cost": "24h"})  # no error
    with pytest.raises(relmodel.errors.ParameterError, match="ckpt_cost"):
        check_inputs({"ckpt_cost": "25h", "work": "30d"}, {"ckpt_cost": "25h"})


# --- notebooks that are not notebooks -------------------------------------------------------------

@pytest.mark.parametrize("content, word", [
    (b"not json {", "not JSON"), (b"", "not JSON"), (b"\xff\xfe\x00", "not UTF-8"),
    (b"[1, 2]", "not a notebook"), (b'{"nbformat": 4}', "cannot be read")])
def test_a_notebook_that_is_not_one(tmp_path, no_kernel, content, word):
    nb = tmp_path / "x.ipynb"
    nb.write_bytes(content)
    refused(report_cli("-n", nb, "--out", tmp_path / "r"), str(nb), word)


# --- a job that cannot make progress -------------------------------------------------------------

def test_the_simulator_names_a_job_that_never_finishes_a_segment():
    from relmodel.checkpoint.simulate import simulate_training
    from relmodel.errors import ModelInputError, NoProgressError
    # hand count: a 1 h interval against a 1 min MTBF completes a segment with chance e^-60 ~ 1e-26
    assert math.exp(-60) < 1e-25
    with pytest.raises(NoProgressError) as info:
        simulate_training("30d", "1h", "1min", "10s", "10min", n_runs=20, seed=0)
    assert isinstance(info.value, ModelInputError)  # callers that caught the old error still do


def test_page_03_renders_when_the_job_cannot_make_progress(tmp_path):
    """A small log with an outage every ~20 min on 32 GPUs: scaled to 16,384 GPUs, ETTR is near 0."""
    rng = np.random.default_rng(5)
    starts = np.cumsum(rng.exponential(1 / 3, 400))  # hours: about 3 outages an hour on 4 nodes
    lines = ["start,node"] + [f"{h:.4f},n{i % 4}" for i, h in enumerate(starts)]
    log = tmp_path / "storm.csv"
    log.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r"
    res = report_cli("-n", "03", "-p", f"log={log}", "-p", "start=start", "-p", "node=node", "-p", "time_unit=h",
                     "-p", "source_gpus=32", "-p", "n_runs=20", "-p", "n_boot=20", "--out", out)
    assert res.exit_code == 0, res.output
    page = (out / "03_checkpoint_interval.html").read_text(encoding="utf-8")
    assert "No simulation" in page and "cannot make useful progress" in page
    summary = json.loads((out / "summary.json").read_text())
    assert summary["relmodel"]["status"] == "complete"
