"""Options shared by the CLI commands that read a log or count table."""

import functools
import json
import re

import click

from ..data import datasets

__all__ = ["log_options", "load_source", "observed_note", "echo_frame", "format_option", "cli_text"]

# Python argument names in library messages, and the options that set them here
_OPTIONS = [(r"window=\(t0, t1\)", "--window T0 T1"), (r"source_cluster=Cluster\(n_gpus=\.\.\.\)", "--source-gpus"),
            (r"\bper='(\w+)'", r"--per \1"), (r"; pass it to read_log", ""), (r"\bstart=\s?", "--start ")]
for _arg in ("time_format", "time_unit", "gpus_per_node", "n_nodes", "n_boot"):
    _OPTIONS += [(rf"\b{_arg}=(?=\S)", f"--{_arg.replace('_', '-')} "), (rf"\b{_arg}\b(?!=)", f"--{_arg.replace('_', '-')}")]


def cli_text(message):
    """A library message with argument names replaced by the command-line options that set them."""
    for pattern, option in _OPTIONS:
        message = re.sub(pattern, option, message)
    return message


def log_options(func):
    """Add --start/--end/--node/--cause/--planned/--time-format/--time-unit/--window to a command.

    The command receives them as one ``log_kwargs`` dict for :func:`load_source`.
    """
    opts = [
        click.option("--start", help="Column holding outage start times (needed for a file)."),
        click.option("--end", help="Column holding outage end times."),
        click.option("--node", multiple=True, help="Node column; repeat to combine columns."),
        click.option("--cause", multiple=True, help="Cause column; repeat for several levels."),
        click.option("--planned", help="Column marking planned outages (true/false)."),
        click.option("--time-format", help="strftime format of the timestamps, e.g. '%m/%d/%Y %H:%M'."),
        click.option("--time-unit", type=click.Choice(["s", "min", "h", "d"]),
                     help="Unit of numeric times."),
        click.option("--window", nargs=2, metavar="T0 T1", default=None,
                     help="Observation window, start and end, in the form of the times "
                     "[default: first to last event]."),
    ]

    @functools.wraps(func)
    def wrapper(*args, start, end, node, cause, planned, time_format, time_unit, window, **kwargs):
        kw = {"start": start, "end": end, "node": list(node) or None, "cause": list(cause) or None,
              "planned": planned, "time_format": time_format, "time_unit": time_unit,
              "window": tuple(window) if window else None}
        kwargs["log_kwargs"] = {k: v for k, v in kw.items() if v is not None}
        return func(*args, **kwargs)

    for opt in reversed(opts):
        wrapper = opt(wrapper)
    return wrapper


def load_source(log, log_kwargs):
    """A bundled dataset by name ("llama3", "stepfun", "lanl") or a file read with the log options.

    A file's reading warnings (rows merged or dropped, times guessed) are
    raised again, so the command prints them as Python would; the bundled
    datasets load quietly.
    """
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        source = datasets.load(log, **log_kwargs)
    if str(log).lower() not in datasets.NAMES:
        for w in caught:
            warnings.warn(w.message if isinstance(w.message, Warning) else str(w.message), stacklevel=2)
    return source


def observed_note(source, source_gpus):
    """A note when the observed cluster is taken as the nodes seen in a log, or None.

    ``source_gpus`` is what the user gave (None: not given).
    """
    if source_gpus is not None or getattr(source, "n_gpus", None) or not hasattr(source, "_n_nodes") \
            or source._n_nodes is not None or "node" not in getattr(source, "events", {}):
        return None
    nodes = int(source.n_nodes)
    gpn = getattr(source, "gpus_per_node", None) or 8
    return (f"the observed cluster is taken as the {nodes:,} nodes seen in the log ({nodes * gpn:,} GPUs at "
            f"{gpn} per node); pass --source-gpus if the log covers a larger cluster")


def format_option(func):
    """Add ``--format table|csv|json``."""
    return click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
                        show_default=True, help="Output format.")(func)


def echo_frame(df, fmt, floatfmt="{:,.4g}".format):
    """Print a DataFrame as a readable table, CSV or JSON records."""
    if fmt == "csv":
        click.echo(df.to_csv(index=False), nl=False)
    elif fmt == "json":
        click.echo(json.dumps(json.loads(df.to_json(orient="records")), indent=2))
    else:
        click.echo(df.to_string(index=False, float_format=floatfmt))
