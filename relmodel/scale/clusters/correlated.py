"""Correlated faults: what one event takes out, and the fault rates logs do not record.

A cause's level (:mod:`relmodel.scale.clusters.domains`) says what one of its failures
takes out: one GPU, one node, one scale-up domain, one link.  Some events
take more: a rack power feed or cooling loop shared by several racks, a
leaf switch over many nodes, a spine failure that cuts a pod.  The
``correlated`` table maps a cause, category or level to how much one event
takes out, as a whole number of nodes or a phrase: ``"16 nodes"``,
``"3 racks"`` (racks of ``nodes_per_rack`` nodes), ``"2 domains"`` (scale-up
domains) or ``"leaf"`` (the nodes one leaf switch serves).  Such a cause
interrupts the job once per event and takes that many nodes, rounded up to
whole domains under the ``whole-domain`` and ``in-domain-spares`` policies,
out of the job until it is repaired, each needing a spare.

Defaults, and where public figures exist:

* ``correlated`` is empty: no public log says how many servers one
  interruption took out (Llama 3, arXiv 2407.21783, Table 5, gives causes,
  not spans).  Each cause takes what its level says.
* ``domain_fit`` (whole-domain faults per scale-up domain per 10^9 h:
  NVLink switch tray, rack power, cooling) is 0: no public figure exists.
  :func:`relmodel.scale.design.sensitivity.domain_fit_sensitivity` shows ETTR from 0
  up to the GPU FIT of the source.
* ``switch_fit`` (leaf-switch failures per switch per 10^9 h) is 0, because
  the Llama 3 "Network Switch/Cable" row already holds switch failures.  The
  public figure for a source without them is :data:`SWITCH_FIT_SINGH2021`:
  Singh et al. ("Surviving switch failures in cloud datacenters", SIGCOMM CCR
  51(2), 2021) report about a 2% chance of a switch failure within 3 months
  of entering production, -ln(0.98) / 2,191.5 h = 9,219 FIT.  Spine and
  middle-tier failures of a non-blocking Clos cut no NIC off (the other
  paths carry the traffic), so they are not counted here.
"""

import math
import re

import numpy as np

from ...errors import DesignError

__all__ = ["SWITCH_FIT_SINGH2021", "parse_span", "cause_spans", "burst_groups", "correlated_table"]

#: Leaf-switch FIT from Singh et al. 2021 (about 2% fail within 3 months): -ln(0.98) / (8,766 h / 4) x 1e9.
SWITCH_FIT_SINGH2021 = -math.log(0.98) / (8766.0 / 4) * 1e9

_PHRASE = re.compile(r"^\s*(\d+)\s*(nodes?|trays?|racks?|domains?)\s*$")


def _leaf_nodes(cluster):
    from .domains import leaf_nodes
    return max(1, leaf_nodes(cluster))


def parse_span(value, cluster, name="correlated"):
    """Nodes one event takes out: a whole number of nodes, "N nodes", "N racks", "N domains" or "leaf"."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "leaf":
            return _leaf_nodes(cluster)
        m = _PHRASE.match(text)
        if m:
            n, unit = int(m.group(1)), m.group(2)
            per = {"n": 1, "t": 1, "r": cluster.nodes_per_rack, "d": cluster.trays_per_domain}[unit[0]]
            if n >= 1:
                return min(n * per, cluster.n_nodes)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1:
        return min(int(value), cluster.n_nodes)
    raise DesignError(f"{name}: one event takes a whole number of nodes >= 1, or a phrase such as '16 nodes', "
                      f"'3 racks', '2 domains' or 'leaf'; got {value!r}")


def cause_spans(levels_table, cluster, correlated=None):
    """Nodes one event of each cause takes out (array aligned with ``levels_table``; 0 = what its level says).

    ``correlated`` maps a component, category or level to a span
    (:func:`parse_span`); names win over categories, categories over levels.
    """
    t = levels_table
    out = np.zeros(len(t), np.int64)
    if not correlated:
        return out
    if not isinstance(correlated, dict):
        raise DesignError(f"correlated must be a dict of cause, category or level to what one event takes out, "
                          f"e.g. {{'Network Switch/Cable': 'leaf'}}; got {correlated!r}")
    from .domains import LEVELS
    spans = {str(k).lower(): parse_span(v, cluster, f"correlated[{k!r}]") for k, v in correlated.items()}
    valid = {str(x).lower() for col in ("component", "category", "level") for x in t[col]} | set(LEVELS)
    unknown = [k for k in correlated if str(k).lower() not in valid]
    if unknown:
        raise DesignError(f"no cause, category or level named {', '.join(map(repr, unknown))}; valid: "
                          f"{', '.join(dict.fromkeys(map(str, t['component'])))}, or a level: {', '.join(LEVELS)}")
    for i, row in enumerate(t.itertuples()):
        for key in (str(row.level).lower(), str(row.category).lower(), str(row.component).lower()):
            if key in spans:
                out[i] = spans[key]
    return out


def burst_groups(cluster, nodes):
    """Groups of the design's compound model that ``nodes`` nodes out take: domains, or nodes under a node pool."""
    if cluster.domain_policy == "spare-pool":
        return int(min(nodes, cluster.n_nodes))
    return int(min(math.ceil(nodes / cluster.trays_per_domain), cluster.n_scaleup_domains))


_LEVEL_NODES = {"gpu": 1, "node": 1, "link": 1, "job": 0}


def correlated_table(cluster, source, correlated=None, levels=None):
    """Cause -> what one event takes out on ``cluster``: the table ``correlated`` overrides.

    One row per cause of ``source`` (a CountTable or InterruptionLog) with
    its level, nodes and scale-up domains one event takes out of the job
    (under the design's policy: a tray fault under whole domains takes its
    domain), and whether that comes from the level or from ``correlated``.

    Examples
    --------
    >>> from relmodel import Cluster
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> t = correlated_table(Cluster.nvl72(1152), llama3_54day(), {"Network Switch/Cable": "leaf"})
    >>> rows = t["component"].isin(["Faulty GPU", "Network Switch/Cable", "Software Bug"])
    >>> print(t.loc[rows, ["component", "nodes_per_event", "domains_per_event", "from"]].to_string(index=False))
               component  nodes_per_event  domains_per_event     from
              Faulty GPU               18                  1    level
            Software Bug                0                  0    level
    Network Switch/Cable               36                  2 override
    """
    from .domains import cause_levels
    from .scaling import scale_rates
    table = cause_levels(scale_rates(source, target_cluster=cluster, n_boot=1, seed=0), levels)
    spans = cause_spans(table, cluster, correlated)
    trays = cluster.trays_per_domain
    whole = cluster.domain_policy == "whole-domain"
    nodes = []
    for level, span in zip(table["level"], spans):
        if span:
            n = int(span)
        elif level == "domain":
            n = trays
        elif level == "leaf":
            n = _leaf_nodes(cluster) if cluster.planes == 1 else 0
        else:
            n = _LEVEL_NODES.get(level, 1) if not (level == "link" and cluster.planes > 1) else 0
        if whole and n:
            n = math.ceil(n / trays) * trays
        nodes.append(min(n, cluster.n_nodes))
    out = table[["component", "category", "level"]].copy()
    out["nodes_per_event"] = nodes
    out["domains_per_event"] = [math.ceil(n / trays) if n else 0 for n in nodes]
    out["from"] = np.where(spans > 0, "override", "level")
    out["rate_per_h"] = table["rate_per_h"].to_numpy()
    return out.reset_index(drop=True)
