"""Censored maximum-likelihood fits of failure-time distributions.

:func:`fit` fits one family (see :mod:`relmodel.stats.lifetimes.families`) to durations in
hours, with right-censoring and optional left-truncation, and returns a
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
  ``requested`` naming the family that was asked for (:func:`relmodel.weibayes`
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
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats

from ...data.durations import Durations
from ...errors import FitError
from .families import get_family
from .mle import Sample
from ...units import hours
from ...tables import html_table
from relmodel.escape import html_text

__all__ = ["fit", "FitResult", "FitWarning", "MIN_FAILURES", "prepare"]

MIN_FAILURES = 3


class FitWarning(UserWarning):
    """A fit was made, but the data limit what it can say (read the message)."""


@dataclass(frozen=True, eq=False)
class FitResult:
    """A fitted failure-time distribution (all times in hours).

    ``ci`` has one row per parameter: ``param, estimate, lower, upper, se``.
    Intervals for positive parameters are computed on the log scale (so they
    stay positive); ``mu`` of the log-normal gets a symmetric interval; the
    exponential's interval is the chi-square one.  ``cov`` is the covariance of
    the natural parameters (inverse observed information, delta method).
    """

    family: str
    params: dict
    ci: pd.DataFrame
    loglik: float
    aic: float
    bic: float
    n: int
    n_observed: int
    mean_h: float
    median_h: float
    conf: float = 0.95
    cov: np.ndarray = field(default=None, repr=False)
    requested: str = None
    note: str = ""

    @cached_property
    def dist(self):
        """The frozen ``scipy.stats`` distribution."""
        return get_family(self.family).dist(self.params)

    def sf(self, t):
        """Survival function S(t) = P(T > t)."""
        return self.dist.sf(hours(t))

    def cdf(self, t):
        """Cumulative distribution F(t) = P(T <= t)."""
        return self.dist.cdf(hours(t))

    def pdf(self, t):
        """Probability density f(t), per hour."""
        return self.dist.pdf(hours(t))

    def hazard(self, t):
        """Hazard rate h(t) = f(t)/S(t), failures per hour."""
        t = hours(t)
        d = self.dist
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.exp(d.logpdf(t) - d.logsf(t))

    def cumhazard(self, t):
        """Cumulative hazard H(t) = -ln S(t)."""
        return -self.dist.logsf(hours(t))

    def ppf(self, q):
        """Quantile function: the time by which a fraction ``q`` has failed."""
        return self.dist.ppf(q)

    def sample(self, n, rng=None):
        """``n`` random durations (hours) from the fitted distribution."""
        return self.dist.rvs(size=n, random_state=np.random.default_rng(rng))

    def to_frame(self):
        """The parameter table, with a leading ``family`` column."""
        out = self.ci.copy()
        out.insert(0, "family", self.family)
        return out

    def summary(self):
        """Headline numbers as a Series."""
        keys = ("family", "n", "n_observed", "loglik", "aic", "bic", "mean_h", "median_h")
        return pd.Series({k: getattr(self, k) for k in keys})

    def _repr_html_(self):
        head = (f"<b>{html_text(self.family)} fit</b>: n = {self.n}, failures = {self.n_observed}, "
                f"log-likelihood = {self.loglik:.4f}, AIC = {self.aic:.2f}, "
                f"mean = {self.mean_h:.4g} h, median = {self.median_h:.4g} h")
        note = f"<br><i>{html_text(self.note)}</i>" if self.note else ""
        return head + note + html_table(self.ci, index=False, float_format=lambda x: f"{x:.6g}")

    def __repr__(self):
        ps = ", ".join(f"{k}={v:.6g}" for k, v in self.params.items())
        return f"FitResult({self.family}: {ps}; n={self.n}, failures={self.n_observed}, loglik={self.loglik:.4f})"


def prepare(data, observed=None, entry=None):
    """Check and convert input to a :class:`relmodel.stats.lifetimes.mle.Sample` (hours).

    ``data`` is a :class:`~relmodel.data.durations.Durations`, a Series, or an
    array/list of durations (numbers are hours; strings such as ``"3h"`` and
    timedeltas are converted).  Raises :class:`FitError` on bad input; warns
    (:class:`FitWarning`) when zero durations are moved off zero.
    """
    if isinstance(data, Durations):
        t = data.hours
        observed = data.observed if observed is None else observed
        entry = data.entry if entry is None else entry
    else:
        t = np.atleast_1d(hours(data.to_numpy() if isinstance(data, pd.Series) else data)).astype(float).ravel()
    if t.size == 0:
        raise FitError("no durations to fit; pass at least one duration in hours")
    obs = np.ones(t.size, bool) if observed is None else np.asarray(observed).ravel()
    if obs.shape != t.shape:
        raise FitError(f"observed has {obs.size} values but there are {t.size} durations")
    if obs.dtype != bool:
        if not np.isin(obs, (0, 1)).all():
            raise FitError("observed must be True/False (or 1/0) per duration: True = a failure, False = censored")
        obs = obs.astype(bool)
    _check_values(t, "duration")
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
    t = _lift_zeros(t)
    return Sample(t, obs, entry)


def _check_values(x, what):
    bad = np.flatnonzero(~np.isfinite(x) | (x < 0))
    if bad.size:
        i = bad[0]
        raise FitError(f"row {i + 1}: {what} {float(x[i]):g} is not valid; {what}s must be finite hours >= 0 "
                       f"({bad.size} bad value{'s' if bad.size > 1 else ''})")


def _lift_zeros(t):
    zero = t == 0
    if not zero.any():
        return t
    pos = t[~zero]
    if pos.size == 0:
        raise FitError("every duration is zero; nothing can be fitted")
    floor = pos.min() / 2
    warnings.warn(f"{int(zero.sum())} zero duration(s) set to {floor:.3g} h (half the smallest positive "
                  "duration), as the log cannot resolve shorter times", FitWarning, stacklevel=4)
    return np.where(zero, floor, t)


def fit(data, family, *, observed=None, entry=None, conf=0.95):
    """Fit a failure-time distribution by censored maximum likelihood.

    Parameters
    ----------
    data : Durations, array of hours, list or Series
        Durations (hours, or strings/timedeltas).  A ``Durations`` carries its
        own ``observed`` mask and ``entry`` times.
    family : str
        ``"exponential"``, ``"weibull"``, ``"lognormal"``, ``"gamma"`` or
        ``"loglogistic"`` (see :mod:`relmodel.stats.lifetimes.families` for the parameters).
    observed : bool array, optional
        False where the duration is right-censored (the unit was still up).
    entry : array of hours, optional
        Left-truncation times: how long each unit had already survived when
        observation began.
    conf : float
        Confidence level of the intervals in ``ci``.

    Returns
    -------
    FitResult

    Examples
    --------
    >>> r = fit([12.0, 30.5, 7.2, 55.0, 41.0, 18.3], "weibull", observed=[1, 1, 1, 0, 1, 1])
    >>> round(r.params["shape"], 3), round(r.median_h, 1)
    (1.404, 25.8)
    >>> r.ci.round(3).to_string(index=False).splitlines()[1]
    'shape     1.404  0.681  2.894  0.518'
    """
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1, got {conf!r}")
    return fit_sample(prepare(data, observed, entry), family, conf=conf)


def fit_sample(sample, family, *, conf=0.95):
    """Fit ``family`` to a prepared :class:`relmodel.stats.lifetimes.mle.Sample` (see :func:`fit`)."""
    fam = get_family(family)
    n = int(sample.t.size if sample.w is None else sample.w.sum())
    d = sample.d
    if d == 0:
        raise FitError(_no_failure_message(sample, n, conf))
    requested, note = None, ""
    if fam.n_params > 1:
        fail = sample.t[sample.obs]
        distinct = 1 if fail.min() == fail.max() else 2  # exact whenever it matters (d < 3)
        if d < MIN_FAILURES or distinct < 2:
            requested, fam = fam.name, get_family("exponential")
            note = (f"{int(d)} failure(s) at {distinct} distinct time(s): a {requested} shape needs at least "
                    f"{MIN_FAILURES} failures at 2 or more distinct times; this is the exponential fit, "
                    "with its chi-square interval (with a shape known from similar parts, relmodel.weibayes "
                    "estimates the scale instead)")
            warnings.warn(note, FitWarning, stacklevel=3)
    work = sample.compressed() if fam.name not in ("exponential", "weibull") else None
    try:
        theta, ll, hess = fam.maximise(work or sample)
        _check_proper(fam, fam.params(theta), sample)
    except FitError as exc:
        raise FitError(f"{fam.name} fit failed: {exc}; these data do not determine a {fam.name} "
                       "distribution (try another family)") from None
    return _result(fam, sample, theta, ll, hess, n, int(d), conf, requested, note)


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
    if not median > 1e-6 * float(np.min(sample.t)):
        raise FitError(f"the estimated median ({median:.3g} h) is a million times below the shortest duration: "
                       "the likelihood has no finite maximum at a proper distribution")


def _no_failure_message(sample, n, conf):
    exposure = sample.total(sample.t) - (0 if sample.entry is None else sample.total(sample.entry))
    lower = 2 * exposure / stats.chi2.ppf(conf, 2)
    return (f"no failures among {n} durations (all censored, {exposure:.6g} h at risk): no distribution can be "
            f"fitted; the one-sided {conf:.0%} lower bound on the mean time to failure is {lower:.6g} h")


def _result(fam, sample, theta, ll, hess, n, d, conf, requested, note):
    params = fam.params(theta)
    cov_theta = _invert(hess)
    z = stats.norm.ppf(0.5 + conf / 2)
    rows, jac = [], []
    for i, (name, pos) in enumerate(zip(fam.param_names, fam.positive)):
        est, se_t = params[name], float(np.sqrt(max(cov_theta[i, i], 0.0)))
        lo, hi = (est * np.exp(-z * se_t), est * np.exp(z * se_t)) if pos else (est - z * se_t, est + z * se_t)
        rows.append([name, est, lo, hi, est * se_t if pos else se_t])
        jac.append(est if pos else 1.0)
    ci = pd.DataFrame(rows, columns=["param", "estimate", "lower", "upper", "se"])
    if fam.name == "exponential":
        ci.loc[0, ["lower", "upper"]] = _exponential_interval(sample, d, conf)
    jac = np.diag(jac)
    dist = fam.dist(params)
    k = fam.n_params
    res = FitResult(
        family=fam.name, params=params, ci=ci, loglik=float(ll), aic=float(2 * k - 2 * ll),
        bic=float(k * np.log(n) - 2 * ll), n=n, n_observed=d, mean_h=float(dist.mean()),
        median_h=float(dist.median()), conf=conf, cov=jac @ cov_theta @ jac, requested=requested, note=note,
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


def _exponential_interval(sample, d, conf):
    """Chi-square interval for the mean (time-terminated test; Epstein 1960)."""
    exposure = sample.total(sample.t) - (0 if sample.entry is None else sample.total(sample.entry))
    a = 1 - conf
    return 2 * exposure / stats.chi2.ppf(1 - a / 2, 2 * d + 2), 2 * exposure / stats.chi2.ppf(a / 2, 2 * d)


def _warn_if_extrapolating(res, sample):
    tmax = float(np.max(sample.t))
    problems = []
    if not np.isfinite(res.median_h) or res.median_h > 1e3 * tmax:
        problems.append(f"the median ({res.median_h:.3g} h) is beyond 1000x the longest duration ({tmax:.3g} h)")
    ci = res.ci
    pos = ci["lower"] > 0
    width = (ci["upper"][pos] / ci["lower"][pos]).max() if pos.any() else 1.0
    if width > 1e6:
        problems.append("a parameter's confidence interval spans more than a factor of 10^6")
    if problems:
        warnings.warn(f"{res.family} fit is poorly determined by the data: " + "; ".join(problems),
                      FitWarning, stacklevel=5)
