"""A file-size limit (``ulimit -f``) during a render (second hostile corpus, tracebacks): a named
error, exit status 1 and one sentence naming the limit; nothing half-written is left behind.

The limit is set with ``resource.setrlimit(RLIMIT_FSIZE)`` in the command's process
before it execs the command (as ``ulimit -f`` does in a shell), so the command and the
kernels it starts all have it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write_notebook
from relmodel.report.file_limit import size_error, too_large

REPO = Path(__file__).resolve().parents[2]


def _limited(limit, args):
    """A command line that sets the file-size limit to ``limit`` bytes, then becomes ``args``.

    The limit is set in the child itself before it execs the command (not in a
    ``preexec_fn``, which can deadlock a child forked from a process with threads).
    """
    code = ("import os, resource, sys; lim = int(sys.argv[1]); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (lim, lim)); os.execv(sys.argv[2], sys.argv[2:])")
    return [sys.executable, "-c", code, str(limit), *args]


# the executed notebook itself passes the limit (200,000 characters of output), or only its HTML
# page does (nbconvert's page carries ~300 KB of styles; the notebook is a few KB)
CASES = {"executed notebook": (64 * 1024, "print('x' * 200_000)", "64.0 KiB"),
         "HTML page": (100 * 1024, "print('small')", "100.0 KiB")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_file_size_limit_is_one_named_sentence(tmp_path, case):
    limit, cell, shown = CASES[case]
    nb = write_notebook(tmp_path / "big.ipynb", ["n: int = 1  # a number", cell])
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "r"
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(REPO), "PYTHONFAULTHANDLER": "1"}
    args = [sys.executable, "-m", "relmodel", "report", "-q", "-n", str(nb), "--out", str(out)]
    proc = subprocess.run(_limited(limit, args), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    err = proc.stderr
    print(err)
    assert proc.returncode == 1, err
    assert "Traceback" not in err and "NotJSONError" not in err and len(err.strip().splitlines()) == 1
    assert f"file-size limit of {shown} (ulimit -f)" in err and "ulimit -f unlimited" in err
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if ".relmodel-" in p.name] == []
    assert [p.name for p in tmp.iterdir() if p.name.startswith("relmodel-")] == []


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
