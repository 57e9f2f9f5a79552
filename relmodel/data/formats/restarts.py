"""Restart times measured from a Slurm run: the gaps from an interruption to the run's next start.

:func:`measured_restart` summarises :meth:`~relmodel.data.formats.sacct.JobLog.restart_gaps`
(requeue or resubmission waits, job end to next start) as a
:class:`MeasuredRestart`: median, mean, a distribution-free 95% interval for
the median and the count, labelled as measured from the log, so a decision
can use the run's own restart time instead of an assumed one.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...tables import Result, count, duration, html_table
from .kernjoin import median_interval

__all__ = ["measured_restart", "MeasuredRestart", "RESTART_SOURCE"]

RESTART_SOURCE = "measured from the log (Slurm requeue gaps: job end to next start)"


@dataclass(frozen=True, eq=False)
class MeasuredRestart(Result):
    """Restart gaps of a run: ``median_h`` (NaN when none), ``lo_h``/``hi_h`` (95% for the median), ``n``."""

    name: str
    gaps_h: np.ndarray
    median_h: float
    lo_h: float
    hi_h: float
    mean_h: float
    source: str = RESTART_SOURCE

    @property
    def n(self):
        return int(self.gaps_h.size)

    def to_frame(self):
        """One row: n, median_h, lo_h, hi_h, mean_h, source."""
        return pd.DataFrame([{"n": self.n, "median_h": self.median_h, "lo_h": self.lo_h, "hi_h": self.hi_h,
                              "mean_h": self.mean_h, "source": self.source}])

    def table(self):
        """The summary for people."""
        return pd.DataFrame({"Restart gaps": [count(self.n)], "Median": [duration(self.median_h)],
                             "95% interval for the median": [f"{duration(self.lo_h)} to {duration(self.hi_h)}"],
                             "Mean": [duration(self.mean_h)]})

    def text(self):
        """The measured restart in words."""
        if not self.n:
            return f"{self.name}: no interruption is followed by a restart in the log, so no restart time is measured."
        return (f"{self.name}: {self.n:,} restarts after interruptions took a median of {duration(self.median_h)} "
                f"(95% interval for the median {duration(self.lo_h)} to {duration(self.hi_h)}; mean "
                f"{duration(self.mean_h)}), {self.source}.")

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table(), index=False)


def measured_restart(run):
    """The restart gaps of ``run`` (a :class:`~relmodel.data.formats.sacct.JobLog`) summarised; a :class:`MeasuredRestart`.

    The gaps, median, interval and mean are in hours; ``n`` counts the gaps
    (interruptions followed by a start of the same run).

    Examples
    --------
    >>> from relmodel import read_sacct
    >>> run = read_sacct('''JobID|JobName|State|ExitCode|Start|End|NNodes
    ... 1|t|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:00:00|4
    ... 2|t|NODE_FAIL|0:0|2024-03-01T10:30:00|2024-03-01T20:00:00|4
    ... 3|t|COMPLETED|0:0|2024-03-01T20:20:00|2024-03-02T00:00:00|4
    ... ''')
    >>> r = measured_restart(run)
    >>> r.n, round(r.median_h * 60), round(r.mean_h * 60)
    (2, 25, 25)
    """
    gaps = np.asarray(run.restart_gaps().hours, float)
    med, lo, hi = median_interval(gaps)
    return MeasuredRestart(run.name, gaps, med, lo, hi, float(gaps.mean()) if gaps.size else float("nan"))
