"""Interval-censored fits: failures known only to lie between two health checks.

A failure found by a periodic check happened some time after the last check
that saw the unit healthy and before the check that found it down.  Row i is
then the interval ``(lower_i, upper_i]``:

* ``lower == upper``: an exact failure time;
* ``upper == inf``: right-censored at ``lower`` (still healthy at the last check);
* ``lower == 0``: left-censored (already failed at the first check);
* otherwise interval-censored, contributing ``log(S(lower) - S(upper))``
  (Klein and Moeschberger, *Survival Analysis*, 2nd ed., 2003, section 3.5).

:func:`fit_interval` maximises that likelihood for every family of
:mod:`relmodel.stats.lifetimes.families` (Newton steps on numerical derivatives from
the fit to the interval midpoints; Hessian by Richardson-combined
differences) and returns the usual :class:`~relmodel.stats.lifetimes.fitting.FitResult`.
:func:`fit` is :func:`relmodel.stats.lifetimes.fitting.fit` with an ``interval``
argument (it is the ``relmodel.fit`` users call).  :func:`uptime_intervals`
turns a log with a "last seen healthy" column into such intervals.
"""

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import FitError
from ...units import hours
from . import mle
from .bands import profile_intervals
from .families import get_family
from . import fitting
from .fitting import MIN_FAILURES, FitWarning, _result, fit_sample, prepare

__all__ = ["fit", "fit_interval", "interval_rows", "uptime_intervals", "log1mexp"]


def log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0``, accurate at both ends (Maechler 2012)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -np.log(2), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def interval_rows(interval):
    """Check ``(lower, upper)`` (hours) and return them as float arrays."""
    try:
        lower, upper = interval
    except (TypeError, ValueError):
        raise FitError("interval must be a pair (lower, upper) of arrays of hours") from None
    lo = np.atleast_1d(np.asarray(hours(lower), float)).ravel()
    up = np.atleast_1d(np.asarray(hours(upper), float)).ravel()
    if lo.shape != up.shape:
        raise FitError(f"interval lower has {lo.size} values but upper has {up.size}")
    bad = np.flatnonzero(~np.isfinite(lo) | (lo < 0) | np.isnan(up) | (up < lo) | (up <= 0))
    if bad.size:
        i = bad[0]
        raise FitError(f"interval row {i}: ({lo[i]!r}, {up[i]!r}) is not valid; need 0 <= lower <= upper, "
                       "upper > 0 (inf = still healthy)")
    return lo, up


def _split(data, observed, interval):
    """Exact/right-censored rows as a Sample (or None), and the strictly interval-censored bounds."""
    lo, up = interval_rows(interval)
    exact, right = lo == up, np.isinf(up)
    t = [lo[exact | right]]
    obs = [exact[exact | right]]
    if data is not None:
        s = prepare(data, observed)
        t.append(s.t)
        obs.append(s.obs)
    t, obs = np.concatenate(t), np.concatenate(obs)
    mid = ~(exact | right)
    sample = prepare(t, obs) if t.size else None
    return sample, lo[mid], up[mid]


def _loglik(fam, sample, lo, up, theta):
    total = fam.loglik(sample, theta) if sample is not None else 0.0
    if lo.size:
        law = fam.law(fam.params(theta))
        with np.errstate(all="ignore"):
            s_lo = np.where(lo > 0, law.logsf(np.maximum(lo, 1e-300)), 0.0)
            s_up = law.logsf(up)
            total += float(np.sum(s_lo + log1mexp(s_up - s_lo)))
    return total if np.isfinite(total) else -np.inf


def _pseudo(sample, lo, up):
    """A sample of midpoints (left-censored: half the upper bound), for start values and checks."""
    mid = np.where(lo > 0, (lo + up) / 2, up / 2)
    t = mid if sample is None else np.concatenate([sample.t, mid])
    obs = np.ones(mid.size, bool) if sample is None else np.concatenate([sample.obs, np.ones(mid.size, bool)])
    return mle.Sample(t, obs)


def fit(data, family, *, observed=None, entry=None, interval=None, conf=0.95, ci="wald"):
    """Fit a failure-time distribution by censored maximum likelihood, with interval-censored failures.

    This is :func:`relmodel.fit`.  Without ``interval`` it is exactly
    :func:`relmodel.stats.lifetimes.fitting.fit` (and follows its rules for hard data).

    Parameters
    ----------
    data : Durations, array of hours, list or Series, or None
        Durations (hours, or strings/timedeltas).  A ``Durations`` carries its
        own ``observed`` mask and ``entry`` times.  May be None when
        ``interval`` holds all the data.
    family : str
        ``"exponential"``, ``"weibull"``, ``"lognormal"``, ``"gamma"`` or
        ``"loglogistic"`` (see :mod:`relmodel.stats.lifetimes.families` for the parameters).
    observed : bool array, optional
        False where the duration is right-censored (the unit was still up).
    entry : array of hours, optional
        Left-truncation times: how long each unit had already survived when
        observation began.
    interval : pair ``(lower, upper)`` of arrays of hours, optional
        Failures known only to lie in ``(lower, upper]`` (found by a periodic
        check); ``upper = inf`` is censored at ``lower``, ``lower == upper`` exact.
    conf : float
        Confidence level of the intervals in ``ci``.
    ci : "wald" or "profile"
        ``"profile"`` replaces the Wald intervals of the parameters by
        profile-likelihood ones (:func:`relmodel.stats.lifetimes.bands.profile_intervals`;
        better in small samples), and says so in ``note``.

    Returns
    -------
    FitResult

    Examples
    --------
    >>> r = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])   # hours
    >>> round(r.params["shape"], 3), round(r.median_h, 1)
    (1.404, 25.8)
    >>> r = fit(None, "weibull", interval=([0, 24, 24, 48, 72], [24, 48, 48, 72, float("inf")]))
    >>> round(r.params["shape"], 3)                      # failures seen only at daily checks
    1.74
    >>> p = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1], ci="profile")
    >>> p.ci.round(3).to_string(index=False).splitlines()[1]
    'shape     1.404  0.589  2.638  0.518'
    """
    if ci not in ("wald", "profile"):
        raise FitError(f"ci must be 'wald' or 'profile', got {ci!r}")
    if interval is None:
        res = fitting.fit(data, family, observed=observed, entry=entry, conf=conf)
        if ci == "profile" and res.requested is None:
            prof = profile_intervals(data, family, observed=observed, entry=entry, conf=conf)
            res.ci[["lower", "upper"]] = prof[["lower", "upper"]].to_numpy()
            res = replace(res, note=(res.note + "; " if res.note else "") + "profile-likelihood intervals")
        return res
    if ci == "profile":
        raise FitError("profile-likelihood intervals are not available with interval censoring; use ci='wald'")
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1, got {conf!r}")
    if entry is not None:
        raise FitError("entry (left truncation) cannot be combined with interval censoring; drop one")
    return fit_interval(data, family, observed=observed, interval=interval, conf=conf)


def fit_interval(data, family, *, observed=None, interval, conf=0.95):
    """Fit ``family`` to interval-censored failures (and any exact / right-censored ``data``).

    See the module docstring for the meaning of ``interval = (lower, upper)``.
    Fewer than 3 failures (exact or interval) fall back to the exponential,
    as :func:`relmodel.fit` does.  Exponential intervals are Wald intervals on
    the log scale (the chi-square interval needs exact times).
    """
    sample, lo, up = _split(data, observed, interval)
    fam = get_family(family)
    pseudo = _pseudo(sample, lo, up)
    n, d = pseudo.t.size, int(pseudo.obs.sum())
    if d == 0:
        raise FitError("no failures (exact or interval-censored): no distribution can be fitted")
    requested, note = None, f"{lo.size} failure(s) known only to lie between two checks (interval-censored)"
    if fam.n_params > 1 and d < MIN_FAILURES:
        requested, fam = fam.name, get_family("exponential")
        note += f"; {d} failure(s): too few for a {requested} shape, this is the exponential fit"
        warnings.warn(note, FitWarning, stacklevel=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theta0 = fam.theta(fit_sample(pseudo, fam.name, conf=conf).params)
    f = lambda th: _loglik(fam, sample, lo, up, th)  # noqa: E731
    try:
        theta, ll, _ = mle.newton(lambda x: mle.numeric_derivs(f, x, h=1e-5), theta0, tol=1e-8)
    except FitError as exc:
        raise FitError(f"{fam.name} interval-censored fit failed: {exc}") from None
    res = _result(fam, pseudo, theta, ll, mle.richardson_hessian(f, theta), n, d, conf, requested, note)
    if fam.name == "exponential":
        z = stats.norm.ppf(0.5 + conf / 2)
        est, se = res.ci.loc[0, "estimate"], res.ci.loc[0, "se"]
        res.ci.loc[0, ["lower", "upper"]] = est * np.exp(-z * se / est), est * np.exp(z * se / est)
    return res


def uptime_intervals(log):
    """Per-node uptimes of a log as ``(lower, upper)`` intervals, using its "last seen healthy" column.

    Spells follow ``InterruptionLog.uptimes``: from the end of one outage to
    the start of the next on the same node, the tail to the window end
    censored.  Where the outage row has ``healthy_h`` (read with
    ``read_log(..., last_healthy=...)``), the failure happened after that
    check: ``lower = healthy_h - previous end``, ``upper = start - previous end``.
    Returns a DataFrame ``node``, ``lower_h``, ``upper_h`` (hours).

    Examples
    --------
    >>> import pandas as pd
    >>> from relmodel.data.logs import read_log
    >>> df = pd.DataFrame({"began": [0.0, 50.0, 70.0], "ended": [2.0, 51.0, 75.0], "ok": [None, 40.0, 60.0],
    ...                    "host": ["a", "a", "a"]})
    >>> log = read_log(df, start="began", end="ended", node="host", time_unit="h", window=(0.0, 100.0),
    ...                last_healthy="ok")
    >>> print(uptime_intervals(log).to_string(index=False))   # failed between the last check and the outage
    node  lower_h  upper_h
       a     38.0     48.0
       a      9.0     19.0
       a     25.0      inf
    """
    ev = log.events
    if "healthy_h" not in ev.columns:
        raise FitError("the log has no 'last seen healthy' times; read it with read_log(..., last_healthy=column)")
    ev = ev[~ev["overlaps"].astype(bool)].sort_values(["node", "start_h"], kind="stable")
    prev_end = ev.groupby("node", sort=False)["end_h"].shift(1)
    keep = prev_end.notna() & np.isfinite(prev_end)
    start, end0 = ev["start_h"][keep].to_numpy(), prev_end[keep].to_numpy()
    healthy = ev["healthy_h"][keep].to_numpy(float)
    lower = np.where(np.isfinite(healthy), np.clip(healthy - end0, 0.0, start - end0), start - end0)
    last = ev.groupby("node", sort=False).tail(1)
    tail = log.window_h[1] - last["end_h"].to_numpy(float)
    ok = np.isfinite(tail) & (tail > 0)
    out = pd.DataFrame({"node": np.concatenate([ev["node"][keep].to_numpy(), last["node"].to_numpy()[ok]]),
                        "lower_h": np.concatenate([lower, tail[ok]]),
                        "upper_h": np.concatenate([start - end0, np.full(int(ok.sum()), np.inf)])})
    return out[out["upper_h"] > 0].reset_index(drop=True)
