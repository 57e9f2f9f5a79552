"""Figures for regression and group comparisons: forest plot, group survival curves, curve bands.

Functions take ``ax=None`` and return the matplotlib ``Axes``; nothing is shown.
"""

import numpy as np

from .text import literal
from .axes import default_title

__all__ = ["forest_plot", "group_survival_plot", "band_plot"]


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


#: Ratios a forest plot may label, sparsest set first: the first giving three or more inside the axis is used.
_RATIO_TICKS = ((0.1, 1.0), (0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
                (0.5, 0.75, 1.0, 1.5, 2.0), (0.8, 0.9, 1.0, 1.1, 1.25))


def _ratio_ticks(lo, hi):
    """Ratios to label on a log axis from ``lo`` to ``hi``: the sparsest of :data:`_RATIO_TICKS` giving three.

    Examples
    --------
    >>> _ratio_ticks(0.6, 2.6), _ratio_ticks(0.3, 5), _ratio_ticks(0.9, 1.1)
    ([0.75, 1.0, 1.5, 2.0], [0.5, 1.0, 2.0, 5.0], [0.9, 1.0, 1.1])
    >>> _ratio_ticks(0.001, 1000)
    [0.001, 0.01, 0.1, 1.0, 10.0, 100.0, 1000.0]
    """
    ticks = []
    for subs in _RATIO_TICKS:
        ticks = sorted({round(m * 10.0 ** k, 12) for k in range(-6, 7) for m in subs if lo <= m * 10.0 ** k <= hi})
        if len(ticks) >= 3:
            break
    return ticks


def forest_plot(result, ax=None):
    """Ratios of a :func:`relmodel.stats.regress` result with their intervals, on a log axis.

    One row per coefficient, labelled ``covariate = level (vs reference)``;
    the dashed line at 1 is "no effect".  Draws on ``ax`` (a new figure when
    None) and returns the matplotlib Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from relmodel.stats.regression import regress
    >>> df = pd.DataFrame({"duration_h": [12.0, 30, 45, 60, 80, 95, 110, 150, 200, 260,
    ...                                   5, 9, 14, 22, 28, 35, 41, 55, 70, 90], "hot": [0] * 10 + [1] * 10})
    >>> ax = forest_plot(regress(df, ["hot"]))
    >>> ax.get_title(), [t.get_text() for t in ax.get_yticklabels()], ax.get_xscale()
    ('cox: right of 1 fails sooner', ['hot'], 'log')
    >>> import matplotlib.pyplot as plt; plt.close(ax.figure)
    """
    ax = _axes(ax)
    t = result.coefficients
    y = np.arange(len(t))[::-1]
    labels = [literal(c if lv is None else f"{c} = {lv} (vs {ref})") for c, lv, ref in zip(t["covariate"], t["level"],
                                                                                  t["reference"])]
    ratio, lo, hi = (t[k].to_numpy(float) for k in ("ratio", "lower", "upper"))
    ax.errorbar(ratio, y, xerr=[ratio - lo, hi - ratio], fmt="o", color="C0", capsize=3)
    ax.axvline(1.0, color="0.5", ls="--", lw=1)
    ax.set_xscale("log")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    ax.xaxis.set_major_locator(FixedLocator(_ratio_ticks(*ax.get_xlim())))  # several labelled ratios, not one
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_xlabel(f"{literal(result.ratio_name)} ({100 * result.conf:g}% interval)")
    side = "fails sooner" if result.model == "cox" else "lasts longer"
    ax.set_title(f"{literal(result.model)}: right of 1 {side}")
    return ax


def group_survival_plot(comparison, ax=None):
    """Kaplan-Meier curves of each group of a :func:`relmodel.stats.compare_groups` result.

    Survival probability against hours, one step line per group; draws on
    ``ax`` (a new figure when None) and returns the matplotlib Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from relmodel.stats.survival.group_tests import compare_groups
    >>> df = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 3, 4, 6, 9, 11],
    ...                    "observed": [1, 1, 1, 0, 1, 1, 1, 1, 1, 0], "fleet": list("aaaaabbbbb")})
    >>> ax = group_survival_plot(compare_groups(df, "fleet"))
    >>> len(ax.lines), [t.get_text() for t in ax.get_legend().get_texts()], ax.get_xlabel()
    (2, ['a (n = 5)', 'b (n = 5)'], 'hours')
    >>> import matplotlib.pyplot as plt; plt.close(ax.figure)
    """
    ax = _axes(ax)
    for name, km in comparison.curves.items():
        ax.step(km.hours, km.value, where="post", label=literal(f"{name} (n = {km.n:,})"))
    ax.set_xlabel("hours")
    ax.set_ylabel("survival")
    ax.set_ylim(0, 1.02)
    ax.legend(title=literal(comparison.by))
    default_title(ax, "Survival of each group")
    return ax


def band_plot(band, ax=None, label=None):
    """A fitted curve with its pointwise band (a :func:`relmodel.stats.curve_band` result).

    The curve is plotted against hours with its band shaded; ``label`` names
    the curve in the legend.  Draws on ``ax`` (a new figure when None) and
    returns the matplotlib Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from relmodel.stats.lifetimes.bands import curve_band
    >>> from relmodel.stats.lifetimes.fitting import fit
    >>> r = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])   # hours
    >>> ax = band_plot(curve_band(r, [1, 10, 20, 40, 60]))
    >>> len(ax.lines), ax.get_legend_handles_labels()[1]
    (1, ['weibull survival', '95% band'])
    >>> import matplotlib.pyplot as plt; plt.close(ax.figure)
    """
    ax = _axes(ax)
    label = literal(label or f"{band.family} {band.quantity}")
    line, = ax.plot(band.hours, band.estimate, label=label)
    ax.fill_between(band.hours, band.lower, band.upper, color=line.get_color(), alpha=0.2,
                    label=f"{100 * band.conf:g}% band")
    ax.set_xlabel("hours")
    ax.set_ylabel(literal(band.quantity))
    ax.legend()
    default_title(ax, "Fitted curve with its band")
    return ax
