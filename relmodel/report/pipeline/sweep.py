"""Parameter sweeps: the comparison page over the runs of a swept plan.

``render(sweep={"n_gpus": [16384, 65536], "ckpt_cost": ["30s", "2min"]})``
plans one run per combination of values (the cross product, see
:func:`.plan.plan`) of the notebooks that take a swept parameter, into
``<out>/n_gpus-16384_ckpt_cost-30s/`` and so on; the run step executes every
(combination, notebook) pair on the one executor and writes each run as a
report of its own.  This module is the sweep's index step,
:func:`write_index`: ``<out>/index.html``, a table of the headline numbers of
every combination and small multiples (one panel per headline number against
the first swept parameter, one line per combination of the others), and
``<out>/summary.json``.  Values equal after normalisation (``1 min`` and
``1  min``, ``4096`` and ``4096.0``) are refused when the plan is made.
"""


from ...plots.text import literal
from .execute import execute  # noqa: F401 (kept importable here)
from ..kernels.executors import run_tasks  # noqa: F401 (kept importable here)
from ..safety.folders import marker, write_bytes, write_text
from ..blocks.markup import HEADLINE
from .plan import combinations, parse_sweep  # noqa: F401 (re-exported)
from ..parameters.rules import DURATIONS, normalise
from .store import write_summary
from .sweep_page import parameter_label

__all__ = ["parse_sweep", "combinations", "comparison_figure", "write_index"]


def _x(name, value):
    key = normalise(name, value)
    return key[1] if key[0] in ("h", "n") else literal(value)  # a category is drawn as its tick label


#: Axis label and scale of each headline number in the comparison figure.
_AXIS = {"job_mtbf_h": ("hours", 1.0), "optimal_interval_h": ("minutes", 60.0), "ettr": ("ETTR (%)", 100.0),
         "required_node_mtbf_h": ("hours", 1.0), "design_ettr": ("ETTR (%)", 100.0),
         "design_goodput_per_gpu": ("goodput per GPU bought", 1.0)}


#: Text sizes of the comparison figure: drawn at 100 dpi up to 13.8 in wide, it is shown at 960 px, about 0.7
#: of its pixels, so its smallest text (11 pt) still comes to 10 px on the page.
COMPARISON_STYLE = {"font.size": 13, "axes.titlesize": 11, "axes.labelsize": 13, "xtick.labelsize": 12,
                    "ytick.labelsize": 12, "legend.fontsize": 11}


def comparison_figure(names, rows):
    """A matplotlib Figure: one panel per headline number against the first swept parameter."""
    import matplotlib

    with matplotlib.rc_context(COMPARISON_STYLE):  # text sizes are fixed as each artist is made
        return _comparison_figure(names, rows)


def _comparison_figure(names, rows):
    from matplotlib.figure import Figure

    from ...plots.axes import plain_log_ticks

    names = [names] if isinstance(names, str) else list(names)
    # a panel per number (None: out of reach, said on the panel); text values get none
    keys = [k for k in _keys(rows)
            if any(k in r["headline"] and isinstance(r["headline"][k], (int, float, type(None))) for r in rows)]
    ncols = min(3, max(len(keys), 1))
    nrows = -(-max(len(keys), 1) // ncols)
    width, height = 4.6 * ncols, 3.3 * nrows
    fig = Figure(figsize=(width, height))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    # fixed margins in inches (tick labels, rotated x labels, axis labels, titles): a constrained
    # layout measures every label by drawing it, which doubled the time to draw the page
    gap_w, gap_h = 1.3, 1.5  # room for "5,000,000" and the label beside it; for rotated ticks, label, title
    panel_w = (width - 1.3 - 0.15 - gap_w * (ncols - 1)) / ncols
    panel_h = (height - 0.95 - 0.5 - gap_h * (nrows - 1)) / nrows
    fig.subplots_adjust(left=1.3 / width, right=1 - 0.15 / width, bottom=0.95 / height, top=1 - 0.5 / height,
                        wspace=gap_w / panel_w, hspace=gap_h / panel_h)
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    first, others = names[0], names[1:]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(str(r["values"][n]) for n in others), []).append(r)
    for ax, key in zip(axes, keys):
        ylabel, scale = _AXIS.get(key, (HEADLINE.get(key, key.replace("_", " ")), 1.0))
        ax.set_title(HEADLINE.get(key, key.replace("_", " ")))
        if not any(isinstance(r["headline"].get(key), (int, float)) for r in rows):
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(0.5, 0.5, "out of reach at every value\n(per-job causes cap ETTR)", ha="center",
                    va="center", transform=ax.transAxes)
            continue
        for label, members in groups.items():
            pts = [(_x(first, r["values"][first]), scale * r["headline"][key]) for r in members
                   if isinstance(r["headline"].get(key), (int, float))]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                        label=literal(", ".join(f"{parameter_label(n)}: {v}" for n, v in zip(others, label))) or None)
        gone = [", ".join(f"{n}={r['values'][n]}" for n in names) for r in rows
                if key in r["headline"] and r["headline"][key] is None]
        if gone:
            ax.text(0.02, 0.96, literal("out of reach at " + "; ".join(gone)), transform=ax.transAxes, fontsize=11,
                    va="top", wrap=True, bbox={"facecolor": "#fdf6e3", "edgecolor": "#c98a00"})
        ys = [r["headline"][key] for r in rows if isinstance(r["headline"].get(key), (int, float))]
        if ys and min(ys) > 0 and max(ys) / min(ys) > 20:
            ax.set_yscale("log")
        xs = [_x(first, r["values"][first]) for r in rows]
        if all(isinstance(x, (int, float)) for x in xs) and min(xs) > 0 and max(xs) / min(xs) > 20:
            ax.set_xscale("log")
        plain_log_ticks(ax, rotate=True)  # log axes labelled 1,000 and 0.5, never 10^3
        ax.set_xlabel(parameter_label(first) + (" (hours)" if first in DURATIONS else ""))
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if others and key == keys[0] and groups and any(ax.get_lines()):
            ax.legend()
    return fig


def _keys(rows):
    return [k for k in HEADLINE if any(k in r["headline"] for r in rows)]  # ranges and sources are not panels


def _png(fig):
    from ...plots.legible import figure_png  # its smallest text's size written in the PNG
    return figure_png(fig, dpi=100, bbox_inches=None)


def _comparison_page(names, rows, folder, params=None):
    from .sweep_page import sweep_page

    write_bytes(folder / "comparison.png", _png(comparison_figure(names, rows)))
    return sweep_page(names, rows, params)


def write_index(names, rows, params, folder):
    """Write the sweep's comparison.png, index.html and summary.json into ``folder``.

    ``rows`` hold, per run, its swept ``values``, ``value`` (of the first swept
    name), ``folder``, ``headline``, ``reasons``, merged ``records``, ``answers``,
    ``error`` and ``status``, taken from the runs' summaries as they were written.
    """
    runs = [{k: r[k] for k in ("values", "value", "folder", "headline", "reasons", "error")} for r in rows]
    partial = any(r["error"] for r in rows)
    summary = {"sweep": list(names), "parameters": params, "runs": runs,
               "status": "partial" if partial else "complete", "relmodel": marker("complete")}
    write_text(folder / "index.html", _comparison_page(names, rows, folder, params))
    write_summary(folder, summary)
