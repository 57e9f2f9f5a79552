"""Planning layer, scale: clusters, scaling rates, requirements, budgets and spares.

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
EXPORTS = [(".", "spares"), (".budget", "share_fit split_budget what_if"), (".cluster", "Cluster"),
           (".grid", "sweep_grid"),
           (".requirements", "Requirements best_ettr job_mtbf plan_requirements required_gpu_mtbf"),
           (".requirements", "required_job_mtbf required_node_mtbf requirements_table"),
           (".scaling", "ScaledRates scale_job_mtbf scale_rates"),
           (".spares", "erlang_b repair_model spare_pool spares_table"),
           (".domains", "blast_radius cause_levels fault_domains"), (".compound", "DomainModel simulate_domains"),
           (".policies", "evaluate_design tolerance_gain"), (".optics", "optics_requirements transceiver_requirement"),
           (".designs", "DESIGNS compare_designs design_presets"), (".sensitivity", "domain_fit_sensitivity"),
           (".spares_time", "spares_over_time"), (".rack_faults", "RackFaults rack_fault_rate")]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)

__all__ = ["spares", "share_fit", "split_budget", "what_if", "Cluster", "Requirements", "best_ettr", "job_mtbf",
           "plan_requirements", "required_gpu_mtbf", "required_job_mtbf", "required_node_mtbf",
           "requirements_table", "ScaledRates", "scale_job_mtbf", "scale_rates", "erlang_b", "repair_model",
           "spare_pool", "spares_table", "blast_radius", "cause_levels", "fault_domains", "DomainModel",
           "simulate_domains", "evaluate_design", "tolerance_gain", "optics_requirements", "transceiver_requirement",
           "DESIGNS", "compare_designs", "design_presets", "sweep_grid", "domain_fit_sensitivity", "spares_over_time",
           "RackFaults", "rack_fault_rate"]
