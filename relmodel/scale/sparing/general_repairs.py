"""Spares when crews repair under any repair-time law: the M/G/c pool, simulated.

An M/M/c closed form keeps only the repair time's mean; with heavy-tailed
repairs (a log-normal of sigma 1.5, say) and crews near full load, long
repairs hold crews while others queue, and the count of units away has a far
longer tail. :func:`away_tail` simulates the pool as it is: failures arrive as
a Poisson stream, each waits for the first free of ``crews`` crews (first come,
first served), is repaired for a time drawn from the law, then is away for the
RMA lead time. Waiting times follow the Kiefer-Wolfowitz recursion (a heap of
the crews' free times); the count of units away at each failure is the number
of earlier failures not yet back, read from the sorted return times. Failures
see the time-average state (Poisson arrivals), so the share of failures that
find ``n`` or more units away is P(no spare free) for a pool of ``n``.

Idle spares that fail (hot spares) make arrivals depend on the pool; the
spare pool adds their rate at the pool's mean idle count (:func:`~.spares.spare_pool`),
and never sizes a pool below what unlimited repairs would need (the Poisson
tail of the load), which crews can only add to.
"""

import heapq
import math

import numpy as np

from ...errors import ModelInputError
from .repair_queue import lead_mean
from .repairs import _draw_repairs, _mean_repair

__all__ = ["away_tail", "pooled_tail", "repair_draws", "MIN_FAILURES", "RUNS", "RUN_FAILURES", "MAX_WARM"]

#: Failures simulated in one run of :func:`away_tail`, after its warm-up.
MIN_FAILURES = 400_000
#: Independent runs :func:`pooled_tail` makes: at least the first, at most the second.
RUNS = (4, 40)
#: Failures in each of them.
RUN_FAILURES = 100_000
#: The most failures a run's warm-up simulates (memory: a few arrays of this many floats).
MAX_WARM = 4_000_000


def repair_draws(law, n, rng):
    """``n`` repair (or lead) times in hours from a mean (exponential; 0 for instant repairs) or a law with
    ``sample``; a law drawing a negative or missing time is a ModelInputError, as in the spare pool."""
    if not hasattr(law, "sample"):
        return rng.exponential(float(getattr(law, "mean_h", law)), size=n)
    return _draw_repairs(law, n, rng)


def away_tail(rate_per_h, repair, crews, lead=0.0, *, n_runs=MIN_FAILURES, seed=None):
    """Shares of failures that find 0, 1, 2, ... units away (array ``tail`` with ``tail[n] = P(N >= n)``).

    ``rate_per_h`` failures an hour; ``repair`` a mean (hours, exponential) or a law with ``sample``;
    ``crews`` parallel repairs (None: unlimited); ``lead`` the RMA lead time after a repair (hours, or
    a law with ``sample``); ``n_runs`` failures are simulated after a warm-up (``seed=None``: fresh
    entropy). A load the crews cannot carry (rate x mean repair >= crews) is a
    ModelInputError: the queue grows without end and no pool keeps up.
    """
    lam = float(rate_per_h)
    mean = _mean_repair(repair)
    if not (lam > 0 and math.isfinite(lam)):
        raise ModelInputError(f"the failure rate must be positive and finite; got {rate_per_h!r}")
    if crews is not None and lam * mean >= crews:
        raise ModelInputError(f"{crews:,} crews cannot keep up with {lam * mean:,.1f} Erlangs of repairs (failures "
                              f"an hour x mean repair): the repair queue grows without end, so no spare pool meets "
                              f"any target; add crews or shorten repairs")
    rng = np.random.default_rng(seed)
    # a run starts with nothing away: its warm-up lasts past nearly every time away (the 99.99th percentile),
    # so a heavy tail has filled before counting starts (20 mean repairs left a log-normal's tail short: 1,653
    # of 1,680 units away on average, and pools too small)
    span = float(np.quantile(repair_draws(repair, 20_000, rng) + (repair_draws(lead, 20_000, rng)
                                                                  if hasattr(lead, "sample") else lead_mean(lead)),
                             0.9999))
    warm = min(max(2_000, int(lam * 20 * (mean + lead_mean(lead))), int(lam * span)), MAX_WARM)
    n = int(n_runs) + warm
    arrive = np.cumsum(rng.exponential(1.0 / lam, size=n))
    service = repair_draws(repair, n, rng)
    if crews is None:
        done = arrive + service
    else:
        free = [0.0] * int(crews)   # the crews' free times; the first free crew takes the next failure
        replace, ends = heapq.heapreplace, []
        push = ends.append
        for a, s in zip(arrive.tolist(), service.tolist()):
            f = free[0]
            end = (a if a > f else f) + s
            replace(free, end)
            push(end)
        done = np.array(ends)
    back = done + (repair_draws(lead, n, rng) if hasattr(lead, "sample") else lead_mean(lead))
    # earlier units not back when this one fails (side="left": a unit back at once is not away on arrival)
    away = np.arange(n) - np.searchsorted(np.sort(back), arrive, side="left")
    counts = np.bincount(away[warm:])
    tail = counts[::-1].cumsum()[::-1] / counts.sum()
    return np.append(tail, 0.0)


def pooled_tail(rate_per_h, repair, crews, lead, target, *, n_runs=RUN_FAILURES, runs=RUNS):
    """The fewest units ``n`` whose share of failures finding ``n`` or more away is under ``target``, from
    independent runs of :func:`away_tail` (seeds 0, 1, ...): ``(n, mean tail, its standard error, runs)``.

    Heavy-tailed repairs with crews make one long run's tail noisy (long repairs hold crews and the counts
    away stay correlated for a long time): one run of 400,000 failures put the bench's pool at 210 spares where
    6.4 million failures put it at 243. Runs are added, from ``runs[0]`` to ``runs[1]``, until the standard
    error at ``n`` is an eighth of the target.
    """
    tails = []
    for r in range(runs[1]):
        tails.append(away_tail(rate_per_h, repair, crews, lead, n_runs=n_runs, seed=r))
        if r + 1 < runs[0]:
            continue
        width = max(t.size for t in tails)
        table = np.array([np.pad(t, (0, width - t.size)) for t in tails])
        mean = table.mean(axis=0)
        se = table.std(axis=0, ddof=1) / math.sqrt(len(tails))
        n = int(np.flatnonzero(mean < target)[0])
        if se[n] <= target / 8:
            break
    return n, mean, se, len(tails)
