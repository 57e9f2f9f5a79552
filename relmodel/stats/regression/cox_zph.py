"""Proportional-hazards check of a Cox fit: the score test of R's current ``cox.zph``.

Each covariate term x gets a time-varying companion ``g(t) x``; the score of
that augmented model at ``(b_hat, 0)`` and its full information give one
chi-square test per term and a global one (Grambsch and Therneau,
Biometrika 81, 1994; the score form R's survival package uses since 3.0,
2019).  ``g`` is ``1 - KM(t-)`` ("km", the default), the rank of the time
("rank") or the time itself ("identity"), centred on its mean over failures.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import FitError
from ...tables import Result, people_table
from .cox_engine import _by_event, information
from ..lifetimes.risk_sets import risk_table

__all__ = ["PHCheck", "ph_test", "ph_check", "TRANSFORMS"]

TRANSFORMS = ("km", "rank", "identity")


@dataclass(frozen=True, eq=False)
class PHCheck(Result):
    """Proportional-hazards check: one row per covariate term, a global test, and a verdict in words.

    ``by_term`` columns: ``term``, ``statistic`` (chi-square), ``df``, ``p``,
    ``proportional`` (p at or above ``alpha``).
    """

    by_term: pd.DataFrame
    verdict: str
    ok: bool
    alpha: float = 0.05
    global_statistic: float = float("nan")
    global_df: int = 0
    global_p: float = float("nan")
    transform: str = "km"

    def to_frame(self):
        return self.by_term.copy()

    def text(self):
        return self.verdict + "."

    def _people(self):
        t = self.by_term
        return people_table(pd.DataFrame({"term": t["term"], "chi-square": t["statistic"], "degrees of freedom": t["df"],
                                          "p-value": t["p"], "proportional": t["proportional"]}))

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _g_rows(stop, event, entry, transform):
    """The transformed time of every row (R: survfitKM on all rows, left limits, unweighted)."""
    if transform == "identity":
        return stop.astype(float)
    if transform == "rank":
        return stats.rankdata(stop)
    times, n, d = risk_table(stop, event > 0, entry)
    surv = np.cumprod(np.where(n > 0, 1 - d / np.maximum(n, 1), 1.0))
    before = np.concatenate([[1.0], surv[:-1]])
    return 1 - before[np.searchsorted(times, stop)]


def ph_test(fit, stop, event, terms, *, entry=None, transform="km"):
    """Score tests of proportional hazards for a :class:`~relmodel.stats.regression.cox_engine.CoxFit`.

    ``terms`` maps each term name to the indices of its coefficients.
    Returns ``(table, (global statistic, df, p))``.
    """
    if transform not in TRANSFORMS:
        raise FitError(f"transform must be one of {', '.join(TRANSFORMS)}, got {transform!r}")
    lay, ev = fit.layout, fit.state
    stop, event = np.asarray(stop, float), np.asarray(event, float)
    g_row = _g_rows(stop, event, None if entry is None else np.asarray(entry, float), transform)
    g_row = (g_row - g_row[event > 0].mean())[lay.perm]      # in the engine's row order
    m, p = lay.k_events.size, lay.x.shape[1]
    g = np.zeros(m)
    g[lay.dead_event] = g_row[lay.dead_rows]
    dead_sum = _by_event(lay.dead_event, (lay.w[:, None] * lay.x)[lay.dead], m)
    mean_sum = _by_event(lay.pair_event, ev["mean"] * lay.pair_a[:, None], m)
    u = np.concatenate([np.zeros(p), g @ (dead_sum - mean_sum)])
    i_g = information(lay, ev, g)
    full = np.block([[ev["info"], i_g], [i_g, information(lay, ev, g, g)]])
    rows = []
    for name, cols in terms.items():
        kk = np.concatenate([np.arange(p), p + np.asarray(cols)])
        stat = float(u[kk] @ np.linalg.solve(full[np.ix_(kk, kk)], u[kk]))
        rows.append((name, stat, len(cols), float(stats.chi2.sf(stat, len(cols)))))
    table = pd.DataFrame(rows, columns=["term", "statistic", "df", "p"])
    glob = float(u @ np.linalg.solve(full, u))
    return table, (glob, p, float(stats.chi2.sf(glob, p)))


def _p(p):
    return "p below 0.001" if p < 1e-3 else f"p = {p:.3f}"


def ph_check(fit, stop, event, terms, *, entry=None, transform="km", alpha=0.05):
    """:func:`ph_test` with a verdict in words: a :class:`PHCheck`."""
    table, (gs, gdf, gp) = ph_test(fit, stop, event, terms, entry=entry, transform=transform)
    table["proportional"] = table["p"] >= alpha
    bad = table[~table["proportional"]]
    how = f"score test, {'1 - Kaplan-Meier' if transform == 'km' else transform} time scale"
    if bad.empty:
        verdict = f"Proportional hazards: no evidence against them (smallest {_p(table['p'].min())}, {how})"
    else:
        named = ", ".join(f"{t} ({_p(q)})" for t, q in zip(bad["term"], bad["p"]))
        verdict = (f"Proportional hazards doubtful for {named}: the hazard ratio changes with time; stratify on "
                   "that covariate (strata=...) or use an AFT model")
    return PHCheck(table, verdict, bad.empty, alpha, gs, gdf, gp, transform)
