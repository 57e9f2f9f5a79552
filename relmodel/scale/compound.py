"""Compound failures in fault domains: a vectorised simulator and its closed forms.

The job's hardware is cut into ``groups`` (scale-up domains, or single trays
under a node spare pool) of ``trays`` trays each, ``spares`` of which per
group are idle in-group spares.  Tray faults strike every tray at
``tray_rate`` per hour; whole-group faults (NVLink switch tray, rack power,
cooling) strike each domain at ``group_rate``.  Each failed part goes to
repair at once and comes back after a repair time S (any distribution), so the
parts in repair form M/G/infinity queues, independent from group to group
(Poisson thinning).  A group is *out* while more than ``spares`` of its trays,
or any whole-group fault, are in repair.  Each out group holds ``need`` spare
units from a pool of ``pool`` (one spare domain, or ``trays`` spare nodes for a
whole-domain fault under a node pool).  A failure that puts a group out when
the pool is used up stalls the job until enough units come back.

Closed forms (exact for this model, by PASTA): with a_t = trays x tray_rate x
E[S] and a_d = group_rate x E[S_d], the trays of one group in repair are
Poisson(a_t), so a tray failure finds no in-group spare with probability
1 - P(N < k) e^{-a_d}; it puts its group out with probability P(N = k)
e^{-a_d}; each other group is out with probability q = 1 - P(N <= k) e^{-a_d},
independently, so the failure finds no pool spare with probability
P(newly out) x P(Binomial(groups - 1, q) >= pool).  The mean stall has no
closed form; the simulator measures it.

The simulator starts every run in the stationary state (parts already in
repair at time 0 have size-biased repair times, cut at a uniform point), so
short runs are unbiased.  All runs are processed at once by two sweeps over
sorted start and end times, no Python loop over events.
"""

import dataclasses

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import DesignError
from ..units import hours
from .spares import _draw_repairs, _mean_repair
from ..tables import html_table
from relmodel.budget_guard import check_cost

__all__ = ["DomainModel", "CompoundResult", "closed_form", "simulate_domains"]


@dataclasses.dataclass(frozen=True)
class DomainModel:
    """Groups of trays with in-group spares and a pool of spare units (see module notes)."""

    groups: int
    trays: int
    spares: int = 0
    pool: int = 0
    tray_rate: float = 0.0
    group_rate: float = 0.0
    need: int = 1

    def __post_init__(self):
        for name in ("groups", "trays", "need"):
            if int(getattr(self, name)) < 1:
                raise DesignError(f"{name} must be a whole number >= 1; got {getattr(self, name)!r}")
        if not 0 <= int(self.spares) < int(self.trays):
            raise DesignError(f"spares per group must be 0 to {int(self.trays) - 1} (there are {self.trays} "
                              f"trays); got {self.spares!r}")
        if int(self.pool) < 0:
            raise DesignError(f"pool must be a whole number of spare units >= 0; got {self.pool!r}")
        for name in ("tray_rate", "group_rate"):
            v = float(getattr(self, name))
            if not (v >= 0 and np.isfinite(v)):
                raise DesignError(f"{name} must be a finite rate per hour >= 0; got {v!r}")

    @property
    def interrupt_share(self):
        """Share of tray failures that strike a tray the job uses: (trays - spares) / trays."""
        return (self.trays - self.spares) / self.trays

    @property
    def split_groups(self):
        """Whether whole-group faults are counted apart (a node pool: each fault needs ``need`` nodes)."""
        return self.need > 1


def _tail(dist_pmf, threshold):
    return float(dist_pmf[max(int(threshold), 0):].sum())


def closed_form(model, repair, group_repair=None):
    """Exact P(no in-group spare), P(no pool spare) and mean parts out for a :class:`DomainModel`.

    Returns a dict with p_no_group_spare (for tray failures the job feels),
    p_no_spare (for every failure that interrupts the job), groups_out_mean.
    """
    s_t = _mean_repair(repair)
    s_d = _mean_repair(group_repair if group_repair is not None else repair)
    k, m = model.spares, model
    a_t = m.trays * m.tray_rate * s_t
    a_d = m.group_rate * s_d
    p_lt_k = stats.poisson.cdf(k - 1, a_t) if k > 0 else 0.0
    p_eq_k, p_le_k = stats.poisson.pmf(k, a_t), stats.poisson.cdf(k, a_t)
    n_dom = m.groups // m.need if m.split_groups else m.groups
    if m.split_groups:
        q_t, q_d = 1.0 - p_le_k, 1.0 - np.exp(-a_d)
        others_tray = _convolve(m.groups - 1, q_t, n_dom, q_d, m.need)
        others_dom = _convolve(m.groups, q_t, n_dom - 1, q_d, m.need)
        p_none_tray = p_eq_k * _tail(others_tray, m.pool)
        p_none_dom = np.exp(-a_d) * _tail(others_dom, m.pool - m.need + 1)
        no_group = 1.0 - p_lt_k
        out_mean = m.groups * q_t + n_dom * q_d * m.need
    else:
        q = 1.0 - p_le_k * np.exp(-a_d)
        others = stats.binom.pmf(np.arange(m.groups), m.groups - 1, q)
        p_none_tray = p_eq_k * np.exp(-a_d) * _tail(others, m.pool)
        p_none_dom = p_le_k * np.exp(-a_d) * _tail(others, m.pool)
        no_group = 1.0 - p_lt_k * np.exp(-a_d)
        out_mean = m.groups * q
    lam_t = m.groups * m.trays * m.tray_rate * m.interrupt_share
    lam_d = n_dom * m.group_rate
    total = lam_t + lam_d
    p_none = (lam_t * p_none_tray + lam_d * p_none_dom) / total if total > 0 else 0.0
    return {"p_no_group_spare": float(no_group), "p_no_spare": float(p_none), "groups_out_mean": float(out_mean)}


def _convolve(n1, q1, n2, q2, weight):
    """pmf of Binomial(n1, q1) + weight x Binomial(n2, q2)."""
    a = stats.binom.pmf(np.arange(n1 + 1), n1, q1)
    b = np.zeros(weight * n2 + 1)
    b[::weight] = stats.binom.pmf(np.arange(n2 + 1), n2, q2)
    return np.convolve(a, b)


@dataclasses.dataclass(frozen=True)
class CompoundResult:
    """Simulated and closed-form chances of finding no spare, and the stall per interruption."""

    model: DomainModel
    n_runs: int
    horizon_h: float
    n_events: int
    p_no_group_spare: float
    p_no_spare: float
    p_no_spare_lo: float
    p_no_spare_hi: float
    mean_stall_h: float
    stall_share_lo: float
    stall_share_hi: float
    closed: dict
    conf: float = 0.95

    def to_frame(self):
        return pd.DataFrame({
            "quantity": ["failure finds no in-domain spare", "failure finds no spare at all",
                         "mean stall per interruption (h)"],
            "simulated": [self.p_no_group_spare, self.p_no_spare, self.mean_stall_h],
            "closed form": [self.closed["p_no_group_spare"], self.closed["p_no_spare"], np.nan],
        })

    def _repr_html_(self):
        return (f"<p>{self.n_runs:,} simulated runs of {self.horizon_h:,.0f} h, {self.n_events:,} interruptions</p>"
                + html_table(self.to_frame(), index=False, na_rep="no closed form"))


def _initial(rng, rate, repair, runs, mean):
    """Parts already in repair at time 0: Poisson(rate E[S]) per run, size-biased lengths cut uniformly."""
    n = rng.poisson(rate * mean, size=runs)
    total = int(n.sum())
    if hasattr(repair, "sample"):
        cdf = np.cumsum(_draw_repairs(repair, 4 * total + 16, rng))
        pick = np.searchsorted(cdf, rng.random(total) * cdf[-1], side="right") if cdf[-1] > 0 else None
        length = np.diff(cdf, prepend=0.0)[pick] if pick is not None else np.zeros(total)
    else:
        length = rng.gamma(2.0, mean, size=total)  # an exponential repair, size-biased
    start = -rng.random(total) * length
    return np.repeat(np.arange(runs), n), start, start + length


def _fresh(rng, rate, repair, runs, horizon):
    n = rng.poisson(rate * horizon, size=runs)
    total = int(n.sum())
    start = rng.random(total) * horizon
    return np.repeat(np.arange(runs), n), start, start + _draw_repairs(repair, total, rng)


def _items(rng, model, repair, group_repair, runs, horizon):
    """All parts in repair of all runs: run, group, start, end, weight, interrupts, need, is_tray."""
    m = model
    n_dom = m.groups // m.need if m.split_groups else m.groups
    parts = []
    for kind, rate, rep in (("tray", m.groups * m.trays * m.tray_rate, repair),
                            ("group", n_dom * m.group_rate, group_repair)):
        if rate <= 0:
            continue
        for fresh, (run, start, end) in ((False, _initial(rng, rate, rep, runs, _mean_repair(rep))),
                                         (True, _fresh(rng, rate, rep, runs, horizon))):
            size = run.size
            if kind == "tray":
                group, weight = rng.integers(0, m.groups, size), np.ones(size, np.int64)
                hits = fresh & (rng.random(size) < m.interrupt_share)
                need = np.ones(size, np.int64)
            else:
                dom = rng.integers(0, n_dom, size)
                group = m.groups + dom if m.split_groups else dom
                weight = np.full(size, m.spares + 1, np.int64)
                hits = np.full(size, fresh)
                need = np.full(size, m.need if m.split_groups else 1, np.int64)
            parts.append((run, group, start, end, weight, np.broadcast_to(hits, (size,)), need,
                          np.full(size, kind == "tray")))
    if not parts:
        return None
    return [np.concatenate(col) for col in zip(*parts)]


def _order(major, time, minor):
    """Indices sorting by (major, time, minor) through one int64 key (time quantised to fit the bits left)."""
    if time.size == 0:
        return np.zeros(0, np.int64)
    major_bits = int(major.max()).bit_length() if major.size else 0
    time_bits = 61 - major_bits
    lo, span = float(time.min()), float(np.ptp(time)) or 1.0
    ticks = np.floor((time - lo) / span * (2.0 ** time_bits - 2)).astype(np.int64)
    key = (major.astype(np.int64) << (time_bits + 1)) | (ticks << 1) | minor
    return np.argsort(key)


def _sweeps(model, run, group, start, end, weight, need):
    """Occupancy of each group, then of the pool; per item: in-group count before, newly out, stall."""
    n = run.size
    n_groups = model.groups * 2 + 1
    key = np.concatenate([run, run]) * n_groups + np.concatenate([group, group])
    time = np.concatenate([start, end])
    delta = np.concatenate([weight, -weight])
    order = _order(key, time, np.repeat([0, 1], n))
    cum = np.cumsum(delta[order])
    before = cum - delta[order]
    k = model.spares
    newly = (before <= k) & (cum > k)
    left = (before > k) & (cum <= k)
    item_before = np.empty(2 * n, np.int64)
    item_before[order] = before
    new_out = np.zeros(2 * n, bool)
    new_out[order] = newly
    left_out = np.zeros(2 * n, bool)
    left_out[order] = left
    pts = np.flatnonzero(new_out | left_out)
    pool_delta = np.where(new_out[pts], 1, -1) * np.concatenate([need, need])[pts]
    pts_run = np.concatenate([run, run])[pts]
    pts_time = time[pts]
    o2 = _order(pts_run, pts_time, (pool_delta < 0).astype(np.int64))
    used = np.cumsum(pool_delta[o2])
    ok = used <= model.pool
    idx = np.where(ok, np.arange(o2.size), o2.size)
    nxt = np.minimum.accumulate(idx[::-1])[::-1]
    stall_pts = np.zeros(o2.size)
    short = ~ok & new_out[pts[o2]]
    stall_pts[short] = pts_time[o2][nxt[short]] - pts_time[o2][short]
    stall = np.zeros(2 * n)
    stall[pts[o2]] = stall_pts
    return item_before[:n], new_out[:n], stall[:n]


def simulate_domains(model, repair, *, group_repair=None, horizon="7d", n_runs=10_000, seed=0, conf=0.95):
    """Simulate ``n_runs`` runs of ``horizon`` each; return a :class:`CompoundResult`.

    ``repair`` (and ``group_repair`` for whole-group faults, default the same)
    is a mean repair time (a duration: hours, or "24h"; exponential) or a
    model with ``sample`` and ``mean_h`` (:func:`relmodel.scale.spares.repair_model`).
    ``horizon`` is the duration of each run; the model's rates are per hour.
    The result's probabilities are fractions of the interruptions, its
    stalls in hours.

    Examples
    --------
    16 racks of 18 trays, no spare tray in a rack, 2 spare racks; each tray
    fails once in 10,000 hours and is back 24 hours later on average:

    >>> m = DomainModel(groups=16, trays=18, pool=2, tray_rate=1e-4)
    >>> r = simulate_domains(m, "24h", horizon="7d", n_runs=2000, seed=0)
    >>> round(r.closed["p_no_spare"], 3), round(r.p_no_spare, 3)     # closed form, simulated
    (0.125, 0.127)
    >>> bool(r.p_no_spare_lo < r.closed["p_no_spare"] < r.p_no_spare_hi)
    True
    """
    h = float(hours(horizon))
    if not (h > 0 and np.isfinite(h)):
        raise DesignError(f"horizon must be a positive, finite duration; got {horizon!r}")
    runs = int(n_runs)
    if runs < 1:
        raise DesignError(f"n_runs must be a whole number >= 1; got {n_runs!r}")
    check_cost(f"simulate_domains(n_runs={runs:,})", work=runs * 200, memory=runs * 8 * 16,
               hint="simulate fewer runs (n_runs)")
    group_repair = repair if group_repair is None else group_repair
    closed = closed_form(model, repair, group_repair)
    rng = np.random.default_rng(seed)
    items = _items(rng, model, repair, group_repair, runs, h)
    if items is None:
        return CompoundResult(model, runs, h, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, closed, conf)
    run, group, start, end, weight, hits, need, tray = items
    before, newly, stall = _sweeps(model, run, group, start, end, weight, need)
    n_hits = int(hits.sum())
    no_group = float(np.mean(before[hits & tray] >= model.spares)) if (hits & tray).any() else 0.0
    no_spare = newly & hits & (stall > 0)
    lo, hi = _clopper_pearson(int(no_spare.sum()), n_hits, conf)
    per_run = np.bincount(run[hits], weights=stall[hits], minlength=runs) / h
    a = (1.0 - conf) / 2
    s_lo, s_hi = np.quantile(per_run, [a, 1 - a])
    return CompoundResult(
        model, runs, h, n_hits, no_group, float(no_spare.sum() / max(n_hits, 1)), lo, hi,
        float(stall[hits].sum() / max(n_hits, 1)), float(s_lo), float(s_hi), closed, conf)


def _clopper_pearson(k, n, conf):
    if n == 0:
        return 0.0, 1.0
    a = (1.0 - conf) / 2
    lo = stats.beta.ppf(a, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)
