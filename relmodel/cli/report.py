"""``relmodel report``: render the notebook suite to HTML (a thin layer over relmodel.report.render)."""

import json

import click

from ..report.params import load_params, parse_assignment

__all__ = ["command"]


@click.command("report")
@click.option("--params", "params_file", type=click.Path(dir_okay=False),
              help="YAML file of parameter values.")
@click.option("-p", "--param", "assignments", multiple=True, metavar="NAME=VALUE",
              help="Set one parameter (value read as YAML: 4096, 0.95, 5min); repeatable.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Report folder [default: reports/<timestamp>].")
@click.option("--notebooks", "-n", multiple=True, metavar="NAME",
              help="Notebook name, number prefix (03) or .ipynb path; repeatable [default: all].")
@click.option("--force", is_flag=True, help="Replace an existing report folder.")
@click.option("--sweep", metavar="NAME=V1,V2,...",
              help="Render one report per value plus a comparison page, in parallel.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Parallel workers [default: one per core].")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def command(params_file, assignments, out, notebooks, force, sweep, jobs, quiet):
    """Run the notebooks through Papermill and write an HTML report.

    Parameters are checked against every notebook before any kernel starts.
    The folder gets one .ipynb and one .html per notebook, index.html and
    summary.json (job MTBF, optimal interval, ETTR, required node MTBF).

    \b
    Examples:
      relmodel report                                 # bundled data, default parameters
      relmodel report -p n_gpus=65536 -p ckpt_cost=2min --out reports/big
      relmodel report --sweep n_gpus=4096,16384,65536,131072

    Each notebook's parameters: papermill --help-notebook notebooks/NAME.ipynb
    """
    from ..report import fmt, render
    from ..report.sweep import parse_sweep

    params = load_params(params_file)
    for text in assignments:
        name, value = parse_assignment(text)
        params[name] = value
    executor = None
    if jobs is not None:
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context
        executor = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"))
    try:
        report = render(notebooks=list(notebooks) or None, params=params, out=out, force=force,
                        sweep=parse_sweep(sweep) if sweep else None, executor=executor,
                        progress=not quiet)
    finally:
        if executor is not None:
            executor.shutdown()
    click.echo(f"report written: {report.index}")
    for run in report.runs or (report,):
        answers = json.loads((run.path / "summary.json").read_text(encoding="utf-8")).get("answers")
        if report.runs:
            click.echo(f"{run.path.name}:")
        for line in answers or [f"{key} = {fmt(value, key)}" for key, value in run.headline.items()]:
            click.echo(f"  {line}")
