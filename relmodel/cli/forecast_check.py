"""``relmodel forecast-check``: fit each log on the first part of its window and check the forecast of the rest."""

import click

from .common import echo, echo_frame, format_option, load_source, log_options

__all__ = ["command"]


@click.command("forecast-check")
@click.argument("logs", nargs=-1, required=True)
@click.option("--split", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.7, show_default=True,
              help="Share of each log's window that is fitted; the rest is forecast.")
@click.option("--conf", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.9, show_default=True,
              help="Level of the predictive ranges.")
@format_option
@log_options
def command(logs, split, conf, fmt, log_kwargs):
    """Forecast the last part of each log from its first part; check the ranges.

    Each LOG is fitted on its first --split and its remaining failures, job MTBF (and a Slurm
    run's ETTR) are forecast with --conf ranges, then compared with what happened.  LOG is a bundled
    dataset (llama3, stepfun, lanl) or a log file read with the column options.

    \b
    Examples:
      relmodel forecast-check stepfun
      relmodel forecast-check stepfun lanl --split 0.8 --conf 0.95
    """
    from ..checkpoint.forecast_check import forecast_check
    sources = [load_source(log, dict(log_kwargs)) for log in logs]
    check = forecast_check(sources, split=split, conf=conf, names=[getattr(s, "name", log) for s, log in
                                                                   zip(sources, logs)])
    if fmt == "table":
        echo(check.text())
        echo_frame(check.table(), fmt)
    else:
        echo_frame(check.to_frame(), fmt)
