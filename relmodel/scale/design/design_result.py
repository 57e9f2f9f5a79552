"""The result of evaluating one design (:func:`relmodel.scale.design.policies.evaluate_design`).

Goodput is ETTR x (1 - straggler loss) x efficiency: the share of elapsed
time spent on useful new steps (ETTR), the share of that time not lost to
slow workers, and the steady-state efficiency of a step (an MFU-type input,
e.g. MegaScale's 55.2% on 12,288 GPUs, arXiv 2402.15627).  Goodput per GPU
bought multiplies it by GPUs used over GPUs bought: spares held idle cost as
much as restarts.
"""

import dataclasses

import pandas as pd

from ...tables import Result, html_table
from ..sparing.words import ettr_words, share_words
from relmodel.base.escape import html_text

__all__ = ["DesignResult"]


@dataclasses.dataclass(frozen=True)
class DesignResult(Result):
    """ETTR, spares and risk of one design under its policy (hours; rates per hour).

    ``stall_share`` is the long-run share of time the job waits for a spare
    (the union of the waits, closed form, nothing failing while the job
    waits); ``mean_stall_h`` is the wait per interruption the job sees (it
    fails only while it runs, a share 1 - stall_share of the time).
    ``stall_share_free`` is the share if failures went on during the waits,
    the model the simulator runs, and ``mean_stall_sim`` the simulator's wait
    per interruption under it (a check of the closed form's arithmetic).  ``crews``, ``rma_lead_time_h``, ``spare_rate_per_h`` (of one idle
    pool unit) and ``rack_fit`` are the repair-capacity inputs used;
    ``repair_out_h`` the mean time a failed part is out (repair, wait for a
    crew, lead time).  ``warnings`` holds sentences a reader must see (e.g.
    no spares at all).
    """

    name: str
    policy: str
    gpus_bought: int
    gpus_used: int
    gpus_idle: int
    interruption_rate: float
    absorbed_rate: float
    job_mtbf_h: float
    job_mtbf_lo: float
    job_mtbf_hi: float
    interval_h: float
    ettr: float
    ettr_lo: float
    ettr_hi: float
    p_no_domain_spare: float
    p_no_spare: float
    p_no_spare_sim: float
    p_no_spare_lo: float
    p_no_spare_hi: float
    mean_stall_h: float
    gpus_out_mean: float
    node_interrupt_rate: float
    link_tolerated: float
    conf: float
    stall_share: float = 0.0
    mean_stall_sim: float = 0.0
    efficiency: float = 1.0
    straggler_loss: float = 0.0
    ckpt_cost_h: float = float("nan")
    restart_h: float = float("nan")
    costs: str = ""
    warnings: tuple = ()
    sim_runs: int = 0
    crews: int = None
    rma_lead_time_h: float = 0.0
    spare_rate_per_h: float = 0.0
    rack_fit: float = 0.0
    repair_out_h: float = float("nan")
    repairs_per_h: float = 0.0
    stall_share_free: float = float("nan")

    @property
    def goodput(self):
        """ETTR x (1 - straggler loss) x efficiency: useful GPU-hours per GPU-hour the job holds."""
        return self.ettr * (1.0 - self.straggler_loss) * self.efficiency

    @property
    def goodput_per_gpu(self):
        """Goodput x GPUs used / GPUs bought: useful GPU-hours per GPU-hour bought."""
        return self.goodput * self.gpus_used / self.gpus_bought

    def to_frame(self):
        row = dataclasses.asdict(self)
        row["warnings"] = " ".join(self.warnings)
        row["goodput"] = self.goodput
        row["goodput_per_gpu"] = self.goodput_per_gpu
        return pd.DataFrame([row])

    def text(self):
        """The answer in sentences, warnings last."""
        pct = f"{100 * self.conf:g}%"
        ettr = ettr_words(self.ettr, self.ettr_lo, self.ettr_hi)
        ettr = ettr[:-1] + f", {pct})" if ettr.endswith(")") else ettr
        head = (f"{self.name} ({self.policy}): ETTR {ettr}; "
                f"{self.gpus_idle:,} of {self.gpus_bought:,} GPUs idle as spares; the job waits for a spare "
                f"{_share(self.stall_share)} of the time; goodput per GPU bought {ettr_words(self.goodput_per_gpu)}.")
        return " ".join((head,) + tuple(self.warnings))

    def table(self):
        """The headline figures for people: quantity and value, in words."""
        rows = [("ETTR", ettr_words(self.ettr, self.ettr_lo, self.ettr_hi)),
                ("Interruptions per day", f"{24 * self.interruption_rate:.3g}"),
                ("Time waiting for a spare", _share(self.stall_share)),
                ("Failure finds no spare", _share(self.p_no_spare)),
                ("GPUs out of the job on average", f"{self.gpus_out_mean:,.0f}"),
                ("GPUs idle as spares", f"{self.gpus_idle:,} of {self.gpus_bought:,}"),
                ("Goodput per GPU bought", f"{ettr_words(self.goodput_per_gpu)}")]
        return pd.DataFrame(rows, columns=["Quantity", "Value"])

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + html_table(self.table())


def _share(p):
    return share_words(p)
