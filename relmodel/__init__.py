"""relmodel: failure rates, MTBF requirements and checkpoint intervals for GPU clusters.

The package is cut by layer, each a subpackage whose docstring says what
belongs there and what it may import; dependencies point down this list:

* presentation: :mod:`relmodel.cli`, :mod:`relmodel.report`, :mod:`relmodel.plots`
* planning: :mod:`relmodel.scale` (clusters, requirements, budgets, spares),
  :mod:`relmodel.checkpoint` (intervals, ETTR, the simulator),
  :mod:`relmodel.stragglers` (fail-slow nodes, what-if slowdown, eviction)
* statistics: :mod:`relmodel.stats`
* data: :mod:`relmodel.data`
* base: :mod:`relmodel.units`, :mod:`relmodel.errors`, :mod:`relmodel.tables` (formatting), and
  :mod:`relmodel.base` (deprecated aliases, HTML escaping, progress, start-up, lazy faces)

This module only re-exports, so ``import relmodel`` keeps one flat face.  The
face loads on first use: ``import relmodel`` imports almost nothing, and
``relmodel.fit`` imports the statistics layer the first time it is looked up.
Each row of :data:`EXPORTS` says which module a name comes from (add a name by
adding a row); ``from relmodel import *`` loads every layer.
"""

from .base.quiet_start import guard as _guard_start
_guard_start()  # first: a Ctrl-C while the command imports exits 130 quietly (and closed standard streams are opened)

from .base import lazy as _lazy

#: (module, names) re-exported by the flat face, each loaded the first time one of its names is used.
EXPORTS = [
    (".", "errors units data stats checkpoint scale stragglers plots report defaults resources"),
    (".units", "hours unit_hours fit_from_mtbf mtbf_from_fit afr_from_mtbf"),
    (".data", "datasets read_log InterruptionLog LogWarning CountTable count_table Durations"),
    (".stats", "component_rates poisson_interval fit FitResult FitWarning compare_fits Comparison"),
    (".stats", "kaplan_meier nelson_aalen cumulative_incidence laplace_test mil_hdbk_189_test"),
    (".stats", "lewis_robinson_test crow_amsaa power_law_gof trend mcf"),
    (".checkpoint", "young_interval daly_interval optimal_interval ettr expected_wall_time time_breakdown"),
    (".checkpoint", "TimeBreakdown best_step_interval StepInterval async_ettr async_breakdown"),
    (".checkpoint", "async_optimal_interval two_level_ettr two_level_breakdown two_level_optimum"),
    (".checkpoint", "RestartModel simulate_training SimulationResult NodeRenewals LogReplay best_interval"),
    (".checkpoint", "IntervalSearch compare_intervals"),
    (".scale", "Cluster scale_rates scale_job_mtbf ScaledRates required_job_mtbf required_node_mtbf"),
    (".scale", "required_gpu_mtbf job_mtbf best_ettr requirements_table plan_requirements Requirements"),
    (".scale", "split_budget what_if share_fit spare_pool repair_model spares_table erlang_b spares"),
    (".stats", "fleet_prior update_rate shrink_components compare_rates rate_changes fleet_summary"),
    (".stats", "RateData PriorWarning"),
    (".scale", "blast_radius fault_domains compare_designs design_presets evaluate_design tolerance_gain"),
    (".scale", "optics_requirements"),
    (".stats", "regress RegressionResult andersen_gill counting_process compare_groups compare_mcf gray_test"),
    (".stats", "turnbull uptime_intervals curve_band b_life profile_intervals weibayes"),
    (".data", "StepLog read_steps read_megatron"),
    (".stragglers", "slowdown find_slow_nodes expected_max straggler_scaling eviction_policy"),
    (".stragglers", "combined_goodput goodput_with_stragglers synthetic_steps"),
    (".data", "Source load_source"),
    (".scale.targets.decision", "Decision decide"),
    (".scale", "sweep_grid"),
    (".data", "read_sacct read_xid JobLog XidLog expand_nodelist"),
    (".data", "join_kernel KernelJoin measured_restart MeasuredRestart read_xid_folder"),
    (".checkpoint", "backtest Backtest"),
    (".stragglers", "OpTrace read_ops read_kineto WhatIf whatif"),
    (".checkpoint", "CheckpointModel"),
    (".scale", "domain_fit_sensitivity spares_over_time"),
    (".checkpoint", "simulate_to_precision"),
    (".stats", "current_rate CurrentRate"),
    (".checkpoint", "forecast_check ForecastCheck"),
    (".scale", "rack_fault_rate RackFaults"),
    (".scale.lifecycle", "simulate_fleet fleet_model compare_policies"),
    (".stats", "bad_nodes BadNodes"),
    (".scenario", "Scenario"),
]

__all__ = _lazy.names(EXPORTS)
_face, __dir__ = _lazy.face(__name__, EXPORTS)


def __getattr__(name):
    """A name of the flat face, imported the first time it is used.

    A step log through the face brings :mod:`relmodel.stragglers` too, which
    attaches the deprecated ``StepLog.slowdown()`` and ``find_slow_nodes()``.
    """
    value = _face(name)
    if name in ("StepLog", "read_steps", "read_megatron"):
        _face("stragglers")
    return value


__version__ = "0.2.0"
