"""Count tables: interruptions per component over a known exposure."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import CountError, MissingColumnError, where
from ...units import hours
from ...tables import Result, pct, people_table

__all__ = ["CountTable", "count_table", "MAX_COUNT"]

MAX_COUNT = 2 ** 53  # the largest count a float (and so pandas and numpy arithmetic) holds exactly


@dataclass(frozen=True, eq=False)
class CountTable(Result):
    """Interruption counts per component for a cluster observed for ``duration_h`` hours.

    ``counts`` has columns component, category, count (and optionally
    printed_pct, the share a source printed).  ``n_unexpected`` is the sum of
    the counts; ``n_planned`` planned interruptions are kept apart.
    """

    counts: pd.DataFrame
    n_gpus: int
    gpus_per_node: int
    duration_h: float
    n_planned: int = 0
    name: str = "count table"
    source: str = ""

    @property
    def n_nodes(self):
        """Number of nodes (servers): n_gpus / gpus_per_node."""
        return self.n_gpus // self.gpus_per_node

    @property
    def n_unexpected(self):
        """Unexpected interruptions: the sum of the counts."""
        return int(self.counts["count"].sum())

    def shares(self):
        """Each component's share of the counts, beside any printed share, and the difference."""
        t = self.counts.copy()
        t["share_pct"] = 100.0 * t["count"] / self.n_unexpected
        if "printed_pct" in t:
            t["printed_minus_counts_pct"] = t["printed_pct"] - t["share_pct"].round(1)
        return t

    def disagreements(self, tol_pct=0.06):
        """Rows whose printed share differs from count/total by more than rounding."""
        t = self.shares()
        if "printed_pct" not in t:
            return t.iloc[0:0]
        return t[(t["printed_pct"] - t["share_pct"]).abs() > tol_pct]

    def to_frame(self):
        """The counts with their shares."""
        return self.shares()

    def __repr__(self):
        return (f"CountTable({self.name!r}: {self.n_unexpected} unexpected + {self.n_planned} planned "
                f"interruptions, {self.n_gpus} GPUs, {self.duration_h / 24:g} days)")

    def text(self):
        out = (f"{self.name}: {self.n_unexpected:,} unexpected and {self.n_planned:,} planned interruptions; "
               f"{self.n_gpus:,} GPUs ({self.gpus_per_node} per node) for {self.duration_h / 24:g} days."
               + (f" {self.source}" if self.source else ""))
        bad = self.disagreements()
        if len(bad):
            rows = "; ".join(f"{r.component}: printed {r.printed_pct}%, counts give {r.share_pct:.1f}%"
                             for r in bad.itertuples())
            out += f" The source's printed shares disagree with its counts: {rows}. The counts are used."
        return out

    def _people(self):
        t = self.shares()
        out = pd.DataFrame({"cause": t["component"], "category": t["category"], "interruptions": t["count"],
                            "share": t["share_pct"] / 100})
        if "printed_pct" in t:
            out["share the source printed"] = t["printed_pct"] / 100
        return people_table(out, {"share": pct, "share the source printed": pct})

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def count_table(table, *, n_gpus, gpus_per_node, duration, n_planned=0, name="count table", source=""):
    """Build a validated :class:`CountTable` from a DataFrame with component and count columns.

    Counts must be whole numbers of zero or more; ``duration`` is anything
    :func:`relmodel.units.hours` reads.

    ``n_gpus`` and ``gpus_per_node`` are counts; ``duration`` is the observation window (hours, or a string such as ``"54d"``).

    Examples
    --------
    >>> import pandas as pd
    >>> t = count_table(pd.DataFrame({"component": ["GPU", "PSU"], "category": ["GPU", "Host"], "count": [3, 1]}),
    ...                 n_gpus=64, gpus_per_node=8, duration="10d")
    >>> t.n_unexpected, t.n_nodes, t.duration_h
    (4, 8, 240.0)
    """
    df = table.copy() if isinstance(table, pd.DataFrame) else pd.DataFrame(table)
    for col in ("component", "count"):
        if col not in df.columns:
            raise MissingColumnError(f"{name}: no column {col!r}; a count table needs component and count")
    if "category" not in df.columns:
        df["category"] = df["component"]
    raw = df["count"]
    counts = pd.to_numeric(raw, errors="coerce") if raw.dtype == object else raw
    if pd.api.types.is_bool_dtype(counts):
        counts = pd.Series(np.nan, index=raw.index)
    counts = counts.astype(float)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(counts) | (counts < 0) | (counts != np.floor(counts)) | (counts > MAX_COUNT)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise CountError(f"{where(name, i + 1, 'count')}{raw.iloc[i]!r} is not a count; counts must be "
                         f"whole numbers from 0 to 2^53 ({MAX_COUNT:,})")
    df["count"] = counts.astype(np.int64)
    dur = hours(duration)
    if not (np.isfinite(dur) and dur > 0):
        raise CountError(f"{name}: the exposure duration must be positive, got {duration!r}")
    n_gpus, gpus_per_node = _whole(name, "n_gpus", n_gpus, 1), _whole(name, "gpus_per_node", gpus_per_node, 1)
    n_planned = _whole(name, "n_planned", n_planned, 0)
    if n_gpus % gpus_per_node:
        raise CountError(f"{name}: n_gpus ({n_gpus}) must be a positive multiple of gpus_per_node ({gpus_per_node})")
    return CountTable(df.reset_index(drop=True), n_gpus, gpus_per_node, float(dur), n_planned, name, source)


def _whole(name, arg, v, minimum):
    ok = isinstance(v, (int, np.integer)) or (isinstance(v, (float, np.floating)) and np.isfinite(v)
                                             and float(v).is_integer())
    if isinstance(v, bool) or not ok or not minimum <= v <= MAX_COUNT:
        raise CountError(f"{name}: {arg} must be a whole number from {minimum} to 2^53; got {v!r}")
    return int(v)
