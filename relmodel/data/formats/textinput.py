"""Text logs given as a path or as the text itself (Slurm exports, kernel logs).

:func:`read_text` returns the lines and a label for messages.  A path may end
in .gz, .xz or .bz2 (read decompressed); a string holding a line break is
taken as the log's text.  Errors are the named ones of :mod:`relmodel.errors`.
"""

import bz2
import gzip
import lzma
import os
import zlib
from pathlib import Path

from ...errors import CorruptFileError, EmptyDataError, InputTypeError
from ..shaping.readers import check_readable_file, decode_text

__all__ = ["read_text", "read_raw", "read_head", "source_path"]

_OPENERS = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}


def source_path(source, what):
    """``(path, opener)`` for a path to a log, after the checks every reader makes (.gz/.xz/.bz2 decompress).

    ``source`` must be a path (str or os.PathLike) to a readable regular file;
    anything else (bytes, other objects) raises :class:`InputTypeError` naming ``what``.
    """
    if isinstance(source, bytes) or not isinstance(source, (str, os.PathLike)):
        raise InputTypeError(f"a {what} is a file path or its text (a string with line breaks); got "
                             f"{type(source).__name__} {source!r:.60}")
    path = Path(source)
    check_readable_file(path, lambda st: f"not a regular file; give the {what} file")
    return path, _OPENERS.get(path.suffix.lower(), open)


def _is_text(source):
    return isinstance(source, str) and ("\n" in source or "\r" in source)


def read_text(source, what="log"):
    """``(lines, label)`` of a path or a text; the label names the file ("text" for a string)."""
    text, label = read_raw(source, what)
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), label


def read_head(source, lines=50, most=16 << 20):
    """The first ``lines`` lines that are not blank of a path or a text (fewer when the file has fewer), for
    telling its form: at most ``most`` bytes are read (decompressed), never the whole of a large file."""
    if _is_text(source):
        return [ln for ln in read_text(source)[0] if ln.strip()][:lines]
    path, opener = source_path(source, "log")
    try:
        with opener(path, "rb") as fh:
            raw, block = b"", 1 << 16
            while len(raw) < most:
                more = fh.read(block)
                raw += more
                if not more or raw.lstrip().count(b"\n") > lines:     # blank lines before the log cost nothing
                    break
                block = min(2 * block, most)
    except (EOFError, lzma.LZMAError, zlib.error, gzip.BadGzipFile, OSError) as exc:
        raise CorruptFileError(f"{path}: truncated or corrupt ({exc}); give the whole file") from None
    if more:                                   # the file goes on: drop the line the read cut in two
        raw = raw[:raw.rfind(b"\n") + 1]
    first = len(raw) - len(raw.lstrip())                  # the blank lines before the first line are dropped
    raw = raw[raw.rfind(b"\n", 0, first) + 1:]
    text = decode_text(raw, path)[0].replace("\r\n", "\n").replace("\r", "\n")
    return [ln.lstrip("\x00") for ln in text.split("\n") if ln.strip("\x00 \t")][:lines]  # NUL padding dropped


def read_raw(source, what="log"):
    """``(text, label)`` of a path or a text, line ends made "\\n"; the label names the file."""
    if _is_text(source):
        text = source
        label = "text"
    else:
        path, opener = source_path(source, what)
        try:
            with opener(path, "rb") as fh:
                raw = fh.read()
        except (EOFError, lzma.LZMAError, zlib.error, gzip.BadGzipFile, OSError) as exc:
            raise CorruptFileError(f"{path}: truncated or corrupt ({exc}); give the whole file") from None
        text = decode_text(raw, path)[0]  # UTF-8, else Windows-1252 or Latin-1 with a LogWarning (line, byte)
        label = str(path)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise EmptyDataError(f"{label}: the {what} has no lines")
    return text, label


