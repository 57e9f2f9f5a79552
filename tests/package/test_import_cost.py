"""``import relmodel`` stays cheap: the flat face loads each layer on first use, and every name still resolves.

Each probe is a fresh interpreter started from the repository root (this tree's
relmodel first on the path) that imports something and names the libraries
then in ``sys.modules``.
"""

import ast
import importlib
import json
import os
import re
import subprocess
import sys

import pytest

import relmodel
from conftest import REPO

LIBRARIES = ("numpy", "pandas", "scipy", "scipy.stats", "scipy.optimize", "pyarrow", "lifelines", "matplotlib",
             "papermill", "nbformat", "nbconvert", "click", "dask", "ipywidgets", "yaml")
PRESENTATION = {"matplotlib", "papermill", "nbformat", "nbconvert", "click", "ipywidgets"}

_PROBE = """
import json, sys
{code}
print(json.dumps({{"loaded": [m for m in {libraries!r} if m in sys.modules],
                   "relmodel": sorted(m for m in sys.modules if m.split(".")[0] == "relmodel")}}))
"""


def probe(code):
    """The libraries (of LIBRARIES) and relmodel modules loaded by running ``code`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", _PROBE.format(code=code, libraries=LIBRARIES)], cwd=REPO, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_relmodel_loads_no_library():
    found = probe("import relmodel")
    assert found["loaded"] == [], f"import relmodel loaded {found['loaded']}"
    assert found["relmodel"] == ["relmodel", "relmodel.base", "relmodel.base.lazy", "relmodel.base.quiet_start"]


def test_the_probe_sees_a_library_loaded_with_relmodel():
    """Not blind: an import planted beside ``import relmodel`` is found (a hand count of what was imported)."""
    found = probe("import relmodel, matplotlib, scipy.optimize")
    assert {"matplotlib", "scipy.optimize", "numpy"} <= set(found["loaded"])


@pytest.mark.parametrize("name, not_loaded", [
    ("units.hours", set(LIBRARIES) - {"numpy"}),
    ("read_log", {"scipy", "lifelines"} | PRESENTATION),  # the data layer: numpy, pandas (and pyarrow) only
    ("checkpoint.young_interval", {"scipy.stats", "scipy.optimize", "lifelines", "dask"} | PRESENTATION),  # closed forms
    ("Cluster", {"scipy", "lifelines", "dask"} | PRESENTATION),
    ("fit", {"lifelines", "dask"} | PRESENTATION),
    ("scale.required_node_mtbf", {"scipy.stats", "lifelines", "dask"} | PRESENTATION),
    ("stragglers.slowdown", {"lifelines", "dask"} | PRESENTATION),
])
def test_first_use_loads_only_its_layer(name, not_loaded):
    found = probe(f"import relmodel\nrelmodel.{name}")
    assert not set(found["loaded"]) & not_loaded, f"relmodel.{name} loaded {set(found['loaded']) & not_loaded}"
    assert "relmodel.plots" not in found["relmodel"] and "relmodel.report" not in found["relmodel"]


@pytest.mark.parametrize("use, absent", [
    ("relmodel.read_log", {"relmodel.data.formats.sacct", "relmodel.data.formats.kernlog", "relmodel.data.bundled.datasets", "relmodel.stats"}),
    ("relmodel.checkpoint.young_interval", {"relmodel.checkpoint.simulate", "relmodel.checkpoint.search", "relmodel.stats"}),
    ("relmodel.Cluster", {"relmodel.scale.sparing.spares", "relmodel.scale.design.designs", "relmodel.checkpoint"}),
    ("relmodel.plots.logs.plot_pareto", {"relmodel.plots.fits", "relmodel.stats", "relmodel.scale"}),
    ("relmodel.report.record", {"relmodel.report.pipeline.run", "relmodel.report.render", "relmodel.plots"}),
])
def test_a_package_face_loads_only_the_module_of_the_name(use, absent):
    loaded = set(probe(f"import relmodel\n{use}")["relmodel"])
    assert use.rpartition(".")[0] in loaded | {"relmodel"}
    assert not loaded & absent, f"{use} loaded {sorted(loaded & absent)}"


def test_every_name_of_a_package_face_resolves():
    from relmodel import checkpoint, data, plots, report, scale

    for face in (relmodel, checkpoint, data, plots, report, scale):
        exported = [name for _, row in face.EXPORTS for name in row.split()]
        assert sorted(exported) == sorted(face.__all__), face.__name__
        for name in face.__all__:
            assert getattr(face, name) is not None
    assert checkpoint.simulate_training.__module__ == "relmodel.checkpoint.simulate"
    assert data.datasets.__name__ == "relmodel.data.bundled.datasets" and scale.spares.__name__ == "relmodel.scale.sparing.spares"


def test_every_name_of_the_face_resolves_to_its_layers_object():
    from relmodel import checkpoint, data, scale, stats, stragglers, units

    assert len(relmodel.__all__) == len(set(relmodel.__all__)) <= 32
    for name in relmodel.__all__:
        obj = getattr(relmodel, name)
        owners = [m for m in (units, data, stats, checkpoint, scale, stragglers) if name in getattr(m, "__all__", ())]
        for owner in owners:
            assert getattr(owner, name) is obj, f"relmodel.{name} is not relmodel.{owner.__name__}.{name}"
    assert relmodel.decide is relmodel.scale.targets.decision.decide
    assert relmodel.simulate_fleet is relmodel.scale.lifecycle.simulate_fleet and relmodel.datasets is relmodel.data.datasets
    assert set(relmodel.__all__) <= set(dir(relmodel))


@pytest.mark.parametrize("name", sorted(relmodel.MOVED))
def test_a_name_that_left_the_face_says_where_it_lives_now(name):
    where = relmodel.MOVED[name]
    package, _, attr = where.rpartition(".")
    assert attr in importlib.import_module(package).__all__, f"{where} is not on its package's face"
    assert getattr(importlib.import_module(package), attr) is not None
    with pytest.raises(AttributeError, match=f"^relmodel.{name} moved: use {re.escape(where)}$"):
        getattr(relmodel, name)
    assert name not in relmodel.__all__ and not hasattr(relmodel, name)


def test_star_import_gives_every_name():
    namespace = {}
    exec("from relmodel import *", namespace)
    assert set(relmodel.__all__) <= set(namespace)
    assert namespace["optimal_interval"] is relmodel.optimal_interval and namespace["errors"] is relmodel.errors
    assert "young_interval" not in namespace


def test_submodules_load_on_first_access_and_unknown_names_fail():
    assert relmodel.cli.main.__module__ == "relmodel.cli.main"
    assert relmodel.tables.__name__ == "relmodel.tables"
    assert not hasattr(relmodel, "no_such_name")
    with pytest.raises(AttributeError, match="'relmodel' has no attribute 'no_such_name'"):
        relmodel.no_such_name  # noqa: B018


def test_a_step_log_from_the_face_brings_no_planning_layer():
    """A step log is data: reading one loads nothing of relmodel.stragglers (its analyses are functions there)."""
    found = probe("import relmodel\nrelmodel.read_steps\nrelmodel.data.example_steps()")
    assert "relmodel.stragglers" not in found["relmodel"]
    assert not hasattr(relmodel.data.StepLog, "slowdown") and not hasattr(relmodel.data.StepLog, "find_slow_nodes")


def test_the_ctrl_c_guard_is_still_the_first_thing_imported():
    body = ast.parse((REPO / "relmodel" / "__init__.py").read_text(encoding="utf-8")).body
    first = next(node for node in body if isinstance(node, (ast.Import, ast.ImportFrom)))
    assert first.module == "base.quiet_start" and first.names[0].name == "guard"


@pytest.mark.parametrize("package, name", [("relmodel.checkpoint", "backtest"), ("relmodel.report", "render")])
def test_a_name_shared_with_its_submodule_stays_the_function(package, name):
    """Importing the submodule first (``relmodel.checkpoint.backtest``) leaves the package's name the function."""
    code = (f"import importlib, inspect\nimport {package}.{name}\npkg = importlib.import_module({package!r})\n"
            f"assert inspect.isfunction(pkg.{name}), pkg.{name}\n"
            f"assert pkg.{name} is importlib.import_module({package + '.' + name!r}).{name}")
    probe(code)


# --- the command line: help and option parsing load nothing heavy ---------------------------------

HEAVY = {"pandas", "scipy", "pyarrow", "lifelines", "matplotlib", "papermill", "nbconvert", "dask"}


def _cli(args):
    """What running ``relmodel ARGS`` (its exit swallowed) loads, in a fresh interpreter."""
    return probe("from relmodel.cli.main import main\ntry:\n    main(" + repr(list(args)) + ")\n"
                 "except SystemExit:\n    pass")


@pytest.mark.parametrize("command", ["rates", "fit", "interval", "requirements", "report", "notebooks"])
def test_subcommand_help_loads_no_heavy_library(command):
    found = _cli([command, "--help"])
    assert not set(found["loaded"]) & HEAVY, f"relmodel {command} --help loaded {set(found['loaded']) & HEAVY}"
    assert not {m for m in found["relmodel"] if m.startswith(("relmodel.stats", "relmodel.checkpoint",
                                                               "relmodel.scale", "relmodel.plots"))}


@pytest.mark.parametrize("args", [["interval", "--seed", "-1"], ["requirements", "--cluster", "nope"],
                                  ["fit", "--what", "nope"], ["rates", "--per", "nope"]])
def test_a_bad_option_is_refused_before_anything_heavy_loads(args):
    found = _cli(args)
    assert not set(found["loaded"]) & HEAVY, f"relmodel {' '.join(args)} loaded {set(found['loaded']) & HEAVY}"


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_a_one_line_interval_loads_no_pandas_and_no_scipy(fmt):
    found = _cli(["interval", "--mtbf", "3h", "--ckpt-cost", "45s", "--restart", "10min", "--format", fmt])
    assert "relmodel.checkpoint.plan" in found["relmodel"] and "numpy" in found["loaded"]  # the answer was computed
    assert not set(found["loaded"]) & (HEAVY | {"scipy.stats", "scipy.optimize"}), \
        f"relmodel interval --mtbf loaded {set(found['loaded']) & HEAVY}"
    assert not {m for m in found["relmodel"] if m.startswith(("relmodel.stats", "relmodel.scale", "relmodel.plots"))}


def test_an_interval_answer_beyond_the_plain_table_still_loads_pandas():
    """Not blind: the probe sees pandas when the answer needs it (a two-level plan is a frame)."""
    found = _cli(["interval", "--mtbf", "3h", "--ckpt-cost", "2min", "--fast-cost", "5s", "--fast-fraction", "0.8"])
    assert "pandas" in found["loaded"] and "relmodel.checkpoint.multilevel" in found["relmodel"]


def test_the_names_the_cli_keeps_for_its_help_match_the_library():
    from relmodel.cli.fit import DEFAULT_FAMILIES
    from relmodel.cli.requirements import CLUSTER_PRESETS
    from relmodel.scale.clusters.cluster import Cluster
    from relmodel.stats.lifetimes.ranking import DEFAULT_FAMILIES as LIBRARY_FAMILIES

    assert tuple(DEFAULT_FAMILIES) == tuple(LIBRARY_FAMILIES)
    assert sorted(CLUSTER_PRESETS) == sorted(Cluster.presets())
