"""Asynchronous and two-level checkpointing: reductions, event-loop checks, optima, bad input."""

import numpy as np
import pytest

from relmodel.checkpoint import ettr, optimal_interval
from relmodel.errors import ArgumentOrderWarning, ModelInputError
from relmodel.checkpoint import time_breakdown
from relmodel.checkpoint.multilevel import (async_breakdown, async_ettr, async_optimal_interval, two_level_breakdown,
                                 two_level_ettr, two_level_optimum)


def test_async_reduces_to_daly_without_persist():
    t, m = np.geomspace(0.01, 10, 30), 3.0
    np.testing.assert_allclose(async_ettr(t, m, 0.02, 0.0, 0.2), ettr(t, m, 0.02, 0.2), rtol=1e-13)


def test_async_persist_acts_like_extra_restart_when_interval_covers_it():
    t = np.array([0.2, 0.5, 2.0])
    np.testing.assert_allclose(async_ettr(t, 3.0, 0.02, 0.15, 0.2), ettr(t, 3.0, 0.02, 0.35), rtol=1e-13)


def test_async_beats_blocking_write_of_the_same_total_cost():
    assert async_ettr(0.3, 3.0, 0.005, 0.1, 0.2) > ettr(0.3, 3.0, 0.105, 0.2)


def test_async_breakdown_adds_up():
    for tau in (0.05, 0.2, 1.0):
        b = async_breakdown(100, tau, 3.0, 0.01, 0.1, 0.2)
        assert b.work_h + b.checkpoint_h + b.lost_h + b.restart_time_h == pytest.approx(b.wall_h, rel=1e-12)
        assert b.ettr == pytest.approx(async_ettr(tau, 3.0, 0.01, 0.1, 0.2), rel=1e-12)
        assert b.lost_h >= 0 and b.restart_time_h >= 0


@pytest.mark.parametrize("m, db, p, r", [(3.0, 0.01, 0.1, 0.2), (3.0, 0.01, 1.0, 0.2), (0.5, 0.02, 2.0, 0.1)])
def test_async_optimum_is_global(m, db, p, r):
    grid = np.geomspace(1e-3, 50, 20001)
    best = async_optimal_interval(m, db, p, r)
    assert async_ettr(best, m, db, p, r) >= async_ettr(grid, m, db, p, r).max() - 1e-12


def _async_run(nseg, tau, db, p, r, m, rng):
    """One run of the asynchronous model, event by event: (wall time, restart time)."""
    exp = lambda: rng.exponential(m)  # noqa: E731
    t, fail, durable, prog, pending = 0.0, exp(), 0, 0, None  # progress in segments
    rest = 0.0

    def survive(until):
        nonlocal t
        if fail < until:
            return False
        t = until
        return True

    while True:
        ok = True
        if prog < nseg:
            ok = survive(t + tau)
            if ok:
                prog += 1
        if ok and pending is not None:
            ok = survive(max(t, pending[1]))
            if ok:
                durable, pending = pending[0], None
        if ok and prog == nseg and durable == nseg:
            return t, rest
        if ok and (pending is None and durable < prog):
            ok = survive(t + db)
            if ok:
                pending = (prog, t + p)
        if ok:
            continue
        t = fail  # failure: keep a persist that finished before it, then restart
        if pending is not None and pending[1] <= t:
            durable = pending[0]
        pending, prog = None, durable
        fail = t + exp()
        while fail < t + r:
            rest += fail - t
            t, fail = fail, fail + exp()
        t, rest = t + r, rest + r


@pytest.mark.parametrize("tau, db, p, r, m", [(0.3, 0.02, 0.1, 0.2, 1.5), (0.1, 0.02, 0.25, 0.1, 1.0)])
def test_async_formula_against_event_loop(tau, db, p, r, m):
    rng = np.random.default_rng(2)
    n, reps = 40, 3000
    walls, rests = np.array([_async_run(n, tau, db, p, r, m, rng) for _ in range(reps)]).T
    # exact for a finite run: first durable checkpoint needs tau + db + p from a fresh start,
    # then n - 1 steady cycles (module docstring)
    span = tau + db + p
    first = m * np.expm1(span / m) * np.exp(r / m)
    want = first + (n - 1) * tau / async_ettr(tau, m, db, p, r)
    se = walls.std(ddof=1) / np.sqrt(reps)
    assert abs(walls.mean() - want) < 2.576 * se
    # the restart part of the breakdown: a first failure (prob 1 - e^{-span/M}) costs
    # M (e^{R/M} - 1) e^{span/M} of restarts; then the steady cycles
    steady = async_breakdown(n * tau, tau, m, db, p, r).restart_time_h / n
    want_rest = -np.expm1(-span / m) * m * np.expm1(r / m) * np.exp(span / m) + (n - 1) * steady
    se = rests.std(ddof=1) / np.sqrt(reps)
    assert abs(rests.mean() - want_rest) < 2.576 * se


def _two_level_run(nper, k, tau, d1, d2, f, r1, r2, m, rng):
    """One two-level run, event by event: (wall time, restart time)."""
    t, fail, rest = 0.0, rng.exponential(m), 0.0
    done = l1 = l2 = 0
    mode = None
    while done < nper * k or mode:
        span = {"r1": r1, "r2": r2}.get(mode, tau + (d2 if (done + 1) % k == 0 else d1))
        if fail < t + span:
            rest += (fail - t) if mode else 0.0
            t, fail = fail, fail + rng.exponential(m)
            fast = rng.random() < f
            if mode == "r2" or not fast:
                mode, done, l1 = "r2", l2, l2
            else:
                mode, done = "r1", l1
            continue
        t += span
        if mode:
            rest += span
            mode = None
            continue
        done += 1
        l1 = done
        l2 = done if done % k == 0 else l2
    return t, rest


@pytest.mark.parametrize("k, f", [(1, 0.5), (4, 0.7), (6, 0.2)])
def test_two_level_formula_against_event_loop(k, f):
    tau, d1, d2, r1, r2, m = 0.25, 0.01, 0.08, 0.05, 0.3, 1.2
    rng = np.random.default_rng(k)
    nper, reps = max(60 // k, 8), 2000
    walls, rests = np.array([_two_level_run(nper, k, tau, d1, d2, f, r1, r2, m, rng) for _ in range(reps)]).T
    want = nper * k * tau / two_level_ettr(tau, m, d1, d2, r1, r2, k=k, fast_fraction=f)
    se = walls.std(ddof=1) / np.sqrt(reps)
    assert abs(walls.mean() - want) < 2.576 * se
    b = two_level_breakdown(nper * k * tau, tau, m, d1, d2, r1, r2, k=k, fast_fraction=f)
    assert b.wall_h == pytest.approx(want)
    se = rests.std(ddof=1) / np.sqrt(reps)
    assert abs(rests.mean() - b.restart_time_h) < 2.576 * se


def test_two_level_reduces_to_daly():
    t = np.geomspace(0.05, 5, 20)
    # every checkpoint is slow and no failure can use the fast level
    np.testing.assert_allclose(two_level_ettr(t, 3.0, 0.01, 0.05, 0.1, 0.2, k=1, fast_fraction=0.0),
                               ettr(t, 3.0, 0.05, 0.2),
                               rtol=1e-12)
    # every failure recovers from the fast level and the slow level costs no more
    np.testing.assert_allclose(two_level_ettr(t, 3.0, 0.01, 0.01, 0.1, 0.9, k=7, fast_fraction=1.0),
                               ettr(t, 3.0, 0.01, 0.1),
                               rtol=1e-12)
    # the two levels are the same
    np.testing.assert_allclose(two_level_ettr(t, 3.0, 0.02, 0.02, 0.3, 0.3, k=1, fast_fraction=0.4),
                               ettr(t, 3.0, 0.02, 0.3),
                               rtol=1e-12)


def test_two_level_breakdown_reduces_to_daly_and_adds_up():
    a = two_level_breakdown(50, 0.3, 3.0, 0.01, 0.05, 0.1, 0.2, k=1, fast_fraction=0.0)
    b = time_breakdown(50, 0.3, 3.0, 0.05, 0.2)
    for name in ("wall_h", "checkpoint_h", "lost_h", "restart_time_h"):
        assert getattr(a, name) == pytest.approx(getattr(b, name), rel=1e-12)
    c = two_level_breakdown(50, 0.1, 3.0, 5 / 3600, 2 / 60, 1 / 60, 1 / 6, k=10, fast_fraction=0.8)
    assert c.work_h + c.checkpoint_h + c.lost_h + c.restart_time_h == pytest.approx(c.wall_h, rel=1e-12)
    assert c.ettr == pytest.approx(two_level_ettr(0.1, 3.0, 5 / 3600, 2 / 60, 1 / 60, 1 / 6, k=10,
                                                  fast_fraction=0.8))
    assert min(c.lost_h, c.restart_time_h) > 0


def test_two_level_optimum_beats_single_level_and_grid():
    plan = two_level_optimum(3.0, "5s", "2min", "1min", "10min", fast_fraction=0.8)
    assert plan.ettr >= plan.single_level_ettr
    assert plan.slow_interval_h == pytest.approx(plan.k * plan.fast_interval_h)
    grid = np.geomspace(0.005, 3, 400)
    for k in range(1, 30):
        e = two_level_ettr(grid, 3.0, 5 / 3600, 2 / 60, 1 / 60, 1 / 6, k=k, fast_fraction=0.8)
        assert plan.ettr >= e.max() - 1e-9
    assert plan.to_frame().shape[0] == 2 and "Two-level" in plan._repr_html_()


def test_two_level_without_fast_recoveries_chooses_slow_only():
    plan = two_level_optimum(3.0, "5s", "2min", "1min", "10min", fast_fraction=0.0)
    assert plan.k == 1
    assert plan.fast_interval_h == pytest.approx(float(optimal_interval(3.0, 2 / 60)), rel=1e-5)
    assert plan.ettr == pytest.approx(plan.single_level_ettr, rel=1e-9)


@pytest.mark.parametrize("call", [
    lambda: async_ettr(0.3, -1, 0.01, 0.1),
    lambda: async_ettr(0, 3, 0.01, 0.1),
    lambda: async_ettr(0.3, 3, 0.01, -0.1),
    lambda: two_level_ettr(0.3, 3, 0.01, 0.05, k=0, fast_fraction=0.5),
    lambda: two_level_ettr(0.3, 3, 0.01, 0.05, k=2.5, fast_fraction=0.5),
    lambda: two_level_ettr(0.3, 3, 0.01, 0.05, k=2, fast_fraction=1.5),
    lambda: two_level_ettr(0.3, 3, 0.01, 0.05, k=2, fast_fraction=np.nan),
    lambda: two_level_optimum(3, 0, 0.05, fast_fraction=0.5),
])
def test_bad_input(call):
    with pytest.raises(ModelInputError):
        call()


def test_huge_costs_give_zero_not_nan():
    with pytest.warns(ArgumentOrderWarning):  # costs above the MTBF: maybe swapped, still answered
        assert async_ettr(100.0, 0.01, 1.0, 1.0, 1.0) == 0.0
        assert two_level_ettr(100.0, 0.01, 1.0, 2.0, 1.0, 1.0, k=3, fast_fraction=0.5) == 0.0
