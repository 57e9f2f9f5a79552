"""Published interruption rates of GPU training fleets and HPC systems.

The table lives in ``data/fleets/fleets.csv``; ``data/README.md`` cites each
row (paper and table or section).  One row is one count (or published rate)
over one exposure: a fleet's total (``category`` "all") or one cause
category of it.  ``primary`` marks the one row per fleet that a prior across
fleets uses.

Rates are per node-day and per GPU-day.  The conversion: a node-day is one
node observed for 24 hours, a GPU-day one GPU for 24 hours, so with ``g``
GPUs per node ``rate_per_gpu_day = rate_per_node_day / g`` (an interruption
is charged once, spread over the node's GPUs).
"""

import numpy as np
import pandas as pd

from ...errors import MissingColumnError, UnitError
from ...resources import data_dir

__all__ = ["fleets", "fleet_exposure", "KINDS", "COLUMNS"]

KINDS = ("gpu", "hpc")
COLUMNS = ("fleet", "name", "hardware", "kind", "gpus", "gpus_per_node", "nodes", "exposure_days", "count",
           "published_rate_per_1000_node_days", "count_basis", "counted", "category", "primary", "approx",
           "source", "note")
_INTS = {c: "Int64" for c in ("gpus", "gpus_per_node", "nodes", "count")}


def _default_path():
    """``fleets/fleets.csv`` in the data folder (``$RELMODEL_DATA`` or the repository's ``data/``, as datasets use)."""
    return data_dir() / "fleets" / "fleets.csv"


def fleets(kind=None, *, primary=None, path=None):
    """The table of published fleet interruption rates as a DataFrame.

    Parameters
    ----------
    kind : None (every row), "gpu" (GPU training and research clusters) or
        "hpc" (the Los Alamos systems).
    primary : True keeps one row per fleet (its total), False the others.
    path : another CSV with the same columns (default: the bundled table).

    Besides the stored columns, adds ``node_days``, ``gpu_days``,
    ``rate_per_node_day``, ``rate_per_gpu_day`` and
    ``rate_per_1000_node_days`` (from count and exposure, or from the
    published rate where only a rate is given; NaN where neither is known).
    """
    path = path or _default_path()
    df = pd.read_csv(path, dtype=_INTS)
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise MissingColumnError(f"{path}: not a fleets table; missing columns {missing}")
    if kind is not None:
        if kind not in KINDS:
            raise UnitError(f"unknown kind={kind!r}; use one of {', '.join(KINDS)} or None")
        df = df[df["kind"] == kind]
    if primary is not None:
        df = df[df["primary"].astype(bool) == bool(primary)]
    return _with_rates(df.reset_index(drop=True))


def fleet_exposure(table, per="node"):
    """Unit-hours of exposure per row of a fleets table: nodes (or GPUs) x days x 24."""
    if per not in ("node", "gpu"):
        raise UnitError(f"per must be 'node' or 'gpu' for fleet rates, got {per!r}")
    units = table["nodes"] if per == "node" else table["gpus"]
    return pd.to_numeric(units, errors="coerce").astype(float) * table["exposure_days"].astype(float) * 24.0


def _with_rates(df):
    node_days = pd.to_numeric(df["nodes"], errors="coerce").astype(float) * df["exposure_days"].astype(float)
    gpn = pd.to_numeric(df["gpus_per_node"], errors="coerce").astype(float)
    count = pd.to_numeric(df["count"], errors="coerce").astype(float)
    per_node_day = np.where(node_days > 0, count / node_days.where(node_days > 0), np.nan)
    published = df["published_rate_per_1000_node_days"].astype(float) / 1000.0
    per_node_day = np.where(published.notna(), published, per_node_day)
    out = df.copy()
    out["node_days"] = node_days
    out["gpu_days"] = node_days * gpn
    out["rate_per_node_day"] = per_node_day
    out["rate_per_gpu_day"] = per_node_day / gpn
    out["rate_per_1000_node_days"] = 1000.0 * per_node_day
    return out
