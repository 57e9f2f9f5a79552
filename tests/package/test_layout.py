"""The package tree shows the layers: no import cycles, no upward imports, folders cut by concept.

Every import in every module (module level and inside functions) is read
with ``ast``; a lower layer may not import a higher one, and below the
presentation layer nothing imports matplotlib, papermill or nbconvert.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import relmodel

PKG = Path(relmodel.__file__).resolve().parent

#: Layer of each top-level part of the package; imports must not point to a higher number.
RANK = {"errors": 0, "scenario": 0.55, "defaults": 0.6, "budget_guard": 0.75, "units": 0.5, "tables": 0.5, "resources": 0.5, "data": 1, "stats": 2, "checkpoint": 3, "scale": 4, "stragglers": 4,
        "plots": 5, "report": 6, "cli": 7, "__main__": 8, "__init__": 9}
RANK.update({"base": 0.1})  # base machinery: escape, progress, start-up Ctrl-C, lazy faces
PRESENTATION_ONLY = ("matplotlib", "papermill", "nbconvert", "nbformat", "ipywidgets", "click")


def _module_name(path):
    parts = list(path.relative_to(PKG).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["relmodel"] + parts)


def _imports(path):
    """(target module, is package-relative) for every import statement in ``path``."""
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            if node.module is None or target.count(".") == 0:
                out += [f"{target}.{a.name}" for a in node.names]
            else:
                out.append(target)
    return out


def _part(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def test_every_part_has_a_layer_and_every_subpackage_a_docstring():
    for name, path in MODULES.items():
        assert _part(name) in RANK, f"{name}: add its part to RANK in this test"
        if path.name == "__init__.py":
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            assert doc and len(doc) > 80, f"{name} needs a docstring saying what belongs there"


def _violations(name, path):
    part, bad = _part(name), []
    for target in _imports(path):
        if target.startswith("relmodel.") or target == "relmodel":
            tpart = _part(target)
            if tpart != part and RANK.get(tpart, 99) >= RANK[part] and part != "__init__":
                bad.append(f"{name} imports {target}")
        elif RANK[part] < RANK["plots"] and target.split(".")[0] in PRESENTATION_ONLY:
            bad.append(f"{name} imports {target}")
    return bad


def test_no_upward_imports_and_no_presentation_libraries_below():
    bad = [v for name, path in MODULES.items() for v in _violations(name, path)]
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    graph = {}
    for name, path in MODULES.items():
        deps = set()
        for target in _imports(path):
            # resolve "relmodel.x.y.Name" to the longest module prefix
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + ".") and target != "relmodel":
                deps.add(target)
        graph[name] = deps
    # package __init__ files re-export their own children; those edges are not cycles
    state, stack, cycles = {}, [], []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in graph[n]:
            if state.get(m) == 1:
                cycles.append(stack[stack.index(m):] + [m])
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in graph:
        if n not in state:
            visit(n)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_checker_sees_planted_upward_imports(tmp_path, monkeypatch):
    """The walker is not blind: planted upward and matplotlib imports in a stats module are found."""
    fake = PKG / "stats" / "rates" / "rates.py"
    src = fake.read_text(encoding="utf-8") + "\n\ndef _x():\n    from ...scale.clusters.cluster import Cluster\n    import matplotlib\n"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: src)
    found = _violations("relmodel.stats.rates.rates", fake)
    assert found == ["relmodel.stats.rates.rates imports relmodel.scale.clusters.cluster", "relmodel.stats.rates.rates imports matplotlib"]


LOWER_LAYERS = ["relmodel.data", "relmodel.stats", "relmodel.checkpoint", "relmodel.scale"]

#: One interpreter imports the lower layers bottom up and, after each, names the presentation
#: libraries loaded so far: a library first seen after layer L was loaded by L (or what L imports).
_PROBE = """
import importlib, json, sys
seen = {}
for layer in sys.argv[1:]:
    importlib.import_module(layer)
    seen[layer] = [m for m in %r if m in sys.modules]
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def loaded_by_layer():
    code = _PROBE % (PRESENTATION_ONLY,)
    done = subprocess.run([sys.executable, "-c", code, *LOWER_LAYERS], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("layer", LOWER_LAYERS)
def test_lower_layers_load_without_presentation_libraries(layer, loaded_by_layer):
    assert loaded_by_layer[layer] == [], f"importing {layer} loaded {','.join(loaded_by_layer[layer])}"


def test_the_probe_sees_a_presentation_library_loaded_by_a_layer():
    code = _PROBE % (PRESENTATION_ONLY,)
    done = subprocess.run([sys.executable, "-c", code, "json", "click.testing"], capture_output=True, text=True,
                          check=True)
    assert json.loads(done.stdout) == {"json": [], "click.testing": ["click"]}


#: Module paths of the flat 0.2 stats layout and where each module lives now.
FLAT_PATHS = [("fitting", "lifetimes.fitting"), ("nonparam", "survival.nonparam"),
              ("covariates", "regression.covariates"), ("priors", "rates.priors"),
              ("groups", "survival.group_tests"), ("lifetimes.family", "lifetimes.base"),
              ("fleet_summary", "rates.fleet_summary")]

#: One fresh interpreter imports every old path first, then every new one, and says for each pair
#: whether both names give the same module object, and that module's name.
_FLAT_PROBE = """
import importlib, json, sys
def load(name):
    try:
        return importlib.import_module('relmodel.stats.' + name)
    except ImportError as exc:
        return exc
pairs = json.loads(sys.argv[1])
old = [load(a) for a, _ in pairs]
new = [load(b) for _, b in pairs]
print(json.dumps({a: [m is n, getattr(m, '__name__', repr(m))] for (a, _), m, n in zip(pairs, old, new)}))
"""


@pytest.fixture(scope="module")
def flat_imports():
    done = subprocess.run([sys.executable, "-c", _FLAT_PROBE, json.dumps(FLAT_PATHS)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("old, new", FLAT_PATHS)
def test_flat_stats_module_paths_still_import(old, new, flat_imports):
    """Code written against the flat 0.2 layout (``relmodel.stats.fitting``) still imports the moved module."""
    assert flat_imports[old] == [True, f"relmodel.stats.{new}"]


#: Inside the statistics layer: which concept may import which (lifetimes and rates stand alone).
STATS_MAY_IMPORT = {"lifetimes": set(), "rates": set(), "nodes": set(), "regression": {"lifetimes"},
                    "survival": {"lifetimes", "regression"},
                    "forecast": {"lifetimes", "regression", "survival", "rates"}}


def _stats_part(module):
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "stats" else None


def test_stats_is_cut_by_concept_and_the_concepts_import_downwards_only():
    parts = {_stats_part(n) for n in MODULES if _stats_part(n)}
    assert parts == set(STATS_MAY_IMPORT), f"relmodel/stats holds {sorted(parts)}"
    bad = []
    for name, path in MODULES.items():
        here = _stats_part(name)
        if here is None:
            continue
        for target in _imports(path):
            there = _stats_part(target)
            if there in STATS_MAY_IMPORT and there != here and there not in STATS_MAY_IMPORT[here]:
                bad.append(f"{name} imports {target}")
    assert not bad, "\n".join(bad)


def test_every_module_is_small_and_says_what_it_exports():
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 450, f"{name}: {text.count(chr(10))} lines; split it (about 400 at most)"
        if name not in ("relmodel", "relmodel.__main__"):  # the flat face and the entry point
            tree = ast.parse(text)
            assert any(isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"
                       for n in tree.body), f"{name} has no __all__"


def test_the_fitter_does_not_branch_on_family_names():
    """Censoring kinds and special intervals belong to the family classes, not to ``if name == ...``."""
    names = {"exponential", "weibull", "lognormal", "gamma", "loglogistic", "gengamma"}
    for mod in ("fitting", "interval", "bands", "profile", "ranking", "result"):
        tree = ast.parse((PKG / "stats" / "lifetimes" / f"{mod}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                consts = [c for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in names]
                assert not consts, f"lifetimes/{mod}.py line {node.lineno} compares with a family name"


#: Inside report/, scale/ and data/: each concept (subpackage) and the concepts of its package it may import.
#: The modules left at a package's top (report/render.py, data/source.py) may import every concept.
CUT_MAY_IMPORT = {
    "report": {"safety": set(), "parameters": set(), "blocks": set(), "kernels": {"safety", "blocks"},
               "pipeline": {"safety", "parameters", "blocks", "kernels"},
               "notebook_pages": {"safety", "parameters", "blocks", "kernels", "pipeline"}},
    "scale": {"clusters": set(), "targets": {"clusters"}, "sparing": {"clusters", "targets"},
              "design": {"clusters", "targets", "sparing"}, "lifecycle": {"clusters", "targets", "sparing"}},
    "data": {"shaping": set(), "bundled": {"shaping"}, "formats": {"shaping", "bundled"}},
}
#: Most modules a folder of the package may hold (its __init__ not counted).
MAX_FOLDER_MODULES = 20
TESTS = Path(__file__).resolve().parents[1]


def _concept(module):
    """(package, concept) of a module inside report/, scale/ or data/: its subpackage, "top" for a module at the
    package's top (render, source), None for the package itself."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] not in CUT_MAY_IMPORT:
        return None, None
    if len(parts) == 2:
        return parts[1], None
    return parts[1], (parts[2] if parts[2] in CUT_MAY_IMPORT[parts[1]] else "top")


def _concept_violations(name, path):
    package, here = _concept(name)
    if here in (None, "top"):
        return []
    bad = []
    for target in _imports(path):
        there_package, there = _concept(target)
        if there_package == package and there not in (None, here) and there not in CUT_MAY_IMPORT[package][here]:
            bad.append(f"{name} imports {target}")
    return bad


def test_report_scale_and_data_are_cut_by_concept():
    for package, concepts in CUT_MAY_IMPORT.items():
        found = {p.name for p in (PKG / package).iterdir() if (p / "__init__.py").exists()}
        assert found == set(concepts), f"relmodel/{package} holds the subpackages {sorted(found)}"


def test_the_concepts_import_downwards_only():
    bad = [v for name, path in MODULES.items() for v in _concept_violations(name, path)]
    assert not bad, "\n".join(bad)


def test_the_concept_checker_sees_planted_imports(monkeypatch):
    """A kernels module importing the pipeline, and a pipeline module importing render, are found."""
    fake = PKG / "report" / "kernels" / "engine.py"
    src = fake.read_text(encoding="utf-8") + ("\n\ndef _x():\n    from ..pipeline.plan import plan\n"
                                              "    from ..render import render\n    from ..blocks import present\n")
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: src)
    assert _concept_violations("relmodel.report.kernels.engine", fake) == [
        "relmodel.report.kernels.engine imports relmodel.report.pipeline.plan",
        "relmodel.report.kernels.engine imports relmodel.report.render"]


@pytest.mark.parametrize("package, concept", [(p, c) for p, cs in CUT_MAY_IMPORT.items() for c in cs])
def test_each_concept_has_a_face_saying_what_belongs_there(package, concept):
    tree = ast.parse((PKG / package / concept / "__init__.py").read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    assert "Belongs here" in doc or "The steps" in doc, f"{package}/{concept}: say what belongs there"
    assert "May import" in doc, f"{package}/{concept}: say what it may import"
    listed = [n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "__all__"]
    assert listed and isinstance(listed[0].value, ast.List), f"{package}/{concept} has no __all__ list"
    modules = {p.stem for p in (PKG / package / concept).glob("*.py")} - {"__init__"}
    missing = sorted(m for m in modules if f":mod:`.{m}`" not in doc)
    assert not missing, f"{package}/{concept}: its docstring does not name {missing}"


def test_no_folder_holds_too_many_modules():
    for folder in [PKG, *(p for p in PKG.rglob("*") if (p / "__init__.py").exists())]:
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        assert count <= MAX_FOLDER_MODULES, f"{folder.relative_to(PKG.parent)} holds {count} modules; cut it"


def test_tests_mirror_the_cut_packages():
    """tests/report, tests/scale and tests/data have one folder per subpackage, and no other."""
    for package, concepts in CUT_MAY_IMPORT.items():
        folders = {p.name for p in (TESTS / package).iterdir() if p.is_dir() and p.name != "__pycache__"}
        assert folders <= set(concepts), f"tests/{package} has folders {sorted(folders - set(concepts))} " \
                                         f"that relmodel/{package} has not"
        for folder in folders:
            assert list((TESTS / package / folder).glob("test_*.py")), f"tests/{package}/{folder} is empty"


def test_the_public_names_of_the_cut_packages_still_load():
    """Every name of the faces of report/, scale/ and data/ (and their subpackages) loads in a fresh interpreter."""
    code = ("import importlib, sys\nbad = []\nfor pkg in sys.argv[1:]:\n    m = importlib.import_module(pkg)\n"
            "    for n in m.__all__:\n        try:\n            getattr(m, n)\n        except Exception as exc:\n"
            "            bad.append(f'{pkg}.{n}: {exc}')\nprint(bad)")
    packages = ["relmodel.report", "relmodel.scale", "relmodel.data"]
    packages += [f"relmodel.{p}.{c}" for p, cs in CUT_MAY_IMPORT.items() for c in cs]
    done = subprocess.run([sys.executable, "-c", code, *packages], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
