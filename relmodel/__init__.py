"""relmodel: failure rates, MTBF requirements and checkpoint intervals for GPU clusters.

This module only re-exports; each idea lives in its own small module.
"""

from . import errors
from .units import hours, unit_hours, fit_from_mtbf, mtbf_from_fit, afr_from_mtbf
from .durations import Durations
from .logs import read_log, InterruptionLog, LogWarning
from .counts import CountTable, count_table
from .rates import component_rates, poisson_interval
from . import datasets
from .checkpoint import young_interval, daly_interval, optimal_interval, ettr
from .checkpoint import expected_wall_time, time_breakdown, TimeBreakdown, best_step_interval, StepInterval
from .multilevel import (async_ettr, async_breakdown, async_optimal_interval, two_level_ettr,
                         two_level_breakdown, two_level_optimum)
from .restart import RestartModel
from .simulate import simulate_training, SimulationResult
from .simulate_sources import NodeRenewals, LogReplay
from .simulate_interval import best_interval, IntervalSearch
from .checkpoint_plan import compare_intervals
from . import plots_checkpoint
from .fitting import fit, FitResult, FitWarning
from .compare import compare_fits, Comparison
from .nonparam import kaplan_meier, nelson_aalen, cumulative_incidence
from .trends import laplace_test, mil_hdbk_189_test, lewis_robinson_test, crow_amsaa, power_law_gof, trend
from .recurrence import mcf
from . import plots
from . import report, plots_log
from .cluster import Cluster
from .scaling import scale_rates, scale_job_mtbf, ScaledRates
from .requirements import (required_job_mtbf, required_node_mtbf, required_gpu_mtbf, job_mtbf, best_ettr,
                           requirements_table, plan_requirements, Requirements)
from .budget import split_budget, what_if, share_fit
from .spares import spare_pool, repair_model, spares_table, erlang_b
from . import plots_scaling

__version__ = "0.1.0"
