"""The two sweeps of the compound-failure simulator (:mod:`relmodel.scale.design.compound`): groups, then the pool.

Every part in repair is a start and an end event.  All events of all runs are
put in time order once (run, time, starts before ends at one instant): one
value sort of int64 keys carrying the event's index in their low bits
(numpy sorts values about twice as fast as it sorts indices; time is
quantised to the bits left, 41 for a million events), made stable on the
run by numpy's radix sort of 16-bit keys.  The order by group is that
order made stable on the group (one or two radix passes), and the events
where a group goes out or comes back, taken in the time order, are the
pool's sweep, with no second sort.
"""

import numpy as np

__all__ = ["time_order", "stable_by", "sweeps"]

#: Most bits of quantised time: a float64 time has no finer steps to order.
_FLOAT_BITS = 52


def _bits(x):
    return int(x).bit_length()


def time_order(major, time, minor):
    """Indices sorting by (major, time, minor), ties in quantised time by index.

    ``major`` (the run) and ``minor`` (0 or 1) are int64.  One value sort of
    keys packing time (quantised to the bits the index leaves, at most 52),
    minor and the index puts the events in time order; that order made stable
    on ``major`` (:func:`stable_by`) is the answer.
    """
    n = time.size
    if n == 0:
        return np.zeros(0, np.int64)
    idx_bits = max(_bits(n - 1), 1)
    time_bits = min(61 - idx_bits, _FLOAT_BITS)
    lo, span = float(time.min()), float(np.ptp(time)) or 1.0
    top = 2 ** time_bits - 1
    scaled = time - lo
    scaled *= top / span
    np.floor(scaled, out=scaled)
    np.clip(scaled, 0, top, out=scaled)
    key = scaled.astype(np.int64)
    key <<= 1
    key |= minor
    key <<= idx_bits
    key |= np.arange(n, dtype=np.int64)
    key.sort()
    return stable_by(key & ((1 << idx_bits) - 1), major)


def stable_by(order, major):
    """``order`` made stable on ``major`` (int64 >= 0): sorted by major, ties kept in ``order``'s order.

    Keys of up to 32 bits take one or two passes of numpy's radix sort (a stable sort of 16-bit keys).
    """
    n = order.size
    if n == 0:
        return order
    keys = major[order]
    bits = _bits(keys.max())
    if bits > 32:
        return order[np.argsort(keys, kind="stable")]
    perm = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if bits > 16:
        perm = perm[np.argsort((keys[perm] >> 16).astype(np.uint16), kind="stable")]
    return order[perm]


def sweeps(model, run, group, start, end, weight, need, runs, horizon):
    """Occupancy of each group, then of the pool.

    Returns, per item, the in-group count before it, whether it put its group
    out and whether that left the job short of pool units; and, per run, the
    stalled hours in [0, horizon]: the union of the times when the out groups
    need more units than the pool holds (overlapping waits count once).
    """
    n = run.size
    run2 = np.concatenate([run, run]).astype(np.int64, copy=False)
    time = np.concatenate([start, end])
    delta = np.concatenate([weight, -weight])
    ends = np.repeat(np.array([0, 1], np.int64), n)
    by_time = time_order(run2, time, ends)
    # by group, then run and time: every part starts and ends in one run, so a group's count is back to its
    # start value when the next run's events begin
    order = stable_by(by_time, np.concatenate([group, group]).astype(np.int64, copy=False))
    step = delta[order]
    cum = np.cumsum(step)
    before = cum - step
    k = model.spares
    item_before = np.empty(2 * n, np.int64)
    item_before[order] = before
    new_out = np.zeros(2 * n, bool)
    new_out[order] = (before <= k) & (cum > k)
    left_out = np.zeros(2 * n, bool)
    left_out[order] = (before > k) & (cum <= k)
    # a group goes out only at a start and comes back only at an end, so in time order (starts first at one
    # instant) the pool's events need no sort of their own
    pts = by_time[(new_out | left_out)[by_time]]
    went_out = new_out[pts]
    pool_delta = np.where(went_out, 1, -1) * np.concatenate([need, need])[pts]
    used = np.cumsum(pool_delta)
    t_sorted, r_sorted = time[pts], run2[pts]
    short_pts = used > model.pool
    # the pool after every event of the same instant (the groups of one burst go out together)
    same_next = np.append((r_sorted[1:] == r_sorted[:-1]) & (t_sorted[1:] == t_sorted[:-1]), False)
    idx = np.where(same_next, pts.size, np.arange(pts.size))
    short_after = short_pts[np.minimum.accumulate(idx[::-1])[::-1]] if pts.size else short_pts
    # a stalled stretch runs from an event that leaves the pool short to the next event of the same run
    # (the last event of a run empties every group, so a short stretch is always closed in its run)
    lo = np.clip(t_sorted[:-1], 0.0, horizon)
    hi = np.clip(t_sorted[1:], 0.0, horizon)
    stretch = np.where(short_pts[:-1] & (r_sorted[:-1] == r_sorted[1:]), hi - lo, 0.0)
    stalled = np.bincount(r_sorted[:-1], weights=stretch, minlength=runs) if pts.size > 1 else np.zeros(runs)
    short = np.zeros(2 * n, bool)
    short[pts] = short_after & went_out
    return item_before[:n], new_out[:n], short[:n], stalled
