"""Simulate steps through an :class:`~relmodel.stragglers.graph.OpGraph`, vectorised over steps and ranks.

Every node's time is an array whose last axis is the data-parallel rank and
whose leading axes are anything else simulated at once (steps, what-if
scenarios); arrays broadcast, so an operation at its typical duration is a
single number.  Units are taken in dependency order: an operation starts
when the last of its dependencies ends (at 0 when it has none, so launch
delays are removed); a compute ends its duration later; the members of a
communication group end together at the latest start among them (and among
all DP ranks for a DP collective) plus each member's own transfer time.
The step ends when its last operation ends.
"""

import numpy as np

__all__ = ["simulate_steps", "simulate_timeline"]


def _last_use(graph):
    """For each node, the position in ``graph.order`` of the last unit that reads its end time."""
    pos = np.full(graph.n_nodes, -1)
    for k, unit in enumerate(graph.order):
        for v in unit:
            for u in graph.deps[v]:
                pos[u] = k
    return pos


def _unit(graph, unit, ends, value):
    """Start and end times of one unit's nodes, given the end times of everything before it."""
    starts = []
    for v in unit:
        d = graph.deps[v]
        s = ends[d[0]] if d else 0.0
        for u in d[1:]:
            s = np.maximum(s, ends[u])
        starts.append(s)
    g = graph.group[unit[0]]
    if g < 0:
        return starts, [starts[0] + value(unit[0])]
    t = starts[0]
    for s in starts[1:]:
        t = np.maximum(t, s)
    if graph.group_dp[g] and np.ndim(t):
        t = np.max(t, axis=-1, keepdims=True)
    return starts, [t + value(v) for v in unit]


def simulate_steps(graph, value):
    """Step times: the latest end over all operations and DP ranks.

    ``value(i)`` returns node i's duration (compute) or transfer time
    (communication) as an array broadcastable to ``(..., dp)``; the result has
    the leading shape (the DP axis reduced).  End times are dropped as soon as
    nothing else reads them, so memory stays at the width of the graph.
    """
    last = _last_use(graph)
    ends, step_end = {}, None
    for k, unit in enumerate(graph.order):
        _, new = _unit(graph, unit, ends, value)
        for v, e in zip(unit, new):
            if last[v] < 0:  # nothing waits for it: it may end the step
                top = np.max(e, axis=-1) if np.ndim(e) else e
                step_end = top if step_end is None else np.maximum(step_end, top)
            else:
                ends[v] = e
        for v in unit:
            for u in graph.deps[v]:
                if last[u] == k:
                    ends.pop(u, None)
    return step_end


def simulate_timeline(graph, value, shape):
    """Start and end times of every operation: two arrays of shape ``(n_nodes,) + shape``."""
    start, end = np.zeros((graph.n_nodes,) + tuple(shape)), np.zeros((graph.n_nodes,) + tuple(shape))
    ends = {}
    for unit in graph.order:
        starts, new = _unit(graph, unit, ends, value)
        for v, s, e in zip(unit, starts, new):
            start[v], end[v] = s, e
            ends[v] = end[v]
    return start, end
