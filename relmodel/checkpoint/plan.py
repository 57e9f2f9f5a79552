"""Checkpoint intervals side by side: the table behind ``relmodel interval``."""

import warnings

from ..defaults import RESTART
from ..errors import ArgumentOrderWarning
from ..units import hours
from .intervals import _daly, _nonnegative, _optimal, _positive, best_step_interval, time_breakdown
from .multilevel import async_breakdown, async_optimal_interval
from .order import check_order

__all__ = ["compare_intervals", "interval_rows"]


def compare_intervals(mtbf, ckpt_cost, restart=RESTART, *, work=None, step=None, persist=None):
    """Young, Daly and exact intervals (and the best whole-step one) with ETTR and breakdown.

    One row per method: interval in hours and minutes, ETTR, the shares of
    wall time spent writing checkpoints, re-doing lost work and restarting,
    and expected failures per day; with ``work``, the expected wall time.
    With ``persist``, ``ckpt_cost`` is also read as the blocking stall of an
    asynchronous checkpoint whose background persist takes ``persist``, and
    a row "async exact" gives its best interval (:mod:`relmodel.checkpoint.multilevel`).

    ``mtbf``, ``ckpt_cost``, ``restart`` (default 10 min) and the keyword-only
    ``work``, ``step`` and ``persist`` are durations; ``interval_h`` and
    ``wall_h`` are hours, the shares fractions of the wall time.

    Examples
    --------
    >>> df = compare_intervals("3h", "45s", "10min")
    >>> [(r.method, round(r.interval_min, 2), round(r.ettr, 4)) for r in df.itertuples()]
    [('Young', 16.43, 0.8622), ('Daly', 15.94, 0.8622), ('exact', 15.94, 0.8622)]
    """
    m, d = float(_positive("mtbf", mtbf)), float(_positive("ckpt_cost", ckpt_cost))
    r = float(_nonnegative("restart", restart))
    check_order("compare_intervals(mtbf, ckpt_cost, restart, *, work, step, persist)", mtbf=m, ckpt_cost=d,
                work=None if work is None else hours(work), restart=r)
    import pandas as pd
    with warnings.catch_warnings():  # checked once above
        warnings.simplefilter("ignore", ArgumentOrderWarning)
        return pd.DataFrame(_rows(m, d, r, work, step, persist))


def interval_rows(mtbf, ckpt_cost, restart=RESTART, *, work=None, step=None, persist=None):
    """The rows of :func:`compare_intervals` as a list of dicts (column to float or str), without pandas."""
    m, d = float(_positive("mtbf", mtbf)), float(_positive("ckpt_cost", ckpt_cost))
    r = float(_nonnegative("restart", restart))
    check_order("compare_intervals(mtbf, ckpt_cost, restart, *, work, step, persist)", mtbf=m, ckpt_cost=d,
                work=None if work is None else hours(work), restart=r)
    with warnings.catch_warnings():  # checked once above
        warnings.simplefilter("ignore", ArgumentOrderWarning)
        return _rows(m, d, r, work, step, persist)


def _rows(m, d, r, work, step, persist):
    taus = {"Young": (2.0 * d * m) ** 0.5, "Daly": _daly(m, d), "exact": _optimal(m, d)}
    if step is not None:
        taus["whole steps"] = best_step_interval(step, m, d, r).interval_h
    if persist is not None:
        taus["async exact"] = async_optimal_interval(m, d, persist, r)
    w = 1.0 if work is None else hours(work)
    rows = []
    for name, tau in taus.items():
        if name == "async exact":
            b = async_breakdown(w, tau, m, d, persist, r)
        else:
            b = time_breakdown(w, tau, m, d, r)
        rows.append({
            "method": name, "interval_h": float(tau), "interval_min": 60 * float(tau), "ettr": float(b.ettr),
            "checkpoint_share": float(b.checkpoint_h / b.wall_h), "lost_share": float(b.lost_h / b.wall_h),
            "restart_share": float(b.restart_time_h / b.wall_h), "failures_per_day": 24.0 / m,
        })
        if work is not None:
            rows[-1]["wall_h"] = float(b.wall_h)
    return rows
