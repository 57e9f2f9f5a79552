"""Kernels forked from a process that has already imported the report's modules.

A kernel started as ``python -m ipykernel_launcher`` spends about 3 s of
processor time importing IPython, numpy, pandas, scipy, matplotlib and
relmodel before its first cell. On Linux, the first kernel a process starts
also starts a *zygote* (:mod:`.zygote_main`): an interpreter with the
kernel's flags and environment that imports those modules once and waits.
Every kernel of that process is then a fork of the zygote and starts in a
fraction of a second. What the fork keeps to:

* Only the command :class:`~.kernel.KernelManager` builds (this interpreter,
  ``-Xfrozen_modules=off -m ipykernel_launcher``) with no standard input of its
  own, and output and error that are files (or this process's), is forked; any other command starts as jupyter_client starts it.
* A kernel whose environment differs from the zygote's (apart from
  :data:`VOLATILE`) is started from the fork by ``exec`` of its command, so
  it imports with exactly the environment it was given.
* The kernel's standard output and error are the files it was given, or this
  process's at the time it starts (passed over the socket), its standard input is empty.
* The kernel runs in a session of its own (an interrupt or a kill reaches
  its process group, as with jupyter_client), in its own working folder with
  that folder first on ``sys.path`` (as ``-m`` puts it), with ``random`` and
  ``numpy.random`` seeded from the system.
* The zygote reaps a kernel only when the process that started it polls it
  and it has ended, so a kernel's process id stays reserved until its
  manager has seen it end, as with a child process.
* The zygote ends when the process that started it ends (its socket closes,
  or its parent process changes), and kills the kernels still running; a
  kernel whose zygote ends is killed by the system (``PR_SET_PDEATHSIG``),
  and otherwise stops on its own (ipykernel's parent poller watches the zygote).
* The zygote runs in a session of its own: a terminal's Ctrl-C or hang-up
  reaches the process that owns the report, which decides how to stop.

The workers of the process pools relmodel creates share one zygote instead
(:func:`pool_zygote` in the pools' owner, started with its first pool so that
it imports while the workers start; :func:`use_shared` in each worker): one
set of imports for every pool of a process. It ends with that process.

``RELMODEL_KERNEL_ZYGOTE=0`` in the environment turns forking off; so does
a zygote that cannot start (every later kernel then starts as before).
"""

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from .zygote_main import KERNEL_ARGS, MESSAGE_BYTES, VOLATILE

__all__ = ["launch", "kernel_env", "ARROW_POOL", "ZygoteProcess", "Zygote", "zygote_enabled", "stop_zygote",
           "prestart", "start_shared", "pool_zygote", "use_shared", "ENV_SWITCH", "VOLATILE", "PREFIX", "START_TIMEOUT_S"]

#: Environment variable that turns forked kernels off when set to 0, "no", "off" or "false".
ENV_SWITCH = "RELMODEL_KERNEL_ZYGOTE"
#: The command a kernel must start with to be forked (its arguments follow).
PREFIX = (sys.executable, *KERNEL_ARGS)
#: Seconds the zygote may take to import before kernels start without it.
START_TIMEOUT_S = 120

_LOCK = threading.Lock()
_ZYGOTE = None  # this process's Zygote (None: not started; False: cannot start)
SHARED = None  # the socket path of a zygote this process should use instead of starting its own
_POOL_ZYGOTE = None  # the zygote this process's pools share (see pool_zygote)


#: pyarrow's memory pool in report kernels, unless the environment names one (``ARROW_DEFAULT_MEMORY_POOL``).
#: With pyarrow's default (mimalloc in pyarrow 26 on Linux), once the zygote had forked the kernels of
#: pages 06-08, two later kernels at once each took 7-22% longer than one alone (bench_sweep's notebooks'
#: own seconds); with the system allocator 0.96-1.00x. The effect was measured; which part of the
#: allocator's state a fork carries into the kernels to cause it was not pinned down.
ARROW_POOL = "system"


def kernel_env():
    """What a report kernel's environment adds: inline figures, this relmodel first on its import path,
    pyarrow's system memory pool (:data:`ARROW_POOL`) unless one is set, and IPython's and matplotlib's
    folders where the home folder cannot hold them (:mod:`.config_dirs`)."""
    from ...resources import import_root

    root = str(import_root())
    path = os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    from .config_dirs import config_env

    return {"MPLBACKEND": "module://matplotlib_inline.backend_inline", "PYTHONPATH": path,
            "ARROW_DEFAULT_MEMORY_POOL": os.environ.get("ARROW_DEFAULT_MEMORY_POOL", ARROW_POOL),
            **config_env()}  # IPython's and matplotlib's folders, when the home folder cannot hold them


def zygote_enabled():
    """True on Linux unless ``RELMODEL_KERNEL_ZYGOTE`` says 0, no, off or false."""
    switch = os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "no", "off", "false")
    return switch and sys.platform.startswith("linux") and hasattr(os, "fork")


class ZygoteLost(OSError):
    """The zygote ended or stopped answering."""


class Zygote:
    """One connection to a zygote: its owner's (who started it) or a client's (see :meth:`connect`)."""

    def __init__(self, env, listen=None):
        """Start a zygote with environment ``env``; ``listen``: a socket path other processes may connect to."""
        from ...base.std_fds import ensure_std_fds

        ensure_std_fds()  # before the socket pair, which would otherwise take a closed stream's number
        self.owner, self.process, self.listen = os.getpid(), None, listen
        self._lock, self._ready = threading.Lock(), None
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        code = ("import sys; sys.path.pop(0); from relmodel.report.kernels.zygote_main import main; "
                f"main({theirs.fileno()}, {listen!r})")
        try:
            self.process = subprocess.Popen([*PREFIX[:2], "-c", code], env=env, stdin=subprocess.DEVNULL,
                                            pass_fds=(theirs.fileno(),), cwd="/", start_new_session=True)
        finally:
            theirs.close()
        self._sock = mine

    @classmethod
    def connect(cls, path):
        """A client's connection to the zygote listening on ``path`` (raises OSError when there is none)."""
        self = cls.__new__(cls)
        self.owner, self.process, self.listen = os.getpid(), None, None
        self._lock, self._ready = threading.Lock(), None
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._sock.connect(path)
        except OSError:
            self._sock.close()
            raise
        return self

    def ready(self):
        """Wait for the zygote's imports; raise ZygoteLost when it could not start."""
        with self._lock:
            self._wait_ready()
        if not self._ready.get("ready"):
            raise ZygoteLost(self._ready.get("error", "the zygote did not start"))
        self.pid = self._ready["pid"]
        return self

    def _wait_ready(self):
        if self._ready is None:
            self._sock.settimeout(START_TIMEOUT_S)
            try:
                self._ready = self._read()
            except (ZygoteLost, ValueError) as exc:
                self._ready = {"ready": False, "error": str(exc)}
            self._sock.settimeout(None)

    def _read(self):
        try:
            data = self._sock.recv(MESSAGE_BYTES)
        except OSError as exc:
            raise ZygoteLost(f"the zygote stopped answering: {exc}") from None
        if not data:
            raise ZygoteLost("the zygote ended")
        return json.loads(data)

    def call(self, fds=(), **message):
        """Send one request (with file descriptors ``fds``) and return the answer; ZygoteLost when it is gone."""
        with self._lock:
            try:
                socket.send_fds(self._sock, [json.dumps(message).encode()], list(fds))
            except OSError as exc:
                raise ZygoteLost(f"the zygote is gone: {exc}") from None
            return self._read()

    def alive(self):
        if self.process is not None:
            return self.process.poll() is None
        return self._ready is None or bool(self._ready.get("ready"))

    def close(self):
        """Close this connection; an owner's ends the zygote (which kills its kernels) and waits for it."""
        self._sock.close()
        if self.process is not None:
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.listen is not None:  # the socket and the folder made for it, nothing else
            for remove, path in ((os.unlink, self.listen), (os.rmdir, os.path.dirname(self.listen))):
                try:
                    remove(path)
                except OSError:
                    pass


def start_shared(env):
    """A zygote other processes can connect to (through its ``listen`` path); None when forking is off.

    The caller owns it: :meth:`Zygote.close` ends it. Returns at once; the
    zygote imports while the processes that will use it start.
    """
    if not zygote_enabled():
        return None
    import tempfile

    from .sockets import socket_root
    root = socket_root("relmodel-zygote-12345678/socket")
    if root is None:  # no folder short enough for its socket: each process starts its own zygote
        return None
    folder = tempfile.mkdtemp(prefix="relmodel-zygote-", dir=root)
    try:
        return Zygote(env, listen=os.path.join(folder, "socket"))
    except OSError:
        os.rmdir(folder)
        return None


def pool_zygote(env):
    """The zygote this process's pools share: started with ``env`` on first use, ended when this process ends.

    None when forking is off. A zygote that ended, or one inherited through a
    fork, is replaced by a new one.
    """
    global _POOL_ZYGOTE
    with _LOCK:
        current = _POOL_ZYGOTE
        if current is not None and (current.owner != os.getpid() or not current.alive()):
            current = None
        if current is None:
            current = _POOL_ZYGOTE = start_shared(env)
        return current


def use_shared(path):
    """Fork this process's kernels from the zygote listening on ``path`` (a pool worker's start)."""
    global SHARED
    SHARED = path


class ZygoteProcess:
    """What :class:`subprocess.Popen` offers jupyter_client, for a kernel the zygote forked."""

    stdin = stdout = stderr = None

    def __init__(self, zygote, pid):
        self._zygote, self.pid, self.returncode = zygote, pid, None

    def poll(self):
        """None while the kernel runs; then its exit code (negative: the signal that ended it)."""
        if self.returncode is None:
            try:
                status = self._zygote.call(op="poll", pid=self.pid)["status"]
            except ZygoteLost:
                status = -signal.SIGKILL  # its zygote is gone: the kernel stops on its own
            if status is not None:
                self.returncode = status
        return self.returncode

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(PREFIX[-1], timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum):
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


def _current(env):
    """This process's zygote (started with ``env`` when there is none, not waited for), or None."""
    global _ZYGOTE
    with _LOCK:
        current = _ZYGOTE
        if current is False:
            return None
        if current is not None and (current.owner != os.getpid() or not current.alive()):
            current = None  # inherited through a fork, or ended: start another
        if current is None:
            try:
                current = _connect_shared() or Zygote(env)
            except (OSError, ValueError):
                _ZYGOTE = False
                return None
            _ZYGOTE = current
        return current


def prestart(env):
    """Start this process's zygote with ``env`` now, if forking is on and there is none; do not wait for it.

    Its imports then run while this process does other work (the first kernel waits for them).
    """
    if zygote_enabled():
        _current(env)


def _zygote(env):
    """This process's zygote, started with ``env`` when there is none, once ready; None when it cannot start."""
    global _ZYGOTE
    current = _current(env)
    if current is None:
        return None
    try:
        return current.ready()
    except (OSError, ValueError):
        with _LOCK:
            if _ZYGOTE is current:
                _ZYGOTE = False
        return None


def _connect_shared():
    if SHARED is None:
        return None
    try:
        return Zygote.connect(SHARED)
    except OSError:  # gone (its pool ended): this process starts its own
        return None


def _forget(zygote):
    """A lost zygote: the next kernel connects again or starts another."""
    global _ZYGOTE
    with _LOCK:
        if _ZYGOTE is zygote:
            _ZYGOTE = None


def stop_zygote():
    """End this process's zygotes, its own and its pools' (kernels they forked that still run are killed)."""
    global _ZYGOTE, _POOL_ZYGOTE
    with _LOCK:
        ended, _ZYGOTE, _POOL_ZYGOTE = (_ZYGOTE, _POOL_ZYGOTE), None, None
    for current in ended:
        if current and current.owner == os.getpid():
            current.close()


def _fd(stream, default):
    """The descriptor a kernel's stream is given as (None: this process's ``default``; a file or a number),
    or None for what only a started process can take (a pipe to be made, DEVNULL)."""
    if stream is None:
        return default
    if isinstance(stream, int):
        return stream if stream >= 0 else None
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def launch(cmd, env=None, cwd=None, **kwargs):
    """A :class:`ZygoteProcess` for kernel command ``cmd`` forked from the zygote, or None.

    None when the command or its keyword arguments are not ones this module
    forks (see the module docstring); the caller then starts it as usual.
    """
    stdin, stdout, stderr = (kwargs.pop(k, None) for k in ("stdin", "stdout", "stderr"))
    fds = (_fd(stdout, 1), _fd(stderr, 2))
    if tuple(cmd[:len(PREFIX)]) != PREFIX or stdin is not None or None in fds or kwargs.pop("independent", False) \
            or kwargs or not zygote_enabled():
        return None
    env = dict(os.environ if env is None else env)
    zygote = _zygote(env)
    if zygote is None:
        return None
    try:
        answer = zygote.call(op="spawn", argv=list(cmd), env=env, cwd=str(cwd or os.getcwd()),
                             fds=fds)  # where it was asked to write, else where this process writes now
    except ZygoteLost:
        _forget(zygote)
        return None
    if "pid" not in answer:
        return None
    return ZygoteProcess(zygote, answer["pid"])


atexit.register(stop_zygote)
