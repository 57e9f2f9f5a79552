"""Interval-censored observations: failures known only to lie between two health checks.

A failure found by a periodic check happened some time after the last check
that saw the unit healthy and before the check that found it down.  Row i is
then the interval ``(lower_i, upper_i]``:

* ``lower == upper``: an exact failure time;
* ``upper == inf``: right-censored at ``lower`` (still healthy at the last check);
* ``lower == 0``: left-censored (already failed at the first check);
* otherwise interval-censored, contributing ``log(S(lower) - S(upper))``
  (Klein and Moeschberger, *Survival Analysis*, 2nd ed., 2003, section 3.5).

:func:`interval_rows` checks such rows; the likelihood is the family's
(:meth:`relmodel.stats.lifetimes.base.Family.interval_loglik`) and
:func:`relmodel.fit` takes them as ``interval=``.  :func:`uptime_intervals`
turns a log with a "last seen healthy" column into such intervals.
"""

import numpy as np
import pandas as pd

from ...errors import FitError
from ...units import hours
from .mle import log1mexp

__all__ = ["interval_rows", "uptime_intervals", "log1mexp"]


def interval_rows(interval):
    """Check ``(lower, upper)`` (hours) and return them as float arrays."""
    try:
        lower, upper = interval
    except (TypeError, ValueError):
        raise FitError("interval must be a pair (lower, upper) of arrays of hours") from None
    lo = np.atleast_1d(np.asarray(hours(lower), float)).ravel()
    up = np.atleast_1d(np.asarray(hours(upper), float)).ravel()
    if lo.shape != up.shape:
        raise FitError(f"interval lower has {lo.size} values but upper has {up.size}")
    bad = np.flatnonzero(~np.isfinite(lo) | (lo < 0) | np.isnan(up) | (up < lo) | (up <= 0))
    if bad.size:
        i = bad[0]
        raise FitError(f"interval row {i}: ({lo[i]!r}, {up[i]!r}) is not valid; need 0 <= lower <= upper, "
                       "upper > 0 (inf = still healthy)")
    return lo, up


def uptime_intervals(source):
    """Per-node uptimes of a log as ``(lower, upper)`` intervals, using its "last seen healthy" column.

    Spells follow ``InterruptionLog.uptimes``: from the end of one outage to
    the start of the next on the same node, the tail to the window end
    censored.  Where the outage row has ``healthy_h`` (read with
    ``read_log(..., last_healthy=...)``), the failure happened after that
    check: ``lower = healthy_h - previous end``, ``upper = start - previous end``.
    ``source`` is the :class:`~relmodel.data.shaping.logs.InterruptionLog`.
    Returns a DataFrame ``node``, ``lower_h``, ``upper_h`` (hours).

    Examples
    --------
    >>> import pandas as pd
    >>> from relmodel.data.shaping.logs import read_log
    >>> df = pd.DataFrame({"began": [0.0, 50.0, 70.0], "ended": [2.0, 51.0, 75.0], "ok": [None, 40.0, 60.0],
    ...                    "host": ["a", "a", "a"]})
    >>> log = read_log(df, start="began", end="ended", node="host", time_unit="h", window=(0.0, 100.0),
    ...                last_healthy="ok")
    >>> print(uptime_intervals(log).to_string(index=False))   # failed between the last check and the outage
    node  lower_h  upper_h
       a     38.0     48.0
       a      9.0     19.0
       a     25.0      inf
    """
    ev = source.events
    if "healthy_h" not in ev.columns:
        raise FitError("the log has no 'last seen healthy' times; read it with read_log(..., last_healthy=column)")
    ev = ev[~ev["overlaps"].astype(bool)].sort_values(["node", "start_h"], kind="stable")
    prev_end = ev.groupby("node", sort=False)["end_h"].shift(1)
    keep = prev_end.notna() & np.isfinite(prev_end)
    start, end0 = ev["start_h"][keep].to_numpy(), prev_end[keep].to_numpy()
    healthy = ev["healthy_h"][keep].to_numpy(float)
    lower = np.where(np.isfinite(healthy), np.clip(healthy - end0, 0.0, start - end0), start - end0)
    last = ev.groupby("node", sort=False).tail(1)
    tail = source.window_h[1] - last["end_h"].to_numpy(float)
    ok = np.isfinite(tail) & (tail > 0)
    out = pd.DataFrame({"node": np.concatenate([ev["node"][keep].to_numpy(), last["node"].to_numpy()[ok]]),
                        "lower_h": np.concatenate([lower, tail[ok]]),
                        "upper_h": np.concatenate([start - end0, np.full(int(ok.sum()), np.inf)])})
    return out[out["upper_h"] > 0].reset_index(drop=True)
