"""Short outages: drop those under a minimum length, and show how outage lengths are spread.

Many logs record every reboot as an outage.  :func:`drop_short_outages` removes
outages shorter than ``min_outage`` (each row's own end minus start; rows with
an unknown end are kept) and lists them in ``problems()``;
:func:`outage_durations` gives the share of outages under 1, 10 and 60 minutes
so a reader sees when most "failures" are reboots.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import DurationError, MissingColumnError, OutageThresholdError
from ...tables import Result, count, duration, html_table, pct
from ...units import hours
from .clean import flag_rows
from .logs import LogWarning
from relmodel.base.escape import html_paragraphs

__all__ = ["drop_short_outages", "outage_durations", "OutageDurations", "SHORT_LIMITS_MIN", "REBOOT_MIN"]

#: Limits (minutes) of the shares shown on the data page.
SHORT_LIMITS_MIN = (1, 10, 60)
#: Outages under this many minutes are counted as reboots.
REBOOT_MIN = 10
# Times read from text round by about a microsecond: an outage this close to a limit counts as at it.
_TOL_H = 1e-9


def _min_hours(min_outage):
    h = hours(min_outage)
    if not (np.isfinite(h) and h > 0):
        raise DurationError(f"min_outage must be a duration > 0 such as '10min' or '1h', got {min_outage!r}")
    return float(h)


def drop_short_outages(source, min_outage):
    """``source`` without its outages shorter than ``min_outage``; ``None`` returns ``source`` unchanged.

    ``min_outage`` is a duration (hours as a float, or a string such as ``"10min"``).

    The dropped rows are listed in ``problems()`` ("shorter than min_outage",
    "dropped") and a :class:`LogWarning` says how many were dropped.  Rows with
    an unknown end are kept.  A log without end times raises
    :class:`~relmodel.errors.MissingColumnError`; a threshold that would drop
    every outage raises :class:`~relmodel.errors.OutageThresholdError`.

    Examples
    --------
    >>> import warnings, pandas as pd, relmodel
    >>> df = pd.DataFrame({"start": ["2024-01-01 00:00", "2024-01-02 00:00", "2024-01-03 00:00"],
    ...                    "end": ["2024-01-01 00:05", "2024-01-02 02:00", "2024-01-03 00:30"],
    ...                    "node": ["a", "b", "c"]})
    >>> log = relmodel.read_log(df, start="start", end="end", node="node")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # it warns that 1 of 3 outages was dropped
    ...     len(drop_short_outages(log, "10min"))
    2
    """
    if min_outage is None:
        return source
    limit_h = _min_hours(min_outage)
    ev = source.events
    end = ev["end_h"].to_numpy(float) if "end_h" in ev else np.full(len(ev), np.nan)
    if not np.isfinite(end).any():
        raise MissingColumnError(f"{source.name}: min_outage needs outage end times; pass end (the column of "
                                 "outage end times) or leave min_outage unset")
    with np.errstate(invalid="ignore"):
        short = np.isfinite(end) & (end - ev["start_h"].to_numpy(float) < limit_h - _TOL_H)
    n = int(short.sum())
    if not n:
        return source
    if n == len(ev):
        raise OutageThresholdError(
            f"{source.name}: min_outage={min_outage!r} would drop all {n:,} outages (the longest lasted "
            f"{duration(float(np.nanmax(end - ev['start_h'].to_numpy(float))))}), leaving nothing to count; give a "
            "shorter min_outage or leave it unset")
    flagged = flag_rows(ev[short], f"shorter than min_outage ({duration(limit_h)})", "dropped")
    problems = pd.concat([source.problems(), flagged], ignore_index=True)
    warnings.warn(f"{source.name}: {n:,} of {len(ev):,} outages are shorter than {duration(limit_h)} "
                  "(min_outage) and were dropped; problems() lists them", LogWarning, stacklevel=2)
    return source.replace(events=ev[~short].reset_index(drop=True), problems=problems)


@dataclass(frozen=True, eq=False)
class OutageDurations(Result):
    """How outage lengths are spread: counts and shares under each limit (minutes)."""

    durations_h: np.ndarray
    limits_min: tuple
    name: str = "log"
    hardware: bool = False  #: the outages are hardware faults read from a kernel log: never advise dropping them
    unknown_ends: int = 0  #: outages whose end the log does not show (not in the shares)

    @property
    def n(self):
        return int(self.durations_h.size)

    def shares(self):
        """Share of outages shorter than each limit, in the order of ``limits_min``."""
        d = self.durations_h
        return tuple(float(np.mean(d < m / 60 - _TOL_H)) if d.size else float("nan") for m in self.limits_min)

    @property
    def reboot_share(self):
        """Share of outages under :data:`REBOOT_MIN` minutes."""
        return float(np.mean(self.durations_h < REBOOT_MIN / 60 - _TOL_H)) if self.n else float("nan")

    def to_frame(self):
        """One row per limit: outages shorter than it and their share."""
        d = self.durations_h
        return pd.DataFrame({"under_min": list(self.limits_min),
                             "outages": [int(np.sum(d < m / 60 - _TOL_H)) for m in self.limits_min],
                             "share": list(self.shares())})

    def table(self):
        """The shares formatted for a person."""
        f = self.to_frame()
        return pd.DataFrame({"Outage length": [f"under {m} min" for m in f["under_min"]],
                             "Outages": [count(v) for v in f["outages"]], "Share": [pct(v) for v in f["share"]]})

    def text(self):
        """The shares in words, and whether most outages are reboots."""
        unknown = (f" {self.unknown_ends:,} more outages have an end the log does not show; their repair times "
                   "are unknown (right-censored), not counted as 0 s." if self.unknown_ends else "")
        if not self.n:
            return f"{self.name}: no outage has a known end, so their lengths are unknown." + unknown
        parts = [f"{pct(s)} under {m} min" for m, s in zip(self.limits_min, self.shares())]
        head = (f"Of {self.n:,} outages with a known end (overlaps on a node merged), " + ", ".join(parts[:-1])
                + f" and {parts[-1]}; the median lasted {duration(float(np.median(self.durations_h)))}.")
        if self.hardware and self.reboot_share > 0.5:
            tail = (f" {pct(self.reboot_share)} last under {REBOOT_MIN} min, but each is a hardware fault the kernel "
                    "reported (an Xid, a memory or power fault, a panic) that stopped its jobs: keep them all; "
                    "min_outage would drop real failures.")
        elif self.reboot_share > 0.5:
            tail = (f" Most of these \"failures\" ({pct(self.reboot_share)}) last under {REBOOT_MIN} min, as a "
                    "reboot does: set min_outage (e.g. '10min') to count only outages that stop a job for longer.")
        else:
            tail = f" Most outages last {REBOOT_MIN} min or longer, so most are not reboots."
        return head + tail + unknown

    def _repr_html_(self):
        return html_paragraphs([self.text()]) + html_table(self.table(), index=False)


def outage_durations(source, limits_min=SHORT_LIMITS_MIN):
    """Shares of ``source``'s outages (known end, overlaps merged) under each limit in minutes.

    Examples
    --------
    >>> import pandas as pd, relmodel
    >>> df = pd.DataFrame({"start": ["2024-01-01 00:00", "2024-01-02 00:00", "2024-01-03 00:00"],
    ...                    "end": ["2024-01-01 00:05", "2024-01-02 02:00", "2024-01-03 00:30"],
    ...                    "node": ["a", "b", "c"]})
    >>> list(outage_durations(relmodel.read_log(df, start="start", end="end", node="node")).to_frame()["outages"])
    [0, 1, 2]
    """
    if not hasattr(source, "downtimes"):
        raise MissingColumnError(f"{getattr(source, 'name', 'data')}: outage lengths need an event log with end times")
    d = source.downtimes()
    hours_ = np.asarray(d.hours, float)[np.asarray(d.observed, bool)]
    hardware = hasattr(source, "xid_events")
    unknown = int(getattr(source, "unknown_ends", 0)) if hardware else 0
    return OutageDurations(hours_, tuple(limits_min), name=source.name, hardware=hardware, unknown_ends=unknown)
