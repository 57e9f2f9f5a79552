"""Vectorised clean-up of an interruption log: node keys, duplicates, overlaps, simultaneous starts.

The rules are those of :mod:`relmodel.data.shaping.logs`; everything here works on
integer codes and sorted numpy arrays (no per-group Python calls), so a
log of millions of rows is cleaned in seconds.  ``tests/data/shaping/test_clean.py``
checks it against a plain pandas reading of the same rules.
"""

import numpy as np
import pandas as pd


__all__ = ["node_key", "node_codes", "clean_events", "flag_rows", "empty_problems", "merged_outages", "stable_order"]


def _text(col):
    """Column as text; whole-number floats (ids read next to NaN) print without ".0"."""
    if pd.api.types.is_float_dtype(col):
        v = col.dropna()
        if (v == np.floor(v)).all():
            col = col.astype("Int64")
    return col.astype(str)


def _codes(col):
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy().astype(np.int64)
        cats = col.cat.categories
        used = np.bincount(codes[codes >= 0], minlength=len(cats)) > 0  # unused categories dropped, no sort
        if not used.all():
            new_code = np.cumsum(used) - 1
            codes = np.where(codes >= 0, new_code[np.maximum(codes, 0)], -1)
            cats = cats[used]
        uniques = list(cats)
        if (codes < 0).any():
            codes = np.where(codes < 0, len(uniques), codes)
            uniques.append(np.nan)
        return codes, _text(pd.Series(uniques, dtype=object)).to_numpy(object)
    codes, uniques = pd.factorize(col, use_na_sentinel=False)
    text = _text(pd.Series(uniques, dtype=col.dtype if len(uniques) else object)).to_numpy(object)
    return codes.astype(np.int64), text


def node_key(source, nodes):
    """One text key per row ("system/node" for several node columns) and integer codes in key order.

    Returns ``(keys, codes, sorted distinct keys)``; built from the distinct values only.
    """
    if not nodes:
        return np.full(len(source), "all", dtype=object), np.zeros(len(source), np.int64), np.array(["all"], object)
    codes, text = _codes(source[nodes[0]])
    for c in nodes[1:]:
        c2, t2 = _codes(source[c])
        codes, combo = pd.factorize(codes * len(t2) + c2)
        text = np.array([f"{text[k // len(t2)]}/{t2[k % len(t2)]}" for k in combo], dtype=object)
    rank = np.argsort(text, kind="stable")
    where_ = np.empty_like(rank)
    where_[rank] = np.arange(rank.size)
    return text[codes], where_[codes].astype(np.int64), text[rank]


def node_codes(nodes):
    """Integer codes of node keys in sorted key order, and the sorted keys."""
    codes, uniques = pd.factorize(pd.Series(nodes, dtype=object), sort=True)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def _runs(*keys):
    """For rows sorted by ``keys``: True where a row's keys equal the previous row's (NaN equal to NaN)."""
    n = keys[0].size
    same = np.zeros(n, bool)
    if n > 1:
        same[1:] = True
        for k in keys:
            a, b = k[1:], k[:-1]
            eq = a == b
            if k.dtype.kind == "f":
                eq |= np.isnan(a) & np.isnan(b)
            same[1:] &= eq
    return same


def _is_sorted(x):
    return bool(x.size < 2 or np.all(x[1:] >= x[:-1]))


def stable_order(code):
    """``np.argsort(code, kind="stable")`` for non-negative integer codes, through one plain sort.

    Each code is packed with its position into one int64 (``code * n + i``),
    so the keys are distinct and any sort is stable; numpy's vectorised sort
    of int64 keys is several times faster than a stable argsort.  Falls back
    to the stable argsort when the packed keys would not fit in int64.
    """
    code = np.asarray(code)
    n = code.size
    if n < 2:
        return np.arange(n, dtype=np.int64)
    top = int(code.max()) + 1
    if code.min() < 0 or top > (np.iinfo(np.int64).max - n) // n:
        return np.argsort(code, kind="stable")
    key = code.astype(np.int64) * n
    key += np.arange(n, dtype=np.int64)
    key.sort()
    np.remainder(key, n, out=key)
    return key


def _by_node_then_start(code, start, row=None):
    """Order by node code, start and row; one stable sort when rows are already by start then row."""
    if _is_sorted(start) and (row is None or _is_sorted(row)):
        return stable_order(code)
    return np.lexsort(([row] if row is not None else []) + [start, code])


def _duplicates(code, start, end, cause_codes, row):
    """Rows equal to an earlier row (by row number) in node, start, end and causes."""
    order = _by_node_then_start(code, start, row)
    tied = _runs(code[order], start[order])
    dup = np.zeros(code.size, bool)
    if not tied.any():
        return dup, order
    in_run = tied.copy()
    in_run[:-1] |= tied[1:]
    cand = order[in_run]  # rows sharing node and start with another row: compare them fully
    keys = [code[cand], start[cand], end[cand]] + [c[cand] for c in cause_codes]
    sub = np.lexsort([row[cand]] + keys[::-1])
    same = _runs(*[k[sub] for k in keys])
    dup[cand[sub][same]] = True
    return dup, order


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


def clean_events(events, causes, win, codes=None, cause_codes=None, with_order=False):
    """Apply the log rules to ``events`` (row, start_h, end_h, node, causes, planned).

    ``events`` is a DataFrame or a dict of equal-length arrays (rows in row
    order).  ``codes`` are the node keys' integer codes in key order and
    ``cause_codes`` integer codes per cause column (computed when not given).
    Returns ``(events, problems, codes)``: events sorted by start then row,
    with an ``overlaps`` column; problems one row per flagged row; and the
    node codes of the returned events.  ``with_order`` adds a fourth: the
    positions of the returned events sorted by node, start and row (the sort
    the rules already made, for :func:`merged_outages`).
    """
    cols = {c: np.asarray(events[c]) for c in events} if isinstance(events, dict) else \
        {c: events[c].to_numpy() for c in events.columns}
    start, row = cols["start_h"].astype(float, copy=False), cols["row"]
    code = node_codes(cols["node"])[0] if codes is None else np.asarray(codes)
    if cause_codes is None:
        cause_codes = [pd.factorize(cols[k], use_na_sentinel=False)[0] for k in causes]
    outside = (start < win[0]) | (start > win[1])
    flags = [("outside window", "dropped", np.flatnonzero(outside))]
    if outside.any():
        keep = np.flatnonzero(~outside)
        s, c, r, e = start[keep], code[keep], row[keep], cols["end_h"][keep]
        cause_codes = [cc[keep] for cc in cause_codes]
    else:  # views, no copies
        keep = np.arange(start.size)
        s, c, r, e = start, code, row, cols["end_h"]
    del outside
    dup, order = _duplicates(c, s, e, cause_codes, r)
    flags.append(("duplicate", "dropped; the first copy is kept", keep[dup]))
    order = order[~dup[order]]  # sorted by node, start, row
    prev_end = _group_cummax_prev(e[order], c[order])
    with np.errstate(invalid="ignore"):
        over_sorted = s[order] < prev_end
    planned = cols.get("planned")
    if planned is not None and over_sorted.any():
        # an unplanned outage that begins inside planned maintenance is its own interruption
        p_ = np.asarray(planned, bool)[keep][order]
        if p_.any() and not p_.all():
            prev_unplanned = _group_cummax_prev(np.where(p_, np.nan, e[order]), c[order])
            with np.errstate(invalid="ignore"):
                inside = over_sorted & ~p_ & ~(s[order] < prev_unplanned)
            over_sorted &= ~inside
            flags.append(("unplanned outage inside planned maintenance", "kept as an interruption",
                          keep[order[inside]]))
    flags.append(("overlap", "merged with the earlier outage on the node; not a new interruption",
                  keep[order[over_sorted]]))
    fresh = order[~over_sorted]
    simul = _simultaneous_fast(s, c, fresh)
    flags.append(("simultaneous", "one interruption for interarrivals; one failure per node", keep[fresh[simul]]))
    del prev_end, fresh, simul, dup
    overlaps = np.zeros(s.size, bool)
    overlaps[order[over_sorted]] = True
    is_kept = np.zeros(s.size, bool)
    is_kept[order] = True
    del over_sorted
    kept = np.flatnonzero(is_kept)  # rows kept, in row order (no sort)
    del is_kept
    final = kept if _is_sorted(s) and _is_sorted(r) else kept[np.lexsort([r[kept], s[kept]])]
    by_node = None
    if with_order:  # the node-then-start order of the kept rows, as positions among the returned events
        at = np.empty(s.size, np.int64)
        at[final] = np.arange(final.size)
        by_node = at[order]
    del order
    take = keep[final]
    out = pd.DataFrame({k: v[take] for k, v in cols.items()}, copy=False)  # fresh arrays: no block copies
    out["overlaps"] = overlaps[final]
    problems = [_flag(cols, np.sort(i), p, a) for p, a, i in flags if len(i)]
    problems = pd.concat(problems or [empty_problems()], ignore_index=True)
    problems = problems.sort_values("row", kind="stable").reset_index(drop=True)
    return (out, problems, c[final], by_node) if with_order else (out, problems, c[final])


def _flag(cols, idx, problem, action):
    return pd.DataFrame({"row": cols["row"][idx], "node": cols["node"][idx], "start_h": cols["start_h"][idx],
                         "problem": problem, "action": action})


def _simultaneous_fast(start, code, fresh):
    """:func:`_simultaneous` of the rows ``fresh`` (sorted by node, start); only tied starts are sorted
    when ``start`` is already in order."""
    if not _is_sorted(start):
        return _simultaneous(start[fresh], code[fresh])
    is_fresh = np.zeros(start.size, bool)
    is_fresh[fresh] = True
    idx = np.flatnonzero(is_fresh)  # fresh rows by start
    st = start[idx]
    tied = np.zeros(idx.size, bool)
    tied[1:] = st[1:] == st[:-1]
    tied[:-1] |= tied[1:].copy()
    out = np.zeros(start.size, bool)
    if tied.any():
        cand = idx[tied]
        order = np.lexsort([cand, code[cand]])  # by node then row: the order rows have in ``fresh``
        flag = _simultaneous(start[cand][order], code[cand][order])
        out[cand[order][flag]] = True
    return out[fresh]


def _simultaneous(start, code):
    """Rows (sorted by node, start) whose start repeats an earlier row's, where several nodes share it."""
    out = np.zeros(start.size, bool)
    if start.size < 2:
        return out
    by_start = np.argsort(start, kind="stable")  # ties keep node order, so the first is the first seen
    st, cd = start[by_start], code[by_start]
    tied = st[1:] == st[:-1]
    if not tied.any():
        return out
    run = np.concatenate([[0], np.cumsum(~tied)])  # run number of each row, by start
    new_node = np.concatenate([[True], ~tied | (cd[1:] != cd[:-1])])
    nodes_per_run = np.bincount(run, weights=new_node).astype(np.int64)
    later = np.concatenate([[False], tied])
    out[by_start[later & (nodes_per_run[run] > 1)]] = True
    return out


def merged_outages(events, codes=None, order=None):
    """Per node, outages merged where they overlap, sorted by node then start.

    ``order`` is the rows' node-then-start order when already known (:func:`clean_events`).
    Returns ``(node code, start_h, end_h, sorted node keys)`` as arrays.
    """
    code, keys = node_codes(events["node"].to_numpy(object)) if codes is None else codes
    start = events["start_h"].to_numpy(float)
    order = _by_node_then_start(code, start) if order is None else order
    if code.size and code.min() >= 0:   # the codes in order, counted rather than gathered
        code = np.repeat(np.arange(int(code.max()) + 1, dtype=code.dtype), np.bincount(code))
    else:
        code = code[order]
    start = start[order]
    end = events["end_h"].to_numpy(float)[order]
    overlaps = events["overlaps"].to_numpy(bool)
    if not overlaps.any():   # nothing to merge
        return code, start, end, keys
    heads = np.flatnonzero(~overlaps[order])
    if heads.size == 0:
        return code[:0], start[:0], end[:0], keys
    with np.errstate(invalid="ignore"):
        merged_end = np.fmax.reduceat(end, heads)
    return code[heads], start[heads], merged_end, keys


def empty_problems():
    return pd.DataFrame({"row": pd.Series(dtype=int), "node": pd.Series(dtype=object),
                         "start_h": pd.Series(dtype=float), "problem": pd.Series(dtype=object),
                         "action": pd.Series(dtype=object)})


def flag_rows(rows, problem, action):
    return pd.DataFrame({"row": rows["row"].to_numpy(), "node": rows["node"].to_numpy(),
                         "start_h": rows["start_h"].to_numpy(), "problem": problem, "action": action})
