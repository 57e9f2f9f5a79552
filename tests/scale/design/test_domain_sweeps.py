"""The simulator's event orders and sweeps (relmodel.scale.design.domain_sweeps) against numpy's lexsort and a
plain Python event loop."""

import numpy as np
import pytest

from relmodel.scale.design import domain_sweeps as S
from relmodel.scale.design.compound import DomainModel


def _random_events(rng, n, runs, majors):
    major = rng.integers(0, majors, n).astype(np.int64)
    time = rng.integers(0, 50, n).astype(float)      # whole hours: many exact ties
    minor = rng.integers(0, 2, n).astype(np.int64)
    return major, time, minor


def test_time_order_is_lexsort_with_ties_by_index():
    rng = np.random.default_rng(3)
    # one run; a few; many (one radix pass); more than 16 bits (two passes); more than 32 (an index sort)
    for n, majors in ((1, 1), (7, 1), (500, 3), (20_000, 400), (20_000, 100_000), (3_000, 2 ** 40)):
        major, time, minor = _random_events(rng, n, 1, majors)
        expected = np.lexsort((np.arange(n), minor, time, major))
        assert S.time_order(major, time, minor).tolist() == expected.tolist()


def test_stable_by_keeps_the_order_within_each_key():
    rng = np.random.default_rng(4)
    order = rng.permutation(5_000)
    major = rng.integers(0, 37, 5_000).astype(np.int64)
    got = S.stable_by(order, major)
    assert got.tolist() == order[np.argsort(major[order], kind="stable")].tolist()
    for wide in (major * 40_000 + 7, np.full(5_000, 2 ** 60, np.int64) - major):  # two radix passes; index sort
        assert S.stable_by(order, wide).tolist() == order[np.argsort(wide[order], kind="stable")].tolist()


def _loop(model, run, group, start, end, weight, need, runs, horizon):
    """Reference: every event of every run in turn (run, time, starts first, then input order)."""
    n = run.size
    events = sorted([(int(run[i]), float(start[i]), 0, i) for i in range(n)] +
                    [(int(run[i]), float(end[i]), 1, i) for i in range(n)])
    before = np.zeros(n, np.int64)
    newly = np.zeros(n, bool)
    short = np.zeros(n, bool)
    stalled = np.zeros(runs)
    count, used, last = {}, {}, {}
    pending = []                                    # starts that put a group out, at the current instant
    for pos, (r, t, is_end, i) in enumerate(events):
        g = (r, int(group[i]))
        c = count.get(g, 0)
        after = c - int(weight[i]) if is_end else c + int(weight[i])
        count[g] = after
        if not is_end:
            before[i] = c
        out_now = c <= model.spares < after            # the group goes out
        back_now = after <= model.spares < c           # the group comes back
        if out_now or back_now:
            if r in last and used[r] > model.pool:      # short since the run's last change of the pool
                stalled[r] += min(max(t, 0.0), horizon) - min(max(last[r], 0.0), horizon)
            used[r] = used.get(r, 0) + (int(need[i]) if out_now else -int(need[i]))
            last[r] = t
        if out_now:
            newly[i] = True
            pending.append((r, i))
        nxt = events[pos + 1] if pos + 1 < len(events) else None
        if nxt is None or (nxt[0], nxt[1]) != (r, t):  # the instant is over: the pool as it stands now
            for rr, j in pending:
                short[j] = used[rr] > model.pool
            pending = []
    return before, newly, short, stalled


@pytest.mark.parametrize("spares,pool,need", [(0, 0, 1), (0, 2, 1), (1, 1, 1), (0, 3, 2)])
def test_sweeps_agree_with_an_event_loop(spares, pool, need):
    rng = np.random.default_rng(11 + spares + pool)
    m = DomainModel(groups=6, trays=4, spares=spares, pool=pool, tray_rate=1e-3)
    runs, n = 5, 300
    run = np.sort(rng.integers(0, runs, n)).astype(np.int64)
    group = rng.integers(0, 6, n).astype(np.int64)
    start = rng.integers(-20, 100, n).astype(float)  # whole hours: ends and starts often at one instant
    end = start + rng.integers(1, 15, n)
    start[:6], end[:6], run[:6], group[:6] = 30.0, 40.0, 2, np.arange(6)  # a burst: six groups out at once
    weight = rng.integers(1, 3, n).astype(np.int64)
    need_arr = np.full(n, need, np.int64)
    got = S.sweeps(m, run, group, start, end, weight, need_arr, runs, 72.0)
    ref = _loop(m, run, group, start, end, weight, need_arr, runs, 72.0)
    for a, b in zip(got[:3], ref[:3]):
        assert a.tolist() == b.tolist()
    assert got[3] == pytest.approx(ref[3], abs=1e-9)
    assert ref[3].sum() > 0 or pool >= 3             # the check can see a stall
