"""Cluster shapes and their component counts.

A :class:`Cluster` describes how many GPUs a training job spans, how they are
packed (GPUs per node, nodes per rack, the NVLink scale-up domain) and the
scale-out fabric that joins them (a rail-optimised or a ToR fat tree with k
switch tiers).  :meth:`Cluster.counts` turns that into counts of GPUs, nodes,
racks, NICs, links, optical links, transceivers and switches, which is what
observed failure rates are scaled by (:mod:`relmodel.scale.clusters.scaling`).

Counting formulas (a folded-Clos fat tree of switches with ``radix`` ports;
E = number of scale-out endpoints = NICs):

* leaf (tier-1) switches: ceil(E / leaf_down), where ``leaf_down`` is the
  number of leaf ports facing NICs (radix/2 in a non-blocking tree, the NICs of
  one rack for a top-of-rack switch);
* each middle tier 2..k-1: ceil(E / (radix/2)) switches (half the ports down,
  half up);
* the top tier k: ceil(E / (oversubscription * radix)) switches, all ports down;
  ``oversubscription`` thins the uplinks into the top tier only;
* links: E NIC-to-leaf links, E links between each pair of adjacent tiers
  below the top, and E / oversubscription links into the top tier;
* optical links: all switch-to-switch links, plus the NIC-to-leaf links when
  those leave the rack (a rail-optimised fabric wires GPU slot i of every
  server in a group to rail switch i, so the first hop crosses racks);
  two transceivers per optical link (one pluggable module at each end);
* tiers, when not given: the smallest k whose capacity 2 (radix/2)^k reaches E.

These are idealised counts for planning, not a bill of materials: they ignore
front-end (storage, management) networks and spare ports.

Fault domains and spares (see :mod:`relmodel.scale.clusters.domains` and
:mod:`relmodel.scale.design.policies`): ``planes`` independent scale-out planes
multiply every scale-out count (each NIC has one link into each plane);
``domain_spares`` trays of each scale-up domain are held idle as in-domain
spares; ``spare_pool`` units (scale-up domains, or nodes under the
``"spare-pool"`` policy) are held outside the job; ``policy`` says what the job
needs when something fails.
"""

import dataclasses
import math
import numbers

import pandas as pd

from ...errors import DesignError, ModelInputError
from ...tables import html_table
from relmodel.base.escape import html_text

__all__ = ["Cluster", "COUNT_KEYS", "POLICIES"]

#: What a job needs when part of a scale-up domain fails (see :mod:`relmodel.scale.design.policies`).
POLICIES = ("whole-domain", "in-domain-spares", "spare-pool")

COUNT_KEYS = (
    "gpu", "node", "rack", "scaleup_domain", "scaleup_switch", "nic",
    "link", "optical_link", "transceiver", "switch", "job",
)


@dataclasses.dataclass(frozen=True)
class Cluster:
    """A GPU cluster (or the slice of one a training job runs on).

    Parameters
    ----------
    n_gpus : GPUs in the job.
    gpus_per_node : GPUs per server (node); a failed node takes all of them down.
    nodes_per_rack : servers per rack.
    scaleup_gpus : GPUs per NVLink scale-up domain (defaults to one node).
    scaleup_switches : NVLink switch chips or trays per scale-up domain.
    nics_per_node : scale-out NICs per node (defaults to one per GPU).
    fabric : ``"rail"`` (rail-optimised) or ``"fat-tree"`` (top-of-rack leaves).
    radix : ports per scale-out switch.
    tiers : switch tiers k; ``None`` picks the fewest that fit.
    oversubscription : down/up ratio into the top tier (1 = non-blocking).
    leaf_down : NIC-facing ports per leaf; ``None`` means radix/2.
    optical_nic_links : whether NIC-to-leaf links are optical; ``None`` means
        yes for a rail fabric and no (copper inside the rack) for a fat tree.
    transceivers_per_link : pluggable optics per optical link.
    planes : independent scale-out planes (2 = dual-plane or dual-ToR).
    domain_spares : trays (nodes) of each scale-up domain kept idle as spares.
    spare_pool : spare units held outside the job: scale-up domains, or nodes
        under the ``"spare-pool"`` policy.
    policy : ``"whole-domain"``, ``"in-domain-spares"`` or ``"spare-pool"``;
        ``None`` picks in-domain spares when ``domain_spares`` > 0, whole
        domains when a domain spans several nodes, else the spare pool.
    name, assumptions : free text shown in tables and reports.
    tp_span : GPUs one tensor- or expert-parallel group spans (``None``:
        not stated).  When it is more than a node's GPUs, a group needs the
        NVLink domain it runs in, so a spare node from another domain cannot
        stand in: the ``"spare-pool"`` policy is refused for such a design.
    """

    n_gpus: int
    gpus_per_node: int = 8
    nodes_per_rack: int = 2
    scaleup_gpus: int = None
    scaleup_switches: int = 0
    nics_per_node: int = None
    fabric: str = "rail"
    radix: int = 64
    tiers: int = None
    oversubscription: float = 1.0
    leaf_down: int = None
    optical_nic_links: bool = None
    transceivers_per_link: int = 2
    planes: int = 1
    domain_spares: int = 0
    spare_pool: int = 0
    policy: str = None
    name: str = "cluster"
    assumptions: str = ""
    tp_span: int = None

    def __post_init__(self):
        for field in ("n_gpus", "gpus_per_node", "nodes_per_rack", "radix"):
            _whole(field, getattr(self, field), minimum=1)
        for field in ("scaleup_gpus", "nics_per_node", "tiers", "leaf_down"):
            if getattr(self, field) is not None:
                _whole(field, getattr(self, field), minimum=1)
        _whole("scaleup_switches", self.scaleup_switches, minimum=0)
        _whole("transceivers_per_link", self.transceivers_per_link, minimum=0)
        _whole("planes", self.planes, minimum=1)
        _whole("domain_spares", self.domain_spares, minimum=0)
        _whole("spare_pool", self.spare_pool, minimum=0)
        if self.tp_span is not None:
            _whole("tp_span", self.tp_span, minimum=1)
        self._check_domains()
        if self.fabric not in ("rail", "fat-tree"):
            raise ModelInputError(f"fabric must be 'rail' or 'fat-tree'; got {self.fabric!r}")
        if self.radix < 2 or self.radix % 2:
            raise ModelInputError(f"radix must be an even number of ports >= 2; got {self.radix!r}")
        if not (self.oversubscription >= 1.0 and math.isfinite(self.oversubscription)):
            raise ModelInputError(f"oversubscription must be a finite ratio >= 1; got {self.oversubscription!r}")
        if self.tiers is not None and self.capacity(self.tiers) < self.n_nics:
            raise ModelInputError(
                f"{self.tiers} tiers of radix-{self.radix} switches reach only {self.capacity(self.tiers):,} "
                f"NICs, fewer than the {self.n_nics:,} this cluster has; raise tiers or radix, or pass tiers=None"
            )

    def _check_domains(self):
        size = self.scaleup_gpus or self.gpus_per_node
        if size % self.gpus_per_node:
            raise DesignError(f"a scale-up domain of {size} GPUs is not a whole number of {self.gpus_per_node}-GPU "
                              f"nodes; use a multiple of {self.gpus_per_node} for scaleup_gpus")
        if self.domain_spares >= self.trays_per_domain and self.domain_spares:
            raise DesignError(f"{self.domain_spares} spare trays per domain leave none of the {self.trays_per_domain} "
                              f"trays for the job; use 0 to {self.trays_per_domain - 1}")
        if self.policy not in (None, *POLICIES):
            raise DesignError(f"policy must be one of {', '.join(POLICIES)} or None; got {self.policy!r}")
        if self.policy == "in-domain-spares" and self.trays_per_domain == 1:
            raise DesignError("a scale-up domain of one node has no room for spare trays; use the 'spare-pool' or "
                              "'whole-domain' policy, or a scaleup_gpus of several nodes")
        if self.policy == "in-domain-spares" and not self.domain_spares:
            raise DesignError(f"the 'in-domain-spares' policy needs spare trays in each domain: use domain_spares "
                              f"from 1 to {self.trays_per_domain - 1}, or another policy")
        if self.policy == "spare-pool" and self.spans_domain:
            raise DesignError(f"a parallel group of {self.tp_span} GPUs spans the {size}-GPU scale-up domain, so a "
                              f"spare node from another domain cannot stand in for a failed tray; use the "
                              f"'whole-domain' or 'in-domain-spares' policy, or a tp_span of at most "
                              f"{self.gpus_per_node}")

    @property
    def spans_domain(self):
        """Whether a tensor- or expert-parallel group needs more than one node of its scale-up domain."""
        return self.tp_span is not None and self.tp_span > self.gpus_per_node and self.trays_per_domain > 1

    # ----- packing -------------------------------------------------------
    @property
    def n_nodes(self):
        """Nodes (servers), rounded up."""
        return math.ceil(self.n_gpus / self.gpus_per_node)

    @property
    def n_racks(self):
        return math.ceil(self.n_nodes / self.nodes_per_rack)

    @property
    def n_scaleup_domains(self):
        return math.ceil(self.n_gpus / (self.scaleup_gpus or self.gpus_per_node))

    @property
    def trays_per_domain(self):
        """Nodes (trays) per scale-up domain."""
        return (self.scaleup_gpus or self.gpus_per_node) // self.gpus_per_node

    @property
    def domain_policy(self):
        """The policy in force: ``policy``, or the one implied by the spares (see class notes)."""
        if self.policy is not None:
            return self.policy
        if self.domain_spares:
            return "in-domain-spares"
        return "whole-domain" if self.trays_per_domain > 1 else "spare-pool"

    @property
    def n_nics(self):
        return self.n_nodes * (self.nics_per_node or self.gpus_per_node)

    # ----- fabric --------------------------------------------------------
    def capacity(self, tiers):
        """NICs a non-blocking k-tier fat tree of this radix can reach: 2 (radix/2)^k."""
        return 2 * (self.radix // 2) ** int(tiers)

    @property
    def n_tiers(self):
        """Switch tiers: the given ``tiers``, or the fewest whose capacity fits."""
        if self.tiers is not None:
            return int(self.tiers)
        k = 1
        while self.capacity(k) < self.n_nics and self.n_nics > self.radix:
            k += 1
        return k

    def switches_per_tier(self):
        """Scale-out switch count of each tier, leaf first (see module notes)."""
        e, k, half = self.n_nics, self.n_tiers, self.radix // 2
        if k == 1:
            return [math.ceil(e / self.radix)]
        leaf = math.ceil(e / (self.leaf_down or half))
        middle = [math.ceil(e / half)] * (k - 2)
        top = math.ceil(e / (self.oversubscription * self.radix))
        return [leaf, *middle, top]

    def links_per_tier(self):
        """Links entering each tier from below: NIC-to-leaf first, then between tiers."""
        e, k = self.n_nics, self.n_tiers
        if k == 1:
            return [e]
        return [e] + [e] * (k - 2) + [math.ceil(e / self.oversubscription)]

    @property
    def nic_links_optical(self):
        if self.optical_nic_links is None:
            return self.fabric == "rail"
        return bool(self.optical_nic_links)

    def counts(self):
        """Component counts as a dict keyed by :data:`COUNT_KEYS` (``job`` is 1)."""
        links = [n * self.planes for n in self.links_per_tier()]
        optical = sum(links[1:]) + (links[0] if self.nic_links_optical else 0)
        return {
            "gpu": self.n_gpus,
            "node": self.n_nodes,
            "rack": self.n_racks,
            "scaleup_domain": self.n_scaleup_domains,
            "scaleup_switch": self.n_scaleup_domains * self.scaleup_switches,
            "nic": self.n_nics,
            "link": sum(links),
            "optical_link": optical,
            "transceiver": optical * self.transceivers_per_link,
            "switch": sum(self.switches_per_tier()) * self.planes,
            "job": 1,
        }

    def fault_domains(self, readable=False):
        """What one failure takes down at each level, and GPUs lost per event (:mod:`relmodel.scale.clusters.domains`)."""
        from .domains import fault_domains
        return fault_domains(self, readable)

    def to_frame(self):
        """Counts as a two-column table (component, count), plus per-GPU ratios."""
        c = self.counts()
        return pd.DataFrame({
            "component": list(c),
            "count": list(c.values()),
            "per_gpu": [v / self.n_gpus for v in c.values()],
        })

    def with_gpus(self, n_gpus, name=None):
        """The same design at ``n_gpus`` GPUs.

        Automatic tiers are re-chosen; fixed tiers are kept unless too few to
        reach the new NIC count, in which case tiers are added until they fit.
        """
        n = int(n_gpus)
        grown = dataclasses.replace(self, n_gpus=n, tiers=None, name=name or f"{self.name} at {n:,} GPUs")
        if self.tiers is not None:
            grown = dataclasses.replace(grown, tiers=max(self.tiers, grown.n_tiers))
        return grown

    def _repr_html_(self):
        planes = f", {self.planes} planes" if self.planes > 1 else ""
        head = f"<p><b>{html_text(self.name)}</b>: {self.n_gpus:,} GPUs, {self.n_tiers}-tier {html_text(self.fabric)}{planes}</p>"
        notes = f"<p>{html_text(self.assumptions)}</p>" if self.assumptions else ""
        if self.domain_spares or self.spare_pool:
            notes = (f"<p>Policy {html_text(self.domain_policy)}: {self.domain_spares} spare trays per domain, "
                     f"{self.spare_pool:,} spare units in the pool</p>") + notes
        return head + html_table(self.to_frame(), index=False) + notes

    # ----- presets -------------------------------------------------------
    @classmethod
    def llama3(cls, n_gpus=16_384):
        """Llama-3-like H100 cluster (Llama 3 paper, arXiv 2407.21783, sections 3.3.1 and 3.3.4).

        16,384 H100 GPUs, 8 per server (2,048 servers), two servers and one
        top-of-rack switch per rack, one 400G RoCE NIC per GPU, a three-tier
        Clos with 1:7 oversubscription into the aggregation tier.  Assumed:
        64-port switches above the ToR, copper NIC-to-ToR cables, 4 NVSwitch
        chips per 8-GPU HGX server.
        """
        return cls(
            n_gpus=n_gpus, gpus_per_node=8, nodes_per_rack=2, scaleup_gpus=8, scaleup_switches=4,
            fabric="fat-tree", radix=64, tiers=3, oversubscription=7.0, leaf_down=16,
            name="Llama-3-like H100", assumptions=(
                "Llama 3 (arXiv 2407.21783, 3.3.1): 8 H100 per server, 2 servers per rack under one ToR, "
                "3-tier RoCE Clos, 1:7 oversubscribed at the aggregation tier. Assumed: radix-64 switches, "
                "copper NIC-to-ToR, optics on all switch-to-switch links, 4 NVSwitch chips per server."),
        )

    @classmethod
    def megascale(cls, n_gpus=12_288):
        """MegaScale-like rail-optimised cluster (MegaScale, NSDI 2024, arXiv 2402.15627).

        12,288 GPUs, 8 per server (1,536 servers).  Assumed: one 400G NIC per
        GPU, radix-64 switches, non-blocking, optical from the NIC up (rail
        switches sit outside the rack), 4 NVSwitch chips per server, 4 servers per rack.
        """
        return cls(
            n_gpus=n_gpus, gpus_per_node=8, nodes_per_rack=4, scaleup_gpus=8, scaleup_switches=4,
            fabric="rail", radix=64, name="MegaScale-like rail-optimised", assumptions=(
                "MegaScale (arXiv 2402.15627): 12,288 GPUs, rail-optimised fabric. Assumed: 8 GPUs and "
                "8 x 400G NICs per server, 4 servers per rack, radix-64 non-blocking switches, "
                "optics from the NIC up, tiers chosen to fit."),
        )

    @classmethod
    def nvl72(cls, n_gpus=100_800):
        """NVL72 rack-scale cluster: 72 GPUs per NVLink rack, racks joined by optics.

        72 GPUs per rack joined by nine NVLink switch trays over copper;
        racks joined by RoCE over pluggable optics (REFERENCE: Meta's
        rack-scale systems).  Assumed: 18 compute trays (nodes) of 4 GPUs per
        rack, one 800G NIC per GPU, rail-optimised, radix-64 switches,
        non-blocking, tiers chosen to fit.  The default 100,800 GPUs is 1,400 racks.
        """
        return cls(
            n_gpus=n_gpus, gpus_per_node=4, nodes_per_rack=18, scaleup_gpus=72, scaleup_switches=9,
            fabric="rail", radix=64, name="NVL72 rack-scale", assumptions=(
                "72 GPUs per rack on one NVLink domain with 9 NVLink switch trays (copper); racks joined by "
                "RoCE over pluggable optics. Assumed: 18 compute trays of 4 GPUs per rack, one 800G NIC per "
                "GPU, rail-optimised radix-64 non-blocking switches, tiers chosen to fit."),
        )

    @classmethod
    def presets(cls):
        """The three named presets, keyed by short name."""
        return {"llama3": cls.llama3(), "megascale": cls.megascale(), "nvl72": cls.nvl72()}


def _whole(name, value, minimum):
    ok = isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not ok:
        raise ModelInputError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    if value < minimum:
        raise ModelInputError(f"{name} must be a whole number >= {minimum}; got {value!r}")
