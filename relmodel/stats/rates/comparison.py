"""Comparing the failure rates of two clusters or two periods.

For counts ``k_a`` in exposure ``E_a`` and ``k_b`` in ``E_b`` (Poisson),
given the total ``n = k_a + k_b`` the count ``k_a`` is binomial with
``p = R E_a / (R E_a + E_b)``, ``R = lambda_a / lambda_b``.  So:

* the exact conditional test of ``R = 1`` is a binomial test of ``p = E_a /
  (E_a + E_b)``; the two-sided p-value sums the outcomes no more likely than
  the one seen (as ``scipy.stats.binomtest`` does);
* the confidence interval of ``R`` maps the Clopper-Pearson interval of ``p``
  through ``R = p / (1 - p) * E_b / E_a``;
* the Bayesian probability that a is worse, ``P(lambda_a > lambda_b)``, uses
  independent Gamma posteriors (Jeffreys priors, or a fleet prior) and is
  exact: with ``U = b_a lambda_a``, ``V = b_b lambda_b``, ``U / (U + V)`` is
  Beta(a_a, a_b).

By component, each cause is compared alone and the p-values are adjusted
for the number of causes (Holm by default, or Benjamini-Hochberg).
"""

from dataclasses import dataclass

import warnings

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import CountError, ModelInputError, UnitError
from .priors import GammaPrior, per_day_label, rate_data
from .rates import component_rates
from ...tables import Result, html_table, pct, people_table, sig
from relmodel.base.escape import html_text

__all__ = ["RateComparison", "ComponentComparison", "compare_rates", "rate_ratio_test", "prob_greater",
           "adjust_pvalues", "CORRECTIONS", "NO_FAILURES"]

CORRECTIONS = ("holm", "bh", "bonferroni", "none")


def _two_sided_binom(k, n, p):
    """Two-sided exact binomial p-value: the sum of outcomes no more likely than ``k``."""
    if n == 0:
        return 1.0
    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    return float(min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum()))


def rate_ratio_test(k_a, e_a, k_b, e_b, conf=0.95):
    """(ratio, lower, upper, p_value) of lambda_a / lambda_b by the exact conditional test."""
    n = k_a + k_b
    p0 = e_a / (e_a + e_b)
    pval = _two_sided_binom(int(k_a), int(n), p0)
    alpha = 1 - conf
    p_lo = stats.beta.ppf(alpha / 2, k_a, k_b + 1) if k_a > 0 else 0.0
    p_hi = stats.beta.ppf(1 - alpha / 2, k_a + 1, k_b) if k_b > 0 else 1.0
    odds = lambda p: np.inf if p >= 1 else p / (1 - p) * e_b / e_a
    ratio = (k_a / e_a) / (k_b / e_b) if k_b > 0 else (np.inf if k_a > 0 else np.nan)
    return float(ratio), float(odds(p_lo)), float(odds(p_hi)), pval


def prob_greater(shape_a, rate_a, shape_b, rate_b):
    """P(lambda_a > lambda_b) for independent Gamma(shape, rate) variables (exact, via the Beta)."""
    return float(stats.beta.sf(rate_a / (rate_a + rate_b), shape_a, shape_b))


def _posterior(data, prior):
    if prior is None:
        return data.count + 0.5, data.exposure_h
    return prior.shape + data.count, prior.rate_h + data.exposure_h


def _p(p):
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _pct(p):
    if p < 0.001:
        return "below 0.1%"
    if p > 0.999:
        return "above 99.9%"
    return f"{p:.1%}"


@dataclass(frozen=True)
class RateComparison(Result):
    """Rate of ``a`` against ``b``: ratio with its exact interval, p-value, P(a worse)."""

    name_a: str
    name_b: str
    count_a: int
    exposure_a_h: float
    count_b: int
    exposure_b_h: float
    per: str
    ratio: float
    ratio_lo: float
    ratio_hi: float
    p_value: float
    prob_a_worse: float
    conf: float = 0.95
    prior: str = "Jeffreys"

    def to_frame(self):
        unit = per_day_label(self.per)
        return pd.DataFrame({
            "cluster": [self.name_a, self.name_b], "interruptions": [self.count_a, self.count_b],
            unit: [self.exposure_a_h / 24, self.exposure_b_h / 24],
            f"rate per 1,000 {unit}": [24000 * self.count_a / self.exposure_a_h,
                                      24000 * self.count_b / self.exposure_b_h]})

    def text(self):
        lo, hi = self.ratio_lo, self.ratio_hi
        hi_txt = "no upper bound" if not np.isfinite(hi) else sig(hi, 3)
        verdict = ("no evidence of a difference" if self.p_value >= 1 - self.conf else
                   ("higher" if self.ratio > 1 else "lower") + " rate")
        said = (f"{sig(self.ratio, 3)} times the interruption rate of {self.name_b}" if np.isfinite(self.ratio) else
                f"interruptions where {self.name_b} has none (a rate ratio without bound)")
        return (f"{self.name_a} has {said} "
                f"({self.conf:.0%} interval {sig(lo, 3)} to {hi_txt}; exact test {_p(self.p_value)}: {verdict}); "
                f"the chance that {self.name_a} is worse is {_pct(self.prob_a_worse)} ({self.prior} priors).")

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.to_frame(), index=False,
                                                               float_format=lambda v: sig(v, 3))


@dataclass(frozen=True, eq=False)
class ComponentComparison(Result):
    """Cause-by-cause comparison; ``by_cause`` has raw and adjusted p-values (one row per cause).

    A cause with no failures on either side has no ratio: its ``ratio`` is NaN
    and its ``note`` says so (the table shows the sentence, not NaN).
    """

    by_cause: pd.DataFrame
    name_a: str
    name_b: str
    per: str
    correction: str
    conf: float = 0.95

    def to_frame(self):
        return self.by_cause.copy()

    def significant(self, level=None):
        """Causes whose adjusted p-value is below ``level`` (default 1 - conf)."""
        level = 1 - self.conf if level is None else level
        return self.by_cause[self.by_cause["p_adjusted"] < level]

    def text(self):
        n_sig = len(self.significant())
        return (f"{self.name_a} against {self.name_b} by cause; p-values adjusted by {self.correction} for "
                f"{len(self.by_cause)} causes: {n_sig} differ at the {1 - self.conf:g} level.")

    def _people(self):
        t = self.by_cause
        people = people_table(pd.DataFrame({
            "cause": t["component"], f"interruptions ({self.name_a})": t["count_a"],
            f"interruptions ({self.name_b})": t["count_b"], "rate ratio": t["ratio"],
            f"{self.conf:.0%} low": t["ratio_lo"], f"{self.conf:.0%} high": t["ratio_hi"],
            "p-value": t["p_value"], "adjusted p-value": t["p_adjusted"],
            f"chance {self.name_a} is worse": t["prob_a_worse"]}),
            {f"chance {self.name_a} is worse": pct}, missing="no upper bound")
        notes = t["note"] if "note" in t else pd.Series([""] * len(t))
        undefined = (notes == NO_FAILURES).to_numpy()
        people.loc[undefined, "rate ratio"] = NO_FAILURES
        if undefined.any():
            people["note"] = notes.to_numpy()
        return people

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


#: What a by-cause row with no failures on either side says in place of its (undefined) ratio.
NO_FAILURES = "undefined: no failures in either"


def adjust_pvalues(p, method="holm"):
    """Adjusted p-values: Holm's step-down, Benjamini-Hochberg, Bonferroni or none."""
    if method not in CORRECTIONS:
        raise UnitError(f"unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}")
    p = np.asarray(p, float)
    m = p.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    if method == "holm":
        out[order] = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    else:
        adj = p[order] * m / np.arange(1, m + 1)
        out[order] = np.minimum(1.0, np.minimum.accumulate(adj[::-1])[::-1])
    return out


def compare_rates(a, b, per="node", conf=0.95, prior=None, by_component=False, correction="holm"):
    """Compare the interruption rate of ``a`` with ``b``.

    ``a`` and ``b`` are logs, count tables, fleet names ("llama3", "rsc1"...),
    :class:`~relmodel.stats.rates.priors.RateData` or ``(count, exposure_h)`` pairs,
    all per ``per`` ("node", "gpu" or "job").  ``prior`` (a fleet prior)
    replaces the Jeffreys priors of the Bayesian probability.  With
    ``by_component`` the two sources' causes are matched by name (a cause
    missing from one counts zero there) and a :class:`ComponentComparison`
    is returned; otherwise a :class:`RateComparison`.

    Exposures are in unit-hours (node-hours, GPU-hours or hours of the job);
    the ratio is of rates per unit-hour, the p-value and ``prob_a_worse``
    are probabilities.

    Examples
    --------
    30 interruptions against 10 in the same 10,000 hours (the exact test is
    a binomial test of 30 of 40 against 1/2):

    >>> c = compare_rates((30, 10_000.0), (10, 10_000.0), per="job")
    >>> round(c.ratio, 2), round(c.ratio_lo, 2), round(c.ratio_hi, 2), round(c.p_value, 4)
    (3.0, 1.43, 6.88, 0.0022)
    >>> c = compare_rates("opt175b", "llama3")     # published fleets, per node-hour
    >>> round(c.ratio, 2), c.p_value < 0.001
    (3.72, True)
    """
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 < conf < 1:
        raise ModelInputError(f"conf must be a confidence level strictly between 0 and 1, got {conf!r}")
    if prior is not None and (not isinstance(prior, GammaPrior) or prior.per != per):
        raise UnitError(f"the prior must be a GammaPrior per {per}; got {getattr(prior, 'per', prior)!r}")
    for source in (a, b):
        _warn_nodes_seen(source, per)
    if by_component:
        return _by_component(a, b, per, conf, prior, correction)
    da, db = rate_data(a, per), rate_data(b, per)
    if da.count == 0 and db.count == 0:
        raise CountError(f"no events in either {da.name or 'cluster A'} or {db.name or 'cluster B'}: a rate ratio "
                         "needs at least one interruption in one of them; compare each with its upper bound "
                         "(poisson_interval) instead")
    ratio, lo, hi, pval = rate_ratio_test(da.count, da.exposure_h, db.count, db.exposure_h, conf)
    prob = prob_greater(*_posterior(da, prior), *_posterior(db, prior))
    return RateComparison(da.name or "cluster A", db.name or "cluster B", da.count, da.exposure_h, db.count,
                          db.exposure_h, per, ratio, lo, hi, pval, prob, conf,
                          "fleet" if prior is not None else "Jeffreys")


def _warn_nodes_seen(source, per):
    """A LogWarning when a log's node count is only the nodes that appear in it (the CLI's note, said in Python)."""
    from ...data.shaping.logs import InterruptionLog, LogWarning
    if per == "job" or not isinstance(source, InterruptionLog) or getattr(source, "_n_nodes", 0) is not None:
        return
    n = int(source.n_nodes)
    warnings.warn(f"{source.name}: the observed cluster is taken as the {n:,} nodes that appear in the log; nodes "
                  f"that never failed are not in it, so its rate per {per} may be too high. Give the nodes observed "
                  "(read_log(..., n_nodes=...) or load_source(..., source_gpus=...))", LogWarning, stacklevel=3)


def _by_component(a, b, per, conf, prior, correction):
    if correction not in CORRECTIONS:
        raise UnitError(f"unknown correction {correction!r}; use one of {', '.join(CORRECTIONS)}")
    ta, tb = (component_rates(s, per=per).iloc[:-1] for s in (a, b))
    ea, eb = float(ta["exposure_h"].iloc[0]), float(tb["exposure_h"].iloc[0])
    if ta["count"].sum() == 0 and tb["count"].sum() == 0:
        raise CountError("no events in either source: rates per component need at least one interruption "
                         "in one of them")
    ca, cb = (t.groupby("component", sort=False)["count"].sum().reset_index() for t in (ta, tb))
    merged = pd.merge(ca, cb, on="component", how="outer", suffixes=("_a", "_b"), sort=False).fillna(0)
    rows = []
    for r in merged.itertuples(index=False):
        ka, kb = int(r.count_a), int(r.count_b)
        ratio, lo, hi, pval = rate_ratio_test(ka, ea, kb, eb, conf)
        sa = (prior.shape + ka, prior.rate_h + ea) if prior else (ka + 0.5, ea)
        sb = (prior.shape + kb, prior.rate_h + eb) if prior else (kb + 0.5, eb)
        note = NO_FAILURES if ka == kb == 0 else ""
        rows.append((r.component, ka, kb, ratio, lo, hi, pval, prob_greater(*sa, *sb), note))
    t = pd.DataFrame(rows, columns=["component", "count_a", "count_b", "ratio", "ratio_lo", "ratio_hi", "p_value",
                                    "prob_a_worse", "note"])
    t["p_adjusted"] = adjust_pvalues(t["p_value"].to_numpy(), correction)
    t = t.sort_values("p_value", kind="stable").reset_index(drop=True)
    names = (getattr(a, "name", "a"), getattr(b, "name", "b"))
    return ComponentComparison(t, names[0], names[1], per, correction, conf)
