"""Each node's in-service intervals between failures, from an interruption log (all nodes at once).

A node is in service from the window's start to its first outage, from the
end of each outage to the start of the next, and from its last outage's end
to the window's end (that last interval is censored).  Overlapping outages
are one outage (as :meth:`InterruptionLog.uptimes` merges them).  A planned
outage is no failure: its downtime is not exposure, but the time on either
side of it is one interval.  An outage with an unknown end stops the node's
observation at its start.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["NodeIntervals", "node_intervals", "group_starts"]


@dataclass(frozen=True, eq=False)
class NodeIntervals:
    """In-service intervals of the nodes a log lists, node by node (arrays in hours).

    ``keys[i]`` is node i's key; its intervals are ``u[starts[i]:starts[i] + n[i]]``
    with ``failed`` True where the interval ended in a failure.  ``window_h``
    is the length of the observation window.
    """

    keys: np.ndarray
    n: np.ndarray
    starts: np.ndarray
    u: np.ndarray
    failed: np.ndarray
    window_h: float

    @cached_property
    def failures(self):
        """Failures per node (worked out once)."""
        return np.add.reduceat(self.failed.astype(np.int64), self.starts) if self.keys.size else np.zeros(0, int)

    @cached_property
    def exposure_h(self):
        """Hours up and in service per node (worked out once)."""
        return np.add.reduceat(self.u, self.starts) if self.keys.size else np.zeros(0)


def group_starts(code):
    """Index of the first row of each run of equal ``code`` (rows sorted by code)."""
    if code.size == 0:
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.append(True, code[1:] != code[:-1]))


def _merged(log):
    """Merged outages by node then start: code, start, end, planned; and the sorted node keys."""
    ev = log.events
    planned = ev["planned"].to_numpy(bool)
    if not planned.any():  # the log's own merge (cached, and quick on rows already by start) is the same
        code, start, end, keys = log._merged()
        return code, start, end, np.zeros(code.size, bool), keys
    code, keys = log._codes()
    start = ev["start_h"].to_numpy(float)
    order = np.lexsort((ev["row"].to_numpy(), start, code))
    code, start = code[order], start[order]
    end = ev["end_h"].to_numpy(float)[order]
    planned = planned[order]
    head = ~ev["overlaps"].to_numpy(bool)[order]
    head[group_starts(code)] = True  # a node's first outage always starts a merged one
    heads = np.flatnonzero(head)
    if heads.size == 0:
        return code[:0], start[:0], end[:0], planned[:0], keys
    with np.errstate(invalid="ignore"):
        merged_end = np.fmax.reduceat(end, heads)
    return code[heads], start[heads], merged_end, planned[heads], keys


def _until_first_unknown_end(code, end):
    """Outages kept: those up to and including each node's first outage with an unknown end."""
    unknown = np.isnan(end).astype(np.int64)
    before = np.cumsum(unknown) - unknown  # unknown ends strictly before each row, all nodes
    first = group_starts(code)
    before -= np.repeat(before[first], np.diff(np.append(first, code.size)))
    return before == 0


def node_intervals(source):
    """The in-service intervals (between failures) of every node the log ``source`` lists: a :class:`NodeIntervals`."""
    log = source
    t0, t1 = log.window_h
    code, start, end, planned, keys = _merged(log)
    if np.isnan(end).any():
        keep = _until_first_unknown_end(code, end)
        code, start, end, planned = code[keep], start[keep], end[keep], planned[keep]
    change = code[1:] != code[:-1]
    prev_end = np.empty(code.size)   # the end of the node's previous outage, or the window's start
    prev_end[1:] = end[:-1]
    prev_end[:1] = t0
    prev_end[1:][change] = t0
    np.maximum(prev_end, t0, out=prev_end)
    seg_u = np.subtract(start, prev_end, out=prev_end)
    np.clip(seg_u, 0.0, None, out=seg_u)
    seg_fail = ~planned
    open_tail = np.isfinite(end)  # the censored stretch after a node's last outage
    open_tail[:-1] &= change
    tail_at = np.flatnonzero(open_tail)
    # segments in node order: each outage's preceding stretch, then the node's censored tail
    total = code.size + tail_at.size
    tail_pos = tail_at + np.arange(1, tail_at.size + 1)   # each tail right after its node's last outage
    is_seg = np.ones(total, bool)
    is_seg[tail_pos] = False
    u = np.empty(total)
    fail = np.zeros(total, bool)
    seg_code = np.empty(total, np.int64)
    u[is_seg], fail[is_seg], seg_code[is_seg] = seg_u, seg_fail, code
    u[tail_pos] = np.clip(t1 - end[tail_at], 0.0, None)
    seg_code[tail_pos] = code[tail_at]
    # an interval (epoch) runs from a node's start or a failure to the next failure or the censoring
    if planned.any():
        new = np.ones(total, bool)
        new[1:] = (seg_code[1:] != seg_code[:-1]) | fail[:-1]
        heads = np.flatnonzero(new)
        iu, ifail, icode = np.add.reduceat(u, heads), np.logical_or.reduceat(fail, heads), seg_code[heads]
    else:   # every outage a failure: each segment is an interval
        iu, ifail, icode = u, fail, seg_code
    starts = group_starts(icode)
    n = np.diff(np.append(starts, icode.size))
    return NodeIntervals(np.asarray(keys, object)[icode[starts]], n, starts, iu, ifail, float(t1 - t0))
