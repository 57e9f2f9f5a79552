"""Design: comparing cluster designs and what degraded operation does to them.

Belongs here: design comparisons and presets (:mod:`.designs`, the fabric's
size in :mod:`.fabric_size`), what a design's policy, spares and tolerated
faults do to ETTR (:mod:`.policies`, its result in :mod:`.design_result`),
compound failures in fault domains (:mod:`.compound`, its run count in
:mod:`.domain_runs`, its sweeps over events in :mod:`.domain_sweeps`), and how much an answer depends on a fault rate no
public log gives (:mod:`.sensitivity`).  May import :mod:`..sparing`,
:mod:`..targets`, :mod:`..clusters`, :mod:`relmodel.checkpoint`, the
statistics and data layers and the base.

Also here: :mod:`.stopped` (the share of time a job waits for a spare when nothing fails while it waits); :mod:`.compound_pmf` (Probabilities the compound model's closed form is built from (:mod:`relmodel.scale.design.compound`)); :mod:`.design_capacity` (What a design's repairs can keep up with: crews, the RMA lead time, spares failing idle, whole-rack faults); :mod:`.design_swings` (Which assumption decides the ranking of designs: each one moved from a low to a high value, the rest held); :mod:`.tolerance` (The result of :func:`relmodel.scale.design.policies.tolerance_gain`: one design without and with the faults it tolerates).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".compound", "DomainModel simulate_domains"), (".policies", "evaluate_design tolerance_gain"),
           (".designs", "DESIGNS compare_designs design_presets"), (".sensitivity", "domain_fit_sensitivity")]

__all__ = ["DomainModel", "simulate_domains", "evaluate_design", "tolerance_gain", "DESIGNS", "compare_designs",
           "design_presets", "domain_fit_sensitivity"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
