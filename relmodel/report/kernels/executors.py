"""Run report tasks on an executor; stop cleanly on Ctrl-C.

:func:`run_tasks` runs one function per task on

* threads of this process (``executor=None``: as many as there are tasks,
  cores and memory for, see :mod:`.capacity`; :func:`worker_pool` for a
  given count). A notebook's work runs in its kernel, a process of its own
  forked from this process's zygote (:mod:`.zygote`), so a thread only
  drives its kernel and turns the result into HTML: one process holds the
  execute step's modules for every worker instead of one process per worker;
* any :class:`concurrent.futures.Executor` (:func:`process_pool` is a process
  pool whose workers start from a fork server with the execute step imported), or
* a Dask ``distributed.Client`` (submitted with ``retries=``; a task whose
  worker dies is run again on another worker by the scheduler).

Tasks return plain data (the executed notebook and its HTML as bytes), so
workers need no shared file system; results are handed to ``on_result`` in
this process as they arrive. A task that raises (a worker lost for good) gives
a result whose ``error`` names the notebook; the others finish.

On KeyboardInterrupt the pending tasks are cancelled, the workers of a process
pool relmodel made are killed, no kernel of the run starts any more, and every
kernel of the run (found by its ``relmodel-kernel-<run>-*`` folder and ``pid``
file) is stopped and its folder removed, together with the workers' scratch
folders (``relmodel-work-<run>-*``); then the interrupt is raised again.
"""

import os
import shutil
import signal
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from .interrupts import check_interrupted

__all__ = ["run_tasks", "new_run_id", "cleanup_run", "is_dask", "worker_pool", "process_pool", "dask_client",
           "WORK_PREFIX", "DASK_RETRIES"]

#: Name prefix of a worker's scratch folder for one notebook.
WORK_PREFIX = "relmodel-work-"
#: Retries of a Dask task that raised (a lost worker is rescheduled by Dask itself).
DASK_RETRIES = 2
_POLL_S = 0.1


def new_run_id():
    """A short id naming the temporary folders of one run."""
    return uuid.uuid4().hex[:12]


def is_dask(executor):
    """True for a ``distributed.Client``."""
    return type(executor).__module__.startswith("distributed") and hasattr(executor, "gather")


def _kill(pid):
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"ipykernel" not in cmdline and b"relmodel.report.kernels.zygote_main" not in cmdline:
            return  # not a kernel (a forked one has its zygote's command line)
    except OSError:
        if not hasattr(os, "killpg"):
            return
    try:
        os.killpg(pid, signal.SIGKILL)  # kernels run in a session (process group) of their own
    except (OSError, AttributeError):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def cleanup_run(run_id):
    """Stop the kernels of run ``run_id`` and remove its temporary folders."""
    from .kernel import PREFIX, stop_run
    from .pool import retire_all
    from .sockets import socket_roots

    stop_run(run_id)  # a thread still running a task starts no kernel for this run any more
    retire_all(run_id)  # idle kernels this process keeps for the run: stopped and reaped
    tmp = Path(tempfile.gettempdir())
    for root in socket_roots():
        for folder in Path(root).glob(f"{PREFIX}{run_id}-*"):
            try:
                _kill(int((folder / "pid").read_text()))
            except (OSError, ValueError):
                pass
            shutil.rmtree(folder, ignore_errors=True)
    for folder in tmp.glob(f"{WORK_PREFIX}{run_id}-*"):
        shutil.rmtree(folder, ignore_errors=True)


def _progress_hook(progress, total, desc):
    if progress is True:
        from tqdm import tqdm
        bar = tqdm(total=total, desc=desc, unit="notebook", file=__import__("sys").stderr)
        return lambda done, label: (bar.set_postfix_str(label), bar.update(1),
                                    bar.close() if done == total else None)
    if callable(progress):
        return lambda done, label: progress(done, total, label)
    return lambda done, label: None


def _lost(task, exc):
    name = getattr(task, "name", None) or str(task[0])
    return {"name": name, "ipynb": None, "html": None, "records": {}, "seconds": 0.0,
            "error": f"{name}: the worker running it was lost ({type(exc).__name__}: {exc})"}


def _submit(executor, func, task, i):
    if is_dask(executor):
        return executor.submit(func, task, retries=DASK_RETRIES, pure=False,
                               key=f"relmodel-{i}-{uuid.uuid4().hex[:8]}")
    return executor.submit(func, task)


def _abort(executor, futures, own):
    for future in futures:
        future.cancel()
    if own:
        for process in list(getattr(executor, "_processes", {}).values()):
            try:
                process.kill()
            except (OSError, AttributeError):
                pass
        executor.shutdown(wait=False, cancel_futures=True)


def _collect(futures, tasks, results, store, hook):
    """Poll ``futures`` (so Ctrl-C is seen at once) and store each result as it arrives."""
    pending, done = set(futures), 0
    while pending:
        finished = [f for f in pending if f.done()]
        if not finished:
            time.sleep(_POLL_S)
            continue
        for future in finished:
            pending.discard(future)
            i = futures[future]
            try:
                result = future.result()
            except Exception as exc:  # a worker lost for good, a task that could not run
                result = _lost(tasks[i], exc)
            check_interrupted()  # a Ctrl-C that Python dropped in a callback still stops the report
            results[i] = store(i, result)
            done += 1
            hook(done, results[i]["name"])
    check_interrupted()


def run_tasks(tasks, func, executor=None, progress=None, desc="report", on_result=None, run_id=None):
    """Run ``func(task)`` for every task; return the results in task order.

    ``on_result(i, result)`` runs here as each result arrives (it writes files).
    A single task without an executor runs in this process.
    """
    from .worker_start import defer_iri_grammar

    defer_iri_grammar()  # nbformat's schema never calls the checker whose grammar costs 2 s of CPU to build
    from .stale import sweep_stale
    sweep_stale()  # folders of reports killed before they could remove them (their owner record says so)
    # what cleanup_run needs is imported now, in this thread: a signal that unwinds the run while a worker
    # thread is importing jupyter_client must not leave cleanup to import a partly initialised module
    from . import kernel, pool, sockets  # noqa: F401
    run_id = run_id or new_run_id()
    hook = _progress_hook(progress, len(tasks), desc)
    store = on_result or (lambda i, r: r)
    own = executor is None and len(tasks) > 1
    if own:
        from .capacity import usable_workers
        executor = _thread_pool(min(len(tasks), usable_workers().count))
    results, futures, clean = [None] * len(tasks), {}, False
    try:
        if executor is None:
            for i, task in enumerate(tasks):
                result = func(task)
                check_interrupted()  # a Ctrl-C that Python dropped in a callback still stops the report
                results[i] = store(i, result)
                hook(i + 1, results[i]["name"])
            clean = True
            return results
        futures.update({_submit(executor, func, task, i): i for i, task in enumerate(tasks)})
        _collect(futures, tasks, results, store, hook)
        clean = True
        return results
    except BaseException:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
        try:
            if executor is not None:
                _abort(executor, futures, own or getattr(executor, "_relmodel_owned", False))
            cleanup_run(run_id)
            if _settle(executor, futures):  # tasks under way on threads: their kernels are gone, so they end
                cleanup_run(run_id)  # and what they made meanwhile goes too
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        raise
    finally:
        if own:
            executor.shutdown(wait=clean, cancel_futures=True)
        if clean:
            cleanup_run(run_id)  # anything a lost worker left behind


#: Seconds a report waits, after Ctrl-C, for the tasks its threads were running to end.
SETTLE_S = 15


def _settle(executor, futures):
    """Wait (at most :data:`SETTLE_S` s) for the running tasks of a thread pool; True when there were any."""
    from concurrent.futures import wait

    running = [f for f in futures if not f.done()]
    if not isinstance(executor, ThreadPoolExecutor) or not running:
        return False
    import logging
    logging.disable(logging.CRITICAL)  # their kernels were stopped on purpose: no "Kernel died" on stderr
    try:
        wait(running, timeout=SETTLE_S)
    finally:
        logging.disable(logging.NOTSET)
    return True


def _main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


class _Threads(ThreadPoolExecutor):
    """A thread pool that, left on an error or Ctrl-C, does not wait for the tasks under way."""

    def __exit__(self, kind, exc, tb):
        self.shutdown(wait=kind is None, cancel_futures=kind is not None)
        return False


def _thread_pool(workers):
    """A pool of ``workers`` threads that drive kernels forked from this process's zygote.

    The zygote starts now (:func:`.zygote.prestart`), so that it imports while
    this process imports the execute step.
    """
    from .zygote import kernel_env, prestart

    prestart({**os.environ, **kernel_env()})
    pool = _Threads(max_workers=workers, thread_name_prefix="relmodel-worker")
    pool._relmodel_owned = True  # its tasks may be abandoned on Ctrl-C (their kernels are stopped)
    return pool


def _spawn_pool(workers):
    """A process pool whose workers start (from the fork server) and end as :mod:`.worker_start` says.

    Its workers fork their kernels from the zygote this process's pools share
    (:func:`.zygote.pool_zygote`, its ``zygote`` attribute): started with the
    first pool, it imports beside the workers' start, once for every kernel
    of every pool of this process. A worker's kernels end with the worker.
    """
    from .worker_start import start_worker, worker_context
    from .zygote import kernel_env, pool_zygote

    zygote = pool_zygote({**os.environ, **kernel_env()})
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=worker_context(), initializer=start_worker,
                               initargs=(zygote.listen if zygote is not None else None, dict(os.environ)))
    pool.zygote = zygote
    return pool


def worker_pool(jobs=None):
    """A context giving the executor ``relmodel report --jobs N`` runs on (None: the default, chosen per run).

    ``jobs`` workers are threads of this process (see the module docstring),
    at most as many as this machine can use (:func:`.capacity.usable_workers`:
    ParameterError for anything but a whole number from 1).
    """
    if jobs is None:
        return _Nothing()
    from .capacity import usable_workers

    return _thread_pool(usable_workers(jobs).count)


def process_pool(jobs):
    """A context giving a process pool of ``jobs`` workers (clamped as :func:`worker_pool` is).

    Every worker starts at once (a pool would start one per submitted
    task), from a fork server that has imported the execute step
    (:mod:`.worker_start`); their kernels fork from one zygote shared by
    every pool of this process.
    """
    from .capacity import usable_workers

    jobs = usable_workers(jobs).count
    pool = _spawn_pool(jobs)
    pool._relmodel_owned = True  # its workers may be killed on Ctrl-C
    for _ in range(jobs):
        pool.submit(int)  # nothing to do: only starts the worker that takes it
    return pool


class dask_client:
    """Context manager: a Dask Client on ``address``, or on a local cluster for None or "local".

    The local cluster has one single-threaded worker process per core (as many
    as memory allows, see :mod:`.capacity`) and listens on the loopback
    interface only (its dashboard on a free loopback port, never a fixed one
    that another cluster may hold).
    """

    def __init__(self, address=None):
        self.address, self.cluster, self.client = address, None, None

    def __enter__(self):
        from ...errors import ReportError
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ReportError("--dask needs dask.distributed: pip install 'dask[distributed]'") from None
        try:
            if self.address in (None, "local"):
                from .capacity import usable_workers
                self.cluster = LocalCluster(n_workers=usable_workers().count, threads_per_worker=1,
                                            processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0")
                self.client = Client(self.cluster)
            else:
                from ..safety.limits import connect_dask
                self.client = connect_dask(self.address)  # scheme, reachable, a scheduler, workers
        except (OSError, TimeoutError) as exc:
            self.__exit__()
            raise ReportError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None
        return self.client

    def __exit__(self, *exc):
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # closing a half-started cluster must not hide the first error
                    pass
        return False
