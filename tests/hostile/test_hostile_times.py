"""Times a careful user would not accept silently (issue 39): absurd dates, two-digit years read across
the %y pivot, and Parquet columns that are mixed-zone, nested or null.

Each case names the file, the row (and line) or the column, and says what would be valid; the
accepted neighbours are checked against hours worked out here with ``datetime``.
"""

import datetime as dt
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from relmodel.data.shaping.logs import read_log
from relmodel.errors import (AmbiguousDateError, LogFormatError, MixedTimeZoneError, TimeParseError,
                             TimeRangeError, WindowError)


def _csv(tmp_path, rows, name="log.csv"):
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


# --- absurd dates --------------------------------------------------------------------------------

@pytest.mark.parametrize("absurd", ["0001-01-01 00:00", "9999-12-31 00:00", "1900-01-01 00:00", "2100-01-01 00:00"])
@pytest.mark.parametrize("fmt", [None, "%Y-%m-%d %H:%M"])
def test_one_absurd_date_in_a_csv_is_refused_naming_row_and_line(tmp_path, absurd, fmt):
    path = _csv(tmp_path, {"start": ["2024-01-01 10:00", "2024-01-09 00:00", absurd, "2024-02-01 00:00"],
                           "node": ["a", "b", "c", "d"]})
    with pytest.raises(TimeRangeError, match=rf"row 3 \(line 4\), column 'start': '{absurd}.*1950-01-01.*2100"):
        read_log(path, start="start", node="node", time_format=fmt)


def test_an_absurd_end_in_a_dataframe_is_refused():
    df = pd.DataFrame({"start": ["2024-01-01 10:00", "2024-01-09 00:00"], "end": ["2024-01-01 11:00", "9999-12-31 00:00"],
                       "node": ["a", "b"]})
    with pytest.raises(TimeRangeError, match="row 2, column 'end'"):
        read_log(df, start="start", end="end", node="node")


def test_an_absurd_date_in_parquet_is_refused(tmp_path):
    table = pa.table({"start": pa.array([dt.datetime(2024, 1, 1), dt.datetime(1, 1, 1)], pa.timestamp("us")),
                      "node": ["a", "b"]})
    pq.write_table(table, tmp_path / "log.parquet")
    with pytest.raises(TimeRangeError, match="row 2, column 'start': '0001-01-01"):
        read_log(tmp_path / "log.parquet", start="start", node="node")


def test_the_edges_of_the_range_are_read():
    df = pd.DataFrame({"start": ["1950-01-01 00:00", "2099-12-31 23:59"], "node": ["a", "b"]})
    log = read_log(df, start="start", node="node")
    want = (dt.datetime(2099, 12, 31, 23, 59) - dt.datetime(1950, 1, 1)).total_seconds() / 3600
    assert log.window_h == pytest.approx((0.0, want))


# --- two-digit years -----------------------------------------------------------------------------

@pytest.mark.parametrize("as_file", [False, True])
def test_two_digit_years_across_the_pivot_are_refused(tmp_path, as_file):
    df = pd.DataFrame({"start": ["31/12/68 10:00", "01/01/69 10:00"], "node": ["a", "b"]})
    source = _csv(tmp_path, df) if as_file else df
    with pytest.raises(AmbiguousDateError, match=r"'31/12/68 10:00'.*2068.*'01/01/69 10:00'.*1969|"
                                                 r"'01/01/69 10:00'.*1969.*'31/12/68 10:00'.*2068"):
        read_log(source, start="start", node="node", time_format="%d/%m/%y %H:%M")


def test_two_digit_years_of_a_short_log_over_new_year_2000_are_read():
    df = pd.DataFrame({"start": ["30/12/99 10:00", "02/01/00 04:00"], "node": ["a", "b"]})
    log = read_log(df, start="start", node="node", time_format="%d/%m/%y %H:%M")
    want = (dt.datetime(2000, 1, 2, 4) - dt.datetime(1999, 12, 30, 10)).total_seconds() / 3600
    assert log.window_h == pytest.approx((0.0, want))


def test_the_cli_refuses_the_pivot_in_one_line(tmp_path):
    import subprocess
    import sys
    path = _csv(tmp_path, {"start": ["31/12/68 10:00", "01/01/69 10:00"], "node": ["a", "b"]})
    done = subprocess.run([sys.executable, "-m", "relmodel", "rates", str(path), "--start", "start", "--node", "node",
                           "--time-format", "%d/%m/%y %H:%M"], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "two-digit years" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# --- Parquet -------------------------------------------------------------------------------------

def _times(*days, tz=None):
    return pa.array([dt.datetime(2024, 1, d) if d else None for d in days], pa.timestamp("us", tz=tz))


def test_parquet_aware_start_and_naive_end_are_refused(tmp_path):
    pq.write_table(pa.table({"start": _times(1, 2, 5, tz="UTC"), "end": _times(2, 3, 6), "node": ["a", "b", "c"]}),
                   tmp_path / "log.parquet")
    with pytest.raises(MixedTimeZoneError, match="column 'start' holds times with a time zone but column 'end'"):
        read_log(tmp_path / "log.parquet", start="start", end="end", node="node")


def test_parquet_naive_start_and_aware_last_healthy_are_refused(tmp_path):
    pq.write_table(pa.table({"start": _times(2, 3, 5), "seen": _times(1, 2, 4, tz="UTC"), "node": ["a", "b", "c"]}),
                   tmp_path / "log.parquet")
    with pytest.raises(MixedTimeZoneError, match="'seen'"):
        read_log(tmp_path / "log.parquet", start="start", node="node", last_healthy="seen")


@pytest.mark.parametrize("role", ["node", "cause", "start", "planned"])
@pytest.mark.parametrize("nested", [pa.array([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]), pa.array([[1], [2]])])
def test_parquet_nested_columns_are_refused_naming_the_column(tmp_path, role, nested):
    cols = {"start": _times(1, 3), "node": pa.array(["a", "b"]), "cause": pa.array(["x", "y"]),
            "planned": pa.array([True, False])}
    cols[role] = nested
    pq.write_table(pa.table(cols), tmp_path / "log.parquet")
    with pytest.raises(LogFormatError, match=f"column '{role}': holds nested values"):
        read_log(tmp_path / "log.parquet", start="start", node="node", cause="cause", planned="planned")


def test_json_lists_as_node_names_are_refused(tmp_path):
    path = tmp_path / "log.json"
    path.write_text(json.dumps([{"start": "2024-01-01 00:00", "node": ["a"]},
                                {"start": "2024-01-03 00:00", "node": ["b"]}]))
    with pytest.raises(LogFormatError, match="row 1, column 'node': holds a nested value"):
        read_log(path, start="start", node="node")


def test_parquet_null_start_is_named_not_a_window_problem(tmp_path):
    pq.write_table(pa.table({"start": _times(1, None, 3), "node": ["a", "b", "c"]}), tmp_path / "log.parquet")
    with pytest.raises(TimeParseError, match="row 2, column 'start': the time is missing"):
        read_log(tmp_path / "log.parquet", start="start", node="node")


def test_parquet_null_end_is_an_open_outage(tmp_path):
    pq.write_table(pa.table({"start": _times(1, 2, 3), "end": _times(2, None, 4), "node": ["a", "b", "c"]}),
                   tmp_path / "log.parquet")
    log = read_log(tmp_path / "log.parquet", start="start", end="end", node="node")
    assert log.events["end_h"].isna().tolist() == [False, True, False]


def test_a_window_of_centuries_is_refused():
    df = pd.DataFrame({"start": ["2024-01-02 00:00", "2024-03-01 00:00"], "node": ["a", "b"]})
    with pytest.raises(WindowError, match="outside the dates"):
        read_log(df, start="start", node="node", window=("2024-01-01", "9999-12-31"))
