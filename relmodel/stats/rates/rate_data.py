"""A count of interruptions over an exposure in unit-hours, from whatever the user has.

:func:`rate_data` reads a log, a count table, a published fleet's name, a
``(count, exposure)`` pair or a :class:`RateData`, and checks the unit
("node", "gpu" or "job") so that rates in different units are never mixed.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data.shaping.counts import CountTable
from ...data.shaping.logs import InterruptionLog
from ...data.source import Source
from ...errors import CountError, ExposureError, PriorError, UnitError
from ...units import hours

__all__ = ["RateData", "rate_data", "per_day_label", "PER"]

PER = ("job", "node", "gpu")


def per_day_label(per):
    """The unit-day a per-what is counted in: "node-days", "GPU-days" or "job-days"."""
    return {"node": "node-days", "gpu": "GPU-days", "job": "job-days"}[per]


@dataclass(frozen=True)
class RateData:
    """``count`` interruptions in ``exposure_h`` unit-hours (``per`` "node", "gpu" or "job")."""

    count: int
    exposure_h: float
    per: str = "node"
    name: str = ""

    def __post_init__(self):
        if self.per not in PER:
            raise UnitError(f"unknown per={self.per!r}; use one of {', '.join(PER)}")
        k = self.count
        if not (np.isfinite(k) and k >= 0 and k == np.floor(k)):
            raise CountError(f"{self.name or 'count'}: {k!r} is not a count; use a whole number of zero or more")
        if not (np.isfinite(self.exposure_h) and self.exposure_h > 0):
            raise ExposureError(f"{self.name or 'exposure'}: exposure must be a positive number of "
                                f"{self.per}-hours, got {self.exposure_h!r}")

    @property
    def rate_per_h(self):
        """Interruptions per unit-hour."""
        return self.count / self.exposure_h

    def to_frame(self):
        """One row: name, count, exposure, unit and rate per 1,000 unit-days."""
        return pd.DataFrame({"name": [self.name], "count": [self.count], "exposure_h": [self.exposure_h],
                             "per": [self.per], f"rate_per_1000_{self.per}_days": [24000 * self.rate_per_h]})


def _units(per, n_nodes, gpus_per_node, name):
    if per == "job":
        return 1
    if per == "node":
        return n_nodes
    if not gpus_per_node:
        raise UnitError(f"{name}: per='gpu' needs gpus_per_node")
    return n_nodes * gpus_per_node


def _from_fleet(name, per):
    from ...data.bundled.fleets import fleet_exposure, fleets
    table = fleets()
    table = table[table["category"] == "all"]
    row = table[table["fleet"] == name.lower()]
    if row.empty:
        raise PriorError(f"unknown fleet {name!r}; known fleets: {', '.join(table['fleet'])}")
    if per == "gpu" and pd.isna(row["gpus"].iloc[0]):
        raise UnitError(f"fleet {name!r} has no GPU count (it is a CPU system); compare it per node")
    exposure = float(fleet_exposure(row, per).iloc[0])
    count = row["count"].iloc[0]
    if pd.isna(count) or not np.isfinite(exposure):
        raise ExposureError(f"fleet {name!r} gives no count and exposure ({row['note'].iloc[0]}); "
                            "it cannot be compared or updated")
    return RateData(int(count), exposure, per, str(row["name"].iloc[0]))


def rate_data(source, per="node", name=None):
    """A :class:`RateData` from a log, count table (or a Source holding one), fleet name, ``(count, exposure)`` or RateData.

    ``exposure`` in a pair is unit-hours, or anything :func:`relmodel.units.hours`
    reads ("1200d" is 1,200 unit-days).  A RateData whose ``per`` differs
    from ``per`` raises :class:`~relmodel.errors.UnitError` (mixed units).
    """
    if isinstance(source, RateData):
        if source.per != per:
            raise UnitError(f"{source.name or 'rate data'} is per {source.per} but per {per} was asked; "
                            "give every input in the same unit")
        return source
    if isinstance(source, Source):  # what load_source returns: its count table or event log
        source = source.data
    if isinstance(source, CountTable):
        units = _units(per, source.n_nodes, source.gpus_per_node, source.name)
        return RateData(source.n_unexpected, source.duration_h * units, per, name or source.name)
    if isinstance(source, InterruptionLog):
        units = _units(per, source.n_nodes, source.gpus_per_node, source.name)
        return RateData(len(source.interruptions()), source.duration_h * units, per, name or source.name)
    if isinstance(source, str):
        return _from_fleet(source, per)
    if isinstance(source, (tuple, list)) and len(source) == 2:
        exposure = hours(source[1]) if isinstance(source[1], str) else float(source[1])
        return RateData(_whole(source[0]), exposure, per, name or "")
    raise CountError(f"cannot read a count and exposure from {type(source).__name__}; give a log, a count "
                     "table, a fleet name or a (count, exposure_h) pair")


def _whole(k):
    k = float(k)
    if not (np.isfinite(k) and k >= 0 and k == np.floor(k)):
        raise CountError(f"{k!r} is not a count; use a whole number of zero or more")
    return int(k)
