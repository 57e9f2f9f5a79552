"""Recurrent failures of the same nodes: counting-process intervals and the Andersen-Gill model.

A node that fails, is repaired and fails again contributes one interval per
spell at risk: ``(start_h, stop_h]`` from the window start (or the end of a
repair) to the next failure, then from the last repair to the window end
(censored).  Time is hours since the window start, the same clock for every
node, so the Cox model on these intervals is the Andersen-Gill model
(Andersen and Gill, Annals of Statistics 10, 1982); the failures of one node
are not independent, so errors are cluster-robust by node (Lin and Wei 1989).
Planned outages end a spell censored; time under repair is not at risk.
"""

import numpy as np
import pandas as pd

from ...errors import FitError, MissingColumnError
from .regression import regress

__all__ = ["counting_process", "andersen_gill"]


def _spells(log):
    """Outages per node, overlapping rows merged: node, start_h, end_h, planned."""
    ev = log.events.sort_values(["node", "start_h"], kind="stable")
    if ev.empty:
        return ev[["node", "start_h", "end_h", "planned"]]
    first = np.flatnonzero(~ev["overlaps"].to_numpy(bool))  # each block of overlapping rows starts at one
    if first.size == 0 or first[0] != 0:
        first = np.concatenate([[0], first])
    end = np.fmax.reduceat(ev["end_h"].to_numpy(float), first)  # the latest known end of the block
    return pd.DataFrame({"node": ev["node"].iloc[first].to_numpy(), "start_h": ev["start_h"].to_numpy(float)[first],
                         "end_h": end, "planned": ev["planned"].to_numpy()[first]})


def counting_process(source, nodes=None):
    """Counting-process intervals of an :class:`~relmodel.InterruptionLog`.

    Returns a DataFrame with ``node``, ``start_h``, ``stop_h`` (hours since the
    window start) and ``observed`` (True where the interval ends in an
    unplanned failure).  ``nodes`` lists nodes to include even when they never
    failed (each then contributes one censored interval over the window).
    A spell after an outage whose end is unknown is left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from relmodel.data.shaping.logs import read_log
    >>> df = pd.DataFrame({"began": [10.0, 30.0, 70.0], "ended": [12.0, 31.0, 75.0], "host": ["a", "b", "a"]})
    >>> log = read_log(df, start="began", end="ended", node="host", time_unit="h", window=(0.0, 100.0))
    >>> print(counting_process(log, nodes=["a", "b", "c"]).to_string(index=False))
    node  start_h  stop_h  observed
       a      0.0    10.0      True
       a     12.0    70.0      True
       a     75.0   100.0     False
       b      0.0    30.0      True
       b     31.0   100.0     False
       c      0.0   100.0     False
    """
    w0, w1 = source.window_h
    m = _spells(source)
    node, start = m["node"].to_numpy(object), m["start_h"].to_numpy(float)
    end, planned = m["end_h"].to_numpy(float), m["planned"].to_numpy(bool)
    first = np.ones(node.size, bool)
    first[1:] = node[1:] != node[:-1]
    last = np.ones(node.size, bool)
    last[:-1] = first[1:]
    prev = np.where(first, w0, np.concatenate([[np.nan], end[:-1]]))
    up = np.isfinite(prev) & (start > prev)               # a spell at risk before each outage
    tail = last & np.isfinite(end) & (w1 > end)           # and after the node's last outage
    key = np.concatenate([2 * np.flatnonzero(up), 2 * np.flatnonzero(tail) + 1])
    order = np.argsort(key, kind="stable")
    parts = [np.concatenate([a[up], b[tail]])[order] for a, b in
             ((node, node), (prev - w0, end - w0), (start - w0, np.full(node.size, w1 - w0)), (~planned, planned & False))]
    seen = set(node)
    extra = [n for n in ([] if nodes is None else nodes) if n not in seen]
    rows = pd.DataFrame({"node": parts[0], "start_h": parts[1], "stop_h": parts[2], "observed": parts[3]})
    more = pd.DataFrame({"node": extra, "start_h": 0.0, "stop_h": w1 - w0, "observed": False})
    out = pd.concat([rows, more], ignore_index=True) if len(more) else rows
    out["observed"] = out["observed"].astype(bool)
    if out.empty:
        raise FitError("the log has no time at risk to regress on")
    return out


def andersen_gill(source, node_table, covariates, *, node="node", reference=None, conf=0.95):
    """Andersen-Gill Cox regression of a log's recurrent failures on per-node covariates.

    ``node_table`` has one row per node: a ``node`` column (the log's node
    keys) and the covariate columns.  Nodes in the table that never failed
    count as at risk over the whole window (hours); log nodes missing from the table
    are an error.  Returns a :class:`~relmodel.stats.regression.regression.RegressionResult`
    with hazard ratios and errors cluster-robust by node.

    Examples
    --------
    >>> import pandas as pd
    >>> from relmodel.data.shaping.logs import read_log
    >>> starts = [10.0, 20, 30, 40, 50, 60, 25, 55, 85, 45, 90, 70]          # hours
    >>> df = pd.DataFrame({"t": starts, "u": [s + 1 for s in starts], "host": list("aaaaaabbbccd")})
    >>> log = read_log(df, start="t", end="u", node="host", time_unit="h", window=(0.0, 100.0))
    >>> nodes = pd.DataFrame({"node": list("abcdef"), "age_y": [5.0, 3.0, 2.0, 1.0, 1.5, 0.5]})
    >>> r = andersen_gill(log, nodes, ["age_y"])
    >>> t = r.coefficients.iloc[0]
    >>> t["term"], [round(float(t[k]), 2) for k in ("ratio", "lower", "upper")]   # per year of age
    ('age_y', [1.77, 1.44, 2.17])
    """
    if node not in node_table.columns:
        raise MissingColumnError(f"node_table needs a {node!r} column with the log's node keys")
    table = node_table.assign(**{node: node_table[node].astype(str)})
    cp = counting_process(source, nodes=list(table[node]))
    cp["node"] = cp["node"].astype(str)
    unknown = sorted(set(cp["node"]) - set(table[node]))
    if unknown:
        raise MissingColumnError(f"{len(unknown)} node(s) of the log are not in node_table, e.g. {unknown[:3]}; "
                                 "give every node its covariates")
    cols = [covariates] if isinstance(covariates, str) else list(covariates)
    frame = cp.merge(table[[node] + cols].rename(columns={node: "node"}), on="node", how="left")
    return regress(frame, cols, "cox", duration="stop_h", observed="observed", entry="start_h", cluster="node",
                   reference=reference, conf=conf)
