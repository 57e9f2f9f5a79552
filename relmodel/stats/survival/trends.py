"""Trend tests for repairable systems: is the failure rate steady, falling or rising?

Events are failure times of one system, or of a fleet pooled into one process,
measured in hours from the start of observation.  With an observation end ``end``
the data are *time truncated*; without it they are *failure truncated* at the
last event (whose time then plays the role of the end and is not itself a
statistic term).

- Laplace test (Cox and Lewis, "The Statistical Analysis of Series of Events",
  1966, chapter 3): U = (mean(t_i) - T/2) / (T sqrt(1/(12 n))) ~ N(0, 1) under a
  homogeneous Poisson process (HPP).  U > 0 means failures crowd toward the end.
- MIL-HDBK-189 test (MIL-HDBK-189C, "Reliability Growth Management", 2011,
  the AMSAA reliability growth tracking model; Crow 1974):
  X = 2 sum ln(T/t_i) ~ chi-square with 2n degrees of freedom under an HPP
  (2(n-1) when failure truncated).  Small X means a rising rate.
- Lewis-Robinson test (1974): U divided by the coefficient of variation of
  the interarrival times, robust to clustered failures.
- Crow-AMSAA fit (Crow, "Reliability analysis for complex, repairable systems",
  in Reliability and Biometry, SIAM 1974; MIL-HDBK-189C, 2011): the
  power-law non-homogeneous Poisson process with intensity
  u(t) = lambda beta t^(beta-1), beta_hat = n / sum ln(T/t_i),
  lambda_hat = n / T^beta_hat.  Conditional on n, 2 n beta / beta_hat is
  chi-square with 2n (time truncated) or 2(n-1) (failure truncated) degrees of
  freedom, which gives the exact interval on beta.

:func:`trend` runs these and turns them into one verdict: "steady",
"improving" (rate falling, beta < 1) or "wearing out" (rate rising, beta > 1).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ...errors import FitError
from .nonparam import interruptions
from .recurrence import _mcf_inputs
from ...units import hours
from ...tables import Result, count, html_table, interval, number
from relmodel.base.escape import html_text

__all__ = [
    "TrendTest",
    "CrowAMSAA",
    "TrendResult",
    "event_times",
    "laplace_test",
    "mil_hdbk_189_test",
    "lewis_robinson_test",
    "crow_amsaa",
    "trend",
]

VERDICTS = ("steady", "improving", "wearing out")

#: Why the Lewis-Robinson test has no statistic for some logs.
EQUAL_GAPS = "every gap between failures is the same length: their coefficient of variation, the divisor, is 0"


def event_times(source, end=None, *, start=None, include_planned=False):
    """Event times in hours since the start of observation, and the end (or None).

    ``source`` is an :class:`~relmodel.InterruptionLog` (the ``start_h`` of its
    unplanned interruptions, rows that overlap an outage already open on the
    same node left out, over its ``window_h``; ``end``/``start`` override the
    window) or
    an array of event times in hours with an optional ``end`` and ``start``
    (default 0).  Events exactly at the start are not counted: a window that
    opens on an event carries no information in that event.
    """
    if hasattr(source, "events") and hasattr(source, "window_h"):
        t = interruptions(source, include_planned)["start_h"].to_numpy(float)
        t0, t1 = (float(x) for x in source.window_h)
        t0 = t0 if start is None else float(hours(start))
        t1 = t1 if end is None else float(hours(end))
    else:
        t = np.atleast_1d(np.asarray(hours(source), dtype=float))
        t0 = 0.0 if start is None else float(hours(start))
        t1 = None if end is None else float(hours(end))
    if not np.all(np.isfinite(t)) or not all(x is None or np.isfinite(x) for x in (t0, t1)):
        raise FitError("event times and the observation window must be finite (no NaN or infinite values)")
    t = np.sort(t) - t0
    if t.size and t[0] < 0:
        raise FitError(f"an event at {t[0] + t0:g} h is before the start of observation ({t0:g} h)")
    t = t[t > 0]
    T = None if t1 is None else t1 - t0
    if T is not None and t.size and t[-1] > T:
        raise FitError(f"an event at {t[-1] + t0:g} h is after the end of observation ({t1:g} h)")
    return t, T


def _prepare(times, end, start, need, node=None, n_systems=None):
    """Ages at failure t, each one's system window Ti, every system's window, truncation."""
    if node is not None:
        if hasattr(times, "events"):
            raise FitError("node= is for arrays of event times; a log's nodes share its window, so pool them")
        t, idx, s, e = _mcf_inputs(times, node, start, end, n_systems)
        age, window = t - s[idx], (e - s)[idx]
        keep = age > 0
        if keep.sum() < need:
            raise FitError(f"need at least {need} event(s) inside the observation windows; got {keep.sum()}")
        return age[keep], window[keep], e - s, "time"
    t, T = event_times(times, end, start=start)
    if T is None:
        if t.size < need + 1:
            raise FitError(f"failure-truncated data need at least {need + 1} events after the start; got {t.size}")
        t, T, trunc = t[:-1], float(t[-1]), "failure"
    elif t.size < need:
        raise FitError(f"need at least {need} event(s) inside the observation window; got {t.size}")
    elif T <= 0:
        raise FitError(f"the observation end must be after the start; got a window of {T:g} h")
    else:
        trunc = "time"
    return t, np.full(t.size, float(T)), np.array([float(T)]), trunc


@dataclass(frozen=True)
class TrendTest(Result):
    """One trend test: statistic, two-sided p-value and the direction it points."""

    test: str
    statistic: float
    p_value: float
    direction: str
    n: int
    end_h: float
    truncation: str
    df: float = float("nan")
    undefined_because: str = ""

    @property
    def defined(self):
        """False when the test has no statistic for these data (``undefined_because`` says why)."""
        return not self.undefined_because

    def to_frame(self):
        """One-row DataFrame of the test."""
        return pd.DataFrame([self.__dict__])

    def text(self):
        if not self.defined:
            return f"{self.test} test: undefined over {self.n:,} failures ({self.undefined_because})."
        return (f"{self.test} test: statistic {self.statistic:.3g}, p = {self.p_value:.3g} over {self.n:,} failures "
                f"({self.direction}).")


def laplace_test(times, end=None, *, start=None, node=None, n_systems=None):
    """Laplace test for trend (Cox and Lewis 1966, chapter 3).

    ``times``: event times in hours (or an InterruptionLog); ``end``: end of
    observation (time truncated) or None (failure truncated at the last event,
    which is then left out of the sum).  U is standard normal under an HPP;
    the p-value is two-sided.  For several systems U = sum(t_i - T_i/2) /
    sqrt(sum T_i^2 / 12), T_i the window of event i's system (Ascher and
    Feingold, "Repairable Systems Reliability", 1984).
    ``node``: one label per event time for a fleet of systems, each observed
    over its own window (``start``/``end`` scalars or mappings node -> hours;
    ``n_systems`` counts failure-free systems on the common window); times
    then count from each system's start.
    Returns a :class:`TrendTest`.

    Examples
    --------
    >>> r = laplace_test([100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0], end=1000.0)   # hours
    >>> round(r.statistic, 3), round(r.p_value, 3), r.direction
    (0.917, 0.359, 'wearing out')
    """
    t, Ti, Ts, trunc = _prepare(times, end, start, 1, node, n_systems)
    u = (t - Ti / 2).sum() / np.sqrt((Ti**2).sum() / 12)
    p = 2 * stats.norm.sf(abs(u))
    return TrendTest("Laplace", float(u), float(p), _direction(u > 0, u < 0), t.size, float(Ts.max()), trunc)


def lewis_robinson_test(times, end=None, *, start=None):
    """Lewis-Robinson test: the Laplace U divided by the interarrival coefficient of variation.

    Lewis and Robinson, "Testing for a monotone trend in a modulated renewal
    process", in Reliability and Biometry, SIAM 1974.  Robust where failures
    cluster (a renewal process that is not Poisson), which a fleet's pooled
    log often is.  Needs at least two events.  Returns a :class:`TrendTest`; when every gap between
    failures is equal (the coefficient of variation is 0) the test is undefined: its statistic and
    p-value are NaN, its direction "undefined" and ``undefined_because`` says why.

    ``times`` in hours.

    Examples
    --------
    >>> r = lewis_robinson_test([100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0], end=1000.0)
    >>> round(r.statistic, 3), round(r.p_value, 3)
    (2.236, 0.025)
    """
    t, Ti, _, trunc = _prepare(times, end, start, need=2)
    T = float(Ti[0])
    lap = laplace_test(t, T)
    gaps = np.diff(np.concatenate([[0.0], t]))
    cv = gaps.std(ddof=1) / gaps.mean()
    if not cv > 0:
        return TrendTest("Lewis-Robinson", np.nan, np.nan, "undefined", lap.n, T, trunc, undefined_because=EQUAL_GAPS)
    u = lap.statistic / cv
    p = 2 * stats.norm.sf(abs(u))
    return TrendTest("Lewis-Robinson", float(u), float(p), _direction(u > 0, u < 0), lap.n, T, trunc)


def mil_hdbk_189_test(times, end=None, *, start=None, node=None, n_systems=None):
    """MIL-HDBK-189 test for trend (MIL-HDBK-189C, 2011; Crow 1974).

    X = 2 sum ln(T / t_i) is chi-square with 2n degrees of freedom under an HPP
    when time truncated at T, and 2(n-1) when failure truncated at t_n (the sum
    then runs over the first n-1 events).  A small X means a rising rate
    (beta > 1).  The p-value is two-sided; for several systems the sum runs
    over all their events, each against its own window.
    ``node``: one label per event time for a fleet of systems, each observed
    over its own window (``start``/``end`` scalars or mappings node -> hours;
    ``n_systems`` counts failure-free systems on the common window); times
    then count from each system's start.
    Returns a :class:`TrendTest`.

    Examples
    --------
    >>> r = mil_hdbk_189_test([100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0], end=1000.0)   # hours
    >>> round(r.statistic, 3), r.df, round(r.p_value, 3), r.direction
    (10.021, 14, 0.479, 'wearing out')
    """
    t, Ti, Ts, trunc = _prepare(times, end, start, 1, node, n_systems)
    x = 2 * np.log(Ti / t).sum()
    dof = 2 * t.size
    p = min(1.0, 2 * min(stats.chi2.cdf(x, dof), stats.chi2.sf(x, dof)))
    rising = x < dof  # beta_hat = 2n / x > 1 (time truncated)
    return TrendTest("MIL-HDBK-189", float(x), float(p), _direction(rising, x > dof), t.size, float(Ts.max()),
                     trunc, dof)


def _direction(up, down):
    return "wearing out" if up else "improving" if down else "steady"


@dataclass(frozen=True)
class CrowAMSAA(Result):
    """Power-law NHPP fit: expected failures by time t are ``lam * t**beta``.

    ``beta`` is the MLE, ``beta_unbiased`` its bias-corrected version
    ((n-1)/n or (n-2)/n times beta, MIL-HDBK-189C, 2011), ``beta_lo`` and
    ``beta_hi`` the exact chi-square interval at level ``conf``, ``lam`` the
    scale in failures per hour**beta, ``n`` the events, ``end_h`` the end of
    observation and ``truncation`` "time" or "failure".  For a fleet pooled
    into one process ``lam`` is the fleet's; each of m identical nodes has the
    same beta and ``lam / m``.  Fitted to ``n_systems`` > 1 systems, ``lam``
    is per system and ``end_h`` the longest window.
    """

    beta: float
    lam: float
    beta_lo: float
    beta_hi: float
    beta_unbiased: float
    n: int
    end_h: float
    truncation: str
    conf: float
    n_systems: int = 1

    def cumulative(self, t):
        """Expected cumulative failures by time ``t`` (hours)."""
        return self.lam * np.asarray(hours(t), float) ** self.beta

    def intensity(self, t):
        """Failure intensity (failures per hour) at time ``t`` (hours)."""
        return self.lam * self.beta * np.asarray(hours(t), float) ** (self.beta - 1)

    @property
    def mtbf_now_h(self):
        """Instantaneous MTBF at the end of observation, 1 / u(T), in hours."""
        return float(1 / self.intensity(self.end_h))

    def to_frame(self):
        """One-row DataFrame of the fit."""
        d = dict(self.__dict__, mtbf_now_h=self.mtbf_now_h)
        return pd.DataFrame([d])

    def text(self):
        return (f"Crow-AMSAA power-law NHPP: beta = {self.beta:.3g} ({100 * self.conf:g}% CI {self.beta_lo:.3g} to "
                f"{self.beta_hi:.3g}).")


def _multi_window_beta(t, windows, guess):
    """The MLE of beta for systems observed over ages (0, T_q] of unequal length.

    The log-likelihood n ln(lam) + n ln(beta) + (beta - 1) sum ln t_i - lam sum T_q^beta, with
    lam profiled out (lam = n / sum T_q^beta), has the score
    n / beta + sum ln t_i - n sum T_q^beta ln T_q / sum T_q^beta, which falls with beta
    (the profile is concave): its root is bracketed outward from the equal-window value.
    """
    n, top = t.size, windows.max()
    log_t, log_w = np.log(t / top), np.log(windows / top)      # scaled by the longest window: no overflow

    def score(beta):
        weight = np.exp(beta * log_w)
        return n / beta + log_t.sum() - n * (weight @ log_w) / weight.sum()

    lo, hi = guess / 2, guess * 2
    while score(lo) < 0 and lo > 1e-8:
        lo /= 4
    while score(hi) > 0 and hi < 1e6:
        hi *= 4
    return float(optimize.brentq(score, lo, hi, xtol=1e-14, rtol=1e-13))


def crow_amsaa(times, end=None, *, start=None, conf=0.95, node=None, n_systems=None):
    """Fit the Crow-AMSAA (power-law NHPP) model by maximum likelihood.

    Time truncated at ``end`` = T with n events: beta_hat = n / sum ln(T/t_i),
    lambda_hat = n / T**beta_hat, and 2 n beta / beta_hat ~ chi2(2n).  Failure
    truncated (``end=None``) at t_n: the sum runs over i < n, and
    2 n beta / beta_hat ~ chi2(2(n-1)) (Crow 1974; MIL-HDBK-189C, 2011).
    Several systems with windows T_q (Crow 1974): lambda_hat = n / sum_q
    T_q**beta_hat and, with equal windows, beta_hat = n / sum ln(T/t_iq) over
    every event; with unequal windows beta_hat is the root of the profile
    score (no closed form), and the chi-square interval is then approximate.
    ``node``: one label per event time for a fleet of systems, each observed
    over its own window (``start``/``end`` scalars or mappings node -> hours;
    ``n_systems`` counts failure-free systems on the common window); times
    then count from each system's start.
    Returns a :class:`CrowAMSAA`.

    Examples
    --------
    >>> t = [100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0]      # hours
    >>> f = crow_amsaa(t, end=1000.0)
    >>> import math
    >>> round(f.beta, 4), round(7 / sum(math.log(1000.0 / x) for x in t), 4)   # MLE n / sum ln(T/t_i)
    (1.3971, 1.3971)
    """
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1 (e.g. 0.95), got {conf!r}")
    t, Ti, Ts, trunc = _prepare(times, end, start, 2, node, n_systems)
    n = t.size + (trunc == "failure")
    s = np.log(Ti / t).sum()
    if s <= 0:
        raise FitError("all events sit at the end of observation; beta cannot be estimated")
    beta = n / s if np.ptp(Ts) <= 1e-12 * Ts.max() else _multi_window_beta(t, Ts, n / s)
    dof = 2 * t.size
    lo, hi = stats.chi2.ppf([(1 - conf) / 2, (1 + conf) / 2], dof) * beta / (2 * n)
    bias = (n - 1) / n if trunc == "time" else (n - 2) / n
    return CrowAMSAA(float(beta), float(n / (Ts**beta).sum()), float(lo), float(hi), float(beta * bias),
                     int(n), float(Ts.max()), trunc, conf, int(Ts.size))


@dataclass(frozen=True)
class TrendResult(Result):
    """The answer to "is the failure rate changing?".

    ``verdict`` is "steady", "improving" or "wearing out" ("undefined", with a NaN
    ``p_value``, when the deciding test has no statistic for the data); ``p_value`` is the
    two-sided p-value of the deciding test (``method``) against a steady
    (HPP) rate; ``alpha`` the level used.  ``tests`` has every test run,
    ``fit`` the Crow-AMSAA fit (``fit.beta`` < 1 improving, > 1 wearing out).
    """

    verdict: str
    p_value: float
    method: str
    alpha: float
    tests: tuple
    fit: CrowAMSAA

    @property
    def beta(self):
        """Crow-AMSAA shape: below 1 the rate falls, above 1 it rises."""
        return self.fit.beta

    def to_frame(self):
        """The test table: one row per test, plus the Crow-AMSAA beta and its interval."""
        df = pd.concat([t.to_frame() for t in self.tests], ignore_index=True)
        df["decides"] = df["test"] == self.method
        return df

    def _repr_html_(self):
        f = self.fit
        p = f"{self.p_value:.3g}" if np.isfinite(self.p_value) else "undefined"
        return (f"<p><b>Trend: {html_text(self.verdict)}</b> (p = {p}, {html_text(self.method)}, "
                f"alpha = {self.alpha:g}); Crow-AMSAA beta = {f.beta:.3g} "
                f"[{f.beta_lo:.3g}, {f.beta_hi:.3g}], n = {f.n}, T = {f.end_h:.4g} h</p>"
                + html_table(self.to_frame(), index=False))

    def text(self):
        """The verdict in one sentence, with the deciding test and the Crow-AMSAA shape."""
        f = self.fit
        if self.verdict == "undefined":
            why = next((t.undefined_because for t in self.tests if t.test == self.method), "")
            return (f"The failure rate's trend is undefined by the {self.method} test: {why}; Crow-AMSAA shape "
                    f"{number(f.beta)} ({interval(f.beta_lo, f.beta_hi)}) over {count(f.n)} failures.")
        p = "below 0.001" if self.p_value < 1e-3 else number(self.p_value)
        return (f"The failure rate is {self.verdict}: {self.method} test p {'' if p[0] == 'b' else '= '}{p} "
                f"at the {number(self.alpha)} level; Crow-AMSAA shape {number(f.beta)} "
                f"({interval(f.beta_lo, f.beta_hi)}) over {count(f.n)} failures.")

    def __str__(self):
        p = f"{self.p_value:.3g}" if np.isfinite(self.p_value) else "undefined"
        return f"{self.verdict} (p = {p}, {self.method}; beta = {self.beta:.3g})"


_METHODS = {"mil-hdbk-189": mil_hdbk_189_test, "laplace": laplace_test, "lewis-robinson": lewis_robinson_test}


def trend(source, *, end=None, start=None, alpha=0.05, method="mil-hdbk-189", conf=0.95,
          include_planned=False, node=None, n_systems=None):
    """Is the failure rate steady, improving or wearing out?

    ``source``: an :class:`~relmodel.InterruptionLog` (unplanned events pooled over
    all nodes, observed over the log's window) or event times in hours with an
    optional ``end`` (None: failure truncated at the last event).  Runs the
    MIL-HDBK-189, Laplace and Lewis-Robinson tests and a Crow-AMSAA fit;
    ``method`` picks the test that decides ("mil-hdbk-189", "laplace" or
    "lewis-robinson").  If its two-sided p-value is below ``alpha`` the
    verdict follows the direction of the trend, otherwise it is "steady".
    With the default method and ``conf == 1 - alpha`` the verdict is "steady"
    exactly when the Crow-AMSAA interval on beta contains 1.  With ``node``
    (one label per event time) each node is a system with its own window
    (``start``/``end`` may be mappings node -> hours), time counts from each
    system's start, and the Lewis-Robinson test, which needs one sequence of
    gaps, is left out.  Returns a :class:`TrendResult`.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> trend(stepfun()).verdict
    'wearing out'
    """
    key = str(method).lower().replace("_", "-")
    if key not in _METHODS:
        raise FitError(f"unknown trend method {method!r}; valid methods are {', '.join(_METHODS)}")
    if not 0 < alpha < 1:
        raise FitError(f"alpha must be between 0 and 1 (e.g. 0.05), got {alpha!r}")
    if node is None:
        args, kw = event_times(source, end, start=start, include_planned=include_planned), {}
    else:
        args, kw = (source, end), {"start": start, "node": node, "n_systems": n_systems}
    names = [k for k in _METHODS if node is None or k != "lewis-robinson"]
    if key not in names:
        raise FitError("the Lewis-Robinson test needs one system; with node= use 'mil-hdbk-189' or 'laplace'")
    tests = tuple(_METHODS[k](*args, **kw) for k in names)
    deciding = tests[names.index(key)]
    verdict = "undefined" if not deciding.defined else deciding.direction if deciding.p_value < alpha else "steady"
    return TrendResult(verdict, deciding.p_value, deciding.test, alpha, tests, crow_amsaa(*args, conf=conf, **kw))

