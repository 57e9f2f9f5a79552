"""The result of :func:`~relmodel.stats.nodes.estimate.bad_nodes`: the nodes ranked, the tests, the model's fit."""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...tables import Result, count, hours_text, html_table, number, pct
from relmodel.base.escape import html_paragraphs

__all__ = ["BadNodes"]

#: Rows of the nodes table shown to people (the full table is ``to_frame()``).
SHOWN = 15


def _p_text(p):
    return "below 0.001" if p < 0.001 else f"{p:.3f}" if p < 0.995 else "1"


def _names(items):
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _listed(items, most=5):
    """``a, b and c``, or the first ``most`` and "and N more"."""
    if len(items) <= most:
        return _names(items)
    return ", ".join(items[:most]) + f" and {len(items) - most:,} more"


@dataclass(frozen=True, eq=False)
class BadNodes(Result):
    """Bad nodes and repairs that do not fix them: the ranked nodes, the homogeneity test, the model's fit.

    ``nodes`` has one row per node (node, failures, exposure_h, rate per
    1,000 h with its exact interval, ``p_bad`` the posterior chance the node is
    bad at the window's end), worst first.  ``estimates`` holds the two-class
    model's ``bad_share``, ``multiplier``, ``lam`` (per hour), ``good_mtbf_h``
    and ``unfixed`` with their intervals (``estimable`` False where the log
    cannot tell them).  ``dispersion`` is the Poisson against negative-binomial
    test; ``worst`` the worst-k nodes' share of failures against a homogeneous
    fleet's envelope; ``model_lr`` the two-class model's likelihood ratio
    against one rate for all nodes.
    """

    name: str
    nodes: pd.DataFrame
    estimates: pd.DataFrame
    dispersion: object
    worst: pd.DataFrame
    estimable: bool
    reason: str
    n_nodes: int
    n_listed: int
    n_failures: int
    exposure_h: float
    truncated: bool
    conf: float = 0.95
    alpha: float = 0.05
    loglik: float = float("nan")
    model_lr: float = 0.0

    @property
    def heterogeneous(self):
        """True when the negative-binomial test rejects a homogeneous fleet at level ``alpha``."""
        return bool(self.dispersion.p_value < self.alpha)

    def _value(self, name):
        row = self.estimates.set_index("parameter").loc[name]
        return float(row["value"]), float(row["low"]), float(row["high"])

    @property
    def bad_share(self):
        """Share of nodes bad at the start (NaN when not estimable)."""
        return self._value("bad_share")[0]

    @property
    def multiplier(self):
        """How many times as often a bad node fails as a good one (NaN when not estimable)."""
        return self._value("multiplier")[0]

    @property
    def lam(self):
        """A good node's failure rate per hour in service."""
        return self._value("lam")[0]

    @property
    def unfixed(self):
        """The chance a repair of a bad node left the fault in place (NaN when not estimable)."""
        return self._value("unfixed")[0]

    def ranked(self, k=10):
        """The ``k`` nodes most likely bad now (numbers, as in ``to_frame()``)."""
        return self.nodes.head(int(k)).reset_index(drop=True)

    def to_frame(self):
        """One row per node, worst first: failures, hours in service, rate per 1,000 h with interval, p_bad."""
        return self.nodes.copy()

    def table(self, rows=SHOWN):
        """The ``rows`` worst nodes for people: counts, hours, rate per 1,000 h with its interval, chance bad now."""
        t = self.nodes.head(int(rows))
        c = f"{self.conf:.0%}"
        no_time = "no time in service"
        rate = [number(r, 3, missing=no_time) for r in t["rate_per_1000h"]]
        span = [f"{number(lo, 3)} to {number(hi, 3)}" if np.isfinite(hi) else no_time
                for lo, hi in zip(t["rate_lo"], t["rate_hi"])]
        bad = [pct(p) if np.isfinite(p) else "not estimable" for p in t["p_bad"]]
        ever = [pct(p) if np.isfinite(p) else "not estimable" for p in t["p_bad_ever"]]
        return pd.DataFrame({"node": t["node"].astype(str), "failures": [count(v) for v in t["failures"]],
                             "hours in service": [count(v) for v in t["exposure_h"]],
                             "failures per 1,000 h": rate, f"{c} interval (per 1,000 h)": span,
                             "chance bad now": bad, "chance bad during the log": ever}).reset_index(drop=True)

    def estimates_table(self):
        """The two-class model's parameters for people, with their intervals or why they are not estimable."""
        words = {"bad_share": ("share of nodes bad at the start", pct),
                 "multiplier": ("a bad node's rate / a good node's", lambda v: f"{number(v, 3)}x"),
                 "lam": ("good node's failures per 1,000 h", lambda v: number(1000 * v, 3)),
                 "good_mtbf_h": ("good node's MTBF", hours_text),
                 "unfixed": ("chance a repair left the fault", pct)}
        rows = []
        for r in self.estimates.itertuples():
            label, fmt = words[r.parameter]
            if not r.estimable:
                rows.append((label, "not estimable", self.reason))
            else:
                rows.append((label, fmt(r.value), f"{fmt(r.low)} to {fmt(r.high)}"))
        return pd.DataFrame(rows, columns=["quantity", "estimate", f"{self.conf:.0%} interval"])

    def worst_table(self):
        """The worst-k nodes' share of failures beside what a homogeneous fleet would give."""
        w = self.worst
        return pd.DataFrame({"worst nodes": [count(k) for k in w["k"]],
                             "their share of failures": [pct(s) for s in w["share"]],
                             "homogeneous fleet, 95% envelope": [pct(s) for s in w["envelope"]],
                             "beyond the envelope": ["yes" if b else "no" for b in w["beyond"]]})

    def text(self):
        """Does this fleet have bad nodes, which ones, and do repairs fix them: the answers as sentences."""
        return " ".join(self._sentences())

    def _sentences(self):
        d = self.dispersion
        out = [self._verdict(d)]
        out += self._model_sentences()
        likely = self.nodes[self.nodes["p_bad"] >= 0.5].head(5)
        if self.estimable and len(likely):
            names = [f"{n} ({pct(p)})" for n, p in zip(likely["node"].astype(str), likely["p_bad"])]
            more = int((self.nodes["p_bad"] >= 0.5).sum())
            out.append(f"{count(more)} node{'s are' if more != 1 else ' is'} more likely bad than good now; "
                       f"the likeliest: {_names(names)}.")
        elif self.estimable:
            was = self.nodes[self.nodes["p_bad_ever"] >= 0.5]
            out.append("No node is more likely bad than good now" + (
                f"; {count(len(was))} node{'s were' if len(was) != 1 else ' was'} likely bad during the log and "
                f"look fixed since ({_listed(list(was['node'].astype(str)))})." if len(was) else "."))
        out += self._worst_sentence()
        if self.truncated:
            out.append(f"The log lists only the {count(self.n_listed)} nodes that failed; each node's likelihood "
                       "is conditioned on at least one failure (give population= for sharper estimates).")
        return out

    def _verdict(self, d):
        test = (f"negative-binomial test p{' ' if d.p_value < 0.001 else ' = '}{_p_text(d.p_value)}, dispersion {number(d.d, 3)} "
                f"({self.conf:.0%} interval {number(d.d_lo, 3)} to {number(d.d_hi, 3, missing='unbounded')})")
        head = (f"{self.name}: {count(self.n_failures)} failures on {count(self.n_nodes)} nodes over "
                f"{count(self.exposure_h)} node-hours in service.")
        if self.heterogeneous:
            return head + f" This fleet has bad nodes: failures are spread more unevenly than a homogeneous " \
                          f"fleet's would be ({test})."
        if self.estimable:
            return head + f" Failures per node are spread about as a homogeneous fleet's would be ({test}), but " \
                          f"the times between failures show a bad class (likelihood ratio " \
                          f"{number(self.model_lr, 3)} against one rate for all nodes)."
        if len(self.worst) and self.worst["beyond"].any():   # the counts' test and the worst nodes' share disagree
            return head + f" Failures per node are spread about as a homogeneous fleet's would be ({test}), but " \
                          "the worst nodes hold more of them than such a fleet's would (below): too few failures " \
                          "to tell."
        return head + f" No sign of bad nodes: failures are spread about as a homogeneous fleet's would be ({test})."

    def _model_sentences(self):
        c = f"{self.conf:.0%}"
        if not self.estimable:
            lam, lo, hi = self._value("lam")
            return [f"The two-class model (good and bad nodes) cannot be told from this log ({self.reason}); its "
                    f"share, multiplier and repair success are not estimable. One rate for all nodes: "
                    f"{number(1000 * lam, 3)} failures per 1,000 h in service ({c} interval "
                    f"{number(1000 * lo, 3)} to {number(1000 * hi, 3)})."]
        pi, m, nu = (self._value(n) for n in ("bad_share", "multiplier", "unfixed"))
        mt = self._value("good_mtbf_h")
        fix = ("most repairs fix a bad node" if nu[2] < 0.5 else "most repairs do not fix a bad node" if nu[1] > 0.5
               else "this log cannot tell whether most repairs fix a bad node")
        return [f"The two-class model puts {pct(pi[0])} of nodes bad at the start ({c} interval {pct(pi[1])} to "
                f"{pct(pi[2])}), failing {number(m[0], 3)} times as often as good nodes ({number(m[1], 3)} to "
                f"{number(m[2], 3)}); a good node's MTBF is {hours_text(mt[0])} ({hours_text(mt[1])} to "
                f"{hours_text(mt[2])}).",
                f"A repair of a bad node leaves the fault in place {pct(nu[0])} of the time ({pct(nu[1])} to "
                f"{pct(nu[2])}): {fix}."]

    def _worst_sentence(self):
        w = self.worst
        if not len(w):
            return []
        r = w.iloc[min(1, len(w) - 1)] if not w["beyond"].any() else w[w["beyond"]].iloc[0]
        k = int(r["k"])
        verb = "beyond" if r["beyond"] else "within"
        return [f"The worst {f'{count(k)} nodes hold' if k != 1 else 'node holds'} {pct(r['share'])} of all failures, "
                f"{verb} the {pct(r['envelope'])} a homogeneous fleet reaches in 95% of draws."]

    def _repr_html_(self):
        parts = html_paragraphs(self._sentences())
        return (parts + html_table(self.estimates_table()) + html_table(self.worst_table())
                + html_table(self.table()))

    def __repr__(self):
        return f"BadNodes({self.name!r}: {self.n_nodes} nodes, {self.n_failures} failures, " \
               f"heterogeneous={self.heterogeneous}, estimable={self.estimable})"

