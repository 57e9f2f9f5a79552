"""Shaping: interruption logs and count tables, read, cleaned and shaped.

Belongs here: reading a table for :func:`relmodel.read_log`
(:mod:`.readers`), text that may not be UTF-8 (:mod:`.decoding`), files that arrive damaged (:mod:`.damaged`), its times (:mod:`.times`) and observation window
(:mod:`.window`), :class:`InterruptionLog` (:mod:`.logs`), its vectorised
clean-up (:mod:`.clean`), durations with censoring (:mod:`.durations`),
short outages (:mod:`.outages`), count tables (:mod:`.counts`), and which
durations of a log are fitted (:mod:`.fit_target`).  May import only the
base, numpy and pandas; no other part of :mod:`relmodel.data`.

Also here: :mod:`.fastdates` (A vectorised reader for timestamps written in a common fixed-width format).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".counts", "CountTable count_table"), (".durations", "Durations"),
           (".logs", "InterruptionLog LogWarning read_log"),
           (".outages", "OutageDurations drop_short_outages outage_durations")]

__all__ = ["CountTable", "count_table", "Durations", "InterruptionLog", "LogWarning", "read_log",
           "OutageDurations", "drop_short_outages", "outage_durations"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
