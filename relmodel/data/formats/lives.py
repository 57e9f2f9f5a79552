"""Lifetime tables (one row per unit: a duration, an event flag, covariates), as the covariates page reads them.

:func:`load_lives` reads the page's ``lives`` parameter, a table of lifetimes
(CSV, Parquet or JSON through :func:`relmodel.data.shaping.readers.read_table`) with
one row per unit: a duration, an event flag (True: the life ended in a
failure; False: censored) and covariate columns.  Without a table it gives
the Titan GPU lives (from ``data_path``) or their synthetic stand-in, and the
page's first sentence says it shows an example.
"""

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..shaping.readers import read_table
from ...errors import LogFormatError, MissingColumnError
from ...tables import count
from ...units import unit_hours

__all__ = ["Lives", "load_lives", "DURATION_NAMES", "EVENT_NAMES", "TITAN_COVARIATES"]

#: Column names tried for the duration and the event flag when the page is not told.
DURATION_NAMES = ("duration_h", "hours", "duration", "time", "stop_h")
EVENT_NAMES = ("observed", "event", "failed", "status")
#: Titan's positions, entered when the page shows the Titan lives; the first is compared in groups.
TITAN_COVARIATES = (("cage", "cabinet_row", "node"), ("cage", "node"))
_TRUE = {"1", "true", "yes", "y", "t", "failed", "failure"}
_FALSE = {"0", "false", "no", "n", "f", "censored", ""}


@dataclass(frozen=True)
class Lives:
    """A lifetime table (``duration_h`` in hours, ``observed`` True/False, covariates), and what it is."""

    frame: pd.DataFrame
    lead: str
    covariates: tuple
    categorical: tuple
    cluster: object
    example: object = None

    def describe(self):
        """One sentence: lives, failures, censored lives and the median observed span."""
        f = self.frame
        n, failed = len(f), int(f["observed"].sum())
        return (f"{count(n)} lives, {count(failed)} ended in a failure and {count(n - failed)} were censored "
                f"(still working, or removed for other reasons, at the end of observation); median length "
                f"{float(f['duration_h'].median()):,.0f} h.")


def _pick(df, given, names, what, label):
    if given is not None:
        if given not in df.columns:
            raise MissingColumnError(f"{label}: no column {given!r} for the {what}; columns: {', '.join(map(str, df.columns))}")
        return given
    found = next((c for c in names if c in df.columns), None)
    if found is None:
        raise MissingColumnError(f"{label}: no {what} column; name it with the {what} parameter "
                                 f"(tried {', '.join(names)}; columns: {', '.join(map(str, df.columns))})")
    return found


def _flags(values, column, label):
    text = values.astype(str).str.strip().str.lower()
    ok = text.isin(_TRUE | _FALSE)
    if not ok.all():
        i = int(np.flatnonzero(~ok.to_numpy())[0])
        raise LogFormatError(f"{label}, column {column!r}, row {i + 1}: {values.iloc[i]!r} is not an event flag; "
                             "use 1/0 or true/false (1: the life ended in a failure, 0: censored)")
    return text.isin(_TRUE).to_numpy()


def _durations(values, column, unit, label):
    t = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float) * unit_hours(unit)
    bad = np.flatnonzero(~np.isfinite(t) | (t <= 0))
    if bad.size:
        i = int(bad[0])
        raise LogFormatError(f"{label}, column {column!r}, row {i + 1}: {values.iloc[i]!r} is not a duration; "
                             f"durations must be numbers > 0 (in {unit})")
    return t


def _user_lives(path, duration, event, unit, covariates, max_lives, seed):
    df, label = read_table(path)
    label = str(label)
    dcol = _pick(df, duration, DURATION_NAMES, "duration", label)
    ecol = _pick(df, event, EVENT_NAMES, "event", label)
    out = df.drop(columns=[dcol, ecol])
    out.insert(0, "observed", _flags(df[ecol], ecol, label))
    out.insert(0, "duration_h", _durations(df[dcol], dcol, unit, label))
    cov = tuple(covariates) if covariates else tuple(c for c in out.columns[2:] if str(c).lower() not in ("serial", "id"))
    missing = [c for c in cov if c not in out.columns]
    if missing or not cov:
        raise MissingColumnError(f"{label}: covariates {', '.join(map(repr, missing)) or '(none left)'} not in the "
                                 f"table; its columns: {', '.join(map(str, df.columns))}")
    if max_lives and len(out) > max_lives:
        out = out.sample(n=int(max_lives), random_state=seed).reset_index(drop=True)
    cluster = "serial" if "serial" in out.columns else None
    name = getattr(path, "name", None) or str(path).replace("\\", "/").rsplit("/", 1)[-1]
    lead = f"The lifetimes are your table {name}: "
    return Lives(out, lead, cov, (), cluster)


def load_lives(lives=None, *, duration=None, event=None, unit="h", covariates=None, categorical=None,
               data_path=None, n_synthetic=3000, seed=None, max_lives=0):
    """The page's :class:`Lives`: the table named by ``lives``, else the Titan lives (an example).

    ``duration`` and ``event`` name the columns (None: the first of
    :data:`DURATION_NAMES` / :data:`EVENT_NAMES` present); ``unit`` is the
    duration's unit ("s", "min", "h", "d").  ``covariates`` default to every
    other column (Titan: its positions); ``categorical`` lists numeric
    covariates taken as categories.  ``max_lives`` > 0 keeps a random sample.
    """
    if lives is not None:
        got = _user_lives(lives, duration, event, unit, covariates, max_lives, seed)
        return replace(got, lead=got.lead + got.describe(), categorical=tuple(categorical or ()))
    from ..bundled.titan import titan_lives
    frame = titan_lives(data_path, n_synthetic=n_synthetic, seed=seed, max_lives=max_lives)
    cov = tuple(covariates) if covariates else TITAN_COVARIATES[0]
    cat = tuple(categorical) if categorical is not None else TITAN_COVARIATES[1]
    if data_path:
        lead, example = "This page shows an example, not your data: the Titan GPU lives read from " \
                        f"{data_path} (Ostrouchov et al., SC 2020). Give lives to read your own table. ", \
            "Titan GPU lives (Ostrouchov et al., SC 2020)"
    else:
        lead, example = ("This page shows an example, not your data: a synthetic stand-in for the Titan GPU "
                         "lives (Ostrouchov et al., SC 2020), with the same columns; not real measurements. "
                         "Give lives to read your own table. "), "synthetic stand-in for the Titan GPU lives"
    return Lives(frame, lead, cov, cat, "serial", example=example)
