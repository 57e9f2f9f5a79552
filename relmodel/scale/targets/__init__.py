"""Targets: what the parts must achieve for a target ETTR, and the planning answer.

Belongs here: goodput at the best interval and the job MTBF a target needs
(:mod:`.goodput`), the per-node, per-GPU and per-component requirements
(:mod:`.requirements`), failure budgets and what-ifs (:mod:`.budget`), the
planning answer for one data source (:mod:`.decision`; what each cause costs it, :mod:`.cause_impact`), what pluggable
optics must reach (:mod:`.optics`), and headline numbers over a grid of
designs (:mod:`.grid`), the node MTBF to demand from a node vendor, node
hardware alone (:mod:`.vendor`), and what each assumed input swings
(:mod:`.swings`).  May import :mod:`..clusters`,
:mod:`relmodel.checkpoint`, the statistics and data layers and the base.

Also here: :mod:`.node_lives` (the job's gaps as its nodes' renewals superposed, mature and new fleets) and
:mod:`.life_requirement` (node requirements under a law of node lives, both fleets stated); :mod:`.law_requirements` (The job MTBF a target ETTR needs when failures are not exponential, and when only part of a restart is exposed); :mod:`.restart_growth` (A restart that grows with the job's ranks, from a published start-up time); :mod:`.largest` (the largest job that still makes useful progress, each size with its own restart); :mod:`.decision_inputs` (The inputs a decision rests on, each with where it came from); :mod:`.today` (Today's failure rate of a source: the rate at its window's end, from the models that forecast it best).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".budget", "share_fit split_budget budget_what_if"), (".grid", "sweep_grid"),
           (".requirements", "Requirements best_ettr job_mtbf plan_requirements required_gpu_mtbf"),
           (".requirements", "required_job_mtbf required_node_mtbf requirements_table"),
           (".optics", "optics_requirements transceiver_requirement"),
           (".life_requirement", "NodeLifeRequirement node_life_requirement")]

__all__ = ["share_fit", "split_budget", "budget_what_if", "sweep_grid", "Requirements", "best_ettr", "job_mtbf",
           "plan_requirements", "required_gpu_mtbf", "required_job_mtbf", "required_node_mtbf",
           "requirements_table", "optics_requirements", "transceiver_requirement", "NodeLifeRequirement",
           "node_life_requirement"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
