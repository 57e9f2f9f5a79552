"""The store step: write what the executors returned into the report's staging folder.

Only the process that owns the report folder runs this, as each result
arrives: the executed ``.ipynb``, its ``.html`` and its key figures
(``key-<name>.png``, taken out of the records) go into the run's folder, and
the result becomes the notebook's entry of ``summary.json``.  Files are
written through :mod:`.safety.folders` (looked up there at each call), so a write
that fails (disk full) is one named error wherever it happens.
"""

import base64
import json
from pathlib import Path

from ..safety import folders
from ..kernels.records import FIGURE_PREFIX

__all__ = ["store", "write_summary"]


def _figure_file(key):
    return "key-" + "".join(c if c.isalnum() or c == "-" else "-" for c in key[len(FIGURE_PREFIX):]) + ".png"


def store(result, folder):
    """Write a result's notebook, HTML and key figures into ``folder``; return its summary entry."""
    folder, name = Path(folder), result["name"]
    entry = {k: result[k] for k in ("name", "records", "seconds", "error")}
    if result.get("kernel_died"):
        entry["kernel_died"] = True
    entry["failure"] = result.get("failure")
    entry["records"] = dict(entry["records"] or {})
    for key in [k for k in entry["records"] if k.startswith(FIGURE_PREFIX)]:
        png = entry["records"].pop(key)
        if isinstance(png, str):
            folders.write_bytes(folder / _figure_file(key), base64.b64decode(png))
    entry["ipynb"] = entry["html"] = None
    if result.get("ipynb_bytes") is not None:
        folders.write_bytes(folder / f"{name}.ipynb", result["ipynb_bytes"])
        entry["ipynb"] = f"{name}.ipynb"
    if result.get("html_bytes") is not None:
        folders.write_bytes(folder / f"{name}.html", result["html_bytes"])
        entry["html"] = f"{name}.html"
    return entry


def write_summary(folder, summary):
    """Write ``summary`` as ``folder/summary.json`` (JSON numbers or null, never NaN)."""
    folders.write_text(Path(folder) / "summary.json", json.dumps(summary, indent=2, default=str, allow_nan=False))
