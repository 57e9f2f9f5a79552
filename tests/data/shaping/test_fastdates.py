"""The vectorised reader of fixed-width timestamps gives pandas' answer or none at all.

The reference is ``pandas.to_datetime(values, format=...)``, called here on the
same strings: where pandas reads every value, the fast path must give the same
times or decline (None); where pandas refuses a value, the fast path must
decline, so that the slow path names the row.
"""

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from relmodel import read_log
from relmodel.data.shaping.fastdates import fixed_pattern, parse_fixed
from relmodel.errors import TimeParseError

RANGE = (pd.Timestamp("1950-01-01"), pd.Timestamp("2100-01-01"))
FORMATS = ["%Y-%m-%d %H:%M:%S", "%m/%d/%Y %H:%M", "%d/%m/%Y %H:%M:%S", "%Y%m%d%H%M%S", "%d.%m.%y %H:%M",
           "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"]


def _random_times(rng, n):
    t0 = np.datetime64("1990-01-01T00:00:00")
    seconds = rng.integers(0, 60 * 365 * 86400, n)
    return pd.Series(t0 + seconds.astype("timedelta64[s]"))


def _pandas(values, fmt):
    """pandas' reading, or None when it refuses a value."""
    try:
        return pd.to_datetime(pd.Series(values), format=fmt).astype("datetime64[ns]")
    except (ValueError, OverflowError):
        return None


@pytest.mark.parametrize("fmt", FORMATS)
def test_canonical_values_equal_pandas(fmt):
    rng = np.random.default_rng(1)
    text = _random_times(rng, 2000).dt.strftime(fmt).tolist()
    if "%y" in fmt:  # stay on one side of the %y pivot, where both readings agree
        text = [v for v in text if int(v.split(".")[2][:2]) < 60]
    fast = parse_fixed(pa.array(text), fmt, *RANGE)
    assert fast is not None
    want = _pandas(text, fmt)
    assert (pd.Series(fast.to_pandas()) == want).all()


EDGES = ["2024-02-31 00:00:00", "2023-02-29 10:00:00", "2024-02-29 10:00:00", "2024-04-31 12:00:00",
         "2024-1-5 03:04:05", "2024-01-05 3:04:05", "2024-01-05  12:00:00", " 2024-01-05 12:00:00",
         "2024-01-05T12:00:00", "2024-01-05 12:00:60", "2024-01-05 24:00:00", "2024-13-05 12:00:00",
         "0000-01-01 00:00:00", "0001-01-01 00:00:00", "9999-12-31 23:59:59", "1949-12-31 23:59:59",
         "2024-01-05 12:00:00x", "2024-01-05 12:00", "２０２４-01-05 12:00:00", "2024-12-31 23:59:59"]


@pytest.mark.parametrize("edge", EDGES)
def test_every_edge_is_pandas_or_declined(edge):
    values = ["2024-01-01 00:00:00", edge, None]
    fast = parse_fixed(pa.array(values), "%Y-%m-%d %H:%M:%S", *RANGE)
    want = _pandas(values, "%Y-%m-%d %H:%M:%S")
    if want is None or not ((want.dropna() >= RANGE[0]) & (want.dropna() < RANGE[1])).all():
        assert fast is None  # pandas refuses it (or it is out of range): the slow path must name it
    elif fast is not None:
        got = pd.Series(fast.to_pandas())
        assert got.isna().tolist() == want.isna().tolist()
        assert (got.dropna() == want.dropna()).all()


def test_only_numeric_fixed_width_formats_take_the_fast_path():
    assert fixed_pattern("%Y-%m-%d %H:%M:%S") is not None
    for fmt in ["%b %d %Y %H:%M", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S%z", "%H:%M", "%Y-%m-%d\t%H:%M",
                "%Y-%m-%d %I:%M %p", "%j %Y"]:
        assert fixed_pattern(fmt) is None, fmt


def _log_text(rng, n, fmt):
    start = _random_times(rng, n).sort_values().reset_index(drop=True)
    end = start + pd.to_timedelta(rng.integers(60, 7200, n), unit="s")
    return pd.DataFrame({"start": start.dt.strftime(fmt), "end": end.dt.strftime(fmt),
                         "node": [f"n{i % 37}" for i in range(n)]})


@pytest.mark.parametrize("as_file", [False, True])
@pytest.mark.parametrize("fmt", ["%Y-%m-%d %H:%M:%S", "%m/%d/%Y %H:%M"])
def test_read_log_with_a_format_equals_pandas_hours(tmp_path, fmt, as_file):
    rng = np.random.default_rng(7)
    df = _log_text(rng, 3000, fmt)
    source = df
    if as_file:
        source = tmp_path / "log.csv"
        df.to_csv(source, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = read_log(source, start="start", end="end", node="node", time_format=fmt)
    start, end = pd.to_datetime(df["start"], format=fmt), pd.to_datetime(df["end"], format=fmt)
    origin = start.min()
    ev = log.events.sort_values("row")
    rows = ev["row"].to_numpy() - 1
    assert np.allclose(ev["start_h"], ((start - origin) / pd.Timedelta(hours=1)).to_numpy()[rows])
    assert np.allclose(ev["end_h"], ((end - origin) / pd.Timedelta(hours=1)).to_numpy()[rows])


@pytest.mark.parametrize("bad", ["2024-02-31 00:00:00", "2024-01-05 25:00:00", "2024-1-5 3:4:5x"])
def test_a_bad_row_in_a_file_is_named_with_its_line(tmp_path, bad):
    assert _pandas([bad], "%Y-%m-%d %H:%M:%S") is None  # pandas refuses it too
    rng = np.random.default_rng(3)
    df = _log_text(rng, 500, "%Y-%m-%d %H:%M:%S")
    df.loc[321, "start"] = bad
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    with pytest.raises(TimeParseError, match=r"row 322 \(line 323\), column 'start'.*" + bad[:10]):
        read_log(path, start="start", end="end", node="node", time_format="%Y-%m-%d %H:%M:%S")


@pytest.mark.parametrize("fmt", ["%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%Y%m%d"])
def test_every_day_of_four_years_equals_pandas(fmt):
    """Each calendar day 2023-2026 (29 February 2024 among them) and each impossible one (31 April...)."""
    days = pd.date_range("2023-01-01", "2026-12-31", freq="D")
    text = days.strftime(fmt).tolist()
    fast = parse_fixed(pa.array(text), fmt, *RANGE)
    assert fast is not None and (pd.Series(fast.to_pandas()) == pd.Series(days)).all()
    for y, m, d in [(2023, 2, 29), (2025, 2, 29), (2024, 2, 30), (2024, 4, 31), (2024, 6, 31), (2024, 11, 31)]:
        bad = fmt.replace("%Y", f"{y:04d}").replace("%m", f"{m:02d}").replace("%d", f"{d:02d}")
        assert _pandas([bad], fmt) is None  # pandas refuses the day
        assert parse_fixed(pa.array(text[:3] + [bad]), fmt, *RANGE) is None


_FIELD_TEXT = {"%Y": 4, "%m": 2, "%d": 2, "%H": 2, "%M": 2, "%S": 2}


def _fuzz_case():
    from hypothesis import strategies as st
    fmt = st.sampled_from(["%Y-%m-%d %H:%M:%S", "%d/%m/%Y %H:%M", "%m/%d/%Y", "%Y%m%d %H%M"])

    def field(width, lo, hi):  # mostly a valid-looking number (days up to 31 in every month), sometimes any digits
        return st.one_of(st.integers(lo, hi).map(lambda v: f"{v:0{width}d}"),
                         st.text(alphabet="0123456789", min_size=1, max_size=5))
    bounds = {"%Y": (1950, 2099), "%m": (1, 12), "%d": (1, 31), "%H": (0, 23), "%M": (0, 59), "%S": (0, 59)}
    row = st.tuples(*(field(w, *bounds[k]) for k, w in _FIELD_TEXT.items()))
    return st.tuples(fmt, st.lists(row, min_size=1, max_size=4))


def test_fuzzed_values_equal_pandas_or_are_declined():
    """Fields of any digits (too short, too long, out of range, impossible days): pandas' answer or None."""
    from hypothesis import given, settings

    accepted = []

    @settings(max_examples=300, derandomize=True, deadline=None)
    @given(_fuzz_case())
    def check(case):
        fmt, rows = case
        values = []
        for fields in rows:
            text = fmt
            for directive, v in zip(_FIELD_TEXT, fields):
                text = text.replace(directive, v)
            values.append(text)
        fast = parse_fixed(pa.array(values), fmt, *RANGE)
        want = _pandas(values, fmt)
        if want is None or not ((want >= RANGE[0]) & (want < RANGE[1])).all():
            assert fast is None, values
        elif fast is not None:
            assert (pd.Series(fast.to_pandas()).astype("datetime64[ns]") == want).all(), values
            accepted.append(values)

    check()
    assert len(accepted) >= 5  # the fast path was exercised, not only declined


@pytest.mark.parametrize("written, fmt", [("%-m/%-d/%Y %-H:%M", "%m/%d/%Y %H:%M"),  # as the LANL log writes them
                                          ("%-d.%-m.%y %-H:%M:%S", "%d.%m.%y %H:%M:%S")])
def test_unpadded_values_equal_pandas(written, fmt):
    rng = np.random.default_rng(5)
    times = _random_times(rng, 3000)
    if "%y" in fmt:
        times = times[times.dt.year < 2060]
    text = times.dt.strftime(written).tolist() + [None]
    fast = parse_fixed(pa.array(text), fmt, *RANGE)
    assert fast is not None
    want = _pandas(text, fmt)
    got = pd.Series(fast.to_pandas()).astype("datetime64[ns]")
    assert got.isna().tolist() == want.isna().tolist() and (got.dropna() == want.dropna()).all()


@pytest.mark.parametrize("bad", ["4/31/2005 1:00", "2/29/2005 1:00", "6/21/2005  10:54", " 6/21/2005 10:54",
                                 "6/21/05 10:54", "13/1/2005 1:00", "6/21/2005 1:60"])
def test_unpadded_bad_values_are_declined(bad):
    values = ["6/21/2005 10:54", bad]
    fast = parse_fixed(pa.array(values), "%m/%d/%Y %H:%M", *RANGE)
    want = _pandas(values, "%m/%d/%Y %H:%M")
    if want is None:
        assert fast is None
    elif fast is not None:
        assert (pd.Series(fast.to_pandas()).astype("datetime64[ns]") == want).all()
