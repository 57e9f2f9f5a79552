"""A sample of durations in hours, some of them right-censored."""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ...errors import FitError

__all__ = ["Durations"]


@dataclass(frozen=True, eq=False)
class Durations:
    """Durations in hours with an observed mask.

    ``observed[i]`` is False where ``hours[i]`` is right-censored (the unit was
    still up when observation stopped).  ``entry`` holds left-truncation times
    (hours already survived when observation began), or None.  ``label`` says
    what the durations are ("interarrivals", "uptimes", "downtimes"...).
    """

    hours: np.ndarray
    observed: np.ndarray
    entry: np.ndarray | None = None
    label: str = "durations"
    groups: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        h = np.asarray(self.hours, dtype=float).ravel()
        obs = np.ones(h.shape, bool) if self.observed is None else np.asarray(self.observed, dtype=bool).ravel()
        if obs.shape != h.shape:
            raise FitError(f"observed has {obs.size} values but there are {h.size} durations")
        object.__setattr__(self, "hours", h)
        object.__setattr__(self, "observed", obs)
        if self.entry is not None:
            e = np.asarray(self.entry, dtype=float).ravel()
            if e.shape != h.shape:
                raise FitError(f"entry has {e.size} values but there are {h.size} durations")
            object.__setattr__(self, "entry", e)
        if self.groups is not None:
            object.__setattr__(self, "groups", np.asarray(self.groups).ravel())

    def __len__(self):
        return self.hours.size

    @property
    def n_observed(self):
        """Number of uncensored durations."""
        return int(self.observed.sum())

    def to_frame(self):
        """A DataFrame with ``hours`` and ``observed`` (and ``entry``, ``group`` when set)."""
        d = {"hours": self.hours, "observed": self.observed}
        if self.entry is not None:
            d["entry"] = self.entry
        if self.groups is not None:
            d["group"] = self.groups
        return pd.DataFrame(d)

    def __repr__(self):
        return f"Durations({self.label}: n={len(self)}, observed={self.n_observed})"
