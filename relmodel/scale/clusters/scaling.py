"""Scale observed interruption rates from one cluster to another.

Each cause of interruption is assumed to strike each unit of what it lives in
at a constant rate, so the job-level rate scales with how many of those units
the target cluster has (counts from :meth:`relmodel.Cluster.counts`):

* ``gpu``: GPU faults (Llama 3 Table 5: Faulty GPU, HBM3, SRAM, GPU System
  Processor, Silent Data Corruption, Thermal Interface + Sensor);
* ``node``: host faults (NIC, SSD, power supply, chassis, IO board, CPU,
  system memory) and unplanned host maintenance;
* ``link``: network switch and cable faults, per scale-out link.  Links per
  GPU equal the number of switch tiers, so this is close to a per-GPU proxy
  and grows when a bigger cluster needs another tier;
* ``job``: software bugs, dependencies and NCCL watchdog timeouts of unknown
  cause.  These belong to the training job and its software stack, not to any
  piece of hardware, so they do **not** grow with the GPU count: at 100k GPUs
  they matter less in share but set a floor on the job's failure rate that no
  hardware can remove.

The mapping is a modelling choice; pass ``units={"Component": "node", ...}``
(component names or categories) to override it.  Published figures: Llama 3
(arXiv 2407.21783, section 3.3.4, Table 5), 419 unexpected interruptions in
54 days on 16,384 GPUs.
"""

import dataclasses
import math
import re

import numpy as np
import pandas as pd
from scipy import stats

from .cluster import COUNT_KEYS, Cluster
from ...defaults import GPUS_PER_NODE
from ...errors import CountError, ModelInputError, ResourceLimitError
from ...tables import Result, people_table
from ...tables import pct as pct_text

__all__ = [
    "CATEGORY_UNITS", "scales_with", "job_rates", "cluster_of", "grow_cluster",
    "ScaledRates", "scale_rates", "scale_job_mtbf", "garwood", "parse_units",
]

# Llama 3 Table 5 categories.  "Unknown" and "Software" are left to the keywords:
# in node logs (LANL, StepFun) they are node faults, not the job's.
MAX_BOOT = 200_000  # bootstrap draws: beyond this memory, not precision, is what grows

CATEGORY_UNITS = {
    "gpu": "gpu", "host": "node", "unplanned maintenance": "node", "network": "link", "dependency": "job",
}
_KEYWORDS = (
    ("job", r"software bug|dependenc|nccl|watchdog|file ?system|lustre|gpfs|\bnfs\b|scheduler|slurm|"
            r"network core|core switch|power (outage|failure|loss|event)|facility|cooling|cluster[- ]wide"),
    ("gpu", r"\bgpu\b|hbm|sram|silent data|\bsdc\b|nvlink|\bxid\b|\becc\b"),
    ("link", r"network|switch|cable|optic|transceiver|link down"),
)
_RATE_COLUMNS = ("component", "category", "count", "exposure_h")


def scales_with(component, category=None, units=None):
    """What a cause's rate scales with: one of ``gpu``, ``node``, ``link``, ``job`` (or any count key).

    ``units`` overrides by component name or by category (case-insensitive);
    otherwise Llama 3 categories are looked up, then keywords in the
    component name, and anything else is counted per node.
    """
    for key in (component, category):
        for name, unit in (units or {}).items():
            if key is not None and str(name).lower() == str(key).lower():
                if unit not in COUNT_KEYS:
                    raise ModelInputError(f"unit for {name!r} must be one of {', '.join(COUNT_KEYS)}; got {unit!r}")
                return unit
    text = str(component).lower()
    cat = str(category).lower() if category is not None else ""
    if cat in CATEGORY_UNITS:
        return CATEGORY_UNITS[cat]
    for unit, pattern in _KEYWORDS:
        if re.search(pattern, text):
            return unit
    return "node"


def parse_units(pairs):
    """``{cause: unit}`` from ``CAUSE=UNIT`` strings (the CLI's and the report's ``scale``); None when empty."""
    out = {}
    for pair in ([pairs] if isinstance(pairs, str) else pairs or ()):
        name, sep, unit = str(pair).rpartition("=")
        if not sep or not name.strip():
            raise ModelInputError(f"scale takes CAUSE=UNIT, e.g. 'Network Switch/Cable=transceiver' or "
                                  f"'File system=job'; got {pair!r}")
        out[name.strip()] = unit.strip()
    return out or None


def garwood(count, exposure_h, conf=0.95):
    """Exact (Garwood 1936) two-sided Poisson interval for a rate: (lo, hi) per hour."""
    c = np.asarray(count, dtype=float)
    a = 1.0 - conf
    lo = np.where(c > 0, stats.chi2.ppf(a / 2, 2 * c) / 2, 0.0)
    hi = stats.chi2.ppf(1 - a / 2, 2 * c + 2) / 2
    return lo / exposure_h, hi / exposure_h


def job_rates(source, conf=0.95):
    """Per-job rates of each cause (no Total row) from a CountTable, InterruptionLog or rates table.

    A DataFrame is taken as already computed by :func:`relmodel.stats.component_rates`
    with ``per="job"`` (columns component, category, count, exposure_h at least).
    """
    if isinstance(source, pd.DataFrame):
        df = source.copy()
    else:
        from ...stats.rates import component_rates
        df = component_rates(source, per="job", conf=conf)
    missing = [c for c in _RATE_COLUMNS if c not in df.columns]
    if missing:
        raise ModelInputError(f"a rates table needs columns {', '.join(_RATE_COLUMNS)}; missing {', '.join(missing)}")
    df = df[df["component"].astype(str) != "Total"].reset_index(drop=True)
    counts = df["count"].to_numpy(dtype=float)
    if np.any(~np.isfinite(counts)) or np.any(counts < 0) or np.any(counts != np.round(counts)):
        raise CountError("counts in a rates table must be whole numbers >= 0")
    exposure = df["exposure_h"].to_numpy(dtype=float)
    if np.any(~(exposure > 0)):
        raise ModelInputError("exposure_h in a rates table must be positive hours")
    df["rate_per_h"] = counts / exposure
    if "rate_lo" not in df or "rate_hi" not in df:
        df["rate_lo"], df["rate_hi"] = garwood(counts, exposure, conf)
    return df


def cluster_of(source, gpus_per_node=None):
    """The cluster a log or count table was observed on.

    Uses the source's ``n_gpus`` / ``n_nodes`` and ``gpus_per_node`` attributes.
    The cluster is chosen by what the data say, never by their name: a count
    table whose citation is the Llama 3 paper (the bundled one) gets the
    :meth:`Cluster.llama3` preset.
    """
    if isinstance(source, Cluster):
        return source
    gpn = gpus_per_node or getattr(source, "gpus_per_node", None) or 8
    n_gpus = getattr(source, "n_gpus", None)
    if n_gpus is None and getattr(source, "n_nodes", None):
        n_gpus = int(source.n_nodes) * int(gpn)
    if n_gpus is None:
        raise ModelInputError(
            "cannot tell how many GPUs the source was observed on; pass source_cluster=Cluster(n_gpus=...)")
    if "Llama 3 Herd" in str(getattr(source, "source", "") or "") and gpn == 8:
        return Cluster.llama3(n_gpus=int(n_gpus))
    return Cluster(n_gpus=int(n_gpus), gpus_per_node=int(gpn), name=str(getattr(source, "name", "source")))


def gpu_count(name, value):
    """``value`` as an int if it is a whole, finite number of GPUs (1 or more); else ModelInputError."""
    ok = isinstance(value, (int, np.integer)) or (isinstance(value, (float, np.floating)) and np.isfinite(value)
                                                 and float(value).is_integer())
    if isinstance(value, bool) or not ok or value < 1 or value > 2 ** 53:
        raise ModelInputError(f"{name} must be a whole number of GPUs, 1 or more; got {value!r}")
    return int(value)


def grow_cluster(target, source, gpus_per_node=None):
    """A :class:`Cluster` as given, or the source's design grown to ``target`` GPUs."""
    if isinstance(target, Cluster):
        return target
    grown = source.with_gpus(gpu_count("n_gpus", target))
    if gpus_per_node is not None and gpus_per_node != grown.gpus_per_node:
        grown = dataclasses.replace(grown, gpus_per_node=int(gpus_per_node), nics_per_node=None,
                                    scaleup_gpus=None)
    return grown


def _mtbf(rate):
    """1/rate in hours; ``inf`` for a rate of 0 (no failure expected: the MTBF is unbounded, not an error)."""
    rate = float(rate)
    return math.inf if rate <= 0 else 1.0 / rate


@dataclasses.dataclass(frozen=True)
class ScaledRates(Result):
    """Rates scaled to a target cluster.

    ``by_cause`` has one row per cause: component, category, scales_with, count,
    source_units, target_units, factor, rate_per_h, rate_lo, rate_hi (exact
    Garwood bounds scaled by the same factor), per_day, share.  Job-level
    totals come with a parametric-bootstrap interval over the Poisson counts.
    """

    by_cause: pd.DataFrame
    source: Cluster
    target: Cluster
    job_rate_per_h: float
    job_rate_lo: float
    job_rate_hi: float
    conf: float

    @property
    def job_mtbf_h(self):
        return _mtbf(self.job_rate_per_h)

    @property
    def job_mtbf_lo(self):
        return _mtbf(self.job_rate_hi)

    @property
    def job_mtbf_hi(self):
        """The MTBF's upper bound: ``inf`` (unbounded) when the bootstrap's lower rate is 0 (a few interruptions)."""
        return _mtbf(self.job_rate_lo)

    @property
    def per_day(self):
        return 24.0 * self.job_rate_per_h

    def rate_of(self, unit):
        """Summed rate per hour of the causes that scale with ``unit``."""
        return float(self.by_cause.loc[self.by_cause["scales_with"] == unit, "rate_per_h"].sum())

    def draws(self, n_boot=2000, seed=None):
        """Parametric-bootstrap rates, shape (n_boot, causes): Poisson(count) / exposure * factor.

        ``n_boot`` is at most :data:`MAX_BOOT`; more raises :class:`ResourceLimitError`.
        """
        if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
            raise ModelInputError(f"n_boot must be a whole number of 1 or more; got {n_boot!r}")
        if n_boot > MAX_BOOT:
            raise ResourceLimitError(f"n_boot={n_boot:,} bootstrap draws is more than relmodel computes "
                                     f"(at most {MAX_BOOT:,}); a few thousand give intervals to two digits")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ModelInputError(f"seed must be a whole number of 0 or more, or None; got {seed!r}")
        rng = np.random.default_rng(seed)
        t = self.by_cause
        counts = rng.poisson(t["count"].to_numpy(dtype=float), size=(int(n_boot), len(t)))
        return counts / t["exposure_h"].to_numpy(dtype=float) * t["factor"].to_numpy(dtype=float)

    def to_frame(self):
        total = {
            "component": "Total", "category": "", "scales_with": "", "count": self.by_cause["count"].sum(),
            "rate_per_h": self.job_rate_per_h, "rate_lo": self.job_rate_lo, "rate_hi": self.job_rate_hi,
            "per_day": self.per_day, "share": 1.0,
        }
        return pd.concat([self.by_cause, pd.DataFrame([total])], ignore_index=True)

    def text(self):
        pct = f"{100 * self.conf:g}%"
        return (f"{self.source.name} ({self.source.n_gpus:,} GPUs) scaled to {self.target.n_gpus:,} GPUs: "
                f"{self.per_day:.2f} interruptions/day, job MTBF {self.job_mtbf_h:.3g} h "
                + (f"({self.job_mtbf_lo:.3g}–{self.job_mtbf_hi:.3g} h, {pct})." if math.isfinite(self.job_mtbf_hi)
                   else f"(at least {self.job_mtbf_lo:.3g} h, {pct}; no upper end: too few interruptions to bound "
                        "the rate from below)."))

    def _people(self):
        t = self.to_frame()
        pct = f"{100 * self.conf:g}%"
        return people_table(pd.DataFrame({
            "cause": t["component"], "category": t["category"], "grows with": t["scales_with"],
            "interruptions seen": t["count"], "per day": t["per_day"],
            f"per day, {pct} low": 24 * t["rate_lo"], f"per day, {pct} high": 24 * t["rate_hi"],
            "share": t["share"]}), {"share": pct_text})

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def scale_rates(rates, source_cluster=None, target_cluster=None, *, units=None, conf=0.95, n_boot=4000, seed=None):
    """Scale per-job rates observed on ``source_cluster`` to ``target_cluster`` (a Cluster or a GPU count).

    ``rates`` is a CountTable, an InterruptionLog or a per-job rates DataFrame.
    Each cause's rate is multiplied by target_units / source_units of what it
    scales with (:func:`scales_with`).  Per-cause bounds are the exact Garwood
    bounds scaled; the job total's bounds are bootstrap percentiles.

    Rates are per hour; MTBFs in hours.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> s = scale_rates(llama3_54day(), target_cluster=100_000, n_boot=200, seed=0)
    >>> round(s.job_mtbf_h, 3), round(s.per_day, 1)      # job MTBF (hours), interruptions a day
    (0.555, 43.3)
    """
    src = cluster_of(rates if source_cluster is None else source_cluster)
    tgt = grow_cluster(src.n_gpus if target_cluster is None else target_cluster, src)
    df = job_rates(rates, conf=conf)
    known = {str(x).lower() for x in pd.concat([df["component"], df["category"]])}
    unknown = [k for k in (units or {}) if str(k).lower() not in known]
    if unknown:
        raise ModelInputError(f"no cause or category named {', '.join(map(repr, unknown))}; "
                              f"valid: {', '.join(dict.fromkeys(map(str, df['component'])))}")
    s_counts, t_counts = src.counts(), tgt.counts()
    df["scales_with"] = [scales_with(c, k, units) for c, k in zip(df["component"], df["category"])]
    df["source_units"] = [s_counts[u] for u in df["scales_with"]]
    df["target_units"] = [t_counts[u] for u in df["scales_with"]]
    df["factor"] = df["target_units"] / df["source_units"]
    for col in ("rate_per_h", "rate_lo", "rate_hi"):
        df[col] = df[col] * df["factor"]
    total = float(df["rate_per_h"].sum())
    df["per_day"] = 24.0 * df["rate_per_h"]
    df["share"] = df["rate_per_h"] / total if total > 0 else 0.0
    cols = ["component", "category", "scales_with", "count", "exposure_h", "source_units", "target_units",
            "factor", "rate_per_h", "rate_lo", "rate_hi", "per_day", "share"]
    out = ScaledRates(df[cols], src, tgt, total, total, total, conf)
    sums = out.draws(n_boot, seed).sum(axis=1)
    a = (1.0 - conf) / 2
    lo, hi = np.quantile(sums, [a, 1 - a], method="inverted_cdf")
    return dataclasses.replace(out, job_rate_lo=float(lo), job_rate_hi=float(hi))


def scale_job_mtbf(source, n_gpus, gpus_per_node=GPUS_PER_NODE, *, source_cluster=None, units=None):
    """Job MTBF in hours at ``n_gpus`` GPUs, scaling the rates a source was observed at.

    ``source`` is a CountTable or InterruptionLog (through
    :func:`relmodel.stats.component_rates`), or a per-job rates DataFrame together
    with ``source_cluster``.  E.g. the Llama 3 counts give about 3.1 h at 16,384 GPUs.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import llama3_54day
    >>> round(scale_job_mtbf(llama3_54day(), 16_384), 3), round(scale_job_mtbf(llama3_54day(), 100_000), 3)   # hours
    (3.093, 0.555)
    """
    src = cluster_of(source if source_cluster is None else source_cluster)
    tgt = grow_cluster(n_gpus, src, gpus_per_node=gpus_per_node)
    return scale_rates(source, src, tgt, units=units, n_boot=1, seed=0).job_mtbf_h


def job_mtbf_from_source(source, gpus=None, gpus_per_node=GPUS_PER_NODE):
    """Job MTBF (hours) of a count table or log, scaled to ``gpus`` GPUs when given."""
    if gpus is None:
        from ...stats.rates import component_rates
        df = component_rates(source, per="job")
        return float(df.loc[df["component"] == "Total", "mtbf_h"].iloc[0])
    gpus = gpu_count("gpus", gpus)
    return float(scale_job_mtbf(source, gpus, gpus_per_node=gpus_per_node))
