"""Figures for scaling: required MTBF against cluster size, interruptions by cause group.

Each function takes ``ax=None`` (a new figure is made when it is None) and
returns the matplotlib ``Axes``; nothing is shown or saved.
"""

import itertools

import numpy as np

from ..defaults import GPUS_PER_NODE, RESTART, TARGET_ETTR
from ..scale.targets.requirements import cost_list, requirements_table
from ..units import hours
from .axes import legend_below, plain_log_ticks
from .text import literal

__all__ = ["required_mtbf_plot", "interruptions_plot", "spares_plot"]

_PER = {"node": "node_mtbf_h", "gpu": "gpu_mtbf_h", "job": "job_mtbf_h"}


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def _minutes(h):
    """A cost for a legend, to three digits: "30 s", "1 min", "40.6 min"."""
    m = 60.0 * float(h)
    return f"{m:.3g} min" if m >= 1 else f"{60 * m:.3g} s"


def _span(hours_by_size):
    """A cost or restart over the plotted sizes: one value, or "a to b" when it grows with the GPUs."""
    first, last = _minutes(hours_by_size.iloc[0]), _minutes(hours_by_size.iloc[-1])
    return first if first == last else f"{first} to {last}"


def required_mtbf_plot(n_gpus=None, target_ettr=TARGET_ETTR, ckpt_costs=("30s", "1min", "5min"),
                       restarts=(RESTART,), per="node", gpus_per_node=GPUS_PER_NODE, fixed_rate_per_h=None, *,
                       source=None, observed=None, ax=None):
    """Log-log plot of the required MTBF (per node, GPU or job) from 1k to 1M GPUs.

    One line per (checkpoint cost, restart) pair, computed by
    :func:`relmodel.scale.targets.requirements.requirements_table`; sizes where the target is
    out of reach are left out of a line, and a line out of reach at every size
    is named in a note on the axes instead.  As there, one of
    ``fixed_rate_per_h`` or ``source`` says which per-job rate is held; the
    title says it.  ``observed`` is an optional ``(n_gpus, mtbf_h)`` point:
    today's MTBF, marked for comparison.

    MTBF in hours against GPUs.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = required_mtbf_plot([1_000, 10_000, 100_000], ckpt_costs=["1min"], fixed_rate_per_h=0, ax=Figure().subplots())
    >>> ax.get_lines()[0].get_ydata().round().tolist()      # node MTBF (hours) at each size
    [727.0, 7267.0, 72667.0]
    """
    from ..errors import ModelInputError
    if per not in _PER:
        raise ModelInputError(f"per must be one of {', '.join(_PER)}; got {per!r}")
    n = np.unique(np.logspace(3, 6, 31).round()) if n_gpus is None else np.asarray(n_gpus)
    ax = _axes(ax)
    missing, table = [], None
    for d0, r0 in itertools.product(cost_list(ckpt_costs), cost_list(restarts)):
        # one line per input pair: a cost or restart that depends on the size (hours_at) stays one line
        table = requirements_table(n, target_ettr, [d0], [r0], gpus_per_node, fixed_rate_per_h, source=source)
        g = table[table["feasible"]]
        label = f"checkpoint {_span(table['ckpt_cost_h'])}, restart {_span(table['restart_h'])}"
        if g.empty:
            missing.append(label)
            ax.plot([], [], marker=".", label=label + ": out of reach")
            continue
        ax.loglog(g["n_gpus"], g[_PER[per]], marker=".", label=label)
    if observed is not None and observed[1] is not None and np.isfinite(observed[1]):
        ax.plot([observed[0]], [observed[1]], "k*", ms=11, label=f"today's {per} MTBF at {int(observed[0]):,} GPUs")
    ax.set_xscale("log")
    ax.set_yscale("log")
    if missing:
        ax.text(0.98, 0.04, "Out of reach at every size (per-job causes cap ETTR):\n" + "\n".join(missing),
                transform=ax.transAxes, fontsize="small", va="bottom", ha="right",
                bbox={"facecolor": "#fdf6e3", "edgecolor": "#c98a00"})
    ax.set_xlabel("GPUs in the job")
    ax.set_ylabel(f"required {per} MTBF (h)")
    title = f"MTBF for an ETTR of {100 * target_ettr:.3g}% at the optimal checkpoint interval"
    title += f"\n{literal(table.attrs['assumption'])}"
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return plain_log_ticks(ax)


def interruptions_plot(source, n_gpus=None, *, source_cluster=None, units=None, ax=None):
    """Expected interruptions per day against cluster size, stacked by what the causes scale with.

    ``source`` is a CountTable, InterruptionLog or per-job rates table
    (with ``source_cluster``); rates are scaled by :func:`relmodel.scale.clusters.scaling.scale_rates`.

    ``n_gpus`` are GPU counts.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> interruptions_plot(llama3_54day(), [16_384, 100_000], ax=Figure().subplots()).get_ylabel()
    'expected interruptions per day'
    """
    from ..scale.clusters.scaling import cluster_of, scale_rates
    src = cluster_of(source if source_cluster is None else source_cluster)
    n = np.unique(np.logspace(3, 6, 16).round()) if n_gpus is None else np.asarray(n_gpus)
    per_unit = {}
    for size in n:
        t = scale_rates(source, src, int(size), units=units, n_boot=1, seed=0).by_cause
        for unit, rate in t.groupby("scales_with", sort=False)["rate_per_h"].sum().items():
            per_unit.setdefault(unit, []).append(24.0 * rate)
    ax = _axes(ax)
    ax.stackplot(n, *per_unit.values(), labels=[literal(f"per {u}") for u in per_unit], alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("GPUs in the job")
    ax.set_ylabel("expected interruptions per day")
    ax.set_title(f"{literal(src.name)} rates scaled by component counts")
    ax.legend(loc="upper left", fontsize="small")
    return plain_log_ticks(ax)


def spares_plot(pool, n_spares, target=0.01, ax=None):
    """Chance that a node failure finds no spare free, and ETTR, against the pool size.

    ``pool`` is the table of :func:`relmodel.scale.sparing.spares.spares_table`
    (columns spares, p_no_spare_poisson, ettr); the chosen ``n_spares`` and
    the ``target`` chance are marked.
    Returns the Axes (pool size in nodes against probability and ETTR).

    Examples
    --------
    >>> import pandas as pd
    >>> from matplotlib.figure import Figure
    >>> pool = pd.DataFrame({"spares": [0, 1, 2, 3], "p_no_spare_poisson": [1.0, 0.3, 0.05, 0.005],
    ...                      "ettr": [0.80, 0.84, 0.85, 0.85]})
    >>> ax = spares_plot(pool, 3, ax=Figure().subplots())
    >>> ax.get_xlabel()
    'spare nodes in the pool'
    """
    ax = _axes(ax)
    x = pool["spares"].to_numpy()
    ax.plot(x, pool["p_no_spare_poisson"], "o-", color="C3", label="chance a failure finds no spare free")
    ax.axhline(target, color="C3", ls=":", lw=1, label=f"acceptable chance ({100 * target:g}%)")
    ax.axvline(n_spares, color="0.3", ls="--", lw=1, label=f"chosen: {n_spares} spares")
    ax.set_xlabel("spare nodes in the pool")
    ax.set_ylabel("chance a failure finds no spare", color="C3")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    right = ax.twinx()
    right.plot(x, 100 * pool["ettr"], "s-", color="C0", label="ETTR")
    right.set_ylabel("ETTR (%)", color="C0")
    lo = float(np.nanmin(100 * pool["ettr"]))
    right.set_ylim(max(0.0, lo - 5), 100)
    lines = ax.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    legend_below(ax, below=0.15, handles=lines)   # below: inside, it sat on the ETTR line
    ax.set_title("Spare pool: waits for repair against ETTR")
    return ax
