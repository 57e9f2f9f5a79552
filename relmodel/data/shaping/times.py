"""Parsing a column of outage times, read right or not at all.

Numbers need a unit and must be finite and of a sane size.  Text timestamps
are checked before parsing: dates whose day/month order cannot be told (or
that mix orders), time-zone abbreviations (EST, CEST...) and times with a
UTC offset mixed with times without one raise a named error asking for
``time_format`` or an offset, instead of being read in a way that might be
wrong.  Offsets are respected: such times are converted to UTC.

Timestamps must fall in :data:`PLAUSIBLE_RANGE` (1950-01-01 up to 2100-01-01):
a date such as 0001-01-01 or 9999-12-31 is a placeholder or a misread, and one
such row would stretch the observation window over centuries.  Two-digit years
(``%y``: 69-99 are 19xx, 00-68 are 20xx) that land on both sides of that pivot
more than 50 years apart (31/12/68 and 01/01/69) are refused: write ``%Y``.
A column in a fixed-width numeric format (``%Y-%m-%d %H:%M:%S`` and the like)
is read by the vectorised :mod:`.fastdates` when its result is certain to equal
pandas'.
"""

import re
from datetime import datetime
import warnings

import numpy as np
import pandas as pd

from ...errors import (AmbiguousDateError, InputTypeError, MixedTimeZoneError, TimeParseError, TimeRangeError,
                      TimeZoneError, UnitError, where)
from ...units import unit_hours
from .fastdates import fixed_pattern, parse_fixed

__all__ = ["parse_times", "check_time_format", "check_plausible", "check_same_zone", "MAX_ABS_HOURS",
           "PLAUSIBLE_RANGE"]

MAX_ABS_HOURS = 1e7  # about 1,140 years: numeric times beyond this are a wrong unit, not a log
# the dates an outage log can hold: computing clusters' logs start after 1950; a year such as 0001 or 9999
# is a placeholder, and one such row would make the observation window centuries long
PLAUSIBLE_RANGE = (pd.Timestamp("1950-01-01"), pd.Timestamp("2100-01-01"))
_RANGE_TEXT = "1950-01-01 up to (not including) 2100-01-01"
MAX_TWO_DIGIT_SPAN_YEARS = 50

_DMY = re.compile(r"^\s*(\d{1,2})[/.\-](\d{1,2})[/.\-]\d{2,4}(?!\d)")
_ZONE = re.compile(r"\d\s*([A-Za-z]{3,5})\s*$")
# an offset follows a time of day (hh:mm[:ss[.f]]): the "-02" that ends the date 2024-01-02 is not one
_OFFSET = re.compile(r"(?:\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s?[+-]\d{2}(?::?\d{2})?|\dZ|\s(?:UTC|GMT|Z))\s*$",
                     re.IGNORECASE)
_NAMED_OK = {"UTC", "GMT"}
_WORDS = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "SEPT", "OCT", "NOV", "DEC",
          "JUNE", "JULY", "MARCH", "APRIL"}


def _at(label, i, column):
    lines = getattr(label, "header_lines", None)
    return where(label, int(i) + 1, column, line=None if lines is None else int(i) + 1 + lines)


def check_time_format(time_format):
    """Raise :class:`TimeParseError` unless ``time_format`` is a usable strftime format (or None): known
    directives only, each part of a time (year, month, day, hour...) named once."""
    if time_format is None:
        return
    if not isinstance(time_format, str):
        raise InputTypeError(f"time_format must be a strftime string such as '%d/%m/%Y %H:%M'; "
                             f"got {type(time_format).__name__} {time_format!r}")
    bad = [d for d in re.findall(r"%(.)", time_format.replace("%%", "")) if d not in "aAwdbBmyYHIpMSfzjUWcxXGuVZ"]
    if bad or "%" not in time_format.replace("%%", ""):
        what = f"unknown directive %{bad[0]}" if bad else "no % directive"
        raise TimeParseError(f"time_format {time_format!r}: {what}; write it like '%Y-%m-%d %H:%M' or "
                             "'%d/%m/%Y %H:%M:%S' (Python strftime codes)")
    fields = re.findall(r"%(.)", time_format.replace("%%", ""))
    for group in _SAME_FIELD:
        found = [d for d in fields if d in group]
        if len(found) > 1:
            raise TimeParseError(f"time_format {time_format!r}: names one field twice "
                                 f"({', '.join('%' + d for d in found)}); give each of year, month, day, hour, "
                                 "minute and second once")


#: strftime codes that set the same part of a time: a format holding two of one group reads it twice.
_SAME_FIELD = ("Yy", "mbB", "d", "HI", "M", "S", "f", "p", "zZ", "j", "aAwu")


def parse_times(values, label, column, *, time_format=None, time_unit=None, allow_missing=False):
    """Parse a column of times.

    Returns ``("numeric", float hours)`` for numbers with ``time_unit``, or
    ``("datetime", datetime64 Series)`` for timestamps.  Time-zone offsets are
    respected: timestamps with offsets are converted to UTC.
    """
    s = pd.Series(values).reset_index(drop=True)
    if time_unit is not None:
        factor = unit_hours(time_unit)
        if pd.api.types.is_datetime64_any_dtype(s):
            raise UnitError(f"{label}: column {column!r} holds timestamps, not numbers; leave out time_unit")
        num = pd.to_numeric(s, errors="coerce") if not pd.api.types.is_numeric_dtype(s) else s
        if pd.api.types.is_bool_dtype(num):
            num = pd.Series(np.nan, index=s.index)
        num = num.astype(float)
        _check_parsed(s, num, label, column, "a number in " + repr(time_unit), allow_missing)
        out = num.to_numpy(float) * factor
        _check_range(s, out, label, column, time_unit)
        return "numeric", out
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        raise UnitError(f"{label}: column {column!r} holds numbers; say their unit with "
                        "time_unit='s', 'min', 'h' or 'd' (or give timestamps)")
    if pd.api.types.is_datetime64_any_dtype(s):
        out = _to_utc_if_aware(s)
        if not allow_missing and out.isna().any():
            i = int(np.flatnonzero(out.isna().to_numpy())[0])
            raise TimeParseError(f"{_at(label, i, column)}the time is missing (null); every outage needs its "
                                 f"{column!r} time: fill it in or remove the row")
        check_plausible(s, out, label, column)
        _check_two_digit_years(s, out, time_format, label, column)
        return "datetime", out
    check_time_format(time_format)
    fast = _fast(s, time_format, allow_missing)
    if fast is not None:
        _check_two_digit_years(s, fast, time_format, label, column)
        return "datetime", fast
    s = _posix_zones(s)
    _refuse_relative(s, label, column)
    dayfirst = False if time_format else _inspect_text(s, label, column)
    parsed = _parse_strings(s, time_format, dayfirst, label, column)
    hint = f"a timestamp matching {time_format!r}" if time_format else "a timestamp (give time_format if needed)"
    _check_parsed(s, parsed, label, column, hint, allow_missing)
    check_plausible(s, parsed, label, column)
    if time_format:
        _check_two_digit_years(s, parsed, time_format, label, column)
    return "datetime", parsed


def _fast(s, time_format, allow_missing):
    """The column read by :func:`.fastdates.parse_fixed` as a datetime Series, or None (then pandas reads it)."""
    if not time_format or s.dtype != object or fixed_pattern(time_format) is None:
        return None
    import pyarrow as pa
    try:
        strings = pa.array(s, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    parsed = parse_fixed(strings, time_format, *PLAUSIBLE_RANGE)
    if parsed is None or (not allow_missing and parsed.null_count):
        return None  # pandas reads it and names the row it cannot read
    return pd.Series(parsed.to_pandas(), index=s.index)


def check_plausible(raw, parsed, label, column):
    """Raise :class:`TimeRangeError` naming the first time outside :data:`PLAUSIBLE_RANGE`."""
    lo, hi = PLAUSIBLE_RANGE
    if getattr(parsed.dt, "tz", None) is not None:
        lo, hi = lo.tz_localize("UTC"), hi.tz_localize("UTC")
    bad = ((parsed < lo) | (parsed >= hi)).to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise TimeRangeError(
            f"{_at(label, i, column)}{_shown(raw.iloc[i])} is dated {_day(parsed.iloc[i])}, outside the dates an "
            f"outage log can hold ({_RANGE_TEXT}); such a date is a placeholder or a misread and would "
            f"stretch the observation window over centuries: correct or remove the row")


def _day(ts):
    return f"{ts.year:04d}-{ts.month:02d}-{ts.day:02d}"


def _shown(value, time_format=None):
    """A cell as the user wrote it: a time parsed on reading shown in its format (or ISO), text quoted."""
    if isinstance(value, (pd.Timestamp, datetime)):
        return repr(value.strftime(time_format) if time_format else str(value))
    return repr(value)


def check_same_zone(label, columns):
    """Raise :class:`MixedTimeZoneError` when some of ``columns`` (``{name: datetime Series}``) carry a time
    zone and others do not: relmodel will not guess the zone of the naive ones."""
    aware = {name: getattr(t.dt, "tz", None) is not None for name, t in columns.items()
             if t is not None and pd.api.types.is_datetime64_any_dtype(t)}
    if len(set(aware.values())) > 1:
        with_tz = [n for n, a in aware.items() if a]
        without = [n for n, a in aware.items() if not a]
        raise MixedTimeZoneError(
            f"{label}: column {with_tz[0]!r} holds times with a time zone but column {without[0]!r} holds times "
            "without one; relmodel will not guess the zone of the naive ones: store every time column in UTC "
            "(or all with a time zone)")


def _check_two_digit_years(raw, parsed, time_format, label, column):
    """Refuse ``%y`` years read on both sides of Python's pivot far apart (31/12/68 is 2068, 01/01/69 is 1969)."""
    if not time_format or "%y" not in time_format.replace("%%", ""):
        return
    valid = parsed.notna().to_numpy()
    if not valid.any():
        return
    years = parsed.dt.year.to_numpy()
    first, last = np.nanargmin(np.where(valid, years, np.inf)), np.nanargmax(np.where(valid, years, -np.inf))
    if years[last] - years[first] > MAX_TWO_DIGIT_SPAN_YEARS:
        lines = getattr(label, "header_lines", None)
        second = f"row {int(last) + 1}" + ("" if lines is None else f", line {int(last) + 1 + lines}")
        raise AmbiguousDateError(
            f"{_at(label, first, column)}two-digit years (%y) read {_shown(raw.iloc[first], time_format)} as "
            f"{int(years[first])} and {_shown(raw.iloc[last], time_format)} ({second}) as {int(years[last])} "
            f"(69-99 are read as 19xx, 00-68 as 20xx), a log spanning {int(years[last] - years[first])} years; "
            "write four-digit years and read them with %Y")


_POSIX_ZONE = re.compile(r"\s*(?:UTC|GMT)\s*([+-])(\d{1,2})(?::?(\d{2}))?\s*$", re.IGNORECASE)
_RELATIVE = {"now", "today", "tomorrow", "yesterday"}
_TIME_ONLY = re.compile(r"^\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[ap]\.?m\.?)?$", re.IGNORECASE)


def _posix_zones(s):
    """``... UTC+3`` (or GMT-5) as the offset it means, ``+03:00`` (east of Greenwich is +)."""
    if s.dtype != object:
        return s

    def fix(v):
        if not isinstance(v, str):
            return v
        return _POSIX_ZONE.sub(lambda m: f"{m.group(1)}{int(m.group(2)):02d}:{m.group(3) or '00'}", v)
    return s.map(fix)


def _refuse_relative(s, label, column):
    """``now``, ``today`` and times without a date would be read against the clock of this machine."""
    u = _text_values(s)
    if u.empty:
        return
    stripped = u.str.strip()
    bad = stripped.str.lower().isin(_RELATIVE)
    if bad.any():
        i = bad.idxmax()
        raise TimeParseError(f"{_at(label, i, column)}{s.iloc[i]!r} is a word, not a time: it would be read as "
                             "the clock of the machine reading the log; write the date and time it happened")
    bare = stripped.str.match(_TIME_ONLY)
    if bare.any():
        i = bare.idxmax()
        raise TimeParseError(f"{_at(label, i, column)}{s.iloc[i]!r} has a time but no date (it would be dated "
                             "today); write the date too, as in '2024-03-01 14:05'")


def _check_range(raw, hours_, label, column, unit):
    bad = ~np.isfinite(hours_) & ~np.isnan(hours_) | (np.abs(np.nan_to_num(hours_)) > MAX_ABS_HOURS)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise TimeRangeError(f"{_at(label, i, column)}{raw.iloc[i]!r} {unit} is not a usable time; numeric "
                             f"times must be finite and within {MAX_ABS_HOURS:,.0f} h of zero (check time_unit)")


def _text_values(s):
    """Distinct text values and, for each, the first position where it occurs."""
    is_text = s.map(type).to_numpy() == str if s.dtype == object else np.zeros(len(s), bool)
    if not is_text.any():
        return pd.Series(dtype=object)
    txt = s[is_text]
    return txt.drop_duplicates()


def _inspect_text(s, label, column):
    """Refuse zone abbreviations, naive/offset mixtures and unknowable day/month order.

    Returns ``dayfirst`` for the parser.
    """
    u = _text_values(s)
    if u.empty:
        return False
    stripped = u.str.strip()
    zone = stripped.str.extract(_ZONE, expand=False).str.upper()
    named = zone.notna() & ~zone.isin(_NAMED_OK | _WORDS)
    if named.any():
        i = named.idxmax()
        raise TimeZoneError(f"{_at(label, i, column)}{s.iloc[i]!r} ends in the zone name {zone[i]!r}, which "
                            "relmodel will not guess (EST, IST, CST... mean different things); write times with "
                            "a UTC offset such as '-05:00', or convert them to UTC")
    has_offset = stripped.str.contains(_OFFSET)
    if has_offset.any() and not has_offset.all():
        i, j = has_offset.idxmin(), has_offset.idxmax()
        raise MixedTimeZoneError(
            f"{_at(label, i, column)}{s.iloc[i]!r} has no UTC offset, but {where(None, j + 1)}{s.iloc[j]!r} "
            "has one; relmodel will not guess the zone of the others: give every time an offset (e.g. "
            "'+00:00') or none")
    return _day_first(u, s, label, column)


def _day_first(u, s, label, column):
    dmy = u.str.extract(_DMY).dropna()
    if dmy.empty:
        return False
    a, b = dmy[0].astype(int), dmy[1].astype(int)
    day_first, month_first = a > 12, b > 12
    fmt = "give time_format, e.g. '%d/%m/%Y %H:%M' (day first) or '%m/%d/%Y %H:%M' (month first)"
    if day_first.any() and month_first.any():
        i, j = day_first.idxmax(), month_first.idxmax()
        raise AmbiguousDateError(
            f"{_at(label, min(i, j), column)}dates mix day-first ({s.iloc[i]!r}, row {i + 1}) and month-first "
            f"({s.iloc[j]!r}, row {j + 1}) order; {fmt}")
    if not (day_first.any() or month_first.any()):
        i = dmy.index[0]
        raise AmbiguousDateError(
            f"{_at(label, i, column)}cannot tell day from month in {s.iloc[i]!r}: no date in the column has a "
            f"day above 12; {fmt}")
    return bool(day_first.any())


def _parse_strings(s, time_format, dayfirst, label, column):
    kw = {"format": time_format} if time_format else {"format": "mixed", "dayfirst": dayfirst}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = pd.to_datetime(s, errors="coerce", **kw)
        for w in caught:
            if "timezone" in str(w.message).lower() and "un-recognized" in str(w.message).lower():
                raise TimeZoneError(f"{label}, column {column!r}: {w.message}".split(". Dropping")[0]
                                    + "; write times with a UTC offset such as '-05:00', or in UTC")
        if not pd.api.types.is_datetime64_any_dtype(out):  # several offsets: convert all to UTC
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = pd.to_datetime(s, errors="coerce", utc=True, **kw)
    except (ValueError, TypeError, OverflowError) as exc:
        msg = str(exc)
        if "tz" in msg.lower() or "timezone" in msg.lower() or "offset" in msg.lower():
            raise MixedTimeZoneError(f"{label}, column {column!r}: times with and without a time zone are "
                                     "mixed; give every time an offset (e.g. '+00:00') or none") from None
        raise TimeParseError(f"{label}, column {column!r}: cannot read the times ({msg[:160]}); "
                             "give time_format, e.g. '%Y-%m-%d %H:%M'") from None
    return _wide_range(s, _to_utc_if_aware(out), time_format, dayfirst)


def _wide_range(s, out, time_format, dayfirst):
    """Re-read, one by one at microsecond resolution, the times pandas' nanosecond range (1677 to 2262)
    could not hold; ``out`` unchanged when any of them still cannot be read (the caller names it)."""
    text = s.astype(str).str.strip()
    lost = (out.isna() & s.notna() & (text != "")).to_numpy()
    if not lost.any() or dayfirst:
        return out
    try:
        more = [pd.Timestamp(datetime.strptime(v, time_format) if time_format else v) for v in text[lost]]
    except (ValueError, TypeError, OverflowError):
        return out
    inside = (pd.Timestamp.min.as_unit("us"), pd.Timestamp.max.as_unit("us"))
    if any(inside[0] <= t.tz_localize(None).as_unit("us") <= inside[1] for t in more):
        return out  # pandas could hold it, so it failed for another reason (a time without a date...)
    aware = out.dt.tz is not None
    if any((t.tzinfo is not None) != aware for t in more):
        return out
    naive = out.dt.tz_localize(None) if aware else out
    values = naive.dt.as_unit("us").to_numpy()
    values[lost] = [(t.tz_convert("UTC").tz_localize(None) if aware else t).as_unit("us").asm8 for t in more]
    wide = pd.Series(values, index=out.index)
    return wide.dt.tz_localize("UTC") if aware else wide


def _to_utc_if_aware(s):
    if getattr(s.dt, "tz", None) is not None:
        return s.dt.tz_convert("UTC")
    return s


def _check_parsed(raw, parsed, label, column, expected, allow_missing):
    raw_missing = raw.isna() | (raw.astype(str).str.strip() == "") if raw.dtype == object else raw.isna()
    bad = parsed.isna() & ~raw_missing
    if not allow_missing:
        bad |= raw_missing
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        value = raw.iloc[i]
        raise TimeParseError(f"{_at(label, i, column)}cannot read {value!r}; expected {expected}")
