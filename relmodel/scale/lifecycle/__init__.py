"""The node lifecycle: bad nodes, repairs that do not fix, retirement, simulated over a planned run.

Belongs here: the inputs of a fleet's life (:mod:`.model`), node lives that
keep their age across job restarts (:mod:`.lives`), retirement policies
(:mod:`.retirement`), the event loop of one replication (:mod:`.loop`), runs
until a stated precision (:mod:`.simulate`) and policies compared over a
planned run (:mod:`.payoff`), the planned job's answer on the fleet a log shows (:mod:`.fleet_answer`), grids of scenarios on any executor, Dask included (:mod:`.grid`). May import :mod:`..sparing`, :mod:`..targets`,
:mod:`..clusters`, :mod:`relmodel.checkpoint`, the statistics and data layers
and the base.
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".model", "FleetModel fleet_model"), (".simulate", "FleetResult simulate_fleet"),
           (".retirement", "never threshold score retire_top"), (".lives", "life_law"),
           (".payoff", "PolicyComparison compare_policies lifecycle_model"), (".grid", "fleet_grid"),
           (".fleet_answer", "FleetAnswer fleet_answer with_fleet")]

__all__ = ["FleetModel", "fleet_model", "FleetResult", "simulate_fleet", "never", "threshold", "score",
           "retire_top", "life_law", "PolicyComparison", "compare_policies", "lifecycle_model", "fleet_grid",
           "FleetAnswer", "fleet_answer", "with_fleet"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
