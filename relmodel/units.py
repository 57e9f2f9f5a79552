"""Durations and rate units.

Inside relmodel every duration is a float in hours.  :func:`hours` turns
whatever a user hands in (a number of hours, a ``datetime.timedelta``, a
``pandas.Timedelta``, a string such as ``"45s"`` or ``"2d"``, or an array of
any of these) into float hours.  Every public duration argument goes through it.
"""

import datetime as _dt
import re

import numpy as np

from .errors import DurationError, ModelInputError, UnitError
from .base.escape import brief

__all__ = [
    "hours",
    "unit_hours",
    "HOURS_PER_YEAR",
    "fit_from_mtbf",
    "mtbf_from_fit",
    "afr_from_mtbf",
]

HOURS_PER_YEAR = 8766.0  # 365.25 days; the convention for annualised failure rates

_UNITS = {
    "ns": 1e-9 / 3600, "us": 1e-6 / 3600, "ms": 1e-3 / 3600,
    "s": 1 / 3600, "sec": 1 / 3600, "secs": 1 / 3600, "second": 1 / 3600, "seconds": 1 / 3600,
    "m": 1 / 60, "min": 1 / 60, "mins": 1 / 60, "minute": 1 / 60, "minutes": 1 / 60,
    "h": 1.0, "hr": 1.0, "hrs": 1.0, "hour": 1.0, "hours": 1.0,
    "d": 24.0, "day": 24.0, "days": 24.0,
    "w": 168.0, "wk": 168.0, "week": 168.0, "weeks": 168.0,
    "y": HOURS_PER_YEAR, "yr": HOURS_PER_YEAR, "year": HOURS_PER_YEAR, "years": HOURS_PER_YEAR,
}

_PART = re.compile(r"\s*((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-zA-Z]+)\s*")  # no sign: one in front
_VALID = '"45s", "10min", "3h", "2d", "1h30min", or a number of hours'


def unit_hours(unit):
    """Hours in one ``unit`` (e.g. ``"min"`` -> 1/60).  Raises :class:`UnitError`.

    Returns hours (a float).

    Examples
    --------
    >>> unit_hours("d"), unit_hours("h")
    (24.0, 1.0)
    >>> round(unit_hours("min") * 60, 12)
    1.0
    """
    key = str(unit).strip().lower()
    if key not in _UNITS:
        raise UnitError(
            f"unknown time unit {unit!r}; valid units are "
            + ", ".join(sorted(set(_UNITS), key=_UNITS.get))
        )
    return _UNITS[key]


def _parse_string(text):
    s = text.strip()
    if not s:
        raise DurationError(f"empty duration string; write it like {_VALID}")
    try:
        value = float(s)  # a bare number is hours
    except ValueError:
        value = None
    if value is not None:
        if not np.isfinite(value):
            raise DurationError(f"cannot read duration {text!r}: not a finite number; write it like {_VALID}")
        return value
    sign, s = (-1.0 if s[0] == "-" else 1.0, s[1:]) if s[0] in "+-" else (1.0, s)
    pos, total = 0, 0.0
    for m in _PART.finditer(s):
        if m.start() != pos:
            break
        key = m.group(2).lower()
        if key not in _UNITS:
            raise DurationError(f"cannot read duration {text!r}: unknown unit {m.group(2)!r}; write it like {_VALID}")
        total += float(m.group(1)) * _UNITS[key]
        pos = m.end()
    if pos != len(s) or pos == 0:
        raise DurationError(f"cannot read duration {text!r}; write it like {_VALID} "
                            "(a sign only in front of the whole, as in -1h30min)")
    if not np.isfinite(total):
        raise DurationError(f"duration {text!r} is too large to be a number of hours")
    return sign * total


def _scalar(x):
    if isinstance(x, bool):
        raise DurationError(f"a duration cannot be a bool ({x!r}); write it like {_VALID}")
    if isinstance(x, np.timedelta64):  # before np.integer: timedelta64 subclasses it
        return float(x / np.timedelta64(1, "ns")) / 3.6e12
    if isinstance(x, (int, float, np.integer, np.floating)):
        try:
            return float(x)
        except OverflowError:
            raise DurationError(f"duration {brief(x)} is too large to be a number of hours; "
                                f"write it like {_VALID}") from None
    if isinstance(x, str):
        return _parse_string(x)
    if isinstance(x, _dt.timedelta):  # pandas.Timedelta subclasses timedelta
        return x.total_seconds() / 3600.0
    raise DurationError(f"cannot read {x!r} (type {type(x).__name__}) as a duration; write it like {_VALID}")


def hours(x):
    """Return ``x`` as float hours.

    Accepts a number (already hours), ``datetime.timedelta``,
    ``pandas.Timedelta``, ``numpy.timedelta64``, a string such as ``"45s"``,
    ``"10min"``, ``"3h"``, ``"2d"`` or ``"1h30min"``, or a list/array/Series of
    these (returned as a float ndarray).  NaN passes through as NaN.

    >>> hours("90min")
    1.5

    Examples
    --------
    >>> hours("1h30min"), hours("45s"), hours(2)
    (1.5, 0.0125, 2.0)
    >>> import datetime
    >>> hours(datetime.timedelta(minutes=45))
    0.75
    """
    if x is None:
        raise DurationError(f"a duration is required, got None; write it like {_VALID}")
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "iuf":
            return x.astype(float)
        if x.dtype.kind == "m":   # NaT is missing (NaN), not the most negative count of nanoseconds
            ns = x.astype("timedelta64[ns]")
            return np.where(np.isnat(ns), np.nan, ns.astype(np.int64) / 3.6e12)
        return np.array([_scalar(v) for v in x.ravel()], dtype=float).reshape(x.shape)
    if hasattr(x, "to_numpy") and not isinstance(x, _dt.timedelta):  # Series / Index
        return hours(x.to_numpy())
    if isinstance(x, (list, tuple)):
        return np.array([_scalar(v) for v in x], dtype=float)
    return _scalar(x)


def _per(numerator, x, what="an MTBF in hours", zero=False):
    """``numerator / x`` as a float for a scalar, an ndarray for an array; ``x`` must be positive
    (or zero, with ``zero``)."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ModelInputError(f"{what} must be a positive number, got {x!r}") from None
    low = arr < 0 if zero else arr <= 0
    if np.any(np.isnan(arr)) or np.any(low):
        bound = "zero or more" if zero else "positive"
        raise ModelInputError(f"{what} must be {bound} (infinity allowed), got {x!r}")
    with np.errstate(divide="ignore"):
        out = numerator / arr
    return out if np.ndim(x) else float(out)


def fit_from_mtbf(mtbf_h):
    """FIT (failures per 10^9 device-hours) for an MTBF in hours.

    Examples
    --------
    >>> fit_from_mtbf(1_000_000)          # a part with a 10^6 h MTBF
    1000.0
    """
    return _per(1e9, mtbf_h)


def mtbf_from_fit(fit):
    """MTBF in hours for a FIT rate.

    Examples
    --------
    >>> mtbf_from_fit(1000)               # hours
    1000000.0
    """
    return _per(1e9, fit, "a FIT rate (failures per 10^9 device-hours)", zero=True)


def afr_from_mtbf(mtbf_h):
    """Annualised failure rate, 8,766 h / MTBF (a fraction; valid for small rates).

    Examples
    --------
    >>> round(afr_from_mtbf(87_660), 6)   # 10% of units fail per year
    0.1
    """
    return _per(HOURS_PER_YEAR, mtbf_h)
