import json
import os
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

try:
    import fcntl
except ImportError:  # Windows has none; run the tests there in one process (no -n)
    fcntl = None

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def llama3():
    import relmodel
    return relmodel.datasets.llama3_54day()


@pytest.fixture(scope="session")
def stepfun_log():
    import relmodel
    return relmodel.datasets.stepfun()  # bundled data loads quietly (tests/data/test_datasets.py checks it)


def write_notebook(path, cells):
    """A notebook of code ``cells`` whose first cell is the tagged parameters cell; returns ``path``."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for i, source in enumerate(cells):
        cell = nbformat.v4.new_code_cell(source)
        if i == 0:
            cell.metadata["tags"] = ["parameters"]
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def run_cli(*args, **runner_options):
    """``relmodel *args`` run in-process through click's CliRunner (arguments turned into strings)."""
    from click.testing import CliRunner

    from relmodel.cli import cli

    return CliRunner(**runner_options).invoke(cli, [str(a) for a in args])


# --- full reports rendered once per test session and shared ----------------------------------

#: Parameters of the shared default report: small Monte Carlo and bootstrap sizes, and a value
#: for every kind of parameter (int, duration, list, choice) so each is seen reaching the kernels.
SUITE_PARAMS = {"n_gpus": 65536, "ckpt_cost": "2min", "n_boot": 20, "n_runs": 20, "work": "5d", "top": 5,
                "sizes": [4096, 16384, 65536], "durations": "interarrivals"}

#: Small values for the shared report of a log with custom column names.
CUSTOM_PARAMS = {"n_boot": 20, "n_runs": 20, "work": "5d", "sizes": [4096, 16384, 65536]}


@contextmanager
def _exclusive(lock_path):
    """Hold an exclusive lock on ``lock_path`` (the test processes of one pytest-xdist run share it)."""
    with open(lock_path, "a+") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _shared_root(tmp_path_factory):
    """A folder every test process of this run sees: the parent of the per-worker base folders under xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_cli_report(tmp_path_factory, name, args):
    """Render ``relmodel report ARGS --out <shared>/NAME`` once per test run; later callers reuse it.

    Returns a namespace with ``path`` (the report folder), ``output`` (what the command printed)
    and ``exit_code``.  Under pytest-xdist the first process to ask renders while the others
    wait on a file lock, so the report is rendered once for the whole run, not once per process.
    """
    from click.testing import CliRunner

    from relmodel.cli import cli

    root = _shared_root(tmp_path_factory) / "shared-reports"
    root.mkdir(exist_ok=True)
    out, done = root / name, root / f"{name}.json"
    with _exclusive(root / f"{name}.lock"):
        if not done.exists():
            res = CliRunner().invoke(cli, ["report", "-q", "--out", str(out), *map(str, args(root))])
            done.write_text(json.dumps({"output": res.output, "exit_code": res.exit_code}))
    result = json.loads(done.read_text())
    return SimpleNamespace(path=out, output=result["output"], exit_code=result["exit_code"])


def _options(params):
    return [a for k, v in params.items() for a in ("-p", f"{k}={v}")]


@pytest.fixture(scope="session")
def suite_report(tmp_path_factory):
    """The whole suite on the default (bundled) data with :data:`SUITE_PARAMS`, through the CLI."""
    return shared_cli_report(tmp_path_factory, "suite", lambda root: _options(SUITE_PARAMS))


@pytest.fixture(scope="session")
def custom_report(tmp_path_factory):
    """The whole suite on a log with custom column names (``our outages.csv``), through the CLI."""
    def args(root):
        from test_report_content import ODD, odd_log

        log = odd_log(root / "our outages.csv")
        return ["-p", f"log={log}", *[a for k, v in ODD.items() for a in ("-p", f"{k}='{v}'")],
                *_options(CUSTOM_PARAMS)]
    return shared_cli_report(tmp_path_factory, "custom", args)
