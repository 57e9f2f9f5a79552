"""A vectorised reader for timestamps written in a common fixed-width format.

``read_log(..., time_format=...)`` on a million rows spends most of its time in
``pandas.to_datetime`` (per-row Python-level format matching).  For formats made
only of the numeric directives ``%Y %m %d %H %M %S %y`` and literal characters,
:func:`parse_fixed` reads the column with pyarrow's ``strptime`` instead, and
accepts the result only when it is certain to equal pandas':

* every value is written canonically: each field zero-padded to its full width
  and in its valid range, separators exactly as in the format (a strict regular
  expression, checked first);
* no day was rolled into the next month (pyarrow reads 31 February as 2 March):
  the written day, at its fixed place in the string, equals the parsed day;
* every time lies inside the caller's plausible range (pyarrow reads years
  that pandas refuses, such as 0000).

Anything else returns None and the caller reads the column with pandas, which
then names the offending row.  ``tests/data/test_fastdates.py`` checks the
results against ``pandas.to_datetime``.
"""

import re

__all__ = ["parse_fixed", "fixed_pattern"]

_FIELDS = {"Y": (r"\d{4}", 4), "y": (r"\d{2}", 2), "m": (r"(?:0[1-9]|1[0-2])", 2),
           "d": (r"(?:0[1-9]|[12]\d|3[01])", 2), "H": (r"(?:[01]\d|2[0-3])", 2), "M": (r"[0-5]\d", 2),
           "S": (r"[0-5]\d", 2)}
_TOKEN = re.compile(r"%(.)|([^%]+)", re.DOTALL)


def fixed_pattern(time_format):
    """``(regex, day_offset)`` for a fixed-width numeric format, or None when the fast path cannot read it.

    ``day_offset`` is where the two digits of ``%d`` sit in a canonical value (None without ``%d``).
    """
    if not isinstance(time_format, str) or "%" not in time_format:
        return None
    parts, offset, day_at, seen = [], 0, None, set()
    for m in _TOKEN.finditer(time_format):
        directive, literal = m.group(1), m.group(2)
        if literal is not None or directive == "%":
            text = "%" if literal is None else literal
            if not text.isascii() or any(c.isspace() and c != " " for c in text):
                return None
            parts.append(re.escape(text))
            offset += len(text)
            continue
        if directive not in _FIELDS or directive in seen:
            return None
        seen.add(directive)
        if directive == "d":
            day_at = offset
        regex, width = _FIELDS[directive]
        parts.append(regex)
        offset += width
    if not ({"Y", "y"} & seen) or {"Y", "y"} <= seen or not {"m", "d"} <= seen:
        return None  # a date needs a year, a month and a day
    if "M" in seen and "H" not in seen or "S" in seen and "M" not in seen:
        return None
    return "^" + "".join(parts) + "$", day_at


def parse_fixed(strings, time_format, earliest, latest):
    """pyarrow ``timestamp[ns]`` values of ``strings`` (a pyarrow string array), or None.

    None when the format is not a fixed-width numeric one, when any non-null
    value is not written canonically, when a day does not exist in its month,
    or when a time falls outside ``[earliest, latest)`` (pandas Timestamps).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    spec = fixed_pattern(time_format)
    if spec is None or not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        return None
    pattern, day_at = spec
    n_valid = len(strings) - strings.null_count
    if n_valid == 0:
        return None
    if pc.sum(pc.match_substring_regex(strings, pattern)).as_py() != n_valid:
        return None
    try:
        parsed = pc.strptime(strings, format=time_format, unit="s", error_is_null=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if parsed.null_count != strings.null_count:
        return None
    if day_at is not None:
        written = pc.cast(pc.utf8_slice_codeunits(strings, day_at, day_at + 2), pa.int64())
        if not pc.all(pc.equal(written, pc.day(parsed))).as_py():
            return None
    lo, hi = (v.as_py() for v in pc.min_max(parsed.cast(pa.int64())).values())  # seconds since 1970
    if lo < earliest.value // 10**9 or hi >= latest.value // 10**9:
        return None
    return pc.cast(parsed, pa.timestamp("ns"))
