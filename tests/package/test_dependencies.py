"""Every import is declared, every relmodel warning fails a stray test, and the metadata is modern.

The import walk reads every import (module level and inside functions) of
``relmodel/``, ``tests/``, ``bench/``, ``tools/``, the notebooks' code cells and
the Python blocks of the README and its topic pages (``docs/*.md``) with ``ast``, and maps each top-level module to the
distributions that provide it (``importlib.metadata.packages_distributions``).
A module must be the standard library, part of the repository, or provided by a
distribution that ``pyproject.toml`` declares (runtime or the ``test`` extra,
including the extras a declaration names, such as ``dask[distributed]``).
"""

import ast
import importlib.metadata as md
import re
import sys
import tomllib

import nbformat
import pytest

from conftest import REPO, doc_blocks

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
FOLDERS = ("relmodel", "tests", "bench", "tools")


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(text):
    """(distribution name, extras) of a requirement string such as ``dask[distributed]>=2024.1``."""
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", text)
    extras = [e.strip() for e in (m.group(2) or "").split(",") if e.strip()]
    return m.group(1), extras


def declared():
    """Normalised names of the declared distributions and of those their named extras bring."""
    project = PYPROJECT["project"]
    names = set()
    for text in project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]:
        name, extras = _requirement(text)
        names.add(_norm(name))
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:  # an extra not installed here (bench): its own name only
            requires = []
        for req in requires:
            if any(re.search(rf"extra\s*==\s*['\"]{re.escape(e)}['\"]", req) for e in extras):
                names.add(_norm(_requirement(req)[0]))
    return names


def top_level_imports(source):
    """Top-level module names imported by ``source`` (absolute imports, importorskip, import_module)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("importorskip", "import_module") and node.args and isinstance(node.args[0], ast.Constant)
              and not str(node.args[0].value).startswith(".")):
            out.add(str(node.args[0].value).split(".")[0])
    return out


def sources():
    """(where, source text) for every Python file, notebook code cell and block of the README and docs/*.md."""
    for folder in FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8")
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "code":
                code = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
                yield f"{path.name} cell {i}", code
    for page, i, block in doc_blocks("python"):
        yield f"{page} python block {i}", block


def local_modules():
    """Names importable from the repository itself: the package and the scripts beside each other."""
    return {"relmodel"} | {p.stem for folder in FOLDERS[1:] for p in (REPO / folder).rglob("*.py")}


def undeclared(items, providers, names):
    """{module: [where]} for imports that neither the standard library, the repository nor ``names`` provide."""
    local, bad = local_modules(), {}
    for where, source in items:
        for module in top_level_imports(source):
            if module in sys.stdlib_module_names or module in local:
                continue
            found = {_norm(d) for d in providers.get(module, [])} or {_norm(module)}  # not installed: same name
            if not found & names:
                bad.setdefault(module, []).append(where)
    return bad


def test_every_import_is_provided_by_a_declared_distribution():
    bad = undeclared(sources(), md.packages_distributions(), declared())
    assert not bad, "declare these in pyproject.toml (runtime or the test extra):\n" + "\n".join(
        f"  {m} (provided by {', '.join(md.packages_distributions().get(m, ['nothing installed']))}), "
        f"imported in {', '.join(w[:3])}" for m, w in sorted(bad.items()))


def test_the_walk_would_see_an_undeclared_import():
    providers = md.packages_distributions()
    planted = [("a.py", "import json\nimport yaml\nfrom ruamel.yaml import YAML\n"),
               ("b.py", "def f():\n    import mpmath\n    from surely_not_a_module import x\n"),
               ("c.py", "import pytest\npytest.importorskip('playwright.sync_api')\n")]
    names = declared()
    # yaml is PyYAML's, installed (papermill needs it) but not declared: relmodel reads YAML with ruamel.yaml
    assert undeclared(planted, providers, names) == {"yaml": ["a.py"], "surely_not_a_module": ["b.py"]}
    assert undeclared(planted, providers, names - {"mpmath"}) == {"mpmath": ["b.py"], "yaml": ["a.py"],
                                                                  "surely_not_a_module": ["b.py"]}
    assert "distributed" in names  # brought by the declared dask[distributed]


def test_the_walk_covers_every_kind_of_source():
    where = [w for w, _ in sources()]
    for expected in ("relmodel/report/kernels/kernel.py", "tests/conftest.py", "bench/timing.py",
                     "01_log_explorer.ipynb cell", "README.md python block 1",
                     "docs/planning.md python block 1"):
        assert any(w.startswith(expected) for w in where), expected


def _warning_classes():
    """Names of the Warning subclasses defined anywhere in the package (read with ast)."""
    found = set()
    for path in (REPO / "relmodel").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(getattr(b, "id", getattr(b, "attr", "")).endswith("Warning")
                                                      for b in node.bases):
                found.add(node.name)
    return found


def test_every_relmodel_warning_class_is_an_error_in_tests():
    import importlib

    listed = {}
    for entry in PYPROJECT["tool"]["pytest"]["ini_options"]["filterwarnings"]:
        action, _, category = entry.split(":")[:3]
        if action == "error" and category.startswith("relmodel."):
            module, _, name = category.rpartition(".")
            cls = getattr(importlib.import_module(module), name)
            assert issubclass(cls, Warning) and cls.__name__ == name
            listed[name] = cls
    assert _warning_classes() == set(listed), "list every relmodel warning class as error:: in pyproject.toml"
    assert {"ArgumentOrderWarning", "LogWarning", "FitWarning"} <= set(listed)


def test_a_stray_relmodel_warning_fails():
    import warnings

    from relmodel.errors import ArgumentOrderWarning

    with pytest.raises(ArgumentOrderWarning):  # the ini filter turns it into an error here
        warnings.warn("durations look swapped", ArgumentOrderWarning)


def test_license_is_an_spdx_string_and_the_build_can_read_it():
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    build = [_requirement(r)[0] for r in PYPROJECT["build-system"]["requires"]]
    assert build == ["setuptools"]
    minimum = re.search(r">=\s*(\d+)", PYPROJECT["build-system"]["requires"][0])
    assert minimum and int(minimum.group(1)) >= 77  # setuptools reads SPDX license strings from 77 on


def test_requirements_txt_installs_the_package_with_its_test_extra():
    lines = [line.split("#")[0].strip() for line in (REPO / "requirements.txt").read_text().splitlines()]
    assert "-e .[test]" in lines
