"""Reading tables and timestamps for :func:`relmodel.read_log`.

Each function raises a named error from :mod:`relmodel.errors` whose message
names the file, the row (1-based, header not counted) and the column.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import (EmptyDataError, LogFormatError, MissingColumnError, TimeParseError,
                     UnitError, UnknownFileTypeError, where)
from ..units import unit_hours

__all__ = ["read_table", "require_columns", "parse_times", "SUFFIXES"]

SUFFIXES = (".csv", ".csv.gz", ".csv.xz", ".csv.bz2", ".parquet", ".json", ".json.gz", ".json.xz")


def _suffix(path):
    name = path.name.lower()
    for s in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(s):
            return s
    return None


def read_table(source):
    """Return ``(DataFrame, label)`` for a path or a DataFrame.

    Paths may end in .csv, .csv.gz, .csv.xz, .csv.bz2, .parquet, .json,
    .json.gz or .json.xz.  JSON may be a list of records (nested objects are
    flattened with dots, e.g. ``fault_type.Level``) or anything
    ``pandas.read_json`` reads.
    """
    if isinstance(source, pd.DataFrame):
        df, label = source.copy(), "DataFrame"
    else:
        path = Path(source)
        suffix = _suffix(path)
        if suffix is None:
            raise UnknownFileTypeError(
                f"{path}: unknown file type; relmodel reads " + ", ".join(SUFFIXES))
        if not path.exists():
            raise FileNotFoundError(2, "No such file", str(path))
        label = str(path)
        df = _read_path(path, suffix)
    if len(df) == 0:
        raise EmptyDataError(f"{label}: the table has no rows")
    df.columns = [str(c) for c in df.columns]
    return df.reset_index(drop=True), label


def _read_path(path, suffix):
    try:
        if suffix.startswith(".csv"):
            return pd.read_csv(path, skipinitialspace=True)
        if suffix == ".parquet":
            return pd.read_parquet(path)
        return _read_json(path)
    except pd.errors.EmptyDataError:
        raise EmptyDataError(f"{path}: the file is empty") from None
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise LogFormatError(f"{path}: cannot read as {suffix}: {exc}") from None


def _read_json(path):
    import json
    import lzma
    import gzip
    opener = {".json": open, ".json.gz": gzip.open, ".json.xz": lzma.open}[_suffix(path)]
    with opener(path, "rt", encoding="utf-8") as fh:
        text = fh.read()
    if not text.strip():
        raise EmptyDataError(f"{path}: the file is empty")
    data = json.loads(text)
    if isinstance(data, list):
        return pd.json_normalize(data)
    if isinstance(data, dict) and all(isinstance(v, list) for v in data.values()):
        return pd.DataFrame(data)
    raise LogFormatError(f"{path}: JSON must be a list of records or an object of equal-length columns")


def require_columns(df, names, label, role):
    """Raise :class:`MissingColumnError` unless every name is a column of ``df``."""
    for name in names:
        if name not in df.columns:
            cols = ", ".join(repr(c) for c in df.columns[:30])
            raise MissingColumnError(
                f"{label}: no column {name!r} (asked for as {role}); the columns are {cols}")


def parse_times(values, label, column, *, time_format=None, time_unit=None, allow_missing=False):
    """Parse a column of times.

    Returns ``("numeric", float hours)`` for numbers with ``time_unit``, or
    ``("datetime", datetime64 Series)`` for timestamps.  Time-zone offsets are
    respected: timestamps with offsets are converted to UTC.
    """
    s = pd.Series(values).reset_index(drop=True)
    if time_unit is not None:
        factor = unit_hours(time_unit)
        num = pd.to_numeric(s, errors="coerce")
        _check_parsed(s, num, label, column, "a number in " + repr(time_unit), allow_missing)
        return "numeric", num.to_numpy(float) * factor
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
        raise UnitError(f"{label}: column {column!r} holds numbers; say their unit with "
                        "time_unit='s', 'min', 'h' or 'd' (or give timestamps)")
    if pd.api.types.is_datetime64_any_dtype(s):
        return "datetime", _to_utc_if_aware(s)
    parsed = _parse_strings(s, time_format)
    hint = f"a timestamp matching {time_format!r}" if time_format else "a timestamp (give time_format if needed)"
    _check_parsed(s, parsed, label, column, hint, allow_missing)
    return "datetime", parsed


def _parse_strings(s, time_format):
    kw = {"format": time_format} if time_format else {"format": "mixed"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)  # pandas warns on mixed offsets
            out = pd.to_datetime(s, errors="coerce", **kw)
    except (ValueError, TypeError, FutureWarning):
        out = None
    if out is None or not pd.api.types.is_datetime64_any_dtype(out):
        out = pd.to_datetime(s, errors="coerce", utc=True, **kw)  # mixed offsets
    return _to_utc_if_aware(out)


def _to_utc_if_aware(s):
    if getattr(s.dt, "tz", None) is not None:
        return s.dt.tz_convert("UTC")
    return s


def _check_parsed(raw, parsed, label, column, expected, allow_missing):
    raw_missing = raw.isna() | (raw.astype(str).str.strip() == "")
    bad = parsed.isna() & ~raw_missing
    if not allow_missing:
        bad |= raw_missing
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        value = raw.iloc[i]
        raise TimeParseError(f"{where(label, i + 1, column)}cannot read {value!r}; expected {expected}")
