"""Planning layer, scale: clusters, scaling rates, requirements, budgets and spares.

Subpackages, bottom up (each imports only those before it): :mod:`.clusters`
(clusters, fault domains and scaling rates); :mod:`.targets` (what the parts
must reach for a target ETTR, budgets, the decision); :mod:`.sparing` (spare
pools, now and over a planning horizon); :mod:`.design` (cluster designs,
degraded operation, compound failures); :mod:`.lifecycle` (bad nodes, repairs that do
not fix and retirement, simulated over a planned run).

Belongs here: :class:`Cluster` and its component counts, scaling observed
rates to another cluster, the MTBF each part needs for a target ETTR,
failure budgets, what-ifs and spare pools (stationary and over a planning
horizon); fault domains, correlated faults, degraded-operation policies,
optics requirements, design comparisons and their sensitivity to unknown rates.  May import
:mod:`relmodel.checkpoint`, the statistics and data layers and the base;
never presentation, never matplotlib or papermill.
"""

from ..base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used
#: (``Cluster`` and the requirements load without the spare-pool, domain and design models).
EXPORTS = [(".sparing", "spares"), (".targets.budget", "share_fit split_budget budget_what_if"),
           (".clusters.cluster", "Cluster"), (".targets.grid", "sweep_grid"),
           (".targets.requirements", "Requirements best_ettr job_mtbf plan_requirements required_gpu_mtbf"),
           (".targets.requirements", "required_job_mtbf required_node_mtbf requirements_table"),
           (".clusters.scaling", "ScaledRates scale_job_mtbf scale_rates"),
           (".sparing.spares", "erlang_b repair_model spare_pool spares_table"),
           (".clusters.domains", "blast_radius cause_levels fault_domains"),
           (".design.compound", "DomainModel simulate_domains"),
           (".design.policies", "evaluate_design tolerance_gain"),
           (".targets.optics", "optics_requirements transceiver_requirement"),
           (".design.designs", "DESIGNS compare_designs design_presets"),
           (".design.sensitivity", "domain_fit_sensitivity"),
           (".sparing.spares_time", "spares_over_time"),
           (".clusters.rack_faults", "RackFaults rack_fault_rate")]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)

__all__ = ["spares", "share_fit", "split_budget", "budget_what_if", "Cluster", "Requirements", "best_ettr", "job_mtbf",
           "plan_requirements", "required_gpu_mtbf", "required_job_mtbf", "required_node_mtbf",
           "requirements_table", "ScaledRates", "scale_job_mtbf", "scale_rates", "erlang_b", "repair_model",
           "spare_pool", "spares_table", "blast_radius", "cause_levels", "fault_domains", "DomainModel",
           "simulate_domains", "evaluate_design", "tolerance_gain", "optics_requirements", "transceiver_requirement",
           "DESIGNS", "compare_designs", "design_presets", "sweep_grid", "domain_fit_sensitivity", "spares_over_time",
           "RackFaults", "rack_fault_rate"]
