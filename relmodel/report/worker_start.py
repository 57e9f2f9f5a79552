"""What a process-pool worker of relmodel does when it starts, before its first notebook.

:func:`start_worker` is the initializer of the spawn pools relmodel creates
(:func:`.executors.worker_pool` and the pool of :func:`.executors.run_tasks`):

* it ignores SIGINT, so that only the process that owns the report decides
  how to stop (see :mod:`.executors`);
* it defers jsonschema's optional IRI checker (:func:`defer_iri_grammar`):
  nbformat imports jsonschema, whose import builds the ``rfc3987_syntax``
  grammar, about 2 s of CPU in every worker, for a checker nbformat's
  schema (draft 4, no ``iri`` format) never calls;
* it imports the execute step (Papermill, nbformat, nbconvert's HTML exporter)
  at once, so that a pool created before the report is planned
  (``relmodel report --jobs N``, :func:`.executors.worker_pool`) does that
  work while the parent process reads and checks the parameters;
* when the pool shuts down, the worker runs its exit handlers and ends
  without tearing its interpreter down (:func:`end_without_teardown`), as a
  forked worker does: freeing every module of pandas, scipy and nbconvert
  one by one takes longer than the last notebook's HTML, and the pool's
  owner waits for it.

It is not used for executors the caller brings (a Dask cluster, a pool of
their own): those processes are theirs.
"""

import atexit
import importlib
import importlib.util
import os
import signal
import sys
import types

__all__ = ["start_worker", "defer_iri_grammar", "preload_execute", "end_without_teardown", "IRI_MODULE"]

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
    """Import the execute step and build its HTML exporter; any failure is left to the first notebook."""
    try:
        import nbformat
        import papermill  # noqa: F401
        from papermill.engines import papermill_engines  # noqa: F401 (loads the engine and its I/O)

        from .execute import to_html

        to_html(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("warm")]))  # templates compiled
    except Exception:  # the notebook that needs the missing piece reports it by name
        return False
    return True


def end_without_teardown():
    """An exit handler: run the other exit handlers, flush the standard streams, end at once.

    Registered last, it runs first; the handlers registered before it then run
    in their usual order (last registered first). Threads have been joined and
    multiprocessing's finalizers (which stop idle kernels) have run by then.
    The exit status is 0: a pool worker only exits when its pool shuts down.
    """
    atexit.unregister(end_without_teardown)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed or replaced streams have nothing to flush
            pass
    os._exit(0)


def start_worker():
    """Initializer of relmodel's process-pool workers (see the module docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    defer_iri_grammar()
    preload_execute()
    atexit.register(end_without_teardown)
