"""A file-size limit (``ulimit -f``) during a render (second hostile corpus, tracebacks): a named
error (an environment error, exit status 1) and one sentence naming the limit.

The limit is set with ``resource.setrlimit(RLIMIT_FSIZE)`` in a child process, which then
reads a cut-short notebook back or writes a report file past the limit, as a render does.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_notebook
from relmodel.report.safety.file_limit import size_error, too_large

REPO = Path(__file__).resolve().parents[2]


def test_too_large_follows_the_chain():
    import errno
    inner = OSError(errno.EFBIG, "File too large")
    try:
        try:
            raise inner
        except OSError as exc:
            raise RuntimeError("writing the notebook failed") from exc
    except RuntimeError as outer:
        assert too_large(outer)
    assert not too_large(OSError(errno.ENOSPC, "No space left on device")) and not too_large(ValueError("x"))
    err = size_error("/r/index.html")
    assert isinstance(err, OSError) and err.errno == errno.EFBIG and "cannot write /r/index.html" in str(err)


def _in_child(code):
    """Run ``code`` in a child Python (with this checkout first) and return its stdout."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_a_cut_short_notebook_under_a_limit_is_the_named_error(tmp_path):
    # a notebook cut at 4 KiB, read back by a process whose file-size limit is 4 KiB
    import nbformat
    full = tmp_path / "full.ipynb"
    write_notebook(full, ["n: int = 1  # a number", "print('x' * 20_000)"])
    nb = nbformat.read(full, as_version=4)
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="x" * 20_000)]
    nbformat.write(nb, full)
    cut = tmp_path / "cut.ipynb"
    cut.write_bytes(full.read_bytes()[:4096])
    out = _in_child(
        "import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "from relmodel.report.safety.file_limit import read_notebook\n"
        "from relmodel.errors import ReportWriteError, is_environment_error\n"
        f"try:\n    read_notebook({str(cut)!r}, 'big')\n"
        "except ReportWriteError as exc:\n    print(is_environment_error(exc), exc)\n")
    assert out.startswith("True cannot write ") and "file-size limit of 4.0 KiB (ulimit -f)" in out
    assert "ulimit -f unlimited" in out


def test_a_cut_short_notebook_without_a_limit_is_a_report_error(tmp_path):
    from relmodel.errors import ReportError
    from relmodel.report.safety.file_limit import read_notebook
    cut = tmp_path / "cut.ipynb"
    cut.write_text('{\n "cells": [\n  {\n   "cell_type": "m')
    with pytest.raises(ReportError, match="big: the executed notebook could not be read back"):
        read_notebook(cut, "big")


def test_a_write_past_the_limit_is_the_named_error(tmp_path):
    target = tmp_path / "page.html"
    out = _in_child(
        "import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))\n"
        "from relmodel.report.safety.folders import write_text\n"
        "from relmodel.errors import ReportWriteError\n"
        f"try:\n    write_text(__import__('pathlib').Path({str(target)!r}), 'x' * 100_000)\n"
        "except ReportWriteError as exc:\n    print(type(exc).__name__, exc)\n")
    assert out.startswith(f"ReportWriteError cannot write {target}") and "8.0 KiB (ulimit -f)" in out
