"""Data layer: reading, validating and shaping interruption logs and count tables.

Subpackages, bottom up (each imports only those before it): :mod:`.shaping`
(event logs and count tables, read, cleaned and shaped); :mod:`.bundled`
(the bundled and published data sets); :mod:`.formats` (operators' log
formats: Slurm, kernel logs, step times).

Belongs here: file readers, :class:`InterruptionLog`, count tables, the
bundled datasets, durations with censoring and per-rank step-time logs.  May import only the base
(:mod:`relmodel.units`, :mod:`relmodel.errors`), numpy and pandas; never
statistics, planning or presentation, never matplotlib or papermill.
"""

from ..base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used
#: (``read_log`` loads the log reader, not the Slurm and kernel-log readers or the bundled datasets).
EXPORTS = [(".bundled", "datasets"), (".formats", "xid synthetic_ops"),
           (".shaping.counts", "CountTable count_table"), (".shaping.durations", "Durations"),
           (".shaping.logs", "InterruptionLog LogWarning read_log"), (".source", "Source load_source"),
           (".formats.steps", "StepLog example_steps read_steps"),
           (".formats.megatron", "read_megatron"), (".formats.sacct", "JobLog read_sacct"),
           (".formats.kernlog", "XidLog read_xid"), (".formats.kernjoin", "KernelJoin join_kernel"),
           (".formats.restarts", "MeasuredRestart measured_restart"),
           (".formats.kernfolder", "read_xid_folder"),
           (".formats.nodelist", "expand_nodelist compress_nodelist"),
           (".shaping.outages", "OutageDurations drop_short_outages outage_durations")]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)

__all__ = ["datasets", "CountTable", "count_table", "Durations", "InterruptionLog", "LogWarning", "read_log", "Source",
           "load_source", "StepLog", "example_steps", "read_megatron", "read_steps"]
__all__ += ["JobLog", "read_sacct", "XidLog", "read_xid", "expand_nodelist", "compress_nodelist", "xid",
            "synthetic_ops"]
__all__ += ["OutageDurations", "drop_short_outages", "outage_durations"]
__all__ += ["KernelJoin", "join_kernel", "MeasuredRestart", "measured_restart", "read_xid_folder"]
