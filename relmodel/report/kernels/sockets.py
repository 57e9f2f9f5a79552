"""Where the report's sockets live: a folder whose paths fit in a Unix socket address.

A Unix socket's path holds at most :data:`SUN_PATH_MAX` bytes. A kernel's
ZeroMQ sockets are ``<root>/relmodel-kernel-<run>-<id>/kernel-<n>`` and a
shared zygote's is ``<root>/relmodel-zygote-<id>/socket``; with a long
``TMPDIR`` (about 40 characters or more) those paths do not fit, and binding
them fails. :func:`socket_root` gives the first of the temporary folder, the
user's runtime folder (``XDG_RUNTIME_DIR``), ``/tmp``, ``/var/tmp`` and
``/dev/shm`` that is a writable folder and short enough; None when none is
(a kernel then talks TCP on the loopback interface, as Jupyter does by
default). Each socket gets a folder of its own there (mode 0700), removed with it.
"""

import os
import tempfile

__all__ = ["SUN_PATH_MAX", "socket_root", "socket_roots", "fits"]

#: Longest Unix socket path in bytes (Linux's ``sun_path`` holds 108 with the closing NUL; macOS 104).
SUN_PATH_MAX = 103 if os.uname().sysname == "Darwin" else 107


def socket_roots():
    """The folders a socket folder may go in, in order of preference (existing folders, each once)."""
    found = []
    for root in (tempfile.gettempdir(), os.environ.get("XDG_RUNTIME_DIR"), "/tmp", "/var/tmp", "/dev/shm"):
        if root and os.path.isabs(root) and os.path.isdir(root) and root not in found:
            found.append(root)
    return found


def fits(path):
    """True when ``path`` fits in a Unix socket address."""
    return len(os.fsencode(path)) <= SUN_PATH_MAX


def socket_root(tail):
    """The first folder of :func:`socket_roots` that is writable and where ``<folder>/<tail>`` fits; or None.

    ``tail`` is the longest path a socket will have under the folder.
    """
    for root in socket_roots():
        if fits(os.path.join(root, tail)) and os.access(root, os.W_OK | os.X_OK):
            return root
    return None
