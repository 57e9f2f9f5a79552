"""The ``relmodel`` command line: a thin layer over the package.

Each command lives in its own module of :mod:`relmodel.cli` and is registered
below. Errors become one line on stderr, never a traceback, with the exit
status saying whose problem it is:

* 2: bad input (every :mod:`relmodel.errors` class, a missing file);
* 1: the environment (:class:`~relmodel.errors.ReportWriteError`, a full
  disk, a folder without write permission: any other ``OSError``);
* 1 also: a partial report (written, but a notebook stopped at a failing cell);
* 130: interrupted (Ctrl-C); kernels and temporary folders are cleaned up first;
* 143: stopped by SIGTERM, 129: by SIGHUP (a closed terminal); a report is cleaned up as after Ctrl-C.

Warnings (such as durations that look swapped) are one line each on stderr.
"""

import sys
import warnings

import click

from ..errors import ArgumentOrderWarning, RelmodelError, is_environment_error
from ..base.progress import listen
from .common import echo, cli_text
from .progress_bar import Bar

__all__ = ["main", "cli", "fail", "EXIT_INPUT", "EXIT_ENVIRONMENT", "EXIT_INTERRUPTED", "EXIT_TERMINATED", "EXIT_PARTIAL"]

EXIT_INPUT, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 2, 1, 130
EXIT_TERMINATED, EXIT_HANGUP = 143, 129  # SIGTERM, SIGHUP: cleaned up as after Ctrl-C

#: A report was written but a notebook stopped at a failing cell.
EXIT_PARTIAL = 1


def fail(exc, status=EXIT_INPUT, options=True):
    """Print an error as one line on stderr and exit with ``status`` (2: bad input).

    ``exc`` is an exception or a message (for a bad file, naming its path);
    ``status`` is the exit status (a code: 2 bad input, 1 environment,
    130 interrupted); with ``options``, arguments are named as the command
    line spells them (``--time-unit`` for ``time_unit``).  Never returns: it
    raises ``SystemExit``.

    Examples
    --------
    >>> from relmodel.errors import ModelInputError
    >>> try:
    ...     fail(ModelInputError("ckpt_cost must be a positive duration"))   # one line on stderr
    ... except SystemExit as e:
    ...     print(e.code)
    2
    """
    text = " ".join((cli_text(str(exc)) if options else str(exc)).split())
    echo(f"relmodel: error: {text}", err=True)
    sys.exit(status)


def _environment(exc):
    if isinstance(exc, MemoryError):
        return "out of memory; ask for less (fewer resamples, replicas or rows) or use a bigger machine"
    where_ = f"{exc.filename}: " if getattr(exc, "filename", None) and str(exc.filename) not in str(exc.strerror) else ""
    return f"{where_}{exc.strerror or exc}"


def _one_line(message, category, filename, lineno, file=None, line=None):
    if issubclass(category, ArgumentOrderWarning):
        # flags are named: what helps is the comparison ("ckpt_cost (3 h) is at or above mtbf (45 s)"), once,
        # not the Python signature the message names for a caller's positional durations
        head = str(message).split(": the arguments may be swapped", 1)[0]
        if _SAID.get("order"):
            return
        _SAID["order"] = True
        message = f"{head}: check the values given"
    echo(f"relmodel: warning: {message}", err=True)


_SAID = {}


class _Group(click.Group):
    def list_commands(self, ctx):
        return sorted(name for name in COMMANDS if _installed(name))

    def get_command(self, ctx, cmd_name):
        try:
            return self.commands[cmd_name]
        except KeyError:
            return None

    def format_commands(self, ctx, formatter):  # the listed lines, without importing every command
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        with formatter.section("Commands"):
            # click's own shortening, through the public Command API (click.utils' helper is deprecated in click 8.5)
            formatter.write_dl([(n, click.Command(n, help=COMMANDS[n][1]).get_short_help_str(limit)) for n in names])

    def make_context(self, *args, **kwargs):  # Ctrl-C while the options are read: 130, no "Aborted!"
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            echo("relmodel: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)

    def invoke(self, ctx):
        with warnings.catch_warnings():  # warnings as one line each on stderr
            warnings.showwarning = _one_line
            _SAID.clear()
            # numpy's arithmetic warnings on the way to an answer say nothing to a user of the command line
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                with listen(Bar()):  # long library loops: a bar on a terminal's stderr
                    return super().invoke(ctx)
            except KeyboardInterrupt as exc:
                text = str(exc) if isinstance(exc, RelmodelError) and str(exc) else "interrupted"
                echo(f"relmodel: {text}", err=True)
                from ..report.kernels.interrupts import exit_status
                sys.exit(exit_status())
            except click.UsageError as exc:  # a bad option value: one line, not click's usage block
                hint = f" (see 'relmodel {ctx.invoked_subcommand} --help')" if ctx.invoked_subcommand else ""
                fail(exc.format_message() + hint, EXIT_INPUT, options=False)
            except RelmodelError as exc:  # report parameters keep their own names
                status = EXIT_ENVIRONMENT if is_environment_error(exc) else EXIT_INPUT
                fail(exc, status, options=ctx.invoked_subcommand != "report")
            except FileNotFoundError as exc:
                fail(f"file not found: {exc.filename}")
            except (MemoryError, OSError) as exc:  # disk full, permission denied, read-only file system
                fail(_environment(exc), EXIT_ENVIRONMENT)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="relmodel")
def cli():
    """Failure rates, MTBF requirements and checkpoint intervals for GPU clusters.

    \b
    Examples:
      relmodel rates                       # Llama 3 54-day interruptions, per job
      relmodel rates --per node
      relmodel rates mylog.csv --start time --cause reason
    """


#: Each command: its module in relmodel.cli (imported when the command is first used, so ``relmodel --help``
#: and ``relmodel report --help`` load only what they show) and the line ``relmodel --help`` lists it with
#: (the first line of the command's docstring; a test holds the two the same).
COMMANDS = {
    "rates": ("rates", "Failure rate, MTBF (with confidence bounds) and FIT per component."),
    "fit": ("fit", "Fit failure-time distributions to a log and rank them by AIC."),
    "interval": ("interval", "Checkpoint intervals (Young, Daly, exact) with ETTR and the lost-time breakdown."),
    "requirements": ("requirements", "Per-node, per-GPU and per-component MTBF/FIT needed for a target ETTR."),
    "report": ("report", "Run the notebooks through Papermill and write an HTML report."),
    "notebooks": ("notebooks", "Print the folder of the notebook suite, or copy it somewhere writable."),
    "nodes": ("nodes", "Bad nodes: which nodes fail again and again, and whether repairs fix them."),
    "forecast-check": ("forecast_check", "Forecast the last part of each log from its first part; check the ranges."),
}


class _Commands(dict):
    """The commands by name, each imported from its module the first time it is looked up."""

    def __missing__(self, name):
        import importlib
        if name not in COMMANDS:
            raise KeyError(name)
        module = f"{__package__}.{COMMANDS[name][0]}"
        from ..base.quiet_start import quiet_while
        try:
            with quiet_while():  # a Ctrl-C inside pandas' compiled imports would be an ImportError
                command = importlib.import_module(module).command
        except ModuleNotFoundError as exc:  # a command whose module is not installed is not offered
            if exc.name != module:
                raise
            raise KeyError(name) from None
        self[name] = command
        return command


def _installed(name):
    import importlib.util
    return importlib.util.find_spec(f"{__package__}.{COMMANDS[name][0]}") is not None


cli.commands = _Commands()


def main(argv=None):
    """Entry point of the ``relmodel`` console script.

    ``argv`` is a list of strings (default ``sys.argv``); durations in options take ``"45s"``, ``"10min"``, ``"3h"``.

    Examples
    --------
    >>> try:
    ...     main(["interval", "--mtbf", "-3h"])    # a bad value: one line on stderr, exit status 2
    ... except SystemExit as e:
    ...     print("exit", e.code)
    exit 2
    """
    from ..base.quiet_start import release
    release()  # from here on, Ctrl-C goes through the cleanup below
    try:
        cli.main(args=argv, prog_name="relmodel")
    except SystemExit as exc:
        if exc.code in (EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_HANGUP):
            # Kernels and temporary folders are already cleaned up; do not wait seconds for
            # messaging threads and sockets to wind down at interpreter exit.
            import os
            from ..report.kernels.worker_start import remove_pool_folder
            remove_pool_folder()  # what the skipped interpreter exit would have removed
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(exc.code)
        raise
