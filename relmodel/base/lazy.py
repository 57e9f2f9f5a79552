"""Package faces that load on first use (PEP 562), so importing a package stays cheap.

A package lists what it re-exports as ``(module, "name name ...")`` rows and
gets back the module-level ``__getattr__`` and ``__dir__`` it installs::

    EXPORTS = [(".cluster", "Cluster"), (".spares", "erlang_b spare_pool")]
    __getattr__, __dir__ = lazy.face(__name__, EXPORTS)

``package.name`` then imports the module of that row once and keeps the value
in the package's namespace, exactly as ``from .module import name`` would have
(a name that is a submodule, such as ``from . import spares``, gives the
submodule).  Any other submodule (``package.sub``) loads on first access too.
Base layer: imports nothing of relmodel.
"""

import importlib
import importlib.util
import sys
import types

__all__ = ["names", "face", "Face"]

#: Package name -> {re-exported name: module it comes from}.
_WHERE = {}


def names(exports):
    """Every name the ``(module, "name name ...")`` rows export, in their order.

    Examples
    --------
    >>> names([(".units", "hours fit_from_mtbf"), (".", "errors")])
    ['hours', 'fit_from_mtbf', 'errors']
    """
    return [name for _, row in exports for name in row.split()]


def _where(package, exports):
    where = {}
    for module, row in exports:
        for name in row.split():
            where[name] = importlib.util.resolve_name(module, package) if module.startswith(".") else module
    return where


def _load(package, module, name):
    """What ``from <module> import <name>`` gives, resolved relative to ``package``."""
    if module == package:  # ``from . import name``: a submodule
        return importlib.import_module(f"{package}.{name}")
    mod = importlib.import_module(module)
    try:
        return getattr(mod, name)
    except AttributeError:
        return importlib.import_module(f"{module}.{name}")


def _is_submodule(package, name):
    if name.startswith("_"):
        return False
    try:
        return importlib.util.find_spec(f"{package}.{name}") is not None
    except (ImportError, ValueError):
        return False


class Face(types.ModuleType):
    """A package whose re-exported names win over its submodules of the same name.

    Importing a submodule binds it on its package (``relmodel.checkpoint.backtest``
    the module); when the package re-exports a name from that submodule (the
    function ``backtest``), the package keeps the function, as ``from .backtest
    import backtest`` would have left it.
    """

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _WHERE.get(self.__name__, {}).get(name) == value.__name__ \
                and name in vars(value):
            value = getattr(value, name)
        super().__setattr__(name, value)


def face(package, exports):
    """The ``(__getattr__, __dir__)`` pair of ``package`` re-exporting the ``(module, names)`` rows ``exports``.

    ``package`` is the package's ``__name__``; each row's module is relative to
    it (``".cluster"``, ``"."`` for its own submodules) or absolute.

    Examples
    --------
    >>> import sys, types
    >>> sys.modules["demo"] = types.ModuleType("demo")   # a package of one name, from relmodel.units
    >>> get, listing = face("demo", [("relmodel.units", "hours")])
    >>> get("hours")("90min")   # 1.5 hours
    1.5
    >>> "hours" in listing(), sys.modules["demo"].hours is get("hours")
    (True, True)
    """
    where = _WHERE[package] = _where(package, exports)
    sys.modules[package].__class__ = Face

    def __getattr__(name):
        if name in where:
            value = _load(package, where[name], name)
        elif _is_submodule(package, name):
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
