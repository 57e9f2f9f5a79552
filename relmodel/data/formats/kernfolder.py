"""A folder of kernel logs (one file per node or per day, plain or compressed) read as one log, in parallel.

:func:`read_xid_folder` scans each file with
:func:`~relmodel.data.formats.kernstream.scan_file` on local processes
(``jobs`` of them: the calling process and ``jobs - 1`` forked workers, each
given one share of the files of near-equal size, so no process waits on a
queue of small tasks and a worker starts without importing anything) or on a
Dask cluster (``client=``, a ``dask.distributed.Client``), optionally with a
tqdm progress bar, and assembles the scans into one
:class:`~relmodel.data.formats.kernlog.XidLog`.  The result equals the serial
read (``jobs=1``) whatever the number of workers: files are assembled in name
order, and rows are the lines of each file.
"""

import gc
import multiprocessing
import os
import sys
from functools import partial
from pathlib import Path

from ...errors import EmptyDataError, InputTypeError, LogFileNotFound, ResourceLimitError
from .kernstream import finish, placed_years, scan_file
from .kernlog import _check_args, assemble
from ..shaping.logs import _whole_or_none
from .xid import BURST_WINDOW, MAX_REPAIR

__all__ = ["read_xid_folder", "LOG_SUFFIXES"]

LOG_SUFFIXES = ("", ".log", ".txt", ".json", ".gz", ".xz", ".bz2")  #: file endings read from a folder


def _files(folder, pattern):
    path = Path(folder)
    if not path.is_dir():
        raise LogFileNotFound(f"{folder}: no such folder; give the folder that holds the kernel logs")
    files = sorted(p for p in path.glob(pattern) if p.is_file() and not p.name.startswith(".")
                   and (p.suffix.lower() in LOG_SUFFIXES or p.suffix.lower().lstrip(".").isdigit()))
    if not files:
        raise EmptyDataError(f"{folder}: no kernel log matches {pattern!r} (plain, .gz, .xz or .bz2 files)")
    return files


def _jobs(jobs, n_files):
    if jobs is None:
        jobs = os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InputTypeError(f"jobs= is the number of local processes, a whole number of 1 or more; got {jobs!r}")
    return max(1, min(jobs, n_files, os.cpu_count() or 1))


_PACKED = (".gz", ".xz", ".bz2")


START = 0.05  #: a worker's start and the return of its scans, as a share of one process's scanning


def _shares(files, n, head=START):
    """The files' indices in ``n`` shares of near-equal work (a compressed file weighs as about 6 of its size),
    largest file first to the lightest share; the workers' shares (all but the first, this process's) start
    with ``head`` of an even share's work on them, so all end together and the assembly follows at once; each
    share in name order."""
    weight = [f.stat().st_size * (6 if f.suffix.lower() in _PACKED else 1) for f in files]
    shares, load = [[] for _ in range(n)], [0] + [head * sum(weight) / n] * (n - 1)
    for i in sorted(range(len(files)), key=lambda i: -weight[i]):
        k = load.index(min(load))
        shares[k].append(i)
        load[k] += weight[i]
    return [sorted(shares[0])] + [sorted(s) for s in shares[1:] if s]


def _scan(path, *, bases, log_format):
    """One file scanned and timed (its first line's year known beforehand): the worker's whole share of work."""
    return finish(scan_file(path, log_format=log_format), bases[path])


def _scan_share(conn, scan, paths):
    """A worker: its share's scans (or the error of one) sent back on ``conn``."""
    try:
        conn.send([scan(p) for p in paths])
    except BaseException as exc:  # sent to the caller, who raises it
        conn.send(exc)


def _parallel(scan, files, jobs, progress):
    """Scans of ``files`` (in name order) on this process and ``jobs - 1`` workers, one share each: a worker is a
    process started at once with its share (Linux: forked, nothing to send or import) that sends its scans back."""
    shares = _shares(files, jobs)
    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    parts, workers = [None] * len(files), []
    bar = _progress(None, len(files), progress)
    freeze = gc.get_freeze_count() == 0  # a caller's own frozen objects stay frozen
    if freeze:  # the objects made before the fork are no collection's work in either process: no copy-on-write
        gc.freeze()
    try:
        for share in shares[1:]:
            back, end = ctx.Pipe(duplex=False)
            workers.append((ctx.Process(target=_scan_share, args=(end, scan, [str(files[i]) for i in share]),
                                        daemon=True), back, share))
            workers[-1][0].start()
            end.close()
        for i in shares[0]:  # this process's share, while the workers scan theirs
            parts[i] = scan(str(files[i]))
            if bar is not None:
                bar.update(1)
        for proc, back, share in workers:
            try:
                out = back.recv()
            except EOFError:
                proc.join()
                raise ResourceLimitError(f"a worker reading {len(share)} kernel logs ended without its scans (exit "
                                         f"code {proc.exitcode}: killed, or out of memory?); read with jobs=1"
                                         ) from None
            if isinstance(out, BaseException):
                raise out
            for i, part in zip(share, out):
                parts[i] = part
            if bar is not None:
                bar.update(len(share))
    finally:
        if freeze:
            gc.unfreeze()
        for proc, back, _ in workers:  # each has sent its scans and is ending, or is not needed any more
            back.close()
            proc.terminate()
            proc.join()
    if bar is not None:
        bar.close()
    return parts


def _progress(items, total, progress):
    if not progress:
        return items
    from tqdm.auto import tqdm
    return tqdm(items, total=total, desc="kernel logs", unit="file")  # items None: a bar updated by hand


def read_xid_folder(folder, *, pattern="*", year=None, nodes=None, gpus_per_node=8, burst=BURST_WINDOW,
                    log_format=None, max_repair=MAX_REPAIR, jobs=None, client=None, progress=False, name=None):
    """Read every kernel log in ``folder`` as one :class:`~relmodel.data.formats.kernlog.XidLog`.

    ``pattern`` picks files (a glob, default every plain, .gz, .xz or .bz2
    file); ``jobs`` local processes (default: the machine's cores, never more
    than the files; this process scans one share of the files itself), or
    ``client`` a Dask ``Client`` whose workers scan the files;
    ``progress=True`` shows a tqdm bar.  The other arguments are those
    of :func:`~relmodel.data.formats.kernlog.read_xid` (``year`` is the year of the
    first line of the folder's earliest RFC 3164 file: the files' first lines are placed on the
    shortest span of a year that holds them all, so daily files of Dec 31 and Jan 1 are a day apart;
    each file's later lines follow from the order of its lines; without ``year`` each file's
    modification time gives the year of its last line).  A dmesg file's host is its name up to the
    first dot.  Returns an XidLog whose times are hours from the earliest line of any file; ``row``
    is the line within its file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gpu01.log").write_text("Mar  1 00:00:00 gpu01 kernel: Linux version 6.8.0 (x)\\n"
    ...     "Mar  2 00:00:00 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, GPU has fallen off the bus.\\n")
    >>> _ = (folder / "gpu02.log").write_text("Mar  1 12:00:00 gpu02 kernel: Linux version 6.8.0 (x)\\n")
    >>> log = read_xid_folder(folder, year=2024, jobs=1)
    >>> len(log), log.n_nodes, log.events["start_h"].tolist()
    (1, 2, [24.0])
    """
    burst_h, repair_h = _check_args(year, log_format, burst, max_repair)
    nodes, gpus_per_node = _whole_or_none("nodes", nodes), _whole_or_none("gpus_per_node", gpus_per_node)
    files = _files(folder, pattern)
    bases = dict(zip(map(str, files), placed_years(files, year, log_format)))
    scan = partial(_scan, bases=bases, log_format=log_format)
    if client is not None:
        futures = client.map(scan, [str(f) for f in files], pure=False)
        parts = [f.result() for f in _progress(futures, len(files), progress)]
    elif _jobs(jobs, len(files)) == 1:
        parts = [scan(str(f)) for f in _progress(files, len(files), progress)]
    else:
        parts = _parallel(scan, files, _jobs(jobs, len(files)), progress)
    return assemble(parts, nodes=nodes, gpus_per_node=gpus_per_node, burst_h=burst_h, repair_h=repair_h,
                    name=name or str(folder), year=year)
