"""Per-component rates shrunk toward the fleet's: empirical Bayes across causes.

With counts ``k_c`` per cause over one exposure ``E``, each cause's rate is
given a Gamma prior and the prior's strength is chosen by maximising the
marginal (negative binomial) likelihood of all the causes' counts:

* without a reference, ``lambda_c ~ Gamma(a, b)`` for every cause: rare
  causes are pulled toward the typical cause rate of this fleet;
* with a reference (another fleet's counts by the same causes, or a mapping
  cause -> rate per unit-hour), ``lambda_c ~ Gamma(nu m_c, nu)`` with
  ``m_c`` the reference rate: each cause is pulled toward that fleet's rate
  for it, by ``nu`` unit-hours' worth of evidence.

The posterior of each cause is Gamma(prior shape + k_c, prior rate + E).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ...errors import PriorError, UnitError
from .priors import MAX_SHAPE, _fit_gamma, marginal_loglik, per_day_label
from .rates import component_rates, poisson_interval
from ...tables import Result

__all__ = ["ComponentShrinkage", "shrink_components"]


@dataclass(frozen=True, eq=False)
class ComponentShrinkage(Result):
    """Each cause's raw and shrunk rate per unit-hour; ``by_cause`` holds the numbers (one row per cause)."""

    by_cause: pd.DataFrame
    per: str
    method: str
    conf: float = 0.95

    def to_frame(self):
        """Rates per 1,000 unit-days: raw (exact interval) and shrunk (credible interval)."""
        t = self.by_cause
        unit = per_day_label(self.per)
        pct = f"{self.conf:.0%}"
        return pd.DataFrame({
            "cause": t["component"], "interruptions": t["count"],
            f"rate per 1,000 {unit}": 24000 * t["rate_per_h"], f"{pct} low": 24000 * t["rate_lo"],
            f"{pct} high": 24000 * t["rate_hi"], "shrunk rate": 24000 * t["post_mean"],
            f"shrunk {pct} low": 24000 * t["post_lo"], f"shrunk {pct} high": 24000 * t["post_hi"],
            "weight on own data": t["weight"]})

    def text(self):
        return f"Rates by cause, shrunk by {self.method}."


def _reference_means(reference, names, per):
    if hasattr(reference, "counts") or hasattr(reference, "interruptions"):
        ref = component_rates(reference, per=per).iloc[:-1]
        means = dict(zip(ref["component"], (ref["count"] + 0.5) / ref["exposure_h"]))
    else:
        means = dict(reference)
    missing = [n for n in names if n not in means]
    if missing:
        raise PriorError(f"the reference has no rate for {missing}; it covers {sorted(map(str, means))}")
    m = np.array([float(means[n]) for n in names])
    if not np.all(np.isfinite(m) & (m > 0)):
        raise PriorError("reference rates must be positive numbers per unit-hour")
    return m


def _fit_strength(counts, exposure, means):
    """Prior weight nu (unit-hours) maximising the marginal likelihood of Gamma(nu m_c, nu) priors."""
    scale = 1.0 / means.mean()

    def nll(x):
        nu = np.exp(x[0]) * scale
        return -sum(marginal_loglik(nu * m, nu, [k], [exposure]) for k, m in zip(counts, means))

    r = optimize.minimize_scalar(lambda x: nll([x]), bounds=(np.log(1e-3), np.log(MAX_SHAPE)), method="bounded")
    return float(np.exp(r.x) * scale)


def shrink_components(source, per="node", reference=None, conf=0.95):
    """Rates per cause of a log or count table, shrunk toward the fleet's (empirical Bayes).

    ``reference`` None shrinks toward this fleet's typical cause rate;
    a CountTable / InterruptionLog with the same cause names (or a mapping
    cause -> rate per unit-hour) shrinks each cause toward that fleet's rate
    for it.  Returns a :class:`ComponentShrinkage`; its table holds rates
    per unit-hour (``per`` node, GPU or job) and the fraction of weight on
    each cause's own count.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> t = shrink_components(llama3_54day()).by_cause.set_index("component")
    >>> for cause in ("Faulty GPU", "Server Chassis"):      # per 1,000 node-days: raw, shrunk
    ...     r = t.loc[cause]
    ...     print(f"{cause}: {r['count']}, {24000 * r['rate_per_h']:.3f} -> {24000 * r['post_mean']:.3f}")
    Faulty GPU: 148, 1.338 -> 1.308
    Server Chassis: 2, 0.018 -> 0.023
    """
    if per not in ("job", "node", "gpu"):
        raise UnitError(f"unknown per={per!r}; use job, node or gpu")
    rows = component_rates(source, per=per, conf=conf).iloc[:-1].reset_index(drop=True)
    if len(rows) < 2:
        raise PriorError("shrinking by cause needs at least two causes; this source has "
                         f"{len(rows)}")
    k = rows["count"].to_numpy(float)
    e = float(rows["exposure_h"].iloc[0])
    if reference is None:
        a, b, _ = _fit_gamma(k, np.full(k.shape, e))
        shape, rate = np.full(k.shape, a), np.full(k.shape, b)
        method = (f"empirical Bayes across {len(k)} causes (one Gamma prior, shape {a:.3g}, fitted by maximum "
                  "marginal likelihood)")
    else:
        m = _reference_means(reference, list(rows["component"]), per)
        nu = _fit_strength(k, e, m)
        shape, rate = nu * m, np.full(k.shape, nu)
        method = (f"empirical Bayes toward the reference fleet's cause rates (prior weight {nu / 24:,.0f} "
                  f"{per_day_label(per)}, fitted by maximum marginal likelihood)")
    a2 = (1 - conf) / 2
    table = rows[["component", "category", "count", "exposure_h"]].copy()
    table["rate_per_h"], table["rate_lo"], table["rate_hi"] = poisson_interval(k, np.full(k.shape, e), conf)
    table["post_mean"] = (shape + k) / (rate + e)
    table["post_lo"] = stats.gamma.ppf(a2, shape + k, scale=1 / (rate + e))
    table["post_hi"] = stats.gamma.ppf(1 - a2, shape + k, scale=1 / (rate + e))
    table["weight"] = e / (rate + e)
    return ComponentShrinkage(table, per, method, conf)
