"""From a what-if analysis to decisions: slow workers, which one to evict and when, and goodput.

* :func:`worker_steps` turns the per-step worker scores of a
  :class:`~relmodel.stragglers.whatif.WhatIf` into a step log (one "rank" per
  worker; a worker's step time is the step time the job would have with only
  that worker as recorded), so :func:`~relmodel.stragglers.detection.find_slow_nodes`
  can tell persistently slow workers from noise;
* :func:`evict_worker` picks the worker whose removal (its operations at
  typical times) recovers most of the slowdown and prices evicting it with
  :func:`~relmodel.stragglers.policy.eviction_policy`;
* :func:`whatif_goodput` is ETTR times the share of time stragglers leave,
  1/S (:func:`~relmodel.stragglers.policy.combined_goodput`).
"""

from ..data.formats.steps import StepLog
from .detection import find_slow_nodes
from .policy import combined_goodput, eviction_policy

__all__ = ["worker_steps", "slow_workers", "evict_worker", "whatif_goodput", "eviction_sentence"]


def worker_steps(result):
    """A :class:`~relmodel.data.formats.steps.StepLog` of workers: steps x workers, hours."""
    grid = result.step_workers
    return StepLog(grid.to_numpy() * result.ideal_s / 3600, grid.index.to_numpy(), list(grid.columns),
                   name=f"{result.name} (workers, what-if)")


def slow_workers(result, **kw):
    """Persistently slow workers: :func:`find_slow_nodes` on :func:`worker_steps` (keywords pass through)."""
    return find_slow_nodes(worker_steps(result), level="rank", **kw)


def _best(result):
    return result.recoverable.sort_values("slowdown_removed", ascending=False, kind="stable").iloc[0]


def evict_worker(result, *, interval, restart, detection, **kw):
    """The eviction policy for the worker whose removal recovers most of the slowdown.

    The event slowdown handed to :func:`eviction_policy` is S / S_without - 1,
    S_without being the job's slowdown with that worker at typical times;
    other keywords (``mtbf``, ``remaining``, ``rate``, ``n_nodes``...) pass through.
    """
    best = _best(result)
    return eviction_policy(slowdown=max(0.0, float(best["slowdown_removed"])), detection=detection,
                           restart=restart, interval=interval, **kw)


_ACTION = {"never evict": "keep it until the next fail-stop restart replaces it", "evict at once": "evict it at once",
           "evict at next checkpoint": "evict it at the next checkpoint"}


def eviction_sentence(result, plan):
    """One sentence: which worker to evict, what it recovers, and the best policy."""
    best = _best(result)
    return (f"Evicting {best['worker']} recovers the most: without it the job's steps would be "
            f"{100 * float(best['slowdown_removed']) / (1 + float(best['slowdown_removed'])):.1f}% shorter; "
            f"the best policy is to {_ACTION.get(plan.best, plan.best)}.")


def whatif_goodput(result, ettr_value):
    """Goodput with fail-stop (``ettr_value``) and the stragglers this analysis measured (1 - 1/S lost)."""
    return combined_goodput(ettr_value, max(0.0, result.share_lost))
