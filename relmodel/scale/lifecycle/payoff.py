"""Retire which nodes, and what it buys: retirement policies compared over one planned run.

:func:`compare_policies` simulates each policy with the same seeds, so the
ETTR change against never retiring is a paired difference (common random
numbers: the same fleet, the same first failures) with its own interval.
:func:`lifecycle_model` builds the fleet a log describes: its bad share and
multiplier, its good nodes' MTBF, the chance a repair leaves the fault, and
its repair times, at the planned size.
"""

import dataclasses

import numpy as np
import pandas as pd

from ...errors import ModelInputError
from ...tables import Result, count, html_table, pct
from .loop import run_once
from .model import FleetModel, fleet_model
from .retirement import checked_policy, never
from .simulate import base_seed, mean_ci

__all__ = ["PolicyComparison", "compare_policies", "lifecycle_model"]


@dataclasses.dataclass(frozen=True)
class PolicyComparison(Result):
    """Policies over the same planned run: ``runs`` has one row per (policy, replication)."""

    model: FleetModel
    names: tuple
    runs: pd.DataFrame
    conf: float

    def to_frame(self):
        """Per policy: ETTR and its interval, the change against the first policy (paired), nodes retired,
        spares taken from other work, and the share of runs in which the pool ran dry."""
        base = self.runs[self.runs["policy"] == self.names[0]].set_index("run")["ettr"]
        rows = []
        for name in self.names:
            r = self.runs[self.runs["policy"] == name].set_index("run")
            mu, lo, hi = mean_ci(r["ettr"], self.conf)
            dmu, dlo, dhi = mean_ci((r["ettr"] - base.reindex(r.index)).to_numpy(), self.conf)
            dry = ((r["stalls"] > 0) | (r["depleted"] > 0)).mean()
            rows.append({"policy": name, "ettr": mu, "ettr_lo": lo, "ettr_hi": hi, "change": dmu,
                         "change_lo": dlo, "change_hi": dhi, "retired": r["retired"].mean(),
                         "retired_bad": r["retired_bad"].mean(), "spares_taken": r["preemptions"].mean(),
                         "dry_share": float(dry), "runs": len(r)})
        return pd.DataFrame(rows)

    def best(self):
        """The policy with the highest ETTR whose gain over the first is clear of zero, else the first."""
        f = self.to_frame()
        clear = f[(f["change_lo"] > 0)]
        return self.names[0] if clear.empty else str(clear.sort_values("ettr").iloc[-1]["policy"])

    def table(self):
        f = self.to_frame()

        def change(row):
            if row["policy"] == self.names[0]:
                return "baseline"
            return (f"{row['change'] * 100:+.2f} points ({row['change_lo'] * 100:+.2f} to "
                    f"{row['change_hi'] * 100:+.2f})")

        return pd.DataFrame({
            "policy": f["policy"],
            "ETTR": [f"{pct(a)} ({pct(b)} to {pct(c)})" for a, b, c in zip(f["ettr"], f["ettr_lo"], f["ettr_hi"])],
            "change in ETTR": [change(r) for _, r in f.iterrows()],
            "nodes retired (bad)": [f"{count(round(a))} ({count(round(b))})"
                                    for a, b in zip(f["retired"], f["retired_bad"])],
            "spares taken": [count(round(x)) for x in f["spares_taken"]],
            "runs where the pool ran dry": [pct(x) for x in f["dry_share"]],
        })

    def text(self):
        f = self.to_frame().set_index("policy")
        best = self.best()
        if best == self.names[0]:
            return (f"No retirement policy clearly beats {self.names[0]!s} at this size: the ETTR changes lie "
                    f"within the simulation's noise or below zero ({int(f['runs'].iloc[0]):,} paired runs each).")
        r = f.loc[best]
        return (f"{best[0].upper() + best[1:]} buys {r['change'] * 100:+.2f} points of ETTR "
                f"({r['change_lo'] * 100:+.2f} to {r['change_hi'] * 100:+.2f}) over {self.names[0]}, retiring "
                f"{count(round(r['retired']))} nodes ({count(round(r['retired_bad']))} of them bad) and taking "
                f"{count(round(r['spares_taken']))} spares from other work; the pool ran dry in "
                f"{pct(r['dry_share'])} of runs.")

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table())


def compare_policies(model, policies, *, runs=20, conf=0.95, seed=None, progress=None):
    """Simulate each of ``policies`` (a dict of name to policy, or a list) ``runs`` times on the same seeds.

    Never retiring is added first when it is not among them. The result gives, per policy, the ETTR
    (a share of wall time), its change against never retiring, the nodes retired, the spares taken and
    the share of runs in which the pool ran dry. ``progress`` is called with
    (runs done, runs in all).

    Examples
    --------
    >>> from relmodel.scale.lifecycle import fleet_model, threshold
    >>> m = fleet_model(job_nodes=64, warm_standbys=2, working_nodes=80, spare_nodes=4, work="14d",
    ...                 node_mtbf="50d", bad_share=0.1, multiplier=20, auto_unfixed=0.8, to_manual=0)
    >>> c = compare_policies(m, {"2 in 7 days": threshold(2, "7d")}, runs=5)
    >>> list(c.to_frame()["policy"])
    ['never retire', '2 in 7 days']
    """
    if not isinstance(model, FleetModel):
        raise ModelInputError(f"model must be a FleetModel; got {type(model).__name__}")
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 2:
        raise ModelInputError(f"runs must be a whole number >= 2; got {runs!r}")
    if isinstance(policies, (str, bytes)) or not isinstance(policies, (dict, list, tuple)):
        raise ModelInputError(f"policies must be a dict of name to policy, or a list of policies; got {policies!r}")
    items = (list(policies.items()) if isinstance(policies, dict) else
             [(p.name, p) for p in (checked_policy(p, "each of policies") for p in policies)])
    items = [(name, checked_policy(p, f"policies[{name!r}]") or never()) for name, p in items]  # None: never
    if not any(getattr(p, "kind", None) == "never" for _, p in items):
        items.insert(0, ("never retire", never()))
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise ModelInputError(f"policy names must differ; got {names}")
    seed = base_seed(seed)
    rows = []
    total = len(items) * int(runs)
    for name, pol in items:
        for i in range(int(runs)):
            r = run_once(model, pol, seed + i)
            r.update(policy=name, run=i)
            rows.append(r)
            if progress is not None:
                progress(len(rows), total)
    return PolicyComparison(model, tuple(names), pd.DataFrame(rows), conf)


def lifecycle_model(estimate, *, job_nodes, warm_standbys=None, spare_nodes=None, working_nodes=None, work="30d",
                    repair=None, replace="7d", node_rate=None, **inputs):
    """The fleet a :func:`relmodel.bad_nodes` estimate describes, at the planned size of ``job_nodes`` nodes.

    Good nodes' mean life (hours) is the estimate's 1/lam, or, with ``node_rate`` (failures per hour of the
    job's nodes together, such as a decision's today's hardware rate at the planned size), the life that gives
    the job's nodes that rate with the estimate's bad share and multiplier; ``bad_share``, ``multiplier`` and
    the chance a repair leaves the fault (one repair stage, as the log shows repairs) come from it. ``repair`` is a
    repair-time law (a mean in hours, or a model with ``sample``; 24 h when None). Pools, unless given:
    warm standbys enough to cover the nodes away in repair 999 times in 1,000 (Poisson, at least 2), a
    working pool of the job, its standbys and 1% more (at least 2), spares of 2% of the job (at least 2);
    a retired node is replaced by a new one after ``replace`` (None: never).
    """
    from scipy import stats

    lam = float(estimate.lam)
    if not (lam > 0 and np.isfinite(lam)):
        raise ModelInputError("the estimate has no good-node failure rate to simulate with")
    share = float(estimate.bad_share) if np.isfinite(estimate.bad_share) else 0.0
    mult = float(estimate.multiplier) if np.isfinite(estimate.multiplier) and estimate.multiplier > 1 else 1.0
    if node_rate is not None:
        if not (isinstance(node_rate, (int, float)) and node_rate > 0 and np.isfinite(node_rate)):
            raise ModelInputError(f"node_rate must be a positive number of failures per hour; got {node_rate!r}")
        lam = float(node_rate) / (job_nodes * (1 + share * (mult - 1)))
    unfixed = float(estimate.unfixed) if np.isfinite(estimate.unfixed) else 0.0
    repair = 24.0 if repair is None else repair
    mean_rep = float(getattr(repair, "mean_h", repair))
    rate = job_nodes * lam * (1 + share * (mult - 1))
    if warm_standbys is None:
        warm_standbys = max(2, int(stats.poisson.ppf(0.999, rate * mean_rep)))
    if working_nodes is None:
        working_nodes = job_nodes + warm_standbys + max(2, int(np.ceil(0.01 * job_nodes)))
    if spare_nodes is None:
        spare_nodes = max(2, int(np.ceil(0.02 * job_nodes)))
    return fleet_model(job_nodes=job_nodes, warm_standbys=warm_standbys, working_nodes=working_nodes,
                       spare_nodes=spare_nodes, work=work, node_mtbf=1.0 / lam, bad_share=share, multiplier=mult,
                       auto_repair=repair, to_manual=0.0, auto_unfixed=unfixed, replace=replace, **inputs)
