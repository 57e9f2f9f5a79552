"""A vectorised reader for timestamps written in a common fixed-width format.

``read_log(..., time_format=...)`` on a million rows spent most of its time in
``pandas.to_datetime`` (per-row format matching).  For formats made only of the
numeric directives ``%Y %m %d %H %M %S %y`` and ASCII literal characters, every
canonical value has the same width, so a column's bytes form a matrix with one
row per value: :func:`parse_fixed` checks and reads it with numpy where pyarrow
left it (no copy of the text), a block of rows at a time, each two-digit pair
of a field by one look-up in a table of the 65,536 byte pairs (which also
flags any byte that is not a digit), and each day by a table of the months'
first days.  It accepts a column only when the result is certain to equal
pandas':

* every value is written canonically: each field zero-padded to its full width
  and in its range, literal characters exactly as in the format;
* every day exists (no 31 April, no 29 February of a common year);
* every time lies inside the caller's plausible range.

Values written without padding ("6/21/2005 9:13", as the LANL log writes them)
are read by pyarrow's ``strptime`` when every one matches Python's own pattern
for the format with its separators exactly, no field directly follows another,
and no day was rolled into the next month.

Anything else returns None and the caller reads the column with pandas, which
then names the offending row.  ``tests/data/shaping/test_fastdates.py`` checks the
results against ``pandas.to_datetime``.
"""

import functools
import re

import numpy as np

__all__ = ["parse_fixed", "fixed_pattern", "unpadded_pattern"]

_WIDTH = {"Y": 4, "y": 2, "m": 2, "d": 2, "H": 2, "M": 2, "S": 2}
_LIMITS = {"m": (1, 12), "d": (1, 31), "H": (0, 23), "M": (0, 59), "S": (0, 59), "Y": (0, 9999), "y": (0, 99)}
_TOKEN = re.compile(r"%(.)|([^%]+)", re.DOTALL)
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])


def fixed_pattern(time_format):
    """``(fields, literals, width)`` of a fixed-width numeric format, or None when :func:`parse_fixed`
    cannot read it: ``fields`` maps a directive to its first character's place, ``literals`` a place to
    the byte written there."""
    if not isinstance(time_format, str) or "%" not in time_format:
        return None
    fields, literals, at = {}, {}, 0
    for m in _TOKEN.finditer(time_format):
        directive, literal = m.group(1), m.group(2)
        if literal is not None or directive == "%":
            text = "%" if literal is None else literal
            if not text.isascii() or any(c.isspace() and c != " " for c in text):
                return None
            for c in text:
                literals[at] = ord(c)
                at += 1
        elif directive in _WIDTH and directive not in fields:
            fields[directive] = at
            at += _WIDTH[directive]
        else:
            return None
    seen = set(fields)
    if not ({"Y", "y"} & seen) or {"Y", "y"} <= seen or not {"m", "d"} <= seen:
        return None  # a date needs one year, a month and a day
    if "M" in seen and "H" not in seen or "S" in seen and "M" not in seen:
        return None
    return fields, literals, at


# Python's own patterns (``_strptime``) for fields written without padding, less its space-padded days
_UNPADDED = {"Y": r"\d{4}", "y": r"\d{2}", "m": r"(?:1[0-2]|0[1-9]|[1-9])", "d": r"(?:3[01]|[12]\d|0[1-9]|[1-9])",
             "H": r"(?:2[0-3]|[01]\d|\d)", "M": r"(?:[0-5]\d|\d)", "S": r"(?:[0-5]\d|\d)"}


def unpadded_pattern(time_format):
    """The regular expression of values of ``time_format`` whose fields may be unpadded ("6/1/2005 9:13"),
    with the day in a group named ``d``; None unless every field is followed by a literal or the end (then
    a field's digits cannot be read as part of the next one) and :func:`fixed_pattern` reads the format."""
    if fixed_pattern(time_format) is None:
        return None
    parts, previous = [], None
    for m in _TOKEN.finditer(time_format):
        directive, literal = m.group(1), m.group(2)
        if literal is not None or directive == "%":
            parts.append(re.escape("%" if literal is None else literal))
            previous = None
            continue
        if previous is not None:
            return None
        parts.append(f"(?P<d>{_UNPADDED['d']})" if directive == "d" else _UNPADDED[directive])
        previous = directive
    return "^" + "".join(parts) + "$"


def parse_fixed(strings, time_format, earliest, latest, *, unpadded=True):
    """pyarrow ``timestamp[s]`` values of ``strings`` (a pyarrow string array or chunked array), or None.

    None when the format is not a fixed-width numeric one, when any non-null
    value is not written canonically, when a day does not exist, or when a
    time falls outside ``[earliest, latest)`` (pandas Timestamps).  Values of
    several widths are read by :func:`_parse_unpadded` (``unpadded=False``:
    None instead).  The chunks are read where they lie, one block of rows at
    a time: no copy of the text is made.
    """
    import pyarrow as pa

    spec = fixed_pattern(time_format)
    if spec is None or not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        return None
    chunks = strings.chunks if isinstance(strings, pa.ChunkedArray) else [strings]
    n, nulls = len(strings), strings.null_count
    if n == 0 or nulls == n:
        return None
    layouts = [_layout(c, spec[2]) for c in chunks if len(c)]
    if any(lay is None for lay in layouts):  # values of several widths: fields written without padding?
        if not unpadded:
            return None
        if isinstance(strings, pa.ChunkedArray):
            strings = strings.combine_chunks()
        return _parse_unpadded(strings, time_format, earliest, latest)
    bounds = (earliest.value // 10**9, latest.value // 10**9, earliest.year, latest.year)
    out = np.zeros(n, np.int64)
    valid = np.ones(n, bool) if nulls else None
    at = 0
    for data, starts, ok in layouts:
        k = ok.size if ok is not None else starts.size
        target = out[at:at + k]
        if ok is not None:
            valid[at:at + k] = ok
            ok = np.flatnonzero(ok)  # the block of non-null values a, a+1... lies at ok[a], ok[a+1]...
        for a in range(0, starts.size, _BLOCK):
            seconds = _seconds(data, starts[a:a + _BLOCK], spec, bounds)
            if seconds is None:
                return None
            if ok is None:
                target[a:a + seconds.size] = seconds
            else:
                target[ok[a:a + seconds.size]] = seconds
        at += k
    if valid is not None:
        return pa.array(out, type=pa.timestamp("s"), mask=~valid)
    return pa.array(out, type=pa.timestamp("s"))


_BLOCK = 1 << 17  # rows read at once: the block's fields stay in the processor's caches


def _layout(chunk, width):
    """``(data bytes, first byte of each non-null value, validity or None)`` of one chunk, or None when a
    non-null value is not ``width`` bytes long."""
    import pyarrow as pa
    large = pa.types.is_large_string(chunk.type)
    _, offsets_buf, data_buf = chunk.buffers()
    size = 8 if large else 4
    offsets = np.frombuffer(offsets_buf, np.int64 if large else np.int32, len(chunk) + 1, chunk.offset * size)
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    ok = chunk.is_valid().to_numpy(zero_copy_only=False) if chunk.null_count else None
    if ok is None:
        if not (lengths == width).all():
            return None
        return data, offsets[:-1], None
    if not (lengths[ok] == width).all():
        return None
    return data, offsets[:-1][ok], ok


def _parse_unpadded(strings, time_format, earliest, latest):
    """pyarrow's ``strptime`` on values that all match Python's pattern with exact separators, or None.

    Where pyarrow rolls a day that does not exist into the next month (31 April is 1 May), the parsed
    day is 1 to 3: those rows' written days are read back and must be the parsed ones.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    pattern = unpadded_pattern(time_format)
    if pattern is None:
        return None
    if pc.sum(pc.match_substring_regex(strings, pattern)).as_py() != len(strings) - strings.null_count:
        return None
    try:
        parsed = pc.strptime(strings, format=time_format, unit="s", error_is_null=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if parsed.null_count != strings.null_count:
        return None
    early = pc.fill_null(pc.less_equal(pc.day(parsed), 3), False)
    if pc.any(early).as_py():
        written = pc.extract_regex(strings.filter(early), pattern).field("d")
        if not pc.all(pc.equal(pc.cast(written, pa.int64()), pc.day(parsed.filter(early)))).as_py():
            return None
    seconds = parsed.cast(pa.int64())
    lo, hi = (v.as_py() for v in pc.min_max(seconds).values())
    if lo < earliest.value // 10**9 or hi >= latest.value // 10**9:
        return None
    return parsed


@functools.lru_cache(maxsize=1)
def _pairs():
    """Two bytes read as one little-endian uint16 -> their value 0-99 when both are ASCII digits, else 255."""
    table = np.full(1 << 16, 255, np.uint8)
    tens, ones = np.divmod(np.arange(100), 10)
    table[(48 + tens) | ((48 + ones) << 8)] = np.arange(100)
    return table


@functools.lru_cache(maxsize=4)
def _months(first_year, last_year):
    """Per month from ``first_year`` to ``last_year``: days from 1970-01-01 to its first day, and its length."""
    year = np.repeat(np.arange(first_year, last_year + 1, dtype=np.int64), 12)
    month = np.tile(np.arange(1, 13), last_year - first_year + 1)
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    return _days_from_civil(year, month, np.ones_like(month)), _MONTH_DAYS[month] + (leap & (month == 2))


def _seconds(data, starts, spec, bounds):
    """Seconds since 1970 of the values whose first bytes are at ``starts`` in ``data``, or None when one
    is not a canonical existing time inside ``[bounds[0], bounds[1])`` (seconds; bounds[2:] their years).

    Each field's two-digit pairs are read in place (a strided view of the text, no copy) and mapped to
    their values by one table look-up, which also flags any byte that is not a digit.
    """
    fields, literals, width = spec
    if starts.size == 0:
        return np.zeros(0, np.int64)
    first, count = int(starts[0]), starts.size
    if int(starts[-1]) - first != (count - 1) * width:  # not evenly spaced (nulls with text): gather them
        data = data[starts[:, None] + np.arange(width)].reshape(-1)
        first = 0

    def column(at, dtype):
        return np.ndarray((count,), dtype, buffer=data, offset=first + at, strides=(width,))
    for at, byte in literals.items():
        if (column(at, np.uint8) != byte).any():
            return None
    pairs, value = _pairs(), {}
    for d, at in fields.items():
        v = pairs.take(column(at, "<u2"))
        if d == "Y":
            low = pairs.take(column(at + 2, "<u2"))
            if v.max() > 99 or low.max() > 99:
                return None
            v = v.astype(np.int32) * 100
            v += low
        else:
            lo, hi = _LIMITS[d]
            if v.min() < lo or v.max() > hi:  # 255: not two digits
                return None
        value[d] = v
    if "Y" in value:
        year = value["Y"]
    else:
        year = value["y"].astype(np.int32) + np.where(value["y"] <= 68, 2000, 1900)  # Python's pivot
    lo_s, hi_s, first_year, last_year = bounds
    year -= first_year
    if year.min() < 0 or year.max() > last_year - first_year:
        return None  # outside the caller's range
    month_start, month_days = _months(first_year, last_year)
    index = year
    index *= 12
    index += value["m"]
    index -= 1
    day = value["d"]
    if (day > month_days.take(index)).any():
        return None
    out = month_start.take(index)
    out += day
    out -= 1
    out *= 86400
    for d, scale in (("H", 3600), ("M", 60), ("S", 1)):
        if d in value:
            out += value[d] * np.int32(scale)
    if out.min() < lo_s or out.max() >= hi_s:
        return None
    return out


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of proleptic Gregorian dates (H. Hinnant's ``days_from_civil``), vectorised."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
