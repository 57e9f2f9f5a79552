"""Fault domains: what one failure takes down, and how many GPUs that is.

A failure's *level* says what it takes out of service until repaired:

* ``gpu``: one GPU (fenced off, the rest of its node keeps running);
* ``node``: one server or compute tray, all its GPUs;
* ``domain``: a whole scale-up domain (an NVL72 rack: NVLink switch tray,
  rack power, cooling loop);
* ``leaf``: one leaf (ToR or rail) switch: every GPU whose NIC it serves;
* ``link``: one scale-out link: the GPUs behind that NIC;
* ``job``: nothing physical (software, configuration): no GPU is lost.

:func:`blast_radius` gives GPUs lost per event.  With ``planes >= 2`` the
other plane carries the traffic of a failed link or leaf switch, so those
lose no GPU.  Whatever the radius, a failure that is not tolerated interrupts
the job once (one restart); the radius sets capacity lost and spares needed.

Causes from a log or count table get their level from what their rate
scales with (:func:`relmodel.scale.clusters.scaling.scales_with`) through
:data:`LEVEL_OF_UNIT`:

=================================  ==========  ================================
scales with                        level       why
=================================  ==========  ================================
gpu                                node        a GPU is repaired by swapping its tray
node, nic                          node        host parts take the server down
scaleup_domain, scaleup_switch,    domain      NVLink switch, rack power, cooling
rack
switch                             leaf        a switch cuts off the NICs it serves
link, optical_link, transceiver    link        a cable or optic cuts off one NIC
job                                job         software: no hardware lost
=================================  ==========  ================================

Override per component, category or unit with ``levels={"Network
Switch/Cable": "leaf", "Faulty GPU": "gpu"}``.
"""

import math

import pandas as pd

from ...errors import DesignError

__all__ = ["LEVELS", "LEVEL_OF_UNIT", "leaf_nodes", "blast_radius", "fault_domains", "cause_levels", "level_rates"]

LEVELS = ("gpu", "node", "domain", "leaf", "link", "job")

LEVEL_OF_UNIT = {
    "gpu": "node", "node": "node", "nic": "node", "scaleup_domain": "domain", "scaleup_switch": "domain",
    "rack": "domain", "switch": "leaf", "link": "link", "optical_link": "link", "transceiver": "link", "job": "job",
}

_WHAT = {
    "gpu": "one GPU", "node": "one node (tray)", "domain": "one scale-up domain", "leaf": "one leaf switch",
    "link": "one NIC link", "job": "no hardware (software)",
}


def _check_level(level):
    if level not in LEVELS:
        raise DesignError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    return level


def _gpus_per_leaf(cluster):
    gpus_per_nic = cluster.gpus_per_node / (cluster.nics_per_node or cluster.gpus_per_node)
    per_leaf = cluster.radix if cluster.n_tiers == 1 else (cluster.leaf_down or cluster.radix // 2)
    return math.ceil(per_leaf * gpus_per_nic)


def _part_radius(cluster, level, physical=True):
    """GPUs the failed part itself serves (``physical``), or the unit swapped for it under a spare policy.

    A GPU fault under a node pool or in-domain spares is repaired by swapping
    its server or tray, so the job loses that unit's GPUs until the swap.
    """
    if level == "job" or (level in ("leaf", "link") and cluster.planes > 1):
        return 0
    if level == "gpu":
        return 1 if physical or cluster.domain_policy == "whole-domain" else cluster.gpus_per_node
    if level == "node":
        return cluster.gpus_per_node
    if level == "domain":
        return cluster.scaleup_gpus or cluster.gpus_per_node
    if level == "leaf":
        return _gpus_per_leaf(cluster)
    return math.ceil(cluster.gpus_per_node / (cluster.nics_per_node or cluster.gpus_per_node))


def leaf_nodes(cluster):
    """Nodes one leaf switch reaches: one NIC on each of its nodes in a rail fabric (the same slot of every
    server), whole nodes under a top-of-rack leaf."""
    nics = cluster.radix if cluster.n_tiers == 1 else (cluster.leaf_down or cluster.radix // 2)
    per_node = cluster.nics_per_node or cluster.gpus_per_node
    reach = nics if cluster.fabric == "rail" else math.ceil(nics / per_node)
    return int(min(reach, cluster.n_nodes))


def blast_radius(cluster, level, physical=False):
    """GPUs out of the job per failure event at ``level`` under the design's policy; never more than it has.

    ``level`` is one of :data:`LEVELS`; the result is a whole number of GPUs
    (0 for a software fault, and for a link or leaf switch when ``planes >= 2``).
    Under the ``"whole-domain"`` policy (tensor or expert parallelism spans
    the scale-up domain) any fault that takes a GPU out takes its whole
    domain out; a leaf switch takes out every domain its nodes are in
    (:func:`leaf_nodes`, taken as consecutive nodes).  Under ``"in-domain-spares"`` and ``"spare-pool"``
    the unit swapped is out: the failed part, or for a GPU fault the server or
    tray it sits in.  ``physical=True`` gives the GPUs the failed part itself
    serves, whatever the policy.

    Examples
    --------
    >>> import dataclasses
    >>> from relmodel import Cluster
    >>> c = Cluster.nvl72(1152)          # 16 racks of 72 GPUs, 4 GPUs per tray; the job needs whole racks
    >>> [blast_radius(c, level, physical=True) for level in LEVELS]      # gpu, node, domain, leaf, link, job
    [1, 4, 72, 32, 1, 0]
    >>> [blast_radius(c, level) for level in LEVELS]    # a tray fault takes its rack; a rail leaf, 2 racks
    [72, 72, 72, 144, 72, 0]
    >>> blast_radius(dataclasses.replace(c, domain_spares=2), "node")   # a spare tray stands in
    4
    >>> blast_radius(dataclasses.replace(c, domain_spares=2), "gpu")    # a GPU fault swaps its tray
    4
    >>> blast_radius(dataclasses.replace(c, planes=2), "leaf")   # the other plane carries the traffic
    0
    """
    _check_level(level)
    radius = _part_radius(cluster, level, physical)
    size = cluster.scaleup_gpus or cluster.gpus_per_node
    if radius and cluster.domain_policy == "whole-domain" and not physical:
        reach = leaf_nodes(cluster) * cluster.gpus_per_node if level == "leaf" else radius
        radius = math.ceil(reach / size) * size
    return int(min(radius, cluster.n_gpus))


def fault_domains(cluster, readable=False):
    """One row per level: what fails, how many the cluster has, GPUs lost per event.

    Returns a DataFrame with columns level, what_fails, units (count of such
    parts in the design), gpus_lost_per_event (GPUs out of the job under the
    design's policy, :func:`blast_radius`) and gpus_on_part (GPUs the failed
    part itself serves).  ``readable=True``
    gives headers in words and thousands separators, for a report.

    Examples
    --------
    >>> from relmodel import Cluster
    >>> t = fault_domains(Cluster.nvl72(1152))
    >>> print(t[["level", "units", "gpus_lost_per_event", "gpus_on_part"]].to_string(index=False))
     level  units  gpus_lost_per_event  gpus_on_part
       gpu   1152                   72             1
      node    288                   72             4
    domain     16                   72            72
      leaf     36                  144            32
      link   1152                   72             1
       job      1                    0             0
    """
    c = cluster.counts()
    units = {"gpu": c["gpu"], "node": c["node"], "domain": c["scaleup_domain"],
             "leaf": cluster.switches_per_tier()[0] * cluster.planes, "link": c["nic"] * cluster.planes, "job": 1}
    df = pd.DataFrame({
        "level": list(LEVELS),
        "what_fails": [_WHAT[lv] for lv in LEVELS],
        "units": [int(units[lv]) for lv in LEVELS],
        "gpus_lost_per_event": [blast_radius(cluster, lv) for lv in LEVELS],
        "gpus_on_part": [blast_radius(cluster, lv, physical=True) for lv in LEVELS],
    })
    if not readable:
        return df
    return pd.DataFrame({"Level": df["level"], "What one failure takes down": df["what_fails"],
                         "Units in the design": df["units"].map("{:,}".format),
                         "GPUs lost per failure": df["gpus_lost_per_event"].map("{:,}".format),
                         "GPUs on the failed part": df["gpus_on_part"].map("{:,}".format)})


def _override(levels, keys):
    for name, level in (levels or {}).items():
        if str(name).lower() in keys:
            return _check_level(level)
    return None


def cause_levels(scaled, levels=None):
    """Each cause of a :class:`relmodel.scale.clusters.scaling.ScaledRates` with its level and blast radius.

    ``levels`` maps a component, category or scales-with unit to a level and
    wins over :data:`LEVEL_OF_UNIT`.  Returns a DataFrame with columns
    component, category, scales_with, level, gpus_lost_per_event (GPUs of the
    target cluster) and rate_per_h (failures per hour on the target cluster).

    Examples
    --------
    >>> import dataclasses
    >>> from relmodel import Cluster
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.clusters.scaling import scale_rates
    >>> c = dataclasses.replace(Cluster.nvl72(1152), domain_spares=2)    # spare trays stand in
    >>> s = scale_rates(llama3_54day(), target_cluster=c, n_boot=1, seed=0)
    >>> t = cause_levels(s, levels={"Faulty GPU": "gpu"})     # a bad GPU is fenced off alone
    >>> print(t.loc[:3, ["component", "level", "gpus_lost_per_event"]].to_string(index=False))
               component level  gpus_lost_per_event
              Faulty GPU   gpu                    4
         GPU HBM3 Memory  node                    4
            Software Bug   job                    0
    Network Switch/Cable  link                    1
    """
    t = scaled.by_cause
    known = {str(x).lower() for col in ("component", "category", "scales_with") for x in t[col]}
    unknown = [k for k in (levels or {}) if str(k).lower() not in known]
    if unknown:
        raise DesignError(f"no cause, category or unit named {', '.join(map(repr, unknown))}; "
                          f"valid: {', '.join(dict.fromkeys(map(str, t['component'])))}")
    out = []
    for row in t.itertuples():
        keys = {str(row.component).lower(), str(row.category).lower(), str(row.scales_with).lower()}
        level = _override(levels, keys) or LEVEL_OF_UNIT.get(row.scales_with, "node")
        out.append(level)
    df = t[["component", "category", "scales_with"]].copy()
    df["level"] = out
    df["gpus_lost_per_event"] = [blast_radius(scaled.target, lv) for lv in out]
    df["rate_per_h"] = t["rate_per_h"].to_numpy(dtype=float)
    return df.reset_index(drop=True)


def level_rates(table):
    """Summed rate per hour of each level in a :func:`cause_levels` table (every level present)."""
    sums = table.groupby("level")["rate_per_h"].sum()
    return {lv: float(sums.get(lv, 0.0)) for lv in LEVELS}
