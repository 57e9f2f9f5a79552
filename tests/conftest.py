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
    import warnings
    import relmodel
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.LogWarning)
        return relmodel.datasets.stepfun()
