"""The node MTBF a target ETTR needs when the failure law is a law of node lives, for a mature fleet and a new one.

A law fitted to a job's times between interruptions (its *gaps*) describes
that job at the size it ran at.  A law of *node lives* (each node renews:
it runs until it fails, is repaired or replaced, and starts a new life at
age 0; a node's age survives a job restart) says nothing directly about the
gaps of a job on n nodes: those are the superposition of n renewal
processes, close to Poisson for many nodes (Khinchine; Cox) whatever the
life law, once the fleet is mature.  Carrying a gap shape to another size,
or reading a life shape as a gap shape, gets the requirement wrong.

**Mature fleet** (every node at a random age of its renewal process).  At a
failure of node i the other nodes, independent of it, are in their
stationary state: each survives x more hours with the equilibrium residual
probability S_e(x) = (1/m) int_x^inf S(u) du (m the mean life, S its
survival), the failed node starts afresh, S(x).  With per-job causes
(software) at a constant rate f, a gap of the job after a failure (Palm
law) survives

    S_J(x) = e^{-f x} [ (n/m) S(x) S_e(x)^{n-1} + f S_e(x)^n ] / (n/m + f),

of mean 1 / (n/m + f).  ETTR is useful work per cycle over the cycle's
mean length (renewal-reward over the stationary sequence of gaps:
:func:`relmodel.scale.targets.law_requirements.law_ettr` with S_J).  Weibull
(shape k, scale l): S_e(x) = Q(1/k, (x/l)^k), Q the regularised upper
incomplete gamma; log-normal: S_e(x) = Phi((mu + s^2 - ln x)/s) - (x/m)
Phi((mu - ln x)/s).

**New fleet** (every node at age 0 when the run starts, as
:mod:`relmodel.scale.lifecycle` takes ``fleet="new"``).  Over a run of T
hours of service the nodes fail n M(T) times, M the renewal function
(M = F + M * F, solved on a grid), not n T / m: a decreasing hazard (Weibull
shape below 1) front-loads failures.  The job's failure rate at service
time t is n M'(t) + f, and many nodes fail as a Poisson process of that
rate (Grigelionis); ETTR over the run is useful work over wall time, each
stretch of the run at the exact exponential ETTR of its rate, at the one
checkpoint interval best over the whole run.  Downtime that no failure can
strike (a RestartModel's) is wall time, not service: the nodes do not age
during it.
"""

import dataclasses
import math

import numpy as np
from scipy import optimize, special

from ...errors import InfeasibleTargetError, ModelInputError
from .law_requirements import best_law_ettr, law_ettr

__all__ = ["life_of", "equilibrium_sf", "renewal_function", "mature_ettr", "new_fleet_ettr", "node_mtbf_for",
           "LIFE_FAMILIES", "LAW_OF", "check_law_of", "law_words", "family_shape", "NodeLife"]

LIFE_FAMILIES = ("exponential", "weibull", "lognormal")


@dataclasses.dataclass(frozen=True)
class NodeLife:
    """A life law of mean ``mean_h``: ``law`` one of :data:`LIFE_FAMILIES`, ``shape`` the Weibull k or the
    log-normal sigma; :class:`relmodel.scale.lifecycle.lives.Life`, a layer above, adds the draws a simulation needs."""

    mean_h: float
    law: str = "exponential"
    shape: float = 1.0

    @property
    def scale(self):
        """The Weibull scale (hours), or the log-normal mu, or the exponential mean."""
        if self.law == "weibull":
            return self.mean_h / math.gamma(1.0 + 1.0 / self.shape)
        if self.law == "lognormal":
            return math.log(self.mean_h) - 0.5 * self.shape ** 2
        return self.mean_h


def life_of(law, mean_h=None):
    """A :class:`NodeLife` from a fitted law (``relmodel.fit``) or a life (``law``, ``shape``, ``mean_h``).

    ``mean_h`` rescales it to that mean, its shape kept.
    """
    if getattr(law, "law", None) in LIFE_FAMILIES and hasattr(law, "shape"):
        family, shape, mean = law.law, float(law.shape), float(law.mean_h)
    else:
        family = getattr(law, "family", None)
        params = getattr(law, "params", {}) or {}
        mean = getattr(law, "mean_h", None)
        if family not in LIFE_FAMILIES or mean is None:
            raise ModelInputError(f"a law of node lives must be an exponential, Weibull or log-normal fitted law "
                                  f"(relmodel.fit(lives, 'weibull')) or a lifecycle Life; got {law!r}")
        shape = float(params.get("shape", params.get("sigma", 1.0))) if family != "exponential" else 1.0
    if not (shape > 0 and math.isfinite(shape)):
        raise ModelInputError(f"the life law's shape must be a positive number; got {shape!r}")
    return NodeLife(float(mean if mean_h is None else mean_h), family, shape)


def _sf(life, x):
    x = np.asarray(x, dtype=float)
    if life.law == "weibull":
        return np.exp(-(x / life.scale) ** life.shape)
    if life.law == "lognormal":
        with np.errstate(divide="ignore"):
            return special.ndtr(-(np.log(x) - life.scale) / life.shape)
    return np.exp(-x / life.mean_h)


def equilibrium_sf(life, x):
    """Chance a node at a random age of its renewal process survives ``x`` more hours: (1/m) int_x^inf S."""
    x = np.asarray(x, dtype=float)
    if life.law == "weibull":
        return special.gammaincc(1.0 / life.shape, (x / life.scale) ** life.shape)
    if life.law == "lognormal":
        mu, s = life.scale, life.shape
        with np.errstate(divide="ignore"):
            lx = np.log(x)
            return special.ndtr((mu + s * s - lx) / s) - x / life.mean_h * special.ndtr((mu - lx) / s)
    return np.exp(-x / life.mean_h)


class _PalmGaps:
    """The law of a mature job's gaps after a failure (module notes): ``sf`` and ``mean_h``."""

    def __init__(self, life, n_nodes, fixed_rate):
        self.life, self.n, self.f = life, int(n_nodes), float(fixed_rate)
        self.node_rate = self.n / life.mean_h
        self.mean_h = 1.0 / (self.node_rate + self.f)

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        se = equilibrium_sf(self.life, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            others = np.where(se > 0, se ** (self.n - 1), 0.0)
        mix = self.node_rate * _sf(self.life, x) + self.f * se
        return np.exp(-self.f * x) * others * mix * self.mean_h


def mature_ettr(node_mean_h, life, n_nodes, fixed_rate, ckpt_h, reload_h, downtime_h=0.0):
    """(best ETTR, its interval) of a job on ``n_nodes`` nodes of a mature fleet with node lives ``life``."""
    gaps = _PalmGaps(life_of(life, node_mean_h), n_nodes, fixed_rate)
    return best_law_ettr(gaps.mean_h, gaps, ckpt_h, reload_h, downtime_h)


def renewal_function(life, t_end, steps=2000):
    """(grid of service hours, M on it): expected renewals of one node from age 0 (M = F + M * F)."""
    t = np.linspace(0.0, float(t_end), int(steps) + 1)
    F = 1.0 - _sf(life, t)
    dF = np.diff(F)
    M = np.zeros_like(t)
    for i in range(1, t.size):
        M[i] = F[i] + np.dot(M[i - 1::-1], dF[:i])
    return t, M


def _new_rates(life, n_nodes, fixed_rate, run_h, steps):
    t, M = renewal_function(life, run_h, steps)
    return n_nodes * np.diff(M) / np.diff(t) + fixed_rate, float(t[1] - t[0])


def _run_ettr(tau, rates, cell, ckpt_h, reload_h, downtime_h):
    """Useful work over wall time when service stretch i of ``cell`` hours fails at ``rates[i]``."""
    m = 1.0 / rates
    e = law_ettr_vec(tau, m, ckpt_h, reload_h, downtime_h)
    wall = cell * (downtime_h + m) / m                   # wall time of a stretch: its service plus its downtimes
    return float(np.sum(e * wall) / np.sum(wall))


def law_ettr_vec(tau, mean_h, ckpt_h, reload_h, downtime_h=0.0):
    """Exact exponential ETTR at interval ``tau`` for an array of job MTBFs (law_ettr's exponential branch)."""
    m = np.asarray(mean_h, dtype=float)
    return tau * np.exp(-reload_h / m) / ((downtime_h + m) * np.expm1((tau + ckpt_h) / m))


def new_fleet_ettr(node_mean_h, life, n_nodes, fixed_rate, ckpt_h, reload_h, downtime_h=0.0, *, run_h, steps=2000):
    """(ETTR over the run, the one best interval) of a job on ``n_nodes`` new nodes over ``run_h`` of service."""
    rates, cell = _new_rates(life_of(life, node_mean_h), int(n_nodes), float(fixed_rate), float(run_h), steps)
    mean_rate = float(np.mean(rates))
    guess = math.sqrt(2.0 * ckpt_h / mean_rate) if ckpt_h > 0 else 0.01 / mean_rate

    def loss(log_tau):
        return -_run_ettr(math.exp(log_tau), rates, cell, ckpt_h, reload_h, downtime_h)
    res = optimize.minimize_scalar(loss, bounds=(math.log(guess) - 4.0, math.log(guess) + 4.0), method="bounded",
                                   options={"xatol": 1e-7})
    return -float(res.fun), math.exp(float(res.x))


def node_mtbf_for(target, life, n_nodes, fixed_rate, ckpt_h, reload_h, downtime_h=0.0, *, fleet="mature",
                  run_h=None):
    """(node mean life in hours whose best ETTR equals ``target``, the interval there) for one fleet."""
    if fleet not in ("mature", "new"):
        raise ModelInputError(f"fleet must be 'mature' (nodes at random ages of their lives) or 'new' (every node "
                              f"at age 0 when the run starts); got {fleet!r}")
    if fleet == "new" and not (run_h is not None and float(run_h) > 0 and math.isfinite(float(run_h))):
        raise ModelInputError(f"a new fleet's requirement depends on the run's length: give run= (a duration of "
                              f"service, e.g. '54d'); got {run_h!r}")
    t, n, f = float(target), int(n_nodes), float(fixed_rate)
    if f > 0 and law_ettr(best_law_ettr(1.0 / f, None, ckpt_h, reload_h, downtime_h)[1], 1.0 / f, None, ckpt_h,
                          reload_h, downtime_h) <= t:
        raise InfeasibleTargetError(
            f"an ETTR of {100 * t:.3g}% is out of reach at {n:,} nodes: the per-job causes alone "
            f"({24 * f:,.3g} a day) cap it below the target however long the node lives; lower the target, or cut "
            f"restart time, checkpoint cost or software failures")

    def at(m):
        if fleet == "mature":
            return mature_ettr(m, life, n, f, ckpt_h, reload_h, downtime_h)
        return new_fleet_ettr(m, life, n, f, ckpt_h, reload_h, downtime_h, run_h=float(run_h))
    lo = math.log(max(n * max(ckpt_h + reload_h, 1e-3) * 2.0, 1e-6))   # a job MTBF of twice the costs
    hi = lo + 3.0
    while at(math.exp(lo))[0] > t:
        lo -= 3.0
    while at(math.exp(hi))[0] < t:
        hi += 3.0
        if hi > 60:
            raise InfeasibleTargetError(f"target_ettr {t:g} needs a node mean life beyond e^60 h")
    root = optimize.brentq(lambda x: at(math.exp(x))[0] - t, lo, hi, xtol=1e-9, rtol=1e-12)
    m = math.exp(root)
    return m, at(m)[1]


#: What a failure law's shape describes.
LAW_OF = ("node lives", "job gaps")


def check_law_of(law, law_of):
    """``law_of`` checked: required with a law (its shape is never carried to another size unexamined)."""
    if law is None:
        return None
    if law_of not in LAW_OF:
        raise ModelInputError(
            f"say what the law's shape describes with law_of='node lives' (each node's time between its own "
            f"failures: the job's gaps are then the superposition of its nodes, near Poisson for many nodes) or "
            f"law_of='job gaps' (the times between one job's interruptions at the size it was fitted at); "
            f"got {law_of!r}")
    return law_of


def family_shape(law):
    """(family in words, shape or None) of a fitted law or a life."""
    fam = getattr(law, "family", None) or getattr(law, "law", None) or "fitted"
    params = getattr(law, "params", None) or {}
    shape = params.get("shape", params.get("sigma", getattr(law, "shape", None)))
    name = {"weibull": "Weibull", "lognormal": "log-normal", "gamma": "gamma"}.get(fam, fam)
    return name, (None if shape is None or fam == "exponential" else float(shape))


def law_words(law, law_of, n_gpus, fitted_gpus=None):
    """One sentence: the law, whose shape it is, and what was done with it at ``n_gpus``; "" without a law."""
    if law is None:
        return ""
    name, shape = family_shape(law)
    what = f"{name} law" + (f" of shape {shape:.3g}" if shape is not None else "")
    if law_of == "node lives":
        return (f"{what} of node lives: the job's gaps at {int(n_gpus):,} GPUs are its nodes' failures "
                f"superposed (each node renewing, its age kept across restarts), not that shape.")
    where = (f" observed at {int(fitted_gpus):,} GPUs" if fitted_gpus else "")
    carried = (f", carried to {int(n_gpus):,} GPUs as it is: were the shape one of node lives, the superposed "
               f"gaps of more nodes would be closer to Poisson (node_life_requirement)"
               if fitted_gpus and int(fitted_gpus) != int(n_gpus) else "")
    return f"{what} of the job's times between interruptions{where}{carried}."
