"""Say how each design's scale-out fabric is sized to the job.

A preset such as :meth:`Cluster.llama3` fixes its switch tiers (3) and radix
(64) as built; at more NICs than those reach (2 (radix/2)^tiers) the fabric
cannot be built as stated, so :func:`relmodel.scale.design.designs.design_presets`
keeps the radix and adds the fewest tiers that reach every NIC (the rule of
:meth:`Cluster.with_gpus`).  :func:`fabric_text` states the tiers and radix
of each design, naming those that grew.
"""

from ..clusters.cluster import Cluster
from .designs import design_presets

__all__ = ["BUILT_TIERS", "fabric_choice", "fabric_text"]

#: Switch tiers of each named design as published (designs not listed choose theirs to fit).
BUILT_TIERS = {"h100-fat-tree": Cluster.llama3().tiers}


def fabric_choice(cluster, built_tiers=None):
    """One phrase: the tiers and radix of ``cluster``'s fabric, and whether they grew.

    ``built_tiers`` is the tier count of the design as published (e.g. 3 for
    Llama 3); when the sized fabric needs more, the phrase says so.

    Examples
    --------
    >>> fabric_choice(Cluster.llama3().with_gpus(131_072), built_tiers=3)
    '4 tiers of radix-64 switches (one more than the 3 of the design as built, to reach 131,072 NICs)'
    >>> fabric_choice(Cluster.llama3())
    '3 tiers of radix-64 switches'
    """
    k = cluster.n_tiers
    text = f"{k} tier{'s' * (k != 1)} of radix-{cluster.radix} switches"
    if built_tiers is not None and k > built_tiers:
        extra = k - built_tiers
        more = "one more" if extra == 1 else f"{extra} more"
        text += f" ({more} than the {built_tiers} of the design as built, to reach {cluster.n_nics:,} NICs)"
    return text


def fabric_text(designs, n_gpus):
    """A sentence naming the fabric of each design as sized for ``n_gpus`` GPUs.

    ``designs`` holds names from ``DESIGNS`` or :class:`Cluster` objects
    (shown as they are).

    Examples
    --------
    >>> fabric_text(["h100-fat-tree"], 16_384)
    'Scale-out fabrics as sized for this job: H100, fat tree: 3 tiers of radix-64 switches.'
    >>> fabric_text(["h100-fat-tree"], 131_072)[41:]
    'H100, fat tree: 4 tiers of radix-64 switches (one more than the 3 of the design as built, to reach 131,072 NICs).'
    """
    if isinstance(designs, (str, Cluster)):
        designs = [designs]
    presets = None
    parts = []
    for d in designs:
        if isinstance(d, Cluster):
            parts.append(f"{d.name}: {fabric_choice(d)}")
            continue
        presets = presets or design_presets(n_gpus)
        if d in presets:
            parts.append(f"{presets[d].name}: {fabric_choice(presets[d], BUILT_TIERS.get(d))}")
    return "Scale-out fabrics as sized for this job: " + "; ".join(parts) + "."
