"""The kernel reports run on: this interpreter's ipykernel, with robust message polling.

Imported only when a notebook is executed, so ``import relmodel`` stays light.

* :class:`KernelManager` starts ``sys.executable -m ipykernel_launcher`` without
  any installed kernelspec, so a fresh ``pip install`` is enough; it forces
  the inline matplotlib backend (even when MPLBACKEND=Agg is set) and puts
  this relmodel first on the kernel's import path.
* Its client's ``wait_for_ready`` ends when IOPub brings the idle status of
  its ``kernel_info`` request, instead of after 0.2 s of silence.
* Its client's channels look for a queued message with a direct,
  non-blocking ZeroMQ poll at least every half second. An asyncio wait on a
  ZeroMQ socket can miss a message that has already arrived (seen after a
  cell that opens widget comms, as in nbclient issue 312): the execute reply
  then sat in the shell socket until the cell timeout, while a direct poll
  finds it at once.
"""

import os
import shutil
import tempfile
import threading
import uuid
import time
from pathlib import Path
from queue import Empty

from jupyter_client import AsyncKernelManager
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.kernelspec import KernelSpec
from traitlets import DottedObjectName, Type

from .zygote import PREFIX as KERNEL_COMMAND, kernel_env

__all__ = ["KernelManager", "KernelClient", "SlicedChannel", "kernel_env", "stop_run", "SLICE_S", "PREFIX", "LOG_NAME",
           "kernel_said", "kill_group", "run_stopped"]

#: Name prefix of the temporary folder each kernel gets: ``relmodel-kernel-<run>-<id>``.
#: The folder holds the kernel's sockets and a ``pid`` file, so the process that
#: started a run can stop its kernels and remove their folders after an interrupt.
PREFIX = "relmodel-kernel-"

#: The file in a kernel's folder that holds its standard output and error (see ``KernelManager._open_log``).
LOG_NAME = "kernel.log"

#: Longest single wait on a socket, in seconds.
SLICE_S = 0.5

#: A kernel folder's name after the prefix (run id and kernel id) and its longest socket name.
_TAIL = "r" * 12 + "-" + "k" * 16 + "/kernel-99"

_STOPPED = set()  # runs whose kernels were stopped: no kernel of theirs starts any more
_SAID = {}  # (run, thread) -> the end of kernel.log of a kernel that wrote there, read as its folder went
_LAUNCHED = {}  # (run, thread) -> the manager of the last kernel launched (its log, while its folder is there)


def kernel_said(run_id):
    """The end of what the last kernel of run ``run_id`` driven by this thread wrote on its standard streams
    (why it could not start or died), once; '' when it wrote nothing."""
    key = (str(run_id), threading.get_ident())
    manager = _LAUNCHED.pop(key, None)
    return _SAID.pop(key, "") or (manager.start_log().strip() if manager is not None else "")


def kill_group(pgid):
    """Kill process group ``pgid`` (a kernel's session: the kernel and what its cells started); never this
    process's own group. Returns True when a signal was sent."""
    import signal

    try:
        if not pgid or int(pgid) <= 1 or int(pgid) == os.getpgrp():
            return False
        os.killpg(int(pgid), signal.SIGKILL)
        return True
    except (OSError, ValueError):  # already gone
        return False


def run_stopped(run_id):
    """True once run ``run_id`` was stopped in this process (see :func:`stop_run`)."""
    return str(run_id) in _STOPPED


def stop_run(run_id):
    """Start no more kernels for run ``run_id`` in this process (its kernels are being stopped)."""
    _STOPPED.add(str(run_id))


class SlicedChannel(AsyncZMQSocketChannel):
    """A channel that looks for a queued message at least every :data:`SLICE_S` seconds.

    Each slice starts with a non-blocking poll (a direct ZeroMQ check), then
    waits on the socket for the rest of the slice.
    """

    #: Called with each message read (the client uses it to see which requests were answered).
    on_msg = None

    async def get_msg(self, timeout=None):
        msg = await self._sliced_get_msg(timeout)
        if self.on_msg is not None:
            self.on_msg(msg)
        return msg

    async def _sliced_get_msg(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                return await super().get_msg(timeout=0)
            except Empty:
                pass
            left = SLICE_S if deadline is None else deadline - time.monotonic()
            if left <= 0:
                raise Empty
            try:
                return await super().get_msg(timeout=min(SLICE_S, left))
            except Empty:
                continue


class KernelClient(AsyncKernelClient):
    """An asynchronous kernel client on :class:`SlicedChannel` channels."""

    shell_channel_class = Type(SlicedChannel)
    iopub_channel_class = Type(SlicedChannel)
    stdin_channel_class = Type(SlicedChannel)
    control_channel_class = Type(SlicedChannel)

    async def wait_for_ready(self, timeout=None):
        """Wait until the kernel answers ``kernel_info`` and IOPub brings the messages of that request.

        As jupyter_client's, except that IOPub is read up to the idle status of
        the answered request, not until 0.2 s pass without a message (what was
        published before the subscription settled never arrives either way).
        """
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        while True:
            msg_id = self.kernel_info()
            try:
                reply = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                reply = None
            if reply is not None and reply["msg_type"] == "kernel_info_reply" and await self._iopub_idle(msg_id):
                self._handle_kernel_info_reply(reply)
                return
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    async def _iopub_idle(self, msg_id):
        """True once IOPub brings the idle status of request ``msg_id``; False after 0.2 s without a message."""
        while True:
            try:
                msg = await self.iopub_channel.get_msg(timeout=0.2)
            except Empty:
                return False
            if (msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle"
                    and msg["parent_header"].get("msg_id") == msg_id):
                return True

    def execute(self, *args, **kwargs):
        """Send an execute request; a manager with ``watch`` hears of it and of its reply."""
        msg_id = super().execute(*args, **kwargs)
        watch = getattr(self.parent, "watch", None)
        if watch is not None:
            watch(msg_id, False)
        return msg_id

    @property
    def shell_channel(self):
        channel = super().shell_channel
        if channel.on_msg is None and getattr(self.parent, "watch", None) is not None:
            watch = self.parent.watch
            channel.on_msg = lambda msg: (watch(msg["parent_header"].get("msg_id"), True)
                                          if msg.get("msg_type") == "execute_reply" else None)
        return channel


class KernelManager(AsyncKernelManager):
    """Start this interpreter's ipykernel, whatever kernelspecs are installed.

    The kernel talks over ZeroMQ ``ipc`` sockets in a folder of its own, not
    TCP ports: kernels started at once by parallel workers cannot then race
    for the same free port ("Address already in use", "Kernel died before
    replying to kernel_info"). The folder is in the temporary folder, or in a
    shorter one when the sockets' paths would not fit there (:mod:`.sockets`);
    where no folder is short enough, the kernel talks TCP on the loopback
    interface and its folder (connection file, ``pid`` file) stays in the
    temporary folder. The kernel's standard output and error go to ``kernel.log``
    in that folder, not to this process's terminal.
    """

    client_class = DottedObjectName("relmodel.report.kernels.kernel.KernelClient")

    #: The run this kernel belongs to (part of its folder name).
    run_id = "solo"

    def __init__(self, **kwargs):
        if "ip" not in kwargs and kwargs.get("transport", "ipc") == "ipc":
            from .sockets import socket_root

            name = f"{PREFIX}{self.run_id}-{uuid.uuid4().hex[:16]}"
            root = socket_root(PREFIX + _TAIL)
            folder = os.path.join(root or tempfile.gettempdir(), name)
            kwargs["transport"], kwargs["ip"] = ("ipc", os.path.join(folder, "kernel")) if root else ("tcp", "127.0.0.1")
            kwargs.setdefault("connection_file", os.path.join(folder, "connection.json"))
        super().__init__(**kwargs)

    @property
    def folder(self):
        """The kernel's own folder (its connection file, ``pid`` file and ``ipc`` sockets)."""
        return os.path.dirname(self.connection_file)

    def _own_folder(self):
        return os.path.basename(self.folder).startswith(f"{PREFIX}{self.run_id}-")

    async def _async_post_start_kernel(self, **kw):
        await super()._async_post_start_kernel(**kw)
        from .interrupts import on_loop
        import asyncio
        on_loop(asyncio.get_running_loop())
        process = getattr(self.provisioner, "process", None)
        if self._own_folder() and process is not None:
            Path(self.folder, "pid").write_text(str(process.pid))
        if str(self.run_id) in _STOPPED and process is not None:  # stopped while it started: it ends now
            process.kill()
            raise RuntimeError(f"run {self.run_id} was stopped: no kernel starts for it")

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        """Fork the kernel from this process's zygote when it can (:mod:`.zygote`), else launch it as usual."""
        from jupyter_client.provisioning import LocalProvisioner

        from ...base.std_fds import ensure_std_fds
        from .zygote import launch

        ensure_std_fds()  # a closed standard stream would be the kernel's, and ipykernel dies on it
        provisioner = self.provisioner
        process = None
        log = self._open_log() if not any(kw.get(k) is not None for k in ("stdout", "stderr")) else None
        if log is not None:
            kw["stdout"] = kw["stderr"] = log
            _LAUNCHED[(str(self.run_id), threading.get_ident())] = self
        try:
            if type(provisioner) is LocalProvisioner:
                process = launch(kernel_cmd, **LocalProvisioner._scrub_kwargs(kw))
            if process is None:
                return await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            if log is not None:
                log.close()  # the kernel has its own copy
        provisioner.process, provisioner.pid, provisioner.pgid = process, process.pid, process.pid
        provisioner.cwd = kw.get("cwd") or os.getcwd()
        self._reconcile_connection_info(provisioner.connection_info)

    def _open_log(self):
        """The kernel's standard output and error: ``kernel.log`` in its own folder, removed with it.

        A kernel writes nothing there while it runs a notebook (ipykernel sends what cells print over
        its sockets); what it would write there is why it could not start, and a kernel started while
        a report is being stopped cannot start (its folders are going): on the terminal that was
        tracebacks around the one-line "interrupted". None (the process's own streams) for a kernel
        without a folder of its own, or when the file cannot be opened.
        """
        if not self._own_folder():
            return None
        try:
            return open(os.path.join(self.folder, LOG_NAME), "ab")
        except OSError:
            return None

    def start_log(self, limit=2000):
        """The end of what the kernel wrote on its standard streams ('' when nothing or no file)."""
        try:
            with open(os.path.join(self.folder, LOG_NAME), "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - limit))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    async def _async_pre_start_kernel(self, **kw):
        if str(self.run_id) in _STOPPED:
            raise RuntimeError(f"run {self.run_id} was stopped: no kernel starts for it")
        if self._own_folder():
            from .stale import mark_owner
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            mark_owner(self.folder)
        return await super()._async_pre_start_kernel(**kw)

    async def _async_cleanup_resources(self, restart=False):
        group = getattr(self.provisioner, "pgid", None)
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            kill_group(group)  # what the notebook started (a server, a sleep) ends with its kernel
        if self._own_folder() and not restart:
            key = (str(self.run_id), threading.get_ident())
            if _LAUNCHED.get(key) is self:
                del _LAUNCHED[key]
            said = self.start_log().strip()
            if said and str(self.run_id) not in _STOPPED:  # why it ended, for the error that names the notebook
                _SAID[key] = said
            shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def kernel_spec(self):
        if self._kernel_spec is None:
            self._kernel_spec = KernelSpec(
                argv=[*KERNEL_COMMAND, "--log-level=CRITICAL", "-f", "{connection_file}"],  # what the zygote forks
                display_name="Python (relmodel)", language="python", name="python3",
                env=kernel_env())
        return self._kernel_spec
