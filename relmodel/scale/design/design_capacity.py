"""What a design's repairs can keep up with: crews, the RMA lead time, spares failing idle, whole-rack faults.

:func:`relmodel.scale.design.policies.evaluate_design` builds a
:class:`~relmodel.scale.design.compound.DomainModel` of the design and hands it
here to add:

* ``rack_fit``: faults that take a whole rack out (power shelf, cooling loop,
  NVLink switch tray, rack switch), in failures per 10^9 rack-hours, on every
  rack the job uses.  One event interrupts the job once and takes the rack's
  nodes (a whole scale-up domain on an NVL72) out until repaired.  No public
  figure gives this rate for GPU racks (Llama 3, arXiv 2407.21783, Table 5,
  has no rack row), so it defaults to 0 and the design page says so;
  :func:`relmodel.scale.clusters.rack_faults.rack_fault_rate` estimates it from a log
  and a node-to-rack map.
* ``spare_rate_per_h``: the failure rate of one idle spare unit.  ``"hot"``
  (the default) is the rate of the same unit in service, its hardware
  causes (a tray or node's rate; a spare domain's trays and whole-domain
  faults): hot spares are powered, health-checked servers of the same build,
  so nothing makes them fail less on the shelf.
* ``crews`` and ``rma_lead_time``: every hardware part that fails waits for one
  of ``crews`` crews (M/M/c, Erlang C, :mod:`relmodel.scale.sparing.repair_queue`)
  and is then away for the lead time; a part's time out is its repair plus
  that wait plus the lead time (:class:`~relmodel.scale.sparing.repair_queue.QueuedRepair`).
"""

import dataclasses
import math

import numpy as np

from ...errors import DesignError
from ..clusters.correlated import burst_groups
from ..sparing.repair_queue import QueuedRepair, check_crews, lead_mean
from ..sparing.repairs import _mean_repair

__all__ = ["RACK_FIT_DEFAULT", "RACK_FIT_SOURCE", "rack_bursts", "pool_unit_rate", "with_capacity",
           "parts_rate"]

#: Whole-rack faults per 10^9 rack-hours when none is given: no published figure exists.
RACK_FIT_DEFAULT = 0.0
#: Where :data:`RACK_FIT_DEFAULT` comes from, in words for the page.
RACK_FIT_SOURCE = ("no published figure gives the rate of faults that take a whole GPU rack down (power shelf, "
                   "cooling loop, NVLink switch tray), so rack faults are left out (rack_fit 0) unless given or "
                   "estimated from a log with rack_fault_rate")


def _fit(name, value):
    v = float(value)
    if not (v >= 0 and math.isfinite(v)):
        raise DesignError(f"{name} must be a finite number of failures per 10^9 hours >= 0; got {value!r}")
    return v


def rack_bursts(cluster, rack_fit, repair):
    """((rate per hour, groups one event takes, repair),) for whole-rack faults, or () for none."""
    fit = _fit("rack_fit", rack_fit)
    if fit == 0:
        return ()
    racks = cluster.n_racks
    span = burst_groups(cluster, min(cluster.nodes_per_rack, cluster.n_nodes))
    return ((fit * 1e-9 * racks, span, repair),)


def pool_unit_rate(model, spare_rate_per_h, repair_h=None):
    """Failure rate of one idle pool unit: ``"hot"`` = the same unit in service, or a rate per hour.

    A hot spare group with in-group spares is dead, as a group in service is out, only while more trays than
    its spares are in repair (``repair_h`` the mean repair) or the whole group is: its rate is the one whose
    ``1 - exp(-rate repair_h)`` is that chance.
    """
    if spare_rate_per_h == "hot":
        if model.split_groups or model.trays == 1:            # a pool of nodes
            return float(model.tray_rate)
        if model.spares and repair_h:
            return _hot_group_rate(model, float(repair_h))
        return float(model.trays * model.tray_rate + model.group_rate)
    try:
        v = float(spare_rate_per_h)
    except (TypeError, ValueError):
        v = float("nan")
    if not (v >= 0 and math.isfinite(v)):
        raise DesignError(f"spare_rate_per_h must be 'hot' (idle spares fail as in service) or a finite rate per "
                          f"hour >= 0; got {spare_rate_per_h!r}")
    return v


def _hot_group_rate(model, s):
    """:func:`pool_unit_rate` of a hot spare group with in-group spares, at mean repair ``s`` hours."""
    from scipy import stats
    up = stats.poisson.cdf(model.spares, model.trays * model.tray_rate * s)
    return float(model.group_rate - np.log(up) / s) if up > 0 else float("inf")


def parts_rate(model):
    """Hardware repairs per hour the crews take on: trays, whole-group faults, bursts (one per event), dead spares."""
    m = model
    n_dom = m.groups // m.need if m.split_groups else m.groups
    return (m.groups * m.trays * m.tray_rate + n_dom * m.group_rate + sum(float(b[0]) for b in m.bursts)
            + m.pool * m.pool_rate)


def with_capacity(model, repair, hardware=(), network=(), *, crews=None, rma_lead_time=0.0, spare_rate_per_h="hot",
                  rack_rate=0.0):
    """(model, repair): the design's model with its bursts, idle spares failing and hardware repairs queued.

    ``hardware`` and ``network`` hold bursts (rate per hour, groups, repair):
    the crews take on the hardware ones (their repair becomes the queued
    repair), not the network ones.  ``rack_rate`` (per rack per hour, the
    whole-rack faults among the bursts) strikes a hot spare too: it sits in a
    rack.
    """
    c, lead = check_crews(crews), lead_mean(rma_lead_time)
    rate = pool_unit_rate(model, spare_rate_per_h, _mean_repair(repair)) if model.pool else 0.0
    if model.pool and spare_rate_per_h == "hot":
        rate += float(rack_rate)
    m = dataclasses.replace(model, pool_rate=rate, bursts=tuple(hardware) + tuple(network))
    if c is None and lead == 0:
        return m, repair
    rate = parts_rate(dataclasses.replace(m, bursts=tuple(hardware)))
    queued = QueuedRepair.of(repair, rate, c, rma_lead_time)
    hw = tuple((r, span, queued) for r, span, _ in hardware)
    return dataclasses.replace(m, bursts=hw + tuple(network)), queued
