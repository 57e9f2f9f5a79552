"""``render``: the one entry point behind ``relmodel report`` (one report, or a sweep)."""

from .params import load_params
from .run import _clear, _prepare_out, finish, plan, run_tasks
from .sweep import render_sweep

__all__ = ["render"]


def render(notebooks=None, params=None, out=None, force=False, sweep=None, executor=None,
           progress=None):
    """Render the notebook suite to an HTML report; return a :class:`Report`.

    ``params`` is a dict or a YAML file of parameter values, checked against
    every notebook before any kernel starts (ParameterError lists what each
    notebook takes). ``out`` defaults to ``reports/<timestamp>`` and is never
    overwritten unless ``force``. ``sweep`` (``{name: [v1, v2, ...]}``) renders
    one report per value plus a comparison page, see :mod:`relmodel.report.sweep`.
    ``executor`` is any concurrent.futures.Executor; ``progress`` is True (a
    tqdm bar on stderr) or a callable ``progress(done, total, notebook)``.

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
    tasks = plan(notebooks, params)
    out = _prepare_out(out, force)
    _clear(out)
    results = run_tasks([(p, out, nb_params) for p, nb_params in tasks], executor, progress,
                        desc=out.name)
    return finish(out, results, params)
