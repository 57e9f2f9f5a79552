"""A vectorised reader for timestamps written in a common fixed-width format.

``read_log(..., time_format=...)`` on a million rows spent most of its time in
``pandas.to_datetime`` (per-row format matching).  For formats made only of the
numeric directives ``%Y %m %d %H %M %S %y`` and ASCII literal characters, every
canonical value has the same width, so a column's bytes form a matrix with one
row per value: :func:`parse_fixed` checks and reads it with numpy, column of
characters by column.  It accepts a column only when the result is certain to
equal pandas':

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


def parse_fixed(strings, time_format, earliest, latest):
    """pyarrow ``timestamp[s]`` values of ``strings`` (a pyarrow string array), or None.

    None when the format is not a fixed-width numeric one, when any non-null
    value is not written canonically, when a day does not exist, or when a
    time falls outside ``[earliest, latest)`` (pandas Timestamps).
    """
    import pyarrow as pa

    spec = fixed_pattern(time_format)
    if spec is None or not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        return None
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks() if strings.num_chunks else pa.array([], strings.type)
    n, valid = len(strings), None
    if n == 0 or strings.null_count == n:
        return None
    if strings.null_count:
        valid = strings.is_valid().to_numpy(zero_copy_only=False)
    matrix = _byte_matrix(strings, spec[2], valid)
    if matrix is None:  # values of several widths: fields written without padding?
        return _parse_unpadded(strings, time_format, earliest, latest)
    seconds = _seconds(matrix, *spec[:2])
    if seconds is None:
        return None
    lo, hi = earliest.value // 10**9, latest.value // 10**9
    if seconds.min() < lo or seconds.max() >= hi:
        return None
    if valid is not None:
        full = np.zeros(n, np.int64)
        full[valid] = seconds
        return pa.array(full, type=pa.timestamp("s"), mask=~valid)
    return pa.array(seconds, type=pa.timestamp("s"))


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


def _byte_matrix(strings, width, valid):
    """The non-null values' bytes as an ``(n, width)`` uint8 matrix, or None when a value has another width."""
    large = strings.type.id == __import__("pyarrow").large_string().id
    _, offsets_buf, data_buf = strings.buffers()
    offsets = np.frombuffer(offsets_buf, np.int64 if large else np.int32, len(strings) + 1, strings.offset
                            * (8 if large else 4))
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    if valid is None:
        if not (lengths == width).all():
            return None
        first = int(offsets[0])
        return data[first:first + width * len(strings)].reshape(len(strings), width)
    if not (lengths[valid] == width).all():
        return None
    return data[offsets[:-1][valid][:, None] + np.arange(width)]


def _seconds(matrix, fields, literals):
    """Seconds since 1970 of each row of ``matrix``, or None when a row is not a canonical existing time."""
    for at, byte in literals.items():
        if not (matrix[:, at] == byte).all():
            return None
    value = {}
    for d, at in fields.items():  # one character column at a time: no copy of the matrix
        v = np.zeros(len(matrix), np.int32)
        for k in range(_WIDTH[d]):
            c = matrix[:, at + k]
            if c.min() < 48 or c.max() > 57:  # not a digit
                return None
            v *= 10
            v += c
            v -= 48
        lo, hi = _LIMITS[d]
        if v.min() < lo or v.max() > hi:
            return None
        value[d] = v
    year = value["Y"] if "Y" in value else value["y"] + np.where(value["y"] <= 68, 2000, 1900)  # Python's pivot
    month, day = value["m"], value["d"]
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    if (day > _MONTH_DAYS[month] + (leap & (month == 2))).any():
        return None
    out = _days_from_civil(year.astype(np.int64), month, day) * 86400
    for d, scale in (("H", 3600), ("M", 60), ("S", 1)):
        if d in value:
            out += value.pop(d) * scale
    return out


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of proleptic Gregorian dates (H. Hinnant's ``days_from_civil``), vectorised."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    doy = (153 * (m + np.where(m > 2, -3, 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
