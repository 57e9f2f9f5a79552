"""Value rules for report parameters, checked before any kernel starts.

One table, :data:`RULES`, keyed by parameter name. A value that already has the
parameter's declared type (see :mod:`relmodel.report.pipeline.params`) must also pass
the rule for its name; ``None`` (where the annotation allows it) skips the rule.

======================  ====================================================
parameter               valid values
======================  ====================================================
n_gpus, sizes[]         whole number of GPUs, 1 to 100,000,000
gpus_per_node           whole number, 0 to 1,024 (0: the log's units hold no
                        GPUs; the planned job then has 8 GPUs a node)
unit                    "gpu-node", "node", "disk" or "server": what one
                        row's node of the log is
window                  an event log's observation window: a duration > 0
                        from the first outage ("54d"), or [t0, t1] in the
                        form of the log's times
n_runs                  whole number of simulated runs, 2 to 100,000
n_points, top           whole number, 1 to 100,000
policy_runs             whole number of runs a retirement policy, 2 to 10,000
population              whole number of nodes the log observed, 1 to 100,000,000
n_spares_max            whole number, 1 to 100,000
n_boot                  whole number, 0 to 100,000
seed                    whole number, 0 to 2**32 - 1
target_ettr, conf,      fraction strictly between 0 and 1
alpha, availability,
spare_target
fast_fraction           fraction from 0 to 1
ckpt_cost, work, stall, duration > 0 (at most 100,000 h): "45s", "5min",
fast_cost, persist,     "3h", "2d" or a number of hours; a checkpoint cost
repair_time,            (ckpt_cost, ckpt_costs, fast_cost, persist) at most
ckpt_costs[]            1 day and shorter than work (:mod:`.pipeline.input_rules`)
restart                 duration >= 0 (at most 100,000 h)
mtbf_h                  number of hours > 0
durations               "uptimes" or "interarrivals"
families[]              known family names (relmodel.stats.lifetimes.registry), >= 1
repair                  "empirical" or a known family name
log                     a bundled data set name (relmodel.datasets.NAMES) or
                        an existing log file; a relative path is resolved
                        from the caller's working folder
start, end, node,       a column in the log file's header (only the header is
cause, planned, column  read); a bundled log takes no column names except
                        ``column``, one of its cause columns
format                  "table", "sacct" or "xid" (None: recognised from the file)
job                     a job name, id or array task id (Slurm exports)
year                    whole year 1970 to 9999 (syslog without years)
syslog                  an existing kernel log file of a Slurm run's nodes,
                        joined to the export (``format`` "sacct")
ckpt_interval           duration > 0 (the interval a past Slurm run used)
min_outage              duration > 0: shorter outages are dropped (None: keep all)
======================  ====================================================

List parameters (``name[]`` above) must be non-empty and every element must
pass the rule.  :func:`check_values` applies the table and returns the values
to pass on (``log`` as an absolute path); the validate step then has :mod:`.pipeline.input_rules` read the
files named (log, steps, trace, lives, data_path) as their pages will.
"""

import math
import warnings
from pathlib import Path

from ...errors import DurationError, ParameterError
from ...base.escape import brief
from ...units import hours
from .source_rules import WINDOWS, check_bundled as _check_bundled, check_window as _check_window, \
    non_gpu as _non_gpu

__all__ = ["check_scale", "RULES", "DURATIONS", "COLUMNS", "PATHS", "WINDOWS", "check_values", "log_header", "normalise"]

_MAX_H = 100_000.0


def _whole(lo, hi):
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _open_fraction(v):
    return _number(v) and 0 < v < 1


def _closed_fraction(v):
    return _number(v) and 0 <= v <= 1


def _hours_or_none(v):
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        return None
    try:
        h = hours(v)
    except (DurationError, TypeError, ValueError):
        return None
    return h if math.isfinite(h) else None


def _positive_duration(v):
    h = _hours_or_none(v)
    return h is not None and 0 < h <= _MAX_H


def _duration_or_zero(v):
    h = _hours_or_none(v)
    return h is not None and 0 <= h <= _MAX_H


def _family(v):
    from ...stats.lifetimes.registry import get_family
    try:
        get_family(v)
    except (ValueError, TypeError):
        return False
    return isinstance(v, str)


def _families_text():
    from ...stats.lifetimes.registry import FAMILIES
    return "known family names: " + ", ".join(FAMILIES)


#: name -> (check of one value or element, what is valid, is a list)
RULES = {
    "n_gpus": (_whole(1, 10**8), "a whole number of GPUs from 1 to 100,000,000", False),
    "population": (_whole(1, 10**8), "a whole number of nodes from 1 to 100,000,000, or null", False),
    "sizes": (_whole(1, 10**8), "whole numbers of GPUs from 1 to 100,000,000", True),
    "gpus_per_node": (_whole(0, 1024), "a whole number from 0 to 1,024 (0: the log's units hold no GPUs)", False),
    "unit": (lambda v: v in ("gpu-node", "node", "disk", "server"),
             "'gpu-node' (default), or 'node', 'disk', 'server' for units without GPUs", False),
    "n_runs": (_whole(2, 100_000), "a whole number of simulated runs from 2 to 100,000", False),
    "n_points": (_whole(1, 100_000), "a whole number from 1 to 100,000", False),
    "policy_runs": (_whole(2, 10_000), "a whole number of simulated runs from 2 to 10,000", False),
    "top": (_whole(1, 100_000), "a whole number from 1 to 100,000", False),
    "n_spares_max": (_whole(1, 100_000), "a whole number from 1 to 100,000", False),
    "n_boot": (_whole(0, 100_000), "a whole number from 0 to 100,000", False),
    "seed": (_whole(0, 2**32 - 1), "a whole number from 0 to 4,294,967,295", False),
    "target_ettr": (_open_fraction, "a fraction strictly between 0 and 1", False),
    "conf": (_open_fraction, "a fraction strictly between 0 and 1", False),
    "alpha": (_open_fraction, "a significance level strictly between 0 and 1", False),
    "availability": (_open_fraction, "a fraction strictly between 0 and 1", False),
    "spare_target": (_open_fraction, "a probability strictly between 0 and 1", False),
    "fast_fraction": (_closed_fraction, "a fraction from 0 to 1", False),
    "mtbf_h": (lambda v: _number(v) and v > 0, "a number of hours > 0", False),
    "durations": (lambda v: v in ("auto", "uptimes", "interarrivals"), "'auto', 'uptimes' or 'interarrivals'", False),
    "source_gpus": (_whole(1, 10**8), "a whole number of GPUs from 1 to 100,000,000, or null", False),
    "time_unit": (lambda v: v in ("s", "min", "h", "d"), "one of 's', 'min', 'h', 'd', or null", False),
    "families": (_family, None, True),
    "repair": (lambda v: v == "empirical" or _family(v), None, False),
    "restart": (_duration_or_zero, "a duration >= 0 such as '10min', '0s' or 0.2 (hours)", False),
    "ckpt_costs": (_positive_duration, "durations > 0 such as '30s', '1min', '5min'", True),
}
for _name, _example in (("ckpt_cost", "'1min'"), ("work", "'30d'"), ("stall", "'10s'"),
                        ("fast_cost", "'10s'"), ("persist", "'5min'"), ("repair_time", "'2d'"),
                        ("exposure", "'54d'")):
    RULES[_name] = (_positive_duration, f"a duration > 0 such as {_example}, '45s' or 0.5 (hours), "
                                        "at most 100,000 hours", False)

def _design(v):
    from ...scale.design.designs import design_presets
    return isinstance(v, str) and v in design_presets(1024)


def _nonneg(v):
    return _number(v) and v >= 0


# Rules of the designs, stragglers and covariates pages (names from their parameters cells).
RULES.update({
    "design": (_design, "one of the named designs: h100-rail, h100-fat-tree, nvl72-whole-rack, "
                        "nvl72-in-rack-spares, nvl72-dual-plane", False),
    "designs": (_design, "named designs: h100-rail, h100-fat-tree, nvl72-whole-rack, nvl72-in-rack-spares, "
                         "nvl72-dual-plane", True),
    "optics_share": (_open_fraction, "a fraction strictly between 0 and 1", False),
    "tolerated_share": (_closed_fraction, "a fraction from 0 to 1", False),
    "domain_fit": (_nonneg, "a FIT rate >= 0 (failures per 10^9 domain-hours)", False),
    "n_synthetic": (_whole(10, 1_000_000), "a whole number of GPUs from 10 to 1,000,000", False),
    "max_lives": (_whole(0, 10**8), "a whole number from 0 (all lives) to 100,000,000", False),
    "min_slowdown": (lambda v: _number(v) and 0 <= v < 10, "a share from 0 to 10 (0.02: 2% slower)", False),
    "fail_slow_slowdown": (lambda v: _number(v) and 0 <= v <= 99, "a fraction from 0 to 99 (0.2: 20% slower)", False),
    "fail_slow_rate": (lambda v: _number(v) and 0 <= v <= 1, "a rate per node-hour from 0 to 1", False),
    "baseline": (lambda v: v in ("median", "mean"), "'median' or 'mean'", False),
    "detection": (_duration_or_zero, "a duration >= 0 such as '30min' or 0.5 (hours)", False),
})

#: Parameters that name a file (``"file"``) or a folder (``"folder"``); relative paths are
#: resolved from the caller's working folder, and the path must exist.
PATHS = {"data_path": "folder"}
PATHS.update(steps="file", lives="file", trace="file", syslog="file")  # the stragglers page's step log and op-level trace, the
# covariates page's lifetime table
RULES.update({  # the designs, stragglers and covariates pages' newer parameters
    "efficiency": (lambda v: _number(v) and 0 < v <= 1, "a fraction above 0, at most 1", False),
    "straggler_loss": (lambda v: _number(v) and 0 <= v < 1, "a fraction from 0, below 1", False),
    "shelf_spares": (_whole(0, 10**7), "a whole number of spare trays or nodes from 0 to 10,000,000, or null", False),
    "shelf_days": (_whole(1, 3650), "a whole number of days from 1 to 3,650", False),
    "rma_time": (_positive_duration, "a duration > 0 such as '10d'", False),
    "step_unit": (lambda v: v in ("s", "ms", "us", "min", "h"), "one of 's', 'ms', 'us', 'min', 'h'", False),
    "lives_unit": (lambda v: v in ("s", "min", "h", "d"), "one of 's', 'min', 'h', 'd'", False),
})


def _expand(name, value):
    """``value`` as a path with ``~`` expanded; a ``~user`` that names no user is a ParameterError."""
    try:
        return Path(value).expanduser()
    except RuntimeError:  # pathlib: "Could not determine home directory"
        raise ParameterError(f"parameter {name!r} = {brief(value)}: {brief(value.split('/')[0])} names no user's "
                             "home folder; give the path in full") from None


def _resolve_path(name, value, cwd):
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"parameter {name!r} must be a path to a {PATHS[name]}, got {brief(value)}")
    path = _expand(name, value)
    path = path if path.is_absolute() else Path(cwd) / path
    ok = path.is_file() if PATHS[name] == "file" else path.is_dir()
    if not ok:
        raise ParameterError(f"parameter {name!r} = {brief(value)}: no such {PATHS[name]} "
                             f"({brief(str(path))}); relative paths are read from the folder you run in")
    return str(path.resolve())

RULES["format"] = (lambda v: v in ("table", "sacct", "xid"),
                   "'table', 'sacct' (a Slurm sacct -P export) or 'xid' (a kernel log), or null", False)
RULES["job"] = (lambda v: isinstance(v, str) and 0 < len(v) <= 200, "a job name, id or array task id, or null", False)
RULES["year"] = (_whole(1970, 9999), "a whole year such as 2024, or null", False)
RULES["ckpt_interval"] = (_positive_duration, "a duration > 0 such as '30min' or 0.5 (hours), or null", False)
RULES["min_outage"] = (_positive_duration, "a duration > 0 such as '10min' or '1h' (shorter outages are dropped), "
                                           "or null", False)

#: Parameters that hold one duration or a list of them.
DURATIONS = {n for n, (check, _, _) in RULES.items() if check in (_positive_duration, _duration_or_zero)}
#: Parameters that name a column of the log.
COLUMNS = ("start", "end", "node", "cause", "planned", "column")


def _valid_text(name):
    text = RULES[name][1]
    if text is None:
        text = _families_text() + (' or "empirical"' if name == "repair" else "")
    return text


def normalise(name, value):
    """A comparable key for a value: durations in hours, numbers as floats."""
    if name in DURATIONS:
        h = _hours_or_none(value) if not isinstance(value, list) else tuple(map(_hours_or_none, value))
        if h is not None:
            return ("h", h)
    if isinstance(value, list):
        return tuple(normalise(name, v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("n", float(value))
    return (type(value).__name__, value)


def _check_rule(name, value):
    check, _, is_list = RULES[name]
    if is_list:
        if not isinstance(value, list) or not value:
            raise ParameterError(f"parameter {name!r} must be a non-empty [list] of {_valid_text(name)}, "
                                 f"got {brief(value)}")
        bad = [v for v in value if not check(v)]
        if bad:
            raise ParameterError(f"parameter {name!r}: element {brief(bad[0])} is invalid; every element "
                                 f"must be {_valid_text(name)}")
    elif not check(value):
        raise ParameterError(f"parameter {name!r} = {brief(value)} is invalid: it must be {_valid_text(name)}")


def _resolve_log(value, cwd):
    from ...data.bundled.datasets import NAMES
    if value.lower() in NAMES:
        return value
    path = _expand("log", value)
    if not path.is_absolute():
        path = Path(cwd) / path
    if not path.is_file():
        raise ParameterError(f"parameter 'log' = {brief(value)}: no such file ({brief(str(path))}); give a log file "
                             f"or a bundled data set: {', '.join(NAMES)}")
    return str(path.resolve())


def log_header(path):
    """The column names of a log file, reading only its header where the format allows."""
    from ...data.shaping.readers import csv_header, read_table

    name = str(path).lower()
    try:
        if ".csv" in name:  # the first line, decoded as the reader decodes it (UTF-8, else its fallback)
            return [str(c).strip() for c in csv_header(path)]
        if name.endswith(".parquet"):
            import pyarrow.parquet as pq
            return list(pq.read_schema(path).names)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(read_table(path)[0].columns)
    except Exception as exc:  # unreadable, wrong type, bad encoding: all say the same
        raise ParameterError(f"parameter 'log': cannot read the columns of {path}: {exc}") from None


def _bundled_causes(name):
    from ...data.bundled.datasets import load
    data = load(name)  # bundled data load without warnings
    # a count table (llama3) has its component and category as its causes
    return list(getattr(data, "cause_columns", None) or ("component", "category"))


def _check_columns(values, log):
    given = {c: values[c] for c in COLUMNS if values.get(c) is not None}
    if log is None:
        return
    from ...data.bundled.datasets import NAMES
    if log.lower() in NAMES:
        if not given:
            return
        extra = [c for c in given if c != "column"]
        if extra:
            raise ParameterError(f"parameter {extra[0]!r}: the bundled log {log!r} takes no column "
                                 "names; give 'log' a file path to name its columns")
        causes = _bundled_causes(log)
        if given["column"] not in causes:
            raise ParameterError(f"parameter 'column' = {given['column']!r}: the bundled log {log!r} "
                                 f"has the cause columns {', '.join(causes)}")
        return
    if _operator_log(values, log):
        return  # a Slurm export or kernel log has no columns to name
    header = log_header(log)
    for name, col in given.items():
        for c in col if isinstance(col, list) else [col]:
            if c not in header:
                raise ParameterError(f"parameter {name!r} = {c!r}: no such column in {log}; its "
                                     f"columns are {', '.join(header)}")
    counts = {"component", "count"} <= set(header)
    if counts and values.get("window") is not None:
        raise ParameterError(f"parameter 'window' is for an event log; the count table {log} gives its "
                             "observation time with 'exposure' (e.g. '54d') or an exposure_h or days column")
    if "start" not in given and not counts:  # a count table needs none
        raise ParameterError(f"parameter 'start' is needed for the log file {log}: name the column "
                             f"that holds outage start times (one of {', '.join(header)})")
    _check_cluster(values, log, header, counts, given)


def _check_cluster(values, log, header, counts, given):
    """The observed cluster must be knowable before any kernel starts: source_gpus, nodes or n_gpus."""
    if values.get("source_gpus") is not None or values.get("population") is not None:
        return
    from ...data.bundled.datasets import bundled_count_name
    if counts and values.get("exposure") is None and bundled_count_name(log) is not None:
        return  # the bundled table's cluster and window are published beside it (load_source reads them)
    if counts and "n_gpus" not in header:
        raise ParameterError(f"parameter 'source_gpus' is needed for the count table {log}: it has no "
                             "n_gpus column, so the GPUs it was observed on are unknown; give a whole number")
    if not counts and "node" not in given:
        raise ParameterError(f"parameter 'source_gpus' or 'node' is needed for the log file {log}: without a "
                             "node column the GPUs it covers are unknown; give source_gpus (GPUs observed) or "
                             f"node (one of {', '.join(header)})")


def check_scale(value):
    """The ``scale`` parameter as a list of ``CAUSE=UNIT`` strings (one string is a list of one).

    Each unit must be a count of the cluster (:data:`relmodel.scale.clusters.cluster.COUNT_KEYS`).
    """
    from ...scale.clusters.cluster import COUNT_KEYS
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise ParameterError(f"parameter 'scale' = {brief(value)}: give a list of CAUSE=UNIT, e.g. "
                             "['File system=job', 'Faulty GPU=gpu']")
    for item in items:
        name, sep, unit = str(item).rpartition("=") if isinstance(item, str) else ("", "", "")
        if not sep or not name.strip() or unit.strip() not in COUNT_KEYS:
            raise ParameterError(f"parameter 'scale': {brief(item)} is not CAUSE=UNIT with a unit among "
                                 f"{', '.join(COUNT_KEYS)} (e.g. 'File system=job')")
    return [str(i) for i in items]


def check_values(values, defaults=None, cwd=None):
    """Apply :data:`RULES` to ``{name: value}``; return the values to pass on.

    ``defaults`` (``{name: value}``) fills in parameters the user left out when
    a rule relates several (columns need the log). ``cwd`` (default: this
    process's working folder) resolves a relative ``log`` path.
    """
    out = dict(values)
    for name, value in values.items():
        if value is not None and name in RULES:
            _check_rule(name, value)
        if value is not None and name in WINDOWS:
            out[name] = _check_window(value)
        if value is not None and name == "scale":
            out[name] = check_scale(value)
    _non_gpu(values, defaults, out)
    for name in PATHS:
        if values.get(name) is not None:
            out[name] = _resolve_path(name, values[name], cwd or Path.cwd())
    merged = {**(defaults or {}), **out}
    log = merged.get("log")
    if isinstance(log, str):
        resolved = _resolve_log(log, cwd or Path.cwd())
        if "log" in out:
            out["log"] = resolved
        merged["log"] = resolved
    if any(c in values for c in COLUMNS) or "log" in values:
        _check_columns(merged, merged.get("log") if isinstance(log, str) else None)
    _check_bundled(merged)
    return out


def _operator_log(values, log):
    """True when ``log`` is read as a Slurm export or kernel log (``format`` says so, or the file looks like one)."""
    fmt = values.get("format")
    if fmt in ("sacct", "xid"):
        return True
    if fmt == "table":
        return False
    from ...data.formats.operators import sniff_log
    return sniff_log(log) is not None
