"""Censored maximum-likelihood fits of failure-time distributions.

:func:`fit` fits one family (see :mod:`relmodel.stats.lifetimes.registry`) to durations in
hours, with right-censoring, optional left-truncation and interval-censored
failures (``interval=``, see :mod:`relmodel.stats.lifetimes.interval`), and returns a
:class:`FitResult` with the estimates, confidence intervals from the observed
information, the log-likelihood, AIC/BIC and the fitted curves.

Hard data is handled explicitly, never by a silent absurd estimate:

* no durations, NaN, infinite or negative durations, entries after the end:
  :class:`~relmodel.errors.FitError` naming the first bad row;
* no failures at all: :class:`~relmodel.errors.FitError` whose message gives
  the one-sided lower confidence bound on the mean (2T / chi2(conf, 2));
* zero durations: a :class:`FitWarning`; they are set to half the smallest
  positive duration (below the resolution of the log) so every family sees the
  same data;
* fewer than ``MIN_FAILURES`` (3) failures, or fewer than two distinct failure
  times, for a family with a shape parameter: a :class:`FitWarning` and the
  exponential fit with its chi-square interval (Epstein 1960), with
  ``requested`` naming the family that was asked for (:func:`relmodel.stats.weibayes`
  is the alternative when the shape is known from similar parts).  A shape estimated from
  one or two failures is not information (five durations with one failure give
  a Weibull scale of 3e16 h in other tools);
* a likelihood with no finite maximum at a proper distribution (parameters
  running off, ln t spread over 20 decades, a median a million times below
  every duration; typical of strongly left-truncated samples):
  :class:`~relmodel.errors.FitError` naming the family;
* estimates that extrapolate far outside the data (median beyond 1000 times
  the longest duration, or a parameter interval wider than a factor of 10^6):
  a :class:`FitWarning`.
"""

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import special, stats

from ...data.shaping.durations import Durations
from ...errors import FitError
from . import mle
from .interval import interval_rows
from .profile import profile_table
from .registry import get_family
from .result import FitResult, FitWarning
from ...units import hours
from relmodel.base.escape import html_text

__all__ = ["fit", "FitResult", "FitWarning", "MIN_FAILURES", "prepare", "fit_sample"]

MIN_FAILURES = 3


def prepare(source, observed=None, entry=None):
    """Check and convert input to a :class:`relmodel.stats.lifetimes.mle.Sample` (hours).

    ``source`` is a :class:`~relmodel.data.shaping.durations.Durations`, a Series, or an
    array/list of durations (numbers are hours; strings such as ``"3h"`` and
    timedeltas are converted).  Raises :class:`FitError` on bad input; warns
    (:class:`FitWarning`) when zero durations are moved off zero.
    """
    if isinstance(source, Durations):
        t = source.hours
        observed = source.observed if observed is None else observed
        entry = source.entry if entry is None else entry
    elif isinstance(source, np.ndarray) and source.ndim > 1:
        raise FitError(f"durations must be one list of values; got an array of shape {source.shape} (a table "
                       "or a matrix is not flattened: pick its column, e.g. df['hours'] or a[:, 0])")
    elif isinstance(source, np.ndarray) and source.dtype == np.float64:
        t = source.ravel()  # hours already: read, never written
    else:
        t = np.atleast_1d(hours(source.to_numpy() if isinstance(source, pd.Series) else source)).astype(float, copy=False).ravel()
    if t.size == 0:
        raise FitError("no durations to fit; pass at least one duration in hours")
    obs = np.ones(t.size, bool) if observed is None else np.asarray(observed).ravel()
    if obs.shape != t.shape:
        raise FitError(f"observed has {obs.size} values but there are {t.size} durations")
    if obs.dtype != bool:
        if not np.isin(obs, (0, 1)).all():
            raise FitError("observed must be True/False (or 1/0) per duration: True = a failure, False = censored")
        obs = obs.astype(bool)
    shortest, longest = _check_values(t, "duration")
    if entry is not None:
        entry = np.atleast_1d(hours(entry)).astype(float).ravel()
        if entry.shape != t.shape:
            raise FitError(f"entry has {entry.size} values but there are {t.size} durations")
        _check_values(entry, "entry time")
        late = np.flatnonzero(entry > t)
        if late.size:
            i = late[0]
            raise FitError(f"row {i + 1}: entry time {entry[i]:g} h is after the end of the duration ({t[i]:g} h); "
                           "entry must be between 0 and the duration")
        entry = entry if np.any(entry > 0) else None
    t, shortest = _lift_zeros(t, shortest)
    sample = mle.Sample(t, obs, entry)
    sample.__dict__.update(tmin=shortest, tmax=longest)  # known already: spares two passes
    return sample


def _check_values(x, what):
    """Raise FitError at the first value that is not finite hours >= 0; returns the smallest and largest."""
    shortest, longest = float(np.min(x)), float(np.max(x))
    if shortest >= 0 and longest < np.inf:  # the common case, in two reductions (NaN fails both)
        return shortest, longest
    bad = np.flatnonzero(~np.isfinite(x) | (x < 0))
    if bad.size:
        i = bad[0]
        said = "is missing (NaN or NaT)" if np.isnan(x[i]) else f"{float(x[i]):g} is not valid"
        raise FitError(f"row {i + 1}: {what} {said}; {what}s must be finite hours >= 0 "
                       f"({bad.size} bad value{'s' if bad.size > 1 else ''})")
    return shortest, longest


def _lift_zeros(t, shortest):
    if shortest > 0:
        return t, shortest
    zero = t == 0
    pos = t[~zero]
    if pos.size == 0:
        raise FitError("every duration is zero; nothing can be fitted")
    floor = pos.min() / 2
    warnings.warn(f"{int(zero.sum())} zero duration(s) set to {floor:.3g} h (half the smallest positive "
                  "duration), as the log cannot resolve shorter times", FitWarning, stacklevel=4)
    return np.where(zero, floor, t), float(floor)


def fit(source, family, *, observed=None, entry=None, interval=None, conf=0.95, ci="wald"):
    """Fit a failure-time distribution by censored maximum likelihood, with interval-censored failures.

    This is :func:`relmodel.fit`.  Every kind of observation goes into one
    likelihood (the family base class owns them): exact failures,
    right-censored durations, left-truncated entries, left-censored failures
    and failures known only to lie between two checks.

    Parameters
    ----------
    source : Durations, array of hours, list or Series, or None
        Durations (hours, or strings/timedeltas).  A ``Durations`` carries its
        own ``observed`` mask and ``entry`` times.  May be None when
        ``interval`` holds all the data.
    family : str
        ``"exponential"``, ``"weibull"``, ``"lognormal"``, ``"gamma"``,
        ``"loglogistic"`` or ``"gengamma"`` (see
        :mod:`relmodel.stats.lifetimes.registry` for the parameters).
    observed : bool array, optional
        False where the duration is right-censored (the unit was still up).
    entry : array of hours, optional
        Left-truncation times: how long each unit had already survived when
        observation began.
    interval : pair ``(lower, upper)`` of arrays of hours, optional
        Failures known only to lie in ``(lower, upper]`` (found by a periodic
        check); ``upper = inf`` is censored at ``lower``, ``lower == upper``
        exact, ``lower == 0`` left-censored.
    conf : float
        Confidence level of the intervals in ``ci``.
    ci : "wald" or "profile"
        ``"profile"`` replaces the Wald intervals of the parameters by
        profile-likelihood ones (better in small samples), and says so in ``note``.

    Returns
    -------
    FitResult

    Examples
    --------
    >>> r = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])   # hours
    >>> round(r.params["shape"], 3), round(r.median_h, 1)
    (1.404, 25.8)
    >>> r.ci.round(3).to_string(index=False).splitlines()[1]
    'shape     1.404  0.681  2.894  0.518'
    >>> r = fit(None, "weibull", interval=([0, 24, 24, 48, 72], [24, 48, 48, 72, float("inf")]))
    >>> round(r.params["shape"], 3)                      # failures seen only at daily checks
    1.74
    >>> p = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1], ci="profile")
    >>> p.ci.round(3).to_string(index=False).splitlines()[1]
    'shape     1.404  0.589  2.638  0.518'
    """
    _check_options(conf, ci, interval, entry)
    if interval is None:
        sample = prepare(source, observed, entry)
        res = fit_sample(sample, family, conf=conf)
    else:
        sample, lower, upper = _split(source, observed, interval)
        res = _fit_intervals(sample, lower, upper, family, conf)
    if ci == "profile" and res.requested is None:
        prof = profile_table(sample, res)
        res.ci[["lower", "upper"]] = prof[["lower", "upper"]].to_numpy()
        res = replace(res, note=(res.note + "; " if res.note else "") + "profile-likelihood intervals")
    return res


def _check_options(conf, ci, interval, entry):
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1, got {conf!r}")
    if ci not in ("wald", "profile"):
        raise FitError(f"ci must be 'wald' or 'profile', got {ci!r}")
    if interval is not None and ci == "profile":
        raise FitError("profile-likelihood intervals are not available with interval censoring; use ci='wald'")
    if interval is not None and entry is not None:
        raise FitError("entry (left truncation) cannot be combined with interval censoring; drop one")


def _split(data, observed, interval):
    """Exact and right-censored rows as one Sample (or None), and the strictly interval-censored bounds."""
    lo, up = interval_rows(interval)
    exact, right = lo == up, np.isinf(up)
    t, obs = [lo[exact | right]], [exact[exact | right]]
    if data is not None:
        s = prepare(data, observed)
        t.append(s.t)
        obs.append(s.obs)
    t, obs = np.concatenate(t), np.concatenate(obs)
    mid = ~(exact | right)
    return (prepare(t, obs) if t.size else None), lo[mid], up[mid]


def _fit_intervals(sample, lo, up, family, conf):
    """Fit ``family`` to interval-censored failures (and any exact / right-censored ``sample``).

    Newton steps on numerical derivatives from the fit to the interval
    midpoints; Hessian by Richardson-combined differences.  Fewer than 3
    failures (exact or interval) fall back to the exponential, as for exact data.
    """
    fam = get_family(family)
    mid = np.where(lo > 0, (lo + up) / 2, up / 2)  # left-censored: half the upper bound
    pseudo = mle.Sample(mid, np.ones(mid.size, bool)) if sample is None else \
        mle.Sample(np.concatenate([sample.t, mid]), np.concatenate([sample.obs, np.ones(mid.size, bool)]))
    n, d = pseudo.t.size, int(pseudo.obs.sum())
    if d == 0:
        raise FitError("no failures (exact or interval-censored): no distribution can be fitted")
    requested, note = None, f"{lo.size} failure(s) known only to lie between two checks (interval-censored)"
    if fam.n_params > 1 and d < MIN_FAILURES:
        requested, fam = fam.name, get_family("exponential")
        note += f"; {d} failure(s): too few for a {requested} shape, this is the exponential fit"
        warnings.warn(note, FitWarning, stacklevel=3)
    def loglik(theta):
        total = (fam.loglik(sample, theta) if sample is not None else 0.0) + fam.interval_loglik(theta, lo, up)
        return total if np.isfinite(total) else -np.inf

    theta0 = _interval_start(fam, pseudo, sample, lo, up, conf, loglik)

    try:
        theta, ll, _ = mle.newton(lambda x: mle.numeric_derivs(loglik, x, h=1e-5), theta0, tol=1e-8)
    except FitError as exc:
        raise FitError(f"{fam.name} interval-censored fit failed: {exc}") from None
    hess = mle.richardson_hessian(loglik, theta)
    return _result(fam, pseudo, theta, ll, hess, n, d, conf, requested, note, exact=False)


def _interval_start(fam, pseudo, sample, lo, up, conf, loglik):
    """Where the interval-censored Newton climb starts.

    The fit to the interval midpoints, except for a family with nested ones (the
    generalized gamma): the midpoints pile up at a few values, and a three-parameter
    law fitted to such ties may have no finite maximum, though the interval
    likelihood has one.  It starts from the best of its nested families' own
    interval-censored fits instead (the Weibull, gamma and log-normal), so its
    maximum is never below theirs.
    """
    nested = getattr(fam, "NESTED", ())
    starts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in nested:
            try:
                starts.append(fam.nested_theta(name, _fit_intervals(sample, lo, up, name, conf).params))
            except FitError:  # a nested fit that fails is simply not a start
                continue
        if not starts:
            starts.append(fam.theta(fit_sample(pseudo, fam.name, conf=conf).params))
    values = [loglik(th) for th in starts]
    return starts[int(np.argmax(values))]


def fit_sample(sample, family, *, conf=0.95):
    """Fit ``family`` to a prepared :class:`relmodel.stats.lifetimes.mle.Sample` (see :func:`fit`)."""
    fam = get_family(family)
    n = int(sample.t.size if sample.w is None else sample.w.sum())
    d = sample.d
    if d == 0:
        raise FitError(_no_failure_message(sample, n, conf))
    requested, note = None, ""
    if fam.n_params > 1:
        distinct = _distinct(sample)
        if d < MIN_FAILURES or distinct < 2:
            requested, fam = fam.name, get_family("exponential")
            note = (f"{int(d)} failure(s) at {distinct} distinct time(s): a {requested} shape needs at least "
                    f"{MIN_FAILURES} failures at 2 or more distinct times; this is the exponential fit, "
                    "with its chi-square interval (with a shape known from similar parts, relmodel.stats.weibayes "
                    "estimates the scale instead)")
            warnings.warn(note, FitWarning, stacklevel=3)
    work = sample.compressed() if fam.compress else None
    try:
        theta, ll, hess = fam.maximise(work or sample)
        _check_proper(fam, fam.params(theta), sample)
    except FitError as exc:
        raise FitError(f"{fam.name} fit failed: {exc}; these data do not determine a {fam.name} "
                       "distribution (try another family)") from None
    return _result(fam, sample, theta, ll, hess, n, int(d), conf, requested, note)


def _distinct(sample):
    """1 when every failure is at the same time, else 2 (the first rows usually settle it)."""
    for part in (slice(0, 4096), slice(None)):
        fail = sample.t[part][sample.obs[part]]
        if fail.size and fail.min() != fail.max():
            return 2
    return 1


def _check_proper(fam, params, sample):
    """Refuse a maximum reached only in the limit of an improper distribution.

    ln T spreading with a standard deviation above 50 (over 20 decades of
    time), or a median a million times below the shortest duration, means the
    likelihood kept rising towards a degenerate law (this happens with
    left-truncated data that carry no information on the lower tail).
    """
    spread = fam.log_sd(params)
    with np.errstate(all="ignore"):
        median = float(fam.law(params).median())
    if not np.isfinite(spread) or spread > 50:
        raise FitError(f"the estimate spreads ln t with a standard deviation of {spread:.3g} (over 20 decades): "
                       "the likelihood has no finite maximum at a proper distribution")
    if not median > 1e-6 * sample.tmin:
        raise FitError(f"the estimated median ({median:.3g} h) is a million times below the shortest duration: "
                       "the likelihood has no finite maximum at a proper distribution")


def _no_failure_message(sample, n, conf):
    exposure = sample.exposure
    lower = 2 * exposure / stats.chi2.ppf(conf, 2)
    return (f"no failures among {n} durations (all censored, {exposure:.6g} h at risk): no distribution can be "
            f"fitted; the one-sided {conf:.0%} lower bound on the mean time to failure is {lower:.6g} h")


def _result(fam, sample, theta, ll, hess, n, d, conf, requested, note, exact=True):
    params = fam.params(theta)
    cov_theta = _invert(hess)
    z = float(special.ndtri(0.5 + conf / 2))
    exact_bounds = (fam.exact_interval(sample, d, conf) if exact else None) or {}
    rows, jac = [], []
    for i, (name, pos) in enumerate(zip(fam.param_names, fam.positive)):
        est, se_t = params[name], float(np.sqrt(max(cov_theta[i, i], 0.0)))
        lo, hi = (est * np.exp(-z * se_t), est * np.exp(z * se_t)) if pos else (est - z * se_t, est + z * se_t)
        lo, hi = exact_bounds.get(name, (lo, hi))
        rows.append([name, est, float(lo), float(hi), est * se_t if pos else se_t])
        jac.append(est if pos else 1.0)
    names = ["param", "estimate", "lower", "upper", "se"]
    ci = pd.DataFrame({name: [row[j] for row in rows] for j, name in enumerate(names)})
    jac = np.diag(jac)
    law = fam.law(params)
    k = fam.n_params
    res = FitResult(
        family=fam.name, params=params, ci=ci, loglik=float(ll), aic=float(2 * k - 2 * ll),
        bic=float(k * np.log(n) - 2 * ll), n=n, n_observed=d, mean_h=float(law.mean()),
        median_h=float(law.median()), conf=conf, cov=jac @ cov_theta @ jac, requested=requested, note=note,
    )
    _warn_if_extrapolating(res, sample)
    return res


def _invert(hess):
    try:
        cov = np.linalg.inv(-np.asarray(hess, float))
    except np.linalg.LinAlgError:
        cov = np.full(np.shape(hess), np.nan)
    if not np.all(np.isfinite(cov)) or np.any(np.diag(cov) < 0):
        warnings.warn("the information matrix is singular: standard errors are not available",
                      FitWarning, stacklevel=5)
        cov = np.full(np.shape(hess), np.nan)
    return cov


def _warn_if_extrapolating(res, sample):
    tmax = sample.tmax
    problems = []
    if not np.isfinite(res.median_h) or res.median_h > 1e3 * tmax:
        problems.append(f"the median ({res.median_h:.3g} h) is beyond 1000x the longest duration ({tmax:.3g} h)")
    lower, upper = res.ci["lower"].to_numpy(float), res.ci["upper"].to_numpy(float)
    pos = lower > 0
    width = (upper[pos] / lower[pos]).max() if pos.any() else 1.0
    if width > 1e6:
        problems.append("a parameter's confidence interval spans more than a factor of 10^6")
    if problems:
        warnings.warn(f"{res.family} fit is poorly determined by the data: " + "; ".join(problems),
                      FitWarning, stacklevel=5)
