"""Data layer: reading, validating and shaping interruption logs and count tables.

Belongs here: file readers, :class:`InterruptionLog`, count tables, the
bundled datasets, durations with censoring and per-rank step-time logs.  May import only the base
(:mod:`relmodel.units`, :mod:`relmodel.errors`), numpy and pandas; never
statistics, planning or presentation, never matplotlib or papermill.
"""

from . import datasets
from .counts import CountTable, count_table
from .durations import Durations
from .logs import InterruptionLog, LogWarning, read_log
from .source import Source, load_source
from .steps import StepLog, example_steps, read_steps
from .megatron import read_megatron

__all__ = ["datasets", "CountTable", "count_table", "Durations", "InterruptionLog", "LogWarning", "read_log", "Source",
           "load_source", "StepLog", "example_steps", "read_megatron", "read_steps"]
from .sacct import JobLog, read_sacct
from .kernlog import XidLog, read_xid
from .nodelist import expand_nodelist, compress_nodelist
from . import xid, synthetic_ops

__all__ += ["JobLog", "read_sacct", "XidLog", "read_xid", "expand_nodelist", "compress_nodelist", "xid",
            "synthetic_ops"]
from .outages import OutageDurations, drop_short_outages, outage_durations
__all__ += ["OutageDurations", "drop_short_outages", "outage_durations"]
