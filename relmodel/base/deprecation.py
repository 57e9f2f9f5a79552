"""Old names kept for one minor version (base layer): methods, properties and keywords.

Each use warns with :class:`~relmodel.errors.RelmodelDeprecationWarning`,
whose message names the new spelling; CHANGELOG.md lists every old name and
the version that drops it.
"""

import functools
import inspect
import warnings

from ..errors import InputTypeError, RelmodelDeprecationWarning

__all__ = ["renamed", "renamed_keywords", "renamed_field"]


def renamed(old, new, *, value=None, is_property=False):
    """A deprecated alias ``old`` of the method ``new``, kept one minor version.

    ``value(self)`` computes what ``old`` returned when it differs from
    ``new()`` (a list of sentences where ``text()`` joins them); the alias is
    a property when ``old`` was one.
    """
    def alias(self, *args, **kwargs):
        call = "" if is_property else "()"
        to = "" if isinstance(getattr(type(self), new, None), property) else "()"
        warnings.warn(f"{type(self).__name__}.{old}{call} is deprecated and goes in the next minor version; "
                      f"use .{new}{to}", RelmodelDeprecationWarning, stacklevel=2)
        return value(self, *args, **kwargs) if value else getattr(self, new)(*args, **kwargs)

    alias.__name__ = old
    alias.__doc__ = f"Deprecated: use :meth:`{new}`."
    return property(alias) if is_property else alias


def renamed_keywords(**old_to_new):
    """Decorator: accept each old keyword name (with a warning) for the new one it maps to.

    A value may be ``(new, convert)`` when the old keyword meant another
    quantity: ``convert(old value)`` is passed as ``new`` (``factor=1.5`` as
    ``slowdown=0.5``).

    Examples
    --------
    >>> @renamed_keywords(n_sim="n_runs")
    ... def draw(n_runs=10):
    ...     return n_runs
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     draw(n_sim=5), caught[0].category.__name__
    (5, 'RelmodelDeprecationWarning')
    """
    table = {old: (new, None) if isinstance(new, str) else tuple(new) for old, new in old_to_new.items()}

    def wrap(fn):
        params = inspect.signature(fn).parameters
        for new, _ in table.values():
            if new not in params:
                raise TypeError(f"{fn.__name__} has no argument {new!r}")

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            for old, (new, convert) in table.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputTypeError(f"{fn.__name__}() got both {old}= and {new}=; pass {new}= only")
                    how = f"use {new}=" + (" (converted: see the docstring)" if convert else "")
                    warnings.warn(f"{fn.__name__}({old}=...) is deprecated and goes in the next minor version; "
                                  f"{how}", RelmodelDeprecationWarning, stacklevel=2)
                    value = kwargs.pop(old)
                    kwargs[new] = convert(value) if convert else value
            return fn(*args, **kwargs)

        inner.renamed_keywords = {old: new for old, (new, _) in table.items()}
        return inner

    return wrap


def renamed_field(new, *, method=None):
    """The method ``table()`` where a result once had a data field called ``table``.

    Called, ``result.table()`` is the table for people (the method named
    ``method`` when given, else the ``table()`` of :class:`relmodel.tables.Result`); read as the old
    field (``result.table["p"]``, ``len(result.table)``, ``result.table.iloc``)
    it warns and gives the field ``new`` that now holds the numbers.

    Examples
    --------
    >>> import dataclasses, pandas as pd
    >>> from relmodel.tables import Result
    >>> @dataclasses.dataclass(frozen=True)
    ... class Counts(Result):
    ...     by_cause: pd.DataFrame
    ...     def to_frame(self):
    ...         return self.by_cause
    ...     table = renamed_field("by_cause")
    >>> Counts(pd.DataFrame({"count": [1200]})).table().iloc[0, 0]
    '1,200'
    """
    return _TableField(new, method)


class _TableField:
    def __init__(self, new, method):
        self.new, self.method = new, method
        self.__doc__ = (f"The result as a table for people (text cells, worded headers, no index); "
                        f"reading ``table`` as data is deprecated: use ``{new}``.")

    def __get__(self, obj, owner=None):
        return self if obj is None else _TableOrField(obj, self.new, self.method)

    def __call__(self, obj):
        """``Class.table(result)``, as for any method."""
        return _TableOrField(obj, self.new, self.method)()


class _TableOrField:
    """``table()`` when called; the deprecated data field when read."""

    __slots__ = ("_obj", "_new", "_method")

    def __init__(self, obj, new, method):
        self._obj, self._new, self._method = obj, new, method

    def __call__(self):
        if self._method:
            return getattr(self._obj, self._method)()
        for cls in type(self._obj).__mro__:      # the protocol's own table() (relmodel.tables.Result)
            own = cls.__dict__.get("table")
            if callable(own) and not isinstance(own, _TableField):
                return own(self._obj)
        raise TypeError(f"{type(self._obj).__name__} has no table() to fall back on")

    def _field(self):
        warnings.warn(f"{type(self._obj).__name__}.table as data is deprecated and goes in the next minor version; "
                      f"use .{self._new} (the numbers) or .table() (for people)", RelmodelDeprecationWarning,
                      stacklevel=3)
        return getattr(self._obj, self._new)

    def __getattr__(self, name):
        return getattr(self._field(), name)

    def __getitem__(self, key):
        return self._field()[key]

    def __len__(self):
        return len(self._field())

    def __iter__(self):
        return iter(self._field())

    def __contains__(self, key):
        return key in self._field()

    def __eq__(self, other):
        return self._field() == other

    __hash__ = None

    def __array__(self, *args, **kwargs):
        return self._field().__array__(*args, **kwargs)

    def __repr__(self):
        return f"<{type(self._obj).__name__}.table: call it for the table, or read .{self._new}>"
