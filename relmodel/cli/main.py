"""The ``relmodel`` command line: a thin layer over the package.

Each command lives in its own ``cli_*.py`` module and is registered below.
Errors from :mod:`relmodel.errors` become one line on stderr and exit code 2;
warnings (such as durations that look swapped) one line each on stderr.
"""

import sys
import warnings

import click

from ..errors import RelmodelError

__all__ = ["main", "cli", "fail"]


def fail(exc):
    """Print a relmodel error as one line and exit 2.

    ``exc`` is an exception or a message; the exit status is 2 (a count of nothing: a code).

    Examples
    --------
    >>> from relmodel.errors import ModelInputError
    >>> try:
    ...     fail(ModelInputError("ckpt_cost must be a positive duration"))   # one line on stderr
    ... except SystemExit as e:
    ...     print(e.code)
    2
    """
    click.echo(f"relmodel: error: {exc}", err=True)
    sys.exit(2)


def _one_line(message, category, filename, lineno, file=None, line=None):
    click.echo(f"relmodel: warning: {message}", err=True)


class _Group(click.Group):
    def invoke(self, ctx):
        with warnings.catch_warnings():  # warnings (e.g. swapped durations) as one line each on stderr
            warnings.showwarning = _one_line
            try:
                return super().invoke(ctx)
            except RelmodelError as exc:
                fail(exc)
            except FileNotFoundError as exc:
                fail(f"file not found: {exc.filename}")


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


def _register():
    import importlib
    for name in ("rates", "fit", "interval", "requirements", "report"):
        try:
            mod = importlib.import_module(f".{name}", __package__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{name}":
                raise
            continue
        cli.add_command(mod.command)


_register()


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
    cli.main(args=argv, prog_name="relmodel")
