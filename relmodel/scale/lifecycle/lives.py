"""Node lives that keep their age: exponential, Weibull and log-normal laws matched to a mean.

A node's life is measured in hours of service (time running the job). A
:class:`Life` draws whole lives from age 0 (a new or repaired node), lives
and ages of a *mature* fleet (each node at an age drawn from the renewal
process's equilibrium), and the rest of a life given the age a node has
already reached (a node that failed and was not repaired, or that rejoins a
job). The mean of every law is ``mean_h``; a bad node runs its clock
``multiplier`` times faster (an accelerated life: its mean life is
``mean_h / multiplier`` whatever the law).

Equilibrium ages: a node picked at a random time of a long renewal process is
in a life drawn length-biased (density x f(x) / mean) and has lived a uniform
share of it. The length-biased Weibull(k, scale) is ``scale * G**(1/k)`` with
G ~ Gamma(1 + 1/k); the length-biased log-normal(mu, sigma) is log-normal
(mu + sigma^2, sigma); the exponential is its own.
"""

import dataclasses
import math

import numpy as np
from scipy import special

from ...errors import ModelInputError
from ..targets.node_lives import LIFE_FAMILIES, NodeLife

__all__ = ["LAWS", "Life", "life_law"]

LAWS = LIFE_FAMILIES


@dataclasses.dataclass(frozen=True)
class Life(NodeLife):
    """A life law with mean ``mean_h`` hours: ``law`` is one of :data:`LAWS`; ``shape`` is the
    Weibull shape k or the log-normal sigma (ignored for the exponential).  The law and its ``scale`` are
    :class:`~relmodel.scale.targets.node_lives.NodeLife`'s; this adds the draws the simulation needs."""

    def draw(self, n, rng):
        """``n`` whole lives (hours of service) from age 0."""
        if self.law == "weibull":
            return self.scale * rng.weibull(self.shape, size=n)
        if self.law == "lognormal":
            return np.exp(self.scale + self.shape * rng.standard_normal(n))
        return rng.exponential(self.mean_h, size=n)

    def mature(self, n, rng):
        """(lives, ages) of ``n`` nodes of a fleet that has run long enough to forget its start."""
        if self.law == "weibull":
            k = self.shape
            life = self.scale * rng.gamma(1.0 + 1.0 / k, size=n) ** (1.0 / k)
        elif self.law == "lognormal":
            life = np.exp(self.scale + self.shape ** 2 + self.shape * rng.standard_normal(n))
        else:
            life = rng.gamma(2.0, self.mean_h, size=n)
        return life, rng.random(n) * life

    def given_age(self, age, u):
        """The whole life of a node known to have reached ``age``, from a uniform ``u`` in (0, 1)."""
        u = min(max(u, 1e-300), 1.0)
        if self.law == "weibull":
            lam, k = self.scale, self.shape
            return lam * ((age / lam) ** k - math.log(u)) ** (1.0 / k)
        if self.law == "lognormal":
            if age <= 0:
                return math.exp(self.scale + self.shape * float(special.ndtri(1.0 - u)))
            tail = float(special.ndtr(-(math.log(age) - self.scale) / self.shape)) * u  # P(L > x) wanted
            if tail <= 0:
                return age
            return max(age, math.exp(self.scale - self.shape * float(special.ndtri(tail))))
        return age - self.mean_h * math.log(u)

    def describe(self):
        """``"Weibull lives (shape 0.7)"`` and the like."""
        if self.law == "weibull":
            return f"Weibull lives (shape {self.shape:g})"
        if self.law == "lognormal":
            return f"log-normal lives (sigma {self.shape:g})"
        return "exponential lives"


def life_law(mean_h, law="exponential", shape=None):
    """A checked :class:`Life`: ``law`` one of :data:`LAWS`, ``shape`` > 0 for Weibull and log-normal.

    Examples
    --------
    >>> round(life_law(1000.0, "weibull", 2.0).scale, 1)       # scale of a mean-1,000 h Weibull, shape 2
    1128.4
    """
    if law not in LAWS:
        raise ModelInputError(f"law must be one of {', '.join(LAWS)}; got {law!r}")
    mean_h = float(mean_h)
    if not (mean_h > 0 and math.isfinite(mean_h)):
        raise ModelInputError(f"a node's mean life must be positive, finite hours; got {mean_h!r}")
    if law == "exponential":
        return Life(mean_h)
    default = 1.0
    s = default if shape is None else shape
    try:
        s = float(s)
    except (TypeError, ValueError):
        s = float("nan")
    if isinstance(shape, bool) or not (s > 0 and math.isfinite(s)) or (law == "weibull" and s < 0.05):
        raise ModelInputError(f"shape of the {law} law must be a positive number (Weibull at least 0.05); "
                              f"got {shape!r}")
    return Life(mean_h, law, s)
