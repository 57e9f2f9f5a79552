"""Sparing: how many hot spares keep a job from waiting on repairs.

Belongs here: stationary spare pools (:mod:`.spares`), the fewest spares at
a large offered load in a bounded number of steps (:mod:`.spare_search`),
and spares over a planning horizon with RMA lead times (:mod:`.spares_time`).
May import :mod:`..targets`, :mod:`..clusters`, :mod:`relmodel.checkpoint`,
the statistics and data layers and the base.

Also here: :mod:`.general_repairs` (crews under any repair-time law: the M/G/c pool simulated); :mod:`.repair_queue` (Finite repair capacity: crews that repair one unit at a time, an RMA lead time, spares that fail idle); :mod:`.repairs` (Repair times: a mean, a sample resampled as observed, or a fitted law (hours)); :mod:`.words` (Shares and ETTR in the words the design, spares and requirement sentences use).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".", "spares"), (".spares", "erlang_b repair_model spare_pool spares_table"),
           (".spares_time", "spares_over_time")]

__all__ = ["spares", "erlang_b", "repair_model", "spare_pool", "spares_table", "spares_over_time"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
