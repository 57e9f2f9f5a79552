"""Clusters and scaling: what a cluster is made of and how its rates scale.

Belongs here: :class:`Cluster` and its component counts (:mod:`.cluster`),
fault domains, what one failure takes down (:mod:`.domains`), correlated
faults and the fault rates logs do not record (:mod:`.correlated`), and
observed interruption rates scaled to another cluster (:mod:`.scaling`).
May import the statistics and data layers and the base; no other part of
:mod:`relmodel.scale`.

Also here: :mod:`.rack_faults` (Whole-rack faults from a log: failures of several nodes of one rack within a short window).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".cluster", "Cluster"), (".scaling", "ScaledRates scale_job_mtbf scale_rates"),
           (".domains", "blast_radius cause_levels fault_domains"), (".rack_faults", "RackFaults rack_fault_rate")]

__all__ = ["Cluster", "ScaledRates", "scale_job_mtbf", "scale_rates", "blast_radius", "cause_levels",
           "fault_domains", "RackFaults", "rack_fault_rate"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
