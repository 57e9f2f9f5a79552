"""What-if slowdown: the run as it was against the same run without stragglers.

A synchronous step ends when its slowest rank ends, so the actual run takes
T = Σ_s max_r t[s, r].  The straggler-free run takes each step at the time a
typical rank takes, T0 = Σ_s typical_s, where "typical" is selectable:

* ``baseline="median"`` (default): the median over ranks of that step;
* ``baseline="mean"``: the mean over ranks of that step;
* a number q in (0, 1): that quantile over ranks of that step.

With ``across="steps"`` (the default for a log with one rank, such as a
Megatron-LM job log) the typical time is instead the statistic over all
steps of the job step time, so slow steps are measured against a typical step.

The share of time lost is 1 - T0/T and the slowdown factor T/T0.  This is
a step-log measure, not the slowdown S of Lin et al. ("Understanding
Stragglers in Large Model Training Using What-if Analysis", OSDI 2025, arXiv
2505.05713), which re-simulates each step through its dependency model with
every operation at its typical time; for an op-level trace use
:func:`relmodel.read_ops` and :func:`relmodel.stragglers.whatif` (:mod:`.whatif`).  Its interval is a moving-block bootstrap over
steps (blocks keep the persistence of slow nodes in each resample).  Each
step's lost time (max - typical) is attributed to its slowest rank, and
through it to that rank's node.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ModelInputError, TimeRangeError
from ..tables import Result, html_table
from relmodel.budget_guard import check_cost, count

__all__ = ["Slowdown", "slowdown", "step_stats", "block_bootstrap_ratio"]

_CHUNK = 1_000_000  # grid cells per chunk: keeps medians' temporary copies small


def _typical(block, baseline):
    if baseline == "median":
        return np.median(block, axis=1)
    if baseline == "mean":
        return block.mean(axis=1)
    return np.quantile(block, baseline, axis=1)


def _check_baseline(baseline):
    if baseline in ("median", "mean"):
        return baseline
    if isinstance(baseline, (int, float)) and not isinstance(baseline, bool) and 0 < baseline < 1:
        return float(baseline)
    raise ModelInputError(f"baseline must be 'median', 'mean' or a quantile in (0, 1); got {baseline!r}")


def step_stats(grid, baseline="median"):
    """Per step (rows of ``grid``): slowest time, index of the slowest column, typical time.

    Works through the grid in row blocks so that the temporary copies a median
    needs stay small.
    """
    baseline = _check_baseline(baseline)
    n = grid.shape[0]
    rows = max(1, _CHUNK // max(1, grid.shape[1]))
    top, arg, typ = np.empty(n), np.empty(n, dtype=np.int64), np.empty(n)
    for i in range(0, n, rows):
        block = grid[i:i + rows]
        arg[i:i + rows] = block.argmax(axis=1)
        top[i:i + rows] = np.take_along_axis(block, arg[i:i + rows, None], axis=1)[:, 0]
        typ[i:i + rows] = _typical(block, baseline)
    return top, arg, typ


def block_bootstrap_ratio(num, den, *, n_boot=1000, block=None, conf=0.95, seed=None):
    """Percentile interval of Σnum/Σden by a moving-block bootstrap over the (time-ordered) entries."""
    n = len(num)
    if n_boot <= 0 or n < 2:
        return float("nan"), float("nan")
    b = int(block) if block else max(1, int(round(np.sqrt(n))))
    b = min(b, n)
    k = int(np.ceil(n / b))
    cn, cd = np.r_[0.0, np.cumsum(num)], np.r_[0.0, np.cumsum(den)]
    starts = np.random.default_rng(seed).integers(0, n - b + 1, size=(n_boot, k))
    sn = (cn[starts + b] - cn[starts]).sum(axis=1)
    sd = (cd[starts + b] - cd[starts]).sum(axis=1)
    ratio = sn / sd
    a = (1 - conf) / 2
    return float(np.quantile(ratio, a)), float(np.quantile(ratio, 1 - a))


@dataclass(frozen=True)
class Slowdown(Result):
    """Share of run time lost to stragglers, with its interval and attribution.

    ``per_step`` has one row per step (times in seconds); ``by_rank`` and
    ``by_node`` sum each step's lost time onto its slowest rank and node.
    """

    share_lost: float
    share_lo: float
    share_hi: float
    factor: float
    actual_h: float
    ideal_h: float
    baseline: object
    across: str
    conf: float
    n_steps: int
    n_ranks: int
    per_step: pd.DataFrame
    by_rank: pd.DataFrame
    by_node: pd.DataFrame

    def to_frame(self):
        """The per-step table: step, actual and typical time (s), time lost (s), slowest rank and node."""
        return self.per_step.copy()

    def _interval(self):
        if np.isnan(self.share_lo):
            return "no interval computed"
        return f"{self.conf:.0%} interval {100 * self.share_lo:.1f}% to {100 * self.share_hi:.1f}%"

    def table(self):
        """Headline numbers as a small table for people."""
        rows = [("Steps", f"{self.n_steps:,}"), ("Ranks", f"{self.n_ranks:,}"),
                ("Actual run time", _dur(self.actual_h)), ("Run time without stragglers", _dur(self.ideal_h)),
                ("Share of time lost", f"{100 * self.share_lost:.1f}% ({self._interval()})"),
                ("Slowdown factor", f"{self.factor:.3f}"),
                ("Typical time of a step", f"{_baseline_text(self.baseline)} over {self.across}")]
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def top_nodes(self, n=10):
        """The ``n`` nodes that cost the most time, formatted for people."""
        t = self.by_node.head(n)
        return pd.DataFrame({"node": t["node"].astype(str),
                             "steps where it was slowest": t["steps_slowest"].map("{:,}".format),
                             "time lost (s)": t["lost_s"].map("{:,.1f}".format),
                             "share of run time (%)": (100 * t["share"]).map("{:.2f}".format)})

    def text(self):
        """The share of time lost, with its interval, in a sentence."""
        return (f"Stragglers cost {100 * self.share_lost:.1f}% of the run ({self._interval()}); the run took "
                f"{self.factor:.3f} times as long as it would have without them.")

    def _repr_html_(self):
        return Result._repr_html_(self) + html_table(self.top_nodes())


def _baseline_text(baseline):
    return baseline if isinstance(baseline, str) else f"{100 * baseline:g}th percentile"


def _dur(h):
    if h >= 48:
        return f"{h / 24:,.1f} days"
    if h >= 1:
        return f"{h:,.2f} h"
    if h >= 1 / 60:
        return f"{h * 60:,.1f} min"
    return f"{h * 3600:,.2f} s"


def _attribute(lost_h, slowest, labels, total_h, key):
    sums = np.bincount(slowest, weights=lost_h, minlength=len(labels))
    counts = np.bincount(slowest, minlength=len(labels))
    out = pd.DataFrame({key: labels, "steps_slowest": counts, "lost_s": sums * 3600,
                        "share": sums / total_h if total_h > 0 else 0.0})
    return out.sort_values(["lost_s", "steps_slowest"], ascending=False, kind="stable").reset_index(drop=True)


def _check_times(log):
    """An error naming the (step, rank) pairs whose time is NaN or infinite."""
    i, j = np.nonzero(~np.isfinite(np.asarray(log.times_h, float)))
    if i.size:
        pairs = ", ".join(f"step {log.steps[a]}, rank {log.ranks[b]}" for a, b in zip(i[:5], j[:5]))
        raise TimeRangeError(f"{log.name}: {i.size} step times are NaN or infinite ({pairs}); every step time "
                             "must be a finite number of hours; drop those steps first")


def slowdown(source, *, baseline="median", across=None, conf=0.95, n_boot=1000, block=None, seed=None):
    """What-if slowdown of a :class:`~relmodel.data.formats.steps.StepLog` (see the module notes).

    ``n_boot`` bootstrap resamples of blocks of ``block`` steps (default the
    square root of the number of steps) give the interval; 0 skips it.

    Step times are in hours; the result's ``share_lost`` (with its interval
    ``share_lo``, ``share_hi``) is the fraction of wall time lost to waiting for
    slower ranks and ``factor`` the ratio of actual to ideal time.

    Examples
    --------
    >>> from relmodel.stragglers.synthetic import synthetic_steps
    >>> s = synthetic_steps(n_nodes=4, ranks_per_node=2, n_steps=200, n_slow=1, seed=1)   # 2 s steps
    >>> d = slowdown(s.log, n_boot=50, seed=0)
    >>> round(d.share_lost, 3), round(d.factor, 3)
    (0.165, 1.198)
    >>> d.share_lo < d.share_lost < d.share_hi
    True
    """
    _check_times(source)
    across = across or ("ranks" if source.n_ranks > 1 else "steps")
    if across not in ("ranks", "steps"):
        raise ModelInputError(f"across must be 'ranks' or 'steps'; got {across!r}")
    if not 0 < conf < 1:
        raise ModelInputError(f"conf must be in (0, 1); got {conf!r}")
    n_boot = count("n_boot", n_boot)
    check_cost(f"slowdown(n_boot={n_boot:,})", work=n_boot * max(source.n_steps, 1) * 4,
               hint="use fewer bootstrap resamples (n_boot)")
    top, arg, typ = step_stats(source.times_h, baseline)
    if across == "steps":
        typ = np.full(len(top), _typical(top[None, :], _check_baseline(baseline))[0])
    actual, ideal = float(top.sum()), float(typ.sum())
    if actual <= 0:
        raise ModelInputError(f"{source.name}: every step time is zero; nothing to compare")
    lo, hi = block_bootstrap_ratio(typ, top, n_boot=n_boot, block=block, conf=conf, seed=seed)
    lost = top - typ
    node_labels, slow_node = _node_of(source, arg)
    per_step = pd.DataFrame({"step": source.steps, "actual_s": top * 3600, "typical_s": typ * 3600,
                             "lost_s": lost * 3600, "slowest_rank": source.ranks[arg],
                             "slowest_node": node_labels[slow_node]})
    return Slowdown(share_lost=1 - ideal / actual, share_lo=1 - hi, share_hi=1 - lo, factor=actual / ideal,
                    actual_h=actual, ideal_h=ideal, baseline=_check_baseline(baseline), across=across, conf=conf,
                    n_steps=source.n_steps, n_ranks=source.n_ranks, per_step=per_step,
                    by_rank=_attribute(lost, arg, source.ranks, actual, "rank"),
                    by_node=_attribute(lost, slow_node, node_labels, actual, "node"))


def _node_of(log, arg):
    if log.nodes is None:
        return log.ranks, arg
    codes, labels = pd.factorize(log.nodes, sort=False)
    return np.asarray(labels), codes[arg]
