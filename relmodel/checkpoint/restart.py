"""Restart time broken into its phases.

After a failure the job must detect it, diagnose it (which node, which
part), replace the node when the failure is in hardware (with a hot spare,
or by waiting for a repair when no spare is ready), and reload the last
checkpoint.  :class:`RestartModel` turns these phases into three scenarios:

* software or transient failure: detection + diagnosis + reload;
* hardware failure, hot spare ready: ... + spare swap;
* hardware failure, no spare: ... + repair wait (a duration, or a sample of
  repair times such as ``log.downtimes().hours``, used as its empirical
  distribution).

**Using it in the checkpoint models.**  While the job is down (detection,
diagnosis, node replacement: the downtime D) it is not running, so a
further failure does not change anything; once it reloads (R_l) it runs on
every node again and a failure during the reload is a new failure, with its
own downtime.  This is the downtime/recovery split of Hérault and Robert
("Fault-Tolerance Techniques for High-Performance Computing", Springer
2015).  With exponential failures (T ~ Exp(M)) each restart attempt costs
D + min(T, R_l) and succeeds with probability e^{-R_l/M}, so a restart takes

    (E[D] + M (1 - e^{-R_l/M})) e^{R_l/M} = E[D] e^{R_l/M} + M (e^{R_l/M} - 1)

on average.  Daly's model (2006) has one restart R fully exposed to
failures, costing M (e^{R/M} - 1); the two agree exactly when

    R_eff = R_l + M ln(1 + E[D]/M),

so ``ettr(τ, M, δ, model.effective_h(M))`` is exact for this restart.
R_eff <= E[D] + R_l: the downtime is cheaper than the same time spent
reloading, because no failure can lengthen it.  Only the mean downtime
matters, so a sample of repair times enters through its mean.

**Terms that grow with the job.**  Scheduling, communicator (NCCL)
initialisation and health checks grow with the number of ranks N; the
model adds ``per_doubling`` x log2 N + ``per_1k_ranks`` x N / 1,000 to the
downtime (tree-shaped set-up grows with log N, one-by-one checks with N).
Both default to 0 (no public per-rank figures are bundled; fit them with
:func:`relmodel.checkpoint.costs.fit_growth`).  ``n_gpus`` is the size the
model describes; functions that know the cluster evaluate it at theirs
(:meth:`RestartModel.hours_at`).
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import ModelInputError
from ..units import hours
from ..tables import html_table

__all__ = ["RestartModel"]


def _nonneg(name, x):
    v = hours(x)
    a = np.atleast_1d(np.asarray(v, dtype=float))
    if a.size == 0 or np.any(~np.isfinite(a)) or np.any(a < 0):
        raise ModelInputError(f"{name} must be a finite duration of zero or more (or a sample of them); got {x!r}")
    return v


def _prob(name, x):
    if not (isinstance(x, (int, float, np.floating)) and 0 <= x <= 1):
        raise ModelInputError(f"{name} must be a probability between 0 and 1; got {x!r}")
    return float(x)


@dataclass(frozen=True)
class RestartModel:
    """Restart phases (durations through :func:`relmodel.units.hours`) and their odds.

    ``hardware_fraction`` is the share of failures that need a node
    replaced; ``spare_probability`` the chance a hot spare is ready when one
    is needed.  ``repair`` may be one duration or a sample of repair times.
    """

    detection: object = 0.0
    diagnosis: object = 0.0
    reload: object = 0.0
    spare_swap: object = 0.0
    repair: object = 0.0
    hardware_fraction: float = 1.0
    spare_probability: float = 1.0
    per_doubling: object = 0.0
    per_1k_ranks: object = 0.0
    n_gpus: int = None
    _repair_h: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("detection", "diagnosis", "reload", "spare_swap", "per_doubling", "per_1k_ranks"):
            v = _nonneg(name, getattr(self, name))
            if np.ndim(v):
                raise ModelInputError(f"{name} must be one duration; got {getattr(self, name)!r}")
            object.__setattr__(self, name, float(v))
        object.__setattr__(self, "_repair_h", np.atleast_1d(np.asarray(_nonneg("repair", self.repair), float)))
        object.__setattr__(self, "hardware_fraction", _prob("hardware_fraction", self.hardware_fraction))
        object.__setattr__(self, "spare_probability", _prob("spare_probability", self.spare_probability))
        if self.n_gpus is not None and (isinstance(self.n_gpus, bool) or not float(self.n_gpus) >= 1):
            raise ModelInputError(f"n_gpus must be a whole number of GPUs >= 1; got {self.n_gpus!r}")

    def growth_h(self, n_gpus=None):
        """Hours of start-up that grow with the ranks: per_doubling x log2 N + per_1k_ranks x N / 1,000."""
        if not (self.per_doubling or self.per_1k_ranks):
            return 0.0
        n = self.n_gpus if n_gpus is None else n_gpus
        if n is None or isinstance(n, bool) or not float(n) >= 1:
            raise ModelInputError(f"a restart that grows with the ranks needs the job's size: build it with "
                                  f"n_gpus=..., or pass it where the cluster is known; got {n!r}")
        return float(self.per_doubling * np.log2(float(n)) + self.per_1k_ranks * float(n) / 1000.0)

    def hours_at(self, n_gpus=None):
        """Mean restart in hours for a job of ``n_gpus`` GPUs (default the model's ``n_gpus``)."""
        return self._scenario_mean() + self.growth_h(n_gpus)

    def describe(self, n_gpus=None):
        """One phrase: the mean restart at that size and how much of it grows with the ranks."""
        n = self.n_gpus if n_gpus is None else n_gpus
        grow = self.growth_h(n)
        at = f" at {int(n):,} GPUs" if n is not None else ""
        extra = f", {60 * grow:,.3g} min of it growing with the ranks" if grow else ""
        return f"{60 * self.hours_at(n):,.3g} min{at} (restart model{extra})"

    @property
    def base_h(self):
        """Time every restart takes: detection + diagnosis + reload."""
        return self.detection + self.diagnosis + self.reload

    def sample_downtime(self, n, rng=None):
        """``n`` random downtimes (hours), one scenario drawn per restart."""
        rng = np.random.default_rng(rng)
        hw, sp = self.hardware_fraction, self.spare_probability
        u = rng.random(n)
        extra = np.where(u < hw * sp, self.spare_swap, 0.0)
        wait = u >= 1 - hw * (1 - sp)
        extra[wait] = rng.choice(self._repair_h, size=int(wait.sum()))
        grow = self.growth_h() if self.n_gpus is not None else 0.0
        return self.detection + self.diagnosis + grow + extra

    def scenarios(self):
        """Scenarios with their probability and mean restart hours."""
        hw, sp = self.hardware_fraction, self.spare_probability
        b = self.base_h + (self.growth_h() if self.n_gpus is not None else 0.0)
        return pd.DataFrame({
            "scenario": ["no replacement", "hot spare", "wait for repair"],
            "probability": [1 - hw, hw * sp, hw * (1 - sp)],
            "hours": [b, b + self.spare_swap, b + float(self._repair_h.mean())],
        })

    def _scenario_mean(self):
        hw, sp = self.hardware_fraction, self.spare_probability
        return self.base_h + hw * sp * self.spare_swap + hw * (1 - sp) * float(self._repair_h.mean())

    @property
    def mean_h(self):
        """Expected restart time in hours (with the terms that grow with the ranks at ``n_gpus``, when given)."""
        return self._scenario_mean() + (self.growth_h() if self.n_gpus is not None else 0.0)

    @property
    def downtime_h(self):
        """Mean time the job is down before it reloads: detection + diagnosis + replacement."""
        return self.mean_h - self.reload

    def effective_h(self, mtbf):
        """Fixed restart giving the same ETTR in Daly's model: R_l + M ln(1 + E[D]/M) (module docstring)."""
        m = hours(mtbf)
        if np.ndim(m) or not np.isfinite(m) or m <= 0:
            raise ModelInputError(f"mtbf must be one positive, finite duration; got {mtbf!r}")
        return float(self.reload + m * np.log1p(self.downtime_h / m))

    def to_frame(self):
        """Expected hours per phase, over all failures, and their share of the mean restart."""
        hw, sp = self.hardware_fraction, self.spare_probability
        rows = [("detection", self.detection), ("diagnosis", self.diagnosis),
                ("node replacement: hot spare", hw * sp * self.spare_swap),
                ("node replacement: wait for repair", hw * (1 - sp) * float(self._repair_h.mean())),
                ("reload", self.reload)]
        if self.n_gpus is not None and self.growth_h():
            rows.insert(2, ("start-up that grows with the ranks", self.growth_h()))
        df = pd.DataFrame(rows, columns=["phase", "hours"])
        total = df["hours"].sum()
        df["share"] = df["hours"] / total if total > 0 else 0.0
        return pd.concat([df, pd.DataFrame([{"phase": "total", "hours": total, "share": 1.0}])],
                         ignore_index=True)

    def _repr_html_(self):
        return (f"<b>Restart</b>: mean {self.mean_h * 60:.3g} min" + html_table(self.to_frame())
                + html_table(self.scenarios()))
