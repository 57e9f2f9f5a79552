"""Planning layer, checkpoints: intervals, ETTR, multilevel checkpoints, restarts, the simulator.

Belongs here: Young, Daly and exact intervals, the ETTR and time breakdown,
asynchronous and two-level checkpointing, restart models and checkpoint
costs that grow with the job, detection latency and silent data corruption,
and the Monte Carlo simulator of a training run with its failure sources.  May import the
statistics and data layers and the base; never :mod:`relmodel.scale` (which
builds on this package) or presentation, never matplotlib or papermill.
"""

from .costs import CheckpointModel
from .intervals import (StepInterval, TimeBreakdown, best_step_interval, daly_interval, ettr,
                        expected_wall_time, optimal_interval, time_breakdown, young_interval)
from .multilevel import (async_breakdown, async_ettr, async_optimal_interval, two_level_breakdown,
                         two_level_ettr, two_level_optimum)
from .plan import compare_intervals
from .restart import RestartModel
from .search import IntervalSearch, best_interval
from .simulate import SimulationResult, simulate_training
from .sources import LogReplay, NodeRenewals

__all__ = ["StepInterval", "TimeBreakdown", "best_step_interval", "daly_interval", "ettr", "expected_wall_time",
           "optimal_interval", "time_breakdown", "young_interval", "async_breakdown", "async_ettr",
           "async_optimal_interval", "two_level_breakdown", "two_level_ettr", "two_level_optimum",
           "compare_intervals", "RestartModel", "IntervalSearch", "best_interval", "SimulationResult",
           "simulate_training", "LogReplay", "NodeRenewals", "CheckpointModel"]
from .backtest import Backtest, backtest

__all__ += ["Backtest", "backtest"]
from .precision import half_width, simulate_to_precision

__all__ += ["half_width", "simulate_to_precision"]
