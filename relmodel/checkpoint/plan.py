"""Checkpoint intervals side by side: the table behind ``relmodel interval``."""

import pandas as pd

from .intervals import (best_step_interval, daly_interval, optimal_interval, time_breakdown,
                         young_interval)
from ..errors import ModelInputError
from .multilevel import async_breakdown, async_optimal_interval
from ..units import hours

__all__ = ["compare_intervals"]


def compare_intervals(mtbf, ckpt_cost, restart=0.0, work=None, step=None, persist=None):
    """Young, Daly and exact intervals (and the best whole-step one) with ETTR and breakdown.

    One row per method: interval in hours and minutes, ETTR, the shares of
    wall time spent writing checkpoints, re-doing lost work and restarting,
    and expected failures per day; with ``work``, the expected wall time.
    With ``persist``, ``ckpt_cost`` is also read as the blocking stall of an
    asynchronous checkpoint whose background persist takes ``persist``, and
    a row "async exact" gives its best interval (:mod:`relmodel.checkpoint.multilevel`).
    """
    m, d, r = hours(mtbf), hours(ckpt_cost), hours(restart)
    taus = {"Young": young_interval(d, m), "Daly": daly_interval(d, m), "exact": optimal_interval(m, d)}
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
    return pd.DataFrame(rows)
