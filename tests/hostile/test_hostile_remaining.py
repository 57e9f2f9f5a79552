"""No silent misreads, remaining cases: count-table exposures and cluster sizes, missing group
labels, rate comparisons without events, NaN step times, infinite covariates and times beyond
pandas' nanosecond range.

Every expected hour count is worked out here with ``datetime`` arithmetic (which holds years
1 to 9999), never by the code under test.
"""

import datetime as dt
import warnings

import numpy as np
import pandas as pd
import pytest

from relmodel.data.shaping.logs import read_log
from relmodel.data.source import load_source
from relmodel.data.formats.megatron import read_megatron
from relmodel.data.formats.steps import StepLog, read_steps
from relmodel.errors import (CountError, CovariateError, ExposureError, LogFormatError, RelmodelError,
                             TimeRangeError)
from relmodel.stats.rates.comparison import compare_rates
from relmodel.stats.regression.regression import regress
from relmodel.stats.survival.group_tests import compare_groups, gray_test
from relmodel.stragglers.slowdown import slowdown


def _hours(a, b):
    """Hours from datetime ``a`` to ``b`` by the standard library."""
    return (b - a).total_seconds() / 3600.0


# --- 1. count tables -------------------------------------------------------------------------------

COUNT_CSVS = {
    "exposure_h differs between rows": ("component,count,exposure_h,n_gpus\nGPU,3,100,64\nPSU,1,200,64\n",
                                        ExposureError, ["exposure_h", "row 2", "line 3"]),
    "days differs between rows": ("component,count,days,n_gpus\nGPU,3,10,64\nPSU,1,10,64\nNIC,2,12,64\n",
                                  ExposureError, ["days", "row 3", "line 4"]),
    "exposure_h blank in one row": ("component,count,exposure_h,n_gpus\nGPU,3,100,64\nPSU,1,,64\n",
                                    ExposureError, ["exposure_h", "row 2"]),
    "exposure_h disagrees with days": ("component,count,exposure_h,days,n_gpus\nGPU,3,240,11,64\nPSU,1,240,11,64\n",
                                       ExposureError, ["exposure_h", "days", "240", "264"]),
    "n_gpus not whole": ("component,count,exposure_h,n_gpus\nGPU,3,100,4096.7\nPSU,1,100,4096.7\n",
                         CountError, ["n_gpus", "4096.7", "whole"]),
    "n_gpus differs between rows": ("component,count,exposure_h,n_gpus\nGPU,3,100,4096\nPSU,1,100,2048\n",
                                    CountError, ["n_gpus", "row 2"]),
    "ragged row with an extra cell": ("component,count,exposure_h,n_gpus\nGPU,3,100,64\nPSU,1,100,64,9\n",
                                      LogFormatError, ["line 3", "Expected 4 fields"]),
}


@pytest.mark.parametrize("case", sorted(COUNT_CSVS))
def test_count_csv_inconsistencies_are_named(tmp_path, case):
    text, error, words = COUNT_CSVS[case]
    path = tmp_path / "counts.csv"
    path.write_text(text)
    with pytest.raises(error) as info:
        load_source(str(path))
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_count_csv_agreeing_exposure_and_days_is_read(tmp_path):
    path = tmp_path / "counts.csv"
    path.write_text("component,count,exposure_h,days,n_gpus\nGPU,3,240,10,64\nPSU,1,240,10,64\n")
    src = load_source(str(path))
    assert (src.span_h, src.source_gpus, src.n_events) == (240.0, 64, 4)  # 10 days = 240 h, 3 + 1 events


# --- 2. compare_groups -----------------------------------------------------------------------------

@pytest.mark.parametrize("blank", [None, np.nan, pd.NA])
def test_missing_group_label_is_an_error_naming_rows(blank):
    df = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 3, 4, 6, 9, 11],
                       "observed": [1, 1, 1, 0, 1, 1, 1, 1, 1, 0],
                       "fleet": pd.Series(["a", "a", blank, "a", "a", "b", "b", blank, "b", "b"], dtype=object)})
    with pytest.raises(CovariateError, match=r"'fleet' is missing in 2 rows \(index 2, 7\)"):
        compare_groups(df, "fleet")
    df["cause"] = ["x", "y"] * 5
    with pytest.raises(CovariateError, match=r"index 2, 7"):
        gray_test(df, "fleet", "cause", "x", seed=0)


# --- 3. compare_rates with no events on either side ----------------------------------------------

@pytest.mark.parametrize("a, b", [((0, 100.0), (0, 200.0)), ((0, 1.0), (0, 1e9))])
def test_no_events_in_either_is_named(a, b):
    with pytest.raises(CountError, match="no events in either"):
        compare_rates(a, b, per="job")


def test_no_events_in_either_by_component_is_named():
    from relmodel.data.shaping.counts import count_table
    t = count_table(pd.DataFrame({"component": ["GPU", "PSU"], "count": [0, 0]}), n_gpus=64, gpus_per_node=8,
                    duration="10d")
    with pytest.raises(CountError, match="no events in either"):
        compare_rates(t, t, by_component=True)


def test_one_side_with_events_still_compares():
    c = compare_rates((0, 100.0), (4, 100.0), per="job")
    # exact conditional test: P(K_a = 0 | n = 4, p = 1/2) doubled for two sides = 2 * 0.5**4
    assert c.ratio == 0.0 and c.p_value == pytest.approx(2 * 0.5 ** 4)


# --- 4. NaN step times ----------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, "abc"])
@pytest.mark.parametrize("missing", ["raise", "drop"])
def test_non_finite_step_time_names_rows(bad, missing):
    df = pd.DataFrame({"step": [0, 0, 1, 1, 2, 2], "rank": [0, 1] * 3,
                       "s": pd.Series([2.0, 2.1, bad, 2.0, 2.2, 2.3], dtype=object)})
    if bad != "abc":
        df["s"] = df["s"].astype(float)
    with pytest.raises(TimeRangeError, match=r"column 's': rows 3 have no finite step time"):
        read_steps(df, step="step", rank="rank", duration="s", missing=missing)


def test_nan_end_time_names_rows():
    df = pd.DataFrame({"step": [0, 0, 1, 1], "rank": [0, 1, 0, 1], "a": [0.0, 0, 2, 2],
                       "b": [2.0, 2.0, 4.0, np.nan]})
    with pytest.raises(TimeRangeError, match=r"column 'b': rows 4 "):
        read_steps(df, step="step", rank="rank", start="a", end="b")


def test_a_missing_row_is_still_a_hole():
    df = pd.DataFrame({"step": [0, 0, 1], "rank": [0, 1, 0], "s": [2.0, 2.1, 2.0]})
    log = read_steps(df, step="step", rank="rank", duration="s", missing="drop")
    assert log.steps.tolist() == [0]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_slowdown_refuses_non_finite_times(bad):
    grid = np.full((4, 2), 2.0 / 3600)
    grid[2, 1] = bad
    with pytest.raises(TimeRangeError, match=r"step 2, rank b"):
        slowdown(StepLog(grid, [0, 1, 2, 3], ["a", "b"]), n_boot=10, seed=0)


# --- 5. infinite covariates ------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.inf, -np.inf])
@pytest.mark.parametrize("model", ["cox", "weibull_aft"])
def test_infinite_covariate_is_named(bad, model):
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"duration_h": rng.exponential(10, 40), "observed": rng.integers(0, 2, 40),
                      "x": rng.normal(size=40), "load": rng.normal(size=40)})
    d.loc[[3, 17], "load"] = bad
    with pytest.raises(CovariateError, match=r"covariate 'load' is infinite in 2 rows \(index 3, 17\)"):
        regress(d, ["x", "load"], model=model)


# --- 6. Megatron logs ------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["nan", "NaN", "inf", "-inf", "1.2.3"])
def test_megatron_non_finite_time_is_named(bad):
    text = ("iteration 1/ 10 | elapsed time per iteration (ms): 1200.0 |\n"
            "some other line\n"
            f"iteration 2/ 10 | elapsed time per iteration (ms): {bad} |\n"
            "iteration 3/ 10 | elapsed time per iteration (ms): 1300.0 |\n")
    with pytest.raises(TimeRangeError, match=r"line 3: elapsed time per iteration"):
        read_megatron(text)


def test_megatron_numbers_still_read():
    text = ("iteration 1/ 10 | elapsed time per iteration (ms): 1.5e3|\n"
            "iteration 2/ 10 | elapsed time per iteration (ms): 1300.5 |\n")
    log = read_megatron(text)
    assert (log.times_h[:, 0] * 3600e3).round(6).tolist() == [1500.0, 1300.5]


# --- 7. times beyond pandas' nanosecond range ------------------------------------------------------
# A log spanning centuries is a misread or a placeholder date (issue 39): such dates are refused with a
# named error naming the first one, before pandas' nanosecond range (1677 to 2262) could matter.

SPANS = [("1900-01-01 00:00", "2200-01-01 00:00", 1), ("2024-01-01 00:00", "9999-01-01 00:00", 3),
         ("1600-01-01 00:00", "2024-01-01 00:00", 1), ("1677-09-22 00:00", "2262-04-12 00:00", 1)]


@pytest.mark.parametrize("a, b, row", SPANS)
@pytest.mark.parametrize("as_file", [False, True])
def test_centuries_long_spans_are_refused_naming_the_row(tmp_path, a, b, row, as_file):
    times = [a, "2024-01-01 05:00", b]
    df = pd.DataFrame({"start": times, "node": ["n1", "n2", "n3"]})
    source, where = df, f"row {row}, column 'start'"
    if as_file:
        source = tmp_path / "log.csv"
        df.to_csv(source, index=False)
        where = f"row {row} \\(line {row + 1}\\), column 'start'"
    with pytest.raises(TimeRangeError, match=where + ".*" + times[row - 1][:10] + ".*1950-01-01"):
        read_log(source, start="start", node="node")


def test_long_window_given_is_read():
    df = pd.DataFrame({"start": ["1960-01-01 00:00", "2090-01-01 00:00"],
                       "end": ["1960-01-01 02:00", "2090-01-01 03:00"], "node": ["a", "b"]})
    log = read_log(df, start="start", end="end", node="node", window=("1959-12-31 00:00", "2099-01-01 00:00"))
    t0 = dt.datetime(1959, 12, 31)
    assert log.window_h == pytest.approx((0.0, _hours(t0, dt.datetime(2099, 1, 1))))
    assert log.events["end_h"].tolist() == pytest.approx([_hours(t0, dt.datetime(1960, 1, 1, 2)),
                                                          _hours(t0, dt.datetime(2090, 1, 1, 3))])


def test_far_dates_with_offsets_are_refused():
    df = pd.DataFrame({"start": ["2024-01-01T00:00+02:00", "9999-01-01T00:00+02:00"], "node": ["a", "b"]})
    with pytest.raises(TimeRangeError, match="row 2, column 'start'.*9999-01-01"):
        read_log(df, start="start", node="node")


def test_unreadable_far_time_is_still_named():
    df = pd.DataFrame({"start": ["2024-01-01 00:00", "10000-01-01 00:00"], "node": ["a", "b"]})
    with pytest.raises(RelmodelError, match="10000-01-01"):
        read_log(df, start="start", node="node")

