"""Read report parameter values as YAML 1.2 core-schema data, and nothing else.

:func:`load` turns YAML text into plain Python data: ``str``, ``int``,
``float``, ``bool``, ``None``, lists and (at the top of a parameter file) one
mapping of names.  It builds the data itself from ruamel.yaml's parse events,
so no YAML constructor ever runs:

* plain scalars resolve by the YAML 1.2 core schema: ``null``/``~``/empty,
  ``true``/``false`` (three spellings each), decimal integers (``010`` is 10,
  not octal 8), ``0o17`` and ``0x1F``, floats (``1e-3``, ``.5``, ``.inf``,
  ``.nan``); everything else is a string (``1:00`` stays ``"1:00"``, ``yes``
  stays ``"yes"``);
* quoted and block scalars are strings;
* any tag (``!!binary``, ``!!set``, ``!!python/object``, ``!custom``, even
  ``!``), anchor or alias raises :class:`~relmodel.errors.ParameterError`, as
  do duplicate keys, non-string keys, several documents and nesting deeper
  than a list of scalars inside the top-level mapping.
"""

import re

from ...errors import ParameterError
from ...base.escape import brief

__all__ = ["load", "resolve_plain", "MAX_SCALAR"]

_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)")
_NAN = re.compile(r"\.(nan|NaN|NAN)")


def resolve_plain(text):
    """The YAML 1.2 core-schema value of a plain (unquoted) scalar."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return float("-inf") if text.startswith("-") else float("inf")
    if _NAN.fullmatch(text):
        return float("nan")
    return text


def _events(text, label):
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return list(YAML(typ="safe", pure=True).parse(text))
    except YAMLError as exc:
        problem = str(exc).replace("\n", " ")
        raise ParameterError(f"{label}: not valid YAML: {problem}") from None


class _Reader:
    """Build data from a flat list of parse events, refusing tags and anchors."""

    def __init__(self, events, label):
        self.events, self.pos, self.label = events, 0, label

    def next(self):
        event = self.events[self.pos]
        self.pos += 1
        return event

    def value(self, depth):
        event = self.next()
        kind = type(event).__name__
        if kind == "AliasEvent" or getattr(event, "anchor", None) is not None:
            raise ParameterError(f"{self.label}: YAML anchors and aliases (&, *) are not accepted; "
                                 "write each value out")
        tag = getattr(event, "tag", None)
        if tag is not None:
            raise ParameterError(f"{self.label}: YAML tag {tag!r} refused; parameters are plain "
                                 "values (numbers, text, true/false, null, [lists])")
        if kind == "ScalarEvent":
            return self.scalar(event)
        if depth >= 2:
            raise ParameterError(f"{self.label}: values nest too deep; a parameter is a plain "
                                 "value or a [list] of plain values")
        if kind == "SequenceStartEvent":
            items = []
            while type(self.events[self.pos]).__name__ != "SequenceEndEvent":
                items.append(self.value(depth + 1))
            self.next()
            return items
        if kind == "MappingStartEvent":
            return self.mapping(depth)
        raise ParameterError(f"{self.label}: unexpected YAML {kind}")

    def scalar(self, event):
        if len(event.value) > MAX_SCALAR:
            raise ParameterError(f"{self.label}: a value of {len(event.value):,} characters is too long; "
                                 f"a value is at most {MAX_SCALAR:,} characters")
        if event.style is not None:
            return event.value
        try:
            return resolve_plain(event.value)
        except ValueError:  # an integer of more digits than Python converts
            raise ParameterError(f"{self.label}: the number {brief(event.value)} is far too large; "
                                 "give a number of at most a few digits") from None

    def mapping(self, depth):
        found = {}
        while type(self.events[self.pos]).__name__ != "MappingEndEvent":
            key = self.value(depth + 1)
            if not isinstance(key, str):
                raise ParameterError(f"{self.label}: parameter names must be text, got {key!r}")
            if key in found:
                raise ParameterError(f"{self.label}: parameter {key!r} is given twice")
            found[key] = self.value(depth + 1)
        self.next()
        return found


#: Longest value (characters) a parameter may have: paths and column names are far shorter.
MAX_SCALAR = 10_000


def load(text, label="value", mapping=False):
    """Parse YAML ``text`` into plain data (see the module docstring).

    ``mapping=True`` reads a parameter file: the document must be a mapping of
    names to values (or empty, giving ``{}``). Otherwise the text is one value:
    a scalar or a list of scalars. Raises ParameterError naming ``label``.
    """
    events = _events(text, label)
    docs = [i for i, e in enumerate(events) if type(e).__name__ == "DocumentStartEvent"]
    if len(docs) > 1:
        raise ParameterError(f"{label}: several YAML documents (---); give one")
    if not docs:
        return {} if mapping else None
    reader = _Reader(events, label)
    reader.pos = docs[0] + 1
    if mapping:
        first = type(events[reader.pos]).__name__
        if first == "ScalarEvent" and events[reader.pos].value == "" and events[reader.pos].style is None:
            return {}
        if first != "MappingStartEvent":
            raise ParameterError(f"{label}: expected a mapping of parameter names to values, "
                                 "such as 'n_gpus: 16384'")
        return reader.value(0)
    value = reader.value(1)
    if isinstance(value, dict):
        raise ParameterError(f"{label}: a parameter value is a plain value or a [list], "
                             f"not a mapping")
    return value
