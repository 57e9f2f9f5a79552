"""The node MTBF to put in a node vendor's contract: node hardware alone, the network and per-job causes apart.

The decision's node requirement (:func:`relmodel.decide`) counts every cause
that is not the job's own against the nodes, switch and cable faults
included, because that is what the job sees.  A node vendor answers only for
what is inside the node: its GPUs and the host (the causes that scale with
``gpu`` or ``node``, :func:`~relmodel.scale.clusters.scaling.scales_with`).
With the job's failure budget ``1/M*`` at the target (the decision's
required job MTBF) and the network (``link``) and per-job (``job``) causes
held at their observed rates at the planned size, the node hardware may fail
at most at ``1/M* - L - J`` per hour over the ``n`` nodes, so

    m_vendor = n / (1/M* - L - J),

the same budget rule as :func:`~relmodel.scale.targets.requirements.plan_requirements`
with the network moved from the node's side to the held side.  With no
network causes in the data it equals the decision's node figure.  The range
re-solves it over the same Poisson bootstrap of the counts.

An annualised failure rate (AFR) is failures per node-year, ``8,766 h / m``
(a year of 365.25 days), the figure vendors quote beside MTBF; per GPU, the
node's hardware budget spread over its GPUs (``m * GPUs per node``).
"""

import dataclasses
import math

import numpy as np

from ...errors import ModelInputError
from ...tables import Result, hours_text, number, pct, sig

__all__ = ["HOURS_PER_YEAR", "afr", "afr_text", "VendorRequirement", "vendor_requirement"]

#: Hours in a year of 365.25 days: AFR = HOURS_PER_YEAR / MTBF.
HOURS_PER_YEAR = 8766.0
#: What a node vendor answers for: the causes that scale with the GPUs or the node itself.
NODE_UNITS = ("gpu", "node")


def _finite(x):
    return x is not None and isinstance(x, (int, float, np.floating)) and math.isfinite(float(x))


def afr_text(x, unit=""):
    """An AFR for a person: "39%" above 10%, "4.9%" below, with " a node" for ``unit`` "node"; from 100% on, as
    failures a year ("1.1 failures a year"), where a share reads oddly."""
    if x is None:
        return "—"
    per = f" a {unit}" if unit else ""
    if x >= 1:   # a share of 733% reads as nonsense: say the failures
        return f"{x:.2g} failures{per} a year"
    return pct(x, 0 if x >= 0.1 else 1) + per


def afr(mtbf_h):
    """Failures per unit-year for an MTBF in hours (None for no MTBF, 0 for an unbounded one)."""
    h = None if mtbf_h is None else float(mtbf_h)
    if h is None or math.isnan(h):
        return None
    return 0.0 if math.isinf(h) else HOURS_PER_YEAR / h


@dataclasses.dataclass(frozen=True)
class VendorRequirement(Result):
    """Node hardware MTBF to demand for the target, with its range, AFR per node and the per-GPU figure.

    ``node_mtbf_h`` is None when the network and per-job causes alone use the
    whole failure budget (``reachable`` False).  ``observed_node_mtbf_h`` is
    the same quantity measured on the log's nodes (hardware inside the node
    only), ``network_per_day`` and ``per_job_per_day`` the held rates at the
    planned size.
    """

    n_nodes: int
    gpus_per_node: int
    target_ettr: float
    required_job_mtbf_h: float
    node_mtbf_h: object
    node_mtbf_lo: object
    node_mtbf_hi: object
    observed_node_mtbf_h: object
    network_per_day: float
    per_job_per_day: float
    node_hardware_per_day: float
    reachable: bool
    conf: float
    #: The decision's node requirement and today's figure, which count the network's faults against the nodes too.
    all_causes_node_mtbf_h: object = None
    all_causes_observed_h: object = None
    #: What the log's rows count: GPU nodes, or units without GPUs (disks, servers) mapped onto the planned nodes.
    unit: str = "gpu-node"

    @property
    def afr_node(self):
        """Annualised failures per node the requirement allows (None when out of reach)."""
        return afr(self.node_mtbf_h)

    @property
    def gpu_mtbf_h(self):
        """The requirement per GPU: the node's hardware budget spread over its GPUs."""
        return None if self.node_mtbf_h is None else self.node_mtbf_h * self.gpus_per_node

    @property
    def afr_gpu(self):
        """Annualised failures per GPU the requirement allows."""
        return afr(self.gpu_mtbf_h)

    @property
    def observed_afr_node(self):
        return afr(self.observed_node_mtbf_h)

    @property
    def improvement(self):
        """How many times the node hardware MTBF must grow (None when out of reach or not measured)."""
        if not (self.reachable and _finite(self.observed_node_mtbf_h) and _finite(self.node_mtbf_h)):
            return None
        return self.node_mtbf_h / self.observed_node_mtbf_h

    def to_dict(self):
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out.update(afr_node=self.afr_node, gpu_mtbf_h=self.gpu_mtbf_h, afr_gpu=self.afr_gpu,
                   observed_afr_node=self.observed_afr_node, improvement=self.improvement)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}

    def text(self):
        """The vendor's figure in one sentence, with what it holds apart."""
        target = pct(self.target_ettr, 1).replace(".0%", "%")
        if self.network_per_day == 0 and self.per_job_per_day == 0:
            held = "no network or per-job causes in the data to hold apart"
        else:
            held = (f"the network (switch, cable and optics faults, {number(self.network_per_day, 2)} a day at "
                    f"this size) and the per-job causes ({number(self.per_job_per_day, 2)} a day) held at their "
                    "observed rates")
        if not self.reachable:
            return (f"No node hardware meets the {target} target: {held} use up the job's whole failure budget "
                    f"(a job MTBF of {hours_text(self.required_job_mtbf_h)}).")
        rng = ""
        if _finite(self.node_mtbf_lo) and _finite(self.node_mtbf_hi) and sig(self.node_mtbf_lo) != sig(
                self.node_mtbf_hi):
            rng = f" ({sig(self.node_mtbf_lo)}–{sig(self.node_mtbf_hi)} h, {self.conf:.0%} range over the counts)"
        elif _finite(self.node_mtbf_lo) and not _finite(self.node_mtbf_hi):
            rng = f" (at least {hours_text(self.node_mtbf_lo)}; no upper end)"
        now = ""
        if _finite(self.observed_node_mtbf_h):
            now = (f"; today's nodes reach {hours_text(self.observed_node_mtbf_h)} "
                   f"(AFR {afr_text(self.observed_afr_node)})")
            if self.improvement is not None and self.improvement > 1:
                now += f", so {number(self.improvement, 2)}× better is needed"
            elif self.improvement is not None:
                now += f", {number(1 / self.improvement, 2)}× better than needed already"
        if self.unit not in ("gpu-node", None):   # a disk log: its failures are the disks', not the GPUs'
            what = (f"an AFR of {afr_text(self.afr_node, 'node')}, counting only the failures of the {self.unit}s the "
                    f"log records, each node of the planned job holding its share of them")
        else:
            what = (f"an AFR of {afr_text(self.afr_node, 'node')}, {afr_text(self.afr_gpu, 'GPU')} "
                    f"({hours_text(self.gpu_mtbf_h)} per GPU), counting the GPUs and the host only")
        return (f"Demand from the node vendor a node hardware MTBF of {hours_text(self.node_mtbf_h)}{rng}: {what}, "
                f"with {held}{now}.{self._beside_headline()}")

    def _beside_headline(self):
        """How this figure meets the headline's node requirement, where the network makes them differ."""
        if not (self.network_per_day > 0 and _finite(self.all_causes_node_mtbf_h)
                and hours_text(self.all_causes_node_mtbf_h) != hours_text(self.node_mtbf_h)):
            return ""
        today = (f" (today's nodes: {hours_text(self.all_causes_observed_h)})"
                 if _finite(self.all_causes_observed_h) else "")
        return (f" The headline's {hours_text(self.all_causes_node_mtbf_h)}{today} is the same target with the "
                "network's faults counted against the nodes.")


def _hardware_split(scaled):
    """Rates per hour at the planned size: (node hardware, network, per-job) and their masks over the causes."""
    unit = scaled.by_cause["scales_with"].astype(str).to_numpy()
    node_mask = np.isin(unit, NODE_UNITS)
    job_mask = unit == "job"
    net_mask = ~(node_mask | job_mask)
    rate = scaled.by_cause["rate_per_h"].to_numpy(dtype=float)
    return (float(rate[node_mask].sum()), float(rate[net_mask].sum()), float(rate[job_mask].sum()),
            node_mask, net_mask | job_mask)


def vendor_requirement(decision, *, n_boot=2000, seed=None):
    """The node MTBF a node vendor must reach for the decision's target, node hardware alone.

    ``decision`` is a :class:`~relmodel.scale.targets.decision.Decision` from
    :func:`relmodel.decide`; its scaled rates and required job MTBF are used
    as they are, so the figure follows every choice the decision made (today's
    rate, the failure law, the restart).  The range comes from ``n_boot``
    bootstrap draws of the counts (``seed=None`` draws fresh entropy).
    Returns a :class:`VendorRequirement`.

    Examples
    --------
    >>> import relmodel
    >>> d = relmodel.decide(relmodel.datasets.llama3_54day(), 16384, 0.9, "1min", "10min", n_boot=200, seed=0)
    >>> v = vendor_requirement(d, n_boot=200, seed=0)
    >>> v.node_mtbf_h > d.required_node_mtbf_h     # the network no longer counts against the node
    True
    """
    scaled = getattr(decision, "scaled", None)
    if scaled is None:
        raise ModelInputError("vendor_requirement takes the Decision relmodel.decide returns (it keeps the scaled "
                              f"rates); got {type(decision).__name__}")
    node_rate, net_rate, job_rate, node_mask, held_mask = _hardware_split(scaled)
    n_nodes = int(decision.n_nodes)
    m_req = float(decision.required_job_mtbf_h)
    room = 1.0 / m_req - net_rate - job_rate
    reachable = room > 0
    lo = hi = None
    if reachable and n_boot >= 2:
        draws = scaled.draws(int(n_boot), seed)
        room_draws = 1.0 / m_req - draws[:, held_mask].sum(axis=1)
        with np.errstate(divide="ignore"):
            node_draws = np.where(room_draws > 0, n_nodes / np.where(room_draws > 0, room_draws, 1.0), np.inf)
        a = (1.0 - decision.conf) / 2
        lo, hi = (float(q) for q in np.quantile(node_draws, [a, 1 - a], method="inverted_cdf"))
    observed = None
    if node_rate > 0 and scaled.source.n_nodes > 0:  # the same causes at the observed cluster's size
        factor = scaled.by_cause["factor"].to_numpy(dtype=float)[node_mask]
        rate_src = float((scaled.by_cause["rate_per_h"].to_numpy(dtype=float)[node_mask] / factor).sum())
        observed = scaled.source.n_nodes / rate_src if rate_src > 0 else None
    return VendorRequirement(
        n_nodes=n_nodes, gpus_per_node=int(decision.gpus_per_node), target_ettr=float(decision.target_ettr),
        required_job_mtbf_h=m_req, node_mtbf_h=n_nodes / room if reachable else None,
        node_mtbf_lo=lo if reachable else None, node_mtbf_hi=(hi if hi is None or math.isfinite(hi) else math.inf)
        if reachable else None, observed_node_mtbf_h=observed, network_per_day=24 * net_rate,
        per_job_per_day=24 * job_rate, node_hardware_per_day=24 * node_rate, reachable=bool(reachable),
        conf=float(decision.conf), all_causes_node_mtbf_h=_float_or_none(decision.required_node_mtbf_h),
        all_causes_observed_h=_float_or_none(getattr(decision, "todays_node_mtbf_h", None)),
        unit=str(getattr(decision, "source_unit", "gpu-node") or "gpu-node"))


def _float_or_none(x):
    return float(x) if _finite(x) else None
