"""Regression of failure times on covariates: Cox and accelerated-failure-time models.

:func:`regress` asks *why* some units fail sooner (GPU SKU, rack position,
firmware, vendor).  It runs relmodel's own Newton-Raphson engines
(:mod:`relmodel.stats.regression.cox_engine`, :mod:`relmodel.stats.regression.aft_engine`; equal to
R's ``coxph`` and ``survreg``, with lifelines as the cross-check in the tests)
with relmodel's conventions on top: durations in hours (strings and timedeltas
accepted), categorical covariates encoded against a named reference level
(:mod:`relmodel.stats.regression.covariates`), named errors for covariates a regression
cannot use, and a :class:`RegressionResult` whose table reads in words.

* Cox: hazard ratios (above 1 fails sooner), fitted by relmodel's own engine
  (:mod:`relmodel.stats.regression.cox_engine`: Efron or Breslow ties, strata, left
  truncation or counting-process ``entry``, weights, offsets; equal to R's
  ``coxph``), and the proportional-hazards score test of R's ``cox.zph``
  (:mod:`relmodel.stats.regression.cox_zph`) with a verdict.
* AFT: time ratios (below 1 fails sooner): ``ln T = x'b + s W`` (Weibull,
  lognormal, log-logistic), with entry times and weights; the sandwich, like
  ``survreg``'s, sums unweighted scores.
* ``cluster`` or ``robust=True``: Lin and Wei's sandwich errors (JASA 84,
  1989), by cluster or with each row its own cluster, as ``coxph`` and
  ``survreg``.
* Categorical covariates are coded against their first level (sorted, R's
  default) unless ``reference`` names another; a level whose estimate runs
  off to infinity (quasi-separation) fits with a
  :class:`~relmodel.errors.SeparationWarning`, as R does
  (``on_separation="raise"`` raises :class:`~relmodel.errors.SeparationError`).

The Andersen-Gill form for recurrent failures of the same nodes lives in
:mod:`relmodel.stats.regression.recurrent`.
"""

import warnings
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import CovariateError, FitError, SeparationError, SeparationWarning
from ...units import hours
from .concordance import concordance_index
from .covariates import design, pick_column, survival_columns
from .aft_engine import aft_fit
from .cox_engine import TIES, cox_fit
from .cox_zph import PHCheck, TRANSFORMS, ph_check
from ..lifetimes.base import _Gumbel, _Logistic, _Normal
from ...tables import Result, people_table
from relmodel.base.escape import html_text

__all__ = ["regress", "RegressionResult", "PHCheck", "MODELS"]

# model -> (law of the engine, name of the scale parameter, power of s it is: rho = 1/s, sigma = s, beta = 1/s)
_AFT = {"weibull_aft": ("weibull", "rho", -1), "lognormal_aft": ("lognormal", "sigma", 1),
        "loglogistic_aft": ("loglogistic", "beta", -1)}
MODELS = ("cox",) + tuple(_AFT)


@dataclass(frozen=True, eq=False)
class RegressionResult(Result):
    """A fitted regression: ratios with intervals per coefficient (times in hours).

    ``coefficients`` columns: ``term`` (design column), ``covariate``, ``level``,
    ``reference``, ``ratio`` (hazard ratio for Cox, time ratio for AFT),
    ``lower``, ``upper``, ``p``, ``coef``, ``se``.  ``references`` maps each
    categorical covariate to its reference level.  ``fitter`` is the fit
    object (a :class:`~relmodel.stats.regression.cox_engine.CoxFit` for Cox), for
    anything not summarised here.  ``concordance`` (Harrell's C) and
    ``ph_check`` (the proportional-hazards test of a Cox fit) are computed
    when first read.
    """

    model: str
    ratio_name: str
    coefficients: pd.DataFrame
    references: dict
    n: int
    n_events: int
    loglik: float
    aic: float
    conf: float
    robust: bool
    scale: dict = field(default_factory=dict)
    fitter: object = field(default=None, repr=False)
    concordance_data: tuple = field(default=None, repr=False)
    ph_data: tuple = field(default=None, repr=False)
    #: Which variance the errors and intervals take: "model-based", "robust (sandwich, each row its own
    #: cluster)" or "cluster-robust", with why when it was chosen by default.
    variance: str = "model-based"

    @cached_property
    def ph_check(self) -> PHCheck | None:
        """The proportional-hazards check of a Cox fit (None for AFT models), computed when first read."""
        if self.ph_data is None:
            return None
        fit, stop, event, terms, entry, transform = self.ph_data
        try:
            return ph_check(fit, stop, event, terms, entry=entry, transform=transform)
        except np.linalg.LinAlgError:     # a singular augmented information (e.g. infinite estimates)
            empty = pd.DataFrame(columns=["term", "statistic", "df", "p", "proportional"])
            return PHCheck(empty, "Proportional hazards could not be checked (singular information)", True)

    @cached_property
    def concordance(self):
        """Harrell's C of the fitted risk scores (0.5: no better than chance)."""
        time, score, event = self.concordance_data
        return concordance_index(time, score, event)

    def to_frame(self):
        """The coefficient table with headers in words."""
        t = self.coefficients
        pct = f"{100 * self.conf:g}%"
        return pd.DataFrame({
            "covariate": t["covariate"].to_numpy(),
            "level (vs reference)": [("" if lv is None else f"{lv} vs {ref}") for lv, ref in zip(t["level"],
                                                                                             t["reference"])],
            self.ratio_name: t["ratio"], f"{pct} lower": t["lower"], f"{pct} upper": t["upper"], "p-value": t["p"],
        })

    def _people(self):
        return people_table(self._people_raw())

    def _people_raw(self):
        """The coefficient table as text for a report: two decimals, p-values in words below 0.001."""
        t = self.to_frame()
        for c in t.columns[2:5]:
            t[c] = t[c].map("{:,.2f}".format)
        t["p-value"] = t["p-value"].map(lambda p: "not estimable" if not np.isfinite(p) else
                                        "below 0.001" if p < 1e-3 else f"{p:.3f}")
        t["level (vs reference)"] = t["level (vs reference)"].replace("", "per unit")
        return t

    def text(self):
        """One sentence per coefficient whose interval excludes 1 (empty when none does)."""
        return " ".join(s + "." for s in self._sentences())

    def _sentences(self):
        out = []
        for _, r in self.coefficients.iterrows():
            if r["lower"] > 1 or r["upper"] < 1:
                what = (f"{r['covariate']} (per unit)" if r["level"] is None
                        else f"{r['covariate']} = {r['level']} (vs {r['reference']})")
                faster = (r["ratio"] > 1) == (self.model == "cox")
                out.append(f"{what}: {self.ratio_name} {r['ratio']:.2f} ({r['lower']:.2f} to {r['upper']:.2f}), "
                           f"fails {'sooner' if faster else 'later'}")
        return out

    def _repr_html_(self):
        head = (f"<p><b>{html_text(self.model)} regression</b>: n = {self.n:,}, failures = {self.n_events:,}, "
                f"concordance = {self.concordance:.3f}; errors: {html_text(self.variance)}</p>")
        ph = "" if self.ph_check is None else f"<p>{html_text(self.ph_check.verdict)}</p>"
        return head + Result._repr_html_(self) + ph

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()

    def __repr__(self):
        return (f"RegressionResult({self.model}: {len(self.coefficients)} coefficients, n={self.n}, "
                f"failures={self.n_events})")


def _frame(data, covariates, duration, observed, entry, cluster, strata):
    """A clean working frame with columns _t, _e, (_entry), (_cluster), strata, covariates."""
    t, e = survival_columns(data, duration, observed)
    work = pd.DataFrame({"_t": t, "_e": e}, index=data.index)
    if entry is not None:
        pick_column(data, entry, (), "entry")
        work["_entry"] = np.asarray(hours(data[entry].to_numpy()), float)
        if (work["_entry"] >= work["_t"]).any():
            raise FitError("entry times must be before the end of each interval")
    if cluster is not None:
        pick_column(data, cluster, (), "cluster")
        work["_cluster"] = data[cluster].to_numpy()
    for s in [strata] if isinstance(strata, str) else list(strata or []):
        pick_column(data, s, (), "strata")
        work[s] = data[s].to_numpy()
    return work, data


def regress(source, covariates, model="cox", *, duration=None, observed=None, entry=None, cluster=None,
            strata=None, reference=None, categorical=(), conf=0.95, ties="efron", robust=None, weights=None,
            offset=None, on_separation="warn", ph_transform="km"):
    """Regress failure times on covariates.

    Parameters
    ----------
    source : DataFrame
        One row per duration: a duration column (hours, or strings such as
        ``"3h"``; default the first of ``duration_h``, ``hours``, ``duration``,
        ``stop_h``, ``time``), an observed column (True = failure; default
        ``observed``, ``event`` or ``failed``, else all failures) and the covariates.
    covariates : list of column names
        Numeric columns enter as they are; others are categorical, coded
        against ``reference[column]`` (default: the first level, sorted, as
        R does).  Numeric columns named in ``categorical`` (positions, codes)
        are treated as categories too.
    model : "cox", "weibull_aft", "lognormal_aft" or "loglogistic_aft"
    entry : column of entry times (left truncation; counting-process start):
        a row is at risk on (entry, duration]
    cluster : column naming the unit; errors become cluster-robust
    strata : column(s) with their own baseline hazard (Cox only)
    conf : level of the intervals
    ties : "efron" (default, as ``coxph``) or "breslow" (Cox only)
    robust : sandwich errors with each row its own cluster when no ``cluster`` is given.  None (the
        default) is R's default: for a Cox model, robust when some case weight is not a whole number
        (sampling weights, as ``coxph`` does), else model-based; the result's ``variance`` says which
    weights : column of case weights (whole numbers act as repeated rows)
    offset : column added to the linear predictor with coefficient 1 (Cox only)
    on_separation : "warn" (default: fit, and warn with
        :class:`~relmodel.errors.SeparationWarning` naming each infinite
        estimate) or "raise" (:class:`~relmodel.errors.SeparationError`)
    ph_transform : time scale of the Cox proportional-hazards test: "km", "rank" or "identity"

    Returns a :class:`RegressionResult`.  Raises
    :class:`~relmodel.errors.CovariateError` (constant covariate, missing
    values, fewer failures than coefficients); warns
    :class:`~relmodel.stats.regression.covariates.CovariateWarning` below 10 failures per
    coefficient.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"duration_h": [12.0, 30, 45, 60, 80, 95, 110, 150, 200, 260,
    ...                                   5, 9, 14, 22, 28, 35, 41, 55, 70, 90], "hot": [0] * 10 + [1] * 10})
    >>> r = regress(df, ["hot"])                        # every row a failure (no observed column)
    >>> t = r.coefficients.iloc[0]
    >>> t["term"], [round(float(t[k]), 2) for k in ("ratio", "lower", "upper")]   # hazard ratio, hot vs cool
    ('hot', [4.18, 1.38, 12.69])
    """
    _check_options(model, conf, strata, ties, on_separation, ph_transform, offset)
    work, source = _frame(source, covariates, duration, observed, entry, cluster, strata)
    for name, col in (("_w", weights), ("_off", offset)):
        if col is not None:
            pick_column(source, col, (), "weights" if name == "_w" else "offset")
            work[name] = _finite(source[col], col, positive=name == "_w")
    x, refs, labels = design(source, covariates, work["_e"], reference=reference, extra=0 if model == "cox" else 1,
                             categorical=categorical, separation=on_separation)
    df = pd.concat([work, x], axis=1).reset_index(drop=True)
    names = list(x.columns)
    robust, variance = _variance(model, robust, cluster, df["_w"].to_numpy() if "_w" in df else None)
    if model == "cox":
        fit = _fit_cox(df, names, strata, ties, robust)
        table = _cox_table(fit, names, labels, conf)
        ph = (fit, fit.times[0], df["_e"].to_numpy(), _terms(names, labels), fit.times[1], ph_transform)
        loglik, aic, scale, score = fit.loglik, -2 * fit.loglik + 2 * len(names), {}, fit.risk
        _separation(table, fit.infinite, on_separation)
    else:
        fit = _fit_aft(df, names, model, robust)
        var = fit.var if fit.robust_var is None else fit.robust_var
        k = len(names)
        table = _coef_table(names, labels, fit.coef[1:k + 1], np.sqrt(np.diag(var))[1:k + 1], conf)
        _separation(table, fit.infinite[1:k + 1], on_separation)
        law, scale_name, power = _AFT[model]
        ph, loglik, aic, score = None, fit.loglik, -2 * fit.loglik + 2 * (k + 2), -fit.eta
        scale = {scale_name: fit.scale**power}
    refs = {k: _plain(v) for k, v in refs.items()}
    return RegressionResult(model, "hazard ratio" if model == "cox" else "time ratio", table, refs, len(df),
                            int(df["_e"].sum()), float(loglik), float(aic), conf,
                            cluster is not None or bool(robust), scale, fit,
                            (df["_t"].to_numpy(), np.asarray(score, float), df["_e"].to_numpy() > 0), ph,
                            variance)


def _variance(model, robust, cluster, w):
    """``(robust, words)``: R's choice of variance (coxph: robust for weights that are not whole numbers)."""
    if cluster is not None:  # always the sandwich by cluster (cox_fit and aft_fit take it so)
        return True, "cluster-robust (sandwich by cluster)"
    if robust is None:
        fractional = w is not None and bool(np.any(w != np.floor(w)))
        robust = model == "cox" and fractional
        if robust:
            return True, ("robust (sandwich, each row its own cluster), as R's coxph gives for case weights "
                          "that are not whole numbers; robust=False gives the model-based errors")
    return bool(robust), "robust (sandwich, each row its own cluster)" if robust else "model-based"


def _check_options(model, conf, strata, ties, on_separation, ph_transform, offset):
    if model not in MODELS:
        raise FitError(f"unknown model {model!r}; valid models are {', '.join(MODELS)}")
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1, got {conf!r}")
    if strata is not None and model != "cox":
        raise FitError("strata apply to the Cox model only; for an AFT model add the column as a covariate")
    if offset is not None and model != "cox":
        raise FitError("offset applies to the Cox model only")
    if ties not in TIES:
        raise FitError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    if on_separation not in ("warn", "raise"):
        raise FitError(f"on_separation must be 'warn' or 'raise', got {on_separation!r}")
    if ph_transform not in TRANSFORMS:
        raise FitError(f"ph_transform must be one of {', '.join(TRANSFORMS)}, got {ph_transform!r}")


def _finite(col, name, positive=False):
    v = pd.to_numeric(col, errors="coerce").to_numpy(float)
    bad = ~np.isfinite(v) | ((v <= 0) if positive else False)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        need = "finite numbers > 0" if positive else "finite numbers"
        raise FitError(f"column {name!r}, row {i}: {col.iloc[i]!r} is not valid; {name} must be {need}")
    return v


def _terms(names, labels):
    """Covariate -> indices of its design columns (one term per covariate, as R's cox.zph)."""
    out = {}
    for i, n in enumerate(names):
        out.setdefault(labels[n][0], []).append(i)
    return out


def _fit_cox(df, names, strata, ties, robust):
    cols = [strata] if isinstance(strata, str) else list(strata or [])
    groups = df.groupby(cols, sort=True).ngroup().to_numpy() if cols else None
    return cox_fit(df["_t"].to_numpy(), df["_e"].to_numpy(), df[names].to_numpy(float),
                   entry=df["_entry"].to_numpy() if "_entry" in df else None, strata=groups,
                   weights=df["_w"].to_numpy() if "_w" in df else None,
                   offset=df["_off"].to_numpy() if "_off" in df else None, ties=ties,
                   cluster=df["_cluster"].to_numpy() if "_cluster" in df else None, robust=robust)


def _fit_aft(df, names, model, robust):
    x = np.column_stack([np.ones(len(df)), df[names].to_numpy(float)])
    return aft_fit(df["_t"].to_numpy(), df["_e"].to_numpy(), x, _AFT[model][0],
                   entry=df["_entry"].to_numpy() if "_entry" in df else None,
                   weights=df["_w"].to_numpy() if "_w" in df else None,
                   cluster=df["_cluster"].to_numpy() if "_cluster" in df else None, robust=robust)


def _cox_table(fit, names, labels, conf):
    var = fit.var if fit.robust_var is None else fit.robust_var
    return _coef_table(names, labels, fit.coef, np.sqrt(np.diag(var)), conf)


def _coef_table(names, labels, coef, se, conf):
    z = stats.norm.ppf(0.5 + conf / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2 * stats.norm.sf(np.abs(coef / se))
    t = pd.DataFrame({"term": names, "covariate": [labels[n][0] for n in names],
                      "level": pd.Series([_plain(labels[n][1]) for n in names], dtype=object),
                      "reference": pd.Series([_plain(labels[n][2]) for n in names], dtype=object)})
    with np.errstate(over="ignore"):
        t["ratio"], t["lower"], t["upper"] = np.exp(coef), np.exp(coef - z * se), np.exp(coef + z * se)
    t["p"], t["coef"], t["se"] = p, coef, se
    return t


def _separation(table, infinite, on_separation):
    """Warn (or raise) for each estimate that runs off to infinity."""
    for i in np.flatnonzero(infinite):
        r = table.iloc[i]
        what = (f"covariate {r['covariate']!r}" if r["level"] is None
                else f"level {r['level']!r} of covariate {r['covariate']!r}")
        where = "infinity" if r["coef"] > 0 else "zero"
        msg = (f"{what} separates failures from survivors: its ratio runs off to {where} (estimate "
               f"{'+' if r['coef'] > 0 else '-'}infinity; the fit stopped at coefficient {r['coef']:.1f}, as R's "
               "coxph and survreg report it); merge levels, drop it or coarsen it")
        if on_separation == "raise":
            raise SeparationError(msg)
        warnings.warn(msg, SeparationWarning, stacklevel=3)


def _plain(value):
    """numpy scalars as plain Python values (so levels print as 2, not 2.0 or np.int64(2))."""
    return value.item() if isinstance(value, np.generic) else value
