"""Whole-rack faults from a log: failures of several nodes of one rack within a short window.

No public figure gives the rate of faults that take a GPU rack down (power
shelf, cooling loop, NVLink switch tray, rack switch), so a design's
``rack_fit`` defaults to 0 (:mod:`relmodel.scale.design.design_capacity`).  A log
that names the node of each outage, with a map from node to rack, holds the
evidence: when a rack-level part fails, several of its nodes go down at
once.  :func:`rack_fault_rate` groups each rack's outages whose starts lie
within ``window`` of the previous one, counts the groups that take at least
``min_nodes`` distinct nodes as rack events, and divides by the rack-hours
observed (racks x the log's window):

    FIT per rack = events / rack-hours x 10^9,

with the exact Poisson (Garwood 1936) interval: events k give
[chi2(a/2; 2k) / 2, chi2(1 - a/2; 2k + 2) / 2] events.  Independent node
failures can also meet within the window by chance; the result says how many
such groups to expect (each outage of a rack with n_r outages in T hours
finds another of its rack within w hours with chance about (n_r - 1) w / T).
"""

import dataclasses

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import ModelInputError
from ...tables import Result, count, duration, html_table, number
from ...units import hours

__all__ = ["RackFaults", "rack_fault_rate"]


@dataclasses.dataclass(frozen=True)
class RackFaults(Result):
    """Rack events found in a log, their rate per rack (FIT) and its exact Poisson interval."""

    events: pd.DataFrame
    n_racks: int
    rack_hours: float
    fit: float
    fit_lo: float
    fit_hi: float
    chance_events: float
    window_h: float
    min_nodes: int
    conf: float

    @property
    def n_events(self):
        return int(len(self.events))

    def to_frame(self):
        return self.events.copy()

    def table(self):
        e = self.events.head(15)
        return pd.DataFrame({"Rack": e["rack"].astype(str), "First outage (h)": e["start_h"].map(number),
                             "Nodes down": e["nodes"].map(count)})

    def text(self):
        pct = f"{100 * self.conf:g}%"
        return (f"{self.n_events:,} rack event{'s' * (self.n_events != 1)} ({self.min_nodes} or more nodes of one "
                f"rack down within {duration(self.window_h)}) in {count(self.rack_hours)} rack-hours over "
                f"{self.n_racks:,} racks: {number(self.fit)} failures per 10^9 rack-hours ({pct} interval "
                f"{number(self.fit_lo)} to {number(self.fit_hi)}, exact Poisson); about "
                f"{number(self.chance_events, 2)} such group{'s' * (round(self.chance_events, 2) != 1)} would "
                f"arise by chance from independent node failures.")

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table())


def _racks_of(nodes, rack_of):
    """Rack of each node: ``rack_of`` is a dict, a pandas Series (index node) or a function."""
    if callable(rack_of) and not isinstance(rack_of, (dict, pd.Series)):
        return np.array([rack_of(n) for n in nodes], dtype=object)
    mapping = rack_of.to_dict() if isinstance(rack_of, pd.Series) else rack_of
    if not isinstance(mapping, dict):
        raise ModelInputError(f"rack_of must map node to rack: a dict, a pandas Series indexed by node, or a "
                              f"function; got {type(rack_of).__name__}")
    out = []
    for i, n in enumerate(nodes):
        if n not in mapping:
            raise ModelInputError(f"rack_of has no rack for node {n!r} (outage row {i + 1}); map every node of the "
                                  f"log to its rack")
        out.append(mapping[n])
    return np.array(out, dtype=object)


def _events(frame, window):
    """Groups of one rack's outages, each within ``window`` of the previous; rows: rack, start_h, nodes."""
    rows = []
    for rack, g in frame.sort_values(["rack", "start_h"]).groupby("rack", sort=False):
        t = g["start_h"].to_numpy(float)
        nodes = g["node"].to_numpy(object)
        cut = np.flatnonzero(np.diff(t) > window) + 1
        for lo, hi in zip(np.r_[0, cut], np.r_[cut, t.size]):
            rows.append((rack, float(t[lo]), len(set(nodes[lo:hi]))))
    return pd.DataFrame(rows, columns=["rack", "start_h", "nodes"])


def rack_fault_rate(source, rack_of, window="10min", *, min_nodes=2, n_racks=None, conf=0.95):
    """Whole-rack faults per 10^9 rack-hours from a log and a node-to-rack map; returns :class:`RackFaults`.

    ``source`` is an :class:`relmodel.InterruptionLog` (its unplanned outages are
    used) or a DataFrame with ``node`` and ``start_h`` columns and a
    ``duration_h`` in ``attrs``; ``rack_of`` maps each node to its rack;
    ``window`` is how close the starts must be (a duration); ``n_racks`` the
    racks observed (default: the racks ``rack_of`` names, when it is a dict
    or Series, else those in the log).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"node": ["a1", "a2", "b1", "a1"], "start_h": [10.0, 10.05, 50.0, 90.0]})
    >>> df.attrs["duration_h"] = 1000.0
    >>> r = rack_fault_rate(df, {"a1": "A", "a2": "A", "b1": "B", "b2": "B"}, "10min")
    >>> r.n_events, round(r.fit), [round(x) for x in (r.fit_lo, r.fit_hi)]   # 1 event in 2,000 rack-hours
    (1, 500000, [12659, 2785822])
    """
    w = float(hours(window))
    if not (w >= 0 and np.isfinite(w)):
        raise ModelInputError(f"window must be a finite duration >= 0; got {window!r}")
    if int(min_nodes) < 2:
        raise ModelInputError(f"min_nodes must be 2 or more (one node down is a node fault); got {min_nodes!r}")
    log = source
    if hasattr(log, "interruptions"):
        frame, span = log.interruptions()[["node", "start_h"]].copy(), float(log.duration_h)
    else:
        missing = [c for c in ("node", "start_h") if c not in getattr(log, "columns", ())]
        if missing or "duration_h" not in getattr(log, "attrs", {}):
            raise ModelInputError(f"source must be an InterruptionLog or a DataFrame with node and start_h columns "
                                  f"and attrs['duration_h']; missing {', '.join(missing) or 'duration_h'}")
        frame, span = log[["node", "start_h"]].copy(), float(log.attrs["duration_h"])
    frame["rack"] = _racks_of(frame["node"].tolist(), rack_of)
    if n_racks is None:
        known = set(rack_of.values()) if isinstance(rack_of, dict) else (
            set(rack_of.to_numpy()) if isinstance(rack_of, pd.Series) else set(frame["rack"]))
        n_racks = max(len(known), 1)
    groups = _events(frame, w)
    hits = groups[groups["nodes"] >= int(min_nodes)].reset_index(drop=True)
    rack_hours = float(n_racks) * span
    k = len(hits)
    a = (1.0 - conf) / 2
    lo = stats.chi2.ppf(a, 2 * k) / 2 if k else 0.0
    hi = stats.chi2.ppf(1 - a, 2 * k + 2) / 2
    per_rack = frame.groupby("rack")["start_h"].size().to_numpy(float)
    chance = float(np.sum(per_rack * (per_rack - 1) * w / span)) if span > 0 else 0.0
    scale = 1e9 / rack_hours
    return RackFaults(hits, int(n_racks), rack_hours, k * scale, lo * scale, hi * scale, chance, w, int(min_nodes),
                      float(conf))
