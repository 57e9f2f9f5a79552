"""Files as they arrive damaged: one that holds nothing, NUL bytes in a table's text.

Belongs here: the checks a reader makes before or after it parses, said in the words of
:mod:`relmodel.errors` and :class:`~relmodel.data.shaping.decoding.LogWarning`.
"""

import os
import warnings
from pathlib import Path

from ...errors import EmptyDataError
from .decoding import LogWarning

__all__ = ["refuse_empty", "without_nul"]


def refuse_empty(source):
    """An EmptyDataError when ``source`` is a path to a file that holds nothing but blank space (said before any
    question about its columns); anything else passes."""
    if not isinstance(source, (str, os.PathLike)) or (isinstance(source, str) and "\n" in source):
        return
    path = Path(source)
    try:
        if not path.is_file() or path.stat().st_size > 4096:
            return
        blank = not path.read_bytes().strip()
    except OSError:
        return
    if blank:
        raise EmptyDataError(f"{path}: the file is empty")


def without_nul(table, path):
    """``table`` with NUL bytes taken out of its text cells, said by a LogWarning naming the first (a NUL is damage:
    left in, "\\x00n3" would be a node apart from "n3")."""
    import pyarrow as pa
    import pyarrow.compute as pc
    first, cells = None, 0
    for i, (name, col) in enumerate(zip(table.column_names, table.columns)):
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            continue
        hit = pc.match_substring(col, "\x00")
        found = pc.sum(pc.cast(hit, pa.int64())).as_py() or 0
        if not found:
            continue
        cells += found
        if first is None:
            row = pc.index(pc.fill_null(hit, False), True).as_py()
            first = f"row {row + 1} (line {row + 2}), column {name!r}"
        table = table.set_column(i, name, pc.replace_substring(col, "\x00", ""))
    if cells:
        warnings.warn(LogWarning(f"{path}, {first}: a NUL byte in the text, taken out ({cells:,} cell"
                                 f"{'s' if cells > 1 else ''} in all); the file may be damaged"), stacklevel=4)
    return table
