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
    """Restart phases (durations through :func:`relmodel.hours`) and their odds.

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
    _repair_h: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("detection", "diagnosis", "reload", "spare_swap"):
            v = _nonneg(name, getattr(self, name))
            if np.ndim(v):
                raise ModelInputError(f"{name} must be one duration; got {getattr(self, name)!r}")
            object.__setattr__(self, name, float(v))
        object.__setattr__(self, "_repair_h", np.atleast_1d(np.asarray(_nonneg("repair", self.repair), float)))
        object.__setattr__(self, "hardware_fraction", _prob("hardware_fraction", self.hardware_fraction))
        object.__setattr__(self, "spare_probability", _prob("spare_probability", self.spare_probability))

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
        return self.detection + self.diagnosis + extra

    def scenarios(self):
        """Scenarios with their probability and mean restart hours."""
        hw, sp = self.hardware_fraction, self.spare_probability
        b = self.base_h
        return pd.DataFrame({
            "scenario": ["no replacement", "hot spare", "wait for repair"],
            "probability": [1 - hw, hw * sp, hw * (1 - sp)],
            "hours": [b, b + self.spare_swap, b + float(self._repair_h.mean())],
        })

    @property
    def mean_h(self):
        """Expected restart time in hours."""
        s = self.scenarios()
        return float((s["probability"] * s["hours"]).sum())

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
        df = pd.DataFrame(rows, columns=["phase", "hours"])
        total = df["hours"].sum()
        df["share"] = df["hours"] / total if total > 0 else 0.0
        return pd.concat([df, pd.DataFrame([{"phase": "total", "hours": total, "share": 1.0}])],
                         ignore_index=True)

    def _repr_html_(self):
        return (f"<b>Restart</b>: mean {self.mean_h * 60:.3g} min" + html_table(self.to_frame())
                + html_table(self.scenarios()))
