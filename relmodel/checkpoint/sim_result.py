"""Result of :func:`relmodel.simulate_training`."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binom, norm
from ..tables import Result, duration, html_table, interval, number, pct, people_table

__all__ = ["SimulationResult"]


@dataclass(frozen=True)
class SimulationResult(Result):
    """Simulated runs of a checkpointed job: one entry per replica.

    ``checkpoint_h`` (successful checkpoint writes) is the same for every
    replica; ``lost_h`` (re-done compute and interrupted writes),
    ``restart_time_h`` (restarts, including interrupted ones) and
    ``failures`` are arrays.  The ETTR of the model is work / mean wall time
    (the ratio Daly's formula gives), with a confidence interval from the
    normal approximation to the mean wall time; ``ettr_per_replica`` is the
    distribution of work / wall over replicas.
    """

    work_h: float
    interval_h: float
    ckpt_cost_h: float
    restart_h: float
    source: str
    mtbf_h: float
    checkpoint_h: float
    lost_h: np.ndarray
    restart_time_h: np.ndarray
    failures: np.ndarray

    @property
    def n_runs(self):
        """Number of simulated runs."""
        return int(np.size(self.lost_h))

    @property
    def wall_h(self):
        """Wall-clock hours of each replica."""
        return self.work_h + self.checkpoint_h + self.lost_h + self.restart_time_h

    @property
    def ettr(self):
        """Work / mean wall time."""
        return self.work_h / float(np.mean(self.wall_h))

    def ettr_ci(self, conf=0.99):
        """Two-sided confidence interval of :attr:`ettr` (normal approximation)."""
        w = self.wall_h
        z = norm.ppf(0.5 + conf / 2)
        se = np.std(w, ddof=1) / np.sqrt(w.size)
        m = np.mean(w)
        return self.work_h / (m + z * se), self.work_h / max(m - z * se, 1e-300)

    @property
    def ettr_per_replica(self):
        return self.work_h / self.wall_h

    def wall_quantiles(self, q=(0.05, 0.5, 0.95), conf=0.99):
        """Quantiles of the wall time (hours) with distribution-free confidence intervals.

        The interval for quantile q runs between the order statistics whose
        ranks are the binomial(n, q) quantiles at (1 - conf)/2 and (1 + conf)/2.
        """
        w = np.sort(self.wall_h)
        n = w.size
        qs = np.asarray(q, dtype=float)
        a = (1 - conf) / 2
        lo = np.clip(binom.ppf(a, n, qs).astype(int) - 1, 0, n - 1)
        hi = np.clip(binom.ppf(1 - a, n, qs).astype(int), 0, n - 1)
        return pd.DataFrame({"q": qs, "wall_h": np.quantile(w, qs), "lo": w[lo], "hi": w[hi]})

    def breakdown(self, conf=0.99):
        """Mean hours per destination with a confidence interval, and the share of wall time."""
        z = norm.ppf(0.5 + conf / 2)
        n = self.n_runs
        parts = {"useful": np.full(n, self.work_h), "checkpoint writes": np.full(n, self.checkpoint_h),
                 "lost work": self.lost_h, "restarts": self.restart_time_h, "total": self.wall_h}
        mean_wall = float(np.mean(self.wall_h))
        rows = []
        for name, v in parts.items():
            m, se = float(np.mean(v)), float(np.std(v, ddof=1) / np.sqrt(n))
            rows.append((name, m, m - z * se, m + z * se, m / mean_wall))
        return pd.DataFrame(rows, columns=["part", "hours", "lo", "hi", "share"])

    def to_frame(self):
        """One row per replica: wall time, breakdown, failures and ETTR."""
        return pd.DataFrame({
            "wall_h": self.wall_h, "checkpoint_h": self.checkpoint_h, "lost_h": self.lost_h,
            "restart_time_h": self.restart_time_h, "failures": self.failures,
            "ettr": self.ettr_per_replica,
        })

    def summary(self, conf=0.99):
        """The headline numbers, for code: a Series (ETTR, its interval, wall quantiles, failures, runs)."""
        lo, hi = self.ettr_ci(conf)
        q = self.wall_quantiles()["wall_h"].to_numpy()
        return pd.Series({"ettr": self.ettr, "ettr_lo": lo, "ettr_hi": hi, "conf": conf,
                          "wall_p05_h": q[0], "wall_p50_h": q[1], "wall_p95_h": q[2],
                          "mean_failures": float(np.mean(self.failures)), "replicas": self.n_runs,
                          "n_runs": self.n_runs}, dtype=object)

    def text(self, conf=0.99):
        """The simulated ETTR with its interval and the spread of wall time, in sentences."""
        s = self.summary(conf)
        return (f"Simulated training ({self.n_runs:,} runs; failures: {self.source}): work {duration(self.work_h)}, "
                f"checkpoint every {duration(self.interval_h)} costing {duration(self.ckpt_cost_h)}, restart "
                f"{duration(self.restart_h)}. ETTR {number(s['ettr'], 4)} ({conf:.0%} interval "
                f"{interval(s['ettr_lo'], s['ettr_hi'], lambda v, missing: number(v, 4))}); wall time median "
                f"{duration(s['wall_p50_h'])} (5% {duration(s['wall_p05_h'])}, 95% {duration(s['wall_p95_h'])}); "
                f"{number(s['mean_failures'])} failures per run.")

    def table(self, conf=0.99):
        """Where the wall time goes, for people: mean hours per destination with an interval and its share."""
        t = self.breakdown(conf)
        return people_table(pd.DataFrame({"where the time goes": t["part"], "mean": t["hours"], "low": t["lo"],
                                          "high": t["hi"], "share of wall time": t["share"]}),
                            {"mean": duration, "low": duration, "high": duration, "share of wall time": pct})

    def _repr_html_(self):
        fmt = {"float_format": lambda v: f"{v:.4g}", "index": False}
        return Result._repr_html_(self) + html_table(self.wall_quantiles(), **fmt)
