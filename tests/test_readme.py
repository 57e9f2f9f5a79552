"""The README's Python examples run as written."""

import re
import warnings

import pytest

from conftest import REPO

BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 4


def test_readme_python_blocks_run():
    ns = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, block in enumerate(BLOCKS):
            exec(compile(block, f"README.md python block {i}", "exec"), ns)
    assert ns["tau"] > 0 and ns["plan"].feasible in (True, False)
