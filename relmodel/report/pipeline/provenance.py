"""Where a report came from: relmodel's version and commit, the data file and the parameters.

:func:`provenance` collects them once per report (summary.json keeps them
under ``"provenance"``); :func:`footer` is the line every page ends with.
"""

import functools
import hashlib
from relmodel.base.escape import html_text
import subprocess
from pathlib import Path

__all__ = ["provenance", "footer", "file_digest"]

_REPO = Path(__file__).resolve().parents[3]


@functools.lru_cache(maxsize=32)
def _digest(path, size, mtime_ns):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_digest(path):
    """``{"name", "bytes", "sha256"}`` of a file (hashed once per size and modification time)."""
    p = Path(path)
    st = p.stat()
    return {"name": p.name, "bytes": int(st.st_size), "sha256": _digest(str(p.resolve()), st.st_size, st.st_mtime_ns)}


@functools.lru_cache(maxsize=1)
def _commit():
    """The checkout's commit (with "+ local changes" when files differ), or None outside a checkout."""
    if not (_REPO / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(_REPO), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(_REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + (" + local changes" if dirty else "") if head else None


def _version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("relmodel")
    except PackageNotFoundError:  # run from a bare source tree
        return "unknown"


def _data(log):
    from ...data.bundled.datasets import NAMES
    if log is None or str(log).lower() in NAMES:
        return {"name": str(log or "llama3"), "bundled": True}
    try:
        return {**file_digest(log), "bundled": False}
    except OSError:
        return {"name": Path(str(log)).name, "bundled": False}


def provenance(parameters):
    """Version, commit, data file (name, size, SHA-256) and parameters of one report, as a dict.

    Examples
    --------
    >>> p = provenance({"n_gpus": 4096})
    >>> p["data"], p["parameters"]
    ({'name': 'llama3', 'bundled': True}, {'n_gpus': 4096})
    """
    params = dict(parameters or {})
    inputs = {k: _data(params[k]) for k in INPUTS if isinstance(params.get(k), str) and params[k]}
    out = {"relmodel": _version(), "commit": _commit(), "data": _data(params.get("log")), "parameters": params}
    return {**out, "inputs": inputs} if inputs else out


#: Parameters naming a file a page reads besides the log (step logs, traces, lifetime tables).
INPUTS = ("steps", "trace", "lives")


def _what(data, label="data"):
    if data.get("bundled"):
        return f"bundled data set {data['name']}"
    if data.get("sha256"):
        return f"{label} {data['name']} ({data['bytes']:,} bytes, SHA-256 {data['sha256']})"
    return f"{label} {data.get('name', 'unknown')}"


def footer(prov):
    """One HTML paragraph: version, commit, data file and its SHA-256, and the parameters given."""
    what = _what(prov.get("data") or {})
    for name, data in (prov.get("inputs") or {}).items():
        what += "; " + _what(data, f"{name} file")
    commit = f", commit {prov['commit']}" if prov.get("commit") else ""
    given = ", ".join(f"{k} = {v}" for k, v in (prov.get("parameters") or {}).items()) or "none (all defaults)"
    text = f"relmodel {prov.get('relmodel')}{commit}; {what}; parameters given: {given}."
    return ("<footer style='margin-top:2em;padding-top:.5em;border-top:1px solid #ccc;color:#555;"
            f"font-size:.85em;overflow-wrap:anywhere'>{html_text(text)}</footer>")
