"""Read report parameter values as YAML 1.2 data, and nothing else.

:func:`load` reads YAML text with ruamel.yaml's safe loader (YAML 1.2:
``010`` is 10, not octal 8; ``0o17`` and ``0x1F`` are integers, ``1_000`` is
1000; ``1e-3``, ``.5``, ``.inf`` and ``.nan`` are floats; ``yes``, ``off`` and
``1:00`` stay text; ``null``, ``~`` and an empty value are None).  Before any
value is built the text's parse events are read, and these raise
:class:`~relmodel.errors.ParameterError` naming the file and line:

* any tag (``!!binary``, ``!!set``, ``!!python/object``, ``!custom``, even
  ``!``), anchor or alias, and a ``%YAML`` directive other than 1.2;
* several documents, a value longer than :data:`MAX_SCALAR` characters, and
  nesting deeper than a list of values inside the top-level mapping.

Dates (``2024-01-02``) stay text, as in YAML 1.2's core schema; so does ``=``.
What comes out is ``str``, ``int``, ``float``, ``bool``, ``None`` and lists
of those (at the top of a parameter file, one mapping of names); duplicate
names and non-text names are refused.
"""

import functools

from ...errors import ParameterError

__all__ = ["load", "MAX_SCALAR"]

#: Longest value (characters) a parameter may have: paths and column names are far shorter.
MAX_SCALAR = 10_000


@functools.cache
def _yaml():
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import SafeConstructor

    class Constructor(SafeConstructor):
        """The safe constructor, but a date or ``=`` is the text written (YAML 1.2 core schema)."""

    for tag in ("timestamp", "value"):
        Constructor.add_constructor(f"tag:yaml.org,2002:{tag}", SafeConstructor.construct_yaml_str)
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = Constructor
    return yaml


def _where(label, mapping, mark):
    """``label``, with the line of ``mark`` in a parameter file (a command-line value is one line)."""
    return f"{label}, line {mark.line + 1}" if mapping and mark is not None else label


def _check_events(yaml, text, label, mapping):
    """Refuse what plain values never need, from the parse events, before anything is built."""
    depth, documents, most = 0, 0, 2 if mapping else 1
    for event in yaml.parse(text):
        kind, at = type(event).__name__, _where(label, mapping, event.start_mark)
        if kind == "DocumentStartEvent":
            documents += 1
            if documents > 1:
                raise ParameterError(f"{at}: several YAML documents (---); give one")
            if getattr(event, "version", None) not in (None, (1, 2)):
                raise ParameterError(f"{at}: a %YAML {'.'.join(map(str, event.version))} directive; parameters "
                                     "are read as YAML 1.2 (remove the directive)")
        if kind == "AliasEvent" or getattr(event, "anchor", None) is not None:
            raise ParameterError(f"{at}: YAML anchors and aliases (&, *) are not accepted; write each value out")
        if getattr(event, "tag", None) is not None:
            raise ParameterError(f"{at}: YAML tag {event.tag!r} refused; parameters are plain values "
                                 "(numbers, text, true/false, null, [lists])")
        if kind == "ScalarEvent" and len(event.value) > MAX_SCALAR:
            raise ParameterError(f"{at}: a value of {len(event.value):,} characters is too long; "
                                 f"a value is at most {MAX_SCALAR:,} characters")
        if kind in ("SequenceStartEvent", "MappingStartEvent"):
            depth += 1
            if depth > most:
                raise ParameterError(f"{at}: values nest too deep; a parameter is a plain value or a [list] "
                                     "of plain values")
        elif kind in ("SequenceEndEvent", "MappingEndEvent"):
            depth -= 1


def load(text, label="value", mapping=False):
    """Parse YAML ``text`` into plain data (see the module docstring).

    ``mapping=True`` reads a parameter file: the document must be a mapping of
    names to values (or empty, giving ``{}``). Otherwise the text is one value:
    a scalar or a list of scalars. Raises ParameterError naming ``label``.
    """
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = _yaml()
    try:
        _check_events(yaml, text, label, mapping)
        value = yaml.load(text)
    except MarkedYAMLError as exc:  # the problem and its line, without ruamel's snippet of the text
        at = _where(label, mapping, exc.problem_mark or exc.context_mark)
        raise ParameterError(f"{at}: not valid YAML: {exc.problem or exc.context}") from None
    except YAMLError as exc:
        raise ParameterError(f"{label}: not valid YAML: {str(exc).replace(chr(10), ' ')}") from None
    except ParameterError:
        raise
    except ValueError:  # an integer of more digits than Python converts
        raise ParameterError(f"{label}: a number of thousands of digits is far too large; give a number of at "
                             "most a few digits") from None
    if not mapping:
        if isinstance(value, dict):
            raise ParameterError(f"{label}: a parameter value is a plain value or a [list], not a mapping")
        return value
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ParameterError(f"{label}: expected a mapping of parameter names to values, such as 'n_gpus: 16384'")
    for key in value:
        if not isinstance(key, str):
            raise ParameterError(f"{label}: parameter names must be text, got {key!r}")
    return value
