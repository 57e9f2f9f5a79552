"""Standard streams that are closed when a process starts are opened on the null device.

A command started with a standard stream closed (``relmodel report 2>&-``)
leaves that descriptor number free: the next file, socket or pipe the process
opens takes it, and every child process (a report's kernels, their zygote)
inherits it as its standard stream. An ipykernel started with descriptor 2
closed dies before its first cell (it duplicates its standard error to capture
it); one whose descriptor 2 is a socket writes its errors into that socket.
Python opens every file close-on-exec, so the null device must be made
inheritable too, or the kernel (started by ``exec``) still finds it closed.
:func:`ensure_std_fds` opens ``os.devnull`` on each of descriptors 0, 1 and 2
that is closed, before anything else can take the number, and gives Python a
``sys.stdin``, ``sys.stdout`` or ``sys.stderr`` on it where it had none.
"""

import os
import sys

__all__ = ["ensure_std_fds"]

_STREAMS = ("stdin", "stdout", "stderr")


def _closed(fd):
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def ensure_std_fds():
    """Open the null device on each closed descriptor 0, 1 and 2; return the numbers opened.

    A no-op (returns ``()``) where all three are open, as they usually are.
    """
    opened = []
    for fd in (0, 1, 2):
        if not _closed(fd):
            continue
        new = os.open(os.devnull, os.O_RDWR)  # the lowest free number: ``fd`` when the lower ones are open
        if new != fd:
            os.dup2(new, fd)
            os.close(new)
        os.set_inheritable(fd, True)  # Python opens files close-on-exec: children would still find it closed
        opened.append(fd)
    for fd in opened:
        name = _STREAMS[fd]
        if getattr(sys, name) is None:  # Python found the descriptor closed at start-up
            stream = open(fd, "r" if fd == 0 else "w", closefd=False, encoding="utf-8", errors="replace")
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)
    return tuple(opened)
