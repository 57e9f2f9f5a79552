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

from .clean import clean_events, empty_problems, merged_outages, node_codes, node_key
from .durations import Durations
from ...errors import CountError, EndBeforeStartError, InputTypeError, LogFormatError
from .readers import LogWarning, at, read_table, require_columns
from .times import check_same_zone, check_time_format, parse_times
from .window import hours_since, to_hours
from ...tables import html_table
from relmodel.base.escape import html_text

__all__ = ["read_log", "InterruptionLog", "LogWarning"]


def _as_list(x, arg):
    if x is None:
        return []
    items = [x] if isinstance(x, str) else list(x) if isinstance(x, (list, tuple)) else None
    if items is None or not all(isinstance(i, str) and i for i in items):
        raise InputTypeError(f"{arg}= must be a column name or a list of column names; got "
                             f"{type(x).__name__} {x!r:.60}")
    return items


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
        self._problems = problems if problems is not None else empty_problems()

    def replace(self, **changes):
        """This log with some of its constructor's fields changed (``events``, ``n_nodes``, ``problems``, ...)."""
        fields = dict(events=self.events, window_h=self.window_h, origin=self.origin,
                      cause_columns=self.cause_columns, name=self.name, n_nodes=self._n_nodes,
                      gpus_per_node=self.gpus_per_node, problems=self._problems)
        fields.update(changes)
        events, window_h = fields.pop("events"), fields.pop("window_h")
        return InterruptionLog(events, window_h, **fields)

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
        keep = ~self.events["overlaps"].to_numpy(bool)
        if not include_planned:
            keep &= ~self.events["planned"].to_numpy(bool)
        return self.events[keep]  # one copy of the table, not two

    def interarrivals(self, include_planned=False):
        """System-wide times between successive interruption starts.

        Simultaneous starts count once.  The gap from the last start to the
        window end is right-censored.
        """
        keep = ~self.events["overlaps"].to_numpy(bool)
        if not include_planned:
            keep &= ~self.events["planned"].to_numpy(bool)
        starts = self.events["start_h"].to_numpy(float)[keep]
        if not (starts.size < 2 or np.all(starts[1:] >= starts[:-1])):  # events come by start: rarely sorts
            starts = np.sort(starts)
        starts = starts[np.append(True, starts[1:] != starts[:-1])] if starts.size else starts
        gaps = np.diff(starts)
        observed = np.ones(gaps.size, bool)
        tail = self.window_h[1] - starts[-1] if starts.size else self.duration_h
        if tail > 0:
            gaps = np.append(gaps, tail)
            observed = np.append(observed, False)
        return Durations(gaps, observed, label="interarrivals")

    def uptimes(self):
        """Per node, time from the end of one outage to the start of the next.

        The tail from a node's last repair to the window end is right-censored.
        Gaps after an outage with an unknown end are left out.  The time
        before a node's first outage is not used (when it last failed is unknown).
        """
        code, start, end, keys = self._merged()
        last = np.ones(code.size, bool)
        last[:-1] = code[1:] != code[:-1]
        nxt_start = np.empty_like(start)
        nxt_start[:-1] = start[1:]
        with np.errstate(invalid="ignore"):
            up = np.where(last, self.window_h[1], nxt_start) - end
            keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
        return Durations(up[keep], ~last[keep], label="uptimes", groups=keys[code[keep]])

    def downtimes(self, include_planned=False):
        """Repair durations (end − start) of outages with a known end, overlaps merged.

        Planned outages (maintenance) are not repairs and are left out unless
        ``include_planned``; an unplanned outage that overlaps a planned one
        keeps its own length.
        """
        planned = self.events["planned"].to_numpy(bool)
        if include_planned or not planned.any():
            code, start, end, keys = self._merged()
        else:
            ev = self.events[~planned]
            code, start, end, keys = merged_outages(ev, node_codes(ev["node"].to_numpy(object)))
        d = end - start
        keep = np.isfinite(d)
        return Durations(d[keep], np.ones(int(keep.sum()), bool), label="downtimes",
                         groups=keys[code[keep]])

    def _merged(self):
        """Per node, outages merged where they overlap (kept while ``events`` is the same object)."""
        cache = getattr(self, "_merged_cache", None)
        if cache is None or cache[0] is not self.events:
            known = getattr(self, "_order_cache", None)  # the node order the log's rules sorted by, when read
            order = known[1] if known is not None and known[0] is self.events else None
            self._merged_cache = (self.events, merged_outages(self.events, self._codes(), order))
        return self._merged_cache[1]

    def _codes(self):
        """Node codes in key order for ``events`` (kept while ``events`` is the same object)."""
        cache = getattr(self, "_node_cache", None)
        if cache is None or cache[0] is not self.events:
            self._node_cache = (self.events, node_codes(self.events["node"].to_numpy(object)))
        return self._node_cache[1]

    def to_frame(self):
        """The events table."""
        return self.events.copy()

    def _repr_html_(self):
        t0, t1 = self.window_h
        head = (f"<p><b>{html_text(self.name)}</b>: {len(self)} outages on {self.n_nodes} nodes over "
                f"{(t1 - t0) / 24:.1f} days; {len(self._problems)} rows flagged in problems()</p>")
        return head + html_table(self.events.head(10), index=False)


def read_log(source, *, start, end=None, node=None, cause=None, planned=None, time_format=None,
             time_unit=None, window=None, n_nodes=None, gpus_per_node=None, name=None, last_healthy=None):
    """Read an interruption log.

    Parameters
    ----------
    source : path (.csv, .csv.gz, .csv.xz, .parquet, .json) or DataFrame.
    start, end : column names of outage start and (optional) end times. Times
        are timestamps (parsed with ``time_format`` when given; offsets
        respected) or numbers in ``time_unit`` ("s", "min", "h", "d").
        Timestamps whose day/month order cannot be told, zone names such as
        "EST", and times with an offset mixed with times without one are
        refused with a named error (give ``time_format`` or offsets), and so
        are dates outside 1950-01-01 to 2100-01-01 (a year 0001 or 9999 is a
        placeholder, not an outage) and two-digit years (``%y``) read more
        than 50 years apart.  A fixed-width numeric ``time_format`` (such as
        ``'%Y-%m-%d %H:%M:%S'`` or ``'%m/%d/%Y %H:%M'``) is read about as fast
        as ISO times without one.
    node, cause : a column name or a list of names. Several node columns are
        joined into one key ("system/node"); cause columns are kept as given.
    planned : column of booleans (or yes/no, 1/0) marking planned outages.
    window : ``(t0, t1)`` observation window in the same form as the times;
        default: first to last event.  Needed when the events cannot tell it
        (a log of one event).
    n_nodes, gpus_per_node : size of the observed fleet, when it is known
        (nodes without outages are often not listed).
    last_healthy : column of the last check that saw the node healthy before
        each outage (same form as the times; may be empty), kept as
        ``healthy_h``: the failure happened between it and ``start``
        (interval censoring, see ``relmodel.stats.lifetimes.interval.uptime_intervals``).

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
    nodes, causes = _as_list(node, "node"), _as_list(cause, "cause")
    _check_args(start, end, planned, time_format, time_unit, name)
    n_nodes, gpus_per_node = _whole_or_none("n_nodes", n_nodes), _whole_or_none("gpus_per_node", gpus_per_node)
    wanted = ([start] + ([end] if end else []) + nodes + causes + ([planned] if planned else [])
              + ([last_healthy] if last_healthy else []))
    times = [c for c in (start, end, last_healthy) if c] if time_format else []  # the format reads them
    df, label = read_table(source, columns=wanted, categorical=nodes + causes, text=nodes + times, times=times,
                           time_format=time_format)
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
    check_same_zone(label, {start: t_start, end: t_end})
    origin, s_h, e_h, win = to_hours(kind, t_start, t_end, window, time_format, time_unit, label)
    _check_order(s_h, e_h, label, end)
    _check_flat(df, nodes + causes + ([planned] if planned else []), label)
    _check_nodes(df, nodes, label)
    keys, codes, sorted_keys = node_key(df, nodes)
    if n_nodes is not None and nodes and len(sorted_keys) > n_nodes:
        raise CountError(f"{label}: n_nodes={n_nodes:,} but the log names {len(sorted_keys):,} nodes; give "
                         f"n_nodes of at least {len(sorted_keys):,} (or leave it out)")
    cols = {"row": np.arange(1, len(df) + 1), "start_h": s_h, "end_h": e_h, "node": keys}
    cause_codes = []
    for c in causes:
        cols[c], cc = _cause_values(df[c])
        cause_codes.append(cc)
    cols["planned"] = _planned(df, planned, label)
    if last_healthy:
        cols["healthy_h"] = _healthy_hours(df, last_healthy, label, origin, time_format, time_unit)
    del df, t_start, t_end
    events, problems, codes, by_node = clean_events(cols, causes, win, codes, cause_codes, with_order=True)
    serious = problems[problems["problem"] != "simultaneous"]
    if len(serious):
        counts = serious["problem"].value_counts().to_dict()
        warnings.warn(f"{name or label}: " + ", ".join(f"{v} {k}" for k, v in counts.items())
                      + (" row" if sum(counts.values()) == 1 else " rows") + "; see problems() for the rows and what was done", LogWarning, stacklevel=2)
    log = InterruptionLog(events, win, origin=origin, cause_columns=causes, name=name or str(label),
                          n_nodes=n_nodes, gpus_per_node=gpus_per_node, problems=problems)
    log._node_cache = (events, (codes, sorted_keys))
    log._order_cache = (events, by_node)
    return log


_NESTED = (dict, list, tuple, set, np.ndarray)


def _check_flat(df, columns, label):
    """Names and flags are flat values: a struct, list or array in a cell (Parquet, JSON) names nothing."""
    for c in columns:
        col = df[c]
        if col.dtype != object:
            continue
        nested = col.map(lambda v: isinstance(v, _NESTED)).to_numpy(bool)
        if nested.any():
            i = int(np.flatnonzero(nested)[0])
            raise LogFormatError(f"{at(label, i, c)}holds a nested value ({type(col.iloc[i]).__name__} "
                                 f"{str(col.iloc[i])[:40]}), not a name; give this column as text (or numbers), "
                                 "e.g. flatten the struct into its own columns")


def _check_nodes(df, nodes, label):
    """Node names must be present: an empty cell, NA or NULL names no node."""
    for c in nodes:
        missing = np.flatnonzero(df[c].isna().to_numpy())
        if missing.size:
            rows = ", ".join(str(i + 1) for i in missing[:5]) + (" ..." if missing.size > 5 else "")
            raise LogFormatError(f"{at(label, int(missing[0]), c)}{missing.size:,} rows name no node (an empty "
                                 f"cell, NA or NULL; rows {rows}); give every row its node's name")
        if len(nodes) > 1:
            values = df[c].astype(str)
            if values.str.contains("/", regex=False).any():
                i = int(np.flatnonzero(values.str.contains("/", regex=False).to_numpy())[0])
                raise LogFormatError(f"{at(label, i, c)}node names joined from several columns may not hold "
                                     f"'/' ({values.iloc[i]!r}): 'a/b' + 'c' and 'a' + 'b/c' would be one node")


def _healthy_hours(df, column, label, origin, time_format, time_unit):
    """Hours (on the start times' clock) of each row's "last seen healthy" check; NaN where missing."""
    require_columns(df, [column], label, "last_healthy")
    kind, t = parse_times(df[column], label, column, time_format=time_format, time_unit=time_unit,
                          allow_missing=True)
    if kind != "numeric" and origin is not None:
        check_same_zone(label, {"start": pd.Series([origin]), column: t})
    return np.asarray(t, float) if kind == "numeric" else hours_since(t, origin)


def _cause_values(col):
    """A cause column as values (missing ones "unknown") and integer codes of the values."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        if col.isna().any():
            if "unknown" not in col.cat.categories:
                col = col.cat.add_categories(["unknown"])
            col = col.fillna("unknown")
        codes = col.cat.codes.to_numpy()
        return np.asarray(col.cat.categories, dtype=object)[codes], codes
    values = col.where(col.notna(), "unknown").to_numpy()
    return values, pd.factorize(values, use_na_sentinel=False)[0]


def _check_args(start, end, planned, time_format, time_unit, name):
    if not isinstance(start, str) or not start:
        raise InputTypeError(f"start= names the column of outage start times (a string); got "
                             f"{type(start).__name__} {start!r:.60}")
    for arg, v in (("end", end), ("planned", planned), ("time_unit", time_unit)):
        if v is not None and not isinstance(v, str):
            raise InputTypeError(f"{arg}= must be a column name (a string) or None; got {type(v).__name__} {v!r:.60}")
    if name is not None and not isinstance(name, str):
        raise InputTypeError(f"name= must be a string; got {type(name).__name__}")
    check_time_format(time_format)


def _whole_or_none(arg, v):
    if v is None:
        return None
    ok = isinstance(v, (int, np.integer)) or (isinstance(v, (float, np.floating)) and float(v).is_integer())
    if isinstance(v, bool) or not ok or v < 1 or v > 2 ** 53:
        raise CountError(f"{arg} must be a whole number of 1 or more; got {v!r}")
    return int(v)


def _check_order(s_h, e_h, label, end):
    bad = np.flatnonzero(e_h < s_h)
    if bad.size:
        i = int(bad[0])
        raise EndBeforeStartError(
            f"{at(label, i, end)}outage ends {s_h[i] - e_h[i]:.4g} h before it starts; "
            "the end must be at or after the start")


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
        raise LogFormatError(f"{at(label, i, column)}cannot read {col.iloc[i]!r} as planned; "
                             "use true/false, yes/no or 1/0")
    return text.isin(_TRUE).to_numpy()
