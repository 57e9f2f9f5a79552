"""Options shared by the CLI commands that read a log or count table."""

import functools
import json
import re

import click

from ..errors import ModelInputError, UnitError
from ..base.escape import csv_frame, terminal_text

__all__ = ["log_options", "load_source", "observed_note", "echo", "echo_frame", "terminal_table", "format_option", "cli_text", "unit_of",
           "with_population", "population_option", "scenario_option", "scenario_from"]

# Python argument names in library messages, and the options that set them here
_OPTIONS = [(r", or its length from the first outage, e\.g\. window='54d'", ""),
            (r"window=\(t0, t1\)", "--window T0 T1"), (r"source_cluster=Cluster\(n_gpus=\.\.\.\)", "--source-gpus"),
            (r"\bper='(\w+)'", r"--per \1"), (r"; pass it to read_log", ""), (r"\bstart=\s?", "--start "),
            (r"\(min_outage\)", "(--min-outage)")]
_OPTIONS += [(r"\bpass exposure\b", "pass --exposure"), (r"\bexposure=(?=\S)", "--exposure ")]
for _arg in ("time_format", "time_unit", "gpus_per_node", "n_nodes", "n_boot", "units_per_node", "source_gpus",
             "n_gpus", "target_ettr", "ckpt_cost", "restart", "conf", "spare_target", "repair_time", "crews"):
    _OPTIONS += [(rf"\b{_arg}=(?=\S)", f"--{_arg.replace('_', '-')} "), (rf"\b{_arg}\b(?!=)", f"--{_arg.replace('_', '-')}")]


def echo(message="", **kwargs):
    """``click.echo`` for everything the command line prints: control bytes from data, file names or
    messages (a terminal escape sequence in a cause or job name) are shown escaped, never sent raw."""
    click.echo(terminal_text(message), **kwargs)


def cli_text(message):
    """A library message with argument names replaced by the command-line options that set them."""
    for pattern, option in _OPTIONS:
        message = re.sub(pattern, option, message)
    return message


def scenario_option(name, *aliases, **overrides):
    """The option of the scenario field ``name`` (:data:`relmodel.scenario.FIELDS`): its flag (``--ckpt-cost``),
    help text and default come from the field, so the command line says what the API and the report say.
    ``aliases`` are older flags kept working (``--gpus`` for ``--n-gpus``)."""
    from ..scenario import Scenario
    f = Scenario.field(name)
    kw = {"help": f"{f.help[:1].upper()}{f.help[1:]}."}
    if f.kind.startswith("count"):
        kw["type"] = click.IntRange(min=0 if name == "gpus_per_node" else 1)
    elif f.kind.startswith("number"):
        kw["type"] = click.FloatRange(0, min_open=True)
    elif f.kind == "fraction":
        kw["type"] = click.FloatRange(0, 1, min_open=True, max_open=True)
    elif f.kind == "choice":
        kw["type"] = click.Choice(f.choices)
    elif f.kind == "list":
        kw.update(multiple=True, metavar="CAUSE=UNIT")
    elif f.kind.startswith("duration"):
        kw["metavar"] = "DURATION"
    if f.kind == "bool":
        flags = [f"{f.option}/--no-{f.option[2:]}"]
        kw.update(default=f.default, show_default=True)
    else:
        flags = [f.option, *aliases]
        if f.default is None:
            kw.update(default=None, help=kw["help"] + f" [default: {f.default_from}]")
        elif f.kind != "list":
            kw.update(default=f.default, show_default=True)
    kw.update(overrides)
    return click.option(*flags, name, **kw)


def scenario_from(**values):
    """The :class:`~relmodel.scenario.Scenario` of a command's scenario options (None and empty values: the
    defaults)."""
    from ..errors import ScenarioError
    from ..scenario import Scenario
    try:
        return Scenario(**{k: v for k, v in values.items() if v is not None and v != ()})
    except ScenarioError as err:  # the message starts with the field's name: say the option instead
        name = str(err).split(" ", 1)[0].rstrip(":")
        text = str(err)
        if name in values:
            text = Scenario.field(name).option + text[len(name):]
        raise ScenarioError(text) from None


def log_options(func):
    """Add --start/--end/--node/--cause/--planned/--time-format/--time-unit/--window/--log-format/--job/--year
    and --min-outage.

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
        click.option("--log-format", type=click.Choice(["table", "sacct", "xid"]),
                     help="What LOG is: a table of outages, a Slurm 'sacct -P' export or a kernel log "
                     "(syslog, dmesg -T, journalctl) [default: recognised from the file's first lines]."),
        click.option("--job", help="For a Slurm export: the job name, id or array task id of the run."),
        click.option("--year", type=click.IntRange(1970, 2200),
                     help="For a syslog that omits years: the year of the log's first line (a folder's "
                     "earliest); each later line's year follows from the order of all the lines."),
        click.option("--syslog", type=click.Path(exists=True, dir_okay=False),
                     help="For a Slurm export: the kernel log of the run's nodes, joined to it (detection "
                     "latency measured; read with --year)."),
        click.option("--exposure", metavar="DURATION",
                     help="For a count table (a CSV with component and count columns): how long its cluster "
                     "was observed, e.g. '54d' [default: its exposure_h or days column]."),
        click.option("--min-outage", metavar="DURATION",
                     help="Drop outages shorter than this, e.g. '10min' (reboots) [default: keep all]."),
        click.option("--unit", type=click.Choice(["gpu-node", "node", "disk", "server"]), default=None,
                     help="What one row's node is: a GPU node, or a node, disk or server without GPUs (then "
                     "no GPU figures are given for the log) [default: gpu-node]."),
    ]

    @functools.wraps(func)
    def wrapper(*args, start, end, node, cause, planned, time_format, time_unit, window, log_format, job, year,
                min_outage=None, unit=None, syslog=None, exposure=None, **kwargs):
        kw = {"start": start, "end": end, "node": list(node) or None, "cause": list(cause) or None,
              "planned": planned, "time_format": time_format, "time_unit": time_unit,
              "window": tuple(window) if window else None, "format": log_format, "job": job, "year": year,
              "min_outage": min_outage, "unit": unit, "syslog": syslog, "exposure": exposure}
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
    from ..data.bundled import datasets
    from ..data.shaping.outages import drop_short_outages
    from ..data.shaping.readers import require_existing
    if str(log).lower() not in datasets.NAMES:
        require_existing(log)  # named as missing, not as a file that lacks --start or --log-format
    min_outage = log_kwargs.pop("min_outage", None)
    unit = log_kwargs.pop("unit", None) or "gpu-node"
    if unit != "gpu-node" and str(log).lower() in datasets.NAMES:
        raise UnitError(f"--unit {unit}: the bundled data set {log!r} has its own units; --unit is for a log file")
    from ..data.source import is_count_file
    exposure = log_kwargs.pop("exposure", None)
    source_gpus = log_kwargs.pop("source_gpus", None)
    if str(log).lower() not in datasets.NAMES and "start" not in log_kwargs and is_count_file(log):
        return _short_dropped(_count_table(log, log_kwargs, exposure, source_gpus, unit), min_outage,
                              drop_short_outages)
    if exposure is not None:
        raise ModelInputError(f"--exposure {exposure}: the observation time is for a count table (a CSV with "
                              f"component and count columns); {str(log)!r:.80} is read as an event log, whose "
                              "window is --window")
    ops = {k: log_kwargs.pop(k) for k in ("format", "job", "year", "syslog") if k in log_kwargs}
    operator_log = _operator_log(log, log_kwargs, ops)
    if operator_log is not None:
        return _with_unit(_short_dropped(operator_log, min_outage, drop_short_outages), unit)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        source = datasets.load(log, **log_kwargs)
    if str(log).lower() not in datasets.NAMES:
        for w in caught:
            warnings.warn(w.message if isinstance(w.message, Warning) else str(w.message), stacklevel=2)
    return _with_unit(_short_dropped(source, min_outage, drop_short_outages), unit)


def _count_table(log, log_kwargs, exposure, source_gpus, unit):
    """A count table file read as the library's ``load_source`` reads it, with --exposure and the cluster options."""
    from ..data.source import load_source as read_source
    if unit != "gpu-node":
        raise UnitError(f"--unit {unit}: {log} is a count table, counted over GPUs; --unit is for an event log")
    extra = sorted(k for k, v in log_kwargs.items() if k not in ("n_nodes", "gpus_per_node") and v is not None)
    if extra:
        raise ModelInputError(f"{log} is a count table (component and count columns); the event-log options "
                              f"{', '.join('--' + k.replace('_', '-') for k in extra)} do not apply to it")
    gpn = log_kwargs.get("gpus_per_node") or 8
    if source_gpus is None and log_kwargs.get("n_nodes"):
        source_gpus = log_kwargs["n_nodes"] * gpn
    return read_source(log, exposure=exposure, source_gpus=source_gpus, gpus_per_node=gpn).data


def unit_of(source):
    """What one row's node of ``source`` is ("gpu-node" unless --unit said otherwise)."""
    return getattr(source, "_unit", "gpu-node")


def _with_unit(source, unit):
    if unit != "gpu-node":
        object.__setattr__(source, "_unit", unit)
    return source


def _short_dropped(source, min_outage, drop):
    """``source`` without outages shorter than --min-outage (a count table cannot be filtered)."""
    if min_outage is None:
        return source
    if not hasattr(source, "events"):
        from ..errors import MissingColumnError
        raise MissingColumnError("--min-outage needs an event log with outage end times; a count table has "
                                 "no outage lengths")
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        short = drop(source, min_outage)
    for w in caught:  # said with the option's name
        warnings.warn(w.category(cli_text(str(w.message))), stacklevel=3)
    return short


def observed_note(source, source_gpus):
    """A note when the observed cluster is taken as the nodes seen in a log, or None.

    ``source_gpus`` is what the user gave (None: not given).
    """
    if source_gpus is not None or getattr(source, "n_gpus", None) or not hasattr(source, "_n_nodes") \
            or source._n_nodes is not None or "node" not in getattr(source, "events", {}):
        return None
    nodes = int(source.n_nodes)
    unit = unit_of(source)
    if unit != "gpu-node":
        return (f"the observed {unit}s are taken as the {nodes:,} seen in the log; {unit}s that never failed are "
                f"not in it, so rates per {unit} may be too high")
    gpn = getattr(source, "gpus_per_node", None) or 8
    return (f"the observed cluster is taken as the {nodes:,} nodes seen in the log ({nodes * gpn:,} GPUs at "
            f"{gpn} per node); pass --source-gpus if the log covers a larger cluster")


def _operator_log(log, log_kwargs, ops):
    """A Slurm export or kernel log named by --log-format or recognised; None for a table or a bundled name."""
    from ..data.formats.operators import operator_source
    columns = {k: v for k, v in log_kwargs.items() if k not in ("n_nodes", "gpus_per_node")}
    gpn = log_kwargs.get("gpus_per_node") or 8
    gpus = log_kwargs["n_nodes"] * gpn if log_kwargs.get("n_nodes") else None
    found = operator_source(log, ops.get("format"), columns, job=ops.get("job"), year=ops.get("year"),
                            source_gpus=gpus, gpus_per_node=gpn, syslog=ops.get("syslog"))
    if found is None:
        if ops.get("syslog") is not None:
            from ..errors import InputTypeError
            raise InputTypeError(f"--syslog: a kernel log is joined to a Slurm export, but {str(log)!r:.80} is not "
                                 "read as one; give --log-format sacct")
        return None
    for note in found[-1]:
        echo(f"note: {note}" + (" Pass --log-format to choose." if "recognised" in note else ""), err=True)
    return found[0]


def format_option(func):
    """Add ``--format table|csv|json``."""
    return click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
                        show_default=True, help="Output format.")(func)


def _four_digits(x):
    """A table cell for a person: four significant digits, thousands separated, never an exponent."""
    from ..tables import sig
    return sig(x, 4)


def echo_frame(df, fmt, floatfmt=_four_digits):
    """Print a DataFrame as a readable table, CSV (text cells escaped for spreadsheets) or JSON records."""
    if fmt == "csv":
        echo(csv_frame(df).to_csv(index=False), nl=False)  # no cell runs as a formula
    elif fmt == "json":
        echo(json.dumps(json.loads(df.to_json(orient="records")), indent=2))
    else:
        echo(terminal_table(df, floatfmt))


def terminal_table(df, floatfmt=None):
    """``df`` as a text table for a terminal: text cells escaped before the columns are lined up, so a name with
    control characters or an escape sequence is shown as it is and keeps the table aligned."""
    shown = df.copy()
    for column in shown.columns:
        if shown[column].dtype == object or str(shown[column].dtype) in ("string", "category"):
            shown[column] = shown[column].map(lambda v: terminal_text(v) if isinstance(v, str) else v)
    shown.columns = [terminal_text(c) if isinstance(c, str) else c for c in shown.columns]
    return shown.to_string(index=False, float_format=floatfmt, na_rep="—")


def population_option(fn):
    """``--population N``: the units the log observed in all, failed or not (the report's ``population``)."""
    return click.option("--population", type=click.IntRange(min=1),
                        help="For a log file: units (nodes, servers, disks) observed in all, failed or not "
                             "[default: the nodes the log names]; the report's population.")(fn)


def with_population(source, population, source_gpus=None, source_gpus_per_node=None):
    """``(source, source_gpus)`` with ``--population`` applied: a log of GPU nodes gets ``source_gpus`` of that
    many nodes (checked against a --source-gpus given), a log of other units that many units."""
    if population is None:
        return source, source_gpus
    from ..errors import CountError
    if not hasattr(source, "events"):
        raise ModelInputError(f"--population {population:,} is for an event log; a count table's cluster is "
                              f"its n_gpus column or --source-gpus")
    seen = int(source.events["node"].nunique()) if "node" in source.events else 0
    if population < seen:
        raise CountError(f"--population {population:,} is fewer than the {seen:,} nodes the log names; give every "
                         f"unit the log observed, failed or not")
    source._population = int(population)
    if unit_of(source) != "gpu-node":
        source._n_nodes = int(population)
        return source, None
    gpn = int(source_gpus_per_node or getattr(source, "gpus_per_node", None) or 8)
    if source_gpus is not None and source_gpus != population * gpn:
        raise CountError(f"--population {population:,} at {gpn} GPUs a node is not --source-gpus {source_gpus:,}; "
                         f"give one of them")
    return source, population * gpn
