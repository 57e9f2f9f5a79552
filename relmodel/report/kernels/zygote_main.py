"""The zygote process of :mod:`.zygote`: import once, then fork one kernel per request.

Started by :class:`.zygote.Zygote` with one end of a sequenced-packet socket
pair (its owner) and, for a zygote shared by a pool's workers, a socket path
other processes connect to (its clients). Each connection first gets
``{"ready": true, "pid": N}`` once the imports are done; then each request
and answer is one JSON packet:

* ``{"op": "spawn", "argv": [...], "env": {...}, "cwd": "..."}``, with the
  kernel's standard output and error attached, forks a kernel and answers
  ``{"pid": N}``;
* ``{"op": "poll", "pid": N}`` answers ``{"status": null}`` while kernel N
  runs, then its exit code (negative: the signal that ended it), reaping it.

When a connection closes (the process on it ended), the kernels forked for
it that still run are killed and reaped; when the owner's closes, or the
zygote's parent process changes (its owner was killed), the zygote stops
them all and exits. Each kernel asks the system to kill it when the zygote
ends (``PR_SET_PDEATHSIG``, Linux), so that even a zygote killed outright
leaves no kernel behind.
"""

import json
import os
import signal
import socket
import sys

__all__ = ["main", "die_with_parent", "WATCH_S"]


def _preload():
    """Import what a kernel imports before its first cell: ipykernel and the report's modules.

    What they made is then frozen (``gc.freeze``): a forked kernel's garbage
    collections would otherwise write into every object's header, copying
    pages it shares with the zygote (a default report on 2 workers peaked
    about 65 MB higher without it, ``bench/bench_memory.py``).
    """
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import ipykernel.zmqshell  # noqa: F401

    from .kernel_state import import_modules

    import_modules()
    import gc
    gc.collect()
    gc.freeze()  # kept out of every later collection, so kernels do not copy the pages the collector would touch


def die_with_parent(parent):
    """Have the system kill this process when its parent (pid ``parent``) ends; exit now if it has ended.

    Linux only (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); elsewhere nothing happens.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)


def _kernel(message, sockets, fds, zygote_env, zygote_pid):
    """In the forked child: become the kernel the message asks for; never returns."""
    code = 1
    try:
        die_with_parent(zygote_pid)
        for sock in sockets:
            sock.close()
        for target, fd in zip((1, 2), fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setsid()  # a session (process group) of its own, as jupyter_client starts kernels
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        try:
            os.chdir(message["cwd"])
        except FileNotFoundError:  # the report was stopped and its folders swept while this kernel was forked
            sys.stderr.write(f"relmodel: a kernel did not start: its working folder {message['cwd']} is gone "
                             "(the report was stopped, or the folder removed)\n")
            raise SystemExit(1) from None
        argv, env = message["argv"], message["env"]
        if message.get("exec"):  # another environment: import with exactly that one
            os.execve(argv[0], argv, dict(env, JPY_PARENT_PID=str(os.getppid())))
        _environment(env, zygote_env)
        sys.path[0:0] = [os.getcwd()]  # as ``python -m`` puts it (the launcher takes it out again)
        _reseed()
        import runpy
        sys.argv = [argv[0], *argv[len(KERNEL_ARGS) + 1:]]
        runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # the kernel could not start: say why on its standard error
        import traceback
        traceback.print_exc()
    finally:
        try:
            import atexit
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


#: What follows the interpreter in a kernel command the zygote forks (its arguments come after).
KERNEL_ARGS = ("-Xfrozen_modules=off", "-m", "ipykernel_launcher")


def _environment(env, zygote_env):
    """The kernel's environment: the zygote's (with what its imports set) and the request's own variables."""
    for key in set(zygote_env) | set(env):
        if key in env and zygote_env.get(key) != env[key]:
            os.environ[key] = env[key]
        elif key not in env and key in os.environ:  # given to the zygote, not to this kernel
            del os.environ[key]
    os.environ["JPY_PARENT_PID"] = str(os.getppid())  # ipykernel's parent poller watches the zygote


def _reseed():
    import random
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


#: Largest request or answer, in bytes (an environment of a few hundred variables).
MESSAGE_BYTES = 1 << 20
#: Variables that may differ between a kernel's environment and the zygote's (set per kernel, or per render:
#: ``RELMODEL_SOURCE_CACHE`` is source_cache.ENV_CACHE, the folder of the render in progress, read when used).
VOLATILE = frozenset({"JPY_PARENT_PID", "JPY_SESSION_NAME", "PYTEST_CURRENT_TEST", "RELMODEL_SOURCE_CACHE"})


def _send(sock, answer):
    try:
        sock.send(json.dumps(answer).encode())
    except OSError:  # that client is gone; its connection closes on the next read
        pass


def _same(env, zygote_env):
    return ({k: v for k, v in env.items() if k not in VOLATILE}
            == {k: v for k, v in zygote_env.items() if k not in VOLATILE})


def _stop(kernels):
    """Kill and reap ``kernels`` (their client is gone)."""
    for pid in kernels:
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
                break
            except OSError:
                continue
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _answer(sock, message, fds, kernels, sockets, zygote_env):
    """Answer one request of the client on ``sock``, whose kernels are ``kernels``."""
    if message.get("op") == "spawn":
        message["exec"] = not _same(message["env"], zygote_env)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            _kernel(message, sockets, fds, zygote_env, parent)
        kernels.add(pid)
        _send(sock, {"pid": pid})
    elif message.get("op") == "poll":
        pid = message["pid"]
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not (or no longer) a child of this zygote
            done, status = pid, None
        if done == 0:
            _send(sock, {"status": None})
            return
        kernels.discard(pid)
        _send(sock, {"status": -signal.SIGKILL if status is None else os.waitstatus_to_exitcode(status)})
    else:
        _send(sock, {"error": f"unknown request {message.get('op')!r}"})


#: Seconds between two looks at the zygote's parent process.
WATCH_S = 1.0


def _serve(owner, server, ready, zygote_env, parent):
    """Answer the owner and every client that connects to ``server`` until the owner's socket closes
    or the zygote's parent process (pid ``parent``) ends."""
    import select

    clients = {owner: set()}  # socket -> the kernels forked for it
    while owner in clients:
        listening = [server] if server is not None else []
        readable = select.select([*clients, *listening], [], [], WATCH_S)[0]
        if not readable and os.getppid() != parent:  # the owner was killed: nobody will read from here
            break
        for sock in readable:
            if sock is server:
                client, _ = server.accept()
                clients[client] = set()
                _send(client, ready)
                continue
            try:
                data, fds, _, _ = socket.recv_fds(sock, MESSAGE_BYTES, 4)
            except OSError:
                data, fds = b"", []
            if not data:  # that client ended: so do its kernels
                _stop(clients.pop(sock))
                sock.close()
                continue
            try:
                _answer(sock, json.loads(data), fds, clients[sock], [*clients, *listening], zygote_env)
            finally:
                for fd in fds:
                    os.close(fd)
    for kernels in clients.values():
        _stop(kernels)


def main(fd, listen=None):
    """Run the zygote for the owner on socket ``fd`` and the clients of socket path ``listen`` (or none)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the process that owns the report
    parent = os.getppid()
    zygote_env = dict(os.environ)
    owner = socket.socket(fileno=fd)
    server = None
    if listen is not None:  # bound before the imports, so clients can connect (and wait) at once
        server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        server.bind(listen)
        server.listen(64)
    try:
        _preload()
        ready = {"ready": True, "pid": os.getpid()}
    except Exception as exc:  # a broken package: kernels start without the zygote and say what is wrong
        ready = {"ready": False, "error": f"{type(exc).__name__}: {exc}"}
    _send(owner, ready)
    if ready["ready"]:
        _serve(owner, server, ready, zygote_env, parent)
    if server is not None:
        server.close()
        try:  # its socket and the folder made for it, even when the owner could not remove them
            os.unlink(listen)
            os.rmdir(os.path.dirname(listen))
        except OSError:
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # no teardown of what it imported: nothing of it is kept
