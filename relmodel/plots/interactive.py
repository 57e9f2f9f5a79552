"""A what-if dashboard: cluster size, checkpoint cost, restart time, target ETTR.

:func:`dashboard` draws a static figure for one set of values (what a
rendered report shows); :func:`controls` wraps it in ipywidgets sliders that
redraw it live in JupyterLab. Observed rates are the Llama 3 counts (Meta
2024, arXiv 2407.21783, Table 5) scaled to the cluster size with
:func:`relmodel.scale.clusters.scaling.scale_rates`, unless another ``source`` is given.
"""

from functools import lru_cache

import numpy as np

from ..checkpoint.intervals import ettr, optimal_interval
from ..defaults import CKPT_COST, N_GPUS, RESTART, TARGET_ETTR
from ..tables import duration, hours_text
from ..units import hours
from .axes import legend_below, plain_log_ticks
from .text import literal

__all__ = ["what_if", "dashboard", "dashboard_image", "controls", "GPU_CHOICES"]

#: Cluster sizes offered by the slider.
GPU_CHOICES = tuple(2 ** k for k in range(10, 19))


@lru_cache(maxsize=64)
def _scaled(n_gpus, source_key):
    from ..data.bundled import datasets
    from ..scale.clusters.scaling import scale_rates
    source = datasets.llama3_54day() if source_key is None else _SOURCES[source_key]
    scaled = scale_rates(source, target_cluster=int(n_gpus), n_boot=1, seed=0)
    return scaled.job_mtbf_h, scaled.rate_of("job"), scaled.target.n_nodes


_SOURCES = {}


def _key(source):
    if source is None:
        return None
    _SOURCES[id(source)] = source
    return id(source)


def what_if(n_gpus=N_GPUS, ckpt_cost=CKPT_COST, restart=RESTART, target_ettr=TARGET_ETTR, source=None):
    """The dashboard's numbers as a dict: job MTBF, optimal interval, ETTR, required node MTBF.

    Required node MTBF is NaN when the per-job causes alone miss the target.

    ``n_gpus`` GPUs; ``ckpt_cost`` and ``restart`` durations; MTBFs and the interval in hours, ETTR a fraction.

    Examples
    --------
    >>> nums = what_if(16_384, "1min", "10min", 0.9)
    >>> round(nums["job_mtbf_h"], 3), round(nums["ettr"], 3), round(nums["required_node_mtbf_h"])
    (3.093, 0.853, 16595)
    """
    from ..scale.targets.requirements import required_node_mtbf
    from ..errors import InfeasibleTargetError
    mtbf, fixed, n_nodes = _scaled(int(n_gpus), _key(source))
    tau = float(optimal_interval(mtbf=mtbf, ckpt_cost=ckpt_cost))
    try:
        node = required_node_mtbf(n_gpus, target_ettr, ckpt_cost, restart,
                                  gpus_per_node=int(n_gpus) / n_nodes,
                                  fixed_rate_per_h=fixed)
    except InfeasibleTargetError:
        node = float("nan")
    return {"job_mtbf_h": mtbf, "optimal_interval_h": tau,
            "ettr": float(ettr(interval=tau, mtbf=mtbf, ckpt_cost=ckpt_cost, restart=restart)),
            "required_node_mtbf_h": node,
            "observed_node_mtbf_h": n_nodes / (1.0 / mtbf - fixed) if 1.0 / mtbf > fixed else np.inf}


def _ettr_panel(ax, nums, ckpt_cost, restart, target_ettr):
    m, tau = nums["job_mtbf_h"], nums["optimal_interval_h"]
    grid = np.geomspace(max(tau / 30, 1e-3), tau * 30, 300)
    ax.plot(grid * 60, 100 * ettr(interval=grid, mtbf=m, ckpt_cost=ckpt_cost, restart=restart), color="C0")
    ax.plot(tau * 60, 100 * nums["ettr"], "o", color="C3", label=f"optimum {duration(tau)}")
    ax.axhline(100 * target_ettr, color="0.4", ls="--", label=f"target {100 * target_ettr:.3g}%")
    ax.set_xscale("log")
    ax.set_xlabel("checkpoint interval (minutes)")
    ax.set_ylabel("ETTR (%)")
    ax.set_title(f"job MTBF {duration(m)}: best ETTR {100 * nums['ettr']:.1f}% (exponential formula)", fontsize=10)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    plain_log_ticks(ax)


def _requirement_panel(ax, n_gpus, ckpt_cost, restart, target_ettr, source, nums):
    sizes = np.unique(np.r_[np.geomspace(1024, 262144, 25).round(), n_gpus]).astype(int)
    points = [what_if(n, ckpt_cost, restart, target_ettr, source) for n in sizes]
    need = np.array([p["required_node_mtbf_h"] for p in points], dtype=float)
    have = np.array([p["observed_node_mtbf_h"] for p in points], dtype=float)
    name = "Llama 3's rates" if source is None else f"the rates of {literal(getattr(source, 'name', 'the data'))}"
    ax.plot(sizes, need, color="C3", label="node MTBF needed")
    ax.plot(sizes, have, color="C0", ls="--", label=f"today, at {name}")
    need_now = nums["required_node_mtbf_h"]
    if np.isfinite(need_now):
        ax.plot(n_gpus, need_now, "o", color="C3")
        ax.set_title(f"at {n_gpus:,} GPUs the nodes need an MTBF of {hours_text(need_now)}", fontsize=10)
    else:
        ax.set_title(f"at {n_gpus:,} GPUs an ETTR of {100 * target_ettr:.3g}% is out of reach", fontsize=10)
    if not np.isfinite(need).any():
        ax.text(0.03, 0.95, f"An ETTR of {100 * target_ettr:.3g}% is out of reach at every size:\nper-job causes alone "
                "cap ETTR below the target", transform=ax.transAxes, fontsize=9, va="top",
                bbox={"facecolor": "#fdf6e3", "edgecolor": "#c98a00"})
    ax.set_xscale("log")
    ax.set_yscale("log")
    shown = np.r_[need[np.isfinite(need)], have[np.isfinite(have)]]
    if shown.size:  # at least two decades, so a near-flat line is not drawn as a cliff
        mid = np.sqrt(shown.min() * shown.max())
        span = max(shown.max() / shown.min(), 100.0)
        ax.set_ylim(mid / np.sqrt(span) / 1.5, mid * np.sqrt(span) * 1.5)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("node MTBF (hours)")
    legend_below(ax, below=0.17)   # the needed line runs from the lower left: a legend inside hid it
    ax.grid(alpha=0.3, which="both")
    plain_log_ticks(ax)


def dashboard(n_gpus=N_GPUS, ckpt_cost=CKPT_COST, restart=RESTART, target_ettr=TARGET_ETTR, source=None):
    """A matplotlib Figure: ETTR against interval, and required node MTBF against size.

    ``source`` is a CountTable or InterruptionLog of observed rates (default:
    the Llama 3 counts). Durations take anything :func:`relmodel.units.hours` does.

    Returns a ``matplotlib.figure.Figure`` (intervals in minutes, MTBF in hours).

    Examples
    --------
    >>> fig = dashboard(16_384, "1min", "10min", 0.9)
    >>> len(fig.axes), fig.axes[1].get_ylabel()
    (2, 'node MTBF (hours)')
    """
    from matplotlib.figure import Figure
    ckpt_cost, restart = hours(ckpt_cost), hours(restart)
    nums = what_if(n_gpus, ckpt_cost, restart, target_ettr, source)
    fig = Figure(figsize=(11, 4.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    _ettr_panel(left, nums, ckpt_cost, restart, target_ettr)
    _requirement_panel(right, int(n_gpus), ckpt_cost, restart, target_ettr, source, nums)
    fig.suptitle(f"{int(n_gpus):,} GPUs, checkpoint {duration(ckpt_cost)}, "
                 f"restart {duration(restart, digits=3)}, target ETTR {100 * target_ettr:.3g}%", fontsize=11)
    return fig


def dashboard_image(n_gpus=N_GPUS, ckpt_cost=CKPT_COST, restart=RESTART, target_ettr=TARGET_ETTR, source=None):
    """:func:`dashboard` drawn once into a PNG, as an ``IPython.display.Image`` (its ``data`` is the PNG).

    Arguments as for :func:`dashboard`: ``n_gpus`` GPUs, ``ckpt_cost`` and
    ``restart`` durations, ``target_ettr`` a fraction. A page that shows it and
    then :func:`controls` passes it on as ``image=``, so the figure is drawn
    once, not once for the page and once for the widget.

    Examples
    --------
    >>> picture = dashboard_image(16_384, "1min", "10min", 0.9)
    >>> picture.data[:4], picture.format
    (b'\\x89PNG', 'png')
    """
    from IPython.display import Image

    return Image(data=_png(dashboard(n_gpus, ckpt_cost, restart, target_ettr, source)), format="png")


def _png(fig):
    from .legible import figure_png
    return figure_png(fig, dpi=90, bbox_inches=None)


def controls(n_gpus=N_GPUS, ckpt_cost=CKPT_COST, restart=RESTART, target_ettr=TARGET_ETTR, source=None,
             image=None):
    """ipywidgets sliders that redraw :func:`dashboard` live; returns the widget box.

    The figure is an ``ipywidgets.Image`` redrawn when a slider moves (no
    Output widget), so the box also executes cleanly under Papermill.
    ``image`` is the dashboard already drawn for these values (what
    :func:`dashboard_image` returns, or its PNG bytes): the widget starts from
    it instead of drawing the dashboard again.

    Sliders: GPUs, checkpoint cost (minutes), restart (minutes), target ETTR (a fraction).

    Examples
    --------
    >>> box = controls(16_384, "1min", "10min", 0.9)
    >>> slider, image = box.children[0].children[0], box.children[2]
    >>> before = image.value
    >>> slider.value = 65_536                 # what JupyterLab does when the slider moves
    >>> image.value != before                # the figure was redrawn
    True
    """
    import ipywidgets as w

    style = {"description_width": "9em"}
    layout = w.Layout(width="28em")
    sliders = {
        "n_gpus": w.SelectionSlider(options=sorted(set(GPU_CHOICES) | {int(n_gpus)}), value=int(n_gpus),
                                    description="GPUs", style=style, layout=layout,
                                    continuous_update=False),
        "ckpt_min": w.FloatLogSlider(value=max(hours(ckpt_cost) * 60, 0.01), base=10, min=-1, max=2,
                                     step=0.05, description="checkpoint (min)", style=style,
                                     layout=layout, continuous_update=False),
        "restart_min": w.FloatSlider(value=hours(restart) * 60, min=0, max=120, step=1,
                                     description="restart (min)", style=style, layout=layout,
                                     continuous_update=False),
        "target": w.FloatSlider(value=target_ettr, min=0.5, max=0.99, step=0.01,
                                description="target ETTR", style=style, layout=layout,
                                continuous_update=False),
    }
    view = w.Image(format="png", layout=w.Layout(width="100%"))

    def redraw(change=None):
        v = {name: s.value for name, s in sliders.items()}
        view.value = _png(dashboard(v["n_gpus"], v["ckpt_min"] / 60, v["restart_min"] / 60,
                                     v["target"], source))

    for slider in sliders.values():
        slider.observe(redraw, names="value")
    if image is None:
        redraw()
    else:
        view.value = bytes(getattr(image, "data", image))
    return w.VBox([w.HBox([sliders["n_gpus"], sliders["ckpt_min"]]),
                   w.HBox([sliders["restart_min"], sliders["target"]]), view])
