"""Rules that read what the user's files hold, checked before any kernel starts.

The value rules (:mod:`.parameters.rules`) see each value alone; some values are only
wrong together with a file: a ``job`` the Slurm export does not hold, a
``window`` that ends before it starts, a step log, op-level trace or lifetime
table that cannot be read, a checkpoint cost longer than the run.  Each of
these used to start every kernel and leave a partial report; here the file
is read once, the way the page will read it (:func:`load_source` with the
page's arguments, :func:`read_steps`, :func:`read_ops`, :func:`load_lives`),
and a named error of that read becomes a
:class:`~relmodel.errors.ParameterError` naming the parameter.  Errors of the
machine (permissions, memory) pass through as they are, and an unexpected
failure is left for the page to report, as before.

Checkpoint costs (``ckpt_cost``, ``ckpt_costs``, ``fast_cost``, ``persist``)
must be at most :data:`MAX_CKPT_H` (a day) and shorter than the run's
``work`` where the page has one: a checkpoint that takes longer than the whole
run cannot be part of it.  A cost that is merely large against the job's MTBF
is an answer (the job cannot make progress), not an error.
"""

import os
import warnings
from pathlib import Path

from ...errors import ParameterError, RelmodelError, is_environment_error
from ...base.escape import brief

__all__ = ["MAX_CKPT_H", "CKPT_COSTS", "check_inputs", "check_ckpt_costs"]

#: The longest checkpoint cost a report takes, in hours.
MAX_CKPT_H = 24.0

#: Parameters that are the time one checkpoint takes.
CKPT_COSTS = ("ckpt_cost", "ckpt_costs", "fast_cost", "persist")

_SEEN = {}  # (what, arguments, file states) -> None (read fine) or (parameter, message)


def _state(path):
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return str(path), st.st_size, st.st_mtime_ns


def _once(key, name, load):
    """Run ``load`` once per ``key``; raise ParameterError naming ``name`` for a named input error it raises."""
    if key not in _SEEN:
        if len(_SEEN) > 256:
            _SEEN.clear()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                load()
            _SEEN[key] = None
        except RelmodelError as exc:
            if is_environment_error(exc):
                raise
            _SEEN[key] = (name(exc) if callable(name) else name, str(exc))
        except Exception:  # noqa: BLE001 -- not an input error: the page reports it as it always did
            _SEEN[key] = None
    found = _SEEN[key]
    if found is not None:
        raise ParameterError(f"parameter {found[0]!r}: {found[1]}")


def _source_parameter(exc):
    from ...errors import KernelJoinError, UnknownJobError, WindowError
    if isinstance(exc, UnknownJobError):
        return "job"
    if isinstance(exc, KernelJoinError) or str(exc).startswith("syslog"):
        return "syslog"
    if isinstance(exc, WindowError):
        return "window"
    return "log"


def _check_source(merged):
    from ...data.bundled.datasets import NAMES
    from ...data.source import load_source
    from ..kernels.source_cache import source_arguments

    log, kwargs = source_arguments(merged)
    if not isinstance(log, str) or log.lower() in NAMES or not Path(log).is_file():
        return
    key = ("source", repr(sorted(kwargs.items())), _state(log), _state(kwargs.get("syslog")))
    _once(key, _source_parameter, lambda: load_source(log, **kwargs))


def _check_steps(merged):
    steps = merged.get("steps")
    columns = ("step_column", "rank_column", "time_column", "node_column", "step_unit")
    if steps is not None and all(c in merged for c in columns):  # read as the page will (its columns known)
        from ...data.formats.steps import read_steps
        args = dict(zip(("step", "rank", "duration", "node", "time_unit"), (merged[c] for c in columns)))
        _once(("steps", repr(sorted(args.items())), _state(steps)), "steps", lambda: read_steps(steps, **args))
    elif steps is None and merged.get("trace") is not None:
        from ...stragglers.ops import read_ops
        trace = merged["trace"]
        _once(("trace", _state(trace)), "trace", lambda: read_ops(trace))


def _check_lives(merged):
    lives, by = merged.get("lives"), merged.get("group_by")
    if "lives_unit" not in merged:  # read as the page will (its defaults known)
        return
    from ...data.formats.lives import load_lives
    if lives is None:
        if merged.get("data_path") is not None:  # the Titan file must be in the folder named
            from ...data.bundled.titan import _find as titan_file
            path = merged["data_path"]
            _once(("titan", _state(path)), "data_path", lambda: titan_file(path))
        elif by is not None:  # the synthetic stand-in's columns
            from ...data.bundled.titan import titan_lives
            _group_column(by, titan_lives(None, n_synthetic=20, seed=0).columns, "the synthetic Titan lives")
        return
    args = {"duration": merged.get("duration_column"), "event": merged.get("event_column"),
            "unit": merged.get("lives_unit", "h"), "covariates": merged.get("covariates"),
            "categorical": merged.get("categorical"), "max_lives": merged.get("max_lives", 0),
            "seed": merged.get("seed", 0)}
    found = {}
    _once(("lives", repr(sorted(args.items())), _state(lives)), "lives",
          lambda: found.update(table=load_lives(lives, **args)))
    if by is not None and "table" in found:
        _group_column(by, found["table"].frame.columns, lives)


def _group_column(by, columns, where):
    if by not in columns:
        raise ParameterError(f"parameter 'group_by' = {brief(by)}: no such column in {where}; its columns are "
                             f"{', '.join(map(str, columns))}")


def check_ckpt_costs(merged, given):
    """Refuse a checkpoint cost above :data:`MAX_CKPT_H` or not shorter than ``work`` (when ``given`` sets either)."""
    from ...units import hours

    if "work" not in given and not any(name in given for name in CKPT_COSTS):
        return
    work = merged.get("work")
    work_h = hours(work) if work is not None else None
    for name in CKPT_COSTS:
        value = merged.get(name)
        if value is None:
            continue
        for v in value if isinstance(value, list) else [value]:
            h = hours(v)
            if h > MAX_CKPT_H:
                raise ParameterError(f"parameter {name!r} = {brief(v)} is invalid: one checkpoint must take at most "
                                     f"{MAX_CKPT_H:g} hours (1 day), e.g. '1min' or '30min'")
            if work_h is not None and h >= work_h:
                raise ParameterError(f"parameter {name!r} = {brief(v)} is invalid: one checkpoint must take less "
                                     f"than the run's work (work = {brief(work)}); give a shorter checkpoint or a "
                                     "longer work")


def check_inputs(merged, given):
    """Read the files ``merged`` (the page's values, defaults filled in) names, as its page will.

    ``given`` holds the values the user gave; only what they touch is read.
    """
    check_ckpt_costs(merged, given)
    if "log" in given or any(k in given for k in ("start", "end", "node", "cause", "planned", "time_format",
                                                   "time_unit", "format", "job", "year", "min_outage",
                                                   "window", "unit", "exposure", "source_gpus", "population")):
        _check_source(merged)
    if any(given.get(k) is not None for k in ("steps", "trace")):
        _check_steps(merged)
    if any(given.get(k) is not None for k in ("lives", "group_by", "data_path")):
        _check_lives(merged)
