"""``relmodel rates``: failure rates, MTBF and FIT per component."""

import dataclasses

import click

from .common import echo, echo_frame, format_option, load_source, log_options, observed_note, unit_of
from ..errors import ModelInputError, UnitError

# pandas, the data sets and the statistics layer are imported where they are used: `relmodel rates --help` and
# the parsing of its options load none of them.

__all__ = ["command"]

_COLUMNS = ["component", "category", "count", "share", "mtbf_h", "mtbf_lo", "mtbf_hi", "fit"]


@click.command("rates")
@click.argument("log", default="llama3")
@click.option("--per", type=click.Choice(["job", "node", "gpu"]), default="job", show_default=True,
              help="Rate per whole job, per node or per GPU.")
@click.option("--conf", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True, help="Confidence level of the intervals.")
@click.option("--method", type=click.Choice(["exact", "jeffreys"]), default="exact", show_default=True,
              help="Garwood exact Poisson interval, or Jeffreys-prior Gamma posterior.")
@click.option("--all-columns", is_flag=True, help="Show every column (exposure, rate and FIT bounds).")
@click.option("--compare", "fleet", metavar="FLEET",
              help="Compare the total rate with a published fleet (llama3, rsc1, rsc2, stepfun, opt175b, lanl2...); "
                   "per node unless --per gpu.")
@click.option("--population", "--n-nodes", "n_nodes", type=click.IntRange(min=1),
              help="For a log file: nodes observed in all, failed or not (default: those with an outage); the "
                   "report's population.")
@click.option("--gpus-per-node", type=click.IntRange(min=1), help="For a log file: GPUs per node (needed for "
              "--per gpu).")
@click.option("--source-gpus", type=click.IntRange(min=1), help="For a log file: GPUs observed, the same as "
              "--n-nodes times --gpus-per-node (default 8 per node).")
@format_option
@log_options
def command(log, per, conf, method, all_columns, fleet, n_nodes, gpus_per_node, source_gpus, fmt, log_kwargs):
    """Failure rate, MTBF (with confidence bounds) and FIT per component.

    LOG is a bundled dataset (llama3 [default], stepfun, lanl) or a log file
    (.csv, .csv.gz, .csv.xz, .parquet, .json) read with the column options.

    \b
    Examples:
      relmodel rates                          # Llama 3, 54 days, per job
      relmodel rates --per gpu --format csv
      relmodel rates stepfun --per node
      relmodel rates outages.csv --start began --end ended --node host --cause reason
      relmodel rates stepfun --compare llama3  # rate ratio, exact test, P(worse)
      relmodel rates outages.csv --start began --node host --per gpu --gpus-per-node 8 --n-nodes 512
    """
    n_nodes = _nodes(n_nodes, gpus_per_node, source_gpus)
    extra = {"n_nodes": n_nodes, "gpus_per_node": gpus_per_node}
    log_kwargs.update({k: v for k, v in extra.items() if v is not None})
    source = load_source(log, log_kwargs)
    unit = unit_of(source)
    if unit != "gpu-node" and (per == "gpu" or source_gpus is not None or gpus_per_node is not None):
        raise UnitError(f"--unit {unit}: a log of {unit}s covers no GPUs; use --per node (rates per {unit}) or "
                        "--per job, without --per gpu, --source-gpus or --gpus-per-node")
    if fleet:
        return _compare(source, fleet, "node" if per == "job" else per, conf, fmt)
    from ..stats.rates import component_rates
    df = component_rates(source, per=per, conf=conf, method=method)
    note = observed_note(source, None) if per != "job" else None
    if note:
        echo(f"relmodel: note: {note.replace('--source-gpus', '--source-gpus or --n-nodes')}", err=True)
    if fmt == "table" and not all_columns:
        df = df[_COLUMNS].copy()
        df["share"] = (100 * df["share"]).round(1)
        said = unit if unit != "gpu-node" and per == "node" else per
        df = df.rename(columns={"share": "share_%", "fit": f"FIT_per_{said}"})
        name = getattr(source, "name", log)
        counted = f" ({source.n_nodes:,} {unit}s)" if said == unit else ""
        echo(f"{name}: rates per {said}{counted}, {conf:.0%} intervals ({method})")
    echo_frame(df, fmt)
    if fmt == "table" and hasattr(source, "interruptions"):
        from ..scale.targets.today import todays_rate
        today = todays_rate(source, conf=conf)
        if today.moving:
            echo(f"note: these are averages over the window; the rate is {today.trend} (the rate models that "
                       f"forecast the log best read it so): today's rate is {today.factor:.2f}× the average ({today.factor_lo:.2f}–"
                       f"{today.factor_hi:.2f}×, {today.method}), the rate `relmodel interval`, `requirements` and "
                       "the report decide with")
    if fmt == "table" and hasattr(source, "disagreements"):
        for r in source.disagreements().itertuples():
            echo(f"note: the source prints {r.printed_pct}% for {r.component}; its count gives "
                       f"{r.count}/{source.n_unexpected} = {r.share_pct:.1f}%. The counts are used.")


def _nodes(n_nodes, gpus_per_node, source_gpus):
    """Nodes observed, from --n-nodes or --source-gpus (which must agree when both are given)."""
    if source_gpus is None:
        return n_nodes
    gpn = gpus_per_node or 8
    if source_gpus % gpn:
        raise ModelInputError(f"--source-gpus {source_gpus:,} is not a whole number of {gpn}-GPU nodes; "
                              "give a multiple of --gpus-per-node")
    if n_nodes is not None and n_nodes * gpn != source_gpus:
        raise ModelInputError(f"--n-nodes {n_nodes:,} x {gpn} GPUs is not --source-gpus {source_gpus:,}; give one")
    return source_gpus // gpn


def _compare(source, fleet, per, conf, fmt):
    """Print the comparison of ``source``'s total rate with a published fleet."""
    import pandas as pd
    from ..data.bundled import datasets
    from ..stats.rates.comparison import compare_rates
    import warnings
    from ..data.shaping.logs import LogWarning
    with warnings.catch_warnings():  # compare_rates warns of nodes seen only in the log: said here as the CLI's note
        warnings.simplefilter("ignore", LogWarning)
        result = compare_rates(source, fleet, per=per, conf=conf)
    note = observed_note(source, None)
    if note:
        echo(f"relmodel: note: {note.replace('--source-gpus', '--source-gpus or --n-nodes')}", err=True)
    if fmt == "table":
        echo(result.text())
        df = result.to_frame()
        echo_frame(df, fmt)  # significant digits: a small rate is not 0.00
        rows = datasets.fleets()
        row = rows[(rows["fleet"] == fleet.lower()) & (rows["category"] == "all")]
        if len(row) and bool(row["approx"].iloc[0]):
            echo(f"note: {row['name'].iloc[0]}: {row['note'].iloc[0]}.")
    else:
        echo_frame(pd.DataFrame([dataclasses.asdict(result)]), fmt)
