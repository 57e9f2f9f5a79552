"""What swings the answer: each assumed input moved over a plausible range, the others held.

A decision's ranges (:func:`relmodel.decide`) cover the counts' noise only.
The inputs a person assumes move the answer more: the restart, the
checkpoint cost, the failure law and, for spares, the repair time.
:func:`decision_swings` moves each over a stated range and gives the ETTR at
the decision's interval rule and the node hardware MTBF to demand from the
vendor (:mod:`.vendor`) at both ends, sorted with the largest ETTR swing
first.

The ETTR at each end is the decision's ETTR shifted by what the input moves
in the exact exponential model (Daly 2006) at the job's MTBF, or, for the
failure law, by renewal-reward under the other law at the same MTBF
(:mod:`.law_requirements`); the vendor figure re-solves the job MTBF the
target needs with the same rule.  Repair time moves the spare count only
(the pool is re-sized to the same chance of finding no spare), so its row
gives the spares the plan must keep at each end.
"""

import dataclasses
import math

import numpy as np
import pandas as pd

from ...errors import InfeasibleTargetError
from ...tables import Result, count, duration, hours_text, pct
from ...units import hours
from .law_requirements import best_law_ettr, required_mean
from .vendor import _hardware_split

__all__ = ["BURSTY_SHAPE", "DecisionSwings", "WeibullGaps", "decision_swings"]

#: The Weibull shape of "bursty" job gaps tried against the exponential: logs of large jobs often fit 0.6-0.8.
BURSTY_SHAPE = 0.7
#: Plausible restart range: a warm restart to a slow reschedule (AIReSim and the Llama 3 paper bracket it).
RESTART_RANGE = ("5min", "30min")
#: Repair or return times tried for the spare pool.
REPAIR_DAYS = (1, 3, 7, 14)


@dataclasses.dataclass(frozen=True)
class WeibullGaps:
    """Times between interruptions from a Weibull of shape ``shape`` and mean ``mean_h`` (sf and mean_h)."""

    shape: float
    mean_h: float = 1.0

    def sf(self, t):
        scale = self.mean_h / math.gamma(1.0 + 1.0 / self.shape)
        return np.exp(-(np.asarray(t, dtype=float) / scale) ** self.shape)


@dataclasses.dataclass(frozen=True)
class DecisionSwings(Result):
    """One row per input: what was used, the two ends tried, ETTR and vendor node MTBF (and spares) at each end."""

    frame: pd.DataFrame
    ettr: float

    def to_frame(self):
        return self.frame.copy()

    def text(self):
        """The largest swing in a sentence."""
        f = self.frame.dropna(subset=["ettr_low", "ettr_high"])
        if not len(f):
            return "No assumed input moves the ETTR."
        top = f.iloc[0]
        return (f"The assumption that moves ETTR most is {top['input']}: {pct(top['ettr_low'])} at {top['low']} to "
                f"{pct(top['ettr_high'])} at {top['high']} (used: {top['used']}).")

    def table(self):
        """A table for a person: input, used, range tried, ETTR and vendor node MTBF at the two ends, spares."""
        f = self.frame

        def two(a, b, fmt):
            return [f"{fmt(x)} → {fmt(y)}" if x is not None and y is not None and not (
                isinstance(x, float) and math.isnan(x)) else "—" for x, y in zip(a, b)]
        return pd.DataFrame({
            "Input": f["input"], "Used": f["used"], "Range tried": [f"{a} to {b}" for a, b in zip(f["low"], f["high"])],
            "ETTR": two(f["ettr_low"], f["ettr_high"], pct),
            "Node MTBF to demand": two(f["vendor_low"], f["vendor_high"], _hours_or_out),
            "Spare nodes": two(f["spares_low"], f["spares_high"], count)})


def _hours_or_out(h):
    return "out of reach" if h is None or (isinstance(h, float) and not math.isfinite(h)) else hours_text(h)


def _vendor_at(decision, m_req):
    """The vendor's node MTBF for a job MTBF budget ``m_req`` (None when the held causes use it all)."""
    _, net, job, _, _ = _hardware_split(decision.scaled)
    room = 1.0 / m_req - net - job
    return decision.n_nodes / room if room > 0 else None


def _at(decision, d, r, law):
    """(best ETTR at the job's MTBF, vendor node MTBF) with checkpoint ``d``, restart ``r`` and ``law``."""
    m = float(decision.job_mtbf_h)
    ettr = best_law_ettr(m, law, d, r)[0]
    try:
        m_req = required_mean(decision.target_ettr, d, r, 0.0, law)
    except InfeasibleTargetError:
        return ettr, None
    return ettr, _vendor_at(decision, m_req)


def _around(used, low, high):
    """The plausible range ``(low, high)`` widened to hold the value used, and half and twice it: a measured restart
    of 47 min is tried from 5 min to 94 min, not over 5-30 min that leaves the answer's own value out."""
    return min(low, used / 2.0), max(high, 2.0 * used)


def decision_swings(decision, *, restart=RESTART_RANGE, ckpt_times=3.0, bursty_shape=BURSTY_SHAPE, spares_at=None,
                    repair_used_h=None):
    """Each assumed input of ``decision`` moved over a plausible range; a :class:`DecisionSwings`.

    Rows: restart (``restart``, two durations widened to hold half and twice the restart used, each plus the
    start-up the decision grew with the ranks), checkpoint cost (a
    ``ckpt_times``-th to ``ckpt_times`` times the value used), the failure
    law (the exponential against Weibull gaps of shape ``bursty_shape`` at the
    same MTBF, or the fitted law the decision used against the exponential)
    and, when ``spares_at`` is given (a function of a mean repair time in hours
    returning a spare count), the repair time from 1 to 14 days, widened to hold half and twice
    ``repair_used_h``, the mean the plan used.
    """
    d, r = float(decision.ckpt_cost_h), float(decision.restart_h)
    base_ettr, _ = _at(decision, d, r, None)
    shift = float(decision.ettr) - base_ettr  # the decision's answer (simulated or formula) carried along
    rows = []

    def row(name, used, low, high, a, b, spares=(None, None), carry=True):
        s = shift if carry else 0.0
        rows.append({"input": name, "used": used, "low": low, "high": high,
                     "ettr_low": min(max(a[0] + s, 0.0), 1.0), "ettr_high": min(max(b[0] + s, 0.0), 1.0),
                     "vendor_low": a[1], "vendor_high": b[1], "spares_low": spares[0], "spares_high": spares[1]})
    grow = float(getattr(decision, "restart_growth_h", 0.0) or 0.0)  # start-up grown with the ranks rides along
    r_lo, r_hi = (grow + x for x in _around(r - grow, *(float(hours(x)) for x in restart)))
    plus = f" plus {duration(grow)} of start-up" if grow > 0 else ""
    row("restart", duration(r, digits=3), duration(r_lo - grow) + plus, duration(r_hi - grow) + plus,
        _at(decision, d, r_lo, None), _at(decision, d, r_hi, None))
    k = float(ckpt_times)
    row("checkpoint cost", duration(d), duration(d / k), duration(d * k), _at(decision, d / k, r, None),
        _at(decision, d * k, r, None))
    if decision.basis == "simulation":
        exp_end = _at(decision, d, r, None)  # the exponential formula's answer, not shifted
        row("failure law", f"{decision.law} (fitted)", "exponential", f"{decision.law} (fitted)", exp_end,
            (float(decision.ettr), _vendor_at(decision, decision.required_job_mtbf_h)), carry=False)
    else:
        law = WeibullGaps(float(bursty_shape))
        row("failure law", "exponential", "exponential", f"bursty (Weibull gaps, shape {bursty_shape:g})",
            _at(decision, d, r, None), _at(decision, d, r, law))
    frame = pd.DataFrame(rows)
    frame["swing"] = (frame["ettr_high"] - frame["ettr_low"]).abs()
    frame = frame.sort_values("swing", ascending=False, kind="stable").reset_index(drop=True)
    if spares_at is not None:
        lo_h, hi_h = (24.0 * REPAIR_DAYS[0], 24.0 * REPAIR_DAYS[-1]) if repair_used_h is None else \
            _around(float(repair_used_h), 24.0 * REPAIR_DAYS[0], 24.0 * REPAIR_DAYS[-1])
        ends = [spares_at(lo_h), spares_at(hi_h)]
        used = "—" if repair_used_h is None else duration(repair_used_h)
        extra = [{"input": "repair time", "used": used, "low": duration(lo_h),
                               "high": duration(hi_h), "ettr_low": None, "ettr_high": None,
                               "vendor_low": None, "vendor_high": None, "spares_low": ends[0], "spares_high": ends[1],
                               "swing": 0.0}]
        frame = pd.DataFrame(frame.to_dict("records") + extra)
    return DecisionSwings(frame, float(decision.ettr))
