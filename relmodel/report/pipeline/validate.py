"""The validate step: every parsed value checked against the notebooks, before any kernel starts.

A value's name must be a parameter of at least one notebook (their
``parameters`` cells, read by :func:`.params.notebook_parameters`); its
value must have the declared type in every notebook that takes it
(:func:`check_type`: a bool is not an int; list elements are checked;
``None`` only where the annotation says ``| None``; floats must be finite) and
pass the value rules of :mod:`relmodel.report.parameters.rules`.  Only str, int, float,
bool, None and lists of those ever reach Papermill.  :func:`validate` checks
one set of values; :func:`validate_runs`, the step the plan takes, checks the
values of every run of a report or sweep at once.  Every problem is a
:class:`~relmodel.errors.ParameterError` that lists what is valid.
"""

import math

from ...errors import ParameterError
from ...base.escape import brief
from .input_rules import check_inputs
from ..parameters.rules import DURATIONS, WINDOWS, check_values

__all__ = ["TYPES", "check_type", "describe", "validate", "validate_runs"]

#: Annotation text -> (element type, is a list, None allowed).
TYPES = {
    "int": ("int", False, False), "float": ("float", False, False),
    "str": ("str", False, False), "bool": ("bool", False, False),
    "str | None": ("str", False, True), "int | None": ("int", False, True),
    "float | None": ("float", False, True),
    "list[str]": ("str", True, False), "list[int]": ("int", True, False),
    "list[float]": ("float", True, False), "list[str] | None": ("str", True, True),
    "any | None": ("any", False, True),  # inferred for an unannotated None default
}


def _scalar_ok(kind, value):
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if kind == "any":
        return isinstance(value, (str, int, float, bool))
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def _duration_ok(value):
    return (isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool)
                                       and math.isfinite(value)))


def check_type(param, value, where=None):
    """Raise ParameterError unless ``value`` has ``param``'s declared type.

    A duration parameter declared ``str`` also takes a number of hours.
    """
    kind, is_list, nullable = TYPES[param.type_name]
    duration = param.name in DURATIONS
    if value is None:
        ok = nullable
    elif param.name in WINDOWS and is_list:
        ok = isinstance(value, str) or (isinstance(value, list) and all(_duration_ok(v) for v in value))
    elif is_list and kind == "str" and isinstance(value, str) and not duration:
        ok = True  # one name stands for a list of one
    elif is_list:
        ok = isinstance(value, list) and all(
            _duration_ok(v) if duration else _scalar_ok(kind, v) for v in value)
    else:
        ok = _duration_ok(value) if duration else _scalar_ok(kind, value)
    if not ok:
        hint = " (or a number of hours)" if duration else ""
        null = "" if nullable else ", not null"
        raise ParameterError(f"{where or 'parameter ' + repr(param.name)} must be {param.type_name}"
                             f"{hint}{null}, got {brief(value)} ({type(value).__name__})")


def describe(parameters):
    """One line per parameter: ``name: type = default  comment``."""
    return "\n".join(f"  {p.name}: {p.type_name} = {p.default!r}  {p.comment}" for p in parameters.values())


#: Names an unknown-parameter message lists at most; the rest are counted (the help describes them all).
MAX_NAMES = 30


def _names(known, by_notebook):
    """``"the notebooks (01_log_explorer, ...) take: a, b, c (and 12 more; ...)"``, kept to one short line."""
    names = list(known)  # in the order the notebooks declare them: the data first, then the plan
    shown = ", ".join(names[:MAX_NAMES])
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    books = list(by_notebook)
    which = ", ".join(books[:3]) + (f" and {len(books) - 3} more" if len(books) > 3 else "")
    plural = len(books) != 1
    return (f"the notebook{'s' if plural else ''} run ({which}) take{'' if plural else 's'} {shown}{more} "
            "(papermill --help-notebook NOTEBOOK describes each)")


def _close(name, known):
    """``" (did you mean 'x'?)"`` for a near miss, else ""."""
    import difflib
    near = difflib.get_close_matches(str(name), list(known), n=2, cutoff=0.75)
    return f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""


def _short(text, limit=160):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _given(params):
    """The parsed values as a dict of named values (the parse step gives one)."""
    if params is None:
        return {}
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise ParameterError("parameter values must be a dict of names (text) to values; read a YAML "
                             f"file with relmodel.report.pipeline.parse.load_params first, got {brief(params)}")
    return params


def validate(params, by_notebook, cwd=None):
    """Check ``params`` against each notebook's parameters and the value rules.

    ``by_notebook`` maps a notebook name to its ``{name: Parameter}``. A name
    must belong to at least one notebook; its value must have the declared
    type in every notebook that takes it and pass :mod:`.parameters.rules`. Relative
    ``log`` paths resolve from ``cwd`` (default: the working folder). Returns
    ``{notebook: {name: value}}``, the subset each notebook takes.
    """
    params = _given(params)
    known = {}
    for nb_params in by_notebook.values():
        for name, param in nb_params.items():
            known.setdefault(name, []).append(param)
    for name, value in params.items():
        if name not in known:
            raise ParameterError(f"unknown parameter {brief(name)}{_close(name, known)}; "
                                 f"{_names(known, by_notebook)}")
        for param in known[name]:
            try:
                check_type(param, value)
            except ParameterError as exc:
                raise ParameterError(f"{exc} ({_short(param.comment)})") from None
    checked = {}
    for nb, nb_params in by_notebook.items():
        mine = {k: v for k, v in params.items() if k in nb_params}
        defaults = {k: p.default for k, p in nb_params.items()}
        checked[nb] = check_values(mine, defaults, cwd)
        check_inputs({**defaults, **checked[nb]}, mine)  # what the files named hold: a job, a window, a step log
    return checked


def validate_runs(runs, by_notebook):
    """Check the values of every run (one dict per report folder); return each run's ``{notebook: values}``.

    The first bad value of any run stops the whole plan before any kernel
    starts, so a sweep never half-runs on a value it cannot take.
    """
    return [validate(values, by_notebook) for values in runs]
