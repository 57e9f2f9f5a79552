"""Named exceptions raised by relmodel.

Every error that comes from bad input subclasses :class:`RelmodelError`; the
ones that are about a bad value also subclass :class:`ValueError`, so callers
that already catch ``ValueError`` keep working.  Messages name the file, row
and column when there is one, and say what would be valid.
"""

__all__ = [
    "RelmodelError",
    "DurationError",
    "UnitError",
    "LogFormatError",
    "MissingColumnError",
    "TimeParseError",
    "EndBeforeStartError",
    "EmptyDataError",
    "UnknownFileTypeError",
    "CountError",
    "FitError",
    "ModelInputError",
    "InfeasibleTargetError",
    "ParameterError",
    "ReportError",
    "MissingStepsError",
    "DuplicateStepError",
    "NegativeTimeError",
    "where",
]


class RelmodelError(Exception):
    """Base class of every relmodel error."""


class DurationError(RelmodelError, ValueError):
    """A duration could not be understood, or is out of range."""


class UnitError(RelmodelError, ValueError):
    """An unknown time unit or per-what unit."""


class LogFormatError(RelmodelError, ValueError):
    """A log file or table is malformed."""


class MissingColumnError(LogFormatError):
    """A column the caller named is not in the table."""


class TimeParseError(LogFormatError):
    """A timestamp could not be parsed."""


class EndBeforeStartError(LogFormatError):
    """An outage ends before it starts."""


class EmptyDataError(LogFormatError):
    """A file or table holds no rows."""


class UnknownFileTypeError(LogFormatError):
    """A file extension relmodel cannot read."""


class CountError(RelmodelError, ValueError):
    """A count is negative, missing or not a whole number."""


class FitError(RelmodelError, ValueError):
    """Data that no distribution can be fitted to."""


class ModelInputError(RelmodelError, ValueError):
    """An impossible input to a planning model (zero cost, negative MTBF...)."""


class InfeasibleTargetError(RelmodelError, ValueError):
    """A target that no component reliability can reach."""


class ParameterError(RelmodelError, ValueError):
    """A notebook or report parameter that is unknown, mistyped or invalid."""


class ReportError(RelmodelError):
    """A report could not be rendered (a cell failed, a folder exists...)."""


class MissingStepsError(LogFormatError):
    """A step-time log lacks some (step, rank) pairs, so a step's slowest rank is unknown."""


class DuplicateStepError(LogFormatError):
    """A step-time log has two rows for the same (step, rank) pair."""


class NegativeTimeError(LogFormatError):
    """A step time (or an end before its start) is negative."""


def where(file=None, row=None, column=None):
    """Return a location prefix such as ``"log.csv, row 12, column 'start': "``.

    ``row`` is the 1-based data row (the header is not counted).
    """
    parts = []
    if file is not None:
        parts.append(str(file))
    if row is not None:
        parts.append(f"row {row}")
    if column is not None:
        parts.append(f"column {column!r}")
    return (", ".join(parts) + ": ") if parts else ""
