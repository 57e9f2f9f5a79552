"""Reliability budgets and what-if questions on scaled rates.

A job-level MTBF target M is a failure-rate budget 1/M per hour.  A budget
split hands each cause (or each group of causes that scale with the same
unit) a slice of it:

* ``"proportional"``: in proportion to today's rates, so every cause must
  improve by the same factor;
* ``"equal"``: the same slice for each;
* a dict of weights: slices in proportion to the weights.

Causes named in ``hold`` keep their observed rate and the rest of the budget
is split among the others (e.g. hold the per-job software causes, which no
hardware purchase changes).  A slice divided by the target cluster's count of
that unit is the FIT each unit must reach.

What-if questions multiply some causes' rates (``{"GPU HBM3 Memory": 0.5}``:
halve HBM failures; ``{"link": 2}``: twice the optics) and report the new job
MTBF, the optimal checkpoint interval (:func:`relmodel.checkpoint.optimal_interval`)
and the ETTR there, with bootstrap intervals.
"""

import dataclasses

import numpy as np
import pandas as pd

from ...checkpoint.costs import cost_hours
from ...defaults import CKPT_COST, RESTART
from ...checkpoint.intervals import optimal_interval
from ...errors import ModelInputError
from .requirements import best_ettr, ettr_of_rates
from ...units import hours
from ...tables import Result, duration, hours_text, number, people_table

__all__ = ["split_budget", "Budget", "budget_what_if", "BudgetWhatIf", "share_fit", "select"]


def select(scaled, name):
    """Boolean mask of the causes of ``scaled`` matching a component, category or unit name."""
    t = scaled.by_cause
    key = str(name).lower()
    mask = np.zeros(len(t), bool)
    for col in ("component", "category", "scales_with"):
        mask |= (t[col].astype(str).str.lower() == key).to_numpy()
    if not mask.any():
        valid = sorted(set(t["component"]) | set(t["category"]) | set(t["scales_with"]))
        raise ModelInputError(f"no cause matches {name!r}; use a component, category or unit: {', '.join(valid)}")
    return mask


def _groups(scaled, by):
    t = scaled.by_cause
    if by == "component":
        return list(t["component"]), [np.arange(len(t)) == i for i in range(len(t))], list(t["scales_with"])
    if by == "scales_with":
        names = list(dict.fromkeys(t["scales_with"]))
        return names, [(t["scales_with"] == g).to_numpy() for g in names], names
    raise ModelInputError(f"by must be 'component' or 'scales_with'; got {by!r}")


@dataclasses.dataclass(frozen=True)
class Budget(Result):
    """A job MTBF target split over causes: ``by_cause`` has one row per cause or group."""

    job_mtbf_h: float
    method: str
    by_cause: pd.DataFrame

    def to_frame(self):
        return self.by_cause.copy()

    def text(self):
        return f"Job MTBF budget {self.job_mtbf_h:.4g} h split {self.method}."

    def _people(self):
        t = self.by_cause
        return people_table(pd.DataFrame({
            "cause": t["name"], "grows with": t["scales_with"], "units": t["units"],
            "observed rate per hour": t["observed_rate_per_h"], "allowed rate per hour": t["allowed_rate_per_h"],
            "allowed MTBF per unit": [hours_text(v, missing="none allowed") for v in t["allowed_mtbf_h"]],
            "observed FIT": t["observed_fit"], "allowed FIT": t["allowed_fit"],
            "improvement needed": [f"{number(v)}x" if np.isfinite(v) else "remove the cause" for v in t["improvement"]],
            "held": t["held"]}))

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _weights(method, names, rates):
    if isinstance(method, dict):
        lower = {str(k).lower(): float(v) for k, v in method.items()}
        unknown = set(lower) - {n.lower() for n in names}
        if unknown or any(v < 0 for v in lower.values()):
            raise ModelInputError(f"weights must be >= 0 and name these: {', '.join(names)}; got {method!r}")
        return np.array([lower.get(n.lower(), 0.0) for n in names])
    if method == "proportional":
        return np.asarray(rates, dtype=float)
    if method == "equal":
        return np.ones(len(names))
    raise ModelInputError(f"method must be 'proportional', 'equal' or a dict of weights; got {method!r}")


def split_budget(scaled, job_mtbf_h, method="proportional", *, by="component", hold=()):
    """Split the rate budget 1/job_mtbf_h over causes (see module notes).

    ``scaled`` is a :class:`relmodel.scale.clusters.scaling.ScaledRates`.  Returns a
    :class:`Budget` whose table has name, scales_with, units, observed_rate_per_h,
    allowed_rate_per_h, allowed_mtbf_h (per unit), observed_fit, allowed_fit,
    improvement (observed / allowed rate) and held.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.clusters.scaling import scale_rates
    >>> scaled = scale_rates(llama3_54day(), target_cluster=16_384, n_boot=100, seed=0)
    >>> b = split_budget(scaled, "6h", by="scales_with", hold=["job"])   # a 6 h job MTBF, software held
    >>> round(float(b.by_cause["allowed_rate_per_h"].sum()), 4), round(1 / 6, 4)   # per hour: the whole budget is used
    (0.1667, 0.1667)
    """
    m = float(hours(job_mtbf_h))
    if not m > 0:
        raise ModelInputError(f"job_mtbf_h must be positive hours; got {job_mtbf_h!r}")
    names, masks, units = _groups(scaled, by)
    t, counts = scaled.by_cause, scaled.target.counts()
    rates = np.array([t.loc[mk, "rate_per_h"].sum() for mk in masks])
    held = np.zeros(len(names), bool)
    for h in hold:
        sel = select(scaled, h)
        held |= np.array([mk[sel].any() and not mk[~sel].any() for mk in masks])
    room = 1.0 / m - rates[held].sum()
    if room <= 0:
        from ...errors import InfeasibleTargetError
        raise InfeasibleTargetError(
            f"the held causes alone fail the job every {1 / rates[held].sum():.3g} h, "
            f"more often than the {m:.3g} h target; hold fewer causes or relax the target")
    w = _weights(method, names, rates) * ~held
    if not w.sum() > 0:
        raise ModelInputError("the weights of the causes not held sum to zero; give some weight")
    allowed = np.where(held, rates, room * w / w.sum())
    n_units = np.array([counts[u] for u in units], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        table = pd.DataFrame({
            "name": names, "scales_with": units, "units": n_units.astype(int),
            "observed_rate_per_h": rates, "allowed_rate_per_h": allowed,
            "allowed_mtbf_h": np.where(allowed > 0, n_units / allowed, np.inf),
            "observed_fit": rates / n_units * 1e9, "allowed_fit": allowed / n_units * 1e9,
            "improvement": np.where(allowed > 0, rates / allowed, np.inf), "held": held,
        })
    label = method if isinstance(method, str) else "by weights"
    return Budget(m, label, table)


def share_fit(scaled, name, share=0.1, per=None):
    """FIT per unit that keeps the causes matching ``name`` under ``share`` of all interruptions.

    The other causes are held at their scaled rates.  ``per`` is the unit the
    FIT is quoted in (any :meth:`relmodel.Cluster.counts` key, e.g.
    ``"transceiver"`` for optics); by default the unit the causes scale with.

    Returns FIT (failures per 10^9 unit-hours).

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.clusters.scaling import scale_rates
    >>> scaled = scale_rates(llama3_54day(), target_cluster=16_384, n_boot=100, seed=0)
    >>> round(share_fit(scaled, "Network Switch/Cable", 0.1))     # FIT per link for a 10% share
    938
    """
    if not 0.0 < float(share) < 1.0:
        raise ModelInputError(f"share must be a fraction in (0, 1), e.g. 0.1; got {share!r}")
    mask = select(scaled, name)
    t = scaled.by_cause
    others = float(t.loc[~mask, "rate_per_h"].sum())
    unit = per or t.loc[mask, "scales_with"].iloc[0]
    counts = scaled.target.counts()
    if unit not in counts:
        raise ModelInputError(f"per must be one of {', '.join(counts)}; got {per!r}")
    return share / (1.0 - share) * others / counts[unit] * 1e9


@dataclasses.dataclass(frozen=True)
class BudgetWhatIf(Result):
    """Job MTBF, optimal interval and ETTR before and after changing some causes' rates."""

    changes: dict
    before_mtbf_h: float
    after_mtbf_h: float
    before_interval_h: float
    after_interval_h: float
    before_ettr: float
    after_ettr: float
    after_ettr_lo: float
    after_ettr_hi: float
    conf: float

    def to_frame(self):
        return pd.DataFrame({
            "quantity": ["job MTBF (h)", "optimal interval (h)", "ETTR"],
            "before": [self.before_mtbf_h, self.before_interval_h, self.before_ettr],
            "after": [self.after_mtbf_h, self.after_interval_h, self.after_ettr],
        })

    def text(self):
        """What changed and what it does to the job MTBF and ETTR."""
        return (f"What if {self.changes}: job MTBF {duration(self.before_mtbf_h)} becomes "
                f"{duration(self.after_mtbf_h)}, ETTR {number(self.before_ettr, 4)} becomes "
                f"{number(self.after_ettr, 4)} ({self.conf:.0%} interval {number(self.after_ettr_lo, 4)} to "
                f"{number(self.after_ettr_hi, 4)}).")


def budget_what_if(scaled, changes, ckpt_cost=CKPT_COST, restart=RESTART, *, conf=0.95, n_boot=2000, seed=None):
    """Multiply the rates of the named causes (component, category or unit) and re-plan.

    ``changes`` maps a name to a factor: 0.5 halves those failures, 2 doubles
    them.  Returns a :class:`BudgetWhatIf`; the ETTR interval is a parametric
    bootstrap over the Poisson counts.

    ``ckpt_cost`` and ``restart`` are durations; MTBFs and intervals in the result are hours.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.clusters.scaling import scale_rates
    >>> scaled = scale_rates(llama3_54day(), target_cluster=16_384, n_boot=100, seed=0)
    >>> w = budget_what_if(scaled, {"GPU HBM3 Memory": 0.5}, "1min", "10min", n_boot=200, seed=0)   # halve HBM failures
    >>> round(float(w.before_mtbf_h), 3), round(float(w.after_mtbf_h), 3), round(w.after_ettr - w.before_ettr, 4)
    (3.093, 3.384, 0.008)
    """
    factor = np.ones(len(scaled.by_cause))
    for name, f in dict(changes).items():
        if not (float(f) >= 0 and np.isfinite(float(f))):
            raise ModelInputError(f"factor for {name!r} must be a finite number >= 0; got {f!r}")
        factor[select(scaled, name)] *= float(f)
    rates = scaled.by_cause["rate_per_h"].to_numpy()
    before, after = rates.sum(), (rates * factor).sum()
    if not after > 0:
        raise ModelInputError("the changes leave no failures at all; the job MTBF would be infinite")
    n = scaled.target.n_gpus
    d, r = cost_hours(ckpt_cost, n, "ckpt_cost"), cost_hours(restart, n, "restart")
    draws = (scaled.draws(n_boot, seed) * factor).sum(axis=1)
    a = (1.0 - conf) / 2
    lo, hi = np.quantile(ettr_of_rates(draws, d, r), [a, 1 - a], method="inverted_cdf")
    return BudgetWhatIf(
        dict(changes), 1.0 / before, 1.0 / after, float(optimal_interval(1.0 / before, d)),
        float(optimal_interval(1.0 / after, d)), float(best_ettr(1.0 / before, d, r)),
        float(best_ettr(1.0 / after, d, r)), float(lo), float(hi), conf,
    )
