"""The parse step: what a user passes, read into typed values before anything is checked.

``-p NAME=VALUE`` (:func:`parse_assignment`), ``--params file.yaml`` or a
dict (:func:`load_params`) and ``--sweep NAME=V1,V2`` (:func:`parse_sweep`)
are read as YAML 1.2 by :mod:`relmodel.report.parameters.yaml12` (ruamel.yaml's
safe loader; tags refused, ``010`` is 10, ``1:00`` is text, ``1e-3`` a float).  What comes out
is plain str, int, float, bool, None and lists of those; the validate step
(:mod:`.validate`) then checks each value against the notebooks.  Every
problem is a :class:`~relmodel.errors.ParameterError` that says what is valid.
"""

from pathlib import Path

from ...errors import ParameterError
from ...base.escape import brief
from ..parameters import yaml12

__all__ = ["parse_value", "parse_assignment", "load_params", "parse_sweep"]


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


def parse_sweep(text):
    """Parse ``NAME=V1,V2,...`` into ``{name: [v1, v2, ...]}`` (values read as YAML 1.2)."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier() or not values.strip():
        raise ParameterError(f"expected --sweep NAME=V1,V2,..., got {text!r}")
    return {name: [parse_value(v, f"--sweep {name} value {v.strip()!r}") for v in values.split(",")]}
