"""Data layer: reading, validating and shaping interruption logs and count tables.

Belongs here: file readers, :class:`InterruptionLog`, count tables, the
bundled datasets, durations with censoring and per-rank step-time logs.  May import only the base
(:mod:`relmodel.units`, :mod:`relmodel.errors`), numpy and pandas; never
statistics, planning or presentation, never matplotlib or papermill.
"""

from ..base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used
#: (``read_log`` loads the log reader, not the Slurm and kernel-log readers or the bundled datasets).
EXPORTS = [(".", "datasets xid synthetic_ops"), (".counts", "CountTable count_table"), (".durations", "Durations"),
           (".logs", "InterruptionLog LogWarning read_log"), (".source", "Source load_source"),
           (".steps", "StepLog example_steps read_steps"), (".megatron", "read_megatron"),
           (".sacct", "JobLog read_sacct"), (".kernlog", "XidLog read_xid"),
           (".kernjoin", "KernelJoin join_kernel"), (".restarts", "MeasuredRestart measured_restart"),
           (".kernfolder", "read_xid_folder"),
           (".nodelist", "expand_nodelist compress_nodelist"),
           (".outages", "OutageDurations drop_short_outages outage_durations")]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)

__all__ = ["datasets", "CountTable", "count_table", "Durations", "InterruptionLog", "LogWarning", "read_log", "Source",
           "load_source", "StepLog", "example_steps", "read_megatron", "read_steps"]
__all__ += ["JobLog", "read_sacct", "XidLog", "read_xid", "expand_nodelist", "compress_nodelist", "xid",
            "synthetic_ops"]
__all__ += ["OutageDurations", "drop_short_outages", "outage_durations"]
__all__ += ["KernelJoin", "join_kernel", "MeasuredRestart", "measured_restart", "read_xid_folder"]
