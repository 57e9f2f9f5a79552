"""The Titan GPU lifetimes (Ostrouchov et al., SC 2020), and a synthetic stand-in of the same shape.

Titan (Oak Ridge, 2012-2019) held 18,688 NVIDIA K20X GPUs, one per node.  The
data of "GPU Lifetimes on Titan Supercomputer: Survival Analysis and
Reliability" (G. Ostrouchov, D. Maxwell, R. A. Ashraf, C. Engelmann,
M. Shankar, J. H. Rogers; SC '20; github.com/olcf/TitanGPULife) give, in
``gc_full.csv``, one row per life of a GPU in one slot: serial number,
location, insert and remove times, duration (seconds) and the event that
ended it (DBE: double-bit error, OTB: off the bus; empty: still working or
removed for other reasons).  The data carry no licence, so relmodel does not
bundle them: :func:`titan` reads them from a folder you name.

A location such as ``c11-2c1s4n1`` is cabinet column 11, cabinet row 2,
cage 1 (of 0-2, bottom to top), slot 4 (0-7) and node 1 (0-3) on the blade.
The paper found that position matters: GPUs in some cages and cabinets
failed sooner (its section 5).

:func:`titan_synthetic` draws a small data set with the same columns, so
examples and reports run without the real data.
"""

import numbers
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ...base.escape import brief
from ...budget_guard import check_cost, count
from ...errors import CountError, DatasetNotFoundError, DurationError, LogFormatError, MissingColumnError

__all__ = ["titan", "titan_synthetic", "MAX_SYNTHETIC_GPUS", "titan_lives", "describe", "parse_location", "TITAN_SOURCE",
           "POSITION_COLUMNS"]

TITAN_SOURCE = ("Ostrouchov et al., GPU Lifetimes on Titan Supercomputer: Survival Analysis and Reliability, "
                "SC 2020 (data: github.com/olcf/TitanGPULife)")
POSITION_COLUMNS = ("cabinet_column", "cabinet_row", "cage", "slot", "node")
_LOCATION = r"^c(\d+)-(\d+)c(\d+)s(\d+)n(\d+)$"
_COLUMNS = ("serial", "location", *POSITION_COLUMNS, "insert", "remove", "duration_h", "observed", "cause")


def parse_location(codes):
    """Split Cray location codes (``c11-2c1s4n1``) into a DataFrame of the five position columns.

    Raises :class:`~relmodel.errors.LogFormatError` naming the first row that
    does not match ``c<column>-<row>c<cage>s<slot>n<node>``.
    """
    codes = pd.Series(codes, dtype=object).reset_index(drop=True)
    parts = codes.astype(str).str.extract(_LOCATION)
    bad = parts.isna().any(axis=1).to_numpy()
    if bad.any():
        i = int(np.argmax(bad))
        raise LogFormatError(f"row {i + 1}: location {codes[i]!r} is not a Cray code such as 'c11-2c1s4n1' "
                             "(c<column>-<row>c<cage>s<slot>n<node>)")
    parts.columns = list(POSITION_COLUMNS)
    return parts.astype(int)


def _find(path):
    path = Path(path if path is not None else os.environ.get("RELMODEL_TITAN", ""))
    if str(path) == "" or str(path) == ".":
        raise DatasetNotFoundError("the Titan data are not bundled (no licence): pass the folder holding "
                                "gc_full.csv.xz (from github.com/olcf/TitanGPULife), or set RELMODEL_TITAN")
    if path.is_dir():
        for name in ("gc_full.csv.xz", "gc_full.csv"):
            if (path / name).exists():
                return path / name
        raise DatasetNotFoundError(f"{path}: no gc_full.csv.xz or gc_full.csv in this folder")
    if not path.exists():
        raise DatasetNotFoundError(f"{path}: no such file or folder")
    return path


def titan(path=None):
    """GPU-in-slot lives of Titan as a DataFrame (one row per life), from ``path``.

    ``path``: the folder holding ``gc_full.csv.xz`` (or the file itself);
    default ``$RELMODEL_TITAN``.  Columns: ``serial``, ``location``, the five
    position columns, ``insert``, ``remove`` (timestamps), ``duration_h``,
    ``observed`` (True when the life ended in a DBE or OTB failure) and
    ``cause`` ("DBE", "OTB" or "none").  Rows without an insert time or
    duration (1,158 in the published file) are dropped; ``df.attrs`` holds
    their count and the source.
    """
    file = _find(path)
    raw = pd.read_csv(file, dtype={"SN": str})
    missing = [c for c in ("SN", "location", "insert", "remove", "duration", "event") if c not in raw.columns]
    if missing:
        raise MissingColumnError(f"{file}: not the Titan gc_full table; missing columns {missing}")
    ok = raw["duration"].notna() & raw["insert"].notna() & (raw["duration"] > 0)
    raw = raw[ok].reset_index(drop=True)
    pos = parse_location(raw["location"])
    cause = raw["event"].where(raw["event"].isin(["DBE", "OTB"]), "none")
    out = pd.concat([pd.DataFrame({"serial": raw["SN"], "location": raw["location"]}), pos], axis=1)
    out["insert"] = pd.to_datetime(raw["insert"])
    out["remove"] = pd.to_datetime(raw["remove"])
    out["duration_h"] = raw["duration"].to_numpy(float) / 3600.0
    out["observed"] = (cause != "none").to_numpy()
    out["cause"] = cause.to_numpy()
    out.attrs.update(dropped_rows=int((~ok).sum()), source=TITAN_SOURCE)
    return out


#: The largest synthetic stand-in :func:`titan_synthetic` draws (about 0.6 GiB of memory at the peak).
MAX_SYNTHETIC_GPUS = 1_000_000

#: Peak memory per GPU of :func:`titan_synthetic`, bytes (about 560 measured with tracemalloc; 620 with room).
_GPU_BYTES = 620


def _synthetic_size(n_gpus, years):
    """``(n_gpus, years)`` checked: a whole number of GPUs in range and a span of years above 1."""
    if isinstance(n_gpus, numbers.Integral) and not isinstance(n_gpus, bool) and n_gpus > MAX_SYNTHETIC_GPUS:
        need = float(n_gpus) * _GPU_BYTES
        unit, size = next((u, z) for u, z in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)) if need >= z)
        raise CountError(f"titan_synthetic: n_gpus = {n_gpus:,} is above the largest stand-in drawn, "
                         f"{MAX_SYNTHETIC_GPUS:,} GPUs (that many would need about {need / size:,.1f} {unit} of "
                         f"memory; Titan had 18,688); give a whole number from 1 to {MAX_SYNTHETIC_GPUS:,}")
    n_gpus = count("n_gpus", n_gpus, 1, MAX_SYNTHETIC_GPUS)
    check_cost(f"titan_synthetic(n_gpus={n_gpus:,})", work=n_gpus * 200, memory=n_gpus * _GPU_BYTES,
               hint="ask for fewer GPUs")
    if isinstance(years, bool) or not isinstance(years, numbers.Real) or not (1 < float(years) <= 100):
        raise DurationError(f"titan_synthetic: years must be a number of years above 1 (GPUs go in over the first "
                            f"year) and at most 100, got {brief(years)}")
    return n_gpus, float(years)


def titan_synthetic(n_gpus=3000, *, seed=None, years=6.0):
    """A synthetic stand-in with the columns of :func:`titan` (not real data).

    ``n_gpus`` GPUs at random positions of Titan's geometry (25 columns x 8
    rows of cabinets, 3 cages, 8 slots, 4 nodes), installed at random times
    over the first year and watched until ``years``; about a tenth are
    replaced once (a second life of the same serial in the slot).  Lives are
    Weibull (shape 2.5, characteristic life 9 years) with hazard ratio 1.6 in
    cage 2 and 1.3 in cabinet rows 6-7; 75% of failures are DBE.

    ``n_gpus`` is a whole number from 1 to :data:`MAX_SYNTHETIC_GPUS` (Titan had
    18,688); ``years`` a number above 1 (GPUs go in over the first year) and at
    most 100; ``seed`` None, a whole number >= 0 or a numpy Generator.  Anything
    else is a named error (:class:`~relmodel.errors.CountError`,
    :class:`~relmodel.errors.DurationError`) saying what is valid.
    """
    n_gpus, years = _synthetic_size(n_gpus, years)
    if seed is not None and not isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        seed = count("seed", seed, 0)
    rng = np.random.default_rng(seed)
    pos = {"cabinet_column": rng.integers(0, 25, n_gpus), "cabinet_row": rng.integers(0, 8, n_gpus),
           "cage": rng.integers(0, 3, n_gpus), "slot": rng.integers(0, 8, n_gpus), "node": rng.integers(0, 4, n_gpus)}
    hr = np.where(pos["cage"] == 2, 1.6, 1.0) * np.where(pos["cabinet_row"] >= 6, 1.3, 1.0)
    eta_h, shape, end_h = 9 * 8766.0, 2.5, years * 8766.0
    start = rng.uniform(0, 8766.0, n_gpus)
    life = eta_h * (rng.exponential(1.0, n_gpus) / hr) ** (1 / shape)
    replaced = rng.random(n_gpus) < 0.1
    pulled = np.where(replaced, rng.uniform(0.3, 0.9) * (end_h - start), np.inf)
    stop = np.minimum.reduce([start + life, start + pulled, np.full(n_gpus, end_h)])
    observed = (start + life) <= np.minimum(start + pulled, end_h)
    serial = np.array([f"S{i:06d}" for i in range(n_gpus)])
    rows = pd.DataFrame({"serial": serial, **pos, "start_h": start, "stop_h": stop, "observed": observed})
    again = rows[replaced & ~observed].copy()  # a pulled GPU goes back in service elsewhere
    again["start_h"] = again["stop_h"] + rng.uniform(24, 2000, len(again))
    again = again[again["start_h"] < end_h]
    again["cage"] = rng.integers(0, 3, len(again))
    again_life = eta_h * (rng.exponential(1.0, len(again)) / np.where(again["cage"] == 2, 1.6, 1.0)) ** (1 / shape)
    again["observed"] = again["start_h"] + again_life <= end_h
    again["stop_h"] = np.minimum(again["start_h"] + again_life, end_h)
    rows = pd.concat([rows, again], ignore_index=True)
    origin = pd.Timestamp("2013-01-01")
    out = rows[["serial"]].copy()
    out["location"] = [f"c{c}-{r}c{g}s{s}n{n}" for c, r, g, s, n in rows[list(POSITION_COLUMNS)].to_numpy()]
    out[list(POSITION_COLUMNS)] = rows[list(POSITION_COLUMNS)].to_numpy()
    out["insert"] = origin + pd.to_timedelta(rows["start_h"], unit="h")
    out["remove"] = origin + pd.to_timedelta(rows["stop_h"], unit="h")
    out["duration_h"] = (rows["stop_h"] - rows["start_h"]).to_numpy()
    out["observed"] = rows["observed"].to_numpy()
    out["cause"] = np.where(out["observed"], np.where(rng.random(len(out)) < 0.75, "DBE", "OTB"), "none")
    out.attrs.update(dropped_rows=0, source="synthetic stand-in for the Titan GPU lives (not real data)")
    return out[list(_COLUMNS)]


def titan_lives(path=None, *, n_synthetic=3000, seed=None, max_lives=0):
    """The Titan lives from ``path`` when given, else the synthetic stand-in; optionally a random sample.

    ``max_lives > 0`` keeps that many lives drawn at random (``seed``), whole
    GPUs at a time so repeated lives of one serial stay together.
    ``df.attrs["source"]`` says which data these are.
    """
    lives = titan(path) if path else titan_synthetic(n_synthetic, seed=seed)
    if max_lives and len(lives) > max_lives:
        serials = lives["serial"].drop_duplicates().sample(frac=1.0, random_state=seed)
        first = lives.groupby("serial")["serial"].size().reindex(serials).cumsum()
        keep = set(first[first <= max_lives].index)
        attrs = dict(lives.attrs)
        lives = lives[lives["serial"].isin(keep)].reset_index(drop=True)
        lives.attrs.update(attrs, sampled=True)
    return lives


def describe(lives):
    """One paragraph on a table of lives: how many, how many failed and why, over how long, and the source."""
    n, gpus = len(lives), lives["serial"].nunique()
    causes = lives.loc[lives["observed"], "cause"].value_counts()
    span = (lives["remove"].max() - lives["insert"].min()) / pd.Timedelta(days=365.25)
    why = ", ".join(f"{v:,} {k}" for k, v in causes.items()) or "none"
    sample = " (a random sample)" if lives.attrs.get("sampled") else ""
    return (f"{n:,} GPU lives in a slot{sample}, of {gpus:,} GPUs, over {span:.1f} years; "
            f"{int(lives['observed'].sum()):,} ended in a failure ({why}); the others were still working "
            f"or were removed for other reasons (censored). Source: {lives.attrs.get('source', 'unknown')}.")
