"""Temporary folders a report left behind when its process was killed, found by their owner record and removed.

A report's scratch folders (``relmodel-work-*``) and kernel folders
(``relmodel-kernel-*``) are removed by the process that made them, also after
Ctrl-C, SIGTERM or SIGHUP; a process killed by SIGKILL, SIGQUIT or SIGUSR1
cannot remove them. Each such folder therefore holds an owner record,
:data:`OWNER_FILE`: JSON naming relmodel, the process that made the folder
and that process's start time (so that a process id used again by another
program is not taken for the owner). :func:`sweep_stale`, run before a report
executes anything, removes the folders of those prefixes in the temporary
and socket folders whose record is relmodel's, belongs to this user, and
names a process that has ended. A folder without a valid record (an older
relmodel's, anyone else's) is never touched.
"""

import json
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["OWNER_FILE", "PREFIXES", "mark_owner", "sweep_stale", "process_start"]

#: The owner record in each temporary folder a report makes.
OWNER_FILE = "relmodel-owner.json"
#: Name prefixes of the folders a sweep looks at (the work and kernel folders of :mod:`.executors`, :mod:`.kernel`).
PREFIXES = ("relmodel-work-", "relmodel-kernel-")
_SIGNATURE = "relmodel temporary folder"


def process_start(pid):
    """The start time of process ``pid`` in clock ticks since boot (Linux), or None when unknown or gone."""
    try:
        fields = Path(f"/proc/{int(pid)}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def mark_owner(folder):
    """Write the owner record of ``folder`` (this process, its start time); quietly nothing if it cannot."""
    record = {"what": _SIGNATURE, "pid": os.getpid(), "started": process_start(os.getpid())}
    try:
        (Path(folder) / OWNER_FILE).write_text(json.dumps(record), encoding="utf-8")
    except OSError:
        pass


def _alive(pid, started):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: it exists
        pass
    if started is None:
        return True
    now = process_start(pid)
    return now is None or now == started  # another start time: the id was used again


def _stale(folder):
    """True when ``folder`` is a relmodel folder of this user whose owner process has ended."""
    try:
        info = os.lstat(folder)
        if not os.path.isdir(folder) or os.path.islink(folder) or info.st_uid != os.getuid():
            return False
        marker = folder / OWNER_FILE
        if os.path.islink(marker) or marker.lstat().st_uid != os.getuid():
            return False
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(record, dict) or record.get("what") != _SIGNATURE:
        return False
    pid, started = record.get("pid"), record.get("started")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or pid == os.getpid():
        return False
    return not _alive(pid, started if isinstance(started, int) else None)


def sweep_stale(roots=None):
    """Remove the stale relmodel folders (see the module docstring) under ``roots``; return the paths removed.

    ``roots`` defaults to the temporary folder and the folders sockets may live in.
    """
    if roots is None:
        from .sockets import socket_roots
        roots = [tempfile.gettempdir(), *socket_roots()]
    removed = []
    for root in dict.fromkeys(map(str, roots)):
        for prefix in PREFIXES:
            try:
                candidates = sorted(Path(root).glob(f"{prefix}*"))
            except OSError:
                continue
            for folder in candidates:
                if _stale(folder):
                    shutil.rmtree(folder, ignore_errors=True)
                    removed.append(folder)
    return removed
