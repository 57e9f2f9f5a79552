"""Figures for designs: transceiver requirements against cluster size, designs side by side.

Each function takes ``ax=None`` (a new figure is made when it is None) and
returns the matplotlib ``Axes``; nothing is shown or saved.
"""

import numpy as np

from ..scale.targets.optics import optics_requirements
from .axes import legend_below, plain_log_ticks, plain_number
from .text import literal, literals

__all__ = ["optics_plot", "designs_plot", "swings_plot", "fit_text"]

_YEAR = 8766.0


def _years_to_fit(years):
    """MTBF in years to FIT (failures per 10^9 device-hours), and back (the map is its own inverse)."""
    years = np.asarray(years, dtype=float)
    with np.errstate(divide="ignore"):
        return 1e9 / (np.where(years > 0, years, np.nan) * _YEAR)


def fit_text(mtbf_h):
    """An MTBF in hours as a vendor quotes it: FIT and annualised failure rate (8,766 h / MTBF, as on the index),
    e.g. ``'1,141 FIT, AFR 1%'``.

    Examples
    --------
    >>> fit_text(876_600)          # 100 years
    '1,141 FIT, AFR 1%'
    >>> fit_text(105_184 * 8766)   # 105,184 years
    '1.1 FIT, AFR 0.00095%'
    """
    fit, afr = 1e9 / float(mtbf_h), _YEAR / float(mtbf_h)   # failures a year, as the vendor decision says it
    return (f"{fit:,.0f}" if fit >= 100 else f"{fit:.2g}") + f" FIT, AFR {100 * afr:.2g}%"


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def optics_plot(requirements=None, *, sizes=None, target_ettr=0.9, ckpt_cost="1min", restart="10min", share=0.1,
                ax=None):
    """Log-log plot of the MTBF each transceiver needs, from 1k to 1M GPUs, per fabric and tier count.

    ``requirements`` is an :class:`relmodel.scale.targets.optics.OpticsRequirements`;
    without it one is computed over ``sizes`` (default 31 sizes from 10^3 to
    10^6).  Dotted lines mark published field rates for comparison.
    """
    if requirements is None:
        sizes = np.unique(np.logspace(3, 6, 31).round().astype(int)) if sizes is None else sizes
        requirements = optics_requirements(sizes, target_ettr=target_ettr, ckpt_cost=ckpt_cost, restart=restart,
                                           share=share)
    ax = _axes(ax)
    t = requirements.rows
    styles = {"rail": "-", "fat-tree": "--"}
    for i, ((fabric, tiers), g) in enumerate(t.groupby(["fabric", "tiers"], sort=False)):
        g = g[g["fits"]]
        ax.loglog(g["n_gpus"], g["mtbf_h"] / _YEAR, styles.get(fabric, "-"), marker=".", lw=max(3.5 - i, 1.2),
                  label=literal(f"{fabric}, {tiers} tiers"))
    for color, row in zip(("0.35", "0.6"), requirements.field.itertuples()):
        # named in the legend, under the axes: a label on the line was crossed by the rising curves
        ax.axhline(row.mtbf_h / _YEAR, color=color, ls=":", lw=1.2,
                   label=f"{literal(row.what)} ({row.mtbf_h / _YEAR:,.0f} years, {fit_text(row.mtbf_h)})")
    ax.set_xlabel("GPUs in the job")
    ax.set_ylabel("MTBF each transceiver needs (years)")
    # vendors quote FIT (failures per 10^9 device-hours): the same requirement on the right-hand axis
    fit = ax.secondary_yaxis("right", functions=(_years_to_fit, _years_to_fit))
    fit.set_ylabel("at most this many FIT (failures per 10⁹ h)")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    fit.yaxis.set_major_locator(LogLocator(base=10))
    fit.yaxis.set_major_formatter(FuncFormatter(plain_number))  # 1,000 FIT, never 10³ in mathtext
    fit.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title(f"Optics for ETTR {requirements.target_ettr:g}, transceivers taking "
                 f"{requirements.share:.0%} of the failure budget")
    ax.grid(True, which="both", alpha=0.3)
    legend_below(ax, below=0.16)
    return plain_log_ticks(ax)


def designs_plot(comparison, ax=None):
    """Bars of ETTR (with its interval) and goodput per GPU bought for each design of a comparison."""
    ax = _axes(ax)
    t = comparison.by_design
    y = np.arange(len(t))
    err = 100 * np.vstack([t["ettr"] - t["ettr_lo"], t["ettr_hi"] - t["ettr"]])
    ettr = ax.barh(y + 0.2, 100 * t["ettr"], height=0.4, xerr=err, label="ETTR (share of time training)",
                   color="tab:blue")
    goodput = ax.barh(y - 0.2, 100 * t["goodput_per_gpu"], height=0.4, label="goodput per GPU bought",
                      color="tab:orange")
    # each bar says its value, past the end of its whisker; an empty one says why it is empty
    for b, hi in zip(ettr, 100 * t["ettr_hi"].to_numpy(float)):
        if np.isfinite(b.get_width()):
            end = max(b.get_width(), hi) if np.isfinite(hi) else b.get_width()
            ax.annotate(_bar_text(b.get_width()), (end, b.get_y() + b.get_height() / 2), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize="small")
    ax.bar_label(goodput, labels=[_bar_text(b.get_width()) for b in goodput], padding=4, fontsize="small")
    for bars in (ettr, goodput):
        for b in bars:  # bar_label leaves a bar without a value blank: say so at the axis
            if not np.isfinite(b.get_width()):
                ax.annotate(_bar_text(b.get_width()), (0.0, b.get_y() + b.get_height() / 2), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize="small")
    target = 100 * comparison.target_ettr
    ax.axvline(target, color="0.3", ls="--", lw=1, label=f"target ETTR {target:g}%")
    ax.set_yticks(y, literals(t["design"]))
    ax.set_ylim(len(t) - 0.5, -0.5)  # first design on top; a design with no value keeps its row
    ax.set_xlim(0.0, 100.0)  # bars start at zero, so their lengths compare
    ax.set_xlabel("percent")
    ax.set_title("Designs: ETTR and goodput per GPU bought")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    return ax


def _bar_text(percent):
    """A bar's value label: ``'84%'``, or ``'0% (never trains)'`` for an empty bar, ``'not reached'`` for none."""
    if not np.isfinite(percent):
        return "not reached"
    return f"{percent:.0f}%" + (" (never trains)" if percent < 0.5 else "")


def swings_plot(swings, ax=None):
    """Tornado plot of a :class:`relmodel.scale.design.design_swings.DesignSwings`: goodput per GPU bought of the
    page's best design with each assumption at its low and high end, widest swing on top; a hatched bar marks
    an assumption whose ends name different best designs."""
    ax = _axes(ax)
    f = swings.frame.iloc[::-1].reset_index(drop=True)
    base = 100 * swings.base_goodput
    for i, r in f.iterrows():
        lo, hi = 100 * r["goodput_low"], 100 * r["goodput_high"]
        hatch = "//" if r["decides"] else None
        ax.barh(i, lo - base, left=base, color="#4c72b0", hatch=hatch, edgecolor="white")
        ax.barh(i, hi - base, left=base, color="#dd8452", hatch=hatch, edgecolor="white")
    ax.axvline(base, color="black", lw=1)
    ax.set_yticks(range(len(f)))
    ax.set_yticklabels([f"{a}\n({lo} to {hi})" for a, lo, hi in zip(f["assumption"], f["low"], f["high"])])
    ax.set_xlabel(f"Goodput per GPU bought of {swings.base_best} (%)")
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color="#4c72b0", label="low end"), Patch(color="#dd8452", label="high end")],
              loc="lower right", frameon=False)
    ax.set_title("Which assumption moves the answer (hatched: the best design changes)")
    return ax
