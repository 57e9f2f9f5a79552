"""Notebook parameters are data, never code: each notebook's declared parameters, read without running it.

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

What a user passes is read by the parse step (:mod:`.parse`) and checked
against these declarations by the validate step (:mod:`.validate`); their
names stay importable from here.  Every problem is a
:class:`~relmodel.errors.ParameterError` that lists what is valid.
"""

import ast
from dataclasses import dataclass
from pathlib import Path

from ...errors import ParameterError
from .parse import load_params, parse_assignment, parse_value  # noqa: F401 (the parse step, kept importable here)
from .validate import TYPES, check_type, describe, validate  # noqa: F401 (the validate step, kept importable here)

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
    from ..parameters.notebook_json import read_cells  # not nbformat: its schema checker takes seconds to import

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
