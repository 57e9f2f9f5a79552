"""Nelson's mean cumulative function (MCF) of recurrent failures across many systems.

Each node of a fleet is a repairable system observed over its own window; the
MCF is the mean number of failures per system by time t, with the variance of
Nelson, "Recurrent Events Data Analysis for Product Repairs, Disease
Recurrences, and Other Applications", SIAM 2003, section 4 (also Lawless and
Nadeau, Technometrics 37(2), 1995).
"""

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import FitError
from .nonparam import StepEstimate, _check_conf, interruptions
from ...units import hours

__all__ = ["mcf"]


def _mcf_inputs(data, node, start, end, n_systems):
    """Event times, system index per event, and per-system windows [s_i, e_i] in hours."""
    if hasattr(data, "events") and hasattr(data, "window_h"):
        ev = interruptions(data)
        t = ev["start_h"].to_numpy(float)
        node = ev["node"].to_numpy(object) if "node" in ev.columns else None
        w0, w1 = (float(x) for x in data.window_h)
        start = w0 if start is None else start
        end = w1 if end is None else end
        if n_systems is None:
            n_systems = getattr(data, "n_nodes", None)
    else:
        t = np.atleast_1d(np.asarray(hours(data), dtype=float))
    if node is None or pd.isna(pd.Series(node, dtype=object)).all():
        node = np.zeros(t.size, int)
    if len(node) != t.size:
        raise FitError(f"node has {len(node)} values but there are {t.size} event times")
    labels = pd.Series(node, dtype=object).astype(str).to_numpy()
    named = [pd.Series(v).index.astype(str) for v in (start, end) if isinstance(v, (dict, pd.Series))]
    keys = np.unique(np.concatenate([labels, *named]))
    sys_idx = np.searchsorted(keys, labels)
    if end is None:
        raise FitError("the end of observation is needed: pass end= (hours, or a mapping node -> end)")
    m = max(keys.size, int(n_systems or 0))
    s = _per_system(0.0 if start is None else start, keys, m, "start")
    e = _per_system(end, keys, m, "end")
    bad = (t < s[sys_idx]) | (t > e[sys_idx])
    if bad.any():
        i = int(np.argmax(bad))
        raise FitError(f"event at {t[i]:g} h on node {keys[sys_idx[i]]} is outside its observation window")
    return t, sys_idx, s, e


def _per_system(value, keys, m, what):
    """Per-system window bound: a scalar for all, or a mapping node -> hours."""
    if isinstance(value, (dict, pd.Series)):
        v = pd.Series(value)
        v.index = v.index.astype(str)
        missing = [k for k in keys if k not in v.index]
        if missing:
            raise FitError(f"{what} mapping lacks nodes {missing[:5]}"
                           f"{f' and {len(missing) - 5} more' if len(missing) > 5 else ''}; "
                           f"give every node, or a single {what}")
        if m > keys.size:
            raise FitError(f"n_systems={m} but the {what} mapping and the events name only {keys.size} "
                           f"systems; the other {m - keys.size} (failure-free) need their {what} too: "
                           f"add them to the mapping, give a single {what}, or pass n_systems={keys.size}")
        return np.array([float(hours(v[k])) for k in keys])
    return np.full(m, float(hours(value)))


def _diff_sum(idx, val, size):
    """cumsum of values dropped at indices (a difference array); idx may equal size."""
    acc = np.zeros(size + 1)
    np.add.at(acc, idx, val)
    return np.cumsum(acc)[:size]


def _mcf_variance(k_ev, sys_ev, x, a, b, g_cum):
    """Nelson's variance sum_i c_i(t)^2 with c_i = O_i - C_i, in O(events + systems + times).

    O_i(t) = sum of system i's jumps d_ik / r_k up to t; C_i(t) = sum of d_k / r_k^2
    over the times up to t when system i is at risk (index range a_i..b_i).
    """
    K = g_cum.size
    g0 = np.concatenate([[0.0], g_cum])
    prev, g_end = g0[a], g0[b + 1]  # G just before and at the end of each system's window
    order = np.lexsort((k_ev, sys_ev))
    k_ev, sys_ev, x = k_ev[order], sys_ev[order], x[order]
    o_after = pd.Series(x).groupby(sys_ev).cumsum().to_numpy()
    o_final = np.zeros(a.size)
    np.add.at(o_final, sys_ev, x)
    sq = _diff_sum(k_ev, 2 * (o_after - x) * x + x**2, K)  # sum_i O_i^2
    # sum_i C_i^2: active systems give (G_k - prev)^2, finished ones a constant
    n_act = _diff_sum(np.r_[a, b + 1], np.r_[np.ones(a.size), -np.ones(a.size)], K)
    p1 = _diff_sum(np.r_[a, b + 1], np.r_[prev, -prev], K)
    p2 = _diff_sum(np.r_[a, b + 1], np.r_[prev**2, -prev**2], K)
    fin = _diff_sum(b + 1, (g_end - prev) ** 2, K)
    c2 = n_act * g_cum**2 - 2 * g_cum * p1 + p2 + fin
    # sum_i O_i C_i
    o_act = _diff_sum(np.r_[k_ev, b + 1], np.r_[x, -o_final], K)
    op_act = _diff_sum(np.r_[k_ev, b + 1], np.r_[x * prev[sys_ev], -o_final * prev], K)
    o_fin = _diff_sum(b + 1, o_final * (g_end - prev), K)
    oc = g_cum * o_act - op_act + o_fin
    return np.maximum(sq - 2 * oc + c2, 0.0)


def mcf(source, *, node=None, start=None, end=None, n_systems=None, conf=0.95):
    """Nelson's mean cumulative function (MCF) of recurrent failures across systems.

    ``source``: an :class:`~relmodel.InterruptionLog` (unplanned interruptions, as
    in :func:`relmodel.stats.survival.trends.event_times`, one system
    per node, all observed over the log's window; ``n_systems`` defaults to the
    log's ``n_nodes`` and counts nodes that never failed), or event times in
    hours with ``node`` labels and the observation ``start``/``end`` (scalars, or
    mappings node -> hours).  ``n_systems`` adds failure-free systems observed
    over the common window.  MCF(t) = sum_{t_k <= t} d_k / r_k, with r_k the
    systems under observation at t_k; the variance is Nelson's unbiased
    estimator (Nelson, "Recurrent Events Data Analysis", SIAM 2003, section 4;
    Lawless and Nadeau 1995) and the band is log-transformed.
    Returns a :class:`StepEstimate` with ``quantity == "mean cumulative function"``.

    Examples
    --------
    >>> m = mcf([10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4)   # hours
    >>> m.hours.tolist(), m.value.round(4).tolist()        # failures per system by then
    ([0.0, 10.0, 25.0, 40.0], [0.0, 0.25, 0.5, 0.75])
    """
    _check_conf(conf)
    t, sys_idx, s, e = _mcf_inputs(source, node, start, end, n_systems)
    times, k_ev = np.unique(t, return_inverse=True)
    d = np.bincount(k_ev, minlength=times.size).astype(float)
    r = (np.searchsorted(np.sort(s), times, side="right")
         - np.searchsorted(np.sort(e), times, side="left")).astype(float)
    value = np.cumsum(d / r)
    a = np.searchsorted(times, s, side="left")
    b = np.searchsorted(times, e, side="right") - 1
    sys_k = pd.DataFrame({"s": sys_idx, "k": k_ev}).value_counts().reset_index()
    sk, kk = sys_k["s"].to_numpy(), sys_k["k"].to_numpy()
    var = _mcf_variance(kk, sk, sys_k["count"].to_numpy(float) / r[kk], a, b, np.cumsum(d / r**2))
    z = stats.norm.ppf(0.5 + conf / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.exp(z * np.sqrt(var) / value)
    pad = lambda v, first: np.concatenate([[first], v])  # noqa: E731
    return StepEstimate("Nelson", "mean cumulative function", pad(times, float(s.min())), pad(value, 0.0),
                        pad(value / w, 0.0), pad(value * w, 0.0), pad(r, float(s.size)).astype(int),
                        pad(d, 0).astype(int), conf, "events", int(s.size), int(t.size))
