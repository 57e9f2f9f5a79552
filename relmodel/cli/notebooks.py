"""``relmodel notebooks``: where the notebook suite is, and a writable copy for JupyterLab."""

import click

from .common import echo
from ..resources import copy_notebooks, notebook_dir

__all__ = ["command"]


@click.command("notebooks")
@click.option("--copy", "target", type=click.Path(file_okay=False, writable=True), metavar="DIR",
              help="Copy the suite into DIR (created if missing; nothing there is overwritten).")
def command(target):
    """Print the folder of the notebook suite, or copy it somewhere writable.

    \b
    Examples:
      relmodel notebooks                       # the folder of the installed suite
      relmodel notebooks --copy my-notebooks   # then: jupyter lab my-notebooks
    """
    if target is None:
        echo(str(notebook_dir()))
        return
    copied = copy_notebooks(target)
    echo(f"copied {len(copied)} notebooks to {click.format_filename(target)}; "
               f"open them with: jupyter lab {click.format_filename(target)}")
