"""``render``: the one entry point behind ``relmodel report`` (one report, or a sweep)."""

from pathlib import Path

from ..errors import ReportError
from .folders import Staging, check_target
from .params import load_params
from .run import finish, make_tasks, new_run_id, plan, run_tasks, store, execute
from .sweep import render_sweep

__all__ = ["render"]


def render(notebooks=None, params=None, out=None, force=False, sweep=None, executor=None,
           progress=None):
    """Render the notebook suite to an HTML report; return a :class:`Report`.

    ``params`` is a dict or a YAML file of parameter values, checked against
    every notebook before any kernel starts (ParameterError lists what each
    notebook takes). ``out`` defaults to ``reports/<timestamp>``; an existing
    folder is replaced only with ``force`` and only if it is a relmodel report
    (see :mod:`relmodel.report.folders`); the new report is written beside it
    and swapped in. ``sweep`` (``{name: [v1, v2, ...]}``, several names for a
    cross product) renders one report per combination plus a comparison page,
    see :mod:`relmodel.report.sweep`. ``executor`` is any
    concurrent.futures.Executor or a Dask ``distributed.Client``; workers
    return the executed notebooks as bytes and only this process writes the
    folder. ``progress`` is True (a tqdm bar on stderr) or a callable
    ``progress(done, total, notebook)``. Ctrl-C stops the kernels and raises
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
    if sweep:
        return render_sweep(sweep, notebooks=notebooks, params=params, out=out, force=force,
                            executor=executor, progress=progress)
    params = load_params(params)
    plans = plan(notebooks, params)
    out = check_target(out, force)
    run_id = new_run_id()
    tasks = make_tasks(plans, run_id)
    entries = {}
    staging = Staging(out, replace=Path(out).exists())
    try:
        with staging:
            def on_result(i, result):
                entries[i] = store(result, staging.path)
                staging.mark("in progress", {"notebooks": [entries[k] for k in sorted(entries)]})
                return entries[i]

            results = run_tasks(tasks, execute, executor, progress, desc=Path(out).name,
                                on_result=on_result, run_id=run_id)
            error = None
            try:
                report = finish(out, results, params, folder=staging.path)
            except ReportError as exc:
                error = exc
            staging.commit()
    except KeyboardInterrupt:
        raise staging.interrupted() from None
    if error is not None:
        raise error
    return report
