"""Covariate tables for regression: checks and encoding with named reference levels.

:func:`design` takes a DataFrame and the covariate columns a user named and
returns the numeric design (one column per numeric covariate, one indicator
per non-reference level of a categorical one, named ``"column=level"``), the
reference level chosen for each categorical, and raises or warns on input a
regression cannot use:

* a missing column or missing values: :class:`~relmodel.errors.MissingColumnError`
  or :class:`~relmodel.errors.CovariateError`;
* a constant covariate (or a level no row has): :class:`~relmodel.errors.CovariateError`;
* a level (or one side of a binary covariate) with no failures, so its ratio
  is zero or infinite: :class:`~relmodel.errors.SeparationError` when asked
  (``separation="raise"``), else left to the fit, which warns;
* fewer than 10 failures per coefficient: a :class:`CovariateWarning` (the
  rule of thumb of Peduzzi et al., J Clin Epidemiol 49(12), 1996; fewer
  failures than coefficients is an error).
"""

import warnings

import numpy as np
import pandas as pd

from ...errors import CovariateError, FitError, MissingColumnError, SeparationError
from ...units import hours

__all__ = ["CovariateWarning", "design", "EVENTS_PER_COEF", "pick_column", "survival_columns"]

EVENTS_PER_COEF = 10
DURATION_NAMES = ("duration_h", "hours", "duration", "stop_h", "time")
OBSERVED_NAMES = ("observed", "event", "failed")


class CovariateWarning(UserWarning):
    """A regression was fitted, but its covariates are more than the failures can support."""


def _is_categorical(col):
    return not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col))


def _order(level):
    """Sort key: numbers by value, then everything else by text."""
    return (0, float(level), "") if isinstance(level, (int, float, np.integer, np.floating)) else (1, 0.0, str(level))


def _reference(col, name, given):
    """The reference level: the one given, else the first sorted (R's default for character data)."""
    levels = sorted(col.unique(), key=_order)
    if given is not None:
        if given not in set(levels):
            raise CovariateError(f"reference level {given!r} of covariate {name!r} is not in the data; "
                                 f"its levels are {', '.join(map(str, levels))}")
        return given
    return levels[0]


def _check_column(col, name, events, categorical=(), separation="raise"):
    if col.isna().any():
        raise CovariateError(f"covariate {name!r} has {int(col.isna().sum())} missing values; fill or drop "
                             "those rows before the regression")
    numeric = not (_is_categorical(col) or name in categorical)
    if numeric and pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        inf = np.flatnonzero(np.isinf(col.to_numpy(float)))
        if inf.size:
            rows = ", ".join(map(str, col.index[inf][:10].tolist()))
            raise CovariateError(f"covariate {name!r} is infinite in {inf.size} rows (index {rows}); covariates "
                                 "must be finite numbers: fix or drop those rows")
    if (col.min() == col.max()) if (numeric and len(col)) else col.nunique() < 2:
        value = col.iloc[0] if len(col) else None
        raise CovariateError(f"covariate {name!r} is constant (every row is {value!r}): it carries no "
                             "information; drop it from the covariates")
    if separation == "raise" and (col.nunique() == 2 or _is_categorical(col) or name in categorical):
        for level, ev in events.groupby(col.to_numpy()).sum().items():
            if ev == 0:
                raise SeparationError(
                    f"covariate {name!r}: no failures among the rows where it is {level!r}, so its ratio is zero "
                    "or infinite (perfect separation); merge that level with another, or drop those rows")


def design(source, covariates, events, *, reference=None, extra=0, categorical=(), separation="raise"):
    """``(X, references, labels)`` for the regression of ``source`` on ``covariates``.

    ``events`` is the 0/1 failure indicator per row (for the checks),
    ``reference`` a mapping column -> reference level, ``extra`` the number of
    coefficients beyond the covariates (an AFT's scale, for the events-per-
    coefficient rule), ``categorical`` numeric columns to treat as
    categories; ``separation="warn"`` leaves levels without failures to the
    fit (which reports their infinite estimate) instead of raising.  ``labels`` maps each design column to
    ``(covariate, level, reference)`` (level and reference None for numeric).
    """
    covariates = [covariates] if isinstance(covariates, str) else list(covariates)
    if not covariates:
        raise CovariateError("name at least one covariate column")
    missing = [c for c in covariates if c not in source.columns]
    if missing:
        raise MissingColumnError(f"covariate column(s) {missing} not in the data; columns are {list(source.columns)}")
    reference = dict(reference or {})
    events = pd.Series(np.asarray(events, float), index=source.index)
    parts, refs, labels = [], {}, {}
    for name in covariates:
        col = source[name]
        _check_column(col, name, events, categorical, separation)
        if _is_categorical(col) or name in categorical:
            ref = _reference(col, name, reference.get(name))
            refs[name] = ref
            for level in sorted((lv for lv in col.unique() if lv != ref), key=_order):
                key = f"{name}={level}"
                parts.append(pd.Series((col == level).astype(float).to_numpy(), index=source.index, name=key))
                labels[key] = (name, level, ref)
        else:
            parts.append(col.astype(float).rename(name))
            labels[name] = (name, None, None)
    x = pd.concat(parts, axis=1)
    _check_events_per_coef(int(events.sum()), x.shape[1] + extra)
    return x, refs, labels


def _check_events_per_coef(d, p):
    if d < p + 1:
        raise CovariateError(f"{d} failures cannot estimate {p} coefficients; use fewer covariates "
                             "(or merge levels of a categorical one)")
    if d < EVENTS_PER_COEF * p:
        warnings.warn(f"only {d / p:.1f} failures per coefficient ({d} failures, {p} coefficients): below about "
                      f"{EVENTS_PER_COEF} the ratios are biased and their intervals too narrow (Peduzzi et al. 1996); "
                      "drop covariates or merge levels", CovariateWarning, stacklevel=4)


def pick_column(source, name, candidates, what):
    """``name`` if it is a column (error otherwise); with ``name`` None, the first candidate present."""
    if name is not None:
        if name not in source.columns:
            raise MissingColumnError(f"{what} column {name!r} not in the data; columns are {list(source.columns)}")
        return name
    return next((c for c in candidates if c in source.columns), None)


def survival_columns(source, duration=None, observed=None):
    """Durations (hours) and 0/1 failure flags from a DataFrame, checked.

    The duration column defaults to the first of ``duration_h``, ``hours``,
    ``duration``, ``stop_h``, ``time``; the observed column to ``observed``,
    ``event`` or ``failed`` (all failures when there is none).
    """
    if not isinstance(source, pd.DataFrame):
        raise FitError("pass a DataFrame with a duration column, an observed column and the covariates")
    dcol = pick_column(source, duration, DURATION_NAMES, "duration")
    if dcol is None:
        raise MissingColumnError(f"no duration column; name it with duration= (tried {', '.join(DURATION_NAMES)})")
    ocol = pick_column(source, observed, OBSERVED_NAMES, "observed")
    t = np.asarray(hours(source[dcol].to_numpy()), float)
    e = np.ones(t.size) if ocol is None else source[ocol].astype(float).to_numpy()
    bad = np.flatnonzero(~np.isfinite(t) | (t <= 0))
    if bad.size:
        raise FitError(f"row {bad[0]}: duration {t[bad[0]]!r} is not valid; durations must be finite hours > 0")
    if not np.isin(e, (0.0, 1.0)).all():
        raise FitError("the observed column must be True/False (or 1/0): True = a failure, False = censored")
    return t, e
