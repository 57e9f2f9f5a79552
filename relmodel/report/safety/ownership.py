"""Which files of a report folder relmodel wrote: the only ones ``--force`` may remove.

A report's marker (the ``"relmodel"`` entry of its summary.json) lists the
files written and, since this check exists, the SHA-256 of each.  A list alone
proves nothing: anyone can write a summary.json naming ``data.csv``.  So a
listed file counts as relmodel's only when all of these hold:

- its name is one the report writer produces: a relative path inside the
  folder (no ``..``, no absolute path) ending in ``.html``, ``.ipynb``,
  ``.png`` or ``.json``, and it is a regular file, not a link;
- its content is of that kind (a PNG signature, an HTML document, a notebook
  or a JSON object), read from at most :data:`SNIFF_BYTES` bytes for HTML
  and PNG;
- its SHA-256 is the one the marker recorded (a finished report's ``sha256``,
  or, while a report is in progress, the size and hash of each file as it was
  written, ``written``).  A marker without hashes (the older format, names
  only) proves nothing: a file it lists is not counted as relmodel's, so
  ``--force`` and the clean-up of stopped runs leave it.

Anything else in the folder is the user's: it is kept and named.
"""

import hashlib
import json
import os
from pathlib import Path, PurePosixPath

__all__ = ["WRITER_SUFFIXES", "SNIFF_BYTES", "digest", "digests", "writer_name", "looks_written", "owned"]

#: The endings of every file name the report writer produces.
WRITER_SUFFIXES = (".html", ".ipynb", ".png", ".json")

#: How much of an HTML or PNG file is read to tell what it is.
SNIFF_BYTES = 4096

_PNG = b"\x89PNG\r\n\x1a\n"


def digest(path):
    """SHA-256 of the file at ``path`` as hex (read in blocks, links not followed)."""
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digests(folder, names):
    """``{name: sha256}`` for each of ``names`` (relative to ``folder``) that is a regular file, summary.json aside."""
    out = {}
    for name in names:
        path = Path(folder) / name
        if name != "summary.json" and path.is_file() and not path.is_symlink():
            out[name] = digest(path)
    return out


def writer_name(name):
    """Whether ``name`` is a relative path inside a folder with an ending the report writer produces."""
    if not isinstance(name, str) or not name or "\\" in name or "\x00" in name:
        return False
    p = PurePosixPath(name)
    return not p.is_absolute() and ".." not in p.parts and "." not in p.parts and p.suffix in WRITER_SUFFIXES


def _no_links(folder, name):
    """Whether neither ``name`` nor a folder on its way below ``folder`` is a link."""
    path = Path(folder)
    for part in PurePosixPath(name).parts:
        path = path / part
        if path.is_symlink():
            return False
    return path.is_file()


def looks_written(folder, name):
    """Whether the file ``name`` under ``folder`` is of the kind its ending says (see the module notes)."""
    path = Path(folder) / name
    try:
        if name.endswith((".json", ".ipynb")):
            data = json.loads(path.read_text(encoding="utf-8"))
            return isinstance(data, dict) and (name.endswith(".json") or "cells" in data)
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except (OSError, ValueError):
        return False
    if name.endswith(".png"):
        return head.startswith(_PNG)
    text = head.decode("utf-8", "replace").lstrip().lower()
    return text.startswith(("<!doctype html", "<html"))


def owned(folder, name, hashes=None):
    """Whether ``name`` (listed by the marker of ``folder``) is a file relmodel wrote there.

    ``hashes`` is the marker's ``{name: sha256}``; None (a marker of the older format, without
    hashes) owns nothing but summary.json.
    """
    if not writer_name(name) or not _no_links(folder, name):
        return False
    if name == "summary.json":
        return True
    if not isinstance(hashes, dict):
        return False
    recorded = hashes.get(name)
    try:
        if not isinstance(recorded, str) or digest(Path(folder) / name) != recorded:
            return False
    except OSError:
        return False
    return looks_written(folder, name)
