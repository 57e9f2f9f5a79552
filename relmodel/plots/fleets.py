"""Figures that set a cluster's failure rate beside the published fleets, and its changes over time.

* :func:`forest_plot` - each fleet's rate per 1,000 node-days with its exact
  interval, the fleet prior's spread, and this cluster alone and with the
  prior;
* :func:`rate_changes_plot` - binned interruption rate over time, the
  segments found by :func:`relmodel.stats.rates.changepoint.rate_changes` with
  their intervals, and the change times with theirs;
* :func:`fleet_context` - both for one log, ready for a notebook cell.

Each takes ``ax=None`` and returns the Axes; nothing is shown or saved.
"""

import numpy as np

from ..stats.rates.changepoint import RateChanges, rate_changes
from ..stats.rates.fleet_summary import FleetSummary, fleet_summary
from ..stats.rates.priors import per_day_label
from .text import literal, literals

__all__ = ["forest_plot", "rate_changes_plot", "fleet_context"]

_COLOURS = {"fleet": "C0", "rate only": "0.5", "prior": "C2", "cluster": "C3", "posterior": "C1"}


def _axes(ax, figsize=(8, 4.5)):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=figsize)
    return ax


def forest_plot(summary, ax=None):
    """Forest plot of a :class:`FleetSummary` (or a log / count table, summarised first)."""
    if not isinstance(summary, FleetSummary):
        summary = fleet_summary(summary)
    t = summary.forest
    ax = _axes(ax, (8, 0.45 * len(t) + 1.5))
    y = np.arange(len(t))[::-1]
    for yi, r in zip(y, t.itertuples(index=False)):
        colour = _COLOURS.get(r.role, "C0")
        if np.isfinite(r.lo) and np.isfinite(r.hi):
            ax.plot([max(r.lo, 1e-3), r.hi], [yi, yi], color=colour, lw=2)
        ax.plot([r.rate], [yi], "o" if r.role != "prior" else "D", color=colour, ms=6)
    prior = t[t["role"] == "prior"].iloc[0]
    ax.axvspan(prior["lo"], prior["hi"], color=_COLOURS["prior"], alpha=0.08, lw=0)
    ax.set_yticks(y, literals(t["label"]), fontsize="small")
    ax.set_xscale("log")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"interruptions per 1,000 {per_day_label(summary.per)} ({summary.conf:.0%} intervals, log scale)")
    ax.set_title(f"{literal(summary.name)} against published fleets")
    ax.grid(axis="x", alpha=0.3)
    return ax


def rate_changes_plot(changes, ax=None, **kwargs):
    """Binned rate over time (days), the segments' rates with intervals, and change times with intervals.

    ``changes`` is a :class:`RateChanges` or a log (``kwargs`` go to ``rate_changes``).
    """
    if not isinstance(changes, RateChanges):
        changes = rate_changes(changes, **kwargs)
    ax = _axes(ax)
    f = changes._scale()
    edges_d = changes.edges_h / 24
    binned = f * changes.counts / (np.diff(changes.edges_h) * changes.units)
    ax.stairs(binned, edges_d, color="0.75", fill=True, label="per bin")
    for i, s in enumerate(changes.segments.itertuples(index=False)):
        x = [s.start_h / 24, s.end_h / 24]
        ax.fill_between(x, f * s.rate_lo, f * s.rate_hi, color="C0", alpha=0.25, lw=0)
        ax.plot(x, [f * s.rate_per_h] * 2, color="C0", lw=2, label="segment rate" if i == 0 else None)
    for i, (g0, g1) in enumerate(getattr(changes, "gaps_h", ())):  # no records: no rate is drawn
        ax.axvspan(g0 / 24, g1 / 24, color="none", hatch="//", ec="0.5", lw=0,
                   label="no records (gap)" if i == 0 else None)
    for i, (t, lo, hi) in enumerate(zip(changes.change_h, changes.change_lo_h, changes.change_hi_h)):
        ax.axvspan(lo / 24, hi / 24, color="C3", alpha=0.12, lw=0)
        ax.axvline(t / 24, color="C3", ls="--", label="change (with interval)" if i == 0 else None)
    ax.set_xlabel("days from start of window")
    ax.set_ylabel(f"interruptions {changes._unit()}")
    ax.set_title(f"{literal(changes.name)}: rate over time, {changes.n_changes} change{'s' * (changes.n_changes != 1)}")
    ax.legend(fontsize="small", loc="upper left")
    return ax


def fleet_context(log, ax=None, summary=None, **kwargs):
    """Forest plot against the fleets and, for a log, the rate over time with its change points.

    ``ax`` is None (a new figure), one Axes (forest plot only) or a pair of
    Axes.  ``summary`` reuses a :func:`relmodel.stats.fleet_summary` result;
    ``kwargs`` go to it otherwise.  Returns the list of Axes drawn.
    """
    summary = summary if summary is not None else fleet_summary(log, **kwargs)
    n = 2 if summary.changes is not None else 1
    if ax is None:
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(n, 1, figsize=(9, 4 + 0.3 * len(summary.forest) + 3.5 * (n - 1)),
                                 gridspec_kw={"height_ratios": [1.3, 1][:n]}, squeeze=False)
        axes = list(axes[:, 0])
    else:
        axes = list(np.atleast_1d(ax))
    forest_plot(summary, axes[0])
    if summary.changes is not None and len(axes) > 1:
        rate_changes_plot(summary.changes, axes[1])
    if ax is None:
        axes[0].figure.tight_layout()
    return axes
