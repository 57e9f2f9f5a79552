"""Planning layer, checkpoints: intervals, ETTR, multilevel checkpoints, restarts, the simulator.

Belongs here: Young, Daly and exact intervals, the ETTR and time breakdown,
asynchronous and two-level checkpointing, restart models and checkpoint
costs that grow with the job, detection latency and silent data corruption,
and the Monte Carlo simulator of a training run with its failure sources.
:mod:`.strategies` puts the schemes (synchronous, asynchronous, two-level,
any failure law by simulation) behind one protocol: ``.ettr``,
``.optimal_interval``, ``.breakdown`` and ``.simulate``.  May import the
statistics and data layers and the base; never :mod:`relmodel.scale` (which
builds on this package) or presentation, never matplotlib or papermill.
"""

from ..base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used
#: (the closed-form intervals load without the simulator and scipy.stats).
EXPORTS = [(".costs", "CheckpointModel"),
           (".intervals", "StepInterval TimeBreakdown best_step_interval daly_interval ettr expected_wall_time"),
           (".intervals", "optimal_interval time_breakdown young_interval"),
           (".multilevel", "async_breakdown async_ettr async_optimal_interval two_level_breakdown two_level_ettr"),
           (".multilevel", "two_level_optimum"), (".plan", "compare_intervals"), (".restart", "RestartModel"),
           (".search", "IntervalSearch best_interval"), (".simulate", "SimulationResult simulate_training"),
           (".sources", "LogReplay NodeRenewals"), (".backtest", "Backtest backtest"),
           (".precision", "half_width simulate_to_precision"),
           (".forecast_check", "ForecastCheck forecast_check held_out_path"),
           (".strategies", "Strategy Synchronous Asynchronous TwoLevel LawAware")]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)

__all__ = ["StepInterval", "TimeBreakdown", "best_step_interval", "daly_interval", "ettr", "expected_wall_time",
           "optimal_interval", "time_breakdown", "young_interval", "async_breakdown", "async_ettr",
           "async_optimal_interval", "two_level_breakdown", "two_level_ettr", "two_level_optimum",
           "compare_intervals", "RestartModel", "IntervalSearch", "best_interval", "SimulationResult",
           "simulate_training", "LogReplay", "NodeRenewals", "CheckpointModel"]
__all__ += ["Backtest", "backtest"]
__all__ += ["half_width", "simulate_to_precision"]
__all__ += ["ForecastCheck", "forecast_check", "held_out_path"]
__all__ += ["Strategy", "Synchronous", "Asynchronous", "TwoLevel", "LawAware"]
