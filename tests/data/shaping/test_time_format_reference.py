"""read_log with an explicit time_format against times parsed one by one with ``datetime.strptime``.

The reference in this file is Python's own ``strptime`` in a loop over the
written values (aware times converted to UTC), and hours as exact
microsecond differences divided by an hour: no relmodel or pandas code.
Formats cover the vectorised reader (fixed-width numeric layouts, day first,
with a 'T', two-digit years, values split over many chunks and blocks, with
missing ends) and the general one (fractional seconds, UTC offsets).  Bad rows
raise the same named errors as before, naming their row.
"""

import warnings
from datetime import datetime, timedelta, timezone

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from relmodel import read_log
from relmodel.data.shaping import fastdates
from relmodel.data.shaping.fastdates import parse_fixed
from relmodel.errors import AmbiguousDateError, TimeParseError, TimeRangeError

RANGE = (pd.Timestamp("1950-01-01"), pd.Timestamp("2100-01-01"))
HOUR_US = 3_600_000_000


def _written(rng, n, fmt, zones=False):
    """``n`` start and end times (in time order) written in ``fmt``; ``zones``: each with its own offset."""
    base = datetime(2001, 1, 1)
    seconds = np.sort(rng.integers(0, 60 * 365 * 86400, n))
    starts, ends = [], []
    for s, d, us in zip(seconds, rng.integers(60, 86400, n), rng.integers(0, 10**6, n)):
        t = base + timedelta(seconds=int(s), microseconds=int(us) if "%f" in fmt else 0)
        e = t + timedelta(seconds=int(d))
        if zones:
            tz = timezone(timedelta(minutes=int(rng.integers(-12, 13)) * 60 + int(rng.choice([0, 30]))))
            t, e = t.replace(tzinfo=tz), e.replace(tzinfo=tz)
        starts.append(t.strftime(fmt))
        ends.append(e.strftime(fmt))
    return starts, ends


def _reference_hours(starts, ends, fmt):
    """The earliest start (UTC) and hours from it, by ``datetime.strptime`` value by value (NaN for a
    missing end)."""
    def us(text):
        t = datetime.strptime(text, fmt)
        if t.tzinfo is not None:
            t = t.astimezone(timezone.utc).replace(tzinfo=None)
        return (t - datetime(1970, 1, 1)) // timedelta(microseconds=1)
    s = [us(v) for v in starts]
    e = [None if v is None else us(v) for v in ends]
    origin = min(s)
    return datetime(1970, 1, 1) + timedelta(microseconds=origin), (np.array([(v - origin) / HOUR_US for v in s]),
            np.array([np.nan if v is None else (v - origin) / HOUR_US for v in e]))


def _read(path, fmt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = read_log(path, start="start", end="end", node="node", time_format=fmt)
    ev = log.events.sort_values("row")
    origin = pd.Timestamp(log.origin).tz_convert("UTC").tz_localize(None) if log.origin.tzinfo else log.origin
    return origin, ev["row"].to_numpy() - 1, ev["start_h"].to_numpy(), ev["end_h"].to_numpy()


FORMATS = ["%Y-%m-%d %H:%M:%S",      # the common layout (vectorised)
           "%d/%m/%Y %H:%M:%S",      # day first (vectorised)
           "%Y-%m-%dT%H:%M:%S",      # with a 'T' (vectorised)
           "%d.%m.%y %H:%M",         # two-digit years, no seconds (vectorised)
           "%Y%m%d%H%M%S",           # no separators (vectorised)
           "%Y-%m-%d %H:%M:%S.%f",   # fractional seconds (general reader)
           "%m/%d/%Y %I:%M:%S %p"]   # twelve-hour clock (general reader)


@pytest.mark.parametrize("fmt", FORMATS)
def test_formatted_read_equals_strptime(tmp_path, fmt):
    rng = np.random.default_rng(11)
    starts, ends = _written(rng, 400, fmt)
    if "%y" in fmt:  # a log may not span more than 50 years of %y (its own named error, tested below)
        keep = [i for i, v in enumerate(starts) if int(v[6:8]) < 45 and int(ends[i][6:8]) < 45]
        starts, ends = [starts[i] for i in keep], [ends[i] for i in keep]
    ends[7] = ends[123] = None  # ends not known
    path = tmp_path / "log.csv"
    pd.DataFrame({"start": starts, "end": ends, "node": [f"n{i % 13}" for i in range(len(starts))]}).to_csv(
        path, index=False)
    origin, (want_s, want_e) = _reference_hours(starts, ends, fmt)
    got_origin, rows, got_s, got_e = _read(path, fmt)
    assert got_origin == pd.Timestamp(origin)
    assert rows.size == len(starts)
    np.testing.assert_array_equal(got_s, want_s[rows])
    np.testing.assert_array_equal(got_e, want_e[rows])


def test_times_with_utc_offsets_are_read_in_utc(tmp_path):
    fmt = "%Y-%m-%dT%H:%M:%S%z"
    rng = np.random.default_rng(12)
    starts, ends = _written(rng, 300, fmt, zones=True)
    path = tmp_path / "log.csv"
    pd.DataFrame({"start": starts, "end": ends, "node": [f"n{i % 5}" for i in range(300)]}).to_csv(path, index=False)
    origin, (want_s, want_e) = _reference_hours(starts, ends, fmt)
    got_origin, rows, got_s, got_e = _read(path, fmt)
    assert got_origin == pd.Timestamp(origin)
    np.testing.assert_array_equal(got_s, want_s[rows])
    np.testing.assert_array_equal(got_e, want_e[rows])


def test_blanks_around_values_are_trimmed_then_read(tmp_path):
    fmt = "%Y-%m-%d %H:%M:%S"
    rng = np.random.default_rng(13)
    starts, ends = _written(rng, 200, fmt)
    padded = list(starts)
    padded[3], padded[150] = " " + starts[3], starts[150] + "  "
    path = tmp_path / "log.csv"
    pd.DataFrame({"start": padded, "end": ends, "node": ["a"] * 200}).to_csv(path, index=False)
    origin, (want_s, _) = _reference_hours(starts, ends, fmt)
    got_origin, rows, got_s, _ = _read(path, fmt)
    assert got_origin == pd.Timestamp(origin)
    np.testing.assert_array_equal(got_s, want_s[rows])


def _strptime_seconds(values, fmt):
    return [None if v is None else int((datetime.strptime(v, fmt) - datetime(1970, 1, 1)).total_seconds())
            for v in values]


@pytest.mark.parametrize("block", [1, 7, 1 << 17])
def test_chunks_blocks_and_nulls_equal_strptime(monkeypatch, block):
    """Values split over chunks (one sliced), read a few rows at a time, with nulls anywhere."""
    monkeypatch.setattr(fastdates, "_BLOCK", block)
    fmt = "%d/%m/%Y %H:%M:%S"
    rng = np.random.default_rng(14)
    values, _ = _written(rng, 90, fmt)
    for i in (0, 5, 6, 40, 89):
        values[i] = None
    whole = pa.array(values)
    chunked = pa.chunked_array([whole[:30], pa.array(values[30:31]), pa.array([], pa.string()),
                                whole.slice(31, 40), pa.array(values[71:], pa.large_string()).cast(pa.string())])
    want = _strptime_seconds(values, fmt)
    for strings in (whole, chunked):
        got = parse_fixed(strings, fmt, *RANGE)
        assert got is not None
        assert got.cast(pa.int64()).to_pylist() == want


def test_nulls_that_keep_their_text_are_skipped():
    """A null slot may still hold bytes (arrays built from buffers): only the non-null values are read."""
    texts = [b"2024-03-01 10:00:00", b"garbage!", b"2024-03-02 11:30:15", b"", b"1999-12-31 23:59:59"]
    offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int32)
    valid = np.packbits(np.array([1, 0, 1, 0, 1] + [0] * 3, bool), bitorder="little")
    arr = pa.StringArray.from_buffers(5, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(texts)),
                                      pa.py_buffer(valid.tobytes()), null_count=2)
    got = parse_fixed(arr, "%Y-%m-%d %H:%M:%S", *RANGE)
    values = [v.decode() if ok else None for v, ok in zip(texts, [1, 0, 1, 0, 1])]
    assert got.cast(pa.int64()).to_pylist() == _strptime_seconds(values, "%Y-%m-%d %H:%M:%S")


BAD = [("2023-02-29 10:00:00", TimeParseError, "cannot read"),     # no such day
       ("2024-13-01 10:00:00", TimeParseError, "cannot read"),     # no such month
       ("2024-01-01 24:00:00", TimeParseError, "cannot read"),     # no such hour
       ("2024-01-01T10:00:00", TimeParseError, "cannot read"),     # another layout
       ("yesterday", TimeParseError, "a word, not a time"),
       ("1900-01-01 00:00:00", TimeRangeError, "outside the dates"),
       ("9999-12-31 23:59:59", TimeRangeError, "outside the dates")]


@pytest.mark.parametrize("column", ["start", "end"])
@pytest.mark.parametrize("bad, error, words", BAD)
def test_a_bad_row_raises_the_named_error_with_its_row(tmp_path, bad, error, words, column):
    fmt = "%Y-%m-%d %H:%M:%S"
    rng = np.random.default_rng(15)
    starts, ends = _written(rng, 300, fmt)
    ends[10] = None
    df = pd.DataFrame({"start": starts, "end": ends, "node": ["a", "b", "c"] * 100})
    df.loc[211, column] = bad
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    with pytest.raises(error, match=rf"row 212 \(line 213\), column '{column}'.*{words}"):
        read_log(path, start="start", end="end", node="node", time_format=fmt)


def test_two_digit_years_across_the_pivot_are_refused(tmp_path):
    path = tmp_path / "log.csv"
    pd.DataFrame({"start": ["31.12.68 10:00", "01.01.69 10:00"], "end": ["31.12.68 11:00", "01.01.69 11:00"],
                  "node": ["a", "b"]}).to_csv(path, index=False)
    with pytest.raises(AmbiguousDateError, match="two-digit years"):
        read_log(path, start="start", end="end", node="node", time_format="%d.%m.%y %H:%M")
