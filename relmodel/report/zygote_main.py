"""The zygote process of :mod:`.zygote`: import once, then fork one kernel per request.

Started by :class:`.zygote.Zygote` with one end of a sequenced-packet socket
pair; each request and answer is one JSON packet on it:

* ``{"op": "spawn", "argv": [...], "env": {...}, "cwd": "...", "exec": false}``
  with the kernel's standard output and error attached, forks a kernel and
  answers ``{"pid": N}``;
* ``{"op": "poll", "pid": N}`` answers ``{"status": null}`` while kernel N
  runs, then its exit code (negative: the signal that ended it), reaping it.

When the socket closes (the process that started the zygote ended), kernels
still running are killed and reaped, and the zygote exits.
"""

import json
import os
import signal
import socket
import sys

__all__ = ["main"]


def _preload():
    """Import what a kernel imports before its first cell: ipykernel and the report's modules."""
    import ipykernel.ipkernel  # noqa: F401
    import ipykernel.kernelapp  # noqa: F401
    import ipykernel.zmqshell  # noqa: F401

    from .kernel_state import import_modules

    import_modules()


def _exit_code(status):
    return os.waitstatus_to_exitcode(status)


def _kernel(message, sock, fds, zygote_env):
    """In the forked child: become the kernel the message asks for; never returns."""
    code = 1
    try:
        sock.close()
        for target, fd in zip((1, 2), fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.setsid()  # a session (process group) of its own, as jupyter_client starts kernels
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.chdir(message["cwd"])
        argv, env = message["argv"], message["env"]
        if message.get("exec"):  # another environment: import with exactly that one
            os.execve(argv[0], argv, dict(env, JPY_PARENT_PID=str(os.getppid())))
        _environment(env, zygote_env)
        sys.path[0:0] = [os.getcwd()]  # as ``python -m`` puts it (the launcher takes it out again)
        _reseed()
        import runpy
        sys.argv = [argv[0], *argv[len(_PREFIX_ARGS) + 1:]]
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


#: ``-Xfrozen_modules=off -m ipykernel_launcher``: what follows the interpreter in a forked command.
_PREFIX_ARGS = ("-Xfrozen_modules=off", "-m", "ipykernel_launcher")


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


#: Largest request, in bytes (as :data:`.zygote.MESSAGE_BYTES`).
MESSAGE_BYTES = 1 << 20


def _send(sock, answer):
    sock.send(json.dumps(answer).encode())


def _serve(sock, zygote_env):
    kernels = set()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, MESSAGE_BYTES, 4)
        except OSError:
            data = b""
        if not data:
            return kernels
        message = json.loads(data)
        if message["op"] == "spawn":
            pid = os.fork()
            if pid == 0:
                _kernel(message, sock, fds, zygote_env)
            for fd in fds:
                os.close(fd)
            kernels.add(pid)
            _send(sock, {"pid": pid})
        elif message["op"] == "poll":
            pid = message["pid"]
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = pid, None
            if done == 0:
                _send(sock, {"status": None})
                continue
            kernels.discard(pid)
            _send(sock, {"status": -signal.SIGKILL if status is None else _exit_code(status)})
        else:
            for fd in fds:
                os.close(fd)
            _send(sock, {"error": f"unknown request {message['op']!r}"})


def main(fd):
    """Run the zygote on socket file descriptor ``fd`` (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the process that owns the report
    zygote_env = dict(os.environ)
    sock = socket.socket(fileno=fd)
    try:
        _preload()
        ready = {"ready": True, "pid": os.getpid()}
    except Exception as exc:  # a broken package: kernels start without the zygote and say what is wrong
        ready = {"ready": False, "error": f"{type(exc).__name__}: {exc}"}
    _send(sock, ready)
    if not ready["ready"]:
        return
    kernels = _serve(sock, zygote_env)
    for pid in kernels:  # the driver is gone: so are its kernels
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
