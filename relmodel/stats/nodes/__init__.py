"""Nodes: bad ("lemon") nodes and repairs that do not fix them, estimated from an interruption log.

Belongs here: what one node's failure history says about that node, against
the rest of the fleet: each node's in-service intervals between failures
(:mod:`.intervals`), the two-class model of good and bad nodes with imperfect
repairs and its maximum-likelihood fit (:mod:`.twoclass`), the test of a
homogeneous fleet against an overdispersed one and the worst nodes' share of
failures against a homogeneous envelope (:mod:`.dispersion`), the result
(:mod:`.result`) and the one call (:mod:`.estimate`).  May import the data
layer (logs, sources) and the base (errors, units, tables), plus numpy,
pandas and scipy; never another part of ``relmodel.stats``, never planning or presentation.
"""

from .estimate import bad_nodes
from .result import BadNodes

__all__ = ["BadNodes", "bad_nodes"]
