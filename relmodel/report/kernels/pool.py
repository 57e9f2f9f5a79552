"""Warm kernels reused across the notebooks of one report run.

Starting a kernel and importing numpy, pandas, scipy, matplotlib and relmodel
again for every notebook costs more than most notebooks' own work. Each
process that executes notebooks (the process itself, a process-pool worker, a
Dask worker) keeps a small pool of idle kernels per run:

* the first notebook of a run starts a kernel as usual and warms it (imports
  those modules, then takes a snapshot of the state a notebook may change);
* when a notebook ends, its kernel is reset to that snapshot and kept: user
  namespace cleared (execution count back to 1), matplotlib figures closed and
  rcParams and backend restored, relmodel's in-kernel records cleared, working
  directory, ``sys.path``, environment variables, warnings filters, numpy
  error and print settings and pandas options restored, and the random
  generators of ``random`` and ``numpy.random`` reseeded from the system;
* the next notebook of the same run takes that kernel and moves it to its
  own working folder.

A kernel is never reused when it died, when a cell's reply never came (a cell
that timed out or a kernel that hung), or when the reset did not answer in
:data:`RESET_TIMEOUT_S` seconds: it is stopped and the next notebook gets a
fresh one. Kernels left idle at the end of a run are stopped by the run's own
cleanup (their folders carry the run id), and by this process when it exits.

``RELMODEL_KERNEL_POOL=0`` in the environment turns reuse off (every notebook
gets a fresh kernel, as before); the variable is read each time a notebook
starts, and workers inherit it from the process that starts them.
"""

import atexit
import os
import shutil
import threading
import time
from queue import Empty

from traitlets import Type

from .capacity import cores
from .kernel import SLICE_S, KernelManager, kill_group

__all__ = ["PooledKernelManager", "pool_enabled", "idle_kernels", "retire_all",
           "kernel_manager_for", "ENV_SWITCH", "RESET_TIMEOUT_S", "MAX_IDLE"]

#: Environment variable that turns kernel reuse off when set to 0, "no", "off" or "false".
ENV_SWITCH = "RELMODEL_KERNEL_POOL"
#: Seconds a kernel may take to warm up or reset before it is stopped instead.
RESET_TIMEOUT_S = 60
#: Idle kernels kept per process: as many as the notebooks it may run at once (its threads run at most one
#: per core, see :mod:`.capacity`); more is waste.
MAX_IDLE = max(2, cores())

_LOCK = threading.Lock()
_IDLE = []  # (run_id, manager), oldest first

_WARM = ("__import__('relmodel.report.kernels.kernel_state', fromlist=['warm_kernel']).warm_kernel()")
_RESET = ("__import__('relmodel.report.kernels.kernel_state', fromlist=['reset_kernel']).reset_kernel({cwd!r})")


def pool_enabled():
    """True unless ``RELMODEL_KERNEL_POOL`` says 0, no, off or false."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "no", "off", "false")


def idle_kernels(run_id=None):
    """How many idle kernels this process keeps (for ``run_id``, or for every run)."""
    with _LOCK:
        return sum(1 for run, _ in _IDLE if run_id is None or run == str(run_id))


class PooledKernelManager(KernelManager):
    """A :class:`~relmodel.report.kernels.kernel.KernelManager` that hands out a warm kernel when one is idle.

    Papermill creates a manager per notebook; creating one returns an idle
    manager of the same run when there is one, so the kernel process, its
    sockets and session are the same. Stopping it resets the kernel and puts
    it back instead.
    """

    #: Clients of :class:`~relmodel.report.kernels.kernel.KernelClient`, which tell :meth:`watch` of
    #: each execute request and reply (a ``client_class`` name alone does not reach
    #: ``AsyncKernelManager``, whose ``client_factory`` default wins).
    client_factory = Type(klass="relmodel.report.kernels.kernel.KernelClient")

    def __new__(cls, *args, **kwargs):
        warm = _take(cls.run_id)
        if warm is not None:
            warm._relmodel_adopting = True
            return warm
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, **kwargs):
        if getattr(self, "_relmodel_ready", False):
            return  # a warm manager handed out again: keep its state
        super().__init__(**kwargs)
        self._relmodel_ready = True
        self._relmodel_adopting = False
        self._relmodel_pending = set()
        self._relmodel_broken = False

    @property
    def has_kernel(self):
        if getattr(self, "_relmodel_adopting", False):
            return False  # so the notebook calls start_kernel (with its working folder)
        return super().has_kernel

    async def start_kernel(self, **kw):
        if self._relmodel_adopting:
            self._relmodel_adopting = False
            self._relmodel_pending.clear()
            await self._run_in_kernel(f"import os as _o; _o.chdir({str(kw.get('cwd') or os.getcwd())!r}); del _o")
            return
        await KernelManager.start_kernel(self, **kw)
        try:
            await self._run_in_kernel(_WARM, timeout=2 * RESET_TIMEOUT_S)  # the kernel's start, then its warm-up
        except Exception:  # a kernel that cannot warm up still runs its notebook, but only once
            self._relmodel_broken = True

    async def shutdown_kernel(self, now=False, restart=False):
        if restart or not self._reusable():
            self._relmodel_broken = True
            return await KernelManager.shutdown_kernel(self, now=now, restart=restart)
        try:
            await self._run_in_kernel(_RESET.format(cwd=self.folder if self._own_folder() else os.getcwd()))
        except Exception:  # no answer in time, the reset failed: this kernel is not reused
            self._relmodel_broken = True
            return await KernelManager.shutdown_kernel(self, now=True)
        _give_back(self)

    async def cleanup_resources(self, restart=False):
        if self._relmodel_broken or not _alive(self):  # a kept kernel (idle, or taken again) keeps its files
            self._relmodel_broken = True
            return await KernelManager.cleanup_resources(self, restart=restart)

    def _reusable(self):
        """Alive, every sent cell answered, and reuse still on."""
        return _alive(self) and not self._relmodel_pending and not self._relmodel_broken and pool_enabled()

    async def _run_in_kernel(self, code, timeout=RESET_TIMEOUT_S):
        """Run ``code`` silently on a client of its own; raise unless the reply says ok.

        The client opens its shell channel only: a request waits in the channel
        until the kernel listens, and the reply is all this reads, so nothing
        waits for an IOPub subscription to settle (``wait_for_ready`` spends at
        least 0.2 s on that, three times per notebook). A kernel that dies
        meanwhile is noticed within :data:`~.kernel.SLICE_S` seconds.
        """
        client = self.client()
        client.start_channels(shell=True, iopub=False, stdin=False, hb=False, control=False)
        try:
            msg_id = client.execute(code, silent=True, store_history=False, allow_stdin=False)
            reply = await _reply_to(self, client, msg_id, timeout)
            content = reply["content"]
            if content.get("status") != "ok":
                raise RuntimeError(f"{content.get('ename')}: {content.get('evalue')}")
        finally:
            client.stop_channels()

    def watch(self, msg_id, answered):
        """Note an execute request sent (answered False) or its reply read (answered True)."""
        if answered:
            self._relmodel_pending.discard(msg_id)
        else:
            self._relmodel_pending.add(msg_id)


async def _reply_to(manager, client, msg_id, timeout):
    """The shell reply to request ``msg_id``; TimeoutError after ``timeout`` s, RuntimeError if the kernel died."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the kernel did not answer within {timeout} s")
        if not _alive(manager):
            raise RuntimeError("the kernel died before it answered")
        try:
            reply = await client.shell_channel.get_msg(timeout=min(SLICE_S, left))
        except Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def _alive(manager):
    process = getattr(manager.provisioner, "process", None)
    return process is not None and process.poll() is None


def _take(run_id):
    """An idle manager of ``run_id`` whose kernel is alive; managers of other runs are stopped."""
    stale, found = [], None
    with _LOCK:
        for entry in list(_IDLE):
            run, manager = entry
            if run != run_id or not _alive(manager):
                _IDLE.remove(entry)
                stale.append(manager)
            elif found is None:
                _IDLE.remove(entry)
                found = manager
    for manager in stale:
        _stop(manager)
    return found


def _give_back(manager):
    with _LOCK:
        _IDLE.append((manager.run_id, manager))
        extra = _IDLE[:-MAX_IDLE] if len(_IDLE) > MAX_IDLE else []
        del _IDLE[:len(extra)]
    for _, old in extra:
        _stop(old)


def _stop(manager):
    """Kill an idle kernel at once, with what its notebooks' cells started, and remove its folder."""
    manager._relmodel_broken = True
    process = getattr(manager.provisioner, "process", None)
    kill_group(getattr(manager.provisioner, "pgid", None))  # its session: the kernel and its cells' children
    try:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=5)
    except Exception:  # already gone
        pass
    try:
        manager.cleanup_connection_file()
        manager.cleanup_ipc_files()
        manager._close_control_socket()
    except Exception:  # its run's cleanup removed the files first
        pass
    if manager._own_folder():
        shutil.rmtree(manager.folder, ignore_errors=True)


def retire_all(run_id=None):
    """Stop every idle kernel of this process (of run ``run_id`` only, when given)."""
    with _LOCK:
        kept = [(run, m) for run, m in _IDLE if run_id is not None and run != str(run_id)]
        managers = [m for run, m in _IDLE if run_id is None or run == str(run_id)]
        _IDLE[:] = kept
    for manager in managers:
        _stop(manager)


atexit.register(retire_all)
try:  # multiprocessing workers run these finalizers on their way out
    from multiprocessing.util import Finalize
    Finalize(None, retire_all, exitpriority=10)
except ImportError:  # pragma: no cover
    pass


# ---- inside the kernel -------------------------------------------------------------------


def kernel_manager_for(run_id):
    """A :class:`~relmodel.report.kernels.kernel.KernelManager` subclass whose kernels are tagged with ``run_id``.

    Its kernels are warm and reused across the run's notebooks unless
    ``RELMODEL_KERNEL_POOL=0``.
    """
    base = PooledKernelManager if pool_enabled() else KernelManager
    return type("RunKernelManager", (base,), {"run_id": str(run_id)})
