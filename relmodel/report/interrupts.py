"""SIGTERM stops a command as Ctrl-C does: kernels stopped, temporary folders removed.

``with terminate_as_interrupt():`` turns the first SIGTERM into :class:`Terminated`
(a ``KeyboardInterrupt``), so the cleanup that runs after Ctrl-C runs after a
``kill`` too; a second SIGTERM during that cleanup is ignored. The CLI then exits
with status 143 (128 + 15), as a process stopped by SIGTERM does.

nbclient puts a SIGTERM handler of its own on its event loop while a notebook runs
in this process, and resets SIGTERM to the default afterwards: the kernel manager
calls :func:`on_loop` once its kernel is up, and :func:`reinstall` runs after each
notebook, so the handler here stays in charge.
"""

import signal
import threading

__all__ = ["Terminated", "terminate_as_interrupt", "terminated", "on_loop", "reinstall"]

_STATE = {"terminated": False, "active": 0}


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM."""


def terminated():
    """True once a SIGTERM arrived while :class:`terminate_as_interrupt` was active."""
    return _STATE["terminated"]


def _on_term(signum=None, frame=None):
    _STATE["terminated"] = True
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # cleanup is not cut short by a second one
    raise Terminated()


def _main():
    return threading.current_thread() is threading.main_thread()


def on_loop(loop):
    """Route SIGTERM on the running asyncio ``loop`` to :class:`Terminated` (while active)."""
    if _STATE["active"] and not _STATE["terminated"] and _main():
        try:
            loop.add_signal_handler(signal.SIGTERM, _on_term)
        except (RuntimeError, NotImplementedError, ValueError):
            pass


def reinstall():
    """Put the SIGTERM handler back after a library reset it (while active)."""
    if _STATE["active"] and not _STATE["terminated"] and _main():
        signal.signal(signal.SIGTERM, _on_term)


class terminate_as_interrupt:
    """Context manager: SIGTERM raises :class:`Terminated` in the main thread meanwhile."""

    def __enter__(self):
        self.previous = None
        if _main():
            self.previous = signal.signal(signal.SIGTERM, _on_term)
            _STATE["active"] += 1
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            _STATE["active"] -= 1
            if not _STATE["terminated"]:
                signal.signal(signal.SIGTERM, self.previous)
        return False
