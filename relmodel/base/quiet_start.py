"""A Ctrl-C while the ``relmodel`` command is still starting exits 130 without a traceback.

Importing relmodel (pandas, scipy, matplotlib) takes a few seconds; a Ctrl-C then
would otherwise end in a long ``KeyboardInterrupt`` traceback and a status of -2.
When this process is the ``relmodel`` command (the console script or
``python -m relmodel``), :func:`guard` runs first in ``relmodel/__init__`` and
puts a SIGINT handler in place that writes ``relmodel: interrupted`` on stderr
and exits 130 at once: nothing has started yet, so nothing needs cleaning up.
The command's ``main`` calls :func:`release` before it reads its options, which
puts Python's own handler back so that a later Ctrl-C goes through the command's
cleanup of kernels and temporary folders. SIGTERM and SIGHUP likewise end the
command at once with ``relmodel: stopped`` and status 143 or 129, until a
report takes them over for its cleanup (:mod:`relmodel.report.kernels.interrupts`).
Imported as a library (a script, a notebook, a kernel), nothing changes.
"""

import os
import signal
import sys

__all__ = ["EXIT_INTERRUPTED", "is_command", "guard", "release", "quiet_while"]

#: Exit status of an interrupted command (128 + SIGINT).
EXIT_INTERRUPTED = 130

_STATE = {"guarding": False}


def is_command(argv=None):
    """True when ``argv`` (default: this process's command line) runs the relmodel command.

    Examples
    --------
    >>> is_command(["/usr/bin/python3", "-m", "relmodel", "--help"]), is_command(["/venv/bin/relmodel", "fit"])
    (True, True)
    >>> is_command(["/usr/bin/python3", "-m", "ipykernel_launcher"])
    False
    """
    argv = [str(a) for a in (getattr(sys, "orig_argv", sys.argv) if argv is None else argv)]
    if any(a == "-m" and b == "relmodel" for a, b in zip(argv, argv[1:])) or "-mrelmodel" in argv:
        return True
    return any(os.path.basename(a) in ("relmodel", "relmodel.exe") for a in argv[:2])


def _quiet_exit(signum, frame):
    try:
        os.write(2, b"relmodel: interrupted\n")
    finally:
        os._exit(EXIT_INTERRUPTED)


def _quiet_stop(signum, frame):
    """SIGTERM or SIGHUP while nothing needs cleaning up: one line, exit 128 + the signal's number."""
    try:
        os.write(2, b"relmodel: stopped\n")
    finally:
        os._exit(128 + signum)


#: Signals that stop the command quietly until a command that cleans up takes them over (the report's).
_STOPS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def guard():
    """While the command starts, make Ctrl-C exit 130 quietly (a no-op for library use).

    The command's closed standard streams are opened on the null device first
    (:func:`relmodel.base.std_fds.ensure_std_fds`), before any import can take their numbers.
    """
    if not is_command():
        return
    from .std_fds import ensure_std_fds
    ensure_std_fds()
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _quiet_exit)
            _STATE["guarding"] = True
        for signum in _STOPS:  # for the whole command: only the report starts what needs stopping
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _quiet_stop)
    except ValueError:  # not the main thread: leave signals alone
        pass


class quiet_while:
    """Within this block a Ctrl-C exits 130 quietly, as while the command starts (e.g. a command's imports).

    A Ctrl-C inside a compiled module's import surfaces as an ``ImportError``, not
    a ``KeyboardInterrupt``; nothing has started while a command's module is
    imported, so exiting at once is right.  A no-op off the main thread or
    where another handler than Python's own is in place.
    """

    def __enter__(self):
        self._set = False
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, _quiet_exit)
                self._set = True
        except ValueError:  # not the main thread
            pass
        return self

    def __exit__(self, *exc):
        if self._set and signal.getsignal(signal.SIGINT) is _quiet_exit:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        return False


def release():
    """Put Python's own Ctrl-C handler back (the command is up and cleans up after itself)."""
    if _STATE["guarding"] and signal.getsignal(signal.SIGINT) is _quiet_exit:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _STATE["guarding"] = False
