"""``relmodel fit``: which failure-time distribution fits a log, by AIC and a censored GOF test."""

import io
import warnings
from pathlib import Path

import click

from ..data.shaping.fit_target import FIT_TARGETS, fit_target
from .common import echo, echo_frame, format_option, load_source, log_options
from ..base.outputs import check_output, write_output
from ..errors import FitError, OutputPathError

#: ``stats.lifetimes.ranking.DEFAULT_FAMILIES``, named here so that ``--help`` and option parsing do not load the
#: statistics layer (scipy); tests/package/test_import_cost.py holds the two the same.
DEFAULT_FAMILIES = ("exponential", "weibull", "lognormal", "gamma", "loglogistic")

__all__ = ["command", "durations_of", "write_plot", "check_plot_path"]


def durations_of(source, what):
    """Interarrivals, uptimes or downtimes of a log; FitError for a table without times."""
    if not hasattr(source, what):
        name = getattr(source, "name", source)
        raise FitError(f"{name} has no event times (it is a table of counts); fit needs a log with "
                       "start times, e.g. 'stepfun', 'lanl' or a file with --start")
    return getattr(source, what)()


_PLOT_TYPES = (".png", ".pdf", ".svg")


def check_plot_path(path, *, force=False):
    """Raise :class:`OutputPathError` unless ``path`` is a .png, .pdf or .svg relmodel may write.

    That is a new file (or, with ``force``, an existing regular file) in an existing folder, and
    never a symbolic link, dangling or not (:func:`relmodel.base.outputs.check_output`).
    """
    path = Path(path)
    if path.suffix.lower() not in _PLOT_TYPES:
        raise OutputPathError(f"--plot {path}: a figure is written as {', '.join(_PLOT_TYPES)}; "
                              f"got {path.suffix or 'no extension'!r}")
    check_output(path, "--plot", force=force)


def write_plot(path, durations, comparison, *, force=False):
    """Probability plot of the best family and Kaplan-Meier with every fit, as one PNG."""
    from matplotlib.figure import Figure

    from .. import plots

    check_plot_path(path, force=force)
    best = comparison.best
    fig = Figure(figsize=(11, 4.5), layout="constrained")
    left, right = fig.subplots(1, 2)
    paper = best.family if best.family in getattr(plots, "PAPERS", ()) else "weibull"  # gengamma: Weibull paper
    plots.probability_plot(durations, family=paper, fit=best, ax=left)
    plots.survival_plot(durations, list(comparison.fits.values()), ci=True, ax=right)
    from ..plots.text import literal
    right.set_title(f"{literal(durations.label)}: Kaplan-Meier and fitted models")
    buf = io.BytesIO()
    fig.savefig(buf, dpi=120, format=Path(path).suffix.lower()[1:])
    return write_output(path, buf.getvalue(), "--plot", force=force)


@click.command("fit")
@click.argument("log", default="stepfun")
@click.option("--what", type=click.Choice(list(FIT_TARGETS)), default="auto",
              show_default=True, help="Which durations to fit: system-wide times between interruptions, "
              "per-node up times (the last one censored), or repair times; auto takes up times when the log "
              "gives repair times for more than one node, as the report's page 02 does.")
@click.option("--families", default=",".join(DEFAULT_FAMILIES), show_default=True,
              help="Comma-separated families to compare.")
@click.option("--n-boot", type=click.IntRange(min=0), default=200, show_default=True,
              help="Bootstrap resamples for the goodness-of-fit p-value (0 skips it).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="Random seed of the bootstrap.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Write a PNG: probability plot of the best family, Kaplan-Meier with the fits.")
@click.option("--force", is_flag=True, help="Overwrite the --plot file if it exists.")
@format_option
@log_options
def command(log, what, families, n_boot, seed, plot_path, force, fmt, log_kwargs):
    """Fit failure-time distributions to a log and rank them by AIC.

    LOG is a bundled dataset (stepfun [default], lanl) or a log file (.csv,
    .csv.gz, .csv.xz, .parquet, .json) read with the column options.  The
    table gives log-likelihood, AIC, BIC, AIC difference, Akaike weight, the
    Kolmogorov-Smirnov distance to the Kaplan-Meier curve and a parametric
    bootstrap p-value valid under censoring; then the best model's parameters
    with confidence intervals.  Times are hours.

    \b
    Examples:
      relmodel fit                                  # StepFun, per-node up times (auto)
      relmodel fit stepfun --what uptimes --plot up.png
      relmodel fit lanl --what downtimes --families weibull,lognormal
      relmodel fit outages.csv --start began --end ended --node host --what uptimes
    """
    from ..stats.lifetimes.fitting import FitWarning
    from ..stats.lifetimes.ranking import compare_fits
    names = [f.strip() for f in families.split(",") if f.strip()]
    if plot_path:
        check_plot_path(plot_path, force=force)  # before any work: a link, a folder, a file kept without --force
    source = load_source(log, log_kwargs)
    if what == "auto" and hasattr(source, "interarrivals"):
        what, why = fit_target(source, what)
        echo(f"relmodel: note: fitting {why}", err=True)
    elif what == "auto":
        what = "interarrivals"  # a count table: durations_of names the problem
    data = durations_of(source, what)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FitWarning)
        cmp = compare_fits(data, names, n_boot=n_boot, seed=seed)
    for w in caught:
        if issubclass(w.category, FitWarning):
            echo(f"note: {w.message}", err=True)
    best = cmp.best
    if fmt == "table":
        name = getattr(source, "name", log)
        echo(f"{name}: {what}, n = {len(data)}, failures = {data.n_observed}, "
                   f"censored = {len(data) - data.n_observed}; p-values from {n_boot} bootstrap resamples")
    echo_frame(cmp.by_family, fmt, floatfmt="{:,.6g}".format)
    if fmt == "table":
        echo(f"\nbest by AIC: {best.family}; mean {best.mean_h:,.4g} h, median {best.median_h:,.4g} h")
        echo_frame(best.ci, fmt, floatfmt="{:,.6g}".format)
        if best.note:
            echo(f"note: {best.note}")
    if plot_path:
        out = write_plot(plot_path, data, cmp, force=force)
        echo(f"wrote {out}", err=fmt != "table")
