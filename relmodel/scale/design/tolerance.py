"""The result of :func:`relmodel.scale.design.policies.tolerance_gain`: one design without and with the faults it tolerates."""

import dataclasses

import pandas as pd

from ...tables import Result, html_table
from relmodel.base.escape import html_text
from .design_result import DesignResult

__all__ = ["ToleranceGain"]


@dataclasses.dataclass(frozen=True)
class ToleranceGain(Result):
    """ETTR and interruptions of one design without and with the faults it tolerates."""

    name: str
    tolerated: dict
    before: DesignResult
    after: DesignResult

    @property
    def ettr_gain(self):
        return self.after.ettr - self.before.ettr

    def to_frame(self):
        b, a = self.before, self.after
        return pd.DataFrame({
            "quantity": ["interruptions per day", "faults absorbed per day", "job MTBF (h)", "ETTR"],
            "without tolerance": [24 * b.interruption_rate, 24 * b.absorbed_rate, b.job_mtbf_h, b.ettr],
            "with tolerance": [24 * a.interruption_rate, 24 * a.absorbed_rate, a.job_mtbf_h, a.ettr],
        })

    def text(self):
        """What tolerating the failures gains, in a sentence."""
        what = ", ".join(f"{100 * v:g}% of {k} failures" for k, v in self.tolerated.items()) or "what it absorbs"
        return f"{self.name}: tolerating {what} gains {100 * self.ettr_gain:.2f} points of ETTR."

    def _repr_html_(self):
        what = ", ".join(f"{100 * v:g}% of {k} failures" for k, v in self.tolerated.items()) or "what it absorbs"
        return (f"<p><b>{html_text(self.name)}</b>: tolerating {html_text(what)} gains "
                f"{100 * self.ettr_gain:.2f} points of ETTR</p>"
                + html_table(self.to_frame(), float_format=lambda v: f"{v:,.3f}"))
