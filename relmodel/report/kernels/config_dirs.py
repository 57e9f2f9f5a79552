"""IPython's and matplotlib's settings folders for report kernels whose home folder cannot hold them.

A kernel's IPython keeps its profile in ``~/.ipython`` (``IPYTHONDIR``) and
matplotlib its settings and font cache in ``~/.config/matplotlib`` and
``~/.cache/matplotlib`` (``MPLCONFIGDIR``). With a home folder that cannot be
written (a read-only home, a service account's, a container's), IPython stops
the kernel before its first cell or makes a temporary folder of its own, and
matplotlib makes ``matplotlib-*`` folders in the temporary folder and warns on
the terminal; neither is removed. :func:`config_env` gives the kernels, for
each of the two that has no usable folder (and is not set by the user), a
folder of one relmodel-owned ``relmodel-work-config-*`` folder in the
temporary folder: made once per process, with an owner record
(:mod:`.stale`, so that a later report removes it if this process is
killed), and removed when this process exits.
"""

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

__all__ = ["config_env", "usable"]

_LOCK = threading.Lock()
_MADE = {}  # pid -> the folder this process made (a forked child makes its own)


def usable(folder):
    """True when ``folder`` exists, or can be made, and can be written."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK)


def _home(*parts):
    return os.path.join(os.path.expanduser("~"), *parts)


def _wanted():
    """The variables to set: those whose folder is not usable and that the user did not set."""
    want = []
    if not os.environ.get("IPYTHONDIR") and not usable(_home(".ipython")):
        want.append("IPYTHONDIR")
    if not os.environ.get("MPLCONFIGDIR"):
        config = os.path.join(os.environ.get("XDG_CONFIG_HOME") or _home(".config"), "matplotlib")
        cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or _home(".cache"), "matplotlib")
        if not (usable(config) and usable(cache)):
            want.append("MPLCONFIGDIR")
    return want


def _folder():
    with _LOCK:
        folder = _MADE.get(os.getpid())
        if folder is None or not os.path.isdir(folder):
            from .stale import mark_owner

            folder = tempfile.mkdtemp(prefix="relmodel-work-config-")
            mark_owner(folder)
            _MADE[os.getpid()] = folder
            atexit.register(_remove, os.getpid(), folder)
            try:  # a multiprocessing worker leaves through os._exit: its finalizers run, not atexit
                from multiprocessing.util import Finalize
                Finalize(None, _remove, args=(os.getpid(), folder), exitpriority=5)
            except ImportError:  # pragma: no cover
                pass
        return folder


def _remove(pid, folder):
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def config_env():
    """``{"IPYTHONDIR": ..., "MPLCONFIGDIR": ...}`` for those a kernel cannot keep in the home folder ({} usually)."""
    want = _wanted()
    if not want:
        return {}
    root = Path(_folder())
    out = {}
    for name, sub in (("IPYTHONDIR", "ipython"), ("MPLCONFIGDIR", "matplotlib")):
        if name in want:
            (root / sub).mkdir(exist_ok=True)
            out[name] = str(root / sub)
    return out
