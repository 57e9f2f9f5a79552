"""When is swapping a slow node out worth a restart?

One fail-slow event: a node turns slow and the whole job runs ``slowdown``
(s) slower, so while it stays a share ℓ = s / (1 + s) of wall time is lost.
It is noticed ``detection`` (D) hours after it starts.  Costs are expected
wall hours lost per event, counted from the onset:

* **never evict**: the node stays until the next fail-stop restart swaps it
  anyway; with job MTBF M and ``remaining`` hours of run left that is
  H = M (1 - e^{-remaining/M}) after detection (H = remaining without an
  MTBF).  Cost ℓ (D + H).
* **evict at once**: cost ℓ D + R + τ/2 + (1 - p) W: a restart R, the work
  since the last checkpoint (τ/2 on average, τ the checkpoint interval), and
  a wait W for a node when none of the spares is free (p: chance a spare is
  free).
* **evict at the next checkpoint**: cost ℓ D + s τ/2 + R + (1 - p) W: the
  job runs slow for the rest of the interval (τ/2 of work on average, taking
  (1 + s) τ/2), then restarts with nothing to redo.

Evicting at the next checkpoint pays when s τ/2 + R + (1 - p) W < ℓ H; the
break-even slowdown solves that with equality.  With fail-slow events at
Λ = ``rate`` × ``n_nodes`` per hour, each leaves a slow node in the job for
a time P (D + H, D, or D + (1 + s) τ/2 by policy) and costs a restart
overhead O (0, R + τ/2 + (1 - p) W, or R + (1 - p) W).  Slow nodes do not
add up (a step waits for the slowest), so the job is slowed whenever at
least one is present, a share q = 1 - e^{-Λ P} of the time (Poisson
occupancy); restarts take a share o = Λ O / (1 + Λ O).  The share of time
lost to fail-slow is 1 - (1 - ℓ q)(1 - o), which is Λ × cost when events
are rare, and the goodput combines both kinds of fault:

    goodput = ETTR (fail-stop, Daly's model) × (1 - straggler loss).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize

from ..checkpoint import ettr, optimal_interval
from ..errors import ModelInputError
from ..units import hours
from ..tables import Result, people_table

__all__ = ["EvictionPlan", "eviction_policy", "combined_goodput", "goodput_with_stragglers", "POLICIES",
           "event_slowdown"]

POLICIES = ("never evict", "evict at once", "evict at next checkpoint")


def combined_goodput(ettr_value, straggler_loss):
    """Goodput with both kinds of fault: ETTR (fail-stop) × (1 - straggler loss).

    Both arguments are fractions of wall time in [0, 1] (numbers or arrays);
    the result is the fraction of wall time spent on useful training.

    Examples
    --------
    >>> round(float(combined_goodput(0.9, 0.05)), 4)     # 90% ETTR, 5% of time lost to stragglers
    0.855
    """
    e, s = np.asarray(ettr_value, dtype=float), np.asarray(straggler_loss, dtype=float)
    if np.any(~((e >= 0) & (e <= 1))) or np.any(~((s >= 0) & (s <= 1))):  # NaN fails too
        raise ModelInputError(f"ETTR and straggler loss must be shares in [0, 1]; got {ettr_value!r}, "
                              f"{straggler_loss!r}")
    return (e * (1 - s))[()]


def goodput_with_stragglers(*, interval=None, mtbf, ckpt_cost, restart, straggler_loss):
    """Daly's ETTR at ``interval`` (the exact optimum when None) times (1 - ``straggler_loss``).

    ``mtbf``, ``ckpt_cost``, ``restart`` and ``interval`` are durations (hours
    or anything :func:`relmodel.units.hours` accepts); ``straggler_loss`` is the
    fraction of time lost to slow nodes.  Returns the goodput as a fraction.

    Examples
    --------
    >>> g = goodput_with_stragglers(mtbf="10h", ckpt_cost="5min", restart="10min", straggler_loss=0.05)
    >>> round(float(g), 4)
    0.8188
    """
    if interval is None:
        interval = optimal_interval(mtbf=hours(mtbf), ckpt_cost=hours(ckpt_cost), restart=hours(restart))
    e = ettr(interval=hours(interval), mtbf=hours(mtbf), ckpt_cost=hours(ckpt_cost), restart=hours(restart))
    return combined_goodput(e, straggler_loss)


@dataclass(frozen=True)
class EvictionPlan(Result):
    """The three policies compared (``by_policy``), the best one and the break-even points."""

    by_policy: pd.DataFrame
    best: str
    breakeven_slowdown: float  # smallest slowdown for which evicting at the next checkpoint pays (nan: never)
    breakeven_stay_h: float  # how long the node must otherwise stay for evicting to pay
    inputs: dict

    def to_frame(self):
        return self.by_policy.copy()

    def _people(self):
        return people_table(self._people_raw())

    def _people_raw(self):
        """The comparison formatted for people."""
        t = self.by_policy
        out = pd.DataFrame({"policy": t["policy"], "time lost per event": t["lost_h"].map(_dur)})
        if "straggler_loss" in t:
            out["share of time lost to fail-slow (%)"] = (100 * t["straggler_loss"]).map("{:.2f}".format)
        if "goodput" in t:
            out["goodput (%)"] = (100 * t["goodput"]).map("{:.2f}".format)
        return out

    def _breakeven(self):
        if np.isnan(self.breakeven_slowdown):
            return "Evicting never pays here: the node would leave at the next restart before a swap pays off"
        return (f"Evicting at the next checkpoint pays for a node that slows the job by more than "
                f"{100 * self.breakeven_slowdown:.1f}%, or that would otherwise stay longer than "
                f"{_dur(self.breakeven_stay_h)}")

    def text(self):
        """The best policy and the break-even point, as sentences."""
        return f"Best: {self.best}. {self._breakeven()}."

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _dur(h):
    if not np.isfinite(h):
        return "unbounded"
    if h >= 48:
        return f"{h / 24:,.1f} days"
    if h >= 1:
        return f"{h:,.1f} h"
    return f"{h * 60:,.1f} min"


def _costs(s, d, stay, tau, r, wait):
    """Per policy: hours lost per event, hours a slow node stays in the job, restart overhead hours."""
    loss = s / (1 + s)
    present = np.array([d + stay, d, d + (1 + s) * tau / 2])
    overhead = np.array([0.0, r + tau / 2 + wait, r + wait])
    return loss * present + overhead, present, overhead


def _loss_share(s, events_per_h, present, overhead):
    slowed = -np.expm1(-events_per_h * present)
    o = events_per_h * overhead / (1 + events_per_h * overhead)
    return 1 - (1 - s / (1 + s) * slowed) * (1 - o)


def _breakeven(stay, tau, r, wait):
    def gap(s):
        return s / (1 + s) * stay - s * tau / 2 - r - wait

    grid = np.geomspace(1e-4, 1e3, 400)
    vals = gap(grid)
    if not np.any(vals > 0):
        return float("nan")
    i = int(np.argmax(vals > 0))
    return float(grid[0]) if i == 0 else float(optimize.brentq(gap, grid[i - 1], grid[i]))


def eviction_policy(*, slowdown, interval, mtbf=None, ckpt_cost=None, restart, detection, fail_stop_restart=None,
                    wait="0h", spare_free=1.0, remaining=None, rate=None, n_nodes=None):
    """Compare never / at once / at the next checkpoint for a fail-slow node (see the module notes).

    ``slowdown`` is the fractional slowdown of the job (0.2: 20% longer steps).
    ``spare_free`` is the chance a spare node is free (1 minus the
    ``p_no_spare`` of :mod:`relmodel.scale.sparing.spares` for the spare pool), and
    ``wait`` how long the job waits for a node when none is.
    Durations accept anything :func:`relmodel.units.hours` does.  With ``rate`` (per
    node-hour) and ``n_nodes`` the table adds each policy's share of time lost;
    with ``mtbf`` and ``ckpt_cost`` as well, the combined goodput.

    Examples
    --------
    >>> p = eviction_policy(slowdown=0.2, detection="30min", restart="10min", interval="1h", remaining="100h")
    >>> print(p.by_policy[["policy", "lost_h"]].round(2).to_string(index=False))   # hours lost per event
                      policy  lost_h
                 never evict   16.75
               evict at once    0.75
    evict at next checkpoint    0.35
    >>> p.best
    'evict at next checkpoint'
    """
    s = float(slowdown)
    if not s >= 0 or not 0 <= spare_free <= 1:
        raise ModelInputError(f"need slowdown >= 0 and spare_free in [0, 1]; got {slowdown!r}, {spare_free!r}")
    d, r, tau, w = hours(detection), hours(restart), hours(interval), hours(wait)
    if mtbf is None and remaining is None:
        raise ModelInputError("give mtbf= (the next fail-stop restart swaps the node) or remaining= (run left)")
    m = None if mtbf is None else hours(mtbf)
    rem = np.inf if remaining is None else hours(remaining)
    for arg, v, low in (("detection", d, 0), ("restart", r, 0), ("interval", tau, 1e-300), ("wait", w, 0),
                        ("mtbf", m if m is not None else 1.0, 1e-300), ("remaining", rem, 1e-300)):
        if not v >= low:  # NaN fails too
            raise ModelInputError(f"{arg} must be a duration {'>= 0' if low == 0 else '> 0'}, got {v!r} h")
    stay = rem if m is None else m * -np.expm1(-rem / m)
    wait_h = (1 - spare_free) * w
    lost, present, overhead = _costs(s, d, stay, tau, r, wait_h)
    table = pd.DataFrame({"policy": POLICIES, "lost_h": lost})
    if rate is not None and n_nodes is not None:
        table["straggler_loss"] = _loss_share(s, float(rate) * float(n_nodes), present, overhead)
        if m is not None and ckpt_cost is not None:
            base = ettr(interval=tau, mtbf=m, ckpt_cost=hours(ckpt_cost),
                        restart=hours(fail_stop_restart if fail_stop_restart is not None else restart))
            table["goodput"] = combined_goodput(base, table["straggler_loss"].to_numpy())
    be = _breakeven(stay, tau, r, wait_h)
    be_stay = (s * tau / 2 + r + wait_h) / (s / (1 + s)) if s > 0 else float("inf")
    return EvictionPlan(by_policy=table, best=POLICIES[int(np.argmin(lost))], breakeven_slowdown=be,
                        breakeven_stay_h=be_stay,
                        inputs={"slowdown": s, "detection_h": d, "restart_h": r, "interval_h": tau, "stay_h": stay})


def event_slowdown(found=None, default=0.2):
    """The job slowdown one fail-slow event causes: the worst flagged node's, else ``default``."""
    if found is not None and len(found.flagged):
        return float(found.flagged["slowdown"].max())
    return float(default)
