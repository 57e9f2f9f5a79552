"""Repair times: a mean, a sample resampled as observed, or a fitted law (hours).

:func:`repair_model` builds the model the spare and design functions take
for ``repair``; a bare duration stands for exponential repairs of that mean.
"""

import dataclasses

import numpy as np
import pandas as pd

from ...errors import ModelInputError, RelmodelError
from ...tables import Result, duration
from ...units import hours

__all__ = ["EmpiricalRepair", "repair_model"]


def _mean_repair(repair):
    mean = getattr(repair, "mean_h", None)
    try:
        value = float(hours(repair)) if mean is None else float(mean)
    except (TypeError, ValueError) as err:
        if isinstance(err, RelmodelError):
            raise
        raise ModelInputError(f"the repair time is a duration (such as '3d' or hours) or a repair law with "
                              f"mean_h; got {repair!r:.80}") from None
    if not (value > 0 and np.isfinite(value)):
        raise ModelInputError(f"mean repair time must be positive, finite hours; got {repair!r}")
    return value


@dataclasses.dataclass(frozen=True)
class EmpiricalRepair(Result):
    """Repair times resampled from observed ones (hours)."""

    hours: np.ndarray

    @property
    def mean_h(self):
        return float(np.mean(self.hours))

    def sample(self, n, rng=None):
        return np.random.default_rng(rng).choice(self.hours, size=int(n), replace=True)

    def to_frame(self):
        q = np.quantile(self.hours, [0.5, 0.9, 0.99])
        return pd.DataFrame({"n": [self.hours.size], "mean_h": [self.mean_h], "median_h": [q[0]],
                             "p90_h": [q[1]], "p99_h": [q[2]]})

    def text(self):
        return f"Empirical repair times: {self.hours.size:,} repairs, mean {duration(self.mean_h)}."


def repair_model(source, family="weibull"):
    """A repair-time model from a log's downtimes, a Durations or an array of hours.

    ``family`` is ``"empirical"`` (resample what was seen) or any family of
    :func:`relmodel.stats.lifetimes.fitting.fit` (``"lognormal"``, ``"weibull"``,
    ``"exponential"``, ``"gamma"``, ``"loglogistic"``); the fit handles
    censored repairs and zero durations as that module documents.  Check the
    fitted mean against the data: StepFun's repairs (median about 20 h, mean
    about 133 h) are heavy-tailed, and a log-normal fit puts the mean near
    765 h while the Weibull (shape about 0.42) keeps it near 129 h.

    Durations are in hours.

    Examples
    --------
    >>> m = repair_model([10.0, 20.0, 30.0], "empirical")     # repair hours
    >>> m.mean_h
    20.0
    """
    data = source.downtimes() if hasattr(source, "downtimes") else source
    if family == "empirical":
        h = np.asarray(getattr(data, "hours", None) if hasattr(data, "hours") else hours(data), dtype=float)
        h = h[np.isfinite(h) & (h >= 0)]
        if h.size == 0 or not h.sum() > 0:
            raise ModelInputError("empirical repair model needs some positive repair times")
        return EmpiricalRepair(h)
    from ...stats.lifetimes.fitting import fit
    return fit(data, family)


def _draw_repairs(repair, n, rng):
    if hasattr(repair, "sample"):
        x = np.asarray(repair.sample(n, rng), dtype=float)
        bad = ~(np.isfinite(x) & (x >= 0))
        if bad.any():
            raise ModelInputError(f"the repair law {type(repair).__name__} drew {int(bad.sum()):,} repair times that "
                                  f"are negative or not finite (first: {float(x[bad][0])!r}); a repair law must draw "
                                  "hours of 0 or more")
        return x
    return rng.exponential(_mean_repair(repair), size=n)
