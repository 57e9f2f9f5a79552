"""The observation window of a log, and its times as hours from an origin.

A window is either given (``(t0, t1)`` in the same form as the log's times,
or a length such as ``"54d"``: that long from the first outage's start) or
taken from the events: first start to last start or end.  A log whose
window cannot be known from its events (one event, or every event starting
at one time) needs an explicit window: the span of a single outage is not an
observation period.
"""

import math
from datetime import datetime

import numpy as np
import pandas as pd

from ...errors import DurationError, InputTypeError, WindowError
from ...units import hours, unit_hours
from .times import MAX_ABS_HOURS, PLAUSIBLE_RANGE

__all__ = ["to_hours", "hours_since", "WINDOW_HINT", "check_observed_time"]

WINDOW_HINT = ("pass window=(t0, t1), the start and end of observation, in the same form as the times, "
               "or its length from the first outage, e.g. window='54d'")


def check_observed_time(source):
    """``source`` (a log), or a WindowError when it covers no time (its window starts where it ends), so no
    rate can be told from it: one line of a kernel log, or a Slurm export whose interruptions are at one instant."""
    t0, t1 = (float(x) for x in source.window_h)
    if t1 > t0:
        return source
    kind = type(source).__name__
    how = ("a kernel log is observed from its first line to its last" if kind == "XidLog" else
           "a Slurm export is observed over the job's run" if kind == "JobLog" else WINDOW_HINT)
    raise WindowError(f"{getattr(source, 'name', 'the log')}: the log covers no time (one event, or events all at one "
                      f"instant), so no failure rate can be told from it; {how}: give the whole log")


def to_hours(kind, t_start, t_end, window, time_format, time_unit, label):
    """Return ``(origin, start_h, end_h, window_h)``; origin is None for numeric times."""
    length = _length(window)
    if length is not None:
        return _from_first(kind, t_start, t_end, length)
    if window is not None:
        window = _pair(window)
    if kind == "numeric":
        s_h = np.asarray(t_start, float)
        e_h = np.full(s_h.shape, np.nan) if t_end is None else np.asarray(t_end, float)
        if window is None:
            win = _inferred(s_h, e_h, label)
        else:
            f = unit_hours(time_unit)
            win = _ordered(tuple(_number(v, i) * f for i, v in enumerate(window)), window)
        return None, s_h, e_h, win
    if window is None:
        origin = t_start.min()
    else:
        origin = _as_timestamp(window[0], t_start, time_format, 0)
    s_h = hours_since(t_start, origin)
    e_h = np.full(s_h.shape, np.nan) if t_end is None else hours_since(t_end, origin)
    if window is None:
        _inferred(s_h, e_h, label)
        win = (0.0, float(np.nanmax(np.concatenate([s_h, e_h]))))
    else:
        t1 = _as_timestamp(window[1], t_start, time_format, 1)
        win = _ordered((0.0, (_micros(t1) - _micros(origin)) / 3.6e9), window)
    return origin, s_h, e_h, win


def _length(window):
    """Hours of a window given as a length ("54d", a timedelta), or None when it is not one."""
    if isinstance(window, str) or hasattr(window, "total_seconds"):
        try:
            h = hours(window)
        except (DurationError, ValueError, TypeError):
            raise WindowError(f"window {window!r:.60} is neither a length such as '54d' nor a pair (t0, t1); "
                              + WINDOW_HINT) from None
        if not (math.isfinite(h) and 0 < h <= MAX_ABS_HOURS):
            raise WindowError(f"window {window!r:.60} must be a length > 0 such as '54d' or '12h'")
        return h
    return None


def _from_first(kind, t_start, t_end, length):
    """A window of ``length`` hours from the first outage's start."""
    if kind == "numeric":
        s_h = np.asarray(t_start, float)
        e_h = np.full(s_h.shape, np.nan) if t_end is None else np.asarray(t_end, float)
        t0 = float(s_h.min())
        return None, s_h, e_h, (t0, t0 + length)
    origin = t_start.min()
    s_h = hours_since(t_start, origin)
    e_h = np.full(s_h.shape, np.nan) if t_end is None else hours_since(t_end, origin)
    return origin, s_h, e_h, (0.0, length)


def hours_since(times, origin):
    """Hours from ``origin`` to each of ``times`` (NaN for NaT), in microseconds so that spans beyond
    the nanosecond range of pandas (about 292 years, e.g. 1900 to 2200) do not overflow."""
    t, o = pd.Series(times), pd.Timestamp(origin)
    if (t.dt.tz is None) != (o.tzinfo is None):  # aware against naive: pandas' own error
        return ((t - o) / pd.Timedelta(hours=1)).to_numpy(float)
    if t.dt.tz is not None:
        t = t.dt.tz_convert("UTC").dt.tz_localize(None)
    values = t.to_numpy()
    unit = np.datetime_data(values.dtype)[0]
    if unit in _TO_MICROS:  # the same integers as pandas' as_unit("us"), without its checked copy
        us = values.view(np.int64) * _TO_MICROS[unit]
    else:
        us = t.dt.as_unit("us").to_numpy().astype(np.int64)
    us -= _micros(o)
    out = us / 3.6e9
    del us
    out[np.isnat(values)] = np.nan
    return out


_TO_MICROS = {"s": 10**6, "ms": 10**3, "us": 1}  # exact: times lie within a few centuries of 1970


def _micros(ts):
    """Microseconds since 1970 (UTC for an aware time) of one Timestamp."""
    ts = pd.Timestamp(ts)
    if ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return int(ts.as_unit("us").asm8.astype(np.int64))


def _pair(window):
    if isinstance(window, (str, bytes, dict)) or not hasattr(window, "__len__"):
        raise WindowError(f"window must be a pair (t0, t1); got {type(window).__name__} {window!r:.60}")
    if len(window) != 2:
        raise WindowError(f"window must be a pair (t0, t1), the start and end of observation; got "
                          f"{len(window)} value{'s' if len(window) != 1 else ''}: {list(window)!r:.80}")
    return tuple(window)


def _number(v, i):
    name = ("t0", "t1")[i]
    if isinstance(v, bool) or v is None:
        raise WindowError(f"window {name} must be a number in time_unit; got {v!r}")
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise WindowError(f"window {name} must be a number in time_unit (the log's times are numbers); "
                          f"got {v!r}") from None
    if not math.isfinite(x):
        raise WindowError(f"window {name} must be finite; got {v!r}")
    return x


def _ordered(win, given):
    t0, t1 = win
    if not all(math.isfinite(x) and abs(x) <= MAX_ABS_HOURS for x in win):
        raise WindowError(f"window {given!r} is out of range: its ends must be finite and within "
                          f"{MAX_ABS_HOURS:,.0f} h of the origin")
    if not t1 > t0:
        raise WindowError(f"window {given!r} ends {'before' if t1 < t0 else 'when'} it starts; "
                          "give (t0, t1) with t1 after t0")
    return float(t0), float(t1)


def _inferred(s_h, e_h, label):
    t0, t1 = float(s_h.min()), float(np.nanmax(np.concatenate([s_h, e_h])))
    if not float(s_h.max()) > t0 or not t1 > t0:
        what = "one event" if s_h.size == 1 else f"{s_h.size} events that all start at one time"
        raise WindowError(f"{label}: the observation window cannot be known from {what} (the span of an "
                          f"outage is not a period of observation); {WINDOW_HINT}")
    return t0, t1


def _timestamp(value, fmt):
    """``value`` as a Timestamp; one beyond pandas' nanosecond range (1677 to 2262) at a coarser unit."""
    try:
        return pd.Timestamp(pd.to_datetime(value, format=fmt))
    except pd.errors.OutOfBoundsDatetime:
        return pd.Timestamp(datetime.strptime(value, fmt) if fmt else value)


def _as_timestamp(value, like, time_format, i):
    name = ("t0", "t1")[i]
    if isinstance(value, (bool, int, float, np.number)) or value is None:
        raise WindowError(f"window {name} must be a timestamp like the log's times (e.g. '2024-03-30'); "
                          f"got {value!r}")
    if not isinstance(value, (str, pd.Timestamp, np.datetime64)) and not hasattr(value, "year"):
        raise InputTypeError(f"window {name} must be a timestamp; got {type(value).__name__} {value!r:.60}")
    try:
        fmt = time_format if isinstance(value, str) else None
        ts = _timestamp(value, fmt)
    except (ValueError, TypeError, OverflowError):
        raise WindowError(f"window {name}: cannot read {value!r} as a timestamp"
                          + (f" in the format {time_format!r}" if time_format else " (e.g. '2024-03-30 12:00')")) from None
    if pd.isna(ts):
        raise WindowError(f"window {name} is missing (NaT); give a timestamp")
    naive = ts.tz_convert("UTC").tz_localize(None) if ts.tzinfo is not None else ts
    if not PLAUSIBLE_RANGE[0] <= naive < PLAUSIBLE_RANGE[1]:
        raise WindowError(f"window {name} {value!s:.40} is outside the dates an outage log can hold "
                          f"({PLAUSIBLE_RANGE[0]:%Y-%m-%d} up to {PLAUSIBLE_RANGE[1]:%Y-%m-%d}); give the "
                          "observation window's real start and end")
    tz = getattr(like.dt, "tz", None)
    if tz is not None and ts.tzinfo is None:
        ts = ts.tz_localize("UTC")
    elif tz is None and ts.tzinfo is not None:
        ts = ts.tz_convert("UTC").tz_localize(None)
    return ts
