"""Notebook parameters: read them, parse them, check them before any kernel starts.

A notebook's parameters are the assignments in its first code cell tagged
``parameters`` (the Papermill convention). Each is a Python literal on one line
with a comment saying what it is; :func:`notebook_parameters` reads them with
:mod:`ast`, without running anything. :func:`validate` checks the values a user
passes against those defaults (name, type) and against the value rules below,
and raises :class:`~relmodel.errors.ParameterError` listing what is valid.
"""

import ast
import math
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..errors import DurationError, ParameterError
from ..units import hours

__all__ = [
    "Parameter",
    "notebook_parameters",
    "parse_value",
    "parse_assignment",
    "load_params",
    "validate",
    "describe",
]


@dataclass(frozen=True)
class Parameter:
    """One notebook parameter: its name, default literal and comment."""

    name: str
    default: object
    comment: str
    notebook: str

    @property
    def type_name(self):
        """The name of the default's type (``"NoneType"`` accepts anything)."""
        return type(self.default).__name__


def _parameters_cell(nb):
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            return index, cell
    return None, None


def notebook_parameters(path):
    """Return ``{name: Parameter}`` from the notebook's ``parameters`` cell.

    Raises ParameterError when the notebook has no such cell or when a line in it
    is not ``name = literal  # comment``.
    """
    import nbformat

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    _, cell = _parameters_cell(nb)
    if cell is None:
        raise ParameterError(f"{path.name}: no code cell tagged 'parameters'")
    lines = cell.source.splitlines()
    try:
        tree = ast.parse(cell.source)
    except SyntaxError as exc:
        raise ParameterError(f"{path.name}: parameters cell is not valid Python: {exc}") from exc
    found = {}
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target = node.target  # name: type = literal  # comment
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0]
        else:
            raise ParameterError(f"{path.name}: parameters cell line {node.lineno}: "
                                 "only 'name: type = literal  # comment' lines are allowed")
        name = target.id
        try:
            default = ast.literal_eval(node.value)
        except ValueError as exc:
            raise ParameterError(f"{path.name}: parameter {name!r} is not a literal") from exc
        text = lines[node.lineno - 1]
        comment = text.split("#", 1)[1].strip() if "#" in text else ""
        found[name] = Parameter(name, default, comment, path.stem)
    return found


def parse_value(text):
    """Parse a command-line value as a YAML scalar (``4096`` -> int, ``1h`` -> str)."""
    try:
        return yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as exc:
        raise ParameterError(f"cannot read value {text!r}: {exc}") from exc


def parse_assignment(text):
    """Split ``NAME=VALUE`` into ``(name, value)`` with the value parsed as YAML."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip().isidentifier():
        raise ParameterError(f"expected NAME=VALUE, got {text!r}")
    return name.strip(), parse_value(value)


def load_params(source):
    """Return a parameter dict from a dict, None, or a YAML file path."""
    if source is None:
        return {}
    if isinstance(source, dict):
        return dict(source)
    path = Path(source)
    if not path.exists():
        raise ParameterError(f"parameter file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ParameterError(f"{path}: not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise ParameterError(f"{path}: expected a mapping of parameter names to values")
    return data


def _positive_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _fraction(value):
    return _is_number(value) and 0 < value < 1


def _positive(value):
    return _is_number(value) and value > 0 and math.isfinite(value)


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _share(value):
    return _is_number(value) and 0 <= value <= 1


def _seed(value):
    return value is None or _count(value)


def _choice(*options):
    return lambda value: value in options


def _duration(value):
    try:
        h = hours(value)
    except (DurationError, TypeError, ValueError):
        return False
    return math.isfinite(h) and h >= 0


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


#: Value rules by parameter name: (check, what is valid).
RULES = {
    "n_gpus": (_positive_int, "a whole number of GPUs > 0"),
    "gpus_per_node": (_positive_int, "a whole number > 0"),
    "n_runs": (_positive_int, "a whole number > 0"),
    "n_points": (_positive_int, "a whole number > 0"),
    "n_spares_max": (_positive_int, "a whole number > 0"),
    "top": (_positive_int, "a whole number > 0"),
    "target_ettr": (_fraction, "a fraction strictly between 0 and 1"),
    "conf": (_fraction, "a fraction strictly between 0 and 1"),
    "availability": (_fraction, "a fraction strictly between 0 and 1"),
    "ckpt_cost": (_duration, "a duration >= 0 such as '5min', '45s' or 0.1 (hours)"),
    "restart": (_duration, "a duration >= 0 such as '10min' or 0.2 (hours)"),
    "work": (_duration, "a duration >= 0 such as '30d' or 500 (hours)"),
    "repair_time": (_duration, "a duration >= 0 such as '2d' or 48 (hours)"),
    "spare_target": (_fraction, "a probability strictly between 0 and 1"),
    "alpha": (_fraction, "a significance level strictly between 0 and 1"),
    "fast_fraction": (_share, "a fraction from 0 to 1"),
    "n_boot": (_count, "a whole number >= 0"),
    "seed": (_seed, "a whole number >= 0 or null"),
    "durations": (_choice("uptimes", "interarrivals"), "'uptimes' or 'interarrivals'"),
    "stall": (_duration, "a duration >= 0 such as '10s'"),
    "persist": (_duration, "a duration >= 0 such as '5min'"),
    "fast_cost": (_duration, "a duration >= 0 such as '10s'"),
    "mtbf_h": (_positive, "a number of hours > 0"),
}

DURATIONS = {name for name, (check, _) in RULES.items() if check is _duration}


def _type_ok(param, value):
    default = param.default
    if default is None:
        return True
    if param.name in DURATIONS:
        return isinstance(value, str) or _is_number(value)
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return _is_number(value)
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def describe(parameters):
    """One line per parameter: ``name = default  (type)  comment``."""
    return "\n".join(f"  {p.name} = {p.default!r}  ({p.type_name})  {p.comment}"
                     for p in parameters.values())


def _listing(by_notebook):
    return "\n".join(f"{nb}:\n{describe(params)}" for nb, params in by_notebook.items())


def validate(params, by_notebook):
    """Check ``params`` against each notebook's parameters.

    ``by_notebook`` maps a notebook name to its ``{name: Parameter}``. A name
    must belong to at least one notebook; its value must have the default's type
    and pass the rule for that name. Returns ``{notebook: {name: value}}``, the
    subset each notebook takes. Raises ParameterError listing the parameters.
    """
    params = load_params(params)
    known = {}
    for nb_params in by_notebook.values():
        known.update(nb_params)
    for name, value in params.items():
        if name not in known:
            raise ParameterError(f"unknown parameter {name!r}; the notebooks take:\n"
                                 + _listing(by_notebook))
        param = known[name]
        if not _type_ok(param, value):
            raise ParameterError(f"parameter {name!r} must be {param.type_name} like its default "
                                 f"{param.default!r} ({param.comment}), got {value!r}; "
                                 "the notebooks take:\n" + _listing(by_notebook))
        rule = RULES.get(name)
        if rule is not None and value is not None and not rule[0](value):
            raise ParameterError(f"parameter {name!r} = {value!r} is invalid: it must be "
                                 f"{rule[1]}; the notebooks take:\n" + _listing(by_notebook))
    return {nb: {k: v for k, v in params.items() if k in nb_params}
            for nb, nb_params in by_notebook.items()}
