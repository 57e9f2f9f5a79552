"""Operators' logs by name: a Slurm export or a kernel log, read with the right reader.

:func:`sniff_log` tells from a file's first lines whether it is a ``sacct
-P`` export ("sacct"), a kernel log ("xid") or something else (None: a table
for :func:`~relmodel.data.shaping.logs.read_log`).  :func:`read_operator_log` reads a
file in either form; :func:`~relmodel.data.source.load_source` and the CLI
call it when ``format`` is "sacct" or "xid", or when the form is sniffed.
"""

import warnings
from pathlib import Path

from ...errors import InputTypeError, LogFormatError
from .kernlog import read_xid, sniff_format
from .sacct import read_sacct
from .textinput import read_head
from ..shaping.readers import LogWarning

__all__ = ["sniff_log", "read_operator_log", "operator_source", "join_syslog", "LOG_FORMATS"]

LOG_FORMATS = ("table", "sacct", "xid")  #: values of ``format``: a table of outages, a Slurm export, a kernel log


def sniff_log(path):
    """"sacct", "xid" or None (a table, or a file these readers do not know) from the first lines of ``path``."""
    name = str(path).lower()
    if name.endswith((".csv", ".csv.gz", ".csv.xz", ".csv.bz2", ".parquet")):
        return None
    try:
        with warnings.catch_warnings():  # a file that is not UTF-8 is warned of by the reader that reads it
            warnings.simplefilter("ignore", LogWarning)
            lines = read_head(path)
    except (LogFormatError, OSError):  # unreadable: the table reader says why
        return None
    head = [ln for ln in lines if ln.strip()][:50]
    if head and "|" in head[0] and "JobID" in head[0].split("|"):
        return "sacct"
    kind = sniff_format(head)
    if kind == "json" and "__REALTIME_TIMESTAMP" not in head[0]:
        return None  # JSON records of a table, not a journal
    return "xid" if kind is not None else None


def read_operator_log(path, format, *, job=None, year=None, nodes=None, gpus_per_node=8):
    """Read ``path`` as ``format`` ("sacct" or "xid"); returns a JobLog or an XidLog."""
    if format == "sacct":
        if year is not None:
            raise InputTypeError("year= is for kernel logs (format='xid'); a Slurm export writes its years")
        return read_sacct(path, job=job, gpus_per_node=gpus_per_node)
    if format == "xid":
        if job is not None:
            raise InputTypeError("job= is for Slurm exports (format='sacct'); a kernel log has no jobs")
        if isinstance(path, (str, Path)) and Path(path).is_dir():   # a folder of kernel logs, one per day or node
            from .kernfolder import read_xid_folder
            return read_xid_folder(path, year=year, nodes=nodes, gpus_per_node=gpus_per_node, jobs=1)
        return read_xid(path, year=year, nodes=nodes, gpus_per_node=gpus_per_node)
    raise LogFormatError(f"format={format!r}: use one of {', '.join(LOG_FORMATS)}")


def operator_source(source, format, mapping, *, job=None, year=None, source_gpus=None, gpus_per_node=8,
                    syslog=None):
    """The fields of a :class:`~relmodel.data.source.Source` for a Slurm export or kernel log, or None.

    None when ``format`` is "table" or, not given, the file is not sniffed as
    either form (the caller then reads a table).  Column options (``mapping``)
    mean a table unless ``format`` says otherwise.  ``syslog`` (a kernel log
    of the run's nodes, read with ``year``) is joined to a Slurm export: see
    :func:`join_syslog`.
    """
    from pathlib import Path
    if syslog is not None and format not in (None, "sacct"):
        raise InputTypeError(f"syslog={str(syslog)!r:.80}: a kernel log is joined to a Slurm export; give "
                             "format='sacct' (or leave format unset for a sacct -P export)")
    if format not in (None,) + LOG_FORMATS:
        raise LogFormatError(f"format={format!r}: use one of {', '.join(LOG_FORMATS)}")
    if format == "table" or (format is None and (mapping or not Path(str(source)).is_file())):
        if job is not None or year is not None:
            raise InputTypeError("job= and year= are for Slurm exports and kernel logs; give format='sacct' "
                                 "or format='xid'")
        return None
    notes = []
    if format is None:
        format = sniff_log(source)
        if format is None:
            return None
        notes.append(f"Read as a {'Slurm accounting export' if format == 'sacct' else 'kernel log'} "
                     f"(format '{format}', recognised from its first lines).")
    if syslog is not None and format != "sacct":
        raise InputTypeError(f"syslog={str(syslog)!r:.80}: a kernel log is joined to a Slurm export, but "
                             f"{str(source)!r:.80} is read as a {'kernel log' if format == 'xid' else 'table'}")
    nodes = None if source_gpus is None else max(1, int(source_gpus) // int(gpus_per_node))
    data = read_operator_log(source, format, job=job, year=None if syslog is not None else year, nodes=nodes,
                             gpus_per_node=gpus_per_node)
    if syslog is not None:
        notes.append(join_syslog(data, syslog, year=year, gpus_per_node=gpus_per_node))
    if source_gpus is None and data.n_nodes:
        gpus, how = data.n_nodes * int(gpus_per_node), (
            f"{data.n_nodes:,} nodes {'held by the job at once' if format == 'sacct' else 'that wrote to the log'}"
            f" × {gpus_per_node} GPUs")
    else:
        gpus, how = int(source_gpus), "as given"
    if format == "sacct" and source_gpus is not None:
        data._n_nodes = nodes
    n = len(data.interruptions())
    return (data, "log", data.name, gpus, int(gpus_per_node), n, data.duration_h, how, tuple(notes))


def join_syslog(run, syslog, *, year=None, gpus_per_node=8):
    """Join the kernel log ``syslog`` to the Slurm run ``run`` in place; returns a sentence for the notes.

    The run then carries ``kernel`` (the :class:`~relmodel.data.formats.kernlog.XidLog`),
    ``kernel_join`` (the :class:`~relmodel.data.formats.kernjoin.KernelJoin`) and
    ``detection_latency_h`` (the median hours from a matched fault to the job's
    end), which a decision reports as measured from the log.  A kernel log
    none of whose faults matches an interruption of the run is a
    :class:`~relmodel.errors.KernelJoinError`: it is another cluster's, or
    another time's (check ``year``).
    """
    from ...errors import KernelJoinError
    from .kernjoin import join_kernel

    from ...errors import KernelLogError
    try:
        kern = read_xid(syslog, year=year, gpus_per_node=gpus_per_node)
    except KernelLogError as exc:
        raise KernelLogError(f"syslog: {exc}") from None
    joined = join_kernel(run, kern)
    if not joined.n_matched:
        raise KernelJoinError(
            f"syslog {str(syslog)!r:.120}: none of its kernel faults matches one of the {joined.n_interruptions:,} "
            f"interruptions of {run.name!r}; give the kernel log of the run's nodes over the run's time "
            "(and year=, the year of the log's first line, for syslog that omits it)")
    run.kernel, run.kernel_join, run.detection_latency_h = kern, joined, float(joined.detection_latency_h)
    return (f"Kernel log {Path(str(syslog)).name} joined: {joined.n_matched:,} of {joined.n_interruptions:,} "
            "interruptions matched to a kernel fault; the detection latency is measured from it.")
