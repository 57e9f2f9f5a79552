import os
from pathlib import Path

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
