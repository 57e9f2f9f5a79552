"""SIGTERM stops a command as Ctrl-C does: kernels stopped, temporary folders removed.

``with terminate_as_interrupt():`` turns the first SIGTERM into :class:`Terminated`
(a ``KeyboardInterrupt``), so the cleanup that runs after Ctrl-C runs after a
``kill`` too; a second SIGTERM during that cleanup is ignored. The CLI then exits
with status 143 (128 + 15), as a process stopped by SIGTERM does.
"""

import signal
import threading

__all__ = ["Terminated", "terminate_as_interrupt", "terminated"]

_STATE = {"terminated": False}


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM."""


def terminated():
    """True once a SIGTERM arrived while :class:`terminate_as_interrupt` was active."""
    return _STATE["terminated"]


def _on_term(signum, frame):
    _STATE["terminated"] = True
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # cleanup is not cut short by a second one
    raise Terminated()


class terminate_as_interrupt:
    """Context manager: SIGTERM raises :class:`Terminated` in the main thread meanwhile."""

    def __enter__(self):
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, _on_term)
        return self

    def __exit__(self, *exc):
        if self.previous is not None and not _STATE["terminated"]:
            signal.signal(signal.SIGTERM, self.previous)
        return False
