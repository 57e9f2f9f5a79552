"""Finite repair capacity: crews that repair one unit at a time, an RMA lead time, spares that fail idle.

A failed unit (a node, a tray, a rack) waits for one of ``crews`` repair
crews, takes a repair time S on it, and is then away for the RMA lead time L
(the vendor's turnaround: any law, unlimited capacity) before it is back on
the shelf.  ``crews=None`` is unlimited repair capacity: every failed unit is
repaired at once, the M/G/infinity model of :mod:`relmodel.scale.sparing.spares`.

**Closed form.**  Units fail at rate b_n when n units are away: the job's
failures λ plus ``spare_rate`` ν for each idle spare on the shelf,
b_n = λ + ν max(s - n, 0).  With exponential repairs the crews are an M/M/c
station and the RMA an infinite-server station; a tandem of such stations
fed by a Poisson stream whose rate depends only on the total count has a
product-form stationary law (Jackson 1963, arrivals depending on the
network's population; the infinite-server station is insensitive to the law
of L), so the count away N has

    P(N = n) ∝ (b_0 ... b_{n-1}) x sum_k f_c(k) f_r(n - k),
    f_c(k) = E[S]^k / prod_{i <= k} min(i, c),   f_r(j) = L^j / j!.

With unlimited crews and no spare failures this is Poisson(λ (E[S] + L)),
the M/G/infinity answer, and with ``crews=c`` and no RMA the M/M/c (Erlang C)
queue.  Three pool models fix b_n above the pool (see :func:`away_pmf`):
``"poisson"`` (failures go on while the job waits: conservative), ``"erlang"``
(a failure that finds no spare is lost: the machine-repair model with a
finite source) and ``"stall"`` (the job stops until a unit comes back: what
:func:`simulate_pool` simulates).

**Simulation.**  For repair laws other than the exponential (an M/G/c
station has no closed form), :func:`simulate_pool` runs the event loop:
job failures while the job runs, idle spares failing, crews taking units
first come first served, RMA returns.  With exponential repairs it agrees
with the closed form (tests check both against a separate simulation).

In the design comparison (:func:`crew_wait_h`, :class:`QueuedRepair`) the
crews serve every hardware part of the site; each part's time out is its
repair plus the M/M/c waiting time (Erlang C) plus the lead time, taken as
independent from part to part.  That keeps a comparison at a million GPUs
within seconds; the exact pool model above is what spare sizing uses.
"""

import dataclasses
import heapq
import math

import numpy as np
from scipy import special

from ...errors import ModelInputError
from ...units import hours

__all__ = ["MODELS", "check_crews", "away_pmf", "pool_figures", "erlang_c", "crew_wait_h", "QueuedRepair",
           "simulate_pool", "fewest_crews"]

MODELS = ("poisson", "erlang", "stall")


def check_crews(crews):
    """``None`` (unlimited) or a whole number of crews >= 1; a ModelInputError otherwise."""
    if crews is None:
        return None
    try:
        c = float(crews)
    except (TypeError, ValueError):
        c = float("nan")
    if isinstance(crews, bool) or not (c >= 1 and c == math.floor(c) and math.isfinite(c)):
        raise ModelInputError(f"crews must be a whole number of parallel repairs >= 1, or None for unlimited; "
                              f"got {crews!r}")
    return int(c)


def _nonneg_rate(name, value):
    v = float(value)
    if not (v >= 0 and math.isfinite(v)):
        raise ModelInputError(f"{name} must be a finite rate per hour >= 0; got {value!r}")
    return v


def lead_mean(lead_time):
    """Mean RMA lead time in hours (0 for none): a duration or a model with ``mean_h``."""
    mean = getattr(lead_time, "mean_h", None)
    v = float(hours(lead_time)) if mean is None else float(mean)
    if not (v >= 0 and math.isfinite(v)):
        raise ModelInputError(f"rma_lead_time must be a finite duration >= 0; got {lead_time!r}")
    return v


def fewest_crews(rate_per_h, repair_mean_h):
    """Fewest crews that keep up with the failures: the smallest c with rate x E[S] < c."""
    return int(math.floor(float(rate_per_h) * float(repair_mean_h))) + 1


def _stable(lam, s, crews, model):
    """A ModelInputError when the crews cannot keep up (an ever-growing queue).

    Only the ``"poisson"`` model can grow without end: beyond the pool the
    idle spares are gone, so units fail at the job's rate alone.
    """
    if crews is None or model != "poisson":
        return
    if lam * s >= crews:
        need = fewest_crews(lam, s)
        raise ModelInputError(
            f"{crews:,} crews repair at most {crews / s:,.3g} units an hour but {lam:,.3g} fail an hour: the queue "
            f"for repair grows without end; give at least {need:,} crews (crews=) or shorter repairs")


def _length(lam, s, lead, crews, spares, spare_rate, model):
    """States kept: the count away beyond which the chance is below 1e-18."""
    if model != "poisson":
        return int(spares + 2)
    top_rate = lam + spare_rate * spares
    mean = top_rate * (s + lead)
    n = max(mean + 12 * math.sqrt(mean + 1), spares) + 40
    if crews is not None:
        rho = lam * s / crews
        n += crews + top_rate * lead + 45.0 / max(1.0 - rho, 1e-6)   # the queue's tail falls as rho^n
    return int(min(n, 2e7))


def _log_service(k, s, crews):
    """log f_c(k) for k = 0..K: ``s``^k / prod min(i, c) (``s`` a rate x the mean repair)."""
    i = np.arange(1, k.size)
    denom = np.log(np.minimum(i, crews)) if crews is not None else np.log(i)
    return np.concatenate([[0.0], np.cumsum(math.log(s) - denom)]) if s > 0 else np.where(k == 0, 0.0, -np.inf)


def away_pmf(lam, repair_mean_h, *, crews=None, rma_h=0.0, spare_rate=0.0, spares=0, model="poisson"):
    """Stationary pmf of the units away (in the crews' queue, in repair or at the vendor), as an array.

    ``lam`` job failures per hour needing a unit; ``repair_mean_h`` the mean
    crew repair (exponential when ``crews`` is a number; any law when it is
    None); ``rma_h`` the mean lead time; ``spare_rate`` the failure rate of one
    idle spare; ``spares`` the pool.  ``model`` sets what happens beyond the
    pool: ``"poisson"`` failures go on, ``"erlang"`` they are lost (at most
    ``spares`` away), ``"stall"`` the job waits (at most ``spares`` + 1 away).

    Examples
    --------
    >>> p = away_pmf(0.5, 2.0, crews=2)              # M/M/2 with load 1: P(0) = 1/3
    >>> round(float(p[0]), 6), round(float(p[1]), 6)
    (0.333333, 0.333333)
    """
    lam, s = _nonneg_rate("failure rate", lam), float(repair_mean_h)
    nu, c, lead = _nonneg_rate("spare_rate_per_h", spare_rate), check_crews(crews), float(rma_h)
    if model not in MODELS:
        raise ModelInputError(f"model must be one of {', '.join(MODELS)}; got {model!r}")
    spares = int(spares)
    _stable(lam, s, c, model)
    size = _length(lam, s, lead, c, spares, nu, model) + 1
    k = np.arange(size)
    r = lam + nu * spares                         # a reference rate: births are r^n x prod(b_j / r)
    if r <= 0:
        return np.concatenate([[1.0], np.zeros(size - 1)])
    if c is None:                                 # both stations infinite-server: one Poisson shape
        log_g = _log_poisson_shape(k, r * (s + lead))
    else:
        log_fc = _log_service(k, r * s, c)
        log_g = log_fc
        if lead > 0:
            log_fr = _log_poisson_shape(k, r * lead)
            a, b = log_fc.max(), log_fr.max()
            conv = _convolve(np.exp(log_fc - a), np.exp(log_fr - b))[:size]
            with np.errstate(divide="ignore"):
                log_g = np.log(np.clip(conv, 0.0, None)) + a + b
    births = lam + nu * np.clip(spares - k, 0, None)
    if model == "erlang":
        births = np.where(k < spares, births, 0.0)
    elif model == "stall":
        births = np.where(k <= spares, births, 0.0)
    with np.errstate(divide="ignore"):
        log_b = np.concatenate([[0.0], np.cumsum(np.log(births[:-1] / r))])
    log_p = log_b + log_g
    log_p -= np.max(log_p[np.isfinite(log_p)])
    p = np.exp(log_p)
    return p / p.sum()


def _log_poisson_shape(k, mean):
    """log of mean^k / k! (the Poisson pmf without its constant)."""
    if mean <= 0:
        return np.where(k == 0, 0.0, -np.inf)
    return k * math.log(mean) - special.gammaln(k + 1)


def _convolve(a, b):
    if a.size * b.size > 4e6:
        from scipy.signal import fftconvolve
        return np.clip(fftconvolve(a, b), 0.0, None)
    return np.convolve(a, b)


def pool_figures(lam, repair_mean_h, spares, *, crews=None, rma_h=0.0, spare_rate=0.0, model="poisson"):
    """Closed-form figures of a pool of ``spares``: dict of p_no_spare, p_empty, stall_share, mean_stall_h.

    ``p_no_spare`` is the chance a job failure finds no spare (PASTA: job
    failures are Poisson whatever the shelf holds); ``p_empty`` the share of
    time the shelf is empty; under ``model="stall"`` ``stall_share`` is the
    share of time the job waits and ``mean_stall_h`` the wait per job failure.
    """
    p = away_pmf(lam, repair_mean_h, crews=crews, rma_h=rma_h, spare_rate=spare_rate, spares=spares, model=model)
    s = int(spares)
    tail = float(p[s:].sum())
    if model == "poisson":
        return {"p_no_spare": tail, "p_empty": tail, "stall_share": float("nan"), "mean_stall_h": float("nan")}
    if model == "erlang":
        return {"p_no_spare": float(p[s]), "p_empty": float(p[s]), "stall_share": float("nan"),
                "mean_stall_h": float("nan")}
    waiting = float(p[s + 1]) if p.size > s + 1 else 0.0
    running = 1.0 - waiting
    return {"p_no_spare": float(p[s]) / running, "p_empty": tail, "stall_share": waiting,
            "mean_stall_h": waiting / (lam * running) if lam > 0 else 0.0}


def erlang_c(crews, load):
    """Chance an arriving unit waits for a crew in an M/M/c queue (Erlang C), ``load`` = rate x E[S] < crews.

    Examples
    --------
    >>> round(erlang_c(2, 1.0), 6)          # M/M/2 at load 1: 1/3
    0.333333
    """
    c, a = int(crews), float(load)
    if a >= c:
        return 1.0
    from .spare_search import erlang_b_integral
    b = erlang_b_integral(c, a) if a > 0 else 0.0
    return float(c * b / (c - a * (1.0 - b)))


def crew_wait_h(rate_per_h, repair_mean_h, crews):
    """Mean wait for a crew (hours) in an M/M/c queue; 0 for unlimited crews; inf when they cannot keep up."""
    c = check_crews(crews)
    if c is None or rate_per_h <= 0:
        return 0.0
    a = float(rate_per_h) * float(repair_mean_h)
    if a >= c:
        return math.inf
    return erlang_c(c, a) * float(repair_mean_h) / (c - a)


@dataclasses.dataclass(frozen=True)
class QueuedRepair:
    """A part's time out: its repair, plus the wait for a crew (M/M/c), plus the RMA lead time.

    ``repair`` is a duration (exponential) or a model with ``sample`` and
    ``mean_h``; ``p_wait`` the chance a part waits for a crew and
    ``wait_rate`` the rate of that wait (exponential in an M/M/c queue).
    """

    repair: object
    p_wait: float = 0.0
    wait_rate: float = math.inf
    lead: object = 0.0

    @property
    def repair_h(self):
        mean = getattr(self.repair, "mean_h", None)
        return float(hours(self.repair)) if mean is None else float(mean)

    @property
    def wait_h(self):
        return self.p_wait / self.wait_rate if self.p_wait > 0 else 0.0

    @property
    def mean_h(self):
        return self.repair_h + self.wait_h + lead_mean(self.lead)

    def sample(self, n, rng=None):
        rng = np.random.default_rng(rng)
        n = int(n)
        base = (np.asarray(self.repair.sample(n, rng), float) if hasattr(self.repair, "sample")
                else rng.exponential(self.repair_h, n))
        if self.p_wait > 0:
            base = base + np.where(rng.random(n) < self.p_wait, rng.exponential(1.0 / self.wait_rate, n), 0.0)
        if hasattr(self.lead, "sample"):
            base = base + np.asarray(self.lead.sample(n, rng), float)
        elif lead_mean(self.lead) > 0:
            base = base + rng.exponential(lead_mean(self.lead), n)
        return base

    @classmethod
    def of(cls, repair, rate_per_h, crews=None, lead=0.0):
        """The queued repair of parts failing at ``rate_per_h`` in all, served by ``crews``."""
        c = check_crews(crews)
        mean = getattr(repair, "mean_h", None)
        s = float(hours(repair)) if mean is None else float(mean)
        if c is None or rate_per_h <= 0:
            return cls(repair, 0.0, math.inf, lead)
        a = rate_per_h * s
        if a >= c:
            raise ModelInputError(
                f"{c:,} crews repair at most {c / s:,.3g} parts an hour but {rate_per_h:,.3g} fail an hour: the "
                f"queue for repair grows without end; give at least {fewest_crews(rate_per_h, s):,} crews")
        return cls(repair, erlang_c(c, a), (c - a) / s, lead)


def _drawer(law, rng, default_mean):
    """A function drawing one duration: from a model's ``sample`` (in blocks), or exponential with its mean."""
    if hasattr(law, "sample"):
        block = []

        def draw():
            if not block:
                block.extend(np.asarray(law.sample(4096, rng), float).tolist())
            return block.pop()
        return draw
    mean = default_mean

    def draw():
        return rng.exponential(mean) if mean > 0 else 0.0
    return draw


def simulate_pool(failure_rate_per_h, repair, spares, *, crews=None, rma_lead_time=0.0, spare_rate_per_h=0.0,
                  n_runs=20_000, seed=None):
    """Event simulation of a spare pool with ``crews`` and an RMA lead time; returns a dict.

    Job failures arrive at ``failure_rate_per_h`` while the job runs; a free
    spare replaces the failed unit at once, or the job stops until a unit
    comes back.  Failed units (and idle spares that fail, at
    ``spare_rate_per_h`` each) wait for a crew first come first served, are
    repaired (``repair``: a duration, exponential, or a model with ``sample``),
    then are away for the lead time; ``n_runs`` job failures are simulated.
    Keys: p_no_spare (share of job failures that found no spare),
    mean_stall_h (hours stopped per job failure), stall_share and p_empty
    (shares of time), n_failures.
    """
    lam = float(failure_rate_per_h)
    c, s0 = check_crews(crews), int(spares)
    nu = _nonneg_rate("spare_rate_per_h", spare_rate_per_h)
    rng = np.random.default_rng(seed)
    mean_s = getattr(repair, "mean_h", None)
    draw_s = _drawer(repair, rng, float(hours(repair)) if mean_s is None else float(mean_s))
    draw_l = _drawer(rma_lead_time, rng, lead_mean(rma_lead_time))
    use_lead = hasattr(rma_lead_time, "sample") or lead_mean(rma_lead_time) > 0
    free, waiting, busy, away = s0, 0, [], []
    t, stalled, stall_from, stall_total, empty_total = 0.0, False, 0.0, 0.0, 0.0
    n_job, n_none = 0, 0
    limit = int(n_runs)

    def to_crew(now):
        nonlocal waiting
        if c is None or len(busy) < c:
            heapq.heappush(busy, now + draw_s())
        else:
            waiting += 1
    while n_job < limit:
        rate = (0.0 if stalled else lam) + nu * free
        t_fail = t + rng.exponential(1.0 / rate) if rate > 0 else math.inf
        t_crew = busy[0] if busy else math.inf
        t_back = away[0] if away else math.inf
        t_next = min(t_fail, t_crew, t_back)
        if not math.isfinite(t_next):
            break
        if free == 0:
            empty_total += t_next - t
        t = t_next
        if t_next == t_crew:
            heapq.heappop(busy)
            if waiting:
                waiting -= 1
                heapq.heappush(busy, t + draw_s())
            if use_lead:
                heapq.heappush(away, t + draw_l())
                continue
        elif t_next == t_back:
            heapq.heappop(away)
        else:
            if rng.random() * rate < nu * free:          # an idle spare fails
                free -= 1
            else:
                n_job += 1
                if free > 0:
                    free -= 1
                else:
                    n_none += 1
                    stalled, stall_from = True, t
            to_crew(t)
            continue
        if stalled:                                   # a unit is back: the waiting job takes it
            stalled = False
            stall_total += t - stall_from
        else:
            free += 1
    span = t if t > 0 else 1.0
    return {"p_no_spare": n_none / max(n_job, 1), "mean_stall_h": stall_total / max(n_job, 1),
            "stall_share": stall_total / span, "p_empty": empty_total / span, "n_failures": n_job}
