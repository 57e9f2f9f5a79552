"""Turnbull's nonparametric estimate of survival from interval-censored failures.

Each unit's failure lies in ``(lower, upper]`` (exact: ``lower == upper``;
still healthy: ``upper = inf``).  The nonparametric maximum-likelihood
estimate puts all its mass on the *innermost intervals* (Turnbull, JRSS B 38,
1976): the intervals ``(q, p]`` between a left end ``q`` and the next right
end ``p`` with no other end in between.  The masses come from Turnbull's
self-consistency (EM) iteration.  Where the data are exact or right-censored
the estimate is the Kaplan-Meier.  Inside an innermost interval the curve is
not identified: :class:`TurnbullEstimate` reports where the mass sits and the
survival after each interval.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import EmptyDataError, FitError
from ..lifetimes.interval import interval_rows
from ...tables import Result, html_table

__all__ = ["turnbull", "TurnbullEstimate"]


@dataclass(frozen=True, eq=False)
class TurnbullEstimate(Result):
    """Innermost intervals ``(left_h, right_h]``, their probability mass, and survival after each."""

    left_h: np.ndarray
    right_h: np.ndarray
    mass: np.ndarray
    survival: np.ndarray
    n: int
    iterations: int
    loglik: float

    def __call__(self, t):
        """Survival at ``t`` hours: 1 minus the mass of innermost intervals ending by ``t``.

        Inside an innermost interval the value is the upper of the two possible
        (the mass there may not yet have fallen).
        """
        t = np.asarray(t, float)
        done = np.searchsorted(self.right_h, t, side="right")
        out = 1 - np.concatenate([[0.0], np.cumsum(self.mass)])[done]
        return out if out.ndim else float(out)

    @property
    def median_h(self):
        """Right end of the innermost interval where survival first falls to 0.5 or below (NaN if never)."""
        hit = np.flatnonzero(self.survival <= 0.5)
        return float(self.right_h[hit[0]]) if hit.size else float("nan")

    def to_frame(self):
        return pd.DataFrame({"from (h)": self.left_h, "to (h)": self.right_h, "probability mass": self.mass,
                             "survival after": self.survival})

    def text(self):
        return (f"Turnbull estimate from {self.n:,} intervals: mass on {self.mass.size} innermost intervals "
                f"({self.iterations} iterations).")

    def _repr_html_(self):
        head = (f"<p><b>Turnbull estimate</b> from {self.n:,} intervals: mass on {self.mass.size} innermost "
                f"intervals ({self.iterations} iterations)</p>")
        return head + html_table(self.to_frame().head(15), index=False, float_format="{:.4g}".format)


def _innermost(lo, up):
    """Innermost intervals of ``(lo, up]`` rows: in sorted ends, a left end followed by a right end."""
    vals = np.concatenate([lo, up])
    kind = np.concatenate([np.ones(lo.size), np.zeros(up.size)])  # at equal values right ends (0) come first
    order = np.lexsort((kind, vals))
    v, k = vals[order], kind[order]
    start = np.flatnonzero((k[:-1] == 1) & (k[1:] == 0))
    return v[start], v[start + 1]


def _em(a, mass):
    return mass * (a / (a @ mass)[:, None]).mean(axis=0)


def _self_consistent(a, tol, max_iter):
    """Turnbull's EM, accelerated by SQUAREM (Varadhan and Roland, Scand J Stat 35, 2008).

    Stops when the Kuhn-Tucker conditions of the NPMLE hold to ``tol``: the
    gradient ``mean_i a_ij / (a_i . mass)`` is at most 1 + tol everywhere.
    """
    mass = np.full(a.shape[1], 1.0 / a.shape[1])
    for it in range(1, max_iter + 1):
        p1 = _em(a, mass)
        p2 = _em(a, p1)
        r, v = p1 - mass, p2 - 2 * p1 + mass
        step = -np.sqrt((r @ r) / (v @ v)) if v @ v > 0 else -1.0
        cand = np.clip(mass - 2 * step * r + step**2 * v, 0.0, None)
        cand = _em(a, cand / cand.sum())
        mass = cand if np.sum(np.log(a @ cand)) >= np.sum(np.log(a @ p2)) else p2
        if np.max((a / (a @ mass)[:, None]).mean(axis=0)) < 1 + tol:
            return mass, it
    raise FitError(f"Turnbull's iteration did not converge in {max_iter} steps")


def turnbull(lower, upper=None, *, tol=1e-9, max_iter=20_000):
    """Turnbull's estimate from ``(lower, upper]`` intervals (hours); see the module docstring.

    ``lower`` may also be the pair ``(lower, upper)``.  Exact times
    (``lower == upper``) are taken as ``(t - eps, t]`` with eps one part in
    10^9 of the largest finite time.  Returns a :class:`TurnbullEstimate`
    (probability mass on each interval and the survival after it).

    Examples
    --------
    >>> est = turnbull([0, 24, 24, 48, 72], [24, 48, 48, 72, float("inf")])   # failures found at daily checks
    >>> est.left_h.tolist(), est.right_h.tolist()
    ([0.0, 24.0, 48.0, 72.0], [24.0, 48.0, 72.0, inf])
    >>> est.mass.round(3).tolist(), est.survival.round(3).tolist()
    ([0.2, 0.4, 0.2, 0.2], [0.8, 0.4, 0.2, 0.0])
    """
    lo, up = interval_rows(lower if upper is None else (lower, upper))
    if lo.size == 0:
        raise EmptyDataError("turnbull needs at least one (lower, upper] interval; got none")
    scale = float(np.max(np.where(np.isfinite(up), up, lo))) or 1.0
    lo = np.where(lo == up, np.maximum(lo - 1e-9 * scale, 0.0), lo)
    q, p = _innermost(lo, up)
    if q.size == 0:
        raise FitError("no interval holds a failure: every row is censored at its lower end")
    alpha = (lo[:, None] <= q[None, :]) & (p[None, :] <= up[:, None])
    if not alpha.any(axis=1).all():
        raise FitError("some rows contain no innermost interval (check that lower < upper)")
    a = alpha.astype(float)
    mass, it = _self_consistent(a, tol, max_iter)
    keep = mass > 1e-12
    q, p, mass = q[keep], p[keep], mass[keep] / mass[keep].sum()
    ll = float(np.sum(np.log(alpha[:, keep].astype(float) @ mass)))
    return TurnbullEstimate(q, p, mass, 1 - np.cumsum(mass), lo.size, it, ll)
