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
P(newly out) x P(Binomial(groups - 1, q) >= pool).

The job waits for a spare while the out groups need more units than the
pool holds.  Stalled time is the union of those stretches: a second failure
during a wait adds only the time by which it prolongs the wait, never a
second copy of it.  At a random time the out groups are Binomial(groups, q)
(plus ``need`` x Binomial(domains, q_d) for whole-domain faults under a node
pool), so the long-run share of time stalled is the chance that count
exceeds ``pool``, and the mean stall per interruption is that share over the
interruption rate (``stall_share_free``: failures go on during the waits,
the model the simulator below runs).  A stopped job raises no failures, so
the share ETTR loses (``stall_share``) confines that law to the states a
running job can reach and the waits one failure opens (:mod:`.stopped`).
The job runs only outside those stretches.

The simulator starts every run in the stationary state (parts already in
repair at time 0 have size-biased repair times, cut at a uniform point), so
short runs are unbiased.  All runs are processed at once by two sweeps over
the start and end times put in order once (:mod:`.domain_sweeps`), no
Python loop over events.
"""

import contextlib
import dataclasses

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import DesignError
from ...units import hours
from ..sparing.spares import _draw_repairs, _mean_repair
from .domain_runs import _kinds, expected_items, run_cost
from .compound_pmf import _convolve, held_pmf as _held, tail as _tail  # noqa: F401  (_convolve: tests)
from .domain_sweeps import sweeps as _sweeps
from .stopped import drained, stopped_share, unit_classes
from ...tables import Result, duration, html_table
from relmodel.budget_guard import check_cost

__all__ = ["DomainModel", "CompoundResult", "closed_form", "simulate_domains", "shared_runs"]


@dataclasses.dataclass(frozen=True)
class DomainModel:
    """Groups of trays with in-group spares and a pool of spare units (see module notes).

    ``bursts`` holds correlated faults: (rate per hour for the whole job,
    groups one event takes out at once, repair time or model).  One event
    interrupts the job once and takes that many consecutive groups out until
    it is repaired.  ``pool_rate`` is the failure rate of one idle pool unit
    (a spare that fails on the shelf is away until repaired; each unit is
    taken to be idle and down while any of its failures is in repair, so the
    count of dead spares is Binomial(pool, 1 - exp(-rate E[S])): for small
    rate E[S] the share of time an up/repair cycle spends in repair).
    """

    groups: int
    trays: int
    spares: int = 0
    pool: int = 0
    tray_rate: float = 0.0
    group_rate: float = 0.0
    need: int = 1
    bursts: tuple = ()
    pool_rate: float = 0.0

    def __post_init__(self):
        for name in ("groups", "trays", "need"):
            if int(getattr(self, name)) < 1:
                raise DesignError(f"{name} must be a whole number >= 1; got {getattr(self, name)!r}")
        if not 0 <= int(self.spares) < int(self.trays):
            raise DesignError(f"spares per group must be 0 to {int(self.trays) - 1} (there are {self.trays} "
                              f"trays); got {self.spares!r}")
        if int(self.pool) < 0:
            raise DesignError(f"pool must be a whole number of spare units >= 0; got {self.pool!r}")
        for name in ("tray_rate", "group_rate", "pool_rate"):
            v = float(getattr(self, name))
            if not (v >= 0 and np.isfinite(v)):
                raise DesignError(f"{name} must be a finite rate per hour >= 0; got {v!r}")
        for burst in self.bursts:
            if len(burst) != 3 or not (float(burst[0]) >= 0 and np.isfinite(float(burst[0]))) \
                    or not 1 <= int(burst[1]) <= self.groups:
                raise DesignError(f"each burst must be (rate per hour >= 0, groups it takes: 1 to {self.groups}, "
                                  f"repair); got {burst!r}")

    @property
    def interrupt_share(self):
        """Share of tray failures that strike a tray the job uses: (trays - spares) / trays."""
        return (self.trays - self.spares) / self.trays

    @property
    def split_groups(self):
        """Whether whole-group faults are counted apart (a node pool: each fault needs ``need`` nodes)."""
        return self.need > 1


def _burst_pmf(model, length):
    """pmf (first ``length`` terms) of the pool units held by bursts in repair: sum of span x Poisson."""
    out = np.zeros(length)
    out[0] = 1.0
    for rate, span, rep in model.bursts:
        y = np.zeros(length)
        y[::span] = stats.poisson.pmf(np.arange(len(y[::span])), rate * _mean_repair(rep))
        out = np.convolve(out, y)[:length]
    return out


def closed_form(model, repair, group_repair=None):
    """Exact P(no in-group spare), P(no pool spare) and mean parts out for a :class:`DomainModel`.

    Returns a dict with p_no_group_spare (for tray failures the job feels),
    p_no_spare (for every failure that strikes a group in service: one on a
    group already out takes nothing more from the pool), groups_out_mean,
    stall_share (the long-run share of time the job waits for a spare: the
    out groups need more units than the pool holds) and mean_stall_h (that
    share over the interruption rate: stalled hours per interruption), with
    nothing failing while the job waits (:mod:`.stopped`; mean_stall_h is per
    interruption the running job sees).  stall_share_free and
    mean_stall_free_h are the same with failures going on during the waits,
    the model :func:`simulate_domains` simulates.
    With bursts (one event, several groups) the groups the bursts in repair
    hold are taken out of the binomial count of the others; this is exact
    while bursts in repair do not overlap one another (rare events), and
    slightly pessimistic otherwise.
    """
    s_t = _mean_repair(repair)
    s_d = _mean_repair(group_repair if group_repair is not None else repair)
    k, m = model.spares, model
    a_t = m.trays * m.tray_rate * s_t
    a_d = m.group_rate * s_d
    p_eq_k, p_le_k = stats.poisson.pmf(k, a_t), stats.poisson.cdf(k, a_t)
    n_dom = m.groups // m.need if m.split_groups else m.groups
    length = m.pool + 2
    burst = _burst_pmf(m, length)
    dead = np.ones(1)
    if m.pool and m.pool_rate > 0:                # spares dead on the shelf hold pool units too
        dead = stats.binom.pmf(np.arange(m.pool + 1), m.pool, -np.expm1(-m.pool_rate * s_t))

    def others(n1, q1, n2=0, q2=0.0):
        """pmf of the units held: c by bursts, then Binomial over the n1 - c groups they left."""
        return np.convolve(_held(burst, length, n1, q1, n2, q2, m.need), dead)[:length]
    no_group = p_eq_k / p_le_k                    # of the tray faults on a group in service
    if m.split_groups:
        q_t, q_d = 1.0 - p_le_k, 1.0 - np.exp(-a_d)
        p_none_tray = p_eq_k * _tail(others(m.groups - 1, q_t, n_dom, q_d), m.pool)
        p_none_dom = np.exp(-a_d) * _tail(others(m.groups, q_t, n_dom - 1, q_d), m.pool - m.need + 1)
        in_t, in_d, q_g = p_le_k, np.exp(-a_d), q_t
        out_mean = m.groups * q_t + n_dom * q_d * m.need
        every = others(m.groups, q_t, n_dom, q_d)
    else:
        q = 1.0 - p_le_k * np.exp(-a_d)
        rest = others(m.groups - 1, q)
        p_none_tray = p_eq_k * np.exp(-a_d) * _tail(rest, m.pool)
        p_none_dom = p_le_k * np.exp(-a_d) * _tail(rest, m.pool)
        in_t = in_d = p_le_k * np.exp(-a_d)
        q_g = q
        out_mean = m.groups * q
        every = others(m.groups, q)
    lam_t = m.groups * m.trays * m.tray_rate * m.interrupt_share
    lam_d = n_dom * m.group_rate
    lam_b = [rate for rate, _, _ in m.bursts]
    p_none_b = [_tail(every, m.pool - span + 1) for _, span, _ in m.bursts]
    out_mean += sum(rate * _mean_repair(rep) * span for rate, span, rep in m.bursts)
    total = lam_t + lam_d + sum(lam_b)
    # a fault is felt when it lands on a group in service (a burst: on any of its groups); one on a group
    # already out puts nothing more out, so it is left out of the shares of faults finding no spare
    felt = lam_t * in_t + lam_d * in_d + sum(rate * (1.0 - q_g ** span) for rate, span, _ in m.bursts)
    hit_none = lam_t * p_none_tray + lam_d * p_none_dom + float(np.dot(lam_b, p_none_b))
    p_none = min(hit_none / felt, 1.0) if felt > 0 else 0.0
    short = _tail(every, m.pool + 1)
    stop = _stopped(m, q_t if m.split_groups else q, q_d if m.split_groups else 0.0, s_t, short)
    stop = drained(m, stop, s_t, s_d)
    return {"p_no_group_spare": float(no_group), "p_no_spare": float(p_none), "groups_out_mean": float(out_mean),
            "stall_share": stop, "mean_stall_h": stop / (total * (1.0 - stop)) if total > 0 and stop < 1 else 0.0,
            "stall_share_free": float(short), "mean_stall_free_h": float(short / total) if total > 0 else 0.0}


def _stopped(m, q_single, q_domain, s_t, free):
    """The share of time the job waits when nothing fails while it waits (:mod:`.stopped`); ``free`` if out of range."""
    if free <= 0:
        return 0.0
    dead = -np.expm1(-m.pool_rate * s_t) if m.pool and m.pool_rate > 0 else 0.0
    spans = [(int(span), rate * _mean_repair(rep)) for rate, span, rep in m.bursts]
    length = m.pool + max([m.need if m.split_groups else 1] + [sp for sp, _ in spans]) + 1
    share = stopped_share(unit_classes(m, q_single, q_domain, dead, spans, length), m.pool)
    return float(share) if np.isfinite(share) else float(free)


@dataclasses.dataclass(frozen=True)
class CompoundResult(Result):
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
    stall_share: float = 0.0

    def to_frame(self):
        return pd.DataFrame({
            "quantity": ["failure finds no in-domain spare", "failure finds no spare at all",
                         "share of time the job waits for a spare", "mean stall per interruption (h)"],
            "simulated": [self.p_no_group_spare, self.p_no_spare, self.stall_share, self.mean_stall_h],
            "closed form": [self.closed["p_no_group_spare"], self.closed["p_no_spare"],
                            self.closed["stall_share_free"], self.closed["mean_stall_free_h"]],
        })

    def text(self):
        """What was simulated, in a sentence."""
        return f"{self.n_runs:,} simulated runs of {duration(self.horizon_h)}, {self.n_events:,} interruptions."

    def _repr_html_(self):
        return (f"<p>{self.n_runs:,} simulated runs of {self.horizon_h:,.0f} h, {self.n_events:,} interruptions</p>"
                + html_table(self.to_frame(), index=False, na_rep="no closed form"))


def _size_biased(draws, total, rng):
    """``total`` lengths picked from ``draws`` with chance in proportion to length, in random order.

    The picks are made at sorted uniform points of the cumulated lengths (sorted uniforms from
    exponential spacings; a sorted search reads the cumulated lengths once, a random one misses the
    cache every time) and then shuffled, which gives the same law as independent picks.
    """
    cdf = np.cumsum(draws)
    if total == 0 or not cdf[-1] > 0:
        return np.zeros(total)
    points = np.cumsum(rng.exponential(size=total + 1))
    points = points[:-1] * (cdf[-1] / points[-1])
    pick = np.minimum(np.searchsorted(cdf, points, side="right"), draws.size - 1)
    length = draws[pick]
    rng.shuffle(length)
    return length


def _initial(rng, rate, repair, runs, mean):
    """Parts already in repair at time 0: Poisson(rate E[S]) per run, size-biased lengths cut uniformly."""
    n = rng.poisson(rate * mean, size=runs)
    total = int(n.sum())
    if hasattr(repair, "sample"):
        length = _size_biased(_draw_repairs(repair, 4 * total + 16, rng), total, rng)
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
    """All parts in repair of all runs: run, group, start, end, weight, interrupts, need, is_tray, event.

    The items of one burst are adjacent and share an event number; every other item is its own event.
    """
    m = model
    n_dom = m.groups // m.need if m.split_groups else m.groups
    parts = []
    for kind, rate, rep, span in _kinds(model, repair, group_repair):
        if rate <= 0:
            continue
        for fresh, (run, start, end) in ((False, _initial(rng, rate, rep, runs, _mean_repair(rep))),
                                         (True, _fresh(rng, rate, rep, runs, horizon))):
            size = run.size
            if kind == "tray":
                group, weight = rng.integers(0, m.groups, size), np.ones(size, np.int64)
                hits = fresh & (rng.random(size) < m.interrupt_share)
                need = np.ones(size, np.int64)
            elif kind == "group":
                dom = rng.integers(0, n_dom, size)
                group = m.groups + dom if m.split_groups else dom
                weight = np.full(size, m.spares + 1, np.int64)
                hits = np.full(size, fresh)
                need = np.full(size, m.need if m.split_groups else 1, np.int64)
            elif kind == "spare":
                group = 2 * m.groups + 1 + rng.integers(0, m.pool, size)
                weight = np.full(size, m.spares + 1, np.int64)
                hits = np.zeros(size, bool)
                need = np.ones(size, np.int64)
            else:
                first = rng.integers(0, m.groups, size)
                group = ((first[:, None] + np.arange(span)[None, :]) % m.groups).ravel()
                run, start, end = (np.repeat(x, span) for x in (run, start, end))
                hits = np.tile(np.arange(span) == span - 1, size) & fresh
                size = run.size
                weight, need = np.full(size, m.spares + 1, np.int64), np.ones(size, np.int64)
            event = np.repeat(np.arange(size // span), span)
            parts.append((run, group, start, end, weight, np.broadcast_to(hits, (size,)), need,
                          np.full(size, kind == "tray"), event))
    if not parts:
        return None
    offset = np.cumsum([0] + [p[-1].size for p in parts[:-1]])
    parts = [p[:-1] + (p[-1] + o,) for p, o in zip(parts, offset)]
    return [np.concatenate(col) for col in zip(*parts)]


def simulate_domains(model, repair, *, group_repair=None, horizon="7d", n_runs=10_000, seed=None, conf=0.95):
    """Simulate ``n_runs`` runs of ``horizon`` each; return a :class:`CompoundResult`.

    ``repair`` (and ``group_repair`` for whole-group faults, default the same)
    is a mean repair time (a duration: hours, or "24h"; exponential) or a
    model with ``sample`` and ``mean_h`` (:func:`relmodel.scale.sparing.spares.repair_model`).
    ``horizon`` is the duration of each run; the model's rates are per hour.
    The result's probabilities are fractions of the faults that strike a
    group in service (one on a group already out puts nothing more out), its
    stalls in hours per interruption.

    Examples
    --------
    16 racks of 18 trays, no spare tray in a rack, 2 spare racks; each tray
    fails once in 10,000 hours and is back 24 hours later on average:

    >>> m = DomainModel(groups=16, trays=18, pool=2, tray_rate=1e-4)
    >>> r = simulate_domains(m, "24h", horizon="7d", n_runs=2000, seed=0)
    >>> round(r.closed["p_no_spare"], 3), round(r.p_no_spare, 3)     # closed form, simulated
    (0.131, 0.133)
    >>> bool(r.p_no_spare_lo < r.closed["p_no_spare"] < r.p_no_spare_hi)
    True
    """
    h = float(hours(horizon))
    if not (h > 0 and np.isfinite(h)):
        raise DesignError(f"horizon must be a positive, finite duration; got {horizon!r}")
    runs = int(n_runs)
    if runs < 1:
        raise DesignError(f"n_runs must be a whole number >= 1; got {n_runs!r}")
    group_repair = repair if group_repair is None else group_repair
    items = expected_items(model, repair, group_repair, h)
    work, size = run_cost(items)
    check_cost(f"simulate_domains(n_runs={runs:,})", work=runs * work, memory=runs * size,
               hint=f"simulate fewer runs (n_runs; each run of {h:,.0f} h holds about {items:,.0f} parts in repair)")
    key = _shared_key(model, repair, group_repair, h, runs, seed, conf)
    if key is not None and key in _SHARED[0]:
        return _SHARED[0][key]
    result = _simulate(model, repair, group_repair, h, runs, seed, conf)
    if key is not None:
        _SHARED[0][key] = result
    return result


#: While :func:`shared_runs` is active, its dict of answers by question; else None.
_SHARED = [None]


@contextlib.contextmanager
def shared_runs():
    """Within the block, :func:`simulate_domains` answers a question it was asked before from that answer.

    A question is the model, repairs, horizon, run count, confidence and a
    fixed seed: the same question gives the same answer, so designs whose
    fault domains come out alike (a second plane changes no spare) are
    simulated once.  Without a fixed seed every call simulates.
    """
    outer = _SHARED[0]
    if outer is None:
        _SHARED[0] = {}
    try:
        yield
    finally:
        _SHARED[0] = outer


def _shared_key(model, repair, group_repair, h, runs, seed, conf):
    if _SHARED[0] is None or isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        return None
    key = (model, repair, group_repair, h, runs, int(seed), float(conf))
    try:
        hash(key)
    except TypeError:  # a repair model holding arrays
        return None
    return key


def _simulate(model, repair, group_repair, h, runs, seed, conf):
    closed = closed_form(model, repair, group_repair)
    rng = np.random.default_rng(seed)
    items = _items(rng, model, repair, group_repair, runs, h)
    if items is None:
        return CompoundResult(model, runs, h, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, closed, conf, 0.0)
    run, group, start, end, weight, hits, need, tray, event = items
    before, newly, short, stalled = _sweeps(model, run, group, start, end, weight, need, runs, h)
    n_hits = int(hits.sum())
    size = event.max() + 1
    # felt: the fault strikes a group in service (a burst: any of its groups)
    felt = hits & (np.bincount(event, weights=before <= model.spares, minlength=size) > 0)[event]
    n_felt = int(felt.sum())
    no_group = float(np.mean(before[felt & tray] >= model.spares)) if (felt & tray).any() else 0.0
    newly_event = np.bincount(event, weights=newly, minlength=size) > 0
    short_event = np.bincount(event, weights=short, minlength=size) > 0
    no_spare = newly_event[event] & felt & short_event[event]
    lo, hi = _clopper_pearson(int(no_spare.sum()), n_felt, conf)
    per_run = stalled / h
    a = (1.0 - conf) / 2
    s_lo, s_hi = np.quantile(per_run, [a, 1 - a])
    return CompoundResult(
        model, runs, h, n_hits, no_group, float(no_spare.sum() / max(n_felt, 1)), lo, hi,
        float(stalled.sum() / max(n_hits, 1)), float(s_lo), float(s_hi), closed, conf, float(per_run.mean()))


def _clopper_pearson(k, n, conf):
    if n == 0:
        return 0.0, 1.0
    a = (1.0 - conf) / 2
    lo = stats.beta.ppf(a, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0
    return float(lo), float(hi)
