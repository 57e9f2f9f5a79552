"""``render``: the one entry point behind ``relmodel report`` (one report, or a sweep).

It calls the steps in order, each once: parse (:mod:`.pipeline.parse`), then plan
(:mod:`.pipeline.plan`), which hands every run's values to validate
(:mod:`.pipeline.validate`) before it makes a task, then :func:`.pipeline.run.render_plan`:
execute, store, summarise and index.
"""

from .pipeline.execute import execute  # noqa: F401 (kept importable here)
from .pipeline.parse import load_params
from .pipeline.plan import plan
from .pipeline.run import render_plan

__all__ = ["render", "render_sweep"]


def render(notebooks=None, params=None, out=None, force=False, sweep=None, executor=None,
           progress=None, jobs=None):
    """Render the notebook suite to an HTML report; return a :class:`Report`.

    ``params`` is a dict or a YAML file of parameter values, checked against
    every notebook before any kernel starts (ParameterError lists what each
    notebook takes). ``out`` defaults to ``reports/<timestamp>``; an existing
    folder is replaced only with ``force`` and only if it is a relmodel report
    (see :mod:`relmodel.report.safety.folders`); the new report is written beside it
    and swapped in. ``sweep`` (``{name: [v1, v2, ...]}``, several names for a
    cross product) renders one report per combination plus a comparison page,
    see :mod:`relmodel.report.pipeline.sweep`. ``executor`` is any
    concurrent.futures.Executor or a Dask ``distributed.Client``; workers
    return the executed notebooks as bytes and only this process writes the
    folder. ``progress`` is True (a tqdm bar on stderr) or a callable
    ``progress(done, total, notebook)``. ``jobs`` (instead of ``executor``)
    runs that many notebooks at once, at most as many as this machine's cores
    and memory allow (as ``relmodel report --jobs``; the default is one per
    core). Ctrl-C stops the kernels and raises
    :class:`~relmodel.errors.ReportInterrupted`.

    Durations in ``params`` take ``"45s"``, ``"10min"``, ``"3h"`` or a number of hours. A bad value stops before any kernel starts:

    Examples
    --------
    >>> import tempfile
    >>> render(params={"n_gpus": -4}, out=tempfile.mkdtemp() + "/x")
    Traceback (most recent call last):
    ...
    relmodel.errors.ParameterError: ...
    """
    parsed = load_params(params)  # 1. parse
    the_plan = plan(notebooks, parsed, sweep)  # 2. validate and 3. plan, before any folder is touched
    return render_plan(the_plan, out, force=force, executor=executor, progress=progress, jobs=jobs)  # 4.-7.


def render_sweep(sweep, notebooks=None, params=None, out=None, force=False, executor=None, progress=None):
    """Render one report per combination of swept values plus a comparison page; return a Report.

    The same as ``render(sweep=sweep, ...)``.  Without ``notebooks``, only the
    notebooks that take a swept parameter run; every combination is checked
    before any kernel starts or any folder is touched.
    """
    return render(notebooks, params, out, force, sweep, executor, progress)
