"""Figures for checkpoint intervals and goodput.  Each takes ``ax=None`` and returns the Axes."""

import numpy as np

from ..checkpoint.intervals import daly_interval, ettr, optimal_interval, young_interval
from ..defaults import RESTART
from ..tables import duration, pct
from ..units import hours
from .axes import default_title, legend_below, plain_log_ticks
from .text import literal

__all__ = ["plot_ettr_curve", "plot_simulated_ettr", "plot_breakdown", "plot_interval_search",
           "plot_two_level"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    return ax


def plot_ettr_curve(mtbf, ckpt_cost, restart=RESTART, *, ax=None, span=8.0, label=None, target=None):
    """ETTR against checkpoint interval (log axis) with Young, Daly and exact marked.

    ``mtbf``, ``ckpt_cost`` and ``restart`` are durations; the x axis is in minutes, ETTR in percent.
    ``target`` (a fraction, e.g. 0.9) draws the target ETTR as a dashed line, inside the axis even when
    the curve stays below it.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = plot_ettr_curve("3h", "45s", "10min", ax=Figure().subplots())
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('checkpoint interval (minutes)', 'ETTR (%)')
    """
    ax = _axes(ax)
    m, d, r = hours(mtbf), hours(ckpt_cost), hours(restart)
    best = float(optimal_interval(m, d))
    taus = np.geomspace(best / span, min(best * span, 50 * m), 400)
    ax.plot(taus * 60, 100 * ettr(taus, m, d, r), color="C0",
            label=literal(label) if label else
            f"job MTBF {duration(m)}, checkpoint {duration(d)}, restart {duration(r, digits=3)}")  # as the text says
    marks = (("Young", young_interval(m, d), "C1", "o", 11), ("Daly", daly_interval(m, d), "C2", "s", 8),
             ("exact", best, "C3", "*", 9))
    for name, tau, color, marker, size in marks:
        e = float(ettr(tau, m, d, r))
        ax.plot([float(tau) * 60], [100 * e], marker=marker, color=color, linestyle="none", markersize=size,
                markerfacecolor="none" if name != "exact" else color, markeredgewidth=1.5,
                label=f"{name}: {duration(float(tau))}, ETTR {pct(e)}")
    if target is not None:
        ax.axhline(100 * float(target), color="0.3", ls="--", lw=1, label=f"target ETTR {pct(float(target))}")
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, max(hi, 100 * float(target) + 0.05 * (hi - lo)))
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval (minutes)")
    ax.set_ylabel("ETTR (%)")
    ax.set_title("ETTR against checkpoint interval")
    legend_below(ax)
    return plain_log_ticks(ax)


def plot_simulated_ettr(result, *, exact=None, ax=None, bins=50):
    """Histogram of per-replica ETTR from :func:`relmodel.simulate_training`.

    Marks the simulated ETTR (work / mean wall time) with its 99% interval
    and ``exact`` (e.g. :func:`relmodel.ettr`) when given; for exponential
    failures the exact value is computed when ``exact`` is None.

    ETTR in percent.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.checkpoint import simulate_training
    >>> s = simulate_training("3d", "16min", "3h", "45s", "10min", n_runs=200, seed=1)
    >>> plot_simulated_ettr(s, ax=Figure().subplots()).get_xlabel()
    'ETTR of a run (%)'
    """
    ax = _axes(ax)
    per = 100 * result.ettr_per_replica
    ax.hist(per, bins=bins, color="C0", alpha=0.6, label=f"{result.n_runs} simulated runs")
    lo, hi = result.ettr_ci(0.99)
    ax.axvspan(100 * lo, 100 * hi, color="C1", alpha=0.3)
    ax.axvline(100 * result.ettr, color="C1", label=f"simulated {pct(result.ettr)} (99% band)")
    if exact is None and result.source.startswith("exponential"):
        exact = ettr(result.interval_h, result.mtbf_h, result.ckpt_cost_h, result.restart_h)
    if exact is not None:
        ax.axvline(100 * float(exact), color="C3", linestyle="--", label=f"exact {pct(float(exact))}")
    ax.set_xlabel("ETTR of a run (%)")
    ax.set_ylabel("runs")
    ax.legend(fontsize="small")
    default_title(ax, "ETTR of each simulated run")
    return ax


def plot_breakdown(frame, *, ax=None, title="Where the wall time goes"):
    """Horizontal stacked bar of where wall time goes.

    ``frame`` is the ``to_frame()`` of a :class:`relmodel.checkpoint.TimeBreakdown`
    (scalar inputs) or the ``breakdown()`` of a simulation result; ``title`` says which, when it matters.

    Shares of the wall time in percent.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.checkpoint import time_breakdown
    >>> ax = plot_breakdown(time_breakdown("30d", "16min", "3h", "45s", "10min").to_frame(), ax=Figure().subplots())
    >>> len(ax.patches)                  # useful, checkpoint writes, lost work, restarts
    4
    """
    ax = _axes(ax)
    parts = frame[frame["part"] != "total"]
    left = 0.0
    for i, row in enumerate(parts.itertuples()):
        w = 100 * row.share
        ax.barh([0], [w], left=left, height=0.5, color=f"C{i}", label=f"{row.part}: {pct(row.share)}")
        left += w
    ax.set_xlim(0, 100)
    ax.set_yticks([])
    ax.set_xlabel("share of wall time (%)")
    ax.set_title(literal(title))
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2)
    return ax


def plot_interval_search(search, *, ax=None):
    """Simulated ETTR against interval from :func:`relmodel.checkpoint.best_interval`, with the exponential answer.

    Intervals in minutes, ETTR in percent.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.checkpoint import best_interval
    >>> res = best_interval("3h", "45s", "10min", n_runs=100, grid=5, work="100h", seed=1)
    >>> plot_interval_search(res, ax=Figure().subplots()).get_xscale()
    'log'
    """
    ax = _axes(ax)
    c = search.curve
    x = 60 * c["interval_h"]
    ax.fill_between(x, 100 * c["lo"], 100 * c["hi"], color="C0", alpha=0.25)
    ax.plot(x, 100 * c["ettr"], color="C0", marker=".", label=f"simulated ({literal(search.source)})")
    model = ettr(c["interval_h"].to_numpy(), search.mtbf_h, search.ckpt_cost_h, search.restart_h)
    ax.plot(x, 100 * model, color="gray", linestyle=":", label="exponential model, same mean")
    ax.axvline(60 * search.interval_h, color="C3", label=f"simulated best {duration(search.interval_h)}")
    ax.axvline(60 * search.exp_interval_h, color="C2", linestyle="--",
               label=f"exponential optimum {duration(search.exp_interval_h)}")
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval (minutes)")
    ax.set_ylabel("ETTR (%)")
    ax.set_title("Simulated ETTR against checkpoint interval")
    legend_below(ax, below=0.2)   # inside, it sat on the curve and the two interval lines
    return plain_log_ticks(ax)


def plot_two_level(plan, fast_cost, slow_cost, fast_restart=RESTART, slow_restart=RESTART, *, ks=None, ax=None):
    """ETTR against the fast interval for several k, from a :func:`relmodel.checkpoint.two_level_optimum` plan.

    One curve per k (slow checkpoint every k fast ones; the plan's k among
    them), the optimum marked, and the slow-level-only optimum as a line.

    ``fast_cost``, ``slow_cost`` and the restarts are durations; intervals in minutes, ETTR in percent.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.checkpoint import two_level_optimum
    >>> plan = two_level_optimum("3h", "5s", "2min", "2min", "10min", fast_fraction=0.8)
    >>> ax = plot_two_level(plan, "5s", "2min", "2min", "10min", ax=Figure().subplots())
    >>> ax.get_xlabel()
    'fast checkpoint interval (minutes)'
    """
    from ..checkpoint.multilevel import two_level_ettr
    ax = _axes(ax)
    ks = sorted(set(ks or {1, max(plan.k // 2, 1), plan.k, 2 * plan.k}))
    taus = plan.fast_interval_h * np.geomspace(0.1, 10, 300)
    args = (plan.mtbf_h, fast_cost, slow_cost, fast_restart, slow_restart)
    for i, k in enumerate(ks):
        e = two_level_ettr(taus, *args, k=k, fast_fraction=plan.fast_fraction)
        ax.plot(taus * 60, 100 * e, color=f"C{i}", label=f"k = {k}")
    ax.plot([60 * plan.fast_interval_h], [100 * plan.ettr], "k*", markersize=10,
            label=f"best: every {60 * plan.fast_interval_h:.3g} min, k = {plan.k}")
    ax.axhline(100 * plan.single_level_ettr, color="gray", linestyle="--",
               label=f"slow level only {100 * plan.single_level_ettr:.2f}%")
    ax.set_xscale("log")
    ax.set_xlabel("fast checkpoint interval (minutes)")
    ax.set_ylabel("ETTR (%)")
    ax.legend(fontsize="small")
    default_title(ax, "Two-level checkpoints: ETTR against the fast interval")
    return plain_log_ticks(ax)
