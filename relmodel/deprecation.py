"""Old names kept for one minor version (base layer): methods, properties and keywords.

Each use warns with :class:`~relmodel.errors.RelmodelDeprecationWarning`,
whose message names the new spelling; CHANGELOG.md lists every old name and
the version that drops it.
"""

import functools
import inspect
import warnings

from .errors import InputTypeError, RelmodelDeprecationWarning

__all__ = ["renamed", "renamed_keywords"]


def renamed(old, new, *, value=None, is_property=False):
    """A deprecated alias ``old`` of the method ``new``, kept one minor version.

    ``value(self)`` computes what ``old`` returned when it differs from
    ``new()`` (a list of sentences where ``text()`` joins them); the alias is
    a property when ``old`` was one.
    """
    def alias(self, *args, **kwargs):
        call = "" if is_property else "()"
        warnings.warn(f"{type(self).__name__}.{old}{call} is deprecated and goes in the next minor version; "
                      f"use .{new}()", RelmodelDeprecationWarning, stacklevel=2)
        return value(self, *args, **kwargs) if value else getattr(self, new)(*args, **kwargs)

    alias.__name__ = old
    alias.__doc__ = f"Deprecated: use :meth:`{new}`."
    return property(alias) if is_property else alias


def renamed_keywords(**old_to_new):
    """Decorator: accept each old keyword name (with a warning) for the new one it maps to.

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
    def wrap(fn):
        params = inspect.signature(fn).parameters
        for new in old_to_new.values():
            if new not in params:
                raise TypeError(f"{fn.__name__} has no argument {new!r}")

        @functools.wraps(fn)
        def inner(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputTypeError(f"{fn.__name__}() got both {old}= and {new}=; pass {new}= only")
                    warnings.warn(f"{fn.__name__}({old}=...) is deprecated and goes in the next minor version; "
                                  f"use {new}=", RelmodelDeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return inner

    return wrap
