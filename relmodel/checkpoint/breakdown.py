"""The expected hours of a run by where they go (:func:`relmodel.checkpoint.time_breakdown`)."""

from dataclasses import dataclass

import numpy as np

from ..tables import Result, duration, number

__all__ = ["TimeBreakdown"]


@dataclass(frozen=True)
class TimeBreakdown(Result):
    """Expected hours of a run by destination (scalars or broadcast arrays).

    ``work_h`` is the useful compute; ``wall_h`` = work + checkpoint + lost +
    restart.  ``failures`` is the expected number of failures (wall / M).
    """

    work_h: object
    interval_h: object
    mtbf_h: object
    ckpt_cost_h: object
    restart_h: object
    wall_h: object
    checkpoint_h: object
    lost_h: object
    restart_time_h: object
    failures: object
    detection_h: object = 0.0
    p_unrecoverable: float = 0.0

    @property
    def ettr(self):
        """Useful fraction of the wall time (same as :func:`ettr`)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(np.isinf(self.wall_h), 0.0, self.work_h / self.wall_h)[()]

    def to_frame(self):
        """One row per destination (scalar inputs) or per grid point (arrays)."""
        import pandas as pd
        names = ["useful", "checkpoint writes", "lost work", "restarts"]
        vals = [self.work_h, self.checkpoint_h, self.lost_h, self.restart_time_h]
        if np.any(np.asarray(self.detection_h) != 0) and np.ndim(self.wall_h) == 0:
            names, vals = names + ["until failures are noticed"], vals + [self.detection_h]
        if np.ndim(self.wall_h) == 0:
            hrs = [float(v) for v in vals] + [float(self.wall_h)]
            if np.isfinite(hrs[-1]):
                share = [h / hrs[-1] for h in hrs]
            else:  # overflow: shares are the limits as (τ + δ)/M grows without bound
                f = float(np.exp(-self.restart_h / self.mtbf_h))
                share = [0.0, 0.0, f, 1.0 - f] + [0.0] * (len(names) - 4) + [1.0]
            return pd.DataFrame({"part": names + ["total"], "hours": hrs, "share": share})
        cols = ["interval_h", "mtbf_h", "ckpt_cost_h", "restart_h", "work_h", "checkpoint_h",
                "lost_h", "restart_time_h", "wall_h", "failures"]
        df = pd.DataFrame({c: np.ravel(np.broadcast_to(getattr(self, c), np.shape(self.wall_h)))
                           for c in cols})
        df["ettr"] = np.ravel(self.ettr)
        return df

    def text(self):
        """The expected run in a sentence."""
        return (f"Expected run: checkpoint every {duration(self.interval_h)}, MTBF {duration(self.mtbf_h)}, "
                f"checkpoint cost {duration(self.ckpt_cost_h)}, restart {duration(self.restart_h)}; "
                f"ETTR {number(self.ettr, 4)}.")
