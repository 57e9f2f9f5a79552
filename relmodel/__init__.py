"""relmodel: failure rates, MTBF requirements and checkpoint intervals for GPU clusters.

The package is cut by layer, each a subpackage whose docstring says what
belongs there and what it may import; dependencies point down this list:

* presentation: :mod:`relmodel.cli`, :mod:`relmodel.report`, :mod:`relmodel.plots`
* planning: :mod:`relmodel.scale` (clusters, requirements, budgets, spares),
  :mod:`relmodel.checkpoint` (intervals, ETTR, the simulator),
  :mod:`relmodel.stragglers` (fail-slow nodes, what-if slowdown, eviction)
* statistics: :mod:`relmodel.stats`
* data: :mod:`relmodel.data`
* base: :mod:`relmodel.units`, :mod:`relmodel.errors`

This module only re-exports, so ``import relmodel`` keeps one flat face.
"""

from .quiet_start import guard as _guard_start
_guard_start()  # first: a Ctrl-C while the command imports exits 130 quietly

from . import errors
from .units import hours, unit_hours, fit_from_mtbf, mtbf_from_fit, afr_from_mtbf
from .data import datasets, read_log, InterruptionLog, LogWarning, CountTable, count_table, Durations
from .stats import (component_rates, poisson_interval, fit, FitResult, FitWarning, compare_fits, Comparison,
                    kaplan_meier, nelson_aalen, cumulative_incidence, laplace_test, mil_hdbk_189_test,
                    lewis_robinson_test, crow_amsaa, power_law_gof, trend, mcf)
from .checkpoint import (young_interval, daly_interval, optimal_interval, ettr, expected_wall_time, time_breakdown,
                         TimeBreakdown, best_step_interval, StepInterval, async_ettr, async_breakdown,
                         async_optimal_interval, two_level_ettr, two_level_breakdown, two_level_optimum,
                         RestartModel, simulate_training, SimulationResult, NodeRenewals, LogReplay, best_interval,
                         IntervalSearch, compare_intervals)
from .scale import (Cluster, scale_rates, scale_job_mtbf, ScaledRates, required_job_mtbf, required_node_mtbf,
                    required_gpu_mtbf, job_mtbf, best_ettr, requirements_table, plan_requirements, Requirements,
                    split_budget, what_if, share_fit, spare_pool, repair_model, spares_table, erlang_b, spares)
from .stats import (fleet_prior, update_rate, shrink_components, compare_rates, rate_changes, fleet_summary,
                    RateData, PriorWarning)
from .scale import (blast_radius, fault_domains, compare_designs, design_presets, evaluate_design, tolerance_gain,
                    optics_requirements)
from .stats import regress, RegressionResult, andersen_gill, counting_process, compare_groups, compare_mcf, gray_test
from .stats import turnbull, uptime_intervals, curve_band, b_life, profile_intervals, weibayes
from .data import StepLog, read_steps, read_megatron
from .stragglers import (slowdown, find_slow_nodes, expected_max, straggler_scaling, eviction_policy,
                         combined_goodput, goodput_with_stragglers, synthetic_steps)
from .data import Source, load_source
from .scale.decision import Decision, decide
from . import plots, report
from . import defaults
from .scale import sweep_grid
from . import resources

from .data import read_sacct, read_xid, JobLog, XidLog, expand_nodelist
from .checkpoint import backtest, Backtest
from .stragglers import OpTrace, read_ops, read_kineto, WhatIf, whatif
from .checkpoint import CheckpointModel
from .scale import domain_fit_sensitivity, spares_over_time
from .checkpoint import simulate_to_precision

__version__ = "0.2.0"
