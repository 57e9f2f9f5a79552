"""SIGTERM and SIGHUP stop a command as Ctrl-C does: kernels stopped, temporary folders removed.

``with terminate_as_interrupt():`` turns the first SIGTERM or SIGHUP into
:class:`Terminated` (a ``KeyboardInterrupt``), and remembers a Ctrl-C (see :func:`check_interrupted`), so the cleanup that runs after
Ctrl-C runs after a ``kill`` or a closed terminal too; a second one during that
cleanup is ignored. The CLI then exits with :func:`exit_status`: 143 (128 + 15)
after SIGTERM, 129 after SIGHUP, 130 after Ctrl-C, as a process stopped by that
signal does.

nbclient puts a SIGTERM handler of its own on its event loop while a notebook runs
in this process, and resets SIGTERM to the default afterwards: the kernel manager
calls :func:`on_loop` once its kernel is up, and :func:`reinstall` runs after each
notebook, so the handler here stays in charge.
"""

import signal
import sys
import threading

__all__ = ["Terminated", "terminate_as_interrupt", "terminated", "exit_status", "on_loop", "reinstall", "SIGNALS",
           "check_interrupted"]

#: The signals turned into :class:`Terminated` (those a platform lacks are left out).
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

_STATE = {"terminated": 0, "active": 0, "interrupted": False}


class Terminated(KeyboardInterrupt):
    """The process got SIGTERM or SIGHUP."""


def terminated():
    """The number of the signal (SIGTERM or SIGHUP) that arrived while :class:`terminate_as_interrupt`
    was active; 0 when none did."""
    return _STATE["terminated"]


def exit_status():
    """The exit status of a command stopped now: 128 + the signal's number (130 for Ctrl-C)."""
    return 128 + (_STATE["terminated"] or signal.SIGINT)


def _on_int(signum=signal.SIGINT, frame=None):
    """Ctrl-C: remembered, then raised as Python's own handler does.

    A ``KeyboardInterrupt`` raised while Python runs a callback it guards (a weak
    reference's, an import lock's: "Exception ignored in ...") is printed and dropped;
    :func:`check_interrupted` raises it again where the report can act on it.
    """
    _STATE["interrupted"] = True
    raise KeyboardInterrupt()


def check_interrupted():
    """Raise ``KeyboardInterrupt`` (or :class:`Terminated`) when a signal arrived that was lost on the way."""
    if _STATE["terminated"]:
        raise Terminated()
    if _STATE["interrupted"]:
        raise KeyboardInterrupt()


def _on_term(signum=signal.SIGTERM, frame=None):
    _STATE["terminated"] = int(signum)
    for other in SIGNALS:  # cleanup is not cut short by a second one
        signal.signal(other, signal.SIG_IGN)
    raise Terminated()


def _main():
    return threading.current_thread() is threading.main_thread()


def on_loop(loop):
    """Route SIGTERM and SIGHUP on the running asyncio ``loop`` to :class:`Terminated` (while active)."""
    if _STATE["active"] and not _STATE["terminated"] and _main():
        for signum in SIGNALS:
            try:
                loop.add_signal_handler(signum, _on_term, signum)
            except (RuntimeError, NotImplementedError, ValueError):
                pass


def reinstall():
    """Put the handlers back after a library reset them (while active)."""
    if _STATE["active"] and not _STATE["terminated"] and _main():
        for signum in SIGNALS:
            signal.signal(signum, _on_term)


class terminate_as_interrupt:
    """Context manager: SIGTERM and SIGHUP raise :class:`Terminated` in the main thread meanwhile."""

    def __enter__(self):
        self.previous = {}
        if _main():
            if not _STATE["active"]:
                _STATE["interrupted"] = False
            self.previous = {signum: signal.signal(signum, _on_term) for signum in SIGNALS}
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                self.previous[signal.SIGINT] = signal.signal(signal.SIGINT, _on_int)
            self.hook = sys.unraisablehook
            sys.unraisablehook = _quiet_unraisable(self.hook)
            _STATE["active"] += 1
        return self

    def __exit__(self, *exc):
        if self.previous:
            _STATE["active"] -= 1
            if not _STATE["active"]:
                _STATE["interrupted"] = False
            if not _STATE["terminated"]:
                for signum, handler in self.previous.items():
                    signal.signal(signum, handler)
            sys.unraisablehook = self.hook
        return False


def _quiet_unraisable(hook):
    """``hook``, except for an interrupt Python had to drop (printed as "Exception ignored in ..." with a
    traceback): :func:`check_interrupted` raises it again, and the command prints its one line."""

    def quiet(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt) or (
                isinstance(unraisable.exc_type, type) and issubclass(unraisable.exc_type, KeyboardInterrupt)):
            return
        hook(unraisable)

    return quiet
