"""A file-size limit (``ulimit -f``) met during a render becomes one named error.

A shell's file-size limit (``RLIMIT_FSIZE``) makes every write past it fail with
``EFBIG`` ("File too large"), in this process and in the kernels it starts; an
executed notebook may then be cut short on disk.  :func:`size_error` words that
as a :class:`~relmodel.errors.ReportWriteError` (an environment error: the
command exits 1) naming the file and the limit, and :func:`read_notebook` reads
an executed notebook back, turning a cut-short file into that error instead of
a JSON parse traceback.
"""

import errno
import os

from ...errors import ReportError, ReportWriteError

__all__ = ["size_limit", "too_large", "size_error", "read_notebook"]


def size_limit():
    """This process's file-size limit in bytes, or None when there is none."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def too_large(exc):
    """True when ``exc`` (or an exception it came from) is a write refused as too large (EFBIG)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _bytes(n):
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,} bytes"


def size_error(path):
    """A ReportWriteError for ``path``: it would pass the file-size limit; what to do instead."""
    limit = size_limit()
    said = f"the file-size limit of {_bytes(limit)} (ulimit -f)" if limit is not None else "a file-size limit"
    return ReportWriteError(errno.EFBIG, f"cannot write {path}: it would be larger than {said}; raise the limit "
                            "(ulimit -f unlimited) or render fewer notebooks, then run the report again",
                            str(path))


def read_notebook(path, name):
    """The executed notebook at ``path`` (of notebook ``name``), or a named error if it is cut short."""
    import nbformat
    try:
        return nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat's NotJSONError, a UnicodeDecodeError in a cut-off character...
        limit = size_limit()
        if too_large(exc) or (limit is not None and os.path.getsize(path) >= limit):
            raise size_error(path) from None
        raise ReportError(f"{name}: the executed notebook could not be read back ({type(exc).__name__}); "
                          "run the report again") from None
