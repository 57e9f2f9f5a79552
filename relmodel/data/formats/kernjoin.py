"""A Slurm run joined to a kernel log: which fault ended each interruption, and how late it was seen.

:func:`join_kernel` matches each interruption of a :class:`~relmodel.data.formats.sacct.JobLog`
(a segment that ended NODE_FAIL, FAILED...) to the kernel faults of an
:class:`~relmodel.data.formats.kernlog.XidLog` on the nodes the segment held: the
earliest fault that starts inside the segment and at most ``window`` before
its end (or at most ``after`` past it: clocks of two machines differ).
The time from the fault to the segment's end is the **detection latency**:
the job hung on a dead GPU until the scheduler or the job noticed.  Both
logs' times are wall-clock times of the cluster (UTC or one local zone).

:class:`KernelJoin` holds the matches, the median latency with a
distribution-free 95% interval (binomial order statistics) and the matched
causes; :func:`~relmodel.checkpoint.backtest.backtest` takes it (or the
kernel log) to stop progress at the fault.
"""

from dataclasses import dataclass

import math

import numpy as np
import pandas as pd

from ...errors import InputTypeError, ModelInputError
from ...tables import Result, count, duration, html_table, pct
from ...units import hours

__all__ = ["join_kernel", "KernelJoin", "median_interval", "JOIN_WINDOW"]

JOIN_WINDOW = "6h"  #: a fault this long before an interruption can still be its cause (default)


def median_interval(values, level=0.95):
    """``(median, lo, hi)``: the sample median and a distribution-free interval from order statistics.

    The interval is the pair of order statistics that covers the population
    median with probability at least ``level`` (binomial with p = 1/2); with
    too few values for that, the sample's range.

    Examples
    --------
    >>> median_interval([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    (5.5, 2.0, 9.0)
    """
    x = np.sort(np.asarray(values, float))
    x = x[np.isfinite(x)]
    n = x.size
    if not n:
        return float("nan"), float("nan"), float("nan")
    j = np.arange(n + 1)
    logpmf = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in j]) - n * math.log(2)
    cdf = np.cumsum(np.exp(logpmf))  # P(B <= i), B ~ Binomial(n, 1/2)
    ok = np.flatnonzero(2 * cdf[:n] <= 1 - level)  # i = j - 1 for [x_(j), x_(n-j+1)], 1-based
    if ok.size and ok[-1] + 1 <= n - 1 - ok[-1]:
        lo, hi = x[ok[-1]], x[n - 1 - ok[-1]]
    else:
        lo, hi = x[0], x[-1]
    return float(np.median(x)), float(lo), float(hi)


@dataclass(frozen=True, eq=False)
class KernelJoin(Result):
    """Interruptions of a run matched to kernel faults; build it with :func:`join_kernel`.

    ``matches`` has one row per interruption: row (line of the export),
    job_id, end_h (hours from the run's origin), fault_h (the matched fault,
    NaN when none), latency_h, node, component, category, cause, xid, kernel_row.
    """

    name: str
    matches: pd.DataFrame
    window_h: float
    detection_latency_h: float
    latency_lo_h: float
    latency_hi_h: float

    @property
    def n_interruptions(self):
        return int(len(self.matches))

    @property
    def n_matched(self):
        return int(self.matches["fault_h"].notna().sum())

    @property
    def latencies_h(self):
        """Detection latencies of the matched interruptions (hours)."""
        return self.matches["latency_h"].dropna().to_numpy(float)

    def causes(self):
        """Matched interruptions by kernel cause: category, component, cause, interruptions (largest first)."""
        m = self.matches.dropna(subset=["fault_h"])
        g = m.groupby(["category", "component", "cause"], sort=False).size().rename("interruptions")
        return g.reset_index().sort_values("interruptions", ascending=False, kind="stable").reset_index(drop=True)

    def to_frame(self):
        """The matches (one row per interruption)."""
        return self.matches.copy()

    def table(self):
        """Matched causes for people."""
        c = self.causes()
        return pd.DataFrame({"Cause (kernel log)": c["cause"], "Component": c["component"],
                             "Interruptions": [count(v) for v in c["interruptions"]]})

    def text(self):
        """The match rate, the detection latency and its interval, in words."""
        n, k = self.n_interruptions, self.n_matched
        if not k:
            return (f"{self.name}: none of the {n:,} interruptions has a kernel fault on its nodes within "
                    f"{duration(self.window_h)} before it ended; the detection latency is not measured.")
        share = pct(k / n) if n else "none"
        return (f"{self.name}: {k:,} of {n:,} interruptions ({share}) follow a kernel fault on one of their nodes. "
                f"The job ran on for a median of {duration(self.detection_latency_h)} after the fault before it "
                f"ended (detection latency, measured from the logs; 95% interval for the median "
                f"{duration(self.latency_lo_h)} to {duration(self.latency_hi_h)}).")

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table(), index=False)


def _faults(kern):
    ev = kern.interruptions()
    t0 = pd.Timestamp(kern.origin)
    at = t0 + pd.to_timedelta(ev["start_h"].to_numpy(float), unit="h")
    cols = {c: ev[c].to_numpy(object) if c in ev else np.full(len(ev), None, object)
            for c in ("node", "component", "category", "cause", "xid")}
    return pd.DataFrame({"at": at, "kernel_row": ev["row"].to_numpy(), **cols})


def join_kernel(run, kernel, *, window=JOIN_WINDOW, after="5min"):
    """Match the interruptions of ``run`` (a JobLog) to the faults of ``kernel`` (an XidLog); a :class:`KernelJoin`.

    A segment's interruption is matched to the earliest kernel outage on one
    of its nodes that starts after the segment starts, at most ``window``
    before the segment ends and at most ``after`` past it.  A segment with no
    node list matches faults on any node.

    Examples
    --------
    >>> from relmodel import read_sacct, read_xid
    >>> run = read_sacct('''JobID|JobName|State|ExitCode|Start|End|NodeList
    ... 1|train|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:20:00|gpu[01-02]
    ... 2|train|COMPLETED|0:0|2024-03-01T10:50:00|2024-03-01T20:00:00|gpu[01-02]
    ... ''')
    >>> kern = read_xid('''Mar  1 00:00:00 gpu01 kernel: Linux version 6.8.0 (build)
    ... Mar  1 10:00:00 gpu02 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=7, GPU has fallen off the bus.
    ... ''', year=2024)
    >>> j = join_kernel(run, kern)
    >>> j.n_matched, round(j.detection_latency_h * 60)      # minutes from the fault to the job's end
    (1, 20)
    """
    if not hasattr(run, "segments"):
        raise InputTypeError("join_kernel needs the log of a Slurm run (relmodel.read_sacct) as run=")
    if not hasattr(kernel, "xid_events"):
        raise InputTypeError("join_kernel needs a kernel log (relmodel.read_xid) as kernel=")
    win_h, after_h = float(hours(window)), float(hours(after))
    if not (win_h > 0 and after_h >= 0):
        raise ModelInputError(f"window must be above 0 and after at or above 0; got window={window!r}, after={after!r}")
    seg = run.segments
    hit = seg[seg["interrupts"].to_numpy(bool)]
    t0 = pd.Timestamp(run.origin)
    faults = _faults(kernel)
    rows = []
    for r in hit.itertuples():
        start, end = t0 + pd.Timedelta(hours=r.start_h), t0 + pd.Timedelta(hours=r.end_h)
        f = faults[(faults["at"] >= max(start, end - pd.Timedelta(hours=win_h)))
                   & (faults["at"] <= end + pd.Timedelta(hours=after_h))]
        if len(r.nodes):
            f = f[f["node"].isin(set(r.nodes))]
        base = {"row": r.line, "job_id": r.job_id, "end_h": r.end_h}
        if not len(f):
            rows.append({**base, "fault_h": np.nan, "latency_h": np.nan, "node": None, "component": None,
                         "category": None, "cause": None, "xid": None, "kernel_row": None})
            continue
        first = f.sort_values(["at", "kernel_row"], kind="stable").iloc[0]
        fault_h = (first["at"] - t0) / pd.Timedelta(hours=1)
        rows.append({**base, "fault_h": fault_h, "latency_h": max(r.end_h - fault_h, 0.0), "node": first["node"],
                     "component": first["component"], "category": first["category"], "cause": first["cause"],
                     "xid": first["xid"], "kernel_row": first["kernel_row"]})
    cols = ["row", "job_id", "end_h", "fault_h", "latency_h", "node", "component", "category", "cause", "xid",
            "kernel_row"]
    matches = pd.DataFrame(rows, columns=cols)
    med, lo, hi = median_interval(matches["latency_h"].dropna())
    return KernelJoin(run.name, matches, win_h, med, lo, hi)
