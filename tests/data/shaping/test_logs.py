import gzip
import lzma
import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel import errors

CSV = """time,end,host,rack,reason,planned
2024-01-01 00:00,2024-01-01 01:00,n1,r1,gpu,no
2024-01-01 10:00,2024-01-01 12:00,n2,r1,nic,no
2024-01-02 00:00,2024-01-02 00:30,n1,r1,gpu,yes
2024-01-03 00:00,2024-01-03 02:00,n1,r2,psu,no
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(p, "wt") as fh:
            fh.write(text)
    elif name.endswith(".xz"):
        with lzma.open(p, "wt") as fh:
            fh.write(text)
    else:
        p.write_text(text)
    return p


@pytest.mark.parametrize("name", ["log.csv", "log.csv.gz", "log.csv.xz"])
def test_read_csv_variants(tmp_path, name):
    log = relmodel.read_log(write(tmp_path, name, CSV), start="time", end="end", node="host",
                            cause="reason", planned="planned")
    assert len(log) == 4
    np.testing.assert_allclose(log.events["start_h"], [0, 10, 24, 48])
    np.testing.assert_allclose(log.events["end_h"], [1, 12, 24.5, 50])
    assert log.events["planned"].tolist() == [False, False, True, False]
    assert log.window_h == (0.0, 50.0)
    assert log.origin == pd.Timestamp("2024-01-01")


def test_read_parquet_and_json(tmp_path):
    df = pd.read_csv(pd.io.common.StringIO(CSV))
    df.to_parquet(tmp_path / "log.parquet")
    df.to_json(tmp_path / "log.json", orient="records")
    a = relmodel.read_log(tmp_path / "log.parquet", start="time", end="end", node="host")
    b = relmodel.read_log(tmp_path / "log.json", start="time", end="end", node="host")
    np.testing.assert_allclose(a.events["start_h"], b.events["start_h"])


def test_several_node_columns_make_one_key(tmp_path):
    log = relmodel.read_log(write(tmp_path, "l.csv", CSV), start="time", node=["rack", "host"])
    assert set(log.events["node"]) == {"r1/n1", "r1/n2", "r2/n1"}


def test_timezone_offsets_respected():
    df = pd.DataFrame({"t": ["2024-01-01T00:00:00+00:00", "2024-01-01T03:00:00+02:00"]})
    log = relmodel.read_log(df, start="t")
    np.testing.assert_allclose(log.events["start_h"], [0.0, 1.0])


def test_numeric_times_with_unit_and_window():
    df = pd.DataFrame({"t": [1.0, 2.0, 4.0], "node": ["a", "b", "a"]})
    log = relmodel.read_log(df, start="t", node="node", time_unit="d", window=(0, 5))
    np.testing.assert_allclose(log.events["start_h"], [24, 48, 96])
    assert log.window_h == (0.0, 120.0)
    ia = log.interarrivals()
    np.testing.assert_allclose(ia.hours, [24, 48, 24])
    assert ia.observed.tolist() == [True, True, False]


def test_uptimes_and_downtimes(tmp_path):
    log = relmodel.read_log(write(tmp_path, "l.csv", CSV), start="time", end="end", node="host")
    up = log.uptimes().to_frame().sort_values(["group", "hours"])
    # n1: outages [0,1], [24,24.5], [48,50]; window ends at 50 -> tail 0 is dropped
    n1 = up[up.group == "n1"]
    np.testing.assert_allclose(n1.hours, [23.0, 23.5])
    assert n1.observed.all()
    n2 = up[up.group == "n2"]
    np.testing.assert_allclose(n2.hours, [38.0])  # 12 -> 50, censored
    assert not n2.observed.any()
    np.testing.assert_allclose(np.sort(log.downtimes().hours), [0.5, 1, 2, 2])


def test_interarrivals_exclude_planned_by_default(tmp_path):
    log = relmodel.read_log(write(tmp_path, "l.csv", CSV), start="time", end="end", planned="planned")
    np.testing.assert_allclose(log.interarrivals().hours, [10, 38, 2])
    np.testing.assert_allclose(log.interarrivals(include_planned=True).hours, [10, 14, 24, 2])


def test_duplicates_and_overlaps_reported_not_double_counted():
    df = pd.DataFrame({"s": [0.0, 0.0, 5.0, 6.0, 20.0], "e": [1.0, 1.0, 10.0, 8.0, 21.0],
                       "n": ["a", "a", "a", "a", "b"], "c": ["x", "x", "y", "z", "x"]})
    with pytest.warns(relmodel.data.LogWarning, match="overlap.*duplicate|duplicate.*overlap"):
        log = relmodel.read_log(df, start="s", end="e", node="n", cause="c", time_unit="h")
    p = log.problems()
    assert sorted(p["problem"]) == ["duplicate", "overlap"]
    assert p.set_index("problem").loc["duplicate", "row"] == 2
    assert len(log) == 4  # the duplicate is dropped
    np.testing.assert_allclose(np.sort(log.downtimes().hours), [1, 1, 5])  # [5,10] and [6,8] merged
    np.testing.assert_allclose(log.interarrivals().hours, [5, 15, 1])  # overlap is not a new interruption


def test_simultaneous_starts_count_once_in_interarrivals():
    df = pd.DataFrame({"s": [0.0, 3.0, 3.0, 7.0], "n": ["a", "b", "c", "a"]})
    log = relmodel.read_log(df, start="s", node="n", time_unit="h")
    np.testing.assert_allclose(log.interarrivals().hours, [3, 4])
    assert (log.problems()["problem"] == "simultaneous").sum() == 1


# ---- bad input: each kind gets its named error naming file, row and column ----

def test_missing_column(tmp_path):
    with pytest.raises(errors.MissingColumnError, match=r"l\.csv.*'stamp'.*'time'"):
        relmodel.read_log(write(tmp_path, "l.csv", CSV), start="stamp")


def test_unparsable_time_names_row_and_column(tmp_path):
    bad = CSV.replace("2024-01-02 00:00", "yesterday")
    with pytest.raises(errors.TimeParseError, match=r"l\.csv, row 3 \(line 4\), column 'time'.*'yesterday'"):
        relmodel.read_log(write(tmp_path, "l.csv", bad), start="time", end="end")


def test_end_before_start(tmp_path):
    bad = CSV.replace("2024-01-01 12:00", "2024-01-01 09:00")
    with pytest.raises(errors.EndBeforeStartError, match=r"row 2 \(line 3\), column 'end'"):
        relmodel.read_log(write(tmp_path, "l.csv", bad), start="time", end="end")


def test_empty_file(tmp_path):
    with pytest.raises(errors.EmptyDataError, match="empty"):
        relmodel.read_log(write(tmp_path, "l.csv", ""), start="time")
    with pytest.raises(errors.EmptyDataError, match="no rows"):
        relmodel.read_log(write(tmp_path, "h.csv", "time,end\n"), start="time")


def test_unknown_file_type(tmp_path):
    with pytest.raises(errors.UnknownFileTypeError, match=r"\.csv.*\.parquet"):
        relmodel.read_log(write(tmp_path, "l.xlsx", CSV), start="time")


def test_unknown_unit_and_numbers_without_unit():
    df = pd.DataFrame({"t": [1.0, 2.0]})
    with pytest.raises(errors.UnitError, match="fortnight"):
        relmodel.read_log(df, start="t", time_unit="fortnight")
    with pytest.raises(errors.UnitError, match="time_unit"):
        relmodel.read_log(df, start="t")


def test_bad_planned_value(tmp_path):
    bad = CSV.replace(",yes", ",perhaps")
    with pytest.raises(errors.LogFormatError, match=r"row 3 \(line 4\), column 'planned'.*perhaps"):
        relmodel.read_log(write(tmp_path, "l.csv", bad), start="time", planned="planned")


def test_errors_are_value_errors():
    assert issubclass(errors.TimeParseError, ValueError)
    assert issubclass(errors.CountError, ValueError)
