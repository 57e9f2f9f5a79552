"""A wheel that works away from the checkout: built, installed offline, rendering from an empty folder.

The wheel is built from a copy of the source (``pip wheel --no-deps
--no-build-isolation``: nothing is fetched) and installed with ``pip install
--no-deps --target``; the installed package then runs with only that folder on
``PYTHONPATH``, from an empty working folder, on the running environment's
dependencies.  This works the same whether the tests run in a virtual
environment or not (a ``--system-site-packages`` venv made from inside a venv
would see the base interpreter's packages, not the running ones).
"""

import csv
import json
import lzma
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, write_notebook

SOURCE = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "relmodel", "notebooks", "data")


def _pip(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pip", *args, "--no-index", "--disable-pip-version-check", "-q"],
                          cwd=cwd, capture_output=True, text=True)


def build_and_install(root):
    """Build the wheel from a copy of the source under ``root`` and install it into ``root/site``.

    Returns ``{"wheel": path, "site": path}``, or ``{"error": what pip said}``.
    """
    src = root / "src"
    for name in SOURCE:
        item = REPO / name
        if item.is_dir():
            shutil.copytree(item, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(item, src / name)
    done = _pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(root / "dist"), str(src), cwd=root)
    if done.returncode:
        return {"error": done.stdout + done.stderr}
    wheel = next((root / "dist").glob("relmodel-*.whl"), None)
    if wheel is None:
        return {"error": f"pip wheel wrote no relmodel wheel into {root / 'dist'}"}
    done = _pip("install", "--no-deps", "--target", str(root / "site"), str(wheel), cwd=root)
    if done.returncode:
        return {"error": done.stdout + done.stderr}
    return {"wheel": str(wheel), "site": str(root / "site")}


@pytest.fixture(scope="module")
def installed(wheel_install):
    """(wheel path, folder the wheel is installed into): built once per test run (tests/conftest.py)."""
    assert "error" not in wheel_install.__dict__, wheel_install.error
    return Path(wheel_install.wheel), Path(wheel_install.site)


def _run(site, code, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RELMODEL_DATA")}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_wheel_carries_every_notebook_and_data_file(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for part in ("notebooks", "data"):
        files = [p for p in (REPO / part).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        assert files
        for p in files:
            assert f"relmodel/_suite/{part}/{p.relative_to(REPO / part).as_posix()}" in names, p
    assert "relmodel/resources.py" in names and "relmodel/report/pipeline/run.py" in names


#: Run by the installed package from an empty folder: ``relmodel report`` of notebook 03 and a probe
#: (one worker process, whose warm kernel runs both notebooks); its exit code is kept.
_RENDER = """
rendered = None
try:
    main(['report', '-q', '-n', '03', '-n', PROBE, '-p', 'n_runs=20', '-p', 'work=5d', '-p', 'n_boot=0', '-j', '1',
          '--out', 'r'])
except SystemExit as e:
    rendered = e.code
"""

#: Then, from another folder: what the package finds, and ``relmodel notebooks --copy mine``.
_FIND = """
os.chdir(WORK)
llama = relmodel.datasets.llama3_54day()
said = io.StringIO()
with contextlib.redirect_stdout(said):
    try:
        main(['notebooks', '--copy', 'mine'])
    except SystemExit as e:
        assert not e.code, e.code
print(json.dumps({'package': relmodel.__file__, 'notebooks': str(NOTEBOOK_DIR), 'rendered': rendered,
  'data': str(relmodel.datasets.data_dir()), 'llama': [llama.n_unexpected, llama.n_planned],
  'stepfun': len(relmodel.datasets.stepfun().events), 'lanl': len(relmodel.datasets.lanl().events),
  'fleets': len(relmodel.datasets.fleets()), 'copy': said.getvalue()}))
"""


@pytest.fixture(scope="module")
def seen(installed, tmp_path_factory):
    """One interpreter on the installed package (a fresh one costs an import): a report rendered from an
    empty folder (``empty/r``), then what the package finds and ``relmodel notebooks --copy mine`` (in ``work``)."""
    _, site = installed
    root = tmp_path_factory.mktemp("installed")
    work, empty = root / "work", root / "empty"
    work.mkdir()
    empty.mkdir()
    probe = write_notebook(root / "probe.ipynb", [
        "x = 1  # nothing",
        "import relmodel\nfrom relmodel.report import record\nrecord('where', relmodel.__file__)"])
    head = (f"import io, os, json, contextlib, relmodel\nfrom relmodel.cli import main\n"
            f"from relmodel.report import NOTEBOOK_DIR\nPROBE, WORK = {str(probe)!r}, {str(work)!r}\n")
    out = _run(site, head + _RENDER + _FIND, cwd=empty)
    return {**json.loads(out.strip().splitlines()[-1]), "work": work, "empty": empty}


def test_the_installed_package_finds_its_suite_and_data(installed, seen):
    _, site = installed
    for key in ("package", "notebooks", "data"):
        assert seen[key].startswith(str(site)), (key, seen[key])  # not the checkout
    assert seen["llama"] == [419, 47]  # Table 5 of arXiv 2407.21783: 419 unexpected, 47 planned
    assert seen["stepfun"] == 584  # the StepFun trace's README (arXiv 2502.03885): 584 faults
    with open(REPO / "data" / "fleets" / "fleets.csv", newline="", encoding="utf-8") as f:
        assert seen["fleets"] == sum(1 for _ in csv.reader(f)) - 1  # one row per line after the header
    with lzma.open(REPO / "data" / "lanl-1996-2005" / "LA-UR-05-7318-failure-data-1996-2005.csv.xz", "rt") as f:
        assert 0.9 < seen["lanl"] / (sum(1 for _ in csv.reader(f)) - 1) <= 1  # every record, less duplicates


def test_notebooks_copy_gives_a_writable_suite(seen):
    mine = seen["work"] / "mine"
    assert "jupyter lab mine" in seen["copy"]
    assert sorted(p.name for p in mine.glob("*.ipynb")) == sorted(p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    assert os.access(mine / "03_checkpoint_interval.ipynb", os.W_OK)


def test_the_installed_package_renders_a_notebook_from_an_empty_folder(installed, seen):
    _, site = installed
    report = seen["empty"] / "r"
    assert seen["rendered"] == 0
    summary = json.loads((report / "summary.json").read_text())
    assert summary["headline"]["job_mtbf_h"] > 0 and (report / "index.html").exists()
    assert (report / "03_checkpoint_interval.html").exists()
    where = summary["records"]["probe"]["where"]
    assert where.startswith(str(site)), where  # the kernel imported the installed package too
