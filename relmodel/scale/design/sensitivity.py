"""How much a design's answer depends on a fault rate no public log gives.

Whole-domain faults (NVLink switch tray, rack power, cooling) have no public
per-domain rate (:mod:`relmodel.scale.clusters.correlated`), so
:func:`domain_fit_sensitivity` shows ETTR and goodput per GPU bought from a
domain FIT of 0 up to the FIT of one GPU of the source (the GPU causes'
rate per GPU): a whole rack that failed as often as one of its GPUs.
"""

import dataclasses

import numpy as np
import pandas as pd

from ...errors import DesignError
from ..sparing.words import ettr_words, share_words
from ...tables import Result, html_table
from .policies import evaluate_design

__all__ = ["Sensitivity", "gpu_fit", "domain_fit_sensitivity"]


def gpu_fit(source, cluster):
    """FIT of one GPU of ``source`` (its causes that scale with GPUs, per GPU, per 10^9 h)."""
    from ..clusters.scaling import scale_rates
    t = scale_rates(source, target_cluster=cluster, n_boot=1, seed=0).by_cause
    rate = float(t.loc[t["scales_with"] == "gpu", "rate_per_h"].sum())
    return rate / cluster.n_gpus * 1e9


@dataclasses.dataclass(frozen=True)
class Sensitivity(Result):
    """ETTR and goodput per GPU bought of one design at each domain FIT."""

    name: str
    frame: pd.DataFrame
    gpu_fit: float

    def to_frame(self):
        return self.frame.copy()

    def table(self):
        f = self.frame
        return pd.DataFrame({
            "Whole-domain faults (FIT per domain)": f["domain_fit"].map("{:,.0f}".format),
            "Per domain per year": (f["domain_fit"] * 8766e-9).map("{:.3g}".format),
            "ETTR": f["ettr"].map(ettr_words),
            "Time waiting for a spare": f["stall_share"].map(share_words),
            "Goodput per GPU bought": f["goodput_per_gpu"].map(ettr_words),
        })

    def text(self):
        f = self.frame
        lo, hi = f.iloc[0], f.iloc[-1]
        return (f"No public figure gives the rate of whole-domain faults; from none to a domain failing as often "
                f"as one GPU ({self.gpu_fit:,.0f} FIT), {self.name}'s ETTR goes from {ettr_words(lo['ettr'])} to "
                f"{ettr_words(hi['ettr'])} and its goodput per GPU bought from {ettr_words(lo['goodput_per_gpu'])} to "
                f"{ettr_words(hi['goodput_per_gpu'])}.")

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table())


def domain_fit_sensitivity(cluster, source, ckpt_cost, restart, fits=None, *, steps=5, n_runs=0, n_boot=0,
                           **kwargs):
    """ETTR against the whole-domain FIT, from 0 to the source's GPU FIT; returns a :class:`Sensitivity`.

    ``fits`` (FIT per domain) overrides the default ``steps`` + 1 evenly
    spaced values from 0 to :func:`gpu_fit`.  ``kwargs`` go to
    :func:`relmodel.scale.design.policies.evaluate_design`.  Every column is a closed
    form, so no design is simulated unless ``n_runs`` asks for the check.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> from relmodel.scale.design.designs import design_presets
    >>> s = domain_fit_sensitivity(design_presets(1152)["nvl72-whole-rack"], llama3_54day(), "1min", "10min")
    >>> round(s.gpu_fit), [round(e, 3) for e in s.frame["ettr"]]
    (12621, [0.868, 0.868, 0.867, 0.867, 0.867, 0.867])
    """
    top = gpu_fit(source, cluster)
    if fits is None:
        fits = np.linspace(0.0, top, int(steps) + 1)
    fits = np.asarray(fits, dtype=float)
    if fits.ndim != 1 or fits.size == 0 or np.any(~np.isfinite(fits)) or np.any(fits < 0):
        raise DesignError(f"fits must be a list of FIT values >= 0 (failures per domain per 10^9 h); got {fits!r}")
    if fits.size > 50:
        raise DesignError(f"at most 50 FIT values (each is a full design evaluation); got {fits.size}")
    rows = []
    for fit in fits:
        r = evaluate_design(cluster, source, ckpt_cost, restart, domain_fit=float(fit), n_runs=n_runs,
                            n_boot=n_boot, **kwargs)
        rows.append({"domain_fit": float(fit), "ettr": r.ettr, "stall_share": r.stall_share,
                     "goodput_per_gpu": r.goodput_per_gpu, "interruptions_per_day": 24 * r.interruption_rate})
    return Sensitivity(cluster.name, pd.DataFrame(rows), top)
