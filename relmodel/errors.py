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
    "ExposureError",
    "PriorError",
    "FitError",
    "CovariateError",
    "SeparationError",
    "ModelInputError",
    "NoProgressError",
    "InfeasibleTargetError",
    "DesignError",
    "ScenarioError",
    "ParameterError",
    "ReportError",
    "NotebookFileError",
    "NotebookKernelError",
    "ArgumentOrderWarning",
    "ReportWriteError",
    "ReportInterrupted",
    "MissingStepsError",
    "DuplicateStepError",
    "NegativeTimeError",
    "where",
    "LogFileNotFound",
    "DatasetNotFoundError",
    "NotARegularFileError",
    "CorruptFileError",
    "EncodingError",
    "AmbiguousDateError",
    "TimeZoneError",
    "MixedTimeZoneError",
    "WindowError",
    "TimeRangeError",
    "InputTypeError",
    "UnknownColumnError",
    "ResourceLimitError",
    "InputAccessError",
    "OutputPathError",
    "is_environment_error",
    "SuiteCopyError",
    "KernelDiedError",
    "BudgetError",
]


class RelmodelError(Exception):
    """Base class of every relmodel error."""


class DurationError(RelmodelError, ValueError):
    """A duration could not be understood, or is out of range."""


class OutageThresholdError(DurationError):
    """A ``min_outage`` that would drop every outage of a log; the message says how many and the longest."""


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


class ExposureError(CountError):
    """An exposure (unit-hours, node-days...) that is zero, negative or missing."""


class PriorError(RelmodelError, ValueError):
    """No prior can be built from what was given (no usable fleet row, an unknown fleet name...)."""


class FitError(RelmodelError, ValueError):
    """Data that no distribution can be fitted to."""


class CovariateError(FitError):
    """A covariate that a regression cannot use (constant, missing values, too few failures)."""


class SeparationError(CovariateError):
    """A covariate separates failures from survivors perfectly: its ratio is zero or infinite."""


class ModelInputError(RelmodelError, ValueError):
    """An impossible input to a planning model (zero cost, negative MTBF...)."""


class NoProgressError(ModelInputError):
    """A simulated job would almost never complete a segment between failures (ETTR near 0): nothing to simulate."""


class InfeasibleTargetError(RelmodelError, ValueError):
    """A target that no component reliability can reach."""


class DesignError(ModelInputError):
    """An impossible cluster design (domains, spares, tolerances, shares)."""


class ScenarioError(ModelInputError):
    """A planning scenario input that is unknown or impossible (a negative restart, a target of 1.2...)."""


class ParameterError(RelmodelError, ValueError):
    """A notebook or report parameter that is unknown, mistyped or invalid."""


class ReportError(RelmodelError):
    """A report could not be rendered (a cell failed, a folder exists...)."""


class NotebookFileError(ReportError, ValueError):
    """A notebook given to a report is not one relmodel can read (not JSON, not UTF-8, not a notebook)."""


class NotebookKernelError(NotebookFileError):
    """A notebook written for another language's kernel (R, Julia...): reports run notebooks in Python only."""


class ArgumentOrderWarning(UserWarning):
    """Durations that look swapped (a checkpoint cost at or above the MTBF, a restart longer
    than the whole run...).  The message names the function's argument order."""
class ReportWriteError(RelmodelError, OSError):
    """A report folder or file could not be written (disk full, permission denied...).

    An environment problem rather than bad input: the CLI exits with status 1.
    ``filename`` is the path; ``errno`` the operating system's error number.
    """

    def __str__(self):
        return str(self.strerror if self.strerror is not None else super().__str__())


class ReportInterrupted(RelmodelError, KeyboardInterrupt):
    """A report run was interrupted (Ctrl-C); its kernels are stopped and its
    temporary folders removed. The CLI exits with status 130."""
class MissingStepsError(LogFormatError):
    """A step-time log lacks some (step, rank) pairs, so a step's slowest rank is unknown."""


class DuplicateStepError(LogFormatError):
    """A step-time log has two rows for the same (step, rank) pair."""


class NegativeTimeError(LogFormatError):
    """A step time (or an end before its start) is negative."""


def where(file=None, row=None, column=None, line=None):
    """Return a location prefix such as ``"log.csv, row 12 (line 13), column 'start': "``.

    ``row`` is the 1-based data row (the header is not counted); ``line`` the
    file's own line number, when there is one.  A prefix for error messages;
    ``file`` is a path or name.

    Examples
    --------
    >>> where("log.csv", 12, "start")
    "log.csv, row 12, column 'start': "
    >>> where("log.csv", 12, "start", line=13)
    "log.csv, row 12 (line 13), column 'start': "
    >>> where()
    ''
    """
    parts = []
    if file is not None:
        parts.append(str(file))
    if row is not None:
        parts.append(f"row {row}" + (f" (line {line})" if line is not None else ""))
    if column is not None:
        parts.append(f"column {column!r}")
    return (", ".join(parts) + ": ") if parts else ""


# ----- hostile input (files, times, windows, types, sizes) -------------------


class DatasetNotFoundError(RelmodelError, FileNotFoundError):
    """A data set relmodel does not bundle (the Titan lives) is not where it was named."""


class LogFileNotFound(RelmodelError, FileNotFoundError):
    """A log file that does not exist."""

    def __init__(self, path):
        super().__init__(2, f"{path}: no such file; check the path (relative paths are read from "
                         "the folder you run in)", str(path))

    def __str__(self):
        return self.strerror


class NotARegularFileError(LogFormatError):
    """A path that is a device, pipe, socket or folder, not a regular file."""


class CorruptFileError(LogFormatError):
    """A compressed or binary file that is truncated or corrupt."""


class EncodingError(LogFormatError):
    """A text file that is not UTF-8."""


class AmbiguousDateError(TimeParseError):
    """Dates whose day/month order cannot be told, or that mix orders."""


class TimeZoneError(TimeParseError):
    """A time zone abbreviation (EST, CEST...) relmodel will not guess."""


class MixedTimeZoneError(TimeParseError):
    """Times with a UTC offset mixed with times without one in one column."""


class WindowError(LogFormatError):
    """An observation window that is missing, reversed, empty or unreadable."""


class TimeRangeError(LogFormatError):
    """Numeric times that are not finite or too large, or dates outside the range an outage log can hold."""


class InputTypeError(RelmodelError, TypeError):
    """An argument of the wrong type (a number where a path or column name is needed...)."""


class UnknownColumnError(MissingColumnError):
    """A column name asked for by an option (``by=``...) that the data lacks."""


class ResourceLimitError(RelmodelError, ValueError):
    """A request too large to compute (resamples, replicas...); the message gives the limit."""


class InputAccessError(RelmodelError, PermissionError):
    """A file relmodel may not read or write (permissions); an environment error."""


class OutputPathError(RelmodelError, ValueError):
    """An output file name relmodel cannot write to (wrong type, missing folder...)."""


def is_environment_error(exc):
    """True for errors of the machine rather than of the input: permissions, disk, memory.

    The CLI exits 1 for these and 2 for input errors.  A missing input file
    (a wrong path) is an input error.

    Examples
    --------
    >>> is_environment_error(PermissionError("/data/log.csv")), is_environment_error(MemoryError())
    (True, True)
    >>> is_environment_error(FileNotFoundError("/data/log.csv")), is_environment_error(ValueError("bad"))
    (False, False)
    """
    if isinstance(exc, (MemoryError, KernelDiedError)):
        return True
    return isinstance(exc, OSError) and not isinstance(exc, FileNotFoundError)


class SuiteCopyError(RelmodelError, ValueError):
    """The notebook suite or bundled data cannot be found or copied where asked (a folder that holds them already)."""
# ----- operators' logs (Slurm accounting, kernel logs) ------------------------


class SacctFormatError(LogFormatError):
    """A Slurm ``sacct`` export that cannot be read (missing field, bad time, state or node list);
    the message names the file, the line and the field."""


class KernelLogError(LogFormatError):
    """A kernel log (syslog, dmesg, journalctl) line that cannot be read; the message names the
    file and the line."""


class UnknownJobError(LogFormatError):
    """A job name or id that a Slurm export does not hold; the message lists the jobs it has."""


class KernelJoinError(LogFormatError):
    """A kernel log joined to a Slurm export none of whose faults matches one of the run's interruptions;
    the message names the file and says what to give."""


__all__ += ["SacctFormatError", "KernelLogError", "UnknownJobError", "KernelJoinError"]
class OpTraceError(LogFormatError):
    """An operation-level training trace that cannot be analysed; the message says what is expected."""


class MissingOpsError(OpTraceError):
    """Operations missing from an op-level trace: a worker or step lacks ops the others have."""


class MissingRanksError(OpTraceError):
    """Data-parallel ranks or pipeline stages missing from an op-level trace, against the stated parallelism."""


class DuplicateOpError(OpTraceError):
    """The same operation (step, worker, op type, sequence number) recorded more than once."""


class OverlappingOpsError(OpTraceError):
    """Two operations of one stream of one worker overlap in time (a stream runs one op at a time)."""


class MissingTraceStepError(MissingOpsError, MissingStepsError):
    """A worker with no operations at all in a step of an op-level trace (the step is missing for it)."""


class OpGraphError(OpTraceError):
    """A dependency model that cannot be built or simulated (unknown op types, a cycle)."""


__all__ += ["OpTraceError", "MissingOpsError", "MissingRanksError", "DuplicateOpError", "OverlappingOpsError",
            "OpGraphError", "MissingTraceStepError"]


class SeparationWarning(UserWarning):
    """A regression fitted, but a covariate (level) separates failures from survivors: its
    estimate runs off to +-infinity, as R's ``coxph`` and ``survreg`` report it."""


__all__ += ["SeparationWarning"]


class KernelDiedError(ReportError):
    """A notebook's kernel died (killed, out of memory): a fault of the machine, exit status 1.
    The message names the notebook."""


class BudgetError(ResourceLimitError):
    """A request whose estimated cost (work or memory) is above the budget; the message gives
    the estimate, the budget and how to raise it."""
class ReportIncomplete(ReportError):
    """A report was written, but some of its notebooks stopped at a failing cell.

    ``report`` is the written :class:`relmodel.report.Report` (its
    summary.json says ``"status": "partial"``); ``failed`` names the notebooks
    that stopped.  The CLI exits with status 1.
    """

    def __init__(self, message, report=None, failed=()):
        super().__init__(message)
        self.report = report
        self.failed = tuple(failed)


__all__ += ["ReportIncomplete"]


class PrecisionWarning(UserWarning):
    """A Monte Carlo run sized to a precision hit its cap first; the message says how wide the interval is."""


__all__ += ["PrecisionWarning"]


class ReportFolderWarning(UserWarning):
    """A folder a stopped report run left was kept (wholly or in part): it holds files relmodel cannot prove it
    wrote; the message names the folder and what stays."""


__all__ += ["ReportFolderWarning"]


class BudgetWarning(UserWarning):
    """A budget set in the environment (RELMODEL_WORK_BUDGET, RELMODEL_MEMORY_BUDGET) cannot be read; the
    message names the variable, its value and the default used instead."""


__all__ += ["BudgetWarning"]
