"""One cluster against the published fleets: prior, posterior, comparisons, change points.

:func:`fleet_summary` gathers what a log-explorer page says about a log in
the light of :func:`relmodel.datasets.fleets`: the fleet prior, this
cluster's rate alone and combined with it, an exact comparison with each
fleet, and where the rate changed.  Its ``sentences()`` are the findings in
words; :func:`relmodel.plots.fleets.fleet_context` draws them.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...data.shaping.logs import InterruptionLog
from .changepoint import MAX_SENTENCES, rate_changes
from .priors import PriorWarning, fleet_prior, per_day_label, rate_data, update_rate
from .comparison import compare_rates
from .rates import poisson_interval
from ...tables import Result, html_table
from relmodel.base.escape import html_text, html_paragraphs

__all__ = ["FleetSummary", "fleet_summary"]


@dataclass(frozen=True, eq=False)
class FleetSummary(Result):
    """This cluster's rate beside the fleets' (``forest``), the prior and posterior, and change points."""

    name: str
    per: str
    forest: pd.DataFrame
    prior: object
    posterior: object
    changes: object = None
    conf: float = 0.95

    def text(self):
        """The findings in words."""
        return " ".join(self._sentences())

    def _sentences(self):
        f = self.forest[self.forest["role"] == "fleet"]
        clear = f["p_value"] < 1 - self.conf
        groups = [("more often than", clear & (f["ratio"] > 1)), ("less often than", clear & (f["ratio"] < 1)),
                  ("about as often as", ~clear)]
        parts = [f"{words} {_names(f.loc[sel, 'label'])}" for words, sel in groups if sel.any()]
        out = [self.prior.text(self.conf), self.posterior.text(),
               f"Against each published fleet (exact test at the {1 - self.conf:.0%} level), {self.name} fails "
               + "; ".join(parts) + "."]
        if self.changes is not None:
            out += self.changes._sentences()
        return out

    def to_frame(self):
        """The forest-plot rows: rates per 1,000 unit-days with intervals, ratio to this cluster, p-value."""
        unit = per_day_label(self.per)
        t = self.forest
        return pd.DataFrame({"source": t["label"], "interruptions": t["count"],
                             f"rate per 1,000 {unit}": t["rate"], f"{self.conf:.0%} low": t["lo"],
                             f"{self.conf:.0%} high": t["hi"], "this cluster / fleet": t["ratio"],
                             "p-value": t["p_value"]})

    def table(self):
        """The forest rows as text for a report: rates to 2 decimals, p-values in words where tiny."""
        t = self.forest
        unit = per_day_label(self.per)
        rate = lambda v: f"{v:,.2f}" if np.isfinite(v) else "not given"
        return pd.DataFrame({
            "source": t["label"],
            "interruptions": [f"{int(k):,}" if np.isfinite(k) else "spread, not a count" for k in t["count"]],
            f"rate per 1,000 {unit}": [rate(v) for v in t["rate"]],
            f"{self.conf:.0%} interval": [f"{lo:,.2f} to {hi:,.2f}" if np.isfinite(hi) else "not given"
                                         for lo, hi in zip(t["lo"], t["hi"])],
            "this cluster / fleet": [f"{r:,.2f}" if role == "fleet" else "" for r, role in zip(t["ratio"], t["role"])],
            "p-value": [_p_text(p) if role == "fleet" else "" for p, role in zip(t["p_value"], t["role"])]})

    def _repr_html_(self):
        text = html_paragraphs(self._sentences())
        many = self.changes is not None and self.changes.n_changes > MAX_SENTENCES
        changes = html_table(self.changes.table(), index=False) if many else ""
        return text + html_table(self.table(), index=False) + changes


def _names(labels):
    labels = list(labels)
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _p_text(p):
    return "below 0.001" if p < 0.001 else f"{p:.3f}"


def _fleet_rows(table, data, per, conf):
    from ...data.bundled.fleets import fleet_exposure
    rows = []
    exposure = fleet_exposure(table, per)
    for (_, r), e in zip(table.iterrows(), exposure):
        label = f"{r['name']}"
        if pd.notna(r["count"]) and np.isfinite(e) and e > 0:
            rate, lo, hi = poisson_interval(int(r["count"]), e, conf)
            c = compare_rates(data, (int(r["count"]), e), per=per, conf=conf)
            rows.append((label, "fleet", int(r["count"]), 24000 * rate, 24000 * lo, 24000 * hi, c.ratio, c.p_value))
        elif pd.notna(r["rate_per_node_day"]) and per == "node":
            rows.append((label + " (rate only)", "rate only", np.nan, 1000 * r["rate_per_1000_node_days"],
                         np.nan, np.nan, np.nan, np.nan))
    return rows


def fleet_summary(source, fleets=None, per="node", conf=0.95, penalty=None):
    """Compare a log or count table with the published fleets and find its rate changes.

    ``fleets`` defaults to ``relmodel.datasets.fleets("gpu", primary=True)``.
    The prior is fitted by :func:`~relmodel.stats.rates.priors.fleet_prior`; change
    points (logs only) by :func:`~relmodel.stats.rates.changepoint.rate_changes`.
    Returns a :class:`FleetSummary`; its ``forest`` gives counts, rates per
    1,000 node-days (or GPU-days) with intervals, the rate ratio of this
    cluster to each fleet and the exact test's p-value (a probability).

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> fs = fleet_summary(llama3_54day())
    >>> for r in fs.forest[fs.forest["role"] == "fleet"].itertuples():    # rates per 1,000 node-days
    ...     print(f"{r.label}: {r.rate:.2f}, ratio {r.ratio:.2f}, p {r.p_value:.2g}")
    Llama 3 pre-training (54 days): 3.79, ratio 1.00, p 1
    Meta RSC-1 research cluster (11 months): 6.50, ratio 0.58, p 9e-30
    Meta RSC-2 research cluster (11 months): 2.34, ratio 1.62, p 9.4e-15
    StepFun LLM pre-training cluster (349 days): 4.17, ratio 0.91, p 0.14
    OPT-175B training (about 2 months): 14.11, ratio 0.27, p 7.5e-26
    >>> print(fs.posterior.text())
    419 interruptions in 110,592 node-days, combined with the fleets, give 3.80 per 1,000 node-days
    (95% credible interval 3.44 to 4.17).
    """
    from ...data.bundled.fleets import fleets as fleet_table
    table = fleet_table("gpu", primary=True) if fleets is None else fleets
    if "primary" in table.columns:
        table = table[table["primary"].astype(bool)]
    data = rate_data(source, per)
    name = data.name or "this cluster"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PriorWarning)  # the prior's method says it is the fallback
        prior = fleet_prior(table, per=per)
    post = update_rate(prior, data, conf=conf)
    rows = _fleet_rows(table, data, per, conf)
    plo, phi = prior.interval(conf)
    rows.append(("fleet prior (spread of fleets)", "prior", np.nan, 24000 * prior.mean_per_h, 24000 * plo,
                 24000 * phi, np.nan, np.nan))
    rate, lo, hi = poisson_interval(data.count, data.exposure_h, conf)
    rows.append((f"{name} alone", "cluster", data.count, 24000 * rate, 24000 * lo, 24000 * hi, 1.0, np.nan))
    qlo, qhi = post.interval()
    rows.append((f"{name} with fleet prior", "posterior", data.count, 24000 * post.mean_per_h, 24000 * qlo,
                 24000 * qhi, np.nan, np.nan))
    forest = pd.DataFrame(rows, columns=["label", "role", "count", "rate", "lo", "hi", "ratio", "p_value"])
    changes = None
    if isinstance(source, InterruptionLog):
        changes = rate_changes(source, penalty=penalty, conf=conf, per="node")
    return FleetSummary(name, per, forest, prior, post, changes, conf)
