"""Risk sets of censored, left-truncated lifetimes, counted as R's ``survfit`` counts them.

Shared by the nonparametric estimators and the proportional-hazards test.
"""

import numpy as np

__all__ = ["risk_table"]


def risk_table(stop, observed, entry=None):
    """Event table as R's ``survfit`` counts it: times 0 and each distinct stop time,
    units at risk (a unit with entry time e is at risk on (e, stop]) and failures.

    At time 0 the count is the units under observation from the start (entry 0).
    """
    stop = np.asarray(stop, float)
    obs = np.asarray(observed, bool)
    times = np.unique(np.concatenate([[0.0], stop]))
    ends = np.sort(stop)
    at_risk = stop.size - np.searchsorted(ends, times, side="left")
    if entry is not None:
        entry = np.asarray(entry, float)
        at_risk = at_risk - (stop.size - np.searchsorted(np.sort(entry), times, side="left"))
        at_risk[0] = int(np.sum((entry <= 0) & (stop >= 0)))
    events = np.bincount(np.searchsorted(times, stop[obs]), minlength=times.size)
    return times, at_risk.astype(int), events.astype(int)
