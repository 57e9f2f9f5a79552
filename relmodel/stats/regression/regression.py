"""Regression of failure times on covariates: Cox and accelerated-failure-time models.

:func:`regress` asks *why* some units fail sooner (GPU SKU, rack position,
firmware, vendor).  It is built on lifelines (``CoxPHFitter``,
``WeibullAFTFitter``, ``LogNormalAFTFitter``, ``LogLogisticAFTFitter``) with
relmodel's conventions on top: durations in hours (strings and timedeltas
accepted), categorical covariates encoded against a named reference level
(:mod:`relmodel.stats.regression.covariates`), named errors for covariates a regression
cannot use, and a :class:`RegressionResult` whose table reads in words.

* Cox: hazard ratios (above 1 fails sooner), Efron ties, optional strata and
  left truncation (``entry``), and the proportional-hazards check on scaled
  Schoenfeld residuals (Grambsch and Therneau, Biometrika 81, 1994) with a
  verdict.
* AFT: time ratios (below 1 fails sooner): ``ln T = x'b + s W``.
* ``cluster``: cluster-robust (sandwich) errors when units repeat (Lin and Wei,
  JASA 84, 1989); lifelines' for Cox, computed here from the per-row scores
  for the AFT models (checked against lifelines' row-robust errors).

The Andersen-Gill form for recurrent failures of the same nodes lives in
:mod:`relmodel.stats.regression.recurrent`.
"""

import html
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import CovariateError, FitError, SeparationError
from ...units import hours
from .covariates import design, pick_column, survival_columns
from ..lifetimes.base import _Gumbel, _Logistic, _Normal
from ...deprecation import renamed
from ...tables import html_table

__all__ = ["regress", "RegressionResult", "PHCheck", "MODELS"]

# model -> (lifelines fitter, location parameter, scale parameter, sign of ln s in its scale coefficient, law)
_AFT = {"weibull_aft": ("WeibullAFTFitter", "lambda_", "rho_", -1.0, _Gumbel),
        "lognormal_aft": ("LogNormalAFTFitter", "mu_", "sigma_", 1.0, _Normal),
        "loglogistic_aft": ("LogLogisticAFTFitter", "alpha_", "beta_", -1.0, _Logistic)}
MODELS = ("cox",) + tuple(_AFT)


@dataclass(frozen=True, eq=False)
class PHCheck:
    """Proportional-hazards check: one row per coefficient, and a verdict in words."""

    table: pd.DataFrame
    verdict: str
    ok: bool
    alpha: float = 0.05

    def to_frame(self):
        return self.table.copy()

    def _repr_html_(self):
        return f"<p>{html.escape(self.verdict)}</p>" + html_table(self.table, index=False, float_format="{:.3g}".format)


@dataclass(frozen=True, eq=False)
class RegressionResult:
    """A fitted regression: ratios with intervals per coefficient (times in hours).

    ``table`` columns: ``term`` (design column), ``covariate``, ``level``,
    ``reference``, ``ratio`` (hazard ratio for Cox, time ratio for AFT),
    ``lower``, ``upper``, ``p``, ``coef``, ``se``.  ``references`` maps each
    categorical covariate to its reference level.  ``fitter`` is the lifelines
    object, for anything not summarised here.
    """

    model: str
    ratio_name: str
    table: pd.DataFrame
    references: dict
    n: int
    n_events: int
    loglik: float
    aic: float
    concordance: float
    conf: float
    robust: bool
    ph_check: PHCheck | None = None
    scale: dict = field(default_factory=dict)
    fitter: object = field(default=None, repr=False)

    def to_frame(self):
        """The coefficient table with headers in words."""
        t = self.table
        pct = f"{100 * self.conf:g}%"
        return pd.DataFrame({
            "covariate": t["covariate"].to_numpy(),
            "level (vs reference)": [("" if lv is None else f"{lv} vs {ref}") for lv, ref in zip(t["level"],
                                                                                             t["reference"])],
            self.ratio_name: t["ratio"], f"{pct} lower": t["lower"], f"{pct} upper": t["upper"], "p-value": t["p"],
        })

    def report_table(self):
        """The coefficient table as text for a report: two decimals, p-values in words below 0.001."""
        t = self.to_frame()
        for c in t.columns[2:5]:
            t[c] = t[c].map("{:,.2f}".format)
        t["p-value"] = t["p-value"].map(lambda p: "below 0.001" if p < 1e-3 else f"{p:.3f}")
        t["level (vs reference)"] = t["level (vs reference)"].replace("", "per unit")
        return t

    def text(self):
        """One sentence per coefficient whose interval excludes 1 (empty when none does)."""
        return " ".join(s + "." for s in self._sentences())

    def _sentences(self):
        out = []
        for _, r in self.table.iterrows():
            if r["lower"] > 1 or r["upper"] < 1:
                what = (f"{r['covariate']} (per unit)" if r["level"] is None
                        else f"{r['covariate']} = {r['level']} (vs {r['reference']})")
                faster = (r["ratio"] > 1) == (self.model == "cox")
                out.append(f"{what}: {self.ratio_name} {r['ratio']:.2f} ({r['lower']:.2f} to {r['upper']:.2f}), "
                           f"fails {'sooner' if faster else 'later'}")
        return out

    def _repr_html_(self):
        head = (f"<p><b>{self.model} regression</b>: n = {self.n:,}, failures = {self.n_events:,}, "
                f"concordance = {self.concordance:.3f}{', cluster-robust errors' if self.robust else ''}</p>")
        ph = "" if self.ph_check is None else f"<p>{html.escape(self.ph_check.verdict)}</p>"
        return head + html_table(self.to_frame(), index=False, float_format="{:.3g}".format) + ph

    sentences = renamed("sentences", "text", value=lambda self: self._sentences())

    def __repr__(self):
        return (f"RegressionResult({self.model}: {len(self.table)} coefficients, n={self.n}, "
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
        work["_cluster"] = data[cluster].astype(str).to_numpy()
    for s in [strata] if isinstance(strata, str) else list(strata or []):
        pick_column(data, s, (), "strata")
        work[s] = data[s].to_numpy()
    return work, data


def regress(data, covariates, model="cox", *, duration=None, observed=None, entry=None, cluster=None,
            strata=None, reference=None, categorical=(), conf=0.95):
    """Regress failure times on covariates.

    Parameters
    ----------
    data : DataFrame
        One row per duration: a duration column (hours, or strings such as
        ``"3h"``; default the first of ``duration_h``, ``hours``, ``duration``,
        ``stop_h``, ``time``), an observed column (True = failure; default
        ``observed``, ``event`` or ``failed``, else all failures) and the covariates.
    covariates : list of column names
        Numeric columns enter as they are; others are categorical, encoded
        against ``reference[column]`` (default: the most frequent level).
        Numeric columns named in ``categorical`` (positions, codes) are
        treated as categories too.
    model : "cox", "weibull_aft", "lognormal_aft" or "loglogistic_aft"
    entry : column of entry times (left truncation; counting-process start)
    cluster : column naming the unit; errors become cluster-robust
    strata : column(s) with their own baseline hazard (Cox only)
    conf : level of the intervals

    Returns a :class:`RegressionResult`.  Raises
    :class:`~relmodel.errors.CovariateError` (constant covariate, missing
    values, fewer failures than coefficients) and
    :class:`~relmodel.errors.SeparationError` (a level without failures, or a
    fit whose ratio runs off to 0 or infinity); warns
    :class:`~relmodel.stats.regression.covariates.CovariateWarning` below 10 failures per
    coefficient.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"duration_h": [12.0, 30, 45, 60, 80, 95, 110, 150, 200, 260,
    ...                                   5, 9, 14, 22, 28, 35, 41, 55, 70, 90], "hot": [0] * 10 + [1] * 10})
    >>> r = regress(df, ["hot"])                        # every row a failure (no observed column)
    >>> t = r.table.iloc[0]
    >>> t["term"], [round(float(t[k]), 2) for k in ("ratio", "lower", "upper")]   # hazard ratio, hot vs cool
    ('hot', [4.18, 1.38, 12.69])
    """
    if model not in MODELS:
        raise FitError(f"unknown model {model!r}; valid models are {', '.join(MODELS)}")
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1, got {conf!r}")
    if strata is not None and model != "cox":
        raise FitError("strata apply to the Cox model only; for an AFT model add the column as a covariate")
    work, data = _frame(data, covariates, duration, observed, entry, cluster, strata)
    x, refs, labels = design(data, covariates, work["_e"], reference=reference, extra=0 if model == "cox" else 1,
                             categorical=categorical)
    df = pd.concat([work, x], axis=1).reset_index(drop=True)
    if model == "cox":
        fitter, ph = _fit_cox(df, entry is not None, cluster is not None, strata, conf)
        names, coef_key = list(x.columns), None
    else:
        fitter, ph = _fit_aft(df, model, entry is not None, conf), None
        names, coef_key = list(x.columns), _AFT[model][1]
    cov = _covariance(fitter, df, model, entry is not None) if (cluster is not None and model != "cox") else None
    table = _table(fitter, names, coef_key, labels, conf, cov)
    _check_separation(table)
    scale = {} if model == "cox" else {_AFT[model][2].rstrip("_"): float(np.exp(fitter.params_[(_AFT[model][2],
                                                                                                 "Intercept")]))}
    aic = float(fitter.AIC_partial_ if model == "cox" else fitter.AIC_)
    refs = {k: _plain(v) for k, v in refs.items()}
    return RegressionResult(model, "hazard ratio" if model == "cox" else "time ratio", table, refs, len(df),
                            int(df["_e"].sum()), float(fitter.log_likelihood_), aic,
                            float(fitter.concordance_index_), conf, cluster is not None, ph, scale, fitter)


def _lifelines_fit(fitter, df, **kw):
    from lifelines.exceptions import ConvergenceError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fitter.fit(df, "_t", "_e", **kw)
        except ConvergenceError as exc:
            raise CovariateError("the regression did not converge: covariates are probably collinear (one is "
                                 "a combination of others) or separate failures from survivors; drop one. "
                                 f"lifelines said: {str(exc).splitlines()[0]}") from None
    for w in caught:
        if "separation" in str(w.message).lower():
            raise SeparationError("a covariate separates failures from survivors (perfect separation): its ratio "
                                  "runs off to 0 or infinity; drop it, merge levels or coarsen it")
    return fitter


def _fit_cox(df, has_entry, clustered, strata, conf):
    from lifelines import CoxPHFitter

    kw = {"entry_col": "_entry" if has_entry else None, "strata": strata,
          "cluster_col": "_cluster" if clustered else None}
    fitter = _lifelines_fit(CoxPHFitter(alpha=1 - conf), df, **kw)
    return fitter, _ph_check(fitter, df)


def _ph_check(fitter, df, alpha=0.05):
    """Scaled-Schoenfeld test of each coefficient against rank(time) (lifelines' proportional_hazard_test)."""
    from lifelines.statistics import proportional_hazard_test

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = proportional_hazard_test(fitter, df, time_transform="rank")
    except Exception as exc:  # lifelines cannot test some designs; say so rather than fail the fit
        return PHCheck(pd.DataFrame(columns=["term", "statistic", "p", "proportional"]),
                       f"Proportional hazards could not be checked ({type(exc).__name__})", True, alpha)
    s = res.summary
    table = pd.DataFrame({"term": [str(i) for i in s.index], "statistic": s["test_statistic"].to_numpy(float),
                          "p": s["p"].to_numpy(float)})
    table["proportional"] = table["p"] >= alpha
    bad = table[~table["proportional"]]
    if bad.empty:
        verdict = (f"Proportional hazards: no evidence against them (smallest {_p(table['p'].min())}, "
                   "scaled Schoenfeld residuals against time rank)")
    else:
        terms = ", ".join(f"{t} ({_p(p)})" for t, p in zip(bad["term"], bad["p"]))
        verdict = (f"Proportional hazards doubtful for {terms}: the hazard ratio changes with time; stratify on "
                   "that covariate (strata=...) or use an AFT model")
    return PHCheck(table, verdict, bad.empty, alpha)


def _p(p):
    return "p below 0.001" if p < 1e-3 else f"p = {p:.3f}"


def _fit_aft(df, model, has_entry, conf):
    import lifelines

    cls = getattr(lifelines, _AFT[model][0])
    return _lifelines_fit(cls(alpha=1 - conf), df.drop(columns=["_cluster"], errors="ignore"),
                          entry_col="_entry" if has_entry else None)


def _aft_scores(fitter, df, model, has_entry):
    """Per-row score vectors of the AFT log-likelihood, in the order of ``fitter.params_``."""
    _, loc, scl, sign, law = _AFT[model]
    params = fitter.params_
    terms = [c for (p, c) in params.index if p == loc]
    xm = np.column_stack([np.ones(len(df)) if c == "Intercept" else df[c].to_numpy(float) for c in terms])
    m = xm @ params[loc].loc[terms].to_numpy()
    s = np.exp(sign * params[(scl, "Intercept")])
    obs = df["_e"].to_numpy(bool)
    z = (np.log(df["_t"].to_numpy()) - m) / s
    _, g, _ = law.terms(z, obs)
    d_m, d_lns = -g / s, -g * z - obs
    if has_entry:
        e = df["_entry"].to_numpy()
        cut = e > 0
        ze = (np.log(np.where(cut, e, 1.0)) - m) / s
        _, ge, _ = law.terms(ze, np.zeros(ze.size, bool))
        d_m, d_lns = d_m + np.where(cut, ge / s, 0.0), d_lns + np.where(cut, ge * ze, 0.0)
    cols = {(loc, c): d_m * xm[:, i] for i, c in enumerate(terms)}
    cols[(scl, "Intercept")] = sign * d_lns
    return np.column_stack([cols[k] for k in params.index])


def _covariance(fitter, df, model, has_entry):
    """Cluster-robust covariance V (sum_c U_c U_c') V of the AFT coefficients."""
    u = pd.DataFrame(_aft_scores(fitter, df, model, has_entry)).groupby(df["_cluster"].to_numpy()).sum().to_numpy()
    v = fitter.variance_matrix_.to_numpy()
    return pd.DataFrame(v @ (u.T @ u) @ v, index=fitter.params_.index, columns=fitter.params_.index)


def _table(fitter, names, coef_key, labels, conf, cov):
    z = stats.norm.ppf(0.5 + conf / 2)
    keys = names if coef_key is None else [(coef_key, n) for n in names]
    coef = fitter.params_.loc[keys].to_numpy(float)
    if cov is None:
        se = fitter.standard_errors_.loc[keys].to_numpy(float)
    else:
        se = np.sqrt(np.diag(cov.loc[keys, keys].to_numpy()))
    p = 2 * stats.norm.sf(np.abs(coef / se))
    t = pd.DataFrame({"term": names, "covariate": [labels[n][0] for n in names],
                      "level": pd.Series([_plain(labels[n][1]) for n in names], dtype=object),
                      "reference": pd.Series([_plain(labels[n][2]) for n in names], dtype=object)})
    with np.errstate(over="ignore"):
        t["ratio"], t["lower"], t["upper"] = np.exp(coef), np.exp(coef - z * se), np.exp(coef + z * se)
    t["p"], t["coef"], t["se"] = p, coef, se
    return t


def _plain(value):
    """numpy scalars as plain Python values (so levels print as 2, not 2.0 or np.int64(2))."""
    return value.item() if isinstance(value, np.generic) else value


def _check_separation(table):
    """A ratio beyond e^+-15 with a huge interval is a likelihood running off: perfect separation."""
    run = table[(table["coef"].abs() > 15) | ~np.isfinite(table["se"]) | (table["se"] > 1e3)]
    if len(run):
        term = run["term"].iloc[0]
        raise SeparationError(f"covariate {term!r} separates failures from survivors (its ratio runs off to "
                              f"{'infinity' if run['coef'].iloc[0] > 0 else 'zero'}); drop it, merge levels or "
                              "coarsen it")
