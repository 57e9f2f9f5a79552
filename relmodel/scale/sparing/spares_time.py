"""Spares over a planning horizon: RMA lead time, failures of spares, a pool that runs down.

:mod:`relmodel.scale.sparing.spares` answers for a pool that has run long enough to
settle (stationary).  A new deployment starts with every spare on the shelf;
each failure that needs a swap takes one, and the failed unit goes back to
the vendor (RMA) for ``lead_time`` (any distribution) before it returns to
the pool.  Spares fail too while they wait (``spare_rate_per_h`` per idle
spare: found dead at the swap or by a health check) and go to RMA in turn.
A share ``scrap`` of the units sent back never returns (beyond repair), so
without restocking the pool runs down over the horizon.

Without failures of spares the units away at time t are an M/G/infinity
count started empty, thinned for scrap: Poisson with mean
λ [(1 - scrap) E[min(S, t)] + scrap t], so P(pool empty at t) = P(N(t) >= c)
exactly; it rises to the stationary P(N >= c), N ~ Poisson(λ E[S]), when
nothing is scrapped, and towards 1 when something is.  Failures of spares
make the rate depend on the spares left, so :func:`spares_over_time` also
simulates (an event loop per run) and gives the chance the pool runs dry at
least once within the horizon, which has no closed form.
"""

import dataclasses
import heapq

import numpy as np
import pandas as pd
from scipy import stats

from ...budget_guard import runs_within as budget_runs
from ...errors import ModelInputError, ResourceLimitError
from ...tables import Result, html_table
from ...units import hours
from .spares import _draw_repairs, _mean_repair, _rate
from .repair_queue import check_crews, pool_figures
from .words import share_words

__all__ = ["SparesOverTime", "spares_over_time", "away_mean", "MAX_EVENTS", "runs_within"]

#: Most events one call simulates (an event loop in Python: about a second per million).
MAX_EVENTS = 20_000_000


def away_mean(failure_rate_per_h, lead_time, t_h, scrap=0.0, rng=None):
    """Mean units away at ``t_h`` hours (array) from a full start: λ [(1 - scrap) E[min(S, t)] + scrap t]."""
    t = np.asarray(t_h, dtype=float)
    lam = float(failure_rate_per_h)
    if hasattr(lead_time, "hours"):                       # resampled lead times: exact
        h = np.asarray(lead_time.hours, dtype=float)
        clipped = np.minimum(h[None, :], t.reshape(-1, 1)).mean(axis=1).reshape(t.shape)
    elif hasattr(lead_time, "sample"):                    # a fitted model: a large fixed-seed sample
        h = np.asarray(lead_time.sample(20_000, np.random.default_rng(rng if rng is not None else 0)), float)
        clipped = np.minimum(h[None, :], t.reshape(-1, 1)).mean(axis=1).reshape(t.shape)
    else:
        s = _mean_repair(lead_time)
        clipped = s * -np.expm1(-t / s)
    return lam * ((1.0 - scrap) * clipped + scrap * t)


@dataclasses.dataclass(frozen=True)
class SparesOverTime(Result):
    """P(no spare on the shelf) over the horizon, beside the stationary answer; times in days."""

    spares: int
    horizon_h: float
    stationary: float
    frame: pd.DataFrame
    n_runs: int

    @property
    def p_ever_empty(self):
        """Chance the pool runs dry at least once within the horizon (simulated)."""
        return float(self.frame["p_ever_empty_sim"].iloc[-1])

    def to_frame(self):
        return self.frame.copy()

    def table(self):
        f = self.frame.iloc[np.unique(np.linspace(0, len(self.frame) - 1, 10).round().astype(int))]
        col = f["p_empty"] if f["p_empty"].notna().all() else f["p_empty_sim"]
        return pd.DataFrame({"Day": f["t_days"].map("{:,.0f}".format),
                             "No spare on the shelf": col.map(_pct),
                             "Ran dry at least once by then": f["p_ever_empty_sim"].map(_pct)})

    def text(self):
        end = self.frame.iloc[-1]
        now = end["p_empty"] if np.isfinite(end["p_empty"]) else end["p_empty_sim"]
        days = self.horizon_h / 24
        settled = ("once settled (stationary)" if self.stationary < 1 else
                   "in the long run, as scrapped units are never replaced")
        return (f"With {self.spares:,} spares, the shelf is empty {_pct(self.stationary)} of the time {settled}, "
                f"{_pct(now)} on day {days:,.0f} from a full start; the chance it runs dry at least once within "
                f"{days:,.0f} days is {_pct(self.p_ever_empty)}.")

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table())


def _pct(p):
    return share_words(p)


def _run(rng, lam, nu, c, lead_time, scrap, grid, crews=None, repair=None):
    """One run of the event loop (spares that fail while idle make the rate depend on the shelf).

    With ``crews`` a unit leaving the shelf first waits for a crew, takes a
    ``repair`` time on it, then goes to the vendor for the lead time.
    Returns (no spare on the shelf at each grid time, ran dry by each grid time).
    """
    horizon = grid[-1]
    draw = _drawer(lead_time, rng)
    fix = _drawer(repair, rng) if crews is not None else None
    free, t, dry_at = c, 0.0, np.inf
    back, busy, waiting = [], [], 0  # return times of units away; crews' finishing times; units waiting
    empty = np.zeros(grid.size, bool)
    g = 0
    while True:
        rate = lam + nu * max(free, 0)
        t_next = t + rng.exponential(1.0 / rate) if rate > 0 else np.inf
        t_back = back[0] if back else np.inf
        t_crew = busy[0] if busy else np.inf
        t_new = min(t_next, t_back, t_crew, horizon)
        while g < grid.size and grid[g] < t_new:
            empty[g] = free <= 0
            g += 1
        if t_new >= horizon:
            break
        t = t_new
        if t_crew == t_new:
            heapq.heappop(busy)
            if waiting:
                waiting -= 1
                heapq.heappush(busy, t + fix())
            if rng.random() >= scrap:
                heapq.heappush(back, t + draw())
            continue
        if t_back <= t_next:
            heapq.heappop(back)
            free += 1
            continue
        free -= 1       # a swap for a job failure, or a spare found dead: either way one unit leaves the shelf
        if free <= 0 and dry_at == np.inf:
            dry_at = t
        if crews is not None:
            if len(busy) < crews:
                heapq.heappush(busy, t + fix())
            else:
                waiting += 1
        elif rng.random() >= scrap:
            heapq.heappush(back, t + draw())
    while g < grid.size:
        empty[g] = free <= 0
        g += 1
    return empty, grid >= dry_at


def _drawer(law, rng):
    if hasattr(law, "sample"):
        def draw():
            return float(_draw_repairs(law, 1, rng)[0])
        return draw
    mean = _mean_repair(law)

    def draw():
        return rng.exponential(mean)
    return draw


def _poisson_runs(rng, lam, c, lead_time, scrap, grid, runs):
    """All runs at once when only job failures take spares (a Poisson stream whatever the shelf holds).

    Each run's swaps are a Poisson count of uniform times over the horizon;
    each unit not scrapped comes back a lead time later.  The shelf is empty at
    t when the units away at t (swaps by t less returns by t) reach ``c``, and
    it has run dry by t when some swap by t left ``c`` or more away.  Returns
    the share of runs for each grid time, as :func:`_run` does one run at a time.
    """
    horizon = float(grid[-1])
    per_run = rng.poisson(lam * horizon, size=runs)
    run = np.repeat(np.arange(runs), per_run)
    out = rng.random(run.size) * horizon
    kept = rng.random(run.size) >= scrap
    back = out[kept] + (np.asarray(_draw_repairs(lead_time, int(kept.sum()), rng), float) if kept.any() else 0.0)
    home = back <= horizon
    width = 2.0 * horizon + 1.0                   # one block of the key line per run
    out_key = np.sort(run * width + out)
    back_key = np.sort(run[kept][home] * width + back[home])
    at = (np.arange(runs)[:, None] * width + grid[None, :]).ravel()
    start = np.repeat(np.arange(runs) * width, grid.size)
    away = (np.searchsorted(out_key, at, "right") - np.searchsorted(out_key, start, "left")
            - np.searchsorted(back_key, at, "right") + np.searchsorted(back_key, start, "left"))
    empty = (away.reshape(runs, grid.size) >= c).mean(axis=0)
    # units away just after each swap: swaps so far in its run less the returns before it
    swaps_before = np.arange(out_key.size) - np.searchsorted(out_key, np.floor(out_key / width) * width, "left") + 1
    returns_before = np.searchsorted(back_key, out_key, "right") - np.searchsorted(
        back_key, np.floor(out_key / width) * width, "left")
    dry = (swaps_before - returns_before) >= c
    dry_run = np.floor(out_key[dry] / width).astype(int)
    dry_at = np.full(runs, np.inf)
    first = np.unique(dry_run, return_index=True)
    dry_at[first[0]] = out_key[dry][first[1]] - first[0] * width
    ever = (grid[None, :] >= dry_at[:, None]).mean(axis=0)
    return empty, ever


def spares_over_time(failure_rate_per_h, spares, lead_time, horizon="90d", *, spare_rate_per_h=0.0, scrap=0.0,
                     n_runs=2000, seed=None, points=31, crews=None, repair=None):
    """P(no spare on the shelf) from a full start over ``horizon``, and the stationary answer.

    ``failure_rate_per_h`` counts failures that need a swap (per hour, the
    whole job); ``spares`` units start on the shelf; ``lead_time`` is the RMA
    turnaround (a duration: exponential with that mean, or a model with
    ``sample``, e.g. :func:`relmodel.scale.sparing.spares.repair_model`);
    ``spare_rate_per_h`` the failure rate of one idle spare; ``scrap`` the
    share of units sent back that never return.  ``crews`` (parallel
    repairs on site; None: unlimited) and ``repair`` (the time a crew spends
    on one unit, needed with ``crews``) put a repair queue before the lead
    time: a unit waits for a crew, is repaired, then goes to the vendor.
    Returns a :class:`SparesOverTime` with ``points`` times from 0 to the
    horizon; the stationary answer is the closed form of
    :func:`relmodel.scale.sparing.repair_queue.pool_figures` (exact for exponential
    crew repairs, any lead-time law).

    Examples
    --------
    2,048 servers failing once in 50,000 h each (about 1 a day), 16 spares,
    10-day RMA: about 10 units are away once settled.

    >>> r = spares_over_time(2048 / 50_000, 16, "10d", horizon="90d", n_runs=300, seed=0)
    >>> round(r.stationary, 3), round(float(r.frame["p_empty"].iloc[-1]), 3)   # stationary, day 90
    (0.043, 0.043)
    >>> r.p_ever_empty > r.stationary        # running dry at least once in 90 days is far likelier
    True
    """
    lam = _rate(failure_rate_per_h)
    c = int(spares)
    if c < 0 or c != spares:
        raise ModelInputError(f"spares must be a whole number >= 0; got {spares!r}")
    nu, p = float(spare_rate_per_h), float(scrap)
    if not (nu >= 0 and np.isfinite(nu)):
        raise ModelInputError(f"spare_rate_per_h must be a finite rate per hour >= 0; got {spare_rate_per_h!r}")
    if not 0 <= p <= 1:
        raise ModelInputError(f"scrap must be a fraction from 0 to 1; got {scrap!r}")
    h = float(hours(horizon))
    if not (h > 0 and np.isfinite(h)):
        raise ModelInputError(f"horizon must be a positive, finite duration; got {horizon!r}")
    runs = int(n_runs)
    if runs < 1 or int(points) < 2:
        raise ModelInputError(f"n_runs must be >= 1 and points >= 2; got {n_runs!r}, {points!r}")
    events = 2.0 * (lam + nu * c) * h * runs          # each failure leaves the shelf and comes back
    if events > MAX_EVENTS:
        raise ResourceLimitError(f"about {events:,.0f} events would be simulated ({runs:,} runs of {h:,.0f} h at "
                                 f"{lam + nu * c:.3g} failures per hour); use fewer runs (n_runs) or a shorter "
                                 f"horizon, up to {MAX_EVENTS:,.0f} events")
    crews = check_crews(crews)
    if crews is not None and repair is None:
        raise ModelInputError("crews needs repair= (the time one crew spends on one unit, e.g. '8h')")
    grid = np.linspace(0.0, h, int(points))
    rng = np.random.default_rng(seed)
    if nu == 0 and crews is None:
        empty, ever = _poisson_runs(rng, lam, c, lead_time, p, grid, runs)
    else:
        sims = [_run(rng, lam, nu, c, lead_time, p, grid, crews, repair) for _ in range(runs)]
        empty = np.mean([e for e, _ in sims], axis=0)
        ever = np.mean([d for _, d in sims], axis=0)
    closed = stats.poisson.sf(c - 1, away_mean(lam, lead_time, grid, p, seed)) if nu == 0 and crews is None else \
        np.full(grid.size, np.nan)
    if p > 0:
        stationary = 1.0
    elif crews is None and nu == 0:
        stationary = float(stats.poisson.sf(c - 1, lam * _mean_repair(lead_time)))
    else:
        fix = _mean_repair(repair) if crews is not None else 0.0
        stationary = pool_figures(lam, fix, c, crews=crews, rma_h=_mean_repair(lead_time), spare_rate=nu)["p_empty"]
    frame = pd.DataFrame({"t_days": grid / 24, "p_empty": closed, "p_empty_sim": empty, "p_ever_empty_sim": ever})
    return SparesOverTime(c, h, stationary, frame, runs)


def runs_within(failure_rate_per_h, horizon, n_runs, *, spare_rate_per_h=0.0, spares=0, events=MAX_EVENTS):
    """``n_runs``, or the most runs (at least 1) whose events stay within ``events`` (:data:`MAX_EVENTS`).

    A page that follows a shelf at a million GPUs (tens of thousands of swaps a
    run) asks for this many runs instead of being refused.

    Examples
    --------
    >>> runs_within(0.1, "90d", 500), runs_within(18.5, "90d", 500), runs_within(18.5, "90d", 500, events=2e6)
    (500, 250, 25)
    """
    per_run = 2.0 * (float(failure_rate_per_h) + float(spare_rate_per_h) * int(spares)) * float(hours(horizon))
    return budget_runs(n_runs, per_run, events)
