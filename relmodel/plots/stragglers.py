"""Figures for stragglers: step times, slow nodes over time, loss against cluster size, policies.

Each function takes ``ax=None`` (a new figure is made when it is None) and
returns the matplotlib ``Axes``; nothing is shown or saved.
"""

import numpy as np
from .axes import plain_log_ticks
from .text import literal, literals

__all__ = ["step_times_plot", "slow_nodes_plot", "straggler_scaling_plot", "eviction_plot", "straggler_heatmap",
           "whatif_steps_plot"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def step_times_plot(result, *, ax=None):
    """Each step's actual time (its slowest rank) against the typical rank's time, from a ``slowdown()`` result.

    Given a what-if result (:func:`relmodel.stragglers.whatif`) it draws :func:`whatif_steps_plot`.
    """
    if hasattr(result, "step_workers"):
        return whatif_steps_plot(result, ax=ax)
    ax = _axes(ax)
    t = result.per_step
    ax.plot(t["step"], t["actual_s"], lw=0.8, color="tab:red", label="actual step (slowest rank)")
    ax.plot(t["step"], t["typical_s"], lw=0.8, color="tab:blue", label="without stragglers (typical rank)")
    ax.fill_between(t["step"], t["typical_s"], t["actual_s"], color="tab:red", alpha=0.15, lw=0)
    ax.set_xlabel("step")
    ax.set_ylabel("step time (s)")
    ax.set_title(f"Time lost to stragglers: {100 * result.share_lost:.1f}% of the run")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left")
    return ax


def slow_nodes_plot(found, *, top=12, ax=None):
    """Heat map of how much slower than the typical node each node was, window by window.

    Shows the flagged nodes first, then the slowest of the rest, up to ``top`` rows.
    """
    ax = _axes(ax)
    rel = 100 * np.expm1(found.relative)  # windows x nodes, percent slower than typical
    labels = np.asarray(found.tested[found.level])
    flagged = [list(labels).index(x) for x in found.nodes]
    rest = [j for j in np.argsort(-np.median(rel, axis=0)) if j not in flagged]
    rows = (flagged + rest)[:top]
    vmax = max(5.0, float(np.percentile(np.abs(rel), 99.5)))
    steps = np.asarray(found.window_steps)
    im = ax.imshow(rel[:, rows].T, aspect="auto", cmap="RdBu_r", vmin=-vmax, vmax=vmax, interpolation="nearest",
                   extent=(steps[0], steps[-1] + found.window, len(rows) - 0.5, -0.5))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([literal(f"{labels[j]}{' (flagged)' if j in flagged else ''}") for j in rows], fontsize="small")
    ax.set_xlabel("step")
    ax.set_ylabel(literal(found.level))
    ax.set_title(f"How much slower than the typical {literal(found.level)} (%), per window of {found.window:,} steps")
    ax.figure.colorbar(im, ax=ax, label="% slower than typical")
    return ax


def straggler_scaling_plot(curve, *, ax=None):
    """Share of time lost against GPUs in the job (log scale), from :func:`relmodel.stragglers.straggler_scaling`."""
    ax = _axes(ax)
    t = curve.by_size
    ax.semilogx(t["n_gpus"], 100 * t["loss_noise"], marker="o", label="step-time noise only (E[max of N])")
    if curve.fail_slow:
        ax.semilogx(t["n_gpus"], 100 * t["loss_total"], marker="s", label="with fail-slow nodes")
    ax.set_xlabel("GPUs in the job")
    ax.set_ylabel("share of time lost (%)")
    ax.set_title("The slowest GPU sets the pace")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    return plain_log_ticks(ax)


def eviction_plot(plan, *, ax=None):
    """Hours lost per fail-slow event under each policy, from :func:`relmodel.stragglers.eviction_policy`."""
    ax = _axes(ax)
    t = plan.by_policy
    colors = ["tab:green" if p == plan.best else "tab:gray" for p in t["policy"]]
    ax.barh(t["policy"], t["lost_h"], color=colors)
    ax.set_xlabel("wall time lost per fail-slow event (h)")
    ax.set_title("Eviction policies (best in green)")
    ax.invert_yaxis()
    ax.grid(True, axis="x", alpha=0.3)
    return ax


def straggler_heatmap(result, *, vmax=None, ax=None):
    """Steps x workers: how much each worker alone slows each step, from :func:`relmodel.stragglers.whatif`.

    A worker's value in a step is the smaller of its DP rank's and its
    stage's slowdown in that step (each simulated with only that group at its
    recorded times, Lin et al., OSDI 2025); 1 means no slower than the
    straggler-free step.
    """
    ax = _axes(ax)
    grid = result.step_workers
    vals = grid.to_numpy().T  # workers x steps
    top = vmax if vmax is not None else max(1.05, float(np.percentile(vals, 99.5)))
    im = ax.imshow(vals, aspect="auto", cmap="Reds", vmin=1.0, vmax=top, interpolation="nearest")
    n_w, n_s = vals.shape
    if n_w <= 40:
        ax.set_yticks(range(n_w))
        ax.set_yticklabels(literals(grid.columns), fontsize="small")
    ax.set_ylabel("worker")
    ticks = np.unique(np.linspace(0, n_s - 1, min(n_s, 10)).round().astype(int))
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{s:,}" for s in grid.index[ticks]], fontsize="small")
    ax.set_xlabel("step (as recorded)")
    ax.set_title(f"Slowdown each worker alone causes, per step (job slowdown {result.factor:.2f})")
    ax.figure.colorbar(im, ax=ax, label="slowdown (1 = none)")
    return ax


def whatif_steps_plot(result, *, ax=None):
    """Each step's simulated time against the straggler-free step, from :func:`relmodel.stragglers.whatif`."""
    ax = _axes(ax)
    t = result.per_step
    x = np.arange(len(t))
    ax.plot(x, t["simulated_s"], marker="o", ms=3, lw=0.8, color="tab:red", label="as recorded (simulated)")
    ax.axhline(result.ideal_s, color="tab:blue", lw=1, label="every operation at its typical time")
    ax.fill_between(x, result.ideal_s, t["simulated_s"], color="tab:red", alpha=0.15, lw=0)
    ticks = np.unique(np.linspace(0, len(t) - 1, min(len(t), 10)).round().astype(int))
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{s:,}" for s in t["step"].to_numpy()[ticks]], fontsize="small")
    ax.set_xlabel("step (as recorded)")
    ax.set_ylabel("step time (s)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Stragglers slow each step {result.factor:.2f} times on average")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    return ax
