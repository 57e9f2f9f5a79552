"""The ``relmodel`` command line: a thin layer over the package.

Each command lives in its own ``cli_*.py`` module and is registered below.
Errors from :mod:`relmodel.errors` become one line on stderr: exit code 2 for
input errors, 1 for errors of the machine (permissions, full disk, memory).
"""

import sys

import click

from ..errors import RelmodelError, is_environment_error
from .common import cli_text

__all__ = ["main", "cli", "fail"]


def fail(exc, code=2, options=True):
    """Print an error as one line (with ``options``, arguments named as the command line spells them) and exit."""
    text = " ".join((cli_text(str(exc)) if options else str(exc)).split())
    click.echo(f"relmodel: error: {text}", err=True)
    sys.exit(code)


def _environment(exc):
    if isinstance(exc, MemoryError):
        return "out of memory; ask for less (fewer resamples, replicas or rows) or use a bigger machine"
    where_ = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
    return f"{where_}{exc.strerror or exc}"


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except RelmodelError as exc:  # report parameters keep their own names
            fail(exc, 1 if is_environment_error(exc) else 2, options=ctx.invoked_subcommand != "report")
        except FileNotFoundError as exc:
            fail(f"file not found: {exc.filename}")
        except (MemoryError, OSError) as exc:
            fail(_environment(exc), 1)


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
    """Entry point of the ``relmodel`` console script."""
    cli.main(args=argv, prog_name="relmodel")
