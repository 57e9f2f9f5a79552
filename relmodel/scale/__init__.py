"""Planning layer, scale: clusters, scaling rates, requirements, budgets and spares.

Belongs here: :class:`Cluster` and its component counts, scaling observed
rates to another cluster, the MTBF each part needs for a target ETTR,
failure budgets, what-ifs and spare pools (stationary and over a planning
horizon); fault domains, correlated faults, degraded-operation policies,
optics requirements, design comparisons and their sensitivity to unknown rates.  May import
:mod:`relmodel.checkpoint`, the statistics and data layers and the base;
never presentation, never matplotlib or papermill.
"""

from . import spares
from .budget import share_fit, split_budget, what_if
from .cluster import Cluster
from .grid import sweep_grid
from .requirements import (Requirements, best_ettr, job_mtbf, plan_requirements, required_gpu_mtbf,
                           required_job_mtbf, required_node_mtbf, requirements_table)
from .scaling import ScaledRates, scale_job_mtbf, scale_rates
from .spares import erlang_b, repair_model, spare_pool, spares_table
from .domains import blast_radius, cause_levels, fault_domains
from .compound import DomainModel, simulate_domains
from .policies import evaluate_design, tolerance_gain
from .optics import optics_requirements, transceiver_requirement
from .designs import DESIGNS, compare_designs, design_presets
from .sensitivity import domain_fit_sensitivity
from .spares_time import spares_over_time

__all__ = ["spares", "share_fit", "split_budget", "what_if", "Cluster", "Requirements", "best_ettr", "job_mtbf",
           "plan_requirements", "required_gpu_mtbf", "required_job_mtbf", "required_node_mtbf",
           "requirements_table", "ScaledRates", "scale_job_mtbf", "scale_rates", "erlang_b", "repair_model",
           "spare_pool", "spares_table", "blast_radius", "cause_levels", "fault_domains", "DomainModel",
           "simulate_domains", "evaluate_design", "tolerance_gain", "optics_requirements", "transceiver_requirement",
           "DESIGNS", "compare_designs", "design_presets", "sweep_grid", "domain_fit_sensitivity", "spares_over_time"]
