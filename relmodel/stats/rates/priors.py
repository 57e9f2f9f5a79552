"""Gamma priors for failure rates from published fleets, and conjugate updating.

Model: a fleet ``i`` observed for ``E_i`` unit-hours (node-hours or
GPU-hours) has ``k_i ~ Poisson(lambda_i E_i)`` interruptions, and the fleets'
rates scatter as ``lambda_i ~ Gamma(shape a, rate b)``.  Integrating
``lambda_i`` out gives a negative binomial for each count; :func:`fleet_prior`
chooses ``a`` and ``b`` by maximising that marginal likelihood (empirical
Bayes, type-II maximum likelihood).  :func:`update_rate` adds a cluster's own
count: the posterior is ``Gamma(a + k, b + E)`` exactly, and the count in a
future exposure ``E'`` is negative binomial with ``n = a + k`` and
``p = (b + E) / (b + E + E')``.

Rates inside are per unit-hour; tables also show them per 1,000 node-days
(or GPU-days), the unit cluster studies quote.
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from ...errors import CountError, ExposureError, PriorError, UnitError
from ...units import hours
from .rate_data import RateData, per_day_label, rate_data
from .rates import poisson_interval
from ...tables import Result, html_table
from relmodel.base.escape import html_text

__all__ = ["PriorWarning", "RateData", "rate_data", "GammaPrior", "fleet_prior", "RatePosterior", "update_rate",
           "PredictiveCounts", "VAGUE_SHAPE", "MAX_SHAPE"]

VAGUE_SHAPE = 0.5   # fallback prior: the information of half an interruption
MAX_SHAPE = 1e4     # fleets that agree exactly would push the shape to infinity


class PriorWarning(UserWarning):
    """A prior could not be fitted (one fleet only) and a stated vague prior was used."""


@dataclass(frozen=True)
class GammaPrior(Result):
    """Gamma(shape, rate_h) prior for a failure rate per unit-hour (``per`` node or GPU)."""

    shape: float
    rate_h: float
    per: str = "node"
    method: str = ""
    fleets: tuple = ()
    note: str = ""

    @property
    def mean_per_h(self):
        return self.shape / self.rate_h

    def interval(self, conf=0.95):
        """Equal-tailed interval of the rate per unit-hour."""
        a = (1 - conf) / 2
        return tuple(float(x) for x in stats.gamma.ppf([a, 1 - a], self.shape, scale=1 / self.rate_h))

    def to_frame(self, conf=0.95):
        lo, hi = self.interval(conf)
        unit = f"per 1,000 {per_day_label(self.per)}"
        return pd.DataFrame({"quantity": ["mean rate", f"{conf:.0%} interval, low", f"{conf:.0%} interval, high",
                                          "shape", f"rate ({self.per}-hours)", "fleets"],
                             "value": [24000 * self.mean_per_h, 24000 * lo, 24000 * hi, self.shape, self.rate_h,
                                       len(self.fleets)],
                             "unit": [unit, unit, unit, "", "", ""]})

    def text(self, conf=0.95):
        lo, hi = self.interval(conf)
        unit = f"per 1,000 {per_day_label(self.per)}"
        if len(self.fleets) < 2:
            return (f"With one fleet no spread between fleets can be estimated: the prior is vague, with mean "
                    f"{24000 * self.mean_per_h:,.2f} {unit} ({conf:.0%} between {24000 * lo:,.2f} and "
                    f"{24000 * hi:,.2f}; {self.method}).")
        return (f"Across {len(self.fleets)} published fleets the rate is about {24000 * self.mean_per_h:,.2f} "
                f"{unit} ({conf:.0%} of fleets between {24000 * lo:,.2f} and {24000 * hi:,.2f}; prior by "
                f"{self.method}).")

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + (f"<p><i>{html_text(self.note)}</i></p>" if self.note else "")


def _fleet_inputs(fleets, per):
    """(counts, exposures, names, dropped) from a fleets table or a list of RateData / pairs."""
    if fleets is None:
        from ...data.bundled.fleets import fleets as table
        fleets = table("gpu", primary=True)
    if isinstance(fleets, pd.DataFrame):
        return _table_inputs(fleets, per)
    items = [rate_data(f, per) for f in fleets]
    return (np.array([d.count for d in items], float), np.array([d.exposure_h for d in items], float),
            [d.name or f"fleet {i + 1}" for i, d in enumerate(items)], [])


def _table_inputs(table, per):
    from ...data.bundled.fleets import fleet_exposure
    if "per" in table.columns and table["per"].nunique() > 1:
        raise UnitError(f"the fleets table mixes units ({', '.join(map(str, table['per'].unique()))}); "
                        "give rows of one unit")
    if "primary" in table.columns:
        table = table[table["primary"].astype(bool)]
    if "count" in table.columns and "exposure_h" in table.columns:
        exposure = table["exposure_h"].astype(float)
    else:
        exposure = fleet_exposure(table, per)
    count = pd.to_numeric(table["count"], errors="coerce").astype(float)
    if (count < 0).any():
        raise CountError(f"negative counts in the fleets table: {list(table.loc[count < 0, 'fleet'])}")
    if (exposure <= 0).any():
        raise ExposureError(f"zero or negative exposure in the fleets table: {list(table.loc[exposure <= 0, 'fleet'])}")
    ok = count.notna() & exposure.notna()
    names = list(table.get("fleet", pd.Series(range(len(table)), index=table.index)).astype(str))
    dropped = [n for n, keep in zip(names, ok) if not keep]
    used = [n for n, keep in zip(names, ok) if keep]
    return count[ok].to_numpy(), exposure[ok].to_numpy(), used, dropped


def marginal_loglik(shape, rate_h, counts, exposure_h):
    """Log marginal likelihood of counts under Poisson(lambda E), lambda ~ Gamma(shape, rate_h)."""
    k, e = np.asarray(counts, float), np.asarray(exposure_h, float)
    return float(np.sum(special.gammaln(k + shape) - special.gammaln(shape) - special.gammaln(k + 1)
                        + shape * np.log(rate_h / (rate_h + e)) + k * np.log(e / (rate_h + e))))


def _profile_rate(shape, k, e, rate0):
    """The rate maximising the marginal likelihood at ``shape``: Newton on log rate for
    sum shape / b - (shape + k) / (b + e) = 0 (one root: the sum falls as b grows)."""
    x = np.log(rate0)
    for _ in range(60):
        b = np.exp(x)
        g = shape * k.size - b * np.sum((shape + k) / (b + e))            # b times the derivative
        h = -b * np.sum((shape + k) * e / (b + e) ** 2)                   # its derivative in log b
        step = -g / h
        x += float(np.clip(step, -2.0, 2.0))
        if abs(step) < 1e-13:
            break
    return float(np.exp(x))


def _fit_gamma(counts, exposure_h):
    """Maximise the marginal likelihood: Brent on log shape, the rate profiled out; return shape, rate, at_bound."""
    k, e = np.asarray(counts, float), np.asarray(exposure_h, float)
    mean0 = (k.sum() + 0.5) / e.sum()
    cache = {}

    def nll(log_shape):
        shape = float(np.exp(log_shape))
        rate = _profile_rate(shape, k, e, cache.get("rate", shape / mean0))
        cache["rate"] = rate           # the next shape's Newton starts from this rate
        return -marginal_loglik(shape, rate, k, e)

    lo, hi = np.log(1e-3), np.log(MAX_SHAPE)
    r = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10, "maxiter": 500})
    x = float(r.x)
    if nll(hi) <= r.fun:               # the likelihood still rises at the bound: no spread between fleets
        x = hi
    shape = float(np.exp(x))
    return shape, _profile_rate(shape, k, e, shape / mean0), shape >= MAX_SHAPE * 0.999


def fleet_prior(fleets=None, per="node"):
    """Gamma prior of the failure rate per node (or GPU) across published fleets.

    Parameters
    ----------
    fleets : a fleets table (default: ``relmodel.datasets.fleets("gpu",
        primary=True)``; only ``primary`` rows are used, rows with no count or
        exposure are left out and listed in the note), or a list of
        :class:`RateData`, fleet names or ``(count, exposure_h)`` pairs.
    per : "node" or "gpu".

    Method: empirical Bayes, maximum marginal likelihood of the
    Poisson-Gamma (negative binomial) model.  With one usable fleet (or no
    interruption in any) no prior can be fitted: a :class:`PriorWarning` is
    issued and the vague prior Gamma(shape 1/2, mean (k + 1/2)/E) of the
    pooled count k over the pooled exposure E is returned, which has the
    weight of half an interruption.

    The prior is of the rate per node-hour (or GPU-hour): ``rate_h`` is in
    unit-hours; multiply ``mean_per_h`` by 24,000 for a rate per 1,000
    node-days.

    Examples
    --------
    >>> p = fleet_prior()                 # the five GPU fleets of relmodel.datasets.fleets
    >>> p.fleets
    ('llama3', 'rsc1', 'rsc2', 'stepfun', 'opt175b')
    >>> round(float(24000 * p.mean_per_h), 2)      # interruptions per 1,000 node-days
    6.09
    >>> [round(24000 * x, 2) for x in p.interval(0.95)]    # where 95% of fleets fall
    [1.17, 15.0]
    """
    if per not in ("node", "gpu"):
        raise UnitError(f"a fleet prior is per 'node' or 'gpu', got per={per!r}")
    counts, exposure, names, dropped = _fleet_inputs(fleets, per)
    note = f"Left out (no count or exposure): {', '.join(dropped)}." if dropped else ""
    if len(counts) == 0:
        raise PriorError("no fleet with a count and an exposure; a prior needs at least one (two to fit one)")
    if len(counts) == 1 or counts.sum() == 0:
        why = (f"only one fleet ({names[0]})" if len(counts) == 1 else "no fleet had an interruption")
        warnings.warn(f"{why}: no prior can be fitted; using the vague prior Gamma(shape {VAGUE_SHAPE}, "
                      "mean (k + 1/2)/E) of the pooled count", PriorWarning, stacklevel=2)
        mean = (counts.sum() + 0.5) / exposure.sum()
        return GammaPrior(VAGUE_SHAPE, VAGUE_SHAPE / mean, per, f"vague fallback prior ({why}: shape 1/2, "
                          "mean (k + 1/2)/E)", tuple(names), note)
    shape, rate, at_bound = _fit_gamma(counts, exposure)
    if at_bound:
        note += (f" The fleets' counts are consistent with one common rate; the shape is held at {MAX_SHAPE:g}, "
                 "so the prior is nearly a point and other fleets may differ more than these do.")
    method = "empirical Bayes: maximum marginal likelihood of the Poisson-Gamma (negative binomial) model"
    return GammaPrior(shape, rate, per, method, tuple(names), note.strip())


@dataclass(frozen=True)
class PredictiveCounts(Result):
    """Negative binomial count of interruptions in a future exposure (``n``, ``p`` as in scipy.stats.nbinom)."""

    n: float
    p: float
    duration_h: float
    units: float
    per: str

    @property
    def dist(self):
        return stats.nbinom(self.n, self.p)

    @property
    def mean(self):
        return float(self.dist.mean())

    def interval(self, conf=0.95):
        a = (1 - conf) / 2
        return int(self.dist.ppf(a)), int(self.dist.ppf(1 - a))

    def prob_at_least(self, k):
        return float(self.dist.sf(k - 1))

    def to_frame(self, conf=0.95):
        lo, hi = self.interval(conf)
        return pd.DataFrame({"days": [self.duration_h / 24], f"{self.per}s": [self.units],
                             "expected interruptions": [self.mean], f"{conf:.0%} low": [lo], f"{conf:.0%} high": [hi],
                             "chance of none": [float(self.dist.pmf(0))]})

    def text(self, conf=0.95):
        lo, hi = self.interval(conf)
        return (f"In the next {self.duration_h / 24:,.0f} days on {self.units:,.0f} {self.per}s expect about "
                f"{self.mean:,.0f} interruptions ({conf:.0%}: {lo:,} to {hi:,}).")

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.to_frame(), index=False)


@dataclass(frozen=True)
class RatePosterior(Result):
    """Gamma(shape, rate_h) posterior of a rate per unit-hour after ``count`` in ``exposure_h``."""

    shape: float
    rate_h: float
    per: str
    count: int
    exposure_h: float
    prior: GammaPrior = field(repr=False)
    conf: float = 0.95

    @property
    def mean_per_h(self):
        return self.shape / self.rate_h

    def interval(self, conf=None):
        a = (1 - (conf or self.conf)) / 2
        return tuple(float(x) for x in stats.gamma.ppf([a, 1 - a], self.shape, scale=1 / self.rate_h))

    def prob_above(self, rate_per_h):
        """Posterior probability that the rate exceeds ``rate_per_h``."""
        return float(stats.gamma.sf(rate_per_h, self.shape, scale=1 / self.rate_h))

    def predict(self, duration, *, n_gpus=None, n_nodes=None, gpus_per_node=None):
        """Interruptions in the next ``duration`` at ``n_gpus`` (or ``n_nodes``): negative binomial."""
        units = _future_units(self.per, n_gpus, n_nodes, gpus_per_node)
        t = hours(duration)
        if not t > 0:
            raise ExposureError(f"the future duration must be positive, got {duration!r}")
        future = units * t
        return PredictiveCounts(self.shape, self.rate_h / (self.rate_h + future), t, units, self.per)

    def to_frame(self):
        lo, hi = self.interval()
        plo, phi = self.prior.interval(self.conf)
        _, rlo, rhi = poisson_interval(self.count, self.exposure_h, self.conf)
        unit = per_day_label(self.per)
        return pd.DataFrame({"estimate": ["prior (fleets)", "this cluster alone (exact)", "posterior"],
                             f"rate per 1,000 {unit}": [24000 * self.prior.mean_per_h,
                                                       24000 * self.count / self.exposure_h, 24000 * self.mean_per_h],
                             f"{self.conf:.0%} low": [24000 * plo, 24000 * rlo, 24000 * lo],
                             f"{self.conf:.0%} high": [24000 * phi, 24000 * rhi, 24000 * hi]})

    def text(self):
        lo, hi = self.interval()
        unit = per_day_label(self.per)
        return (f"{self.count:,} interruptions in {self.exposure_h / 24:,.0f} {unit}, combined with the fleets, give "
                f"{24000 * self.mean_per_h:,.2f} per 1,000 {unit} ({self.conf:.0%} credible interval "
                f"{24000 * lo:,.2f} to {24000 * hi:,.2f}).")

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.to_frame(), index=False, float_format="{:,.3f}".format)


def _future_units(per, n_gpus, n_nodes, gpus_per_node):
    if per == "gpu":
        if n_gpus is None:
            if n_nodes is None or not gpus_per_node:
                raise UnitError("a per-GPU rate needs n_gpus (or n_nodes and gpus_per_node)")
            n_gpus = n_nodes * gpus_per_node
        units = n_gpus
    elif per == "node":
        if n_nodes is None:
            if n_gpus is None or not gpus_per_node:
                raise UnitError("a per-node rate needs n_nodes, or n_gpus with gpus_per_node")
            n_nodes = n_gpus / gpus_per_node
        units = n_nodes
    else:
        units = 1
    if not (np.isfinite(units) and units > 0):
        raise ExposureError(f"the future cluster must have a positive size, got {units!r} {per}s")
    return float(units)


def update_rate(prior, count, exposure=None, conf=0.95):
    """Posterior Gamma(shape + k, rate + E) of a rate after ``count`` interruptions in ``exposure``.

    ``count`` is a whole number with ``exposure`` in unit-hours of the
    prior's unit (or "1200d" for 1,200 node-days); or ``count`` is a log,
    count table, fleet name or :class:`RateData` and ``exposure`` is None.
    Returns a :class:`RatePosterior` of the rate per unit-hour; its
    ``predict(duration, n_gpus=...)`` gives the negative binomial count of
    future interruptions.

    Examples
    --------
    A prior of mean 2 per 10,000 node-hours, then 10 interruptions in 1,200
    node-days (28,800 node-hours):

    >>> post = update_rate(GammaPrior(shape=2.0, rate_h=10_000.0), 10, "1200d")
    >>> post.shape, post.rate_h                     # Gamma(2 + 10, 10,000 + 28,800)
    (12.0, 38800.0)
    >>> round(24000 * post.mean_per_h, 2)           # interruptions per 1,000 node-days
    7.42
    >>> future = post.predict("30d", n_nodes=100)    # 72,000 node-hours more
    >>> round(future.mean, 2), future.interval()     # interruptions expected, 95% range
    (22.27, (9, 40))
    """
    if not isinstance(prior, GammaPrior):
        raise PriorError(f"update_rate needs a GammaPrior (from fleet_prior), got {type(prior).__name__}")
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0 < conf < 1:
        raise PriorError(f"conf must be a confidence level strictly between 0 and 1, got {conf!r}")
    data = rate_data(count if exposure is None else (count, exposure), prior.per)
    return RatePosterior(prior.shape + data.count, prior.rate_h + data.exposure_h, prior.per, data.count,
                         data.exposure_h, prior, conf)
