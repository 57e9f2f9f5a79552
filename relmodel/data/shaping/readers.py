"""Reading tables for :func:`relmodel.read_log`.

:func:`read_table` reads a path or DataFrame; CSV goes through pyarrow's
multi-threaded reader (pandas when pyarrow cannot read a file, for its
messages).  Each error is a named one from :mod:`relmodel.errors` whose message
names the file, the row (1-based, header not counted; with the file's line
number for CSV) and the column.  Timestamps are parsed in :mod:`.times`.
"""

import csv as _csv
import bz2
import gzip
import lzma
import os
import stat
import warnings
import zlib
from pathlib import Path

import pandas as pd

from ...errors import (CorruptFileError, EmptyDataError, EncodingError, InputAccessError, InputTypeError,
                      LogFileNotFound, LogFormatError, MissingColumnError, NotARegularFileError,
                      UnknownFileTypeError, where)
from .damaged import without_nul
from .decoding import FALLBACK_ENCODINGS, FALLBACK_ERRORS, LogWarning, decode_text
from .times import parse_times

__all__ = ["read_table", "require_columns", "parse_times", "check_readable_file", "require_existing", "SUFFIXES",
           "Label", "at", "LogWarning", "decode_text", "FALLBACK_ENCODINGS", "csv_header"]

SUFFIXES = (".csv", ".csv.gz", ".csv.xz", ".csv.bz2", ".parquet", ".json", ".json.gz", ".json.xz")
_OPENERS = {"": open, ".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}
_CORRUPT = (EOFError, lzma.LZMAError, zlib.error, gzip.BadGzipFile, OSError)
_MAX_HEADER = 1 << 20
_NULLS = ["", "#N/A", "#NA", "-NaN", "-nan", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]


class Label(str):
    """A table's name in messages; ``header_lines`` is 1 for a CSV file (line = row + 1)."""

    header_lines = None

    @classmethod
    def of(cls, text, header_lines=None):
        out = cls(text)
        out.header_lines = header_lines
        return out


def at(label, i, column=None):
    """``where()`` for the 0-based position ``i`` of a table read by :func:`read_table`."""
    lines = getattr(label, "header_lines", None)
    return where(label, int(i) + 1, column, line=None if lines is None else int(i) + 1 + lines)


def _suffix(path):
    name = path.name.lower()
    for s in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(s):
            return s
    return None


def _checked_path(source):
    if isinstance(source, bytes) or not isinstance(source, (str, os.PathLike)):
        raise InputTypeError(f"a log is a file path or a pandas DataFrame; got {type(source).__name__} "
                             f"{source!r:.60}")
    require_existing(source)  # missing before wrongly named
    path = Path(source)
    suffix = _suffix(path)
    if suffix is None:
        raise UnknownFileTypeError(f"{path}: unknown file type; relmodel reads " + ", ".join(SUFFIXES))
    check_readable_file(path, lambda st: ("a folder" if stat.S_ISDIR(st.st_mode) else
                                         "not a regular file (a device, pipe or socket)")
                        + f"; give a log file ({', '.join(SUFFIXES)})")
    return path, suffix


def require_existing(source):
    """Raise :class:`~relmodel.errors.LogFileNotFound` when ``source``, a path, names nothing on disk.

    Anything else (a DataFrame, an object) passes: its readers name what is wrong with it.
    """
    if isinstance(source, (str, os.PathLike)) and not isinstance(source, bytes):
        try:
            missing = not os.path.lexists(source)
        except (ValueError, TypeError):  # a NUL byte: no file can have that name
            missing = True
        if missing:
            raise LogFileNotFound(source)


def check_readable_file(path, not_regular):
    """Raise a named error unless ``path`` is a regular file relmodel may read.

    ``not_regular(stat_result)`` says what the path is and what to give instead.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise LogFileNotFound(path) from None
    except PermissionError:
        raise InputAccessError(f"{path}: permission denied; relmodel cannot look at this file") from None
    except OSError as exc:
        raise NotARegularFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise NotARegularFileError(f"{path} is {not_regular(st)}")
    if not os.access(path, os.R_OK):
        raise InputAccessError(f"{path}: permission denied; relmodel cannot read this file")


def read_table(source, columns=None, categorical=(), text=(), times=(), time_format=None):
    """Return ``(DataFrame, label)`` for a path or a DataFrame.

    Paths may end in .csv, .csv.gz, .csv.xz, .csv.bz2, .parquet, .json,
    .json.gz or .json.xz.  JSON may be a list of records (nested objects are
    flattened with dots, e.g. ``fault_type.Level``) or anything
    ``pandas.read_json`` reads.  ``columns`` (a list of names) reads only those
    from a CSV file, after checking that they exist; text columns named in
    ``categorical`` come back from a CSV file as pandas categoricals (fast for
    node and cause names repeated over millions of rows); columns named in
    ``text`` are read from a CSV file as text exactly as written (``007`` stays
    ``"007"``, not the number 7). Text cells are trimmed of spaces on both sides.
    Columns named in ``times`` (also named in ``text``) whose every value a CSV
    file writes canonically in ``time_format`` come back as datetimes, read by
    :func:`.fastdates.parse_fixed`; otherwise as text, for :mod:`.times`.
    """
    if isinstance(source, pd.DataFrame):
        df, label = source.copy(), Label.of("DataFrame")
        _check_column_names(df.columns, label)
    else:
        path, suffix = _checked_path(source)
        label = Label.of(str(path), header_lines=1 if suffix.startswith(".csv") else None)
        df = _read_path(path, suffix, columns, categorical, text, (times, time_format))
    if len(df) == 0:
        raise EmptyDataError(f"{label}: the table has no rows")
    df.columns = [str(c) for c in df.columns]
    return df.reset_index(drop=True), label


def _check_column_names(names, label):
    seen = pd.Index(names)
    if seen.has_duplicates:
        dup = seen[seen.duplicated()][0]
        raise LogFormatError(f"{label}: column {dup!r} appears more than once; give columns unique names")


def _read_path(path, suffix, columns, categorical=(), text=(), times=((), None)):
    try:
        if suffix.startswith(".csv"):
            return _read_csv(path, suffix, columns, categorical, text, times)
        if suffix == ".parquet":
            return _read_parquet(path, columns)
        return _read_json(path, suffix)
    except pd.errors.EmptyDataError:
        raise EmptyDataError(f"{path}: the file is empty") from None
    except UnicodeDecodeError:
        raise _encoding_error(path, suffix) from None
    except PermissionError:
        raise InputAccessError(f"{path}: permission denied; relmodel cannot read this file") from None
    except MemoryError:
        raise
    except _CORRUPT as exc:
        raise CorruptFileError(f"{path}: the file is truncated or corrupt ({type(exc).__name__}: "
                               f"{str(exc)[:120]}); get a fresh copy") from None
    except _csv.Error as exc:  # e.g. lines ended by a bare carriage return (old Mac files)
        raise LogFormatError(f"{path}: cannot read as CSV ({exc}); save it with ordinary line endings "
                             "(\\n or \\r\\n)") from None
    except RecursionError:
        raise LogFormatError(f"{path}: the JSON nests too deeply to be a log; a log is a list of "
                             "records (rows)") from None
    except (ValueError, pd.errors.ParserError) as exc:
        if isinstance(exc, LogFormatError):
            raise
        raise LogFormatError(f"{path}: cannot read as {suffix}: {str(exc)[:300]}") from None


def _opener(suffix):
    return _OPENERS[suffix[suffix.index(".", 1):] if suffix.count(".") > 1 else ""]


def _read_csv(path, suffix, columns, categorical=(), text=(), times=((), None)):
    import pyarrow as pa
    from pyarrow import csv as pacsv

    opener = _opener(suffix)
    with opener(path, "rb") as fh:  # decompression errors surface here, in Python's own terms
        header = fh.readline(_MAX_HEADER)
    if len(header) >= _MAX_HEADER and not header.endswith(b"\n"):
        raise LogFormatError(f"{path}: the first line is longer than {_MAX_HEADER >> 20} MiB; "
                             "a log starts with a header line of column names")
    try:
        header.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:  # the whole file is read as the fallback, warned of once
        encoding = _file_encoding(path, suffix)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWarning)
        names = _header_names(header.decode(encoding).encode("utf-8"), path)
    if columns is not None:
        require_columns(pd.DataFrame(columns=names), columns, Label.of(str(path)), "a column")
    keep = None if columns is None else [n for n in dict.fromkeys(columns)]
    if encoding != "utf-8":    # not UTF-8 (said once): pandas reads each byte that is not as the fallback
        return _read_csv_pandas(path, keep, text, encoding)
    table = _arrow_csv(path, opener, names, keep, text, encoding)
    if table is None:
        return _read_csv_pandas(path, keep, text, encoding)  # ragged rows and the like: pandas reads or explains them
    if _has_binary(table):  # text further on that is not UTF-8: read as the fallback where it is not
        return _read_csv_pandas(path, keep, text, _file_encoding(path, suffix))
    _check_binary(table, path, suffix)
    table = without_nul(table, path)
    box = [table]  # handed over, so that each text column can be freed once it is converted
    del table
    return _arrow_to_pandas(box, categorical, times)


def _file_encoding(path, suffix):
    """The encoding a CSV or JSON file is read with: utf-8, else the fallback (warned of once, by line and byte)."""
    with _opener(suffix)(path, "rb") as fh:
        raw = fh.read()
    return decode_text(raw, path)[1]


def csv_header(path, suffix=None):
    """The column names of a CSV file (plain or compressed), from its first line, decoded as :func:`read_table` does.

    Only the header is read, so a byte that is not UTF-8 further on does not
    matter here; one in the header is read as the fallback, quietly (reading the
    file warns of it).
    """
    path = Path(path)
    suffix = suffix or _suffix(path) or ".csv"
    with _opener(suffix)(path, "rb") as fh:
        header = fh.readline(_MAX_HEADER)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWarning)
        return _header_names(header, path)


def _arrow_csv(path, opener, names, keep, text, encoding):
    """The CSV file as a pyarrow Table, decoded from ``encoding``; None when pyarrow cannot read it (pandas then will)."""
    import pyarrow as pa
    from pyarrow import csv as pacsv
    try:
        with opener(path, "rb") as fh:
            return pacsv.read_csv(
                fh, read_options=pacsv.ReadOptions(column_names=names, skip_rows=1, block_size=8 << 20,
                                                   encoding="utf8" if encoding == "utf-8" else encoding),
                convert_options=pacsv.ConvertOptions(include_columns=keep, null_values=_NULLS,
                                                     strings_can_be_null=True,
                                                     column_types={n: pa.string() for n in text if n in names}),
            )
    except pa.ArrowInvalid as exc:
        if "decompress" in str(exc).lower() or "corrupt" in str(exc).lower():
            raise CorruptFileError(f"{path}: the file is truncated or corrupt ({exc}); get a fresh copy") from None
        return None


def _has_binary(table):
    import pyarrow as pa
    return any(pa.types.is_binary(c.type) or pa.types.is_large_binary(c.type) for c in table.columns)


def _header_names(header, path):
    if not header.strip():
        raise EmptyDataError(f"{path}: the file is empty (no header line)")
    text = decode_text(header, path)[0].rstrip("\r\n")
    import csv
    names = [n.strip() for n in next(csv.reader([text]))]
    names = [n or f"Unnamed: {i}" for i, n in enumerate(names)]
    _check_column_names(names, path)
    return names


def _read_csv_pandas(path, usecols, text=(), encoding="utf-8"):
    # a fallback encoding reads only the bytes that are not UTF-8 (decoding.py); UTF-8 around them stays UTF-8
    codec = dict(encoding="utf-8", encoding_errors=FALLBACK_ERRORS[encoding]) if encoding in FALLBACK_ERRORS \
        else dict(encoding=encoding)
    try:
        df = pd.read_csv(path, skipinitialspace=True, usecols=usecols, low_memory=False,
                         dtype={n: str for n in text} or None, **codec)
    except UnicodeDecodeError:  # found only now (pyarrow stopped before it): read as the fallback
        if encoding != "utf-8":
            raise
        return _read_csv_pandas(path, usecols, text, _file_encoding(path, _suffix(Path(path)) or ".csv"))
    for n in text:
        if n in df.columns:
            df[n] = df[n].str.strip()
    return df


def _check_binary(table, path, suffix):
    """pyarrow reads non-UTF-8 text as binary; name the first bad row."""
    import pyarrow as pa
    for name, col in zip(table.column_names, table.columns):
        if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
            for i, v in enumerate(col.to_pylist()):
                try:
                    if v is not None:
                        v.decode("utf-8")
                except UnicodeDecodeError:
                    raise EncodingError(f"{path}, row {i + 1} (line {i + 2}), column {name!r}: not UTF-8 "
                                        f"text ({v[:40]!r}); save the file as UTF-8") from None


def _encoding_error(path, suffix):
    with _opener(suffix)(path, "rb") as fh:
        for n, line in enumerate(fh, start=1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                row = f"row {n - 1} (line {n})" if n > 1 and suffix.startswith(".csv") else f"line {n}"
                return EncodingError(f"{path}, {row}: not UTF-8 text ({line[:40]!r}); save the file as UTF-8")
    return EncodingError(f"{path}: not UTF-8 text; save the file as UTF-8")


def _arrow_to_pandas(box, categorical=(), times=((), None)):
    """The table in the one-item list ``box`` (emptied: the caller keeps no reference) as a DataFrame."""
    import pyarrow as pa
    import pyarrow.compute as pc
    table = box.pop()
    names, cols = table.column_names, table.columns
    del table
    for i, name in enumerate(names):
        col = cols[i]
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            if name in categorical:
                col = _categories(col)
            elif name in times[0] and times[1]:
                col = _times(col, times[1])
            else:
                col = pc.utf8_trim_whitespace(col)
        elif pa.types.is_date(col.type):
            col = col.cast(pa.timestamp("s"))
        cols[i] = col  # the text it was read from is freed here
        del col
    table = pa.table(cols, names=names)
    del cols
    df = table.to_pandas(deduplicate_objects=True, split_blocks=True, self_destruct=True)
    del table
    pa.default_memory_pool().release_unused()  # hand the parser's buffers back before the clean-up
    return df


def _times(col, time_format):
    """A text column of times: parsed by :func:`.fastdates.parse_fixed` when every value is written
    canonically in ``time_format``, else trimmed text for :mod:`.times`.  A value with blanks around it
    has another width, so the text is trimmed (a copy) only when the first reading declines."""
    import pyarrow.compute as pc
    from .fastdates import parse_fixed
    from .times import PLAUSIBLE_RANGE
    if time_format == time_format.strip():  # else a blank that belongs to the format could be trimmed off
        parsed = parse_fixed(col, time_format, *PLAUSIBLE_RANGE, unpadded=False)
        if parsed is not None:
            return parsed
    col = pc.utf8_trim_whitespace(col)
    parsed = parse_fixed(col, time_format, *PLAUSIBLE_RANGE)
    return col if parsed is None else parsed


def _categories(col):
    """A text column dictionary-encoded, blanks trimmed on both sides in the dictionary only."""
    import pyarrow as pa
    import pyarrow.compute as pc
    enc = pc.dictionary_encode(col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col)
    trimmed = pc.utf8_trim_whitespace(enc.dictionary)
    if len(pc.unique(trimmed)) != len(trimmed):  # " a" and "a" both present: trim every value
        return pc.dictionary_encode(pc.utf8_trim_whitespace(col))
    return pa.DictionaryArray.from_arrays(enc.indices, trimmed)


def _read_parquet(path, columns=None):
    """A Parquet file's columns (only ``columns`` when given, each checked to exist and to be flat)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        schema = pq.read_schema(path)
        keep = None
        if columns is not None:
            require_columns(pd.DataFrame(columns=schema.names), columns, Label.of(str(path)), "a column")
            keep = list(dict.fromkeys(columns))
            for name in keep:
                kind = schema.field(name).type
                if pa.types.is_nested(kind) or pa.types.is_dictionary(kind) and pa.types.is_nested(kind.value_type):
                    raise LogFormatError(f"{path}, column {name!r}: holds nested values ({kind}), not times, "
                                         "names or flags; store it as a flat column (text, numbers or timestamps)")
        return pd.read_parquet(path, columns=keep)
    except (OSError, ValueError) as exc:
        if isinstance(exc, (PermissionError, FileNotFoundError, LogFormatError)):
            raise
        raise CorruptFileError(f"{path}: not a readable Parquet file ({str(exc)[:120]}); get a fresh copy") from None


def _read_json(path, suffix):
    import json
    opener = {".json": open, ".json.gz": gzip.open, ".json.xz": lzma.open}[suffix]
    with opener(path, "rb") as fh:
        raw = fh.read()
    text = decode_text(raw, path)[0]
    if not text.strip():
        raise EmptyDataError(f"{path}: the file is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogFormatError(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if isinstance(data, list) and all(isinstance(r, dict) for r in data):
        return pd.json_normalize(data)
    if isinstance(data, dict) and data and all(isinstance(v, list) for v in data.values()):
        if len({len(v) for v in data.values()}) == 1:
            return pd.DataFrame(data)
    raise LogFormatError(f"{path}: JSON must be a list of records or an object of equal-length columns")


def require_columns(source, names, label, role):
    """Raise :class:`MissingColumnError` unless every name is a column of ``source``."""
    for name in names:
        if name not in source.columns:
            cols = ", ".join(repr(c) for c in source.columns[:30])
            raise MissingColumnError(
                f"{label}: no column {name!r} (asked for as {role}); the columns are {cols}")

