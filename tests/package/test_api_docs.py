"""Every public function documents its units and shows a runnable example; the examples run; docs/api.md is current."""

import doctest
import importlib
import inspect
import re
import sys

import pytest

import relmodel
from conftest import REPO

SUBPACKAGES = ["relmodel.data", "relmodel.stats", "relmodel.checkpoint", "relmodel.scale", "relmodel.plots",
               "relmodel.report", "relmodel.cli"]
UNITS = re.compile(r"\b(hours?|h|minutes?|seconds?|days?|per hour|fractions?|FIT|failures?|counts?|GPUs?|nodes?|"
                   r"shares?|probabilit(y|ies)|durations?|rates?|Axes|DataFrame|paths?|Path|Erlangs?)\b")


def _public_functions():
    mods = [relmodel, relmodel.datasets, relmodel.units, relmodel.errors, relmodel.resources]
    mods += [importlib.import_module(m) for m in SUBPACKAGES]
    from relmodel.plots import interactive  # the notebooks' widgets
    mods += [relmodel.plots.checkpoint, relmodel.plots.logs, relmodel.plots.scaling, relmodel.plots.fits, interactive]
    found = {}
    for mod in mods:
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) and obj.__module__.startswith("relmodel"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    for where in relmodel.MOVED.values():  # the names that left the top-level face (stragglers' among them) keep theirs
        package, _, name = where.rpartition(".")
        obj = getattr(importlib.import_module(package), name)
        if inspect.isfunction(obj):
            found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


FUNCTIONS = _public_functions()
MODULES = sorted({f.__module__ for f in FUNCTIONS.values()} | {"relmodel.defaults", "relmodel.checkpoint.order"})


def test_the_public_api_is_all_covered():
    assert len(FUNCTIONS) >= 70
    for name in ("relmodel.checkpoint.intervals.young_interval", "relmodel.data.bundled.datasets.stepfun",
                 "relmodel.plots.logs.plot_pareto", "relmodel.report.kernels.records.record"):
        assert name in FUNCTIONS


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_docstring_has_units_and_an_example(name):
    doc = inspect.getdoc(FUNCTIONS[name]) or ""
    assert "Examples" in doc and ">>>" in doc, f"{name}: add an Examples section with a doctest"
    assert UNITS.search(doc.split("Examples")[0]), f"{name}: say the units of the arguments and the result"


@pytest.mark.parametrize("module", MODULES)
def test_doctests_run(module):
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(mod, module, globs=vars(mod).copy()):
        runner.run(test, out=lambda s: sys.stdout.write(s))
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{module}: {res.failed} of {res.attempted} doctest examples failed (see stdout)"


def test_docs_api_md_is_current():
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import make_api_doc
    finally:
        sys.path.pop(0)
    assert (REPO / "docs" / "api.md").read_text(encoding="utf-8") == make_api_doc.render(), \
        "docs/api.md is out of date: run python tools/make_api_doc.py"
