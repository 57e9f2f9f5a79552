"""Figures of forecasts checked against what happened: calibration, and one log's held-out path.

:func:`calibration_plot` draws the coverage of the predictive intervals against their
nominal level (a :class:`~relmodel.checkpoint.forecast_check.ForecastCheck`);
:func:`held_out_plot` draws a log's cumulative failures beside the band its first
part forecast for the rest.  :func:`self_check` gives the report index its sentence
and figure.  May import every lower layer and matplotlib.
"""

import numpy as np
from scipy import stats

from ..checkpoint.forecast_check import forecast_check, held_out_path
from .axes import default_title

__all__ = ["calibration_plot", "held_out_plot", "self_check"]


def new_axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(7, 4.5))
    return ax


def calibration_plot(check, levels=None, quantity=None, ax=None):
    """Coverage of ``check``'s intervals against their nominal level, with the 90% binomial band of a calibrated one.

    ``levels``: nominal levels (fractions); ``quantity`` keeps one quantity.  Returns the Axes.

    Examples
    --------
    >>> import relmodel
    >>> check = relmodel.checkpoint.forecast_check([relmodel.datasets.stepfun()], seed=0)
    >>> calibration_plot(check).get_xlabel()
    'Nominal level of the range (%)'
    """
    ax = new_axes(ax)
    levels = np.linspace(0.1, 0.95, 18) if levels is None else np.asarray(levels, float)
    cov = check.coverage_at(levels, quantity=quantity)
    n = int(cov["forecasts"].iloc[0]) if len(cov) else 0
    if n:
        lo, hi = stats.binom.ppf([0.05, 0.95], n, levels[:, None]).T / n
        ax.fill_between(100 * levels, 100 * lo, 100 * hi, color="0.85", label=f"calibrated, {n:,} forecasts (90%)")
    ax.plot([0, 100], [0, 100], color="0.5", lw=1)
    ax.plot(100 * cov["level"], 100 * cov["coverage"], "o-", color="C0", label="held what happened")
    ax.set(xlim=(0, 100), ylim=(0, 100), xlabel="Nominal level of the range (%)",
           ylabel="Share of forecasts inside (%)", title="Forecasts against what happened next")
    ax.legend(loc="upper left", frameon=False)
    default_title(ax, "Do the intervals cover what they claim?")
    return ax


def held_out_plot(source, *, split=0.7, conf=0.9, seed=None, ax=None):
    """Cumulative failures of ``source`` and the ``conf`` band its first ``split`` forecast for the rest.

    The x axis is in days from the window's start.  Returns the Axes.

    Examples
    --------
    >>> import relmodel
    >>> held_out_plot(relmodel.datasets.stepfun(), seed=0).get_ylabel()
    'Failures so far'
    """
    ax = new_axes(ax)
    path = held_out_path(source, split=split, conf=conf, seed=seed)
    days = path["t_h"] / 24
    ax.step(days, path["observed"], where="post", color="k", label="failures that happened")
    ax.fill_between(days, path["lo"], path["hi"], color="C0", alpha=0.25, label=f"forecast, {conf:.0%} range")
    ax.plot(days, path["forecast"], color="C0", lw=1)
    ax.axvline(days[path["forecast"].notna()].min(), color="0.5", ls=":")
    ax.set(xlabel="Days from the start of the log", ylabel="Failures so far",
           title=f"Fitted on the first {split:.0%}, forecast the rest")
    ax.legend(loc="upper left", frameon=False)
    default_title(ax, "Forecast against the held-out part of the log")
    return ax


def self_check(source, *, split=0.7, conf=0.9, seed=None, ax=None):
    """The report index's "how well this log forecasts itself": (one sentence, the Axes of its figure).

    Examples
    --------
    >>> import relmodel
    >>> sentence, ax = self_check(relmodel.datasets.stepfun(), seed=0)
    >>> sentence.startswith("Fitted on the first 70% of its window")
    True
    """
    check = forecast_check(source, split=split, conf=conf, quantities=("failures",), seed=seed)
    return check.text(), held_out_plot(source, split=split, conf=conf, seed=seed, ax=ax)
