"""Figures for failure-time data: probability paper, survival, hazard, trends.

Every function takes ``ax=None`` (a new figure is made when it is None) and
returns the matplotlib ``Axes``; nothing is shown or saved.  Fitted models are
duck typed: anything with ``family``, ``params``, ``sf``, ``cdf`` (and ``hazard``
for :func:`hazard_plot`), such as the result of :func:`relmodel.fit`.
"""

import numpy as np
from scipy import special, stats

from ..errors import FitError
from ..stats.survival.nonparam import StepEstimate, as_durations, kaplan_meier
from ..stats.survival.trends import CrowAMSAA, crow_amsaa, event_times
from .axes import default_title, legend_below, plain_log_ticks
from .text import literal

__all__ = [
    "PAPERS",
    "plotting_positions",
    "probability_plot",
    "survival_plot",
    "binned_hazard",
    "hazard_plot",
    "cumulative_failures_plot",
    "cumulative_incidence_plot",
    "mcf_plot",
]

_EPS = 1e-12


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def _clip(f):
    return np.clip(np.asarray(f, float), _EPS, 1 - _EPS)


# family -> (log-scale time axis?, transform of the unreliability F to the paper's y)
PAPERS = {
    "weibull": (True, lambda f, _: np.log(-np.log1p(-_clip(f)))),
    "exponential": (False, lambda f, _: -np.log1p(-_clip(f))),
    "lognormal": (True, lambda f, _: stats.norm.ppf(_clip(f))),
    "loglogistic": (True, lambda f, _: special.logit(_clip(f))),
    "gamma": (False, lambda f, shape: stats.gamma.ppf(_clip(f), shape)),
}


def plotting_positions(data, observed=None, *, method="johnson"):
    """Failure times and their plotting positions (estimates of F(t)).

    ``method="johnson"``: Johnson's adjusted ranks for censored data with
    Benard's median-rank approximation F = (O - 0.3) / (n + 0.4) (Johnson,
    "Theory and Technique of Variation Research", 1964; Abernethy, "The New
    Weibull Handbook", 5th ed., section 2.11).  At tied times failures are
    ranked before censorings.  ``method="km"``: the midpoint of the
    Kaplan-Meier step at each distinct failure time, 1 - (S(t-) + S(t)) / 2.
    Returns ``(hours, F)`` as arrays.

    Examples
    --------
    >>> h, F = plotting_positions([10.0, 20.0, 30.0, 40.0], observed=[True, False, True, True])   # hours
    >>> h.tolist(), F.round(4).tolist()
    ([10.0, 30.0, 40.0], [0.1591, 0.4621, 0.7652])
    """
    d = as_durations(data, observed)
    if d.n_observed == 0:
        raise FitError("no failures to plot: every duration is censored")
    if method == "johnson":
        order = np.lexsort((~d.observed, d.hours))
        h, obs = d.hours[order], d.observed[order]
        n = h.size
        reverse = n - np.arange(n)  # units still on test at each position, this one included
        ratio = np.where(obs, reverse / (reverse + 1.0), 1.0)
        rank = (n + 1) * (1 - np.cumprod(ratio))
        return h[obs], (rank[obs] - 0.3) / (n + 0.4)
    if method == "km":
        km = kaplan_meier(d)
        jump = km.events > 0
        before = np.concatenate([[1.0], km.value[:-1]])
        return km.hours[jump], 1 - (before[jump] + km.value[jump]) / 2
    raise FitError(f"unknown plotting-position method {method!r}; valid methods are 'johnson' and 'km'")


def _paper(family, fit, shape):
    key = str(family).lower()
    if key not in PAPERS:
        raise FitError(f"no probability paper for {family!r}; valid families are {', '.join(PAPERS)}")
    if key == "gamma" and shape is None:
        if fit is None or str(getattr(fit, "family", "")).lower() != "gamma":
            raise FitError("gamma paper needs a shape: pass shape= or fit= a gamma fit")
        shape = float(fit.params["shape"])
    logx, tr = PAPERS[key]
    return key, logx, (lambda f: tr(f, shape))


def _probability_ticks(ax, tr, y):
    probs = np.array([1e-4, 1e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.632, 0.8, 0.9, 0.95, 0.99, 0.999])
    ty = tr(probs)
    lo, hi = np.min(y), np.max(y)
    pad = 0.05 * (hi - lo + 1)
    keep, last = [], -np.inf
    for i in np.flatnonzero((ty >= lo - pad) & (ty <= hi + pad)):
        if ty[i] - last >= 0.045 * (hi - lo + 2 * pad):  # keep labels from overlapping
            keep.append(i)
            last = ty[i]
    ax.set_yticks(ty[keep])
    ax.set_yticklabels([f"{100 * p:g}%" for p in probs[keep]])


def _thin(x, y, max_points):
    """Evenly spaced subset (first and last kept) so huge samples stay quick to draw."""
    if max_points is None or x.size <= max_points:
        return x, y
    idx = np.unique(np.linspace(0, x.size - 1, int(max_points)).round().astype(int))
    return x[idx], y[idx]


def probability_plot(data, family="weibull", fit=None, *, observed=None, positions="johnson",
                     shape=None, max_points=5000, ax=None):
    """Probability plot on a family's paper, with the fitted model overlaid.

    The paper makes the family's CDF a straight line: Weibull plots
    ln(-ln(1 - F)) against log time, lognormal the normal quantile of F,
    loglogistic logit(F), exponential -ln(1 - F) against time, gamma the gamma
    quantile of F (needs ``shape``, or a gamma ``fit``) against time.  Points are
    censoring-aware median ranks (:func:`plotting_positions`); ``fit`` (any
    model with ``cdf``) is drawn over the data's range.  More than
    ``max_points`` points are thinned to that many, evenly spaced in rank.
    Returns the Axes.

    ``data`` in hours.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = probability_plot([10.0, 20.0, 30.0, 40.0, 80.0], "weibull", ax=Figure().subplots())
    >>> ax.get_xscale()
    'log'
    """
    key, logx, tr = _paper(family, fit, shape)
    t, f = _thin(*plotting_positions(data, observed, method=positions), max_points)
    ax = _axes(ax)
    y = tr(f)
    ax.plot(t, y, "o", ms=4, label="data (median ranks)")
    if fit is not None:
        lo, hi = max(t.min() / 2, _EPS), t.max() * 2
        grid = np.geomspace(lo, hi, 200) if logx else np.linspace(0, hi, 200)
        yfit = tr(fit.cdf(grid))
        ax.plot(grid, yfit, "-", label=f"{literal(getattr(fit, 'family', 'fit'))} fit")
        y = np.concatenate([y, yfit[np.isfinite(yfit)]])
    if logx:
        ax.set_xscale("log")
    else:
        from matplotlib.ticker import MaxNLocator
        ax.xaxis.set_major_locator(MaxNLocator(4))  # long hour labels on narrow panels
    _probability_ticks(ax, tr, y[np.isfinite(y)])
    ax.set_xlabel("hours")
    ax.set_ylabel("unreliability F(t)")
    ax.set_title(f"{literal(key)} probability plot")
    ax.legend()
    return plain_log_ticks(ax, 'x')


def _as_list(fits):
    if fits is None:
        return []
    if isinstance(fits, dict):
        return list(fits.values())
    return [fits] if hasattr(fits, "cdf") or hasattr(fits, "hazard") else list(fits)


def _band(ax, est, label, color=None, ci=True):
    (line,) = ax.step(est.hours, est.value, where="post", label=label, color=color)
    if ci:
        ax.fill_between(est.hours, est.lower, est.upper, step="post", alpha=0.25, color=line.get_color(),
                        linewidth=0)
    return line


def survival_plot(data, fits=(), *, observed=None, conf=0.95, ci=True, ax=None):
    """Kaplan-Meier curve with its band, and fitted survival curves overlaid.

    ``data``: durations (see :func:`relmodel.stats.kaplan_meier`) or an existing
    Kaplan-Meier :class:`~relmodel.stats.survival.nonparam.StepEstimate`.  ``fits``: one fitted
    model or a sequence of them (anything with ``sf``).  Returns the Axes.

    ``data`` in hours.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = survival_plot([10.0, 20.0, 30.0, 40.0, 80.0], ax=Figure().subplots())
    >>> ax.get_ylabel()
    'survival S(t)'
    """
    km = data if isinstance(data, StepEstimate) else kaplan_meier(data, observed=observed, conf=conf)
    ax = _axes(ax)
    _band(ax, km, "Kaplan-Meier", ci=ci)
    grid = np.linspace(0, km.hours.max(), 300)
    for fit in _as_list(fits):
        ax.plot(grid, fit.sf(grid), "-", label=f"{literal(getattr(fit, 'family', 'fit'))} fit")
    ax.set_xlabel("hours")
    ax.set_ylabel("survival S(t)")
    ax.set_ylim(0, 1.02)
    ax.set_title("Survival: share of gaps longer than t")
    legend_below(ax, ncol=3, below=0.16)   # inside, it sat on the band and the curves
    return ax


def binned_hazard(data, observed=None, *, bins=20):
    """Empirical hazard: Nelson-Aalen increments over bins divided by the bin widths.

    Bin edges are quantiles of the failure times (``bins`` of them, equal
    numbers of failures per bin).  Returns ``(edges, rate)`` with ``rate[k]``
    the mean hazard (failures per hour) on ``[edges[k], edges[k+1])``.

    Examples
    --------
    >>> edges, rate = binned_hazard([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], bins=2)   # hours
    >>> edges.round(2).tolist(), rate.round(4).tolist()    # failures per hour in each bin
    ([0.0, 4.0, 8.0], [0.1586, 0.5208])
    """
    from ..stats.survival.nonparam import nelson_aalen

    na = nelson_aalen(data, observed=observed)
    failures = na.hours[na.events > 0]
    if failures.size < 2:
        raise FitError("an empirical hazard needs at least two distinct failure times")
    edges = np.unique(np.quantile(np.concatenate([[0.0], failures]), np.linspace(0, 1, int(bins) + 1)))
    return edges, np.diff(na(edges)) / np.diff(edges)


def hazard_plot(fits=(), *, data=None, observed=None, bins=20, hours=None, ax=None):
    """Hazard functions of fitted models (failures per hour) against time.

    ``data`` (durations, with ``observed``) adds the empirical hazard of
    :func:`binned_hazard` as a step line.  ``hours``: the time grid; by default
    up to the data's last failure, or without data the smallest 99th
    percentile of the fits (from ``ppf``).  The time axis runs from 0 to the
    grid's end.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.stats.lifetimes.fitting import fit
    >>> f = fit([10.0, 20.0, 30.0, 40.0, 80.0], "weibull")
    >>> hazard_plot([f], ax=Figure().subplots()).get_ylabel()
    'hazard (failures per hour)'
    """
    from ..units import hours as to_hours

    fits = _as_list(fits)
    if not fits and data is None:
        raise FitError("hazard_plot needs a fitted model or data")
    ax = _axes(ax)
    top = 1000.0
    if data is not None:
        edges, rate = binned_hazard(data, observed, bins=bins)
        ax.step(edges, np.append(rate, rate[-1]), where="post", label="data (binned Nelson-Aalen)")
        top = edges[-1]
    if hours is None and data is None:
        top = min([float(f.ppf(0.99)) for f in fits if hasattr(f, "ppf")] or [top])
    if hours is None:
        grid = np.linspace(top / 500, top, 300)
    else:
        grid = np.asarray(to_hours(hours), float)
    for fit in fits:
        ax.plot(grid, fit.hazard(grid), "-", label=literal(getattr(fit, 'family', 'fit')))
    ax.set_xlim(0.0, float(np.max(grid)))  # the axis stops where the data (or the asked grid) does
    ax.set_yscale("log")  # a falling hazard spans decades: on a linear axis all but its start lies on zero
    plain_log_ticks(ax, "y")
    ax.set_xlabel("hours")
    ax.set_ylabel("hazard (failures per hour)")
    ax.set_title("Hazard: failure rate at each age" + (", to the last failure" if data is not None else ""))
    legend_below(ax, ncol=3, below=0.16)
    return ax


def cumulative_failures_plot(times_or_log, nhpp=None, *, end=None, start=None, loglog=False, ax=None):
    """Cumulative failures against time, with a power-law NHPP fit overlaid.

    ``times_or_log``: an InterruptionLog or event times in hours (see
    :func:`relmodel.stats.survival.trends.event_times`).  ``nhpp``: None for no overlay, True to
    fit Crow-AMSAA here, or a :class:`~relmodel.stats.survival.trends.CrowAMSAA` result.
    ``loglog=True`` uses log axes, where the power law is a straight line.
    Returns the Axes.

    Times in hours.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = cumulative_failures_plot([100.0, 300.0, 500.0, 650.0, 800.0], nhpp=True, end=1000.0, ax=Figure().subplots())
    >>> ax.get_xlabel()
    'hours since start of observation'
    """
    t, T = event_times(times_or_log, end, start=start)
    if t.size == 0:
        raise FitError("no events to plot")
    ax = _axes(ax)
    n = np.arange(1, t.size + 1)
    ax.step(t, n, where="post", label="observed failures")
    if nhpp is True:
        nhpp = crow_amsaa(t, T)
    if getattr(nhpp, "n_systems", 1) > 1:
        raise FitError("the overlay needs a fit of the pooled process (crow_amsaa without node=)")
    if isinstance(nhpp, CrowAMSAA) or hasattr(nhpp, "cumulative"):
        top = T if T is not None else t[-1]
        grid = np.geomspace(t[0] / 2, top, 300) if loglog else np.linspace(0, top, 300)
        ax.plot(grid, nhpp.cumulative(grid), "-", label=f"power-law NHPP, beta = {nhpp.beta:.3g}")
    if loglog:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("hours since start of observation")
    ax.set_ylabel("cumulative failures")
    ax.legend()
    default_title(ax, "Failures over time: a straight line is a steady rate")
    return plain_log_ticks(ax)


def cumulative_incidence_plot(result, *, ci=True, causes=None, ax=None):
    """Cumulative incidence of each cause (a :func:`relmodel.stats.cumulative_incidence` result).

    ``causes`` limits the curves drawn (default all, most frequent first).
    Returns the Axes.

    Times in hours, incidence as a probability.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.stats.survival.nonparam import cumulative_incidence
    >>> ci = cumulative_incidence([1.0, 2.0, 3.0, 4.0], ["gpu", "net", "gpu", None])
    >>> len(cumulative_incidence_plot(ci, ax=Figure().subplots()).get_lines()) >= 2
    True
    """
    ax = _axes(ax)
    for cause in result.causes if causes is None else causes:
        _band(ax, result[cause], literal(cause), ci=ci)
    ax.set_xlabel("hours")
    ax.set_ylabel("cumulative incidence")
    ax.set_ylim(bottom=0)
    ax.legend(title="cause")
    default_title(ax, "Share of units failed by each cause")
    return ax


def mcf_plot(result, *, ci=True, ax=None):
    """Mean cumulative function across systems (a :func:`relmodel.stats.mcf` result), with its band.

    Times in hours; the MCF counts failures per system.  Returns the Axes.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from relmodel.stats.survival.recurrence import mcf
    >>> m = mcf([10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4)
    >>> mcf_plot(m, ax=Figure().subplots()).get_xlabel()
    'hours'
    """
    ax = _axes(ax)
    _band(ax, result, "MCF", ci=ci)
    ax.set_xlabel("hours")
    ax.set_ylabel("mean cumulative failures per system")
    ax.legend()
    default_title(ax, "Mean cumulative failures per unit")
    return ax
