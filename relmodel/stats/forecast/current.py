"""The failure rate at the end of a log's window ("today's rate"), and what it forecasts.

:func:`current_rate` pools a log's unplanned interruptions into one process (the job's,
or the cluster's), fits the rate models the window supports (:mod:`.models`: a constant
rate, the Crow-AMSAA power law read at the window's end, and the rate since the latest
change point that leaves the minimum evidence) and weighs them by how well each forecast
the later parts of the window from the earlier (:mod:`.weights`: leave-future-out
predictive scores, pseudo-BMA+ weights).  Today's rate is the weighted mean of the
models' rates at the window's end; its interval, and :meth:`CurrentRate.forecast` of the
failures in the next ``horizon`` hours, come from the weighted mixture of the models'
predictive distributions, each with its parameter uncertainty.

"Today" rests on a trend only with at least :data:`~.models.MIN_TREND` failures in the window,
and on the stretch after a change only when it holds :data:`~.models.MIN_EVENTS` failures and
:data:`~.models.MIN_SHARE` of the window; the result's ``today_window`` says which
stretch each model used and why.
"""

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ...errors import FitError
from ...tables import Result, interval, number, pct, per_day
from ...units import hours
from ..survival.nonparam import interruptions
from ..survival.trends import trend
from .models import MIN_EVENTS, MIN_SHARE, MIN_TREND, Component, fit_models
from .weights import BLOCK, ORIGINS, lfo_scores, pseudo_bma_plus

__all__ = ["CurrentRate", "CountForecast", "current_rate", "MIN_EVENTS", "MIN_SHARE", "MIN_TREND"]

MODELS = ("constant", "power law", "log-linear", "change point")


@dataclass(frozen=True)
class CountForecast(Result):
    """Failures to expect in the ``horizon_h`` hours after the window: mean and ``conf`` predictive interval."""

    horizon_h: float
    mean: float
    lo: float
    hi: float
    conf: float
    model: str
    draws: np.ndarray = field(repr=False, compare=False, default=None)

    def quantiles(self, levels):
        """Central predictive intervals (lo, hi) at each level, from the same draws."""
        levels = np.atleast_1d(np.asarray(levels, float))
        lo = np.quantile(self.draws, (1 - levels) / 2, method="inverted_cdf")
        hi = np.quantile(self.draws, (1 + levels) / 2, method="inverted_cdf")
        return lo, hi

    def pit(self, observed, rng):
        """Randomised probability integral transform of an observed count (uniform when calibrated)."""
        below = np.mean(self.draws < observed)
        at = np.mean(self.draws == observed)
        return float(below + rng.uniform() * at)

    def to_frame(self):
        return pd.DataFrame([{"horizon_h": self.horizon_h, "mean": self.mean, "lo": self.lo, "hi": self.hi,
                              "conf": self.conf, "model": self.model}])

    def text(self):
        return (f"{number(self.mean)} failures expected in the next {number(self.horizon_h / 24)} days "
                f"({self.conf:.0%} range {interval(self.lo, self.hi, fmt=number)}; {self.model} rate).")


@dataclass(frozen=True)
class CurrentRate(Result):
    """The rate at the window's end (failures per hour, pooled over the log), the models behind it and why.

    ``rate_per_h`` with its ``conf`` interval ``lo_per_h``..``hi_per_h`` (the weighted mixture of
    the models' rates, parameter uncertainty included); ``average_per_h`` is the window's average
    (events over window); ``weights`` pairs each model the window supports ("constant",
    "power law", "change point") with its weight; ``model`` is the heaviest, and ``beta`` (its
    power-law shape, 1 otherwise), ``since_h`` (where the stretch it rests on starts, hours from
    the window start), ``n_used``, ``dispersion`` and ``drift`` are its; ``reason`` says how the
    models were weighed, ``today_window`` which stretch of the window each rests on and why;
    ``n`` the events in the window.  :meth:`forecast` adds the noise of the count to the mixture:
    Poisson, or ``dispersion`` times it for failures that come in bursts; ``drift`` (spread of
    the log rate between successive eighths of the window) widens a model whose rate has moved.
    ``trend_p`` holds the MIL-HDBK-189 and Laplace p-values, for the record (empty when too few
    failures to test).
    """

    rate_per_h: float
    lo_per_h: float
    hi_per_h: float
    average_per_h: float
    model: str
    reason: str
    conf: float
    n: int
    n_used: int
    window_h: tuple
    since_h: float
    beta: float = 1.0
    n_nodes: int = 1
    name: str = "log"
    dispersion: float = 1.0
    drift: float = 0.0
    trend_p: tuple = ()
    weights: tuple = ()
    today_window: str = ""
    components: tuple = field(default=(), repr=False, compare=False)

    @property
    def mtbf_h(self):
        """Hours between failures today, 1 / rate (infinite when the rate is 0)."""
        return float(np.inf) if self.rate_per_h <= 0 else 1 / self.rate_per_h

    def _parts(self):
        if self.components:
            return self.components
        length = self.window_h[1] - self.window_h[0]
        return (Component(self.model, self.n_used, self.since_h, length, self.beta, self.dispersion, self.drift),)

    def expected_draws(self, horizons_h, n_draws=4000, seed=None):
        """Draws of the expected failures in (end, end + h] for each ``h`` hours: shape (n_draws, len(horizons)).

        Each draw comes from one model, chosen with its weight.  ``seed``: an int, a numpy
        Generator, or None for fresh entropy.
        """
        rng = np.random.default_rng(seed)
        parts = self._parts()
        k = rng.multinomial(n_draws, _normalised([c.weight for c in parts]))
        out = np.concatenate([c.expected_draws(horizons_h, int(m), rng) for c, m in zip(parts, k)])
        return out[rng.permutation(n_draws)]

    def count_draws(self, horizons_h, n_draws=4000, seed=None):
        """Draws of the failures in (end, end + h] for each ``h`` hours (the expected count, then the noise).

        The noise is Poisson, or gamma-mixed Poisson with variance ``dispersion`` times the mean
        when the model's fitted part was overdispersed (failures that come in bursts).
        """
        rng = np.random.default_rng(seed)
        parts = self._parts()
        k = rng.multinomial(n_draws, _normalised([c.weight for c in parts]))
        chunks = []
        for c, m in zip(parts, k):
            mean = c.expected_draws(horizons_h, int(m), rng)
            if not np.all(mean <= 1e15):  # numpy's Poisson stops near 1e19; a stretch this short forecasts nothing
                raise FitError("the fitted part of the window is too short to forecast from (it would expect more "
                               "than 1e15 failures); fit on a larger share of the window")
            if c.dispersion > 1:
                extra = c.dispersion - 1
                with np.errstate(divide="ignore", invalid="ignore"):
                    mean = np.where(mean > 0, rng.gamma(np.where(mean > 0, mean / extra, 1.0), extra), 0.0)
            chunks.append(rng.poisson(mean))
        return np.concatenate(chunks)[rng.permutation(n_draws)]

    def forecast(self, horizon, *, conf=None, n_draws=4000, seed=None):
        """Predictive distribution of the failures in the ``horizon`` after the window: a :class:`CountForecast`."""
        h = float(hours(horizon))
        if not h > 0:
            raise FitError(f"horizon must be a positive duration (e.g. '30d'), got {horizon!r}")
        conf = self.conf if conf is None else conf
        if not 0 < conf < 1:
            raise FitError(f"conf must be between 0 and 1 (e.g. 0.9), got {conf!r}")
        counts = self.count_draws([h], n_draws, seed)[:, 0]
        lo, hi = np.quantile(counts, [(1 - conf) / 2, (1 + conf) / 2], method="inverted_cdf")
        return CountForecast(h, float(counts.mean()), float(lo), float(hi), conf, self.model, counts)

    def to_frame(self):
        row = {k: getattr(self, k) for k in ("rate_per_h", "lo_per_h", "hi_per_h", "average_per_h", "model",
                                             "reason", "conf", "n", "n_used", "since_h", "beta", "name",
                                             "today_window")}
        row.update({f"weight {m}": w for m, w in self.weights})
        return pd.DataFrame([row])

    def table(self):
        mix = ", ".join(f"{m} {pct(w, 0)}" for m, w in self.weights) or self.model
        return pd.DataFrame({"Quantity": ["Rate now (per day)", f"{self.conf:.0%} interval (per day)",
                                          "Window average (per day)", "Models (weight)", "Window used", "Why"],
                             "Value": [per_day(self.rate_per_h), interval(24 * self.lo_per_h, 24 * self.hi_per_h),
                                       per_day(self.average_per_h), mix, self.today_window, self.reason]})

    def text(self):
        return (f"{self.name}: the failure rate now is {per_day(self.rate_per_h)} "
                f"({self.conf:.0%} interval {interval(24 * self.lo_per_h, 24 * self.hi_per_h)} a day), "
                f"{self.reason}; the window's average is {per_day(self.average_per_h)}. {self.today_window}")


def _normalised(w):
    w = np.asarray(w, float)
    return w / w.sum()


def _event_times(source, window, include_planned):
    """(event times from the window start, window length, name, nodes, window) of a log, Source or array."""
    is_source = hasattr(source, "kind") and hasattr(source, "data")
    data = source if not is_source else source.data if source.kind == "log" else None
    if data is None or (hasattr(data, "counts") and hasattr(data, "duration_h")):  # a Source's or a bare CountTable
        raise FitError(f"{getattr(source, 'name', 'source')}: a count table has no event times; today's rate "
                       "and a forecast check need a log with start times, e.g. 'stepfun', 'lanl' or a file with start=")
    if hasattr(data, "events") and hasattr(data, "window_h"):
        t = interruptions(data, include_planned)["start_h"].to_numpy(float)
        w = data.window_h if window is None else tuple(float(hours(x)) for x in window)
        name, nodes = getattr(data, "name", "log"), int(getattr(data, "n_nodes", 1) or 1)
    else:
        if window is None:
            raise FitError("give window=(start, end) for bare event times; the window is part of the exposure")
        t, w, name, nodes = np.asarray(hours(data), float).ravel(), tuple(float(hours(x)) for x in window), \
            "events", 1
    if not w[1] > w[0]:
        raise FitError(f"{name}: the window must have positive length, got {w[0]:g} to {w[1]:g} hours")
    t = np.sort(t[(t > w[0]) & (t <= w[1])]) - w[0]
    return t, w[1] - w[0], name, nodes, (float(w[0]), float(w[1]))


def current_rate(source, *, conf=0.9, alpha=0.05, window=None, include_planned=False):
    """The failure rate at the end of ``source``'s window, with its interval, the models behind it and why.

    ``source``: an :class:`~relmodel.InterruptionLog` (a Slurm :class:`~relmodel.data.JobLog` too),
    a :class:`~relmodel.Source` with a log, or event times in hours with ``window=(start, end)``.
    Interruptions of all nodes are pooled (per job / per cluster; divide by ``n_nodes`` for a
    node).  ``alpha``: level of the test for bursts (overdispersion).  Returns a
    :class:`CurrentRate`, whose ``forecast(horizon)`` gives the failures to expect next.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(5.0, 995.0, 100)                      # a steady 0.1 per hour
    >>> r = current_rate(t, window=(0, 1000))
    >>> r.model, round(r.rate_per_h, 2)
    ('constant', 0.1)
    """
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1 (e.g. 0.9), got {conf!r}")
    if not 0 < alpha < 1:
        raise FitError(f"alpha must be between 0 and 1 (e.g. 0.05), got {alpha!r}")
    u, length, name, nodes, w = _event_times(source, window, include_planned)
    comps, absent = fit_models(u, length, alpha)
    absent = list(dict.fromkeys(absent))            # the two trends give the same reason when too few failures
    if len(comps) == 1:
        why = "; ".join(absent)
        reason = f"a constant rate, the only model the window supports ({why})"
        weights = np.ones(1)
    else:
        weights = pseudo_bma_plus(lfo_scores(u, length, [c.model for c in comps], alpha, seed=0), seed=0)
        mix = ", ".join(f"{c.model} {pct(x, 0)}" for c, x in sorted(zip(comps, weights), key=lambda p: -p[1]))
        reason = (f"the models weighed by how well each forecast every next {BLOCK:.0%} of the window from the "
                  f"part before it, from {ORIGINS[0]:.0%} on: {mix}")
        if absent:
            reason += f" ({'; '.join(absent)})"
    comps = [replace(c, weight=float(x)) for c, x in zip(comps, weights)]
    return _finish(comps, reason, u, length, conf, nodes, name, w)


def _window_text(comps):
    parts = [f"{c.model} ({pct(c.weight, 0)}): {c.note}" for c in sorted(comps, key=lambda c: -c.weight)]
    return (f"Today rests on {'; '.join(parts)}. A trend needs at least {MIN_TREND} failures in the window; the "
            f"stretch after a change, at least {MIN_EVENTS} failures and {MIN_SHARE:.0%} of the window.")


def _trend_p(u, length):
    if u.size < 3:
        return ()
    try:
        tr = trend(u, end=length)
    except FitError:
        return ()
    return float(tr.tests[0].p_value), float(tr.tests[1].p_value)


def _finish(comps, reason, u, length, conf, nodes, name, w):
    rng = np.random.default_rng(0)
    weights = _normalised([c.weight for c in comps])
    k = rng.multinomial(8000, weights)
    rates = np.concatenate([c.rate_draws(int(m), rng) for c, m in zip(comps, k)])
    lo, hi = np.quantile(rates, [(1 - conf) / 2, (1 + conf) / 2])
    rate = float(np.dot(weights, [c.rate_per_h for c in comps]))
    top = comps[int(np.argmax(weights))]
    heavy = [c for c in comps if c.weight >= 0.05]
    if any(c.dispersion > 1 for c in heavy):
        phi = max(c.dispersion for c in heavy)
        reason += (f"; failures come in bursts (counts vary up to {phi:.1f} times as much as Poisson), so the "
                   f"ranges are widened {np.sqrt(phi):.2f}x (the square root of that factor)")
    if any(c.drift > 0 for c in heavy):
        d = max(c.drift for c in heavy)
        reason += (f"; the rate has moved by about {np.expm1(d):.0%} from one eighth of the window to the next, "
                   "and the ranges allow it to move as much again")
    return CurrentRate(rate, float(lo), float(hi), u.size / length, top.model, reason, conf, int(u.size),
                       top.n_used, w, top.since_h, top.beta, nodes, name, top.dispersion, top.drift,
                       _trend_p(u, length), tuple((c.model, c.weight) for c in comps), _window_text(comps),
                       tuple(comps))
