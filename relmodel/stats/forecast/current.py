"""The failure rate at the end of a log's window ("today's rate"), and what it forecasts.

:func:`current_rate` pools a log's unplanned interruptions into one process
(the job's, or the cluster's) and chooses the model the log supports today:

* **power law** (Crow-AMSAA) when the trend tests agree the rate moves: the
  MIL-HDBK-189 and Laplace tests both reject a steady rate at ``alpha`` in the
  same direction; the rate now is the fitted intensity at the window's end;
* **change point**: the last segment of :func:`~relmodel.stats.rates.rate_changes`
  when it finds a change and that fits better (AIC) than the alternative;
* **constant** otherwise: the window's average.

Its :meth:`CurrentRate.forecast` gives the predictive distribution of the
failures in the next ``horizon`` hours with parameter uncertainty: the expected
count up to the window's end is Gamma(n + 1/2) (Jeffreys), the power-law shape
is drawn from its pivot 2 n beta / beta_hat ~ chi-square(2 n) (Crow 1974), and the
count is Poisson given both.  For a constant rate this is the negative binomial.
"""

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import FitError
from ...tables import Result, interval, number, per_day
from ...units import hours
from ..rates.changepoint import rate_changes
from ..survival.nonparam import interruptions
from ..survival.trends import trend

__all__ = ["CurrentRate", "CountForecast", "current_rate"]

MODELS = ("constant", "power law", "change point")
#: AIC units by which a change point must beat a moving power law (a smooth rise also has "changes").
MARGIN = 6.0


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
    """The rate at the window's end (failures per hour, pooled over the log), the model chosen and why.

    ``rate_per_h`` with its ``conf`` interval ``lo_per_h``..``hi_per_h``;
    ``average_per_h`` is the window's average (events over window);
    ``model`` is "constant", "power law" or "change point", ``reason`` says why;
    ``beta`` the power-law shape (1 otherwise); ``since_h`` where the stretch the
    rate rests on starts (hours from the window start: 0, or the last change);
    ``n`` the events in the window, ``n_used`` those the rate rests on.
    The interval is the estimate's (parameter uncertainty); :meth:`forecast` adds
    the noise of the count, ``dispersion`` (variance over Poisson's, for failures
    that come in bursts) and ``drift`` (spread of the log rate between successive
    eighths of the window, once the rate is known to have moved).
    ``trend_p`` holds the MIL-HDBK-189 and Laplace p-values (empty when too few
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

    @property
    def mtbf_h(self):
        """Hours between failures today, 1 / rate (infinite when the rate is 0)."""
        return float(np.inf) if self.rate_per_h <= 0 else 1 / self.rate_per_h

    def expected_draws(self, horizons_h, n_draws=4000, seed=None):
        """Draws of the expected failures in (end, end + h] for each ``h`` hours: shape (n_draws, len(horizons)).

        ``seed``: an int, a numpy Generator, or None for fresh entropy.
        """
        h = np.atleast_1d(np.asarray(horizons_h, float))
        rng = np.random.default_rng(seed)
        length = self.window_h[1] - self.window_h[0] - self.since_h
        phi = self.dispersion
        g = phi * rng.gamma((self.n_used + 0.5) / phi, size=n_draws)
        if self.model == "power law":
            beta = self.beta * rng.chisquare(2 * self.n_used, n_draws) / (2 * self.n_used)
        else:
            beta = np.ones(n_draws)
        if self.drift > 0:      # the rate may move again: a lognormal level with the past's step-to-step spread
            g = g * np.exp(self.drift * rng.standard_normal(n_draws) - self.drift**2 / 2)
        return g[:, None] * np.expm1(beta[:, None] * np.log1p(h[None, :] / length))

    def count_draws(self, horizons_h, n_draws=4000, seed=None):
        """Draws of the failures in (end, end + h] for each ``h`` hours (the expected count, then the noise).

        The noise is Poisson, or gamma-mixed Poisson with variance ``dispersion`` times the mean
        when the fitted part was overdispersed (failures that come in bursts).
        """
        rng = np.random.default_rng(seed)
        mean = self.expected_draws(horizons_h, n_draws, rng)
        if not np.all(mean <= 1e15):  # numpy's Poisson stops near 1e19; a fitted part this short forecasts nothing
            raise FitError("the fitted part of the window is too short to forecast from (it would expect more than "
                           "1e15 failures); fit on a larger share of the window")
        if self.dispersion > 1:
            extra = self.dispersion - 1
            with np.errstate(divide="ignore", invalid="ignore"):
                mean = np.where(mean > 0, rng.gamma(np.where(mean > 0, mean / extra, 1.0), extra), 0.0)
        return rng.poisson(mean)

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
                                             "reason", "conf", "n", "n_used", "since_h", "beta", "name")}
        return pd.DataFrame([row])

    def table(self):
        return pd.DataFrame({"Quantity": ["Rate now (per day)", f"{self.conf:.0%} interval (per day)",
                                          "Window average (per day)", "Model", "Why"],
                             "Value": [per_day(self.rate_per_h), interval(24 * self.lo_per_h, 24 * self.hi_per_h),
                                       per_day(self.average_per_h), self.model, self.reason]})

    def text(self):
        return (f"{self.name}: the failure rate now is {per_day(self.rate_per_h)} "
                f"({self.conf:.0%} interval {interval(24 * self.lo_per_h, 24 * self.hi_per_h)} a day), "
                f"{self.model} model: {self.reason}; the window's average is {per_day(self.average_per_h)}.")


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


def _moving(u, length, alpha):
    """(moving, beta, reason) from the MIL-HDBK-189 and Laplace tests on the pooled process."""
    if u.size < 3:
        return False, 1.0, f"{u.size} failure{'s' if u.size != 1 else ''} cannot show a trend", ()
    try:
        tr = trend(u, end=length, alpha=alpha, conf=1 - alpha)
    except FitError:
        return False, 1.0, "the trend cannot be estimated", ()
    mil, lap = tr.tests[0], tr.tests[1]
    ps = (float(mil.p_value), float(lap.p_value))
    agree = mil.p_value < alpha and lap.p_value < alpha and mil.direction == lap.direction
    if agree:
        return True, tr.fit.beta, (f"the MIL-HDBK-189 and Laplace tests agree the rate is {mil.direction} "
                                   f"(p {_p(mil.p_value)} and {_p(lap.p_value)})"), ps
    return False, tr.fit.beta, (f"the trend tests do not agree the rate moves (MIL-HDBK-189 p {_p(mil.p_value)}, "
                                f"Laplace p {_p(lap.p_value)})"), ps


def _p(p):
    return "below 0.001" if p < 1e-3 else f"= {p:.2g}"


def _last_segment(u, length):
    """(start, events, length, log-likelihood, parameters) of rate_changes' last segment, or None."""
    if u.size < 4:
        return None
    try:
        rc = rate_changes(u, window=(0.0, length), per="job")
    except Exception:           # noqa: BLE001 -- a log change points cannot read keeps the other models
        return None
    if rc.n_changes == 0:
        return None
    seg = rc.segments[~rc.segments["gap"].astype(bool)] if "gap" in rc.segments else rc.segments
    c, e = seg["count"].to_numpy(float), seg["exposure_h"].to_numpy(float)
    ll = float(np.sum(np.where(c > 0, c * np.log(np.where(c > 0, c, 1) / e), 0.0)) - c.sum())
    start = float(rc.change_h[-1])
    return start, int(np.sum(u > start)), length - start, ll, 3 * c.size - 2     # a rate and a place per change


def current_rate(source, *, conf=0.9, alpha=0.05, window=None, include_planned=False):
    """The failure rate at the end of ``source``'s window, with its interval, the model chosen and why.

    ``source``: an :class:`~relmodel.InterruptionLog` (a Slurm
    :class:`~relmodel.JobLog` too), a :class:`~relmodel.Source` with a log, or
    event times in hours with ``window=(start, end)``.  Interruptions of all
    nodes are pooled (per job / per cluster; divide by ``n_nodes`` for a node).
    ``alpha``: level of the trend tests.  Returns a :class:`CurrentRate`, whose
    ``forecast(horizon)`` gives the failures to expect next.

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(5.0, 995.0, 100)                      # a steady 0.1 per hour
    >>> r = current_rate(t, window=(0, 1000))
    >>> r.model, round(r.rate_per_h, 3)
    ('constant', 0.1)
    """
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1 (e.g. 0.9), got {conf!r}")
    if not 0 < alpha < 1:
        raise FitError(f"alpha must be between 0 and 1 (e.g. 0.05), got {alpha!r}")
    u, length, name, nodes, w = _event_times(source, window, include_planned)
    n = u.size
    moving, beta, why, ps = _moving(u, length, alpha)
    ll_const = n * np.log(n / length) - n if n else 0.0
    best = ("constant", 2 - 2 * ll_const, 0.0, n, 1.0, why)
    if moving:
        ll_pow = n * np.log(n) - n * beta * np.log(length) + n * np.log(beta) + (beta - 1) * np.log(u).sum() - n
        best = ("power law", 4 - 2 * ll_pow, 0.0, n, beta, why)
    seg = _last_segment(u, length)
    if seg is not None and 2 * seg[4] - 2 * seg[3] < best[1] - (MARGIN if moving else 0.0):
        start, n_last, _, ll, k = seg
        best = ("change point", 2 * k - 2 * ll, start, n_last, 1.0,
                f"{why}; a change point at day {start / 24:,.1f} fits better, so the rate is the last segment's")
    model, _, since, n_used, beta, reason = best
    phi, reason = _dispersion(u, since, length, beta, n_used, alpha, reason)
    drift = _drift(u, length) if model == "change point" or phi > 1 else 0.0
    if drift > 0:
        reason += (f"; the rate has moved by about {np.expm1(drift):.0%} from one eighth of the window to the "
                   "next, and the ranges allow it to move as much again")
    out = _finish(model, reason, since, n_used, beta, n, length, conf, nodes, name, w, phi)
    return replace(out, drift=float(drift), trend_p=ps)


def _drift(u, length, k=8):
    """Spread of the log rate from one block of the window to the next, beyond Poisson noise (0 if none).

    Half the mean squared step between successive blocks' log rates, less the
    Poisson part (about 1 / count per block), is the variance of a level that
    moves; its square root scales the forecast's rate.
    """
    c = np.histogram(u, np.linspace(0.0, length, k + 1))[0] + 0.5
    steps = np.diff(np.log(c))
    noise = 1 / c[:-1] + 1 / c[1:]
    return float(np.sqrt(max(0.0, np.mean(steps**2 - noise) / 2)))


def _dispersion(u, since, length, beta, n_used, alpha, reason):
    """Pearson's chi-square over the stretch's bins, per degree of freedom, when it rejects the model at alpha.

    Failures that come in bursts (one incident on several nodes, a bad week) vary
    more than Poisson; the forecast's variance is then scaled by this factor.
    """
    k = int(min(20, n_used // 5))
    if k < 4:
        return 1.0, reason
    edges = np.linspace(since, length, k + 1)
    seen = np.histogram(u[u > since], edges)[0]
    expect = n_used * np.diff(((edges - since) / (length - since)) ** beta)
    chi2 = float(np.sum((seen - expect) ** 2 / expect))
    df = k - (2 if beta != 1 else 1)
    if stats.chi2.sf(chi2, df) >= alpha:
        return 1.0, reason
    return chi2 / df, (f"{reason}; failures come in bursts (counts vary {chi2 / df:.1f} times as much as "
                       "Poisson), so the ranges are widened by that factor")


def _finish(model, reason, since, n_used, beta, n, length, conf, nodes, name, w, phi=1.0):
    stretch = length - since
    a = [(1 - conf) / 2, (1 + conf) / 2]
    if model == "power law":
        rng = np.random.default_rng(0)
        g = phi * rng.gamma((n_used + 0.5) / phi, size=20000)
        b = beta * rng.chisquare(2 * n_used, 20000) / (2 * n_used)
        lo, hi = np.quantile(g * b / stretch, a)
        rate = n_used * beta / stretch
    else:
        lo, hi = phi * stats.gamma.ppf(a, (n_used + 0.5) / phi) / stretch
        rate = n_used / stretch
    return CurrentRate(float(rate), float(lo), float(hi), n / length, model, reason, conf, int(n), int(n_used),
                       w, float(since), float(beta), nodes, name, float(phi))
