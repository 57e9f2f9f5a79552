"""``relmodel report``: render the notebook suite to HTML (a thin layer over relmodel.report.render)."""

import json

import click

from .common import echo
from ..errors import ParameterError, ReportIncomplete
from ..report.pipeline.parse import load_params, parse_assignment
from ..report.kernels.interrupts import terminate_as_interrupt

__all__ = ["command"]


def _sweeps(texts):
    """Several --sweep options as one grid (a cross product)."""
    from ..report.pipeline.sweep import parse_sweep

    grid = {}
    for text in texts:
        (name, values), = parse_sweep(text).items()
        if name in grid:
            raise ParameterError(f"--sweep {name} is given twice; list all its values in one option")
        grid[name] = values
    return grid or None


class _ReportCommand(click.Command):
    """``relmodel report --help`` ends with the data parameters, read from the notebooks' parameter cells."""

    def format_epilog(self, ctx, formatter):
        super().format_epilog(ctx, formatter)
        try:
            from ..report.pipeline.params import log_parameters, notebook_parameters
            from ..report.pipeline.plan import find_notebooks
            found = log_parameters({p.stem: notebook_parameters(p) for p in find_notebooks()})
        except (OSError, ValueError):  # help never fails for want of the suite
            return
        if not found:
            return
        rows = [(f"{p.name}: {p.type_name} = {p.default!r}", p.comment) for p in found.values()]
        with formatter.section("Data parameters (-p NAME=VALUE; every notebook that reads the data takes them)"):
            formatter.write_dl(rows, col_max=34)


@click.command("report", cls=_ReportCommand)
@click.option("--params", "params_file", type=click.Path(dir_okay=False),
              help="YAML file of parameter values.")
@click.option("-p", "--param", "assignments", multiple=True, metavar="NAME=VALUE",
              help="Set one parameter (value read as YAML: 4096, 0.95, 5min); repeatable.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Report folder [default: reports/<timestamp>].")
@click.option("--notebooks", "-n", multiple=True, metavar="NAME",
              help="Notebook name, number prefix (03) or .ipynb path; repeatable [default: all].")
@click.option("--force", is_flag=True, help="Replace an existing report folder.")
@click.option("--sweep", multiple=True, metavar="NAME=V1,V2,...",
              help="Render one report per value plus a comparison page, in parallel; "
                   "repeat for a cross product of several parameters.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Notebooks run at once, at most one per core and as many as memory allows "
                   "[default: one per core].")
@click.option("--dask", "dask_address", is_flag=False, flag_value="local", default=None,
              metavar="[ADDRESS]", help="Run the notebooks on Dask: a scheduler address "
              "(tcp://host:8786), or no address for a local cluster sized to this machine.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def command(params_file, assignments, out, notebooks, force, sweep, jobs, dask_address, quiet):
    """Run the notebooks through Papermill and write an HTML report.

    Parameters are checked against every notebook before any kernel starts.
    The folder gets one .ipynb and one .html per notebook, index.html and
    summary.json (job MTBF, optimal interval, ETTR, required node MTBF).

    \b
    Examples:
      relmodel report                                 # bundled data, default parameters
      relmodel report -p n_gpus=65536 -p ckpt_cost=2min --out reports/big
      relmodel report --sweep n_gpus=4096,16384,65536,131072
      relmodel report --sweep n_gpus=16384,65536 --sweep ckpt_cost=30s,2min --dask

    Each notebook's parameters: papermill --help-notebook notebooks/NAME.ipynb

    Exit status: 0 done; 1 a partial report (a notebook stopped at a failing
    cell: summary.json says "partial" and the index names it) or the report
    could not be written (disk full, no permission); 2 bad input (nothing was
    run or written); 130 interrupted (Ctrl-C).
    """
    from ..report import render
    from contextlib import nullcontext

    from ..report.kernels.executors import dask_client

    params = load_params(params_file)
    for text in assignments:
        name, value = parse_assignment(text)
        params[name] = value
    grid = _sweeps(sweep)
    if jobs is not None and dask_address is not None:
        raise ParameterError("give --jobs or --dask, not both")
    if jobs is not None:
        from ..report.kernels.capacity import usable_workers
        workers = usable_workers(jobs, "--jobs")
        if workers.clamped:
            echo(f"relmodel: note: {workers.text()}", err=True)
        jobs = workers.count
    partial = None
    with terminate_as_interrupt(), (dask_client(dask_address) if dask_address is not None
                                    else nullcontext()) as executor:
        try:  # with --jobs, the workers start once the parameters are checked (render's jobs=)
            report = render(notebooks=list(notebooks) or None, params=params, out=out, force=force,
                            sweep=grid, executor=executor, progress=not quiet, jobs=jobs)
        except ReportIncomplete as exc:
            report, partial = exc.report, exc
    echo(f"report written{' (partial)' if partial else ''}: {report.index}")
    _answers(report)
    if partial is not None:
        from .main import EXIT_PARTIAL, fail
        fail(partial, EXIT_PARTIAL, options=False)


def _answers(report):
    from ..report import fmt

    for run in report.runs or (report,):
        try:
            answers = json.loads((run.path / "summary.json").read_text(encoding="utf-8")).get("answers")
        except (OSError, ValueError):  # the headline numbers are enough
            answers = None
        if report.runs:
            echo(f"{run.path.name}:")
        for line in answers or [f"{key} = {fmt(value, key)}" for key, value in run.headline.items()]:
            echo(f"  {line}")
