"""Notebook parameters are data, never code: read, typed and checked before any kernel starts.

A notebook's parameters are the lines of its first code cell tagged
``parameters`` (the Papermill convention), one per line::

    n_gpus: int = 16384  # GPUs in the job
    start: str = None  # start-time column of a log file (None: not given)

:func:`notebook_parameters` reads them with :mod:`ast`, without running
anything. Allowed annotations: ``int``, ``float``, ``str``, ``bool``, ``str |
None``, ``int | None``, ``float | None``, ``list[str]``, ``list[int]``,
``list[float]``. A ``None`` default makes the type nullable (``start: str =
None`` is ``str | None``): that is the form Papermill's ``--help-notebook``
can read, so the suite writes it that way.  A ``list[str]`` parameter also
takes one name. An unannotated ``name = literal`` line still works: its type
is inferred from the literal (a ``None`` default then takes any plain value).

Values a user passes (``-p NAME=VALUE``, ``--params file.yaml``, ``--sweep``)
are read as YAML 1.2 core schema by :mod:`relmodel.report.yaml12` (tags
refused, ``010`` is 10, ``1:00`` is text, ``1e-3`` a float), then
:func:`validate` checks each against its declared type (a bool is not an int;
list elements are checked; ``None`` only where the annotation says ``| None``;
floats must be finite) and against the value rules of
:mod:`relmodel.report.rules`. Only str, int, float, bool, None and lists of
those ever reach Papermill. Every problem is a
:class:`~relmodel.errors.ParameterError` that lists what is valid.
"""

import ast
import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import ParameterError
from ..escape import brief
from . import yaml12
from .rules import DURATIONS, WINDOWS, check_values

__all__ = [
    "Parameter",
    "TYPES",
    "notebook_parameters",
    "parse_value",
    "parse_assignment",
    "load_params",
    "check_type",
    "validate",
    "describe",
    "log_parameters",
]

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


@dataclass(frozen=True)
class Parameter:
    """One notebook parameter: name, default literal, comment, notebook and type."""

    name: str
    default: object
    comment: str
    notebook: str
    annotation: str = ""

    @property
    def type_name(self):
        """The declared type, e.g. ``"int"``, ``"str | None"``, ``"list[float]"``."""
        return self.annotation or _infer(self.default)


def _infer(default):
    if default is None:
        return "any | None"
    if isinstance(default, list):
        kinds = {_infer(v) for v in default}
        if kinds <= {"int"} and default:
            return "list[int]"
        if kinds <= {"int", "float"} and default:
            return "list[float]"
        return "list[str]"
    return {bool: "bool", int: "int", float: "float", str: "str"}.get(type(default), "any | None")


def _annotation(node, where):
    text = " ".join(ast.unparse(node).replace("|", " | ").split())
    text = text.replace("Optional[str]", "str | None").replace("List[", "list[")
    if text.startswith("None | "):
        text = text[7:] + " | None"
    if text not in TYPES or text == "any | None":
        raise ParameterError(f"{where}: annotation {text!r} is not allowed; use one of "
                             + ", ".join(t for t in TYPES if t != "any | None"))
    return text


def _parameters_cell(nb):
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return index, cell
    return None, None


def _line(node, name, path, lines):
    where = f"{path.name}: parameter {name!r}"
    try:
        default = ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ParameterError(f"{where} is not a literal") from None
    annotation = _annotation(node.annotation, where) if isinstance(node, ast.AnnAssign) else ""
    if default is None and annotation and "|" not in annotation:
        annotation += " | None"  # 'name: str = None' (the form papermill can read) may be left unset
    param = Parameter(name, default, "", path.stem, annotation)
    if default is not None or not annotation:
        check_type(param, default, where=f"{where}: default")
    text = lines[node.lineno - 1]
    comment = text.split("#", 1)[1].strip() if "#" in text else ""
    return Parameter(name, default, comment, path.stem, annotation)


def notebook_parameters(path):
    """Return ``{name: Parameter}`` from the notebook's ``parameters`` cell.

    Raises ParameterError when the notebook has no such cell, when a line is not
    ``name: TYPE = literal  # comment`` (or ``name = literal  # comment``), or
    when a default does not match its annotation.
    """
    from .notebook_json import read_cells  # not nbformat: its schema checker takes seconds to import

    path = Path(path)
    _, cell = _parameters_cell(read_cells(path))
    if cell is None:
        raise ParameterError(f"{path.name}: no code cell tagged 'parameters'")
    lines = cell.source.splitlines()
    try:
        tree = ast.parse(cell.source)
    except SyntaxError as exc:
        raise ParameterError(f"{path.name}: parameters cell is not valid Python: {exc}") from exc
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name = node.target.id
        else:
            raise ParameterError(f"{path.name}: parameters cell line {node.lineno}: only "
                                 "'name: TYPE = literal  # comment' lines are allowed")
        found[name] = _line(node, name, path, lines)
    return found


def parse_value(text, label=None):
    """Parse one command-line value as YAML 1.2 (``4096`` -> 4096, ``1h`` -> ``"1h"``)."""
    if not isinstance(text, str):
        raise ParameterError(f"a parameter value must be text to parse, got {type(text).__name__}")
    return yaml12.load(text, label or f"value {brief(text)}")


def parse_assignment(text):
    """Split ``NAME=VALUE`` into ``(name, value)`` with the value read as YAML 1.2."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip().isidentifier():
        raise ParameterError(f"expected NAME=VALUE, got {brief(text)}")
    return name.strip(), parse_value(value, f"parameter {name.strip()!r}")


def load_params(source):
    """Return a parameter dict from a dict, None, or a YAML file path."""
    if source is None:
        return {}
    if isinstance(source, dict):
        if not all(isinstance(k, str) for k in source):
            raise ParameterError("parameter names must be text")
        return dict(source)
    if not isinstance(source, (str, Path)):
        raise ParameterError(f"params must be a dict of values or a YAML file path, got "
                             f"{type(source).__name__}")
    path = Path(source)
    if not path.is_file():
        raise ParameterError(f"parameter file not found: {path}")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise ParameterError(f"{path}, line {line}: not UTF-8 text; save the parameter file as "
                             "UTF-8") from None
    except OSError as exc:
        raise ParameterError(f"{path}: cannot read the parameter file: {exc.strerror}") from None
    return yaml12.load(text, str(path), mapping=True)


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


def _listing(by_notebook):
    return "\n".join(f"{nb}:\n{describe(params)}" for nb, params in by_notebook.items())


def validate(params, by_notebook, cwd=None):
    """Check ``params`` against each notebook's parameters and the value rules.

    ``by_notebook`` maps a notebook name to its ``{name: Parameter}``. A name
    must belong to at least one notebook; its value must have the declared
    type in every notebook that takes it and pass :mod:`.rules`. Relative
    ``log`` paths resolve from ``cwd`` (default: the working folder). Returns
    ``{notebook: {name: value}}``, the subset each notebook takes.
    """
    params = load_params(params)
    known = {}
    for nb_params in by_notebook.values():
        for name, param in nb_params.items():
            known.setdefault(name, []).append(param)
    for name, value in params.items():
        if name not in known:
            raise ParameterError(f"unknown parameter {name!r}; the notebooks take:\n" + _listing(by_notebook))
        for param in known[name]:
            try:
                check_type(param, value)
            except ParameterError as exc:
                raise ParameterError(f"{exc} ({param.comment}); the notebooks take:\n"
                                     + _listing(by_notebook)) from None
    checked = {}
    for nb, nb_params in by_notebook.items():
        mine = {k: v for k, v in params.items() if k in nb_params}
        defaults = {k: p.default for k, p in nb_params.items()}
        checked[nb] = check_values(mine, defaults, cwd)
    return checked


def log_parameters(by_notebook):
    """The parameters every notebook that reads the data takes (``log`` and its reading options).

    ``by_notebook`` maps a notebook name to its ``{name: Parameter}``; the result
    is ``{name: Parameter}`` in the first such notebook's order, read from the
    notebooks themselves, so a help text built from it cannot fall behind them.
    """
    readers = [params for params in by_notebook.values() if "log" in params]
    if not readers:
        return {}
    shared = set.intersection(*(set(params) for params in readers))
    return {name: param for name, param in readers[0].items() if name in shared}
