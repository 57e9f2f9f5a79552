"""Comparing groups: weighted log-rank tests, Gray's test for cumulative incidence, two MCFs.

* :func:`compare_groups` - the K-sample log-rank test and its weighted
  versions (Klein and Moeschberger, *Survival Analysis*, 2nd ed., 2003,
  section 7.3): at each failure time t_j with n_j at risk and d_j failures,
  group g contributes ``w_j (d_gj - n_gj d_j / n_j)``; the covariance is the
  hypergeometric one.  Weights: log-rank 1, Gehan-Wilcoxon n_j, Tarone-Ware
  sqrt(n_j), Peto-Peto the modified survival prod (1 - d_i/(n_i + 1)),
  Fleming-Harrington S(t_j-)^p (1 - S(t_j-))^q.  Checked against lifelines'
  ``multivariate_logrank_test``.
* :func:`gray_test` - Gray's K-sample test of equal cumulative incidence of
  one cause under competing risks (Gray, Annals of Statistics 16, 1988): the
  score sums ``d_1k(t) - R_k(t) d_1(t) / R(t)`` over the "subdistribution
  risk sets" ``R_k = Y_k (1 - F_1k(t-)) / S_k(t-)``, weighted by
  ``(1 - F(t-))^rho``, with strata; its covariance is Gray's estimate
  (:mod:`relmodel.stats.survival.gray`, equal to ``cmprsk::cuminc``), or a bootstrap
  on request.
* :func:`compare_mcf` - the difference of two Nelson MCFs (two fleets or two
  periods) with a pointwise band and a z test at the last time both are
  observed (Nelson, *Recurrent Events Data Analysis*, SIAM 2003, chapter 8).

Each takes its data as ``source``, the groups named in it: a column ``by``
of one table for the log-rank and Gray's tests, the two names of a mapping
``{name: MCF}`` for the MCFs (as their results key the curves by group).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import CovariateError, FitError, InputTypeError
from ...units import hours
from ..regression.covariates import pick_column, survival_columns
from .gray import gray_score_variance
from .nonparam import StepEstimate, _step_at, kaplan_meier
from .recurrence import mcf
from ...tables import Result, html_table
from relmodel.base.escape import html_text
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps

__all__ = ["GroupComparison", "compare_groups", "gray_test", "GrayTest", "compare_mcf", "MCFComparison",
           "WEIGHTS"]

WEIGHTS = ("logrank", "wilcoxon", "tarone-ware", "peto", "fleming-harrington")


@dataclass(frozen=True, eq=False)
class GroupComparison(Result):
    """A K-sample test: statistic, degrees of freedom, p-value, and per-group observed vs expected."""

    by: str
    weights: str
    statistic: float
    df: int
    p: float
    groups: pd.DataFrame
    curves: dict = field(default_factory=dict, repr=False)
    conf: float = 0.95

    def text(self):
        """The test's finding in one sentence, judged at ``1 - conf``."""
        word = "differs" if self.p < 1 - self.conf else "does not differ detectably"
        p = "p below 0.001" if self.p < 1e-3 else f"p = {self.p:.3f}"
        return (f"Survival {word} across {self.by} ({self.weights} test: chi-square {self.statistic:,.1f} on "
                f"{self.df} degrees of freedom, {p})")

    def to_frame(self):
        return self.groups.copy()

    def table(self):
        """The per-group table as text for a report (thousands separators; "not reached" for no median)."""
        t = self.groups.copy()
        t[self.by] = t[self.by].astype(str)
        for c in ("units", "failures"):
            t[c] = t[c].map("{:,}".format)
        t["expected failures"] = t["expected failures"].map("{:,.1f}".format)
        t["observed / expected"] = t["observed / expected"].map("{:.2f}".format)
        t["median (h)"] = t["median (h)"].map(lambda m: "not reached" if not np.isfinite(m) else f"{m:,.0f}")
        return t

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.groups, index=False, float_format="{:.4g}".format)


def _event_table(t, e, g, k):
    """Distinct failure times; at-risk and failure counts per group (k x times)."""
    times = np.unique(t[e > 0])
    at_risk = np.stack([np.searchsorted(np.sort(t[g == i]), times, side="left") for i in range(k)])
    at_risk = (np.bincount(g, minlength=k)[:, None] - at_risk).astype(float)
    fails = np.zeros((k, times.size))
    idx = np.searchsorted(times, t[e > 0])
    np.add.at(fails, (g[e > 0], idx), 1.0)
    return times, at_risk, fails


def _weights(kind, n, d, p, q):
    if kind == "logrank":
        return np.ones_like(n)
    if kind == "wilcoxon":
        return n
    if kind == "tarone-ware":
        return np.sqrt(n)
    if kind == "peto":
        return np.cumprod(1 - d / (n + 1))
    s = np.cumprod(1 - d / n)
    lag = np.concatenate([[1.0], s[:-1]])
    return lag**p * (1 - lag) ** q


def _logrank(n_g, d_g, w):
    """Weighted score per group (observed - expected), its covariance, and expected counts."""
    n, d = n_g.sum(0), d_g.sum(0)
    e_g = n_g * d / n
    z = (w * (d_g - e_g)).sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(n > 1, w**2 * d * (n - d) / (n - 1) / n, 0.0)
    v = np.diag((c * n_g).sum(1)) - np.einsum("j,gj,hj->gh", c, n_g, n_g / n)
    return z, v, e_g.sum(1)


def compare_groups(source, by, *, duration=None, observed=None, weights="logrank", p=1.0, q=1.0, conf=0.95):
    """Do failure times differ between groups?  The (weighted) K-sample log-rank test.

    ``source``: a DataFrame with durations (hours), observed flags (see
    :func:`relmodel.stats.regress` for the column defaults) and the column ``by``
    naming each row's group.  ``weights``: one of :data:`WEIGHTS` (``p``, ``q``
    for Fleming-Harrington).  Returns a :class:`GroupComparison` with a
    per-group table (units, failures, observed and expected failures, median)
    and the Kaplan-Meier curve of each group in ``curves``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 3, 4, 6, 9, 11],
    ...                    "observed": [1, 1, 1, 0, 1, 1, 1, 1, 1, 0], "fleet": list("aaaaabbbbb")})
    >>> g = compare_groups(df, "fleet")
    >>> round(g.statistic, 3), g.df, round(g.p, 3)        # chi-square, degrees of freedom, p-value
    (1.603, 1, 0.205)
    >>> g.groups["expected failures"].round(2).tolist(), g.groups["median (h)"].tolist()
    ([5.52, 2.48], [12.0, 6.0])
    """
    if weights not in WEIGHTS:
        raise FitError(f"weights must be one of {', '.join(WEIGHTS)}, got {weights!r}")
    t, e = survival_columns(source, duration, observed)
    pick_column(source, by, (), "group")
    _check_labels(source, by)
    labels = source[by].astype(str).to_numpy()
    names, g = np.unique(labels, return_inverse=True)
    if names.size < 2:
        raise FitError(f"column {by!r} has a single group ({names[0]!r}); comparing needs two or more")
    if e.sum() == 0:
        raise FitError("no failures at all: groups cannot be compared")
    times, n_g, d_g = _event_table(t, e, g, names.size)
    w = _weights(weights, n_g.sum(0), d_g.sum(0), p, q)
    z, v, expected = _logrank(n_g, d_g, w)
    stat = float(z[:-1] @ np.linalg.pinv(v[:-1, :-1]) @ z[:-1])
    df = names.size - 1
    curves = {nm: kaplan_meier(t[g == i], observed=e[g == i].astype(bool), conf=conf) for i, nm in enumerate(names)}
    table = pd.DataFrame({by: names, "units": np.bincount(g), "failures": d_g.sum(1).astype(int),
                          "expected failures": expected, "observed / expected": d_g.sum(1) / expected,
                          "median (h)": [c.median_h for c in curves.values()]})
    return GroupComparison(by, weights, stat, df, float(stats.chi2.sf(stat, df)), table, curves, conf)


def _check_labels(data, by):
    """An error naming the rows whose group label is missing (they are not a group of their own)."""
    blank = data[by].isna().to_numpy()
    if blank.any():
        rows = ", ".join(map(str, data.index[blank][:10].tolist()))
        raise CovariateError(f"group column {by!r} is missing in {int(blank.sum())} rows (index {rows}); "
                             "give every row a group, or drop those rows before comparing")


@dataclass(frozen=True, eq=False)
class GrayTest(Result):
    """Gray's test of equal cumulative incidence of ``cause`` across groups."""

    cause: object
    statistic: float
    df: int
    p: float
    score: np.ndarray
    groups: list

    def to_frame(self):
        return pd.DataFrame({"group": self.groups, "score (observed - expected)": self.score})

    def text(self):
        return f"Gray's test for cause {self.cause}: chi-square {self.statistic:.2f} on {self.df} df, p = {self.p:.2g}."

    def _repr_html_(self):
        return (f"<p>Gray's test for cause {html_text(self.cause)}: chi-square {self.statistic:.2f} on "
                f"{self.df} df, p = {self.p:.2g}</p>")


def gray_test(source, by, causes, cause, *, duration=None, strata=None, rho=0.0, variance="gray", n_boot=200, seed=None):
    """Gray's test: does the cumulative incidence of ``cause`` differ across groups?

    ``source`` is a DataFrame with durations (hours; column defaults as in
    :func:`relmodel.stats.regress`) and the group column ``by``.
    ``causes`` names the column holding each row's cause of failure (missing
    or ``observed == False`` = censored), ``cause`` the one to compare; the
    other causes compete.  ``strata`` names a column whose levels get their
    own risk sets (scores and variances summed, as ``cmprsk::cuminc``);
    ``rho`` is the power of the weight ``(1 - F(t-))^rho``.  ``variance``:
    ``"gray"`` (default; Gray 1988, as ``cmprsk::crstm``) or ``"bootstrap"``
    (``n_boot`` resamples within groups and strata, ``seed`` fixes them).
    Returns a :class:`GrayTest`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"duration_h": [5.0, 8, 12, 20, 30, 3, 4, 6, 9, 11], "fleet": list("aaaaabbbbb"),
    ...                    "cause": ["gpu", "net", "gpu", None, "net", "gpu", "gpu", "gpu", "net", None]})
    >>> g = gray_test(df, "fleet", "cause", "gpu", seed=0)
    >>> g.groups, g.df, round(g.statistic, 3), round(g.p, 3)
    (['a', 'b'], 1, 1.585, 0.208)
    """
    if variance not in ("gray", "bootstrap"):
        raise FitError(f"variance must be 'gray' or 'bootstrap', got {variance!r}")
    if not np.isfinite(rho) or rho < 0:
        raise FitError(f"rho must be a number >= 0, got {rho!r}")
    t, code, g, names, st = _gray_inputs(source, by, causes, cause, duration, strata)
    k = names.size
    score, v = gray_score_variance(t, code, g, k, st, rho)
    if variance == "bootstrap":
        v = _gray_bootstrap(t, code, g, k, st, rho, n_boot, seed)
    stat = float(score[:-1] @ np.linalg.pinv(v[:-1, :-1]) @ score[:-1])
    return GrayTest(cause, stat, k - 1, float(stats.chi2.sf(stat, k - 1)), score, list(names))


def _gray_inputs(data, by, causes, cause, duration, strata):
    """Times, codes (1 the cause, 2 another, 0 censored), group and stratum indices."""
    t, e = survival_columns(data, duration, None if "observed" not in data.columns else "observed")
    pick_column(data, by, (), "group")
    _check_labels(data, by)
    pick_column(data, causes, (), "cause")
    codes, kinds = pd.factorize(data[causes])              # a few distinct causes: match them, not the rows
    failed = (e > 0) & (codes >= 0)
    hit = np.array([k == cause or str(k) == str(cause) for k in kinds], bool)
    if not hit[np.unique(codes[failed])].any():
        levels = sorted({str(kinds[i]) for i in np.unique(codes[failed])})
        raise FitError(f"cause {cause!r} has no failures; causes seen are {', '.join(levels)}")
    code = np.zeros(t.size, int)
    code[failed] = np.where(hit[codes[failed]], 1, 2)
    g, names = pd.factorize(data[by].astype(str), sort=True)
    names = np.asarray(names, dtype=object)
    if names.size < 2:
        raise FitError(f"column {by!r} has a single group; comparing needs two or more")
    st = None
    if strata is not None:
        pick_column(data, strata, (), "strata")
        st = pd.factorize(data[strata].astype(str), sort=True)[0]
    return t, code, g, names, st


def _gray_bootstrap(t, code, g, k, st, rho, n_boot, seed):
    n_boot = count("n_boot", n_boot)
    check_cost(f"gray_test(n_boot={n_boot:,})", work=n_boot * t.size * k * 20,
               hint="use fewer bootstrap resamples (n_boot)")
    rng = np.random.default_rng(seed)
    cells = g if st is None else g * (st.max() + 1) + st
    members = [np.flatnonzero(cells == c) for c in np.unique(cells)]
    boot = np.empty((n_boot, k))
    with steps("bootstrap of Gray's test", total=n_boot) as step:
        for b in range(n_boot):
            idx = np.concatenate([rng.choice(m, m.size) for m in members])
            boot[b] = gray_score_variance(t[idx], code[idx], g[idx], k, None if st is None else st[idx], rho)[0]
            step()
    return np.cov(boot, rowvar=False).reshape(k, k)


@dataclass(frozen=True, eq=False)
class MCFComparison(Result):
    """Difference of two mean cumulative functions, with a band and a test at ``at_h``.

    ``by_time`` holds both curves and their difference with its band, one row per time.
    """

    names: tuple
    by_time: pd.DataFrame
    at_h: float
    difference: float
    z: float
    p: float
    curves: dict = field(default_factory=dict, repr=False)
    conf: float = 0.95

    def text(self):
        """The comparison's finding in one sentence, judged at ``1 - conf``."""
        a, b = self.names
        word = "differ" if self.p < 1 - self.conf else "do not differ detectably"
        return (f"By {self.at_h:,.0f} h, {a} averages {self.difference:+.3g} failures per system against {b}: "
                f"the fleets {word} (z = {self.z:.2f}, p = {self.p:.2g})")

    def to_frame(self):
        return self.by_time.copy()


def _sd(est, conf):
    z = stats.norm.ppf(0.5 + conf / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(est.value > 0, est.value * np.log(est.upper / est.value) / z, 0.0)


def _two_named(source):
    if not isinstance(source, Mapping) or len(source) != 2:
        what = f"a mapping of {len(source)} entries" if isinstance(source, Mapping) else type(source).__name__
        raise FitError(f"compare_mcf needs source={{name: MCF, other name: MCF}}, two fleets or periods named by "
                       f"the keys; got {what}")
    return tuple(str(k) for k in source), list(source.values())


def compare_mcf(source, *, at=None, conf=0.95, **mcf_kwargs):
    """Compare the MCFs of two fleets or periods: D(t) = M1(t) - M2(t) with Var = V1 + V2.

    ``source`` maps two names to :class:`StepEstimate` MCFs (from
    :func:`relmodel.stats.mcf`) or to anything :func:`relmodel.stats.mcf` accepts (logs;
    ``mcf_kwargs`` pass through); D is the first minus the second.  The z
    test is at ``at`` (hours; default the earlier of the two last failure
    times, beyond which one MCF is not known to be flat: pass the common end
    of observation when you know it).  Returns a :class:`MCFComparison`
    (MCFs in failures per system).

    Examples
    --------
    >>> from relmodel.stats.survival.recurrence import mcf
    >>> old = mcf([10.0, 40.0, 25.0], node=["a", "a", "b"], start=0.0, end=50.0, n_systems=4)   # hours
    >>> new = mcf([5.0, 15.0, 20.0, 35.0, 45.0], node=list("aabcd"), start=0.0, end=50.0, n_systems=4)
    >>> c = compare_mcf({"old": old, "new": new}, at=50.0)
    >>> c.difference, round(c.z, 3), round(c.p, 3)       # 0.75 - 1.25 failures per system at 50 h
    (-0.5, -1.069, 0.285)
    """
    names, given = _two_named(source)
    if mcf_kwargs and all(isinstance(x, StepEstimate) for x in given):
        raise InputTypeError(f"compare_mcf got {', '.join(sorted(mcf_kwargs))}= but no log to pass them to mcf(); "
                             "name the two fleets by the keys of source={name: MCF, other name: MCF}")
    ests = [x if isinstance(x, StepEstimate) else mcf(x, conf=conf, **mcf_kwargs) for x in given]
    for x in ests:
        if x.quantity != "mean cumulative function":
            raise FitError("compare_mcf needs mean cumulative functions (relmodel.stats.mcf results)")
    grid = np.union1d(ests[0].hours, ests[1].hours)
    vals = [_step_at(x.hours, x.value, grid) for x in ests]
    sds = [_step_at(x.hours, _sd(x, x.conf), grid) for x in ests]
    diff, sd = vals[0] - vals[1], np.hypot(*sds)
    zq = stats.norm.ppf(0.5 + conf / 2)
    table = pd.DataFrame({"hours": grid, f"MCF {names[0]}": vals[0], f"MCF {names[1]}": vals[1],
                          "difference": diff, "lower": diff - zq * sd, "upper": diff + zq * sd})
    at = float(min(x.hours[-1] for x in ests)) if at is None else float(hours(at))
    i = np.searchsorted(grid, at, side="right") - 1
    z = float(diff[i] / sd[i]) if sd[i] > 0 else 0.0
    return MCFComparison(tuple(names), table, at, float(diff[i]), z, float(2 * stats.norm.sf(abs(z))),
                         dict(zip(names, ests)), conf)
