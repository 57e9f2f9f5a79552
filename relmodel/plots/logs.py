"""What an interruption log holds: causes (Pareto), timeline, repair times.

Table functions return DataFrames; plot functions take ``ax=None`` and return
the Axes. They accept an :class:`~relmodel.data.shaping.logs.InterruptionLog`; the cause
functions also accept a :class:`~relmodel.data.shaping.counts.CountTable` (counts by
component, such as the Llama 3 table).
"""

import numpy as np
import pandas as pd

from ..errors import MissingColumnError, EmptyDataError
from .axes import default_title, plain_log_ticks
from .text import literal, literals

__all__ = ["plot_rates", 
    "cause_counts",
    "repair_summary",
    "plot_pareto",
    "plot_timeline",
    "plot_cumulative",
    "plot_repair_times",
]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt
        ax = plt.figure(figsize=(8, 4)).add_subplot()
    return ax


def _cause_column(log, column):
    cols = list(log.cause_columns)
    if column is None:
        if not cols:
            raise MissingColumnError(f"{log.name}: the log has no cause column; "
                                     "read it with read_log(..., cause=COLUMN)")
        return cols[1] if len(cols) > 1 else cols[0]
    if column not in log.events.columns:
        raise MissingColumnError(f"{log.name}: no column {column!r}; cause columns are {cols}")
    return column


def cause_counts(source, column=None, include_planned=False):
    """Interruptions per cause, most frequent first, with share and cumulative share.

    ``source`` is an InterruptionLog (``column`` picks the cause column; default
    the second one, e.g. Class, else the first) or a CountTable (by component).
    Returns a DataFrame: cause, count, share, cum_share.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> top = cause_counts(llama3_54day()).iloc[0]
    >>> top["cause"], int(top["count"]), round(float(top["share"]), 3)
    ('Faulty GPU', 148, 0.353)
    """
    if hasattr(source, "counts") and hasattr(source, "duration_h"):
        counts = source.counts.groupby("component", sort=False)["count"].sum()
    else:
        col = _cause_column(source, column)
        ev = source.interruptions(include_planned)
        counts = ev[col].fillna("(unknown)").astype(str).value_counts()
    counts = counts.sort_values(ascending=False, kind="stable")
    total = counts.sum()
    if total == 0:
        raise EmptyDataError("no interruptions to count")
    share = counts.to_numpy() / total
    return pd.DataFrame({"cause": counts.index.astype(str), "count": counts.to_numpy().astype(int),
                         "share": share, "cum_share": np.cumsum(share)})


def repair_summary(log, column=None):
    """Repair times (hours) per cause: count, median, mean, 90th percentile, max.

    Uses outages with a known end; the last row, "All", covers every cause.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> s = repair_summary(stepfun())
    >>> s.iloc[-1, 0]
    'All'
    """
    col = _cause_column(log, column)
    ev = log.events.dropna(subset=["end_h"])
    if ev.empty:
        raise EmptyDataError(f"{log.name}: no outage has a known end, so no repair times")
    rep = (ev["end_h"] - ev["start_h"]).rename("repair_h")
    groups = pd.concat([ev[col].fillna("(unknown)").astype(str), rep], axis=1)
    stats = lambda g: pd.Series({"count": len(g), "median_h": g.median(), "mean_h": g.mean(),
                                 "p90_h": g.quantile(0.9), "max_h": g.max()})
    table = groups.groupby(col)["repair_h"].apply(stats).unstack().sort_values("count", ascending=False)
    table.loc["All"] = stats(rep)
    table["count"] = table["count"].astype(int)
    return table.rename_axis("cause").reset_index()


def plot_pareto(source, column=None, top=10, ax=None):
    """Pareto chart: bars of interruptions per cause, line of cumulative share.

    The ``top`` most frequent causes are drawn; the rest are pooled as "other".

    ``source`` is an InterruptionLog or CountTable; bars count interruptions.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> ax = plot_pareto(llama3_54day(), top=5, ax=Figure().subplots())
    >>> len(ax.patches)                 # five causes and "other"
    6
    """
    table = cause_counts(source, column)
    if len(table) > top:
        rest = table.iloc[top:]["count"].sum()
        table = pd.concat([table.iloc[:top], pd.DataFrame({"cause": ["other"], "count": [rest]})])
        table["cum_share"] = table["count"].cumsum() / table["count"].sum()
    ax = _axes(ax)
    x = np.arange(len(table))
    ax.bar(x, table["count"], color="C0")
    ax.set_xticks(x, literals(table["cause"]), rotation=40, ha="right", fontsize="small")
    ax.set_ylabel("interruptions")
    twin = ax.twinx()
    twin.plot(x, 100 * table["cum_share"].to_numpy(), "o-", color="C3")
    twin.set_ylim(0, 105)
    twin.set_ylabel("cumulative share (%)")
    ax.set_title(literal(getattr(source, "name", "causes")))
    return ax


def _days(log, hours_):
    return np.asarray(hours_, float) / 24.0


def plot_timeline(log, column=None, ax=None):
    """Each outage as a point: time (days) against node, coloured by cause (against cause, for a log of one system).

    Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> plot_timeline(stepfun(), ax=Figure().subplots()).get_xlabel()
    'days from start of window'
    """
    col = _cause_column(log, column)
    ev = log.events
    if ev.empty:
        raise EmptyDataError(f"{log.name}: no outages to draw")
    ax = _axes(ax)
    causes = ev[col].fillna("(unknown)").astype(str)
    top = list(causes.value_counts().index[:9])
    by_cause = ev["node"].nunique() < 2     # one system (a Slurm job's log): a row per cause, not all on node 0
    if by_cause:
        rows = {c: i for i, c in enumerate(top + ["other"])}
        y = causes.where(causes.isin(top), "other").map(rows)
    else:
        nodes = {n: i for i, n in enumerate(pd.unique(ev.sort_values("start_h")["node"]))}
        y = ev["node"].map(nodes)
    for k, cause in enumerate(top):
        sel = causes == cause
        ax.scatter(_days(log, ev.loc[sel, "start_h"]), y[sel], s=10, color=f"C{k}", label=literal(cause))
    other = ~causes.isin(top)
    if other.any():
        ax.scatter(_days(log, ev.loc[other, "start_h"]), y[other], s=10, color="0.6", label="other")
    ax.set_xlabel("days from start of window")
    if by_cause:
        shown = [c for c in rows if (causes.where(causes.isin(top), "other") == c).any()]
        ax.set_yticks([rows[c] for c in shown], literals(shown), fontsize="small")
        ax.set_ylim(-0.7, max(rows[c] for c in shown) + 0.7)
        ax.set_ylabel("cause")
    else:
        ax.set_ylabel("node (in order of first outage)")
        ax.legend(fontsize="small", markerscale=1.5, loc="upper left", ncols=2)
    ax.set_title(f"{literal(log.name)}: outages over time")
    return ax


def plot_cumulative(log, include_planned=False, ax=None):
    """Cumulative number of interruptions against time, with the constant-rate line.

    Time in days.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> plot_cumulative(stepfun(), ax=Figure().subplots()).get_xlabel()
    'days from start of window'
    """
    starts = np.sort(log.interruptions(include_planned)["start_h"].to_numpy())
    if starts.size == 0:
        raise EmptyDataError(f"{log.name}: no interruptions to draw")
    ax = _axes(ax)
    t0, t1 = log.window_h
    ax.step(_days(log, np.r_[t0, starts, t1]), np.r_[0, np.arange(1, starts.size + 1), starts.size],
            where="post", label="observed")
    ax.plot(_days(log, [t0, t1]), [0, starts.size], "--", color="0.4", label="constant rate")
    ax.set_xlabel("days from start of window")
    ax.set_ylabel("interruptions so far")
    ax.legend()
    default_title(ax, "Interruptions over time")
    return ax


def plot_repair_times(log, ax=None, bins=30):
    """Histogram of repair times (hours, log scale) with the median marked.

    Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> plot_repair_times(stepfun(), ax=Figure().subplots()).get_xscale()
    'log'
    """
    rep = log.downtimes().hours
    rep = rep[rep > 0]
    if rep.size == 0:
        raise EmptyDataError(f"{log.name}: no positive repair times to draw")
    ax = _axes(ax)
    edges = np.logspace(np.log10(rep.min()), np.log10(rep.max()), bins + 1)
    ax.hist(rep, bins=edges, color="C2")
    ax.set_xscale("log")
    med = float(np.median(rep))
    ax.axvline(med, color="k", ls="--", label=f"median {med:.1f} h")
    ax.set_xlabel("repair time (hours)")
    ax.set_ylabel("outages")
    ax.legend()
    default_title(ax, "Repair times")
    return plain_log_ticks(ax)


def plot_rates(rates, top=10, per="node-year", ax=None):
    """Rate per cause with its exact (Garwood) interval, largest first, as horizontal bars.

    ``rates`` is :func:`relmodel.stats.component_rates` output (rate_per_h, rate_lo,
    rate_hi per hour and unit); rates are drawn per ``per`` ("node-year" or
    "node-day").  Causes past ``top`` are left out (the title says how many).
    Returns the Axes.

    Examples
    --------
    >>> import relmodel
    >>> from matplotlib.figure import Figure
    >>> rates = relmodel.stats.component_rates(relmodel.datasets.llama3_54day(), per="node")
    >>> ax = plot_rates(rates, top=3, ax=Figure().subplots())
    >>> len(ax.patches), ax.get_xlabel()
    (3, 'interruptions per node-year (95% exact interval)')
    """
    scale = {"node-year": 8766.0, "node-day": 24.0}[per]
    t = rates[rates["component"].astype(str) != "Total"].sort_values("rate_per_h", ascending=False)
    shown = t.head(int(top)).iloc[::-1]
    ax = _axes(ax)
    y = np.arange(len(shown))
    r = scale * shown["rate_per_h"].to_numpy()
    err = [r - scale * shown["rate_lo"].to_numpy(), scale * shown["rate_hi"].to_numpy() - r]
    ax.barh(y, r, color="C0", alpha=0.7)
    ax.errorbar(r, y, xerr=err, fmt="none", ecolor="k", capsize=3, lw=1)
    ax.set_yticks(y, literals(shown["component"].astype(str)))
    ax.set_xlabel(f"interruptions per {per} (95% exact interval)")
    more = f" ({len(t) - len(shown)} rarer causes not shown)" if len(t) > len(shown) else ""
    ax.set_title("Failure rate by cause" + more)
    ax.grid(axis="x", alpha=0.3)
    return ax
