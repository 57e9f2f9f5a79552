"""Formats: operators' logs, each read by the reader of its format.

Belongs here: Slurm accounting exports (:mod:`.sacct`, its fields in
:mod:`.sacct_fields`, host lists in :mod:`.nodelist`), kernel logs and
NVIDIA Xid codes (:mod:`.kernlog`, :mod:`.xid`), text given as a path or
as the text itself (:mod:`.textinput`), the reader chosen by name
(:mod:`.operators`), per-rank step-time logs and Megatron-LM logs
(:mod:`.steps`, :mod:`.megatron`), and synthetic exports with known truth
(:mod:`.synthetic_ops`).  May import :mod:`..shaping`, :mod:`..bundled`
and the base.

Also here: :mod:`.kernstream` (One streaming pass over a kernel log file: records, every host's first and last line, the year of each line, in bounded memory); :mod:`.kernwords` (the byte words a classic syslog block is tested with, column-wise); :mod:`.kernlines` (One kernel-log line read as the rules read it: its form, host, time, writer and what it reports); :mod:`.kernfolder` (A folder of kernel logs (one file per node or per day, plain or compressed) read as one log, in parallel); :mod:`.kernjoin` (A Slurm run joined to a kernel log: which fault ended each interruption, and how late it was seen); :mod:`.restarts` (Restart times measured from a Slurm run: the gaps from an interruption to the run's next start); :mod:`.lives` (Lifetime tables (one row per unit: a duration, an event flag, covariates), as the covariates page reads them).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".", "xid synthetic_ops"), (".steps", "StepLog example_steps read_steps"),
           (".megatron", "read_megatron"), (".sacct", "JobLog read_sacct"), (".kernlog", "XidLog read_xid"),
           (".kernjoin", "KernelJoin join_kernel"), (".restarts", "MeasuredRestart measured_restart"),
           (".kernfolder", "read_xid_folder"), (".nodelist", "expand_nodelist compress_nodelist")]

__all__ = ["xid", "synthetic_ops", "StepLog", "example_steps", "read_steps", "read_megatron", "JobLog",
           "read_sacct", "XidLog", "read_xid", "KernelJoin", "join_kernel", "MeasuredRestart", "measured_restart",
           "read_xid_folder", "expand_nodelist", "compress_nodelist"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
