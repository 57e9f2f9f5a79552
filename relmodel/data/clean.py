"""Vectorised clean-up of an interruption log: node keys, duplicates, overlaps, simultaneous starts.

The rules are those of :mod:`relmodel.data.logs`; everything here works on
integer codes and sorted numpy arrays (no per-group Python calls), so a
log of millions of rows is cleaned in seconds.  ``tests/test_clean.py``
checks it against a plain pandas reading of the same rules.
"""

import numpy as np
import pandas as pd

__all__ = ["node_key", "node_codes", "clean_events", "flag_rows", "empty_problems", "merged_outages"]


def _text(col):
    """Column as text; whole-number floats (ids read next to NaN) print without ".0"."""
    if pd.api.types.is_float_dtype(col):
        v = col.dropna()
        if (v == np.floor(v)).all():
            col = col.astype("Int64")
    return col.astype(str)


def _codes(col):
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    text = _text(pd.Series(uniques, dtype=col.dtype if len(uniques) else object)).to_numpy(object)
    return codes.astype(np.int64), text


def node_key(df, nodes):
    """One text key per row ("system/node" for several node columns), built from the distinct values only."""
    if not nodes:
        return np.full(len(df), "all", dtype=object)
    codes, text = _codes(df[nodes[0]])
    for c in nodes[1:]:
        c2, t2 = _codes(df[c])
        combo, codes = np.unique(codes * len(t2) + c2, return_inverse=True)
        text = np.array([f"{text[k // len(t2)]}/{t2[k % len(t2)]}" for k in combo], dtype=object)
    return text[codes]


def node_codes(nodes):
    """Integer codes of node keys in sorted key order, and the sorted keys."""
    codes, uniques = pd.factorize(pd.Series(nodes, dtype=object), sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _nan_equal_prev(x):
    """x[i] == x[i - 1], NaN equal to NaN (False for i = 0)."""
    out = np.zeros(x.size, bool)
    if x.size > 1:
        a, b = x[1:], x[:-1]
        out[1:] = (a == b) | (np.isnan(a) & np.isnan(b)) if x.dtype.kind == "f" else (a == b)
    return out


def _group_cummax_prev(values, group):
    """Per group (rows sorted by group), the running max of ``values`` up to the previous row.

    NaN rows stay NaN in the running max and the max continues past them, as
    pandas' ``cummax`` does; the first row of each group gets NaN.
    """
    cm = pd.Series(values).groupby(group, sort=False).cummax().to_numpy(float)
    prev = np.empty_like(cm)
    prev[0:1] = np.nan
    prev[1:] = cm[:-1]
    first = np.ones(group.size, bool)
    first[1:] = group[1:] != group[:-1]
    prev[first] = np.nan
    return prev


def clean_events(events, causes, win):
    """Apply the log rules to ``events`` (row, start_h, end_h, node, causes, planned).

    Returns ``(events, problems)``: events sorted by start then row, with an
    ``overlaps`` column; problems one row per flagged row.
    """
    flagged = []
    s = events["start_h"].to_numpy(float)
    outside = (s < win[0]) | (s > win[1])
    flagged.append(flag_rows(events[outside], "outside window", "dropped"))
    events = events[~outside]
    code, _ = node_codes(events["node"].to_numpy(object))
    keys = [code, events["start_h"].to_numpy(float), events["end_h"].to_numpy(float)]
    keys += [pd.factorize(events[c], use_na_sentinel=False)[0] for c in causes]
    row = events["row"].to_numpy()
    order = np.lexsort([row] + keys[::-1])
    same = np.ones(order.size, bool)
    for k in keys:
        same &= _nan_equal_prev(k[order])
    dup = np.zeros(order.size, bool)
    dup[order[same]] = True
    flagged.append(flag_rows(events[dup], "duplicate", "dropped; the first copy is kept"))
    events, code = events[~dup], code[~dup]
    order = np.lexsort([events["row"].to_numpy(), events["start_h"].to_numpy(float), code])
    events, code = events.iloc[order], code[order]
    prev_end = _group_cummax_prev(events["end_h"].to_numpy(float), code)
    with np.errstate(invalid="ignore"):
        overlaps = events["start_h"].to_numpy(float) < prev_end
    events = events.assign(overlaps=overlaps)
    flagged.append(flag_rows(events[overlaps], "overlap",
                             "merged with the earlier outage on the node; not a new interruption"))
    fresh, fcode = events[~overlaps], code[~overlaps]
    simul = _simultaneous(fresh["start_h"].to_numpy(float), fcode)
    flagged.append(flag_rows(fresh[simul], "simultaneous", "one interruption for interarrivals; one failure per node"))
    order = np.lexsort([events["row"].to_numpy(), events["start_h"].to_numpy(float)])
    events = events.iloc[order].reset_index(drop=True)
    problems = pd.concat([p for p in flagged if len(p)] or [empty_problems()], ignore_index=True)
    return events, problems.sort_values("row", kind="stable").reset_index(drop=True)


def _simultaneous(start, code):
    """Rows (in the given order) whose start repeats an earlier row's start, where several nodes share it."""
    if start.size == 0:
        return np.zeros(0, bool)
    s_codes, s_uniq = pd.factorize(start)
    first = np.zeros(start.size, bool)
    first[np.unique(s_codes, return_index=True)[1]] = True
    pairs = np.unique(s_codes.astype(np.int64) * (int(code.max()) + 1) + code)
    nodes_per_start = np.bincount(pairs // (int(code.max()) + 1), minlength=len(s_uniq))
    return ~first & (nodes_per_start[s_codes] > 1)


def merged_outages(events):
    """Per node, outages merged where they overlap, sorted by node then start.

    Returns ``(node code, start_h, end_h, sorted node keys)`` as arrays.
    """
    code, keys = node_codes(events["node"].to_numpy(object))
    start = events["start_h"].to_numpy(float)
    order = np.lexsort([start, code])
    code, start = code[order], start[order]
    end = events["end_h"].to_numpy(float)[order]
    heads = np.flatnonzero(~events["overlaps"].to_numpy(bool)[order])
    if heads.size == 0:
        return code[:0], start[:0], end[:0], keys
    with np.errstate(invalid="ignore"):
        merged_end = np.fmax.reduceat(end, heads) if end.size else end
    return code[heads], start[heads], merged_end, keys


def empty_problems():
    return pd.DataFrame({"row": pd.Series(dtype=int), "node": pd.Series(dtype=object),
                         "start_h": pd.Series(dtype=float), "problem": pd.Series(dtype=object),
                         "action": pd.Series(dtype=object)})


def flag_rows(rows, problem, action):
    return pd.DataFrame({"row": rows["row"].to_numpy(), "node": rows["node"].to_numpy(),
                         "start_h": rows["start_h"].to_numpy(), "problem": problem, "action": action})
