import json
import lzma
import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel import datasets

from conftest import SHARED


def test_llama3_table_matches_reference(llama3):
    # Llama 3 Herd of Models (Meta 2024, arXiv 2407.21783), section 3.3.4, Table 5
    assert llama3.n_unexpected == 419 and llama3.n_planned == 47
    assert llama3.n_gpus == 16384 and llama3.n_nodes == 2048 and llama3.duration_h == 54 * 24
    t = llama3.counts.set_index("component")
    assert t.loc["Faulty GPU", "count"] == 148 and t.loc["GPU HBM3 Memory", "count"] == 72
    gpu = llama3.counts[llama3.counts.category == "GPU"]
    assert gpu["count"].sum() == 268  # 64.0%, not the printed 58.7%
    assert gpu["printed_pct"].sum() == pytest.approx(58.7)


def test_llama3_printed_share_disagreement_is_shown(llama3):
    bad = llama3.disagreements()
    assert bad["component"].tolist() == ["Faulty GPU"]
    assert bad["share_pct"].iloc[0] == pytest.approx(100 * 148 / 419)
    html = llama3._repr_html_()
    assert "30.1" in html and "35.3" in html


def test_stepfun_log_shape(stepfun_log):
    raw = json.load(lzma.open(datasets.data_dir() / "stepfun-infinitehbd" / "fault_trace.json.xz", "rt"))
    n_start = sum(r["event_type"] == "fault_start" for r in raw)
    assert len(stepfun_log) == n_start == 584
    assert stepfun_log.n_nodes == 400 and stepfun_log.events["node"].nunique() == 231
    assert stepfun_log.cause_columns == ["Level", "Class", "Desc"]
    assert stepfun_log.origin == pd.Timestamp("2024-03-30")
    last = max(r["event_time"] for r in raw)
    assert stepfun_log.window_h[1] == pytest.approx(last * 24)
    assert (stepfun_log.events["end_h"] >= stepfun_log.events["start_h"]).all()


def test_stepfun_counts_match_its_statistics_file(stepfun_log):
    stats = json.load(open(datasets.data_dir() / "stepfun-infinitehbd" / "fault_statistics.json"))
    gpu = stats["Hardware Failure"]["GPU"]["ClassTotal"]
    assert (stepfun_log.events["Class"] == "GPU").sum() == gpu


def test_stepfun_downtimes_are_fault_durations(stepfun_log):
    d = stepfun_log.downtimes()
    assert d.observed.all() and (d.hours >= 0).all()
    assert len(d) == len(stepfun_log) - (stepfun_log.problems()["problem"] == "overlap").sum()


@pytest.mark.parametrize("name", ["stepfun", "lanl", "llama3_54day"])
def test_bundled_datasets_load_quietly(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = getattr(datasets, name)()
    assert data is not None


def test_bundled_problems_stay_available_and_user_logs_still_warn(stepfun_log, tmp_path):
    # data/README.md: two StepFun faults start while their node is already down
    assert (stepfun_log.problems()["problem"] == "overlap").sum() == 2
    p = tmp_path / "mine.csv"
    p.write_text("start,end,node\n0,2,a\n1,3,a\n0,2,a\n")
    with pytest.warns(relmodel.data.LogWarning, match="duplicate"):
        relmodel.read_log(p, start="start", end="end", node="node", time_unit="h")


def test_lanl_recipe_reports_duplicates():
    log = datasets.lanl()
    p = log.problems()
    # the datasets README: 25 rows are exact duplicates
    assert (p["problem"] == "duplicate").sum() == 25
    raw = pd.read_csv(datasets.data_dir() / "lanl-1996-2005" / "LA-UR-05-7318-failure-data-1996-2005.csv.xz",
                      low_memory=False)
    dropped = p["problem"].isin(["duplicate", "outside window"]).sum()
    assert len(log) == len(raw) - dropped
    assert set(log.events["category"]) <= set(datasets.LANL_CAUSE_COLUMNS) | {"Unknown"}


def test_lanl_recipe_reads_shared_copy_when_present():
    path = SHARED / "lanl-1996-2005" / "LA-UR-05-7318-failure-data-1996-2005.csv.xz"
    src = path if path.exists() else None  # a user's clone has no ../shared: use the bundled copy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = datasets.lanl(src, systems=[20])
    assert set(a.events["node"].str.split("/").str[0]) == {"20"}


def test_grid5000_recipe(tmp_path):
    # a tiny trace in the FTA tab format; the real one lives in ../shared/datasets/grid5000-fta
    rows = ["# event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time event_end_reason",
            "0\t0\t0\t5\tn1\t1\t1000\t4600\tNULL",
            "1\t0\t0\t5\tn1\t0\t4600\t8200\tNULL",
            "2\t0\t0\t5\tn1\t1\t8200\t19000\tNULL",
            "3\t0\t1\t5\tn2\t1\t1000\t19000\tNULL"]
    (tmp_path / "event_trace.tab").write_text("\n".join(rows) + "\n")
    log = datasets.grid5000(tmp_path)
    assert len(log) == 1 and log.n_nodes == 2
    np.testing.assert_allclose(log.events[["start_h", "end_h"]].to_numpy(), [[1.0, 2.0]])
    assert log.window_h == (0.0, 5.0)
    np.testing.assert_allclose(log.uptimes().hours, [3.0])


def test_load_by_name_and_path(tmp_path):
    assert isinstance(datasets.load("llama3"), relmodel.data.CountTable)
    p = tmp_path / "x.csv"
    p.write_text("t\n2024-01-01\n2024-01-02\n")
    assert len(datasets.load(p, start="t")) == 2
    with pytest.raises(relmodel.errors.MissingColumnError, match="start"):
        datasets.load(p)
