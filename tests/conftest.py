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
    return relmodel.datasets.stepfun()  # bundled data loads quietly (tests/test_datasets.py checks it)
