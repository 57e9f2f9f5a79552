"""Retirement policies: which failed nodes leave the fleet for good instead of going to repair.

* :func:`never`: every failed node is repaired and comes back;
* :func:`threshold`: a node blamed for ``failures`` failures within a rolling ``window`` of wall
  time is retired at the last of them;
* :func:`score`: every node starts at ``initial``; each failure it is blamed for takes ``penalty``;
  each full ``period`` of service earns ``credit``, counted over all its service since it entered
  the fleet, across job restarts (not only inside one uninterrupted run); a node whose score falls
  to ``floor`` or below at a failure is retired;
* :func:`retire_top`: before the run, pull the nodes a log ranks most likely bad; ``p_bad`` lists
  each pulled node's chance of being bad (from :func:`relmodel.bad_nodes`), so the simulated fleet
  loses that many bad nodes on average.
"""

import dataclasses
import math

import numpy as np

from ...errors import ModelInputError
from ...units import hours

__all__ = ["Policy", "never", "threshold", "score", "retire_top", "checked_policy"]


@dataclasses.dataclass(frozen=True)
class Policy:
    """A retirement policy: ``kind`` and its settings (hours); build it with the functions here."""

    kind: str
    failures: int = 0
    window_h: float = 0.0
    initial: float = 100.0
    penalty: float = 30.0
    credit: float = 10.0
    period_h: float = 24.0
    floor: float = 0.0
    p_bad: tuple = ()

    @property
    def name(self):
        """A short label: "never", "2 failures in 7 days", "score", "pull 5 nodes"."""
        if self.kind == "threshold":
            days = self.window_h / 24
            return f"{self.failures} failures in {days:g} days"
        if self.kind == "score":
            return (f"score ({self.initial:g}, -{self.penalty:g} a failure, +{self.credit:g} a "
                    f"{self.period_h / 24:g}-day of service)")
        if self.kind == "top":
            n = len(self.p_bad)
            return f"pull the {n} likeliest bad node{'s' if n != 1 else ''}"
        return "never retire"


def checked_policy(policy, where="policy"):
    """``policy`` when it is a :class:`Policy` or None (never retire), else a ModelInputError naming the builders."""
    if policy is None or isinstance(policy, Policy):
        return policy
    hint = " (call it: threshold(2, '7d'))" if callable(policy) else ""
    raise ModelInputError(f"{where} must be a retirement policy built with never(), threshold(failures, window), "
                          f"score(...) or retire_top(p_bad) from relmodel.scale.lifecycle, or None; got "
                          f"{policy!r}{hint}")


def never():
    """Repair every failed node and put it back."""
    return Policy("never")


def threshold(failures=2, window="7d"):
    """Retire a node at its ``failures``-th failure within ``window`` of wall time.

    Examples
    --------
    >>> threshold(2, "7d").name
    '2 failures in 7 days'
    """
    if isinstance(failures, bool) or not isinstance(failures, (int, np.integer)) or failures < 1:
        raise ModelInputError(f"failures must be a whole number >= 1; got {failures!r}")
    w = float(hours(window))
    if not (w > 0 and math.isfinite(w)):
        raise ModelInputError(f"window must be a positive duration; got {window!r}")
    return Policy("threshold", failures=int(failures), window_h=w)


def score(initial=100.0, penalty=30.0, credit=10.0, period="1d", floor=0.0):
    """Retire a node when its score falls to ``floor``: ``initial``, less ``penalty`` a failure, plus
    ``credit`` for each full ``period`` of service over its whole time in the fleet."""
    vals = {"initial": initial, "penalty": penalty, "credit": credit, "floor": floor}
    for k, v in vals.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ModelInputError(f"{k} must be a finite number; got {v!r}")
    p = float(hours(period))
    if not (p > 0 and math.isfinite(p)):
        raise ModelInputError(f"period must be a positive duration; got {period!r}")
    if penalty <= 0:
        raise ModelInputError(f"penalty must be positive (a failure lowers the score); got {penalty!r}")
    return Policy("score", initial=float(initial), penalty=float(penalty), credit=float(credit), period_h=p,
                  floor=float(floor))


def retire_top(p_bad):
    """Pull the nodes ranked likeliest bad before the run; ``p_bad`` holds each one's chance of being bad.

    Examples
    --------
    >>> retire_top([0.99, 0.9, 0.4]).name
    'pull the 3 likeliest bad nodes'
    """
    p = np.asarray(p_bad, dtype=float).ravel()
    if p.size == 0 or not np.all((p >= 0) & (p <= 1)):
        raise ModelInputError("p_bad must list at least one probability between 0 and 1 (one per node pulled)")
    return Policy("top", p_bad=tuple(float(x) for x in p))
