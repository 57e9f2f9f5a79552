"""Interruption logs: one row per outage, with start, end, node and cause.

:func:`read_log` turns a table (file or DataFrame) into an
:class:`InterruptionLog`, whose times are float hours from an origin.

Rules for messy logs (each reported by :meth:`InterruptionLog.problems` and
one :class:`LogWarning`, never applied silently):

* **duplicate** rows (same node, start, end and cause) are one outage: the
  first is kept, the copies are dropped;
* an outage that **overlaps** an earlier one on the same node (starts before
  it ended) is kept in ``events`` but is not a new interruption: it is merged
  with the earlier one for up and down times and left out of interarrivals;
* **simultaneous** starts on different nodes (one incident hitting several
  nodes) count as one interruption in :meth:`~InterruptionLog.interarrivals`
  and as one failure per node in up times and per-node rates;
* rows starting **outside** the observation window are dropped.
"""

import warnings

import numpy as np
import pandas as pd

from .durations import Durations
from ..errors import EndBeforeStartError, LogFormatError, where
from .readers import parse_times, read_table, require_columns
from ..units import hours, unit_hours

__all__ = ["read_log", "InterruptionLog", "LogWarning"]


class LogWarning(UserWarning):
    """A log had duplicate, overlapping or out-of-window rows (see ``problems()``)."""


def _as_list(x):
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


class InterruptionLog:
    """Outages with times in hours from ``origin``; build it with :func:`read_log`."""

    def __init__(self, events, window_h, *, origin=None, cause_columns=(), name="log",
                 n_nodes=None, gpus_per_node=None, problems=None):
        self.events = events
        self.window_h = (float(window_h[0]), float(window_h[1]))
        self.origin = origin
        self.cause_columns = list(cause_columns)
        self.name = name
        self._n_nodes = n_nodes
        self.gpus_per_node = gpus_per_node
        self._problems = problems if problems is not None else _empty_problems()

    def __len__(self):
        return len(self.events)

    def __repr__(self):
        t0, t1 = self.window_h
        return (f"InterruptionLog({self.name!r}: {len(self)} outages on {self.n_nodes} nodes, "
                f"{(t1 - t0) / 24:.1f} days)")

    @property
    def duration_h(self):
        """Length of the observation window in hours."""
        return self.window_h[1] - self.window_h[0]

    @property
    def n_nodes(self):
        """Nodes observed: as given to :func:`read_log`, else those with an outage."""
        return self._n_nodes if self._n_nodes is not None else int(self.events["node"].nunique())

    def problems(self):
        """Rows that were duplicates, overlaps, simultaneous or out of window, and what was done."""
        return self._problems.copy()

    def interruptions(self, include_planned=False):
        """Events that are new interruptions: no overlap, planned ones only if asked."""
        ev = self.events[~self.events["overlaps"]]
        return ev if include_planned else ev[~ev["planned"]]

    def interarrivals(self, include_planned=False):
        """System-wide times between successive interruption starts.

        Simultaneous starts count once.  The gap from the last start to the
        window end is right-censored.
        """
        starts = np.unique(self.interruptions(include_planned)["start_h"].to_numpy())
        gaps = np.diff(starts)
        observed = np.ones(gaps.size, bool)
        tail = self.window_h[1] - starts[-1] if starts.size else self.duration_h
        if tail > 0:
            gaps = np.append(gaps, tail)
            observed = np.append(observed, False)
        return Durations(gaps, observed, label="interarrivals")

    def _merged(self):
        """Per node, outages merged where they overlap: DataFrame node, start_h, end_h."""
        ev = self.events.sort_values(["node", "start_h"], kind="stable")
        block = (~ev["overlaps"]).cumsum()
        return ev.groupby(block, sort=False).agg(
            node=("node", "first"), start_h=("start_h", "first"), end_h=("end_h", "max")
        ).reset_index(drop=True)

    def uptimes(self):
        """Per node, time from the end of one outage to the start of the next.

        The tail from a node's last repair to the window end is right-censored.
        Gaps after an outage with an unknown end are left out.  The time
        before a node's first outage is not used (when it last failed is unknown).
        """
        m = self._merged()
        nxt_start = m.groupby("node", sort=False)["start_h"].shift(-1)
        last = nxt_start.isna()
        up = np.where(last, self.window_h[1], nxt_start) - m["end_h"].to_numpy()
        keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
        return Durations(up[keep], ~last.to_numpy()[keep], label="uptimes",
                         groups=m["node"].to_numpy()[keep])

    def downtimes(self):
        """Repair durations (end − start) of outages with a known end, overlaps merged."""
        m = self._merged()
        d = (m["end_h"] - m["start_h"]).to_numpy()
        keep = np.isfinite(d)
        return Durations(d[keep], np.ones(int(keep.sum()), bool), label="downtimes",
                         groups=m["node"].to_numpy()[keep])

    def to_frame(self):
        """The events table."""
        return self.events.copy()

    def _repr_html_(self):
        t0, t1 = self.window_h
        head = (f"<p><b>{self.name}</b>: {len(self)} outages on {self.n_nodes} nodes over "
                f"{(t1 - t0) / 24:.1f} days; {len(self._problems)} rows flagged in problems()</p>")
        return head + self.events.head(10).to_html(index=False)


def _empty_problems():
    return pd.DataFrame({"row": pd.Series(dtype=int), "node": pd.Series(dtype=object),
                         "start_h": pd.Series(dtype=float), "problem": pd.Series(dtype=object),
                         "action": pd.Series(dtype=object)})


def read_log(source, *, start, end=None, node=None, cause=None, planned=None, time_format=None,
             time_unit=None, window=None, n_nodes=None, gpus_per_node=None, name=None, last_healthy=None):
    """Read an interruption log.

    Parameters
    ----------
    source : path (.csv, .csv.gz, .csv.xz, .parquet, .json) or DataFrame.
    start, end : column names of outage start and (optional) end times. Times
        are timestamps (parsed with ``time_format`` when given; offsets
        respected) or numbers in ``time_unit`` ("s", "min", "h", "d").
    node, cause : a column name or a list of names. Several node columns are
        joined into one key ("system/node"); cause columns are kept as given.
    planned : column of booleans (or yes/no, 1/0) marking planned outages.
    window : ``(t0, t1)`` observation window in the same form as the times;
        default: first to last event.
    n_nodes, gpus_per_node : size of the observed fleet, when it is known
        (nodes without outages are often not listed).
    last_healthy : column of the last check that saw the node healthy before
        each outage (same form as the times; may be empty), kept as
        ``healthy_h``: the failure happened between it and ``start``
        (interval censoring, see ``relmodel.stats.interval.uptime_intervals``).

    Returns an :class:`InterruptionLog`.  See the module docstring for the
    rules applied to duplicate and overlapping rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"began": [0.0, 30.0, 70.0], "ended": [2.0, 31.0, 75.0], "host": ["a", "b", "a"]})
    >>> log = read_log(df, start="began", end="ended", node="host", time_unit="h", window=(0.0, 100.0))
    >>> len(log), log.n_nodes, log.downtimes().hours.tolist()     # outages, nodes, repair hours
    (3, 2, [2.0, 5.0, 1.0])
    """
    df, label = read_table(source)
    nodes, causes = _as_list(node), _as_list(cause)
    require_columns(df, [start], label, "start")
    require_columns(df, [end] if end else [], label, "end")
    require_columns(df, nodes, label, "node")
    require_columns(df, causes, label, "cause")
    require_columns(df, [planned] if planned else [], label, "planned")
    kind, t_start = parse_times(df[start], label, start, time_format=time_format, time_unit=time_unit)
    t_end = None
    if end:
        _, t_end = parse_times(df[end], label, end, time_format=time_format, time_unit=time_unit,
                               allow_missing=True)
    origin, s_h, e_h, win = _to_hours(kind, t_start, t_end, window, time_format, time_unit)
    _check_order(s_h, e_h, label, end)
    events = pd.DataFrame({"row": np.arange(1, len(df) + 1), "start_h": s_h, "end_h": e_h,
                           "node": _node_key(df, nodes)})
    for c in causes:
        events[c] = df[c].where(df[c].notna(), "unknown").to_numpy()
    events["planned"] = _planned(df, planned, label)
    if last_healthy:
        events["healthy_h"] = _healthy_hours(df, last_healthy, label, origin, time_format, time_unit)
    events, problems = _clean(events, causes, win)
    serious = problems[problems["problem"] != "simultaneous"]
    if len(serious):
        counts = serious["problem"].value_counts().to_dict()
        warnings.warn(f"{name or label}: " + ", ".join(f"{v} {k}" for k, v in counts.items())
                      + " rows; see problems() for the rows and what was done", LogWarning, stacklevel=2)
    return InterruptionLog(events, win, origin=origin, cause_columns=causes, name=name or label,
                           n_nodes=n_nodes, gpus_per_node=gpus_per_node, problems=problems)


def _healthy_hours(df, column, label, origin, time_format, time_unit):
    """Hours (on the start times' clock) of each row's "last seen healthy" check; NaN where missing."""
    require_columns(df, [column], label, "last_healthy")
    kind, t = parse_times(df[column], label, column, time_format=time_format, time_unit=time_unit,
                          allow_missing=True)
    return t if kind == "numeric" else ((t - origin) / pd.Timedelta(hours=1)).to_numpy(float)


def _to_hours(kind, t_start, t_end, window, time_format, time_unit):
    if kind == "numeric":
        s_h = np.asarray(t_start, float)
        e_h = np.full(s_h.shape, np.nan) if t_end is None else np.asarray(t_end, float)
        win = _numeric_window(window, s_h, e_h, time_unit)
        return None, s_h, e_h, win
    origin = _window_origin(window, t_start, time_format)
    s_h = ((t_start - origin) / pd.Timedelta(hours=1)).to_numpy(float)
    e_h = np.full(s_h.shape, np.nan) if t_end is None else ((t_end - origin) / pd.Timedelta(hours=1)).to_numpy(float)
    if window is None:
        win = (0.0, float(np.nanmax(np.concatenate([s_h, e_h]))))
    else:
        t1 = _as_timestamp(window[1], t_start, time_format)
        win = (0.0, float((t1 - origin) / pd.Timedelta(hours=1)))
    return origin, s_h, e_h, win


def _numeric_window(window, s_h, e_h, time_unit):
    if window is None:
        return float(s_h.min()), float(np.nanmax(np.concatenate([s_h, e_h])))
    f = unit_hours(time_unit)
    return float(window[0]) * f, float(window[1]) * f


def _as_timestamp(value, like, time_format):
    ts = pd.Timestamp(pd.to_datetime(value, format=time_format if isinstance(value, str) else None))
    tz = getattr(like.dt, "tz", None)
    if tz is not None and ts.tzinfo is None:
        ts = ts.tz_localize("UTC")
    elif tz is None and ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return ts


def _window_origin(window, t_start, time_format):
    if window is None:
        return t_start.min()
    return _as_timestamp(window[0], t_start, time_format)


def _check_order(s_h, e_h, label, end):
    bad = np.flatnonzero(e_h < s_h)
    if bad.size:
        i = int(bad[0])
        raise EndBeforeStartError(
            f"{where(label, i + 1, end)}outage ends {hours(s_h[i] - e_h[i]):.4g} h before it starts; "
            "the end must be at or after the start")


def _node_key(df, nodes):
    if not nodes:
        return np.full(len(df), "all", dtype=object)
    key = _text(df[nodes[0]])
    for c in nodes[1:]:
        key = key + "/" + _text(df[c])
    return key.to_numpy(object)


def _text(col):
    """Column as text; whole-number floats (ids read next to NaN) print without ".0"."""
    if pd.api.types.is_float_dtype(col):
        v = col.dropna()
        if (v == np.floor(v)).all():
            col = col.astype("Int64")
    return col.astype(str)


_TRUE = {"true", "yes", "y", "1", "planned", "t"}
_FALSE = {"false", "no", "n", "0", "unplanned", "f", "", "nan", "none"}


def _planned(df, column, label):
    if not column:
        return np.zeros(len(df), bool)
    col = df[column]
    if pd.api.types.is_bool_dtype(col):
        return col.to_numpy(bool)
    text = col.astype(str).str.strip().str.lower()
    bad = ~text.isin(_TRUE | _FALSE)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise LogFormatError(f"{where(label, i + 1, column)}cannot read {col.iloc[i]!r} as planned; "
                             "use true/false, yes/no or 1/0")
    return text.isin(_TRUE).to_numpy()


def _clean(events, causes, win):
    """Apply the module's rules; return (events, problems)."""
    problems = []
    outside = (events["start_h"] < win[0]) | (events["start_h"] > win[1])
    problems.append(_flag(events[outside], "outside window", "dropped"))
    events = events[~outside]
    key = ["node", "start_h", "end_h"] + causes
    dup = events.duplicated(subset=key, keep="first")
    problems.append(_flag(events[dup], "duplicate", "dropped; the first copy is kept"))
    events = events[~dup].sort_values(["node", "start_h", "row"], kind="stable")
    prev_end = events.groupby("node", sort=False)["end_h"].transform(lambda s: s.cummax().shift(1))
    events = events.assign(overlaps=(events["start_h"] < prev_end).to_numpy())
    problems.append(_flag(events[events["overlaps"]], "overlap",
                          "merged with the earlier outage on the node; not a new interruption"))
    fresh = events[~events["overlaps"]]
    simul = fresh.duplicated(subset=["start_h"], keep="first") & (fresh.groupby("start_h")["node"].transform("nunique") > 1)
    problems.append(_flag(fresh[simul], "simultaneous", "one interruption for interarrivals; one failure per node"))
    events = events.sort_values(["start_h", "row"], kind="stable").reset_index(drop=True)
    problems = pd.concat([p for p in problems if len(p)] or [_empty_problems()], ignore_index=True)
    return events, problems.sort_values("row", kind="stable").reset_index(drop=True)


def _flag(rows, problem, action):
    return pd.DataFrame({"row": rows["row"].to_numpy(), "node": rows["node"].to_numpy(),
                         "start_h": rows["start_h"].to_numpy(), "problem": problem, "action": action})
