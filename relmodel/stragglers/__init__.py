"""Planning layer, stragglers: fail-slow ranks and nodes, from step-time logs to decisions.

Belongs here: the what-if slowdown of a step log (:mod:`.slowdown`), the
detection of persistent fail-slow nodes (:mod:`.detection`), how straggler
loss grows with the number of GPUs (:mod:`.scaling`: E[max of N] and
fail-slow rates), the eviction policy and the goodput that combines
fail-stop and fail-slow faults (:mod:`.policy`), and synthetic step logs
with planted slow nodes (:mod:`.synthetic`); op-level traces (:mod:`.ops`),
with readers for their files (:mod:`.ops`, PyTorch profiler traces in
:mod:`.kineto`), the step's dependency model (:mod:`.graph`), its simulator
(:mod:`.simulate`), the what-if analysis through it (:mod:`.whatif`), what it
means for eviction and goodput (:mod:`.plan`), and synthetic op-level traces
(:mod:`.synthetic_ops`).  May import the checkpoint,
statistics and data layers and the base; never :mod:`relmodel.scale` or
presentation, never matplotlib or papermill.  Reading step logs lives in
:mod:`relmodel.data.formats.steps`; its analyses are functions here that take
the log (``slowdown(steps)``, ``find_slow_nodes(steps)``): the data layer knows
nothing of them.
"""

from .detection import SlowNodes, adjust_pvalues, find_slow_nodes
from .policy import (POLICIES, EvictionPlan, combined_goodput, event_slowdown, eviction_policy,
                     goodput_with_stragglers)
from .scaling import (ScalingCurve, expected_max, fit_rank_times, gumbel_max, max_with_slow, straggler_scaling,
                      within_step_times)
from .slowdown import Slowdown, slowdown
from .synthetic import SyntheticSteps, synthetic_steps, write_synthetic_parquet
from .graph import OpGraph, build_graph, one_f_one_b
from .ops import OpTrace, read_ops, read_meta
from .simulate import simulate_steps
from .whatif import WhatIf, analyse_trace, whatif, typical_times
from .plan import evict_worker, slow_workers, whatif_goodput, worker_steps
from .ops import example_ops
from .synthetic_ops import synthetic_ops
from .kineto import read_kineto


__all__ = ["SlowNodes", "adjust_pvalues", "find_slow_nodes", "POLICIES", "EvictionPlan", "combined_goodput",
           "event_slowdown", "eviction_policy", "goodput_with_stragglers", "fit_rank_times", "within_step_times",
           "ScalingCurve", "expected_max", "gumbel_max", "max_with_slow", "straggler_scaling", "Slowdown",
           "slowdown", "SyntheticSteps", "synthetic_steps", "write_synthetic_parquet"]
__all__ += ["OpGraph", "build_graph", "one_f_one_b", "OpTrace", "read_ops", "read_meta", "simulate_steps", "WhatIf",
            "whatif", "typical_times", "analyse_trace", "evict_worker", "slow_workers", "whatif_goodput",
            "worker_steps", "example_ops", "synthetic_ops", "read_kineto"]
