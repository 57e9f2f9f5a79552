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

from ..defaults import CKPT_COST, RESTART
from ..errors import ModelInputError
from .requirements import best_ettr
from ..units import hours
from ..base.deprecation import renamed_field, renamed_keywords
from ..tables import Result, duration, people_table
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps
from relmodel.base.escape import brief
from .spare_search import LARGE_LOAD, check_load, erlang_b_integral, fewest_spares

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

    def to_frame(self):
        return self.curve.copy()

    def text(self):
        rng = "" if self.n_spares_lo is None else f" ({self.n_spares_lo}–{self.n_spares_hi} over the rate interval)"
        return (f"{self.n_spares} spares{rng} keep P(no spare free) at {self.p_no_spare:.3g} < {self.target:g} "
                f"(offered load {self.offered_load:.3g} Erlangs, {self.model} model).")

    def _people(self):
        return people_table(pd.DataFrame({"spares": self.curve["spares"],
                                          "chance a failure finds no spare": self.curve["p_no_spare"]}))

    table = renamed_field("curve", method="_people")


def _mean_repair(repair):
    mean = getattr(repair, "mean_h", None)
    value = float(hours(repair)) if mean is None else float(mean)
    if not (value > 0 and np.isfinite(value)):
        raise ModelInputError(f"mean repair time must be positive, finite hours; got {repair!r}")
    return value


def _rate(failure_rate_per_h):
    lam = float(failure_rate_per_h)
    if not (lam > 0 and np.isfinite(lam)):
        raise ModelInputError(f"failure_rate_per_h must be a positive, finite rate; got {failure_rate_per_h!r}")
    return lam


def spare_pool(failure_rate_per_h, repair, target=0.01, model="poisson"):
    """The fewest spares with P(no spare free) < ``target``.

    ``failure_rate_per_h`` counts failures that need a node swap (hardware,
    not software); ``repair`` is a mean repair time (a duration) or a fitted
    repair model with ``mean_h`` (:func:`repair_model`).

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
    if not 0 < float(target) < 1:
        raise ModelInputError(f"target must be a probability in (0, 1), e.g. 0.01; got {target!r}")
    a = check_load(lam * s)
    if model not in ("poisson", "erlang"):
        raise ModelInputError(f"model must be 'poisson' or 'erlang'; got {model!r}")
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


@dataclasses.dataclass(frozen=True)
class EmpiricalRepair(Result):
    """Repair times resampled from observed ones (hours)."""

    hours: np.ndarray

    @property
    def mean_h(self):
        return float(np.mean(self.hours))

    def sample(self, n, rng=None):
        return np.random.default_rng(rng).choice(self.hours, size=int(n), replace=True)

    def to_frame(self):
        q = np.quantile(self.hours, [0.5, 0.9, 0.99])
        return pd.DataFrame({"n": [self.hours.size], "mean_h": [self.mean_h], "median_h": [q[0]],
                             "p90_h": [q[1]], "p99_h": [q[2]]})

    def text(self):
        return f"Empirical repair times: {self.hours.size:,} repairs, mean {duration(self.mean_h)}."


def repair_model(source, family="weibull"):
    """A repair-time model from a log's downtimes, a Durations or an array of hours.

    ``family`` is ``"empirical"`` (resample what was seen) or any family of
    :func:`relmodel.stats.lifetimes.fitting.fit` (``"lognormal"``, ``"weibull"``,
    ``"exponential"``, ``"gamma"``, ``"loglogistic"``); the fit handles
    censored repairs and zero durations as that module documents.  Check the
    fitted mean against the data: StepFun's repairs (median about 20 h, mean
    about 133 h) are heavy-tailed, and a log-normal fit puts the mean near
    765 h while the Weibull (shape about 0.42) keeps it near 129 h.

    Durations are in hours.

    Examples
    --------
    >>> m = repair_model([10.0, 20.0, 30.0], "empirical")     # repair hours
    >>> m.mean_h
    20.0
    """
    data = source.downtimes() if hasattr(source, "downtimes") else source
    if family == "empirical":
        h = np.asarray(getattr(data, "hours", None) if hasattr(data, "hours") else hours(data), dtype=float)
        h = h[np.isfinite(h) & (h >= 0)]
        if h.size == 0 or not h.sum() > 0:
            raise ModelInputError("empirical repair model needs some positive repair times")
        return EmpiricalRepair(h)
    from ..stats.lifetimes.fitting import fit
    return fit(data, family)


def _draw_repairs(repair, n, rng):
    if hasattr(repair, "sample"):
        return np.asarray(repair.sample(n, rng), dtype=float)
    return rng.exponential(_mean_repair(repair), size=n)


@renamed_keywords(n_failures="n_runs")
def simulate_stalls(failure_rate_per_h, repair, spares, n_runs=20_000, seed=None):
    """Simulate swaps with ``spares`` spares; return (fraction of failures that stall, mean stall h).

    ``n_runs`` is the Monte Carlo size: the number of failures simulated
    (``n_failures=`` is the deprecated spelling).

    Failures arrive at ``failure_rate_per_h`` while the job runs; each failed
    node goes to repair.  A free spare replaces it at once; with none free the
    job stalls until the first node returns from repair.  A bare number or
    duration for ``repair`` means exponential repairs with that mean.
    """
    lam = _rate(failure_rate_per_h)
    c = int(spares)
    if c < 0 or c != spares:
        raise ModelInputError(f"spares must be a whole number >= 0; got {spares!r}")
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


@renamed_keywords(n_failures="n_runs")
def spares_table(failure_rate_per_h, repair, ckpt_cost=CKPT_COST, restart=RESTART, *, job_mtbf_h=None,
                 spares=None, n_runs=20_000, seed=None):
    """ETTR lost to waiting for repairs, for each spare count.

    ``job_mtbf_h`` is the job's MTBF from all causes (default 1/failure rate);
    ETTR is taken at the optimal interval for it, then divided by
    1 + λ E[stall].  Columns: spares, p_no_spare_poisson, p_no_spare_erlang,
    p_stall_sim, mean_stall_h, ettr, ettr_lost.

    ``failure_rate_per_h`` per hour; ``repair``, ``ckpt_cost``, ``restart`` and ``job_mtbf_h`` are durations.
    ``n_runs`` failures are simulated per spare count (``n_failures=`` is the
    deprecated spelling); ``seed=None`` draws fresh entropy.

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
        top = spare_pool(lam, s, 1e-3).n_spares
        spares = np.unique(np.linspace(0, top, min(top + 1, 12)).round().astype(int))
    rows = []
    with steps("spare counts simulated", total=len(spares)) as step:
        for c in spares:
            rows.append(_spares_row(lam, repair, s, a, c, n_failures, seed, base))
            step()
    return pd.DataFrame(rows)


def _spares_row(lam, repair, s, a, c, n_failures, seed, base):
    """One row of :func:`spares_table`: ``c`` spares at offered load ``a`` and best ETTR ``base``."""
    p_stall, wait = simulate_stalls(lam, repair, c, n_failures, seed)
    e = base / (1.0 + lam * wait)
    return {"spares": int(c), "p_no_spare_poisson": float(p_no_spare(c, lam * s, "poisson")),
            "p_no_spare_erlang": float(erlang_b(c, a) if a <= LARGE_LOAD else erlang_b_integral(c, a)),
            "p_stall_sim": p_stall, "mean_stall_h": wait, "ettr": e, "ettr_lost": base - e}


def swap_rate(scaled, units=("gpu", "node")):
    """Failures per hour that need a node swap: the causes of ``scaled`` scaling with ``units``.

    By default GPU and host causes; network and per-job (software) causes are
    fixed without replacing a node.
    """
    t = scaled.by_cause
    return float(t.loc[t["scales_with"].isin(list(units)), "rate_per_h"].sum())


def spares_for(scaled, repair, target=0.01, *, units=("gpu", "node"), model="poisson", conf=0.95,
               n_boot=2000, seed=None):
    """Spare pool for a scaled cluster, with the spare count's interval over the rate uncertainty.

    ``scaled`` is a :class:`relmodel.scale.scaling.ScaledRates`; the swap rate is
    :func:`swap_rate`; the interval re-sizes the pool at the bootstrap
    quantiles of that rate (parametric bootstrap over the Poisson counts).
    """
    lam = swap_rate(scaled, units)
    plan = spare_pool(lam, repair, target, model)
    mask = scaled.by_cause["scales_with"].isin(list(units)).to_numpy()
    draws = scaled.draws(n_boot, seed)[:, mask].sum(axis=1)
    a = (1.0 - conf) / 2
    lo, hi = np.quantile(draws, [a, 1 - a], method="inverted_cdf")
    n_lo = spare_pool(lo, repair, target, model).n_spares if lo > 0 else 0
    n_hi = spare_pool(hi, repair, target, model).n_spares
    return dataclasses.replace(plan, n_spares_lo=n_lo, n_spares_hi=n_hi)
