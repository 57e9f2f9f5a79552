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
  :mod:`relmodel.base` (HTML escaping, progress, start-up, lazy faces)

This module only re-exports a small face: the subpackages, the readers and
the few entry points most sessions start from (``fit``, ``decide``, the
simulators, ``optimal_interval``, ``ettr``, ``Cluster``, ...).  Everything
else lives on its subpackage's face (``relmodel.stats.kaplan_meier``,
``relmodel.checkpoint.young_interval``); a name the face of 0.2 had says where
it moved (:data:`MOVED`).  The face loads on first use: ``import relmodel``
imports almost nothing, and ``relmodel.fit`` imports the statistics layer the
first time it is looked up.  Each row of :data:`EXPORTS` says which module a
name comes from; ``from relmodel import *`` loads every layer.
"""

from .base.quiet_start import guard as _guard_start
_guard_start()  # first: a Ctrl-C while the command imports exits 130 quietly (and closed standard streams are opened)

from .base import lazy as _lazy

#: (module, names) of the small face, each loaded the first time one of its names is used.
EXPORTS = [
    (".", "errors units data stats checkpoint scale stragglers plots report"),
    (".data", "datasets read_log count_table read_sacct read_xid read_steps InterruptionLog Source load_source"),
    (".stragglers", "read_ops"),
    (".stats", "fit current_rate bad_nodes"),
    (".scale.targets.decision", "Decision decide"),
    (".checkpoint", "simulate_training optimal_interval ettr"),
    (".scale.lifecycle", "simulate_fleet"),
    (".scale", "Cluster spare_pool"),
    (".scenario", "Scenario"),
]

#: Names the face of 0.2 re-exported that live only in a subpackage now: name -> where to find it.
MOVED = {name: f"relmodel.{package}.{name}" for package, row in [
    ("units", "hours unit_hours fit_from_mtbf mtbf_from_fit afr_from_mtbf"),
    ("data", "LogWarning CountTable Durations StepLog read_megatron JobLog XidLog expand_nodelist join_kernel"),
    ("data", "KernelJoin measured_restart MeasuredRestart read_xid_folder"),
    ("stats", "component_rates poisson_interval FitResult FitWarning compare_fits Comparison kaplan_meier"),
    ("stats", "nelson_aalen cumulative_incidence laplace_test mil_hdbk_189_test lewis_robinson_test crow_amsaa"),
    ("stats", "power_law_gof trend mcf fleet_prior update_rate shrink_components compare_rates rate_changes"),
    ("stats", "fleet_summary RateData PriorWarning regress RegressionResult andersen_gill counting_process"),
    ("stats", "compare_groups compare_mcf gray_test turnbull uptime_intervals curve_band b_life"),
    ("stats", "profile_intervals weibayes CurrentRate BadNodes"),
    ("checkpoint", "young_interval daly_interval expected_wall_time time_breakdown TimeBreakdown"),
    ("checkpoint", "best_step_interval StepInterval async_ettr async_breakdown async_optimal_interval"),
    ("checkpoint", "two_level_ettr two_level_breakdown two_level_optimum RestartModel SimulationResult"),
    ("checkpoint", "NodeRenewals LogReplay best_interval IntervalSearch compare_intervals backtest Backtest"),
    ("checkpoint", "CheckpointModel simulate_to_precision forecast_check ForecastCheck"),
    ("scale", "scale_rates scale_job_mtbf ScaledRates required_job_mtbf required_node_mtbf required_gpu_mtbf"),
    ("scale", "job_mtbf best_ettr requirements_table plan_requirements Requirements split_budget share_fit"),
    ("scale", "repair_model spares_table erlang_b spares blast_radius fault_domains compare_designs"),
    ("scale", "design_presets evaluate_design tolerance_gain optics_requirements sweep_grid"),
    ("scale", "domain_fit_sensitivity spares_over_time rack_fault_rate RackFaults"),
    ("scale.lifecycle", "fleet_model compare_policies"),
    ("stragglers", "slowdown find_slow_nodes expected_max straggler_scaling eviction_policy combined_goodput"),
    ("stragglers", "goodput_with_stragglers synthetic_steps OpTrace read_kineto WhatIf whatif"),
] for name in row.split()}
MOVED["what_if"] = "relmodel.scale.budget_what_if"   # renamed too: it is unrelated to relmodel.stragglers.whatif

__all__ = _lazy.names(EXPORTS)
_face, __dir__ = _lazy.face(__name__, EXPORTS)


def __getattr__(name):
    """A name of the face, imported the first time it is used; a name that moved says where it lives now."""
    if name in MOVED:
        raise AttributeError(f"relmodel.{name} moved: use {MOVED[name]}")
    return _face(name)


__version__ = "0.2.0"
