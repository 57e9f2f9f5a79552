"""What a past run really got: observed availability and ETTR beside the model's prediction.

:func:`backtest` takes the :class:`~relmodel.data.formats.sacct.JobLog` of a run
(from :func:`relmodel.read_sacct`) and the checkpoint interval and cost the
run used.  From the log alone it knows the wall time, the time the run held
its allocation, the interruptions and the restart gaps; the **observed
availability** is running time over wall time.  Lost work is not in sacct,
so the **observed ETTR** is estimated segment by segment under stated
assumptions:

* each segment spends ``startup`` loading its checkpoint, then alternates
  ``interval`` of work and ``ckpt_cost`` of writing;
* a segment that ends in an interruption loses the work since its last
  completed checkpoint;
* a segment that ends otherwise (time limit, completion, still running)
  saves its work on the way out.

With ``kernel=`` (a kernel log from :func:`relmodel.read_xid`, or a join
from :func:`relmodel.data.join_kernel`), an interruption matched to a kernel fault
stops its progress at the fault: the time the job hung on a dead part until
it ended is lost work, not useful time, and no checkpoint is written in it.

The **predicted ETTR** is Daly's model (:func:`~relmodel.checkpoint.intervals.ettr`)
with the run's own MTBF (running hours per interruption) and its mean restart
gap plus ``startup`` (plus the median detection latency measured by the
join, when given) as the restart time; the breakdowns say where the two
differ (restarts, lost work, checkpoint writes).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import ModelInputError
from ..tables import Result
from ..units import hours
from .intervals import _ettr, _segment_terms

__all__ = ["backtest", "Backtest"]


def _dur(h):
    """A duration as a person says it (45 s, 19 min, 3.1 h, 12 d)."""
    if h < 1 / 60:
        return f"{h * 3600:.0f} s"
    if h < 2:
        return f"{h * 60:.3g} min"
    return f"{h:.3g} h" if h < 72 else f"{h / 24:,.1f} d"


@dataclass(frozen=True)
class Backtest(Result):
    """Observed and predicted goodput of one run (hours and fractions)."""

    name: str
    wall_h: float
    running_h: float
    interruptions: int
    segments: int
    mean_gap_h: float
    interval_h: float
    ckpt_cost_h: float
    startup_h: float
    mtbf_h: float
    availability: float
    observed_ettr: float
    predicted_ettr: float
    observed: dict
    predicted: dict
    detection_latency_h: float = float("nan")
    matched: int = 0

    def to_frame(self):
        """Where the wall time went, observed (estimated) and predicted: part, observed_h, predicted_h, shares."""
        parts = ["useful", "checkpoint writes", "lost work", "restarts"]
        obs = [self.observed[p] for p in parts]
        pred = [self.predicted[p] for p in parts]
        return pd.DataFrame({"part": parts, "observed_h": obs, "predicted_h": pred,
                             "observed_share": np.array(obs) / self.wall_h, "predicted_share": np.array(pred) / self.wall_h})

    def table(self):
        """The breakdown for people: worded headers, durations and percentages."""
        f = self.to_frame()
        return pd.DataFrame({"Where the time went": f["part"],
                             "Observed (estimated)": [f"{_dur(h)} ({s:.1%})" for h, s in zip(f["observed_h"], f["observed_share"])],
                             "Model": [f"{_dur(h)} ({s:.1%})" for h, s in zip(f["predicted_h"], f["predicted_share"])]})

    def text(self):
        """Sentences: what the run got, what the model predicts, and why they differ."""
        f = self.to_frame()
        diff = (f["observed_share"] - f["predicted_share"]).to_numpy()
        k = int(np.argmax(np.abs(diff[1:]))) + 1
        more = "more" if diff[k] > 0 else "less"
        return (f"{self.name}: over {_dur(self.wall_h)} the run held its allocation {self.availability:.1%} of the "
                f"wall time, with {self.interruptions:,} interruptions (one per {_dur(self.mtbf_h)} of running) and "
                f"restart gaps of {_dur(self.mean_gap_h)} on average. "
                f"With checkpoints every {_dur(self.interval_h)} costing {_dur(self.ckpt_cost_h)}, the model predicts "
                f"an ETTR of {self.predicted_ettr:.1%}; the log gives about {self.observed_ettr:.1%}, assuming each "
                f"interruption lost the work since its last checkpoint and every other segment end saved its work "
                f"(lost work is not in sacct). The largest difference is {f['part'][k]}: "
                f"{abs(diff[k]):.1%} of the wall time {more} than the model expects." + self._kernel_text())

    def _kernel_text(self):
        if not self.matched:
            return ""
        return (f" {self.matched:,} interruptions were matched to kernel faults: their progress stops at the fault, "
                f"and the model adds the measured detection latency ({_dur(self.detection_latency_h)} median) to each "
                "restart.")

    def _repr_html_(self):
        from ..tables import html_table
        return f"<p>{self.text()}</p>" + html_table(self.table())


def _observed(seg, tau, delta, startup, fault_h=None):
    length = (seg["end_h"] - seg["start_h"]).to_numpy(float)
    work_span = np.maximum(length - startup, 0.0)
    hit = seg["interrupts"].to_numpy(bool)
    stop = work_span if fault_h is None else np.where(np.isfinite(fault_h), np.minimum(
        np.maximum(fault_h - seg["start_h"].to_numpy(float) - startup, 0.0), work_span), work_span)
    k = np.floor(stop / (tau + delta))
    useful = np.where(hit, k * tau, work_span - k * delta)
    ckpt = k * delta
    lost = np.where(hit, work_span - k * (tau + delta), 0.0)
    return {"useful": float(useful.sum()), "checkpoint writes": float(ckpt.sum()), "lost work": float(lost.sum()),
            "load at start": float((length - work_span).sum())}


def _kernel_faults(source, kernel):
    """Per segment, the matched fault's time (NaN when none), the median latency and the matched count."""
    if kernel is None:
        return None, float("nan"), 0
    from ..data.formats.kernjoin import join_kernel
    join = kernel if hasattr(kernel, "matches") else join_kernel(source, kernel)
    by_row = dict(zip(join.matches["row"].tolist(), join.matches["fault_h"].tolist()))
    fault = np.array([by_row.get(r, np.nan) for r in source.segments["line"].tolist()], float)
    return fault, float(join.detection_latency_h), int(join.n_matched)


def backtest(source, interval, ckpt_cost, *, startup=0.0, kernel=None):
    """Observed availability and ETTR of a past run beside the model's prediction; a :class:`Backtest`.

    ``source`` is a :class:`~relmodel.data.formats.sacct.JobLog` of one run; ``interval``
    and ``ckpt_cost`` the checkpoint interval and cost it ran with and
    ``startup`` the time each segment spent loading before work resumed
    (durations: hours, "30min", timedelta...).  ``kernel`` is the run's kernel
    log (:func:`relmodel.read_xid`) or its join (:func:`relmodel.data.join_kernel`):
    progress stops at each matched fault, and the prediction adds the measured
    detection latency to the restart time.

    Examples
    --------
    >>> from relmodel.data.formats.sacct import read_sacct
    >>> text = '''JobID|JobName|State|ExitCode|Start|End
    ... 1|run|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:15:00
    ... 2|run|COMPLETED|0:0|2024-03-01T11:15:00|2024-03-01T21:15:00
    ... '''
    >>> b = backtest(read_sacct(text), "1h", "0")
    >>> round(b.availability, 4), round(b.observed_ettr, 4)     # 20.25 h of 21.25; 0.25 h lost
    (0.9529, 0.9412)
    """
    if not hasattr(source, "segments"):
        raise ModelInputError("backtest needs the log of a Slurm run (relmodel.read_sacct); a log of outages "
                              "does not say when the run was running")
    tau, delta, startup = float(hours(interval)), float(hours(ckpt_cost)), float(hours(startup))
    if not (np.isfinite(tau) and np.isfinite(delta) and np.isfinite(startup)) or tau <= 0 or delta < 0 or startup < 0:
        raise ModelInputError(f"interval must be above 0 and ckpt_cost, startup at or above 0 (all finite); got "
                              f"interval "
                              f"{tau:g} h, ckpt_cost {delta:g} h, startup {startup:g} h")
    seg = source.segments
    wall = float((seg.groupby("run")["end_h"].max() - seg.groupby("run")["start_h"].min()).sum())
    running = float((seg["end_h"] - seg["start_h"]).sum())
    n = int(seg["interrupts"].sum())
    gaps = source.restart_gaps().hours
    mean_gap = float(np.mean(gaps)) if gaps.size else 0.0
    fault, latency, matched = _kernel_faults(source, kernel)
    obs = _observed(seg, tau, delta, startup, fault)
    observed = {"useful": obs["useful"], "checkpoint writes": obs["checkpoint writes"], "lost work": obs["lost work"],
                "restarts": wall - obs["useful"] - obs["checkpoint writes"] - obs["lost work"]}
    mtbf = running / n if n else float("inf")
    restart = mean_gap + startup + (latency if matched else 0.0)
    if np.isfinite(mtbf):
        pred = float(_ettr(tau, mtbf, delta, restart))
        terms = _segment_terms(tau, mtbf, delta, restart)
        useful, ck, lost, rst = (float(terms[k]) for k in ("useful", "checkpoint", "lost", "restart"))
        total = useful + ck + lost + rst
        predicted = {p: wall * float(v) / float(total) for p, v in
                     zip(["useful", "checkpoint writes", "lost work", "restarts"], (useful, ck, lost, rst))}
    else:
        pred = tau / (tau + delta)
        predicted = {"useful": wall * pred, "checkpoint writes": wall * (1 - pred), "lost work": 0.0, "restarts": 0.0}
    return Backtest(source.name, wall, running, n, len(seg), mean_gap, tau, delta, startup, mtbf, running / wall,
                    obs["useful"] / wall, pred, observed, predicted, latency, matched)
