"""The report's data source read once per render and shared by every page that uses it.

Pages 01-07 all start from the same source (the ``log`` parameter and its
column mapping).  :func:`shared_source` loads it through
:func:`relmodel.data.source.load_source` and, inside a render, keeps the
result in a cache folder the render made (:func:`render_cache`, which points
:data:`ENV_CACHE` at it): the next page of the render, in the same warm
kernel or in another worker process of the same machine, reads the stored
:class:`~relmodel.data.source.Source` back instead of parsing the log again.
A sweep's runs share it too when they name the same source.

An entry is keyed by every argument of ``load_source`` plus, for a file, its
resolved path, size and modification time, so a changed file is read again.
Entries are written to a temporary file and renamed into place (a reader
never sees half an entry); a lock per entry makes a second worker wait for
the first instead of parsing the same log at the same moment.  The warnings
the load raised (LogWarning notes about duplicates and the like) are stored
with the entry and raised again on every hit, so every page shows them.
Outside a render, or when the folder is not there (a worker on another
machine), the source is simply loaded.
"""

import hashlib
import json
import os
import pickle
import shutil
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path

__all__ = ["ENV_CACHE", "SOURCE_PARAMETERS", "shared_source", "shared_result", "source_arguments", "render_cache",
           "cache_key"]

#: Environment variable holding the cache folder of the render in progress.
ENV_CACHE = "RELMODEL_SOURCE_CACHE"

#: The parameters every page names its source with, beside ``log`` (the keywords of ``load_source``).
SOURCE_PARAMETERS = ("start", "end", "node", "cause", "planned", "time_format", "time_unit", "source_gpus",
                     "gpus_per_node", "exposure", "format", "job", "year", "min_outage", "window", "unit",
                     "syslog", "population")

_DEFAULTS = {"gpus_per_node": 8, "unit": "gpu-node"}


def source_arguments(values):
    """``(log, keyword arguments of load_source)`` picked from a page's parameters (a dict or ``globals()``)."""
    kwargs = {name: values.get(name, _DEFAULTS.get(name)) for name in SOURCE_PARAMETERS}
    return values.get("log", "llama3"), kwargs


def _file_state(log):
    """``(resolved path, size, mtime in ns)`` of a log file, or None for a bundled name."""
    try:
        path = Path(log).expanduser()
        if not path.is_file():
            return None
        stat = path.stat()
    except (OSError, TypeError, ValueError):
        return None
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns


def cache_key(log, kwargs):
    """The entry name of a source: a hash of its arguments and its file's size and modification time."""
    text = json.dumps({"log": str(log), "args": kwargs, "file": _file_state(log),
                       "syslog": _file_state(kwargs.get("syslog")) if kwargs.get("syslog") else None},
                      sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _load(log, kwargs):
    """Load the source; return it and the warnings raised, as ``(category, message)`` pairs."""
    from ...data import source

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        src = source.load_source(log, **kwargs)
    return src, [(w.category, str(w.message)) for w in caught]


def _replay(raised):
    for category, message in raised:
        warnings.warn(message, category, stacklevel=3)


def _read(path):
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return None  # missing or unreadable: load again


def _write(path, entry):
    """Write ``entry`` next to ``path`` and rename it into place (readers see all of it or nothing)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(entry, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        try:
            os.unlink(tmp)
        except OSError:
            pass


@contextmanager
def _locked(path):
    """Hold an exclusive lock on ``path`` (no lock where the platform has none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        yield
        return
    with open(path, "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def shared_source(log="llama3", **kwargs):
    """The :class:`~relmodel.data.source.Source` ``load_source(log, **kwargs)`` gives, read once per render.

    Takes exactly the arguments of :func:`relmodel.data.source.load_source`
    and returns what it returns, raising the same warnings and errors.  When
    :data:`ENV_CACHE` names an existing folder (a render in progress), the
    result is stored there and later calls with the same arguments and an
    unchanged file read it back.
    """
    from ...data import source

    folder = os.environ.get(ENV_CACHE)
    if not folder or not os.path.isdir(folder):
        return source.load_source(log, **kwargs)
    key = cache_key(log, kwargs)
    path = Path(folder) / f"{key}.pickle"
    with _locked(Path(folder) / f"{key}.lock"):
        entry = _read(path)
        if entry is None:
            entry = _load(log, kwargs)  # errors propagate: nothing is stored for a source that fails
            _write(path, entry)
    src, raised = entry
    _replay(raised)
    _KEYS[id(src)] = (src, key)
    return src


#: The sources :func:`shared_source` handed out in this process, by ``id``: ``(source, entry name)``.
_KEYS = {}


def shared_result(source, what, compute, **parts):
    """``compute()``, once per render for a source :func:`shared_source` gave and the same ``parts``.

    Pages 03 and 04 ask for the same decision (``what``) on the same source and
    inputs (``parts``: the scenario and keywords, compared by their ``repr``);
    the first page's result is stored beside the source and read back by the
    next, with the warnings it raised.  Anything else (no render in progress,
    a source not from :func:`shared_source`) is simply computed.
    """
    folder = os.environ.get(ENV_CACHE)
    held = _KEYS.get(id(source))
    if not folder or not os.path.isdir(folder) or held is None or held[0] is not source:
        return compute()
    text = json.dumps({"source": held[1], "what": what, "parts": parts}, sort_keys=True, default=repr)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    path = Path(folder) / f"{key}.result.pickle"
    with _locked(Path(folder) / f"{key}.result.lock"):
        entry = _read(path)
        if entry is None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = compute()  # errors propagate: nothing is stored
            entry = (value, list(dict.fromkeys((w.category, str(w.message)) for w in caught)))
            _write(path, entry)
    value, raised = entry
    _replay(raised)
    return value


@contextmanager
def render_cache(run_id="solo"):
    """Give the render in this block a source cache folder (through :data:`ENV_CACHE`); remove it after.

    Kernels and worker processes started inside the block inherit the
    variable.  The folder carries the run id, so the run's own cleanup
    removes it too if this process dies.
    """
    from .executors import WORK_PREFIX

    from .stale import mark_owner

    folder = tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{run_id}-sources-")
    mark_owner(folder)  # so a later run can remove it if this process is killed
    before = os.environ.get(ENV_CACHE)
    os.environ[ENV_CACHE] = folder
    try:
        yield Path(folder)
    finally:
        if before is None:
            os.environ.pop(ENV_CACHE, None)
        else:
            os.environ[ENV_CACHE] = before
        _remove(folder)


def _remove(folder, tries=20, pause_s=0.05):
    """Remove the cache folder; again while a page's late write (stopped with the report) makes it reappear or
    keeps it from emptying (a folder of a stopped report was seen left behind under load)."""
    import time
    for _ in range(tries):
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.exists(folder):
            return
        time.sleep(pause_s)
