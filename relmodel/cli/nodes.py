"""``relmodel nodes``: bad ("lemon") nodes, ranked by their chance of being bad, and whether repairs fix them."""

import click

from ..base.escape import terminal_text
from .common import echo_frame, format_option, load_source, log_options, terminal_table

# pandas and the statistics layer are imported where they are used: `relmodel nodes --help` loads neither.

__all__ = ["command"]


@click.command("nodes")
@click.argument("log", default="stepfun")
@click.option("--population", type=click.IntRange(min=1),
              help="Nodes the log observed in total, failed or not [default: the log's stated count, else only "
                   "the nodes that failed are known].")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              help="How many of the likeliest bad nodes to list.")
@click.option("--conf", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Confidence level of the intervals.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seed of the homogeneous fleet's simulated envelope.")
@format_option
@log_options
def command(log, population, top, conf, seed, fmt, log_kwargs):
    """Bad nodes: which nodes fail again and again, and whether repairs fix them.

    LOG is a bundled log (stepfun [default], lanl) or a log file (.csv,
    .csv.gz, .csv.xz, .parquet, .json) read with the column options; it needs
    a node column.

    \b
    Examples:
      relmodel nodes                          # StepFun, 400 servers, 349 days
      relmodel nodes lanl --top 20
      relmodel nodes outages.csv --start began --end ended --node host --population 512
    """
    source = load_source(log, log_kwargs)
    from ..stats.nodes import bad_nodes
    result = bad_nodes(source, population=population, conf=conf, seed=seed)
    if fmt == "table":
        click.echo(terminal_text(result.text()))
        click.echo("")
        click.echo(terminal_table(result.estimates_table()))
        click.echo("")
        click.echo(f"The {min(top, len(result.nodes))} nodes most likely bad now:")
        click.echo(terminal_table(result.table(rows=top)))
    else:
        echo_frame(result.ranked(top), fmt)
