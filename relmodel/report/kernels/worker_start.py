"""How a process-pool worker of relmodel starts (before its first notebook) and ends.

The pools relmodel creates (:func:`.executors.worker_pool` and the pool of
:func:`.executors.run_tasks`) start their workers through multiprocessing's
fork server (:func:`worker_context`). The fork server is started once per
process, imports :data:`PRELOAD_MODULE` (what the execute step runs on:
Papermill, nbformat, nbconvert's HTML exporter and its templates, with the
IRI checker deferred) and forks every worker of every later pool from that
state; each worker then prepares itself as a spawned one does (the parent's
``sys.path`` and working folder), except that it does not run the parent's
main script again (:func:`_without_main`): a planning script needs no
``if __name__ == "__main__":`` guard to render. Where there is no fork server
(Windows), workers are spawned and each preloads in :func:`start_worker`.

:func:`start_worker` is the initializer of those pools:

* it takes the environment of the process that created the pool (the fork
  server's is the one it started with), so a variable such as
  ``RELMODEL_KERNEL_POOL`` set before a pool is created reaches its workers;
* it ignores SIGINT, so that only the process that owns the report decides
  how to stop (see :mod:`.executors`), and drops nbclient's "Kernel died" log line
  (:func:`quiet_kernel_deaths`): a kernel stopped with the report, or one that died, is said by the report;
* it defers jsonschema's optional IRI checker (:func:`defer_iri_grammar`):
  nbformat imports jsonschema, whose import builds the ``rfc3987_syntax``
  grammar, about 2 s of CPU in every worker, for a checker nbformat's
  schema (draft 4, no ``iri`` format) never calls;
* it forks its kernels from the pool's zygote (:mod:`.zygote`), when the
  pool has one;
* it imports what the execute step runs on (Papermill, nbformat, nbconvert's
  HTML exporter, its templates read once) at once, so that a pool created before the report is planned
  (``relmodel report --jobs N``, :func:`.executors.worker_pool`) does that
  work while the parent process reads and checks the parameters.

When the pool shuts down, a worker started through :func:`worker_context`
ends without tearing its interpreter down (:class:`QuickExitProcess`), as a
forked worker does: freeing every module of pandas, scipy and nbconvert one
by one takes longer than a notebook's HTML export, and the pool's owner waits
for it.

It is not used for executors the caller brings (a Dask cluster, a pool of
their own): those processes are theirs.
"""

import importlib
import importlib.util
import os
import signal
import sys
import types
from multiprocessing.context import ForkServerContext, ForkServerProcess, SpawnContext, SpawnProcess

__all__ = ["start_worker", "defer_iri_grammar", "preload_execute", "worker_context", "WorkerContext",
           "QuickExitProcess", "SpawnWorkerContext", "SpawnQuickExitProcess", "IRI_MODULE", "PRELOAD_MODULE",
           "WORKER_NAME", "remove_pool_folder", "quiet_kernel_deaths"]

#: The optional module jsonschema loads for its "iri" format checker.
IRI_MODULE = "rfc3987_syntax"


class _DeferredModule(types.ModuleType):
    """Stands in for :data:`IRI_MODULE` until something uses it, then loads the real one."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real_module(), name)


def _real_module():
    if isinstance(sys.modules.get(IRI_MODULE), _DeferredModule):
        del sys.modules[IRI_MODULE]
    return importlib.import_module(IRI_MODULE)


def _is_valid_syntax(*args, **kwargs):
    """The real ``rfc3987_syntax.is_valid_syntax``, its grammar built on the first call."""
    return _real_module().is_valid_syntax(*args, **kwargs)


def defer_iri_grammar():
    """Put a stand-in for :data:`IRI_MODULE` in ``sys.modules`` until its grammar is needed.

    Only when the module is installed and not yet imported; importing it
    later (or calling the stand-in's ``is_valid_syntax``) loads the real module
    and gives the same answers. Returns True when the stand-in was put in place.
    """
    if IRI_MODULE in sys.modules or importlib.util.find_spec(IRI_MODULE) is None:
        return False
    shim = _DeferredModule(IRI_MODULE, "loads the real module on first use")
    shim.is_valid_syntax = _is_valid_syntax
    sys.modules[IRI_MODULE] = shim
    return True


def preload_execute():
    """Import what the execute step runs on and compile nbconvert's HTML templates once.

    Any failure is left to the first notebook, which reports it by name.
    """
    try:
        import nbformat
        import papermill  # noqa: F401
        from papermill.engines import papermill_engines  # noqa: F401 (loads the engine and its I/O)

        from . import engine  # noqa: F401 (the report's engine, registered with papermill)

        from ..blocks.page_scripts import html_exporter  # made and its templates compiled here: the workers' exporter

        html_exporter().from_notebook_node(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("warm")]))
    except Exception:  # a missing or broken package: the notebook that needs it names it
        return False
    return True


#: The name of every worker of relmodel's pools (then ``-N``): its start skips the parent's main module.
WORKER_NAME = "relmodel-worker"


class _QuickExit:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = f"{WORKER_NAME}-{':'.join(str(i) for i in self._identity)}"

    def _bootstrap(self, *args, **kwargs):
        code = super()._bootstrap(*args, **kwargs)
        os._exit(code)


class QuickExitProcess(_QuickExit, ForkServerProcess):
    """A pool worker that ends as a forked one does: ``os._exit`` once its work is done.

    Multiprocessing's finalizers (which stop idle kernels, see :mod:`.pool`)
    have run, threads have been joined and the standard streams flushed by then;
    ``atexit`` handlers and the interpreter's teardown are skipped, as in a
    forked child. The exit status is the process's own.
    """


class WorkerContext(ForkServerContext):
    """The fork-server start method, with :class:`QuickExitProcess` processes."""

    Process = QuickExitProcess


class SpawnQuickExitProcess(_QuickExit, SpawnProcess):
    """:class:`QuickExitProcess` for the spawn start method (where there is no fork server)."""


class SpawnWorkerContext(SpawnContext):
    """The spawn start method, with :class:`SpawnQuickExitProcess` processes (Windows)."""

    Process = SpawnQuickExitProcess


def remove_pool_folder():
    """Remove the folder multiprocessing made for this process (the fork server's socket), if it made one.

    Multiprocessing removes it when the interpreter exits; a process that ends
    with ``os._exit`` (``relmodel`` after Ctrl-C) calls this first.
    """
    import multiprocessing.process
    import shutil

    folder = getattr(multiprocessing.process.current_process(), "_config", {}).get("tempdir")
    if folder and os.path.basename(folder).startswith("pymp-") and os.path.isdir(folder):
        shutil.rmtree(folder, ignore_errors=True)


#: The module the fork server imports before it forks workers (importing it runs the preload).
PRELOAD_MODULE = "relmodel.report.kernels.worker_preload"


def _without_main(preparation_data):
    """multiprocessing's ``get_preparation_data``, leaving out the main module for :data:`WORKER_NAME` processes.

    A spawned or fork-server child runs its parent's main script again (as
    ``__mp_main__``) before it unpickles its work. A relmodel worker only
    runs relmodel's functions on plain data, so it needs none of it; and a
    planning script without an ``if __name__ == "__main__":`` guard would
    render again in every worker, which multiprocessing stops with an error
    that kills the worker. Other processes are prepared as before.
    """
    def data(name):
        d = preparation_data(name)
        if str(name).startswith(WORKER_NAME):
            d.pop("init_main_from_path", None)
            d.pop("init_main_from_name", None)
        return d

    data.relmodel_wraps = preparation_data
    return data


def _skip_main_in_workers():
    """Wrap ``multiprocessing.spawn.get_preparation_data`` with :func:`_without_main`, once per process."""
    from multiprocessing import spawn

    if not hasattr(spawn.get_preparation_data, "relmodel_wraps"):
        spawn.get_preparation_data = _without_main(spawn.get_preparation_data)


def worker_context():
    """The multiprocessing context of relmodel's pools (fork server; workers end without teardown)."""
    import multiprocessing

    _skip_main_in_workers()
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return SpawnWorkerContext()  # each worker preloads in start_worker
    from multiprocessing import forkserver

    _short_pool_folder()
    forkserver.set_forkserver_preload([PRELOAD_MODULE])  # takes effect when the fork server starts
    return WorkerContext()


def _short_pool_folder():
    """Put multiprocessing's folder of this process (the fork server's socket) where the socket's path fits.

    Python 3.12 and later do this themselves; 3.11 makes it in the temporary
    folder, whatever its length, and the fork server cannot bind a path past
    the 107 bytes a Unix socket holds (see :mod:`.sockets`).
    """
    import multiprocessing.process
    import multiprocessing.util
    import shutil
    import tempfile

    from .sockets import fits, socket_root

    config = multiprocessing.process.current_process()._config
    tail = "pymp-12345678/listener-12345678"
    if hasattr(multiprocessing.util, "_get_base_temp_dir") or config.get("tempdir") \
            or fits(os.path.join(tempfile.gettempdir(), tail)):
        return
    root = socket_root(tail)
    if root is not None:
        folder = tempfile.mkdtemp(prefix="pymp-", dir=root)
        multiprocessing.util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=-100)
        config["tempdir"] = folder


def start_worker(zygote=None, environ=None):
    """Initializer of relmodel's process-pool workers (see the module docstring).

    ``zygote``: the socket path of the pool's kernel zygote, which this worker's kernels fork from;
    ``environ``: the environment of the process that created the pool.
    """
    if environ is not None:
        os.environ.clear()
        os.environ.update(environ)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    quiet_kernel_deaths()
    if zygote is not None:
        from .zygote import use_shared
        use_shared(zygote)
    defer_iri_grammar()
    preload_execute()


class _NoKernelDied:
    """A logging filter that drops nbclient's "Kernel died while waiting for execute reply." record."""

    def filter(self, record):
        return "Kernel died while waiting for execute reply" not in record.getMessage()


def quiet_kernel_deaths():
    """Drop nbclient's "Kernel died" line in this process (Papermill's and nbclient's loggers): under Ctrl-C the
    report stops its kernels on purpose and says so in one line, and a kernel that dies on its own is said
    by the report's error, so the line on stderr only doubled it (a race seen under load)."""
    import logging
    for name in ("papermill", "nbclient", "traitlets"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NoKernelDied) for f in logger.filters):
            logger.addFilter(_NoKernelDied())
