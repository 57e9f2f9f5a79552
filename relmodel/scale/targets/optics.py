"""How good must pluggable optics be?  Transceiver FIT and MTBF for a target ETTR.

A target ETTR fixes the job MTBF M* the job may have
(:func:`relmodel.scale.targets.requirements.required_job_mtbf`), that is a failure
budget of 1/M* per hour (with a :class:`relmodel.checkpoint.RestartModel`,
only its reload is exposed to failures:
:mod:`relmodel.scale.targets.law_requirements`).  If transceivers may use a share ``s`` of it and the
design absorbs a share ``t`` of their failures (a second plane), each of the
design's n transceivers may fail at

    rate = s / (M* n (1 - t))   per hour,   FIT = 10^9 x rate,   MTBF = 1 / rate.

n comes from :meth:`relmodel.Cluster.counts` (two per optical link): about
2 k per NIC on a k-tier rail-optimised fabric (optical from the NIC up) and
2 (k - 1) per NIC on a fat tree with copper to the top-of-rack switch, so the
requirement per part grows in proportion to the cluster.

Field rates to compare with (see ``data/field_rates.md``): the Llama 3
network share (35 of 419 unexpected interruptions, "Network Switch/Cable", in
54 days on 16,384 GPUs; arXiv 2407.21783, Table 5) spread over the
transceivers of :meth:`relmodel.Cluster.llama3` bounds the transceiver rate
from above; datacenter switches (Singh et al., SIGCOMM CCR 51(2), 2021: about
2% fail within 3 months of entering production) give a per-switch rate.
"""

import dataclasses
import math

import numpy as np
import pandas as pd

from ...checkpoint.costs import cost_hours
from ...errors import DesignError
from ..clusters.cluster import Cluster
from .law_requirements import needed_job_mtbf
from ...tables import Result, number, people_table, sig

__all__ = ["field_rates", "transceiver_requirement", "OpticsRequirements", "optics_requirements", "RADIXES"]

RADIXES = (64, 128, 256, 512)
_HOURS_54_DAYS = 54 * 24.0
_THREE_MONTHS_H = 8766.0 / 4


def field_rates():
    """Published field rates as FIT, one row each: what, per, FIT, MTBF (h) and source."""
    tx = Cluster.llama3().counts()["transceiver"]
    llama_fit = 35 / _HOURS_54_DAYS / tx * 1e9
    switch_fit = -math.log(1 - 0.02) / _THREE_MONTHS_H * 1e9
    return pd.DataFrame({
        "what": ["Llama 3 network faults spread over its transceivers (upper bound)",
                 "datacenter switch, first 3 months in production"],
        "per": ["transceiver", "switch"],
        "fit": [llama_fit, switch_fit],
        "mtbf_h": [1e9 / llama_fit, 1e9 / switch_fit],
        "source": [f"Llama 3, arXiv 2407.21783, sec. 3.3.4, Table 5: 35 'Network Switch/Cable' interruptions in "
                   f"54 days; {tx:,} transceivers in Cluster.llama3()",
                   "Singh et al., 'Surviving switch failures in cloud datacenters', SIGCOMM CCR 51(2), 2021: "
                   "about 2% fail within 3 months"],
    })


def _check_share(share, tolerated):
    s, t = float(share), float(tolerated)
    if not 0.0 < s < 1.0:
        raise DesignError(f"share of the failure budget must be a fraction in (0, 1), e.g. 0.1; got {share!r}")
    if not 0.0 <= t <= 1.0:
        raise DesignError(f"tolerated share of optics failures must be a fraction from 0 to 1; got {tolerated!r}")
    return s, t


def _job_mtbf_needed(target_ettr, ckpt_cost, restart, n_gpus):
    """Job MTBF a target needs at ``n_gpus``, with a RestartModel's reload only exposed to failures."""
    d, r = cost_hours(ckpt_cost, n_gpus, "ckpt_cost"), cost_hours(restart, n_gpus, "restart")
    return needed_job_mtbf(target_ettr, d, restart, r, n_gpus)[0]


def transceiver_requirement(cluster, target_ettr, *, ckpt_cost, restart, share=0.1, tolerated=0.0):
    """FIT and MTBF each transceiver of ``cluster`` must reach: dict transceivers, fit, mtbf_h.

    An MTBF of 0 (FIT infinite) means any part will do: the design has no
    optics, or absorbs all their failures.  ``ckpt_cost`` and ``restart``
    are durations (hours, or "1min"); ``share`` and ``tolerated`` are
    fractions; ``mtbf_h`` and ``job_mtbf_h`` are in hours.  ``restart`` may
    be a :class:`relmodel.checkpoint.RestartModel`: only its reload is
    exposed to failures (its downtime, start-up that grows with the ranks
    included, cannot be struck), as in
    :func:`relmodel.scale.targets.requirements.required_node_mtbf`.

    Examples
    --------
    >>> r = transceiver_requirement(Cluster.llama3(), 0.9, ckpt_cost="1min", restart="10min", share=0.1)
    >>> r["transceivers"], round(r["job_mtbf_h"], 2)          # parts, hours
    (37450, 5.81)
    >>> round(r["fit"], 1), round(1e9 * 0.1 / (r["job_mtbf_h"] * r["transceivers"]), 1)   # FIT = 1e9 s / (M* n)
    (459.3, 459.3)
    >>> round(r["mtbf_h"] / 8766)                               # years
    248
    >>> transceiver_requirement(Cluster.llama3(), 0.9, ckpt_cost="1min", restart="10min", tolerated=1.0)["mtbf_h"]
    0.0
    """
    s, t = _check_share(share, tolerated)
    m_req = _job_mtbf_needed(target_ettr, ckpt_cost, restart, cluster.n_gpus)
    n = cluster.counts()["transceiver"]
    exposed = n * (1.0 - t)
    if exposed <= 0:
        return {"transceivers": n, "fit": math.inf, "mtbf_h": 0.0, "job_mtbf_h": m_req}
    rate = s / (m_req * exposed)
    return {"transceivers": n, "fit": rate * 1e9, "mtbf_h": 1.0 / rate, "job_mtbf_h": m_req}


def _fabric(fabric, tiers, n_gpus, gpus_per_node, radixes):
    for radix in radixes:
        c = Cluster(n_gpus=n_gpus, gpus_per_node=gpus_per_node, fabric=fabric, radix=radix,
                    name=f"{fabric}, {tiers} tiers")
        if c.capacity(tiers) >= c.n_nics:
            return Cluster(n_gpus=n_gpus, gpus_per_node=gpus_per_node, fabric=fabric, radix=radix, tiers=tiers,
                           name=f"{fabric}, {tiers} tiers")
    return None


@dataclasses.dataclass(frozen=True)
class OpticsRequirements(Result):
    """Transceiver requirements by fabric, tiers and size; ``rows`` is numeric (one row per fabric and size)."""

    rows: pd.DataFrame
    target_ettr: float
    share: float
    job_mtbf_h: float
    field: pd.DataFrame

    def to_frame(self):
        return self.rows.copy()

    def _people(self):
        return people_table(self._people_raw())

    def _people_raw(self):
        """The table for people: no NaN, MTBF in years, the gap to the Llama 3 field rate."""
        t = self.rows
        ok = t["fits"].to_numpy()
        field_fit = float(self.field["fit"].iloc[0])
        gap = [("met by it" if field_fit <= f else f"needs {sig(field_fit / f, 3)}× lower FIT") if o else "–"
               for f, o in zip(t["fit"], ok)]
        return pd.DataFrame({
            "Fabric": t["fabric"], "Tiers": t["tiers"], "GPUs": t["n_gpus"].map("{:,}".format),
            "Switch radix": [f"{r:,}" if o else f"beyond radix {RADIXES[-1]}" for r, o in zip(t["radix"], ok)],
            "Transceivers": [f"{n:,}" if o else "–" for n, o in zip(t["transceivers"], ok)],
            "FIT needed per transceiver": [number(f) if o else "–" for f, o in zip(t["fit"], ok)],
            "MTBF needed (years)": [f"{h / 8766:,.0f}" if o else "–" for h, o in zip(t["mtbf_h"], ok)],
            "vs Llama 3 field rate": gap,
        })

    def text(self):
        return (f"Transceivers may use {self.share:.0%} of the failure budget of a job that must reach ETTR "
                f"{self.target_ettr:g} (job MTBF {self.job_mtbf_h:.3g} h).")

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def optics_requirements(sizes=(1_000, 10_000, 100_000, 1_000_000), target_ettr=0.9, fabrics=("rail", "fat-tree"),
                        tiers=(2, 3), *, ckpt_cost="1min", restart="10min", share=0.1, gpus_per_node=8,
                        radixes=RADIXES):
    """Transceiver FIT and MTBF needed at each size for each fabric and tier count.

    Each row uses the smallest switch radix in ``radixes`` whose non-blocking
    fabric of that many tiers reaches the NICs; a row no radix reaches has
    ``fits`` False and NaN numbers.  Returns an :class:`OpticsRequirements`.
    ``sizes`` are GPU counts, ``ckpt_cost`` and ``restart`` durations (hours,
    or "1min"); the table gives FIT per transceiver and MTBF in hours.
    ``target_ettr`` comes right after the size, as in every planning function.

    Examples
    --------
    >>> o = optics_requirements(sizes=(10_000, 100_000), fabrics=("rail",), tiers=(2, 3))
    >>> print(o.rows[["tiers", "n_gpus", "radix", "transceivers", "fit"]].round(1).to_string(index=False))
     tiers  n_gpus  radix  transceivers   fit
         2   10000    256         40000 430.0
         2  100000    512        400000  43.0
         3   10000     64         60000 286.7
         3  100000    128        600000  28.7
    """
    if not len(sizes) or any(int(n) < 1 for n in sizes):
        raise DesignError(f"sizes must be GPU counts >= 1; got {sizes!r}")
    if isinstance(target_ettr, bool) or not isinstance(target_ettr, (int, float, np.integer, np.floating)):
        raise DesignError(f"optics_requirements(sizes, target_ettr, fabrics, tiers): target_ettr must be a number, "
                          f"got {target_ettr!r}; target_ettr now comes right after sizes (pass fabrics= by name)")
    _check_share(share, 0.0)
    rows = []
    for fabric in fabrics:
        if fabric not in ("rail", "fat-tree"):
            raise DesignError(f"fabric must be 'rail' or 'fat-tree'; got {fabric!r}")
        for k in tiers:
            for n in sizes:
                c = _fabric(fabric, int(k), int(n), gpus_per_node, radixes)
                if c is None:
                    rows.append({"fabric": fabric, "tiers": int(k), "n_gpus": int(n), "radix": 0, "transceivers": 0,
                                 "per_gpu": np.nan, "fit": np.nan, "mtbf_h": np.nan, "fits": False})
                    continue
                req = transceiver_requirement(c, target_ettr, ckpt_cost=ckpt_cost, restart=restart, share=share)
                rows.append({"fabric": fabric, "tiers": int(k), "n_gpus": int(n), "radix": c.radix,
                             "transceivers": req["transceivers"], "per_gpu": req["transceivers"] / c.n_gpus,
                             "fit": req["fit"], "mtbf_h": req["mtbf_h"], "fits": True})
    top = float(max(sizes))  # a cost model is taken at the largest size for the one headline job MTBF
    m_req = _job_mtbf_needed(target_ettr, ckpt_cost, restart, top)
    return OpticsRequirements(pd.DataFrame(rows), float(target_ettr), float(share), m_req, field_rates())
