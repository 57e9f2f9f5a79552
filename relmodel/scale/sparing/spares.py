"""Hot-spare pools: how many reserve nodes keep a job from waiting on repairs.

MegaScale (NSDI 2024, arXiv 2402.15627) keeps reserve machines and swaps one
in for each faulty node, so a failure costs a restart, not a repair.  With c
spares, node failures needing a swap arriving as a Poisson process of rate λ
and repairs lasting S hours (any distribution, mean E[S]), the number of nodes
out for repair is the occupancy of an M/G/∞ queue: Poisson with mean
a = λ E[S] (the offered load, in Erlangs), whatever the shape of S.  By
PASTA a failure finds no free spare when c or more nodes are in repair:

* ``model="poisson"``: P(no spare) = P(N ≥ c), N ~ Poisson(a) (conservative:
  repairs go on even while the job waits);
* ``model="erlang"``: the Erlang loss formula B(c, a) of an M/G/c/c system
  (Erlang 1917), also insensitive to the repair distribution: the spares are c
  servers and a failure finding them all out is "blocked".

:func:`spare_pool` returns the smallest c with P(no spare) below a target.
How much ETTR fewer spares cost depends on the repair distribution beyond its
mean, so :func:`spares_table` simulates it: a failure finding no spare stalls
the job until the first node comes back from repair.  With E[W] the mean stall
per failure, ETTR_c = ETTR_∞ / (1 + λ E[W]).  Repair times are fitted from a
log's downtimes (e.g. the StepFun trace) by :func:`repair_model`.
"""

import dataclasses
import heapq

import numpy as np
import pandas as pd
from scipy import stats

from ...scenario import takes_scenario
from ...defaults import CKPT_COST, RESTART
from ...errors import ModelInputError
from ..targets.requirements import best_ettr
from ...units import hours
from ...tables import Result, duration, number, people_table, per_day
from .words import asked_words, share_words
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps
from relmodel.base.escape import brief
from .spare_search import LARGE_LOAD, check_load, erlang_b_integral, fewest_spares
from .repair_queue import check_crews, lead_mean, pool_figures, simulate_pool
from .repairs import EmpiricalRepair, _draw_repairs, _mean_repair, repair_model  # noqa: F401  (re-exported)

__all__ = ["erlang_b", "p_no_spare", "spare_pool", "SparePlan", "repair_model", "EmpiricalRepair",
           "simulate_stalls", "spares_table", "swap_rate", "spares_for"]


def _checked(c, offered_load):
    """(load, spare counts as a float array), or ModelInputError saying what is valid."""
    a = float(offered_load)
    if not (a >= 0 and np.isfinite(a)):
        raise ModelInputError(f"offered load must be a finite number >= 0; got {offered_load!r}")
    try:
        c_arr = np.atleast_1d(np.asarray(c, dtype=float))
    except (TypeError, ValueError, OverflowError):
        raise ModelInputError(f"spares must be whole numbers >= 0; got {brief(c)}") from None
    if not np.all(np.isfinite(c_arr)) or np.any(c_arr < 0) or np.any(c_arr != np.round(c_arr)):
        raise ModelInputError(f"spares must be whole numbers >= 0; got {brief(c)}")
    return a, c_arr


def erlang_b(c, offered_load):
    """Erlang loss probability B(c, a), by the stable recursion B(k) = a B(k-1) / (k + a B(k-1)).

    ``c`` is a count of spares (servers), ``offered_load`` in Erlangs (failure rate per hour times mean repair hours); the result is a probability.

    Examples
    --------
    >>> float(erlang_b(2, 1.0))          # B(1) = 1/2, B(2) = (1/2) / (2 + 1/2)
    0.2
    >>> round(float(erlang_b(10, 5.0)), 6)
    0.018385
    """
    a, c_arr = _checked(c, offered_load)
    check_cost(f"erlang_b(c={brief(c)})", work=float(c_arr.max(initial=0)) * 5,
               hint="ask for fewer spares (c)")
    out = np.empty(c_arr.shape)
    b, k = 1.0, 0
    for i in np.argsort(c_arr, kind="stable"):
        while k < int(c_arr[i]):
            k += 1
            b = a * b / (k + a * b)
        out[i] = b
    return out.reshape(np.shape(c))[()]


def p_no_spare(c, offered_load, model="poisson"):
    """Chance a failure finds none of ``c`` spares free (see module notes for the models)."""
    if model == "erlang":
        return erlang_b(c, offered_load)
    if model == "poisson":
        _checked(c, offered_load)
        return stats.poisson.sf(np.asarray(c) - 1, float(offered_load))[()]
    raise ModelInputError(f"model must be 'poisson' or 'erlang'; got {model!r}")


@dataclasses.dataclass(frozen=True)
class SparePlan(Result):
    """A spare count and the chance of finding none free, with the curve it came from (``curve``)."""

    n_spares: int
    target: float
    offered_load: float
    p_no_spare: float
    model: str
    curve: pd.DataFrame
    n_spares_lo: int = None
    n_spares_hi: int = None
    crews: int = None
    rma_lead_time_h: float = 0.0
    spare_rate_per_h: float = 0.0
    method: str = ""

    def to_frame(self):
        return self.curve.copy()

    def text(self):
        rng = "" if self.n_spares_lo is None else f" ({self.n_spares_lo:,}–{self.n_spares_hi:,} over the rate interval)"
        return (f"{self.n_spares:,} spares{rng} keep the chance a failure finds no spare at {share_words(self.p_no_spare)}"
                f", within the {asked_words(self.target)} asked (offered load {number(self.offered_load)} Erlangs, "
                f"{self.model} model; {self._capacity()}).")

    def _capacity(self):
        crews = "unlimited repairs" if self.crews is None else f"{self.crews:,} repair crews"
        if self.method:
            crews += f" ({self.method})"
        lead = f", an RMA lead time of {duration(self.rma_lead_time_h)}" if self.rma_lead_time_h else ""
        idle = (f", idle spares failing {per_day(self.spare_rate_per_h)} each" if self.spare_rate_per_h
                else ", idle spares never failing")
        return crews + lead + idle

    def _people(self):
        return people_table(pd.DataFrame({"spares": self.curve["spares"],
                                          "chance a failure finds no spare": self.curve["p_no_spare"]}))

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _rate(failure_rate_per_h):
    try:
        lam = float(failure_rate_per_h)
    except (TypeError, ValueError):
        lam = float("nan")
    if not (lam > 0 and np.isfinite(lam)):
        raise ModelInputError(f"failure_rate_per_h must be a positive, finite rate; got {failure_rate_per_h!r}")
    return lam


@takes_scenario(repair="repair_time", target="spare_target", crews="crews")
def spare_pool(failure_rate_per_h, repair, target=0.01, model="poisson", *, crews=None, rma_lead_time=0.0,
               spare_rate_per_h=0.0):
    """The fewest spares with P(no spare free) < ``target``.

    ``failure_rate_per_h`` counts failures that need a node swap (hardware,
    not software); ``repair`` is a mean repair time (a duration) or a fitted
    repair model with ``mean_h`` (:func:`repair_model`).

    Finite repair capacity (:mod:`relmodel.scale.sparing.repair_queue`): ``crews``
    parallel repairs (None: unlimited, every failed unit repaired at once;
    with a number, repairs are taken as exponential with the repair's mean;
    with a law other than the exponential, the pool is simulated under it,
    :func:`~relmodel.scale.sparing.general_repairs.pooled_tail`, for
    ``model="poisson"`` only), ``rma_lead_time`` the time a
    repaired unit is still away (vendor turnaround) and ``spare_rate_per_h``
    the failure rate of one idle spare.  The last defaults to 0 here, because
    this function knows only the job's rate; :func:`spares_for` passes the
    per-node rate (hot spares fail as the nodes they replace).

    Returns a :class:`SparePlan` (a count of spares and a probability).  Above
    ``spare_search.LARGE_LOAD`` Erlangs the count is searched directly and the
    table holds the counts near it; above ``spare_search.MAX_LOAD`` it is a
    ModelInputError.

    Examples
    --------
    >>> plan = spare_pool(0.05, "100h", target=0.01)   # 0.05 swaps per hour, 100 h repairs: 5 busy on average
    >>> plan.n_spares, round(plan.p_no_spare, 4)
    (12, 0.0055)
    """
    lam, s = _rate(failure_rate_per_h), _mean_repair(repair)
    if isinstance(target, bool) or not isinstance(target, (int, float, np.integer, np.floating)) \
            or not 0 < float(target) < 1:
        raise ModelInputError(f"target must be a probability in (0, 1), e.g. 0.01; got {target!r}")
    a = check_load(lam * s)
    if model not in ("poisson", "erlang"):
        raise ModelInputError(f"model must be 'poisson' or 'erlang'; got {model!r}")
    c, lead, nu = check_crews(crews), lead_mean(rma_lead_time), _spare_rate(spare_rate_per_h)
    if c is not None and _general_law(repair):
        if model == "erlang":
            raise ModelInputError("model='erlang' (failures that find no spare are lost) is solved for crews only "
                                  "with exponential repairs; with this repair law use model='poisson', simulated "
                                  "under the law, which needs at least as many spares")
        return _simulated_pool(lam, repair, float(target), c, rma_lead_time, nu)
    if c is not None or lead > 0 or nu > 0:
        plan = _finite_pool(lam, s, float(target), model, c, lead, nu)
        if c is not None:
            plan = dataclasses.replace(plan, method="M/M/c: repairs taken as exponential of the given mean")
        return plan
    if a > LARGE_LOAD:                                    # searched, not walked: see spare_search
        n, cs, p = fewest_spares(a, float(target), model)
        table = pd.DataFrame({"spares": cs, "p_no_spare": p})
        return SparePlan(n, float(target), a, float(p[cs == n][0]), model, table)
    c_max = int(a + 10 * np.sqrt(a) + 20)
    while p_no_spare(c_max, a, model) >= target:
        c_max *= 2
    cs = np.arange(c_max + 1)
    p = np.asarray(p_no_spare(cs, a, model), dtype=float)
    n = int(np.argmax(p < target))
    table = pd.DataFrame({"spares": cs[: n + 3], "p_no_spare": np.append(p, [np.nan] * 3)[: n + 3]})
    table = table.dropna().reset_index(drop=True)
    return SparePlan(n, float(target), a, float(p[n]), model, table)


def _spare_rate(value):
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not (v >= 0 and np.isfinite(v)):
        raise ModelInputError(f"spare_rate_per_h must be a finite failure rate per idle spare per hour >= 0; "
                              f"got {value!r}")
    return v


def _general_law(repair):
    """True for a repair law with a whole distribution other than the exponential."""
    return hasattr(repair, "sample") and getattr(repair, "family", None) != "exponential"


def _law_name(repair):
    fam = getattr(repair, "family", None)
    if fam:
        return f"{fam} repair times"
    return "the observed repair times resampled" if hasattr(repair, "hours") else "the given repair-time law"


def _simulated_pool(lam, repair, target, crews, rma_lead_time, nu):
    """:func:`spare_pool` with crews under a repair law's whole distribution: the M/G/c pool simulated
    (:mod:`.general_repairs`); idle spares' failures added at the pool's size (two passes)."""
    from .general_repairs import RUN_FAILURES, pooled_tail

    lead = rma_lead_time if hasattr(rma_lead_time, "sample") else lead_mean(rma_lead_time)
    away_h = _mean_repair(repair) + lead_mean(rma_lead_time)
    n, idle = 0, 0.0
    for _ in range(2 if nu > 0 else 1):
        # idle spares fail while on the shelf: at the pool's mean idle count (all of it idle overstated the load
        # past what the crews carry, and refused pools that a simulation finds stable)
        n, tail, se, runs = pooled_tail(lam + nu * idle, repair, crews, lead, target)
        idle = max(n - (lam + nu * idle) * away_h, 0.0)
    # crews only lengthen a unit's time away: the pool needs at least what unlimited repairs need, the Poisson
    # tail of the load (M/G/infinity is insensitive to the law); a run's noise never goes below it
    load = (lam + nu * idle) * away_h
    floor = fewest_spares(load, target, "poisson")[0] if load > 0 else 0

    def p_at(k):
        return max(float(tail[min(int(k), tail.size - 1)]), float(p_no_spare(int(k), load)) if load > 0 else 0.0)
    raised = floor > n
    n = max(n, floor)
    cs = np.arange(max(0, n - 20), n + 3)
    table = pd.DataFrame({"spares": cs, "p_no_spare": [p_at(k) for k in cs]})
    stop = ("run until the share's standard error is an eighth of the target" if se[min(n, se.size - 1)] <= target / 8
            else f"stopped at {runs:,} runs before the standard error reached an eighth of the target")
    how = (f"M/G/c simulated with {_law_name(repair)}, {runs:,} independent runs of {RUN_FAILURES:,} "
           f"failures, {stop} (at this pool {share_words(p_at(n))}, standard error "
           f"{share_words(float(se[min(n, se.size - 1)]))})"
           + ("; raised to the pool unlimited repairs would need, which crews can only add to" if raised else "")
           + ("; idle spares' failures counted at the pool's mean idle count" if nu > 0 else ""))
    return SparePlan(n, target, load, p_at(n), "poisson", table, crews=crews,
                     rma_lead_time_h=lead_mean(rma_lead_time), spare_rate_per_h=nu, method=how)


def _finite_pool(lam, s, target, model, crews, lead, nu):
    """:func:`spare_pool` with crews, a lead time or failing spares: bisection on the closed form."""
    def p(n):
        return pool_figures(lam, s, n, crews=crews, rma_h=lead, spare_rate=nu, model=model)["p_no_spare"]
    lo, hi = -1, max(1, int(lam * (s + lead)))
    while p(hi) >= target:
        lo, hi = hi, 2 * hi
        if hi > 1e8:
            raise ModelInputError("no pool of up to 100,000,000 spares meets the target: check the rates and "
                                  "the repair and lead times")
    while hi - lo > 1:                               # p(lo) >= target > p(hi)
        mid = (lo + hi) // 2
        if p(mid) < target:
            hi = mid
        else:
            lo = mid
    cs = np.arange(max(0, hi - 20), hi + 3)
    probs = np.array([p(int(n)) for n in cs])
    table = pd.DataFrame({"spares": cs, "p_no_spare": probs})
    return SparePlan(int(hi), target, lam * (s + lead), float(probs[cs == hi][0]), model, table,
                     crews=crews, rma_lead_time_h=lead, spare_rate_per_h=nu)


def simulate_stalls(failure_rate_per_h, repair, spares, n_runs=20_000, seed=None, *, crews=None, rma_lead_time=0.0,
                    spare_rate_per_h=0.0):
    """Simulate swaps with ``spares`` spares; return (fraction of failures that stall, mean stall h).

    ``n_runs`` is the Monte Carlo size: the number of failures simulated.

    Failures arrive at ``failure_rate_per_h`` while the job runs; each failed
    node goes to repair.  A free spare replaces it at once; with none free the
    job stalls until the first node returns from repair.  A bare number or
    duration for ``repair`` means exponential repairs with that mean.
    ``crews``, ``rma_lead_time`` and ``spare_rate_per_h`` add finite repair
    capacity, the vendor's turnaround and idle spares that fail
    (:func:`relmodel.scale.sparing.repair_queue.simulate_pool`).
    """
    lam = _rate(failure_rate_per_h)
    c = int(spares)
    if c < 0 or c != spares:
        raise ModelInputError(f"spares must be a whole number >= 0; got {spares!r}")
    if crews is not None or lead_mean(rma_lead_time) > 0 or _spare_rate(spare_rate_per_h) > 0:
        out = simulate_pool(lam, repair, c, crews=crews, rma_lead_time=rma_lead_time,
                            spare_rate_per_h=spare_rate_per_h, n_runs=n_runs, seed=seed)
        return out["p_no_spare"], out["mean_stall_h"]
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1.0 / lam, size=int(n_runs))
    repairs = _draw_repairs(repair, int(n_runs), rng)
    t, free, busy, stalls, stalled = 0.0, c, [], 0.0, 0
    for gap, s in zip(gaps, repairs):
        t += gap
        while busy and busy[0] <= t:
            heapq.heappop(busy)
            free += 1
        heapq.heappush(busy, t + s)
        if free > 0:
            free -= 1
            continue
        back = heapq.heappop(busy)
        stalls += back - t
        stalled += 1
        t = back
    return stalled / len(gaps), stalls / len(gaps)


def spares_table(failure_rate_per_h, repair, ckpt_cost=CKPT_COST, restart=RESTART, *, job_mtbf_h=None,
                 spares=None, n_runs=20_000, seed=None, crews=None, rma_lead_time=0.0, spare_rate_per_h=0.0):
    """ETTR lost to waiting for repairs, for each spare count.

    ``job_mtbf_h`` is the job's MTBF from all causes (default 1/failure rate);
    ETTR is taken at the optimal interval for it, then divided by
    1 + λ E[stall].  Columns: spares, p_no_spare_poisson, p_no_spare_erlang,
    p_stall_sim, mean_stall_h, ettr, ettr_lost; with ``crews``,
    ``rma_lead_time`` or ``spare_rate_per_h`` (finite repair capacity,
    :mod:`relmodel.scale.sparing.repair_queue`) also p_stall_closed and
    mean_stall_closed_h, the closed form of the simulated model (exact for
    exponential repairs; the simulation takes ``repair``'s own law).

    ``failure_rate_per_h`` per hour; ``repair``, ``ckpt_cost``, ``restart`` and ``job_mtbf_h`` are durations.
    ``n_runs`` failures are simulated per spare count; ``seed=None`` draws
    fresh entropy.

    Examples
    --------
    >>> t = spares_table(0.05, "100h", "1min", "10min", job_mtbf_h="3h", spares=[0, 5, 10], n_runs=2000, seed=0)
    >>> t["spares"].tolist(), bool(t["ettr"].is_monotonic_increasing)
    ([0, 5, 10], True)
    """
    lam, s = _rate(failure_rate_per_h), _mean_repair(repair)
    n_failures = count("n_runs", n_runs, lo=1)
    check_cost(f"spares_table(n_runs={n_failures:,})", work=n_failures * 12 * 50, memory=n_failures * 8 * 6,
               hint="simulate fewer failures (n_runs)")
    a = check_load(lam * s)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])  # fresh, but one seed for every spare count
    m = float(hours(job_mtbf_h)) if job_mtbf_h is not None else 1.0 / lam
    base = float(best_ettr(m, ckpt_cost, restart))
    if spares is None:
        top = spare_pool(lam, s, 1e-3, crews=crews, rma_lead_time=rma_lead_time, spare_rate_per_h=spare_rate_per_h,
                         model="erlang" if crews is not None else "poisson").n_spares
        if crews is not None and _general_law(repair):   # a heavy tail with crews needs far more than M/M/c says
            top = max(top, int(np.ceil(1.5 * spare_pool(lam, repair, 0.01, crews=crews, rma_lead_time=rma_lead_time,
                                                        spare_rate_per_h=spare_rate_per_h).n_spares)))
        spares = np.unique(np.linspace(0, top, min(top + 1, 12)).round().astype(int))
    capacity = dict(crews=check_crews(crews), rma_lead_time=rma_lead_time, spare_rate_per_h=_spare_rate(spare_rate_per_h))
    rows = []
    with steps("spare counts simulated", total=len(spares)) as step:
        for c in spares:
            rows.append(_spares_row(lam, repair, s, a, c, n_failures, seed, base, capacity))
            step()
    return pd.DataFrame(rows)


def _spares_row(lam, repair, s, a, c, n_failures, seed, base, capacity):
    """One row of :func:`spares_table`: ``c`` spares at offered load ``a`` and best ETTR ``base``."""
    p_stall, wait = simulate_stalls(lam, repair, c, n_failures, seed, **capacity)
    e = base / (1.0 + lam * wait)
    finite = capacity["crews"] is not None or lead_mean(capacity["rma_lead_time"]) > 0 or capacity["spare_rate_per_h"]
    if not finite:
        return {"spares": int(c), "p_no_spare_poisson": float(p_no_spare(c, lam * s, "poisson")),
                "p_no_spare_erlang": float(erlang_b(c, a) if a <= LARGE_LOAD else erlang_b_integral(c, a)),
                "p_stall_sim": p_stall, "mean_stall_h": wait, "ettr": e, "ettr_lost": base - e}
    kw = dict(crews=capacity["crews"], rma_h=lead_mean(capacity["rma_lead_time"]),
              spare_rate=capacity["spare_rate_per_h"])
    stall = pool_figures(lam, s, int(c), model="stall", **kw)
    return {"spares": int(c), "p_no_spare_poisson": pool_figures(lam, s, int(c), model="poisson", **kw)["p_no_spare"],
            "p_no_spare_erlang": pool_figures(lam, s, int(c), model="erlang", **kw)["p_no_spare"],
            "p_stall_closed": stall["p_no_spare"], "p_stall_sim": p_stall, "mean_stall_closed_h": stall["mean_stall_h"],
            "mean_stall_h": wait, "ettr": e, "ettr_lost": base - e}


def swap_rate(scaled, units=("gpu", "node")):
    """Failures per hour that need a node swap: the causes of ``scaled`` scaling with ``units``.

    By default GPU and host causes; network and per-job (software) causes are
    fixed without replacing a node.
    """
    t = scaled.by_cause
    return float(t.loc[t["scales_with"].isin(list(units)), "rate_per_h"].sum())


def spares_for(scaled, repair, target=0.01, *, units=("gpu", "node"), model="poisson", conf=0.95,
               n_boot=2000, seed=None, crews=None, rma_lead_time=0.0, spare_rate_per_h="hot"):
    """Spare pool for a scaled cluster, with the spare count's interval over the rate uncertainty.

    ``scaled`` is a :class:`relmodel.scale.clusters.scaling.ScaledRates`; the swap rate is
    :func:`swap_rate`; the interval re-sizes the pool at the bootstrap
    quantiles of that rate (parametric bootstrap over the Poisson counts).
    ``crews`` and ``rma_lead_time`` are as in :func:`spare_pool`.
    ``spare_rate_per_h="hot"`` (the default) has each idle spare fail at the
    swap rate of one node in service: hot spares are powered, health-checked
    servers of the same build as the ones they replace, so nothing makes them
    fail less (MegaScale keeps such warm standbys, arXiv 2402.15627); give a
    rate per hour, or 0 for spares that never fail on the shelf.
    """
    lam = swap_rate(scaled, units)
    nodes = max(int(scaled.target.n_nodes), 1)
    nu = (lambda rate: rate / nodes) if spare_rate_per_h == "hot" else (lambda rate: _spare_rate(spare_rate_per_h))
    capacity = dict(crews=crews, rma_lead_time=rma_lead_time)
    plan = spare_pool(lam, repair, target, model, spare_rate_per_h=nu(lam), **capacity)
    mask = scaled.by_cause["scales_with"].isin(list(units)).to_numpy()
    draws = scaled.draws(n_boot, seed)[:, mask].sum(axis=1)
    a = (1.0 - conf) / 2
    lo, hi = np.quantile(draws, [a, 1 - a], method="inverted_cdf")
    n_lo = spare_pool(lo, repair, target, model, spare_rate_per_h=nu(lo), **capacity).n_spares if lo > 0 else 0
    n_hi = spare_pool(hi, repair, target, model, spare_rate_per_h=nu(hi), **capacity).n_spares
    return dataclasses.replace(plan, n_spares_lo=n_lo, n_spares_hi=n_hi)

