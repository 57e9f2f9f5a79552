"""The dependency model of one 3D-parallel training step, shared by every step and data-parallel rank.

A model-parallel group is one worker per pipeline stage (the tensor-parallel
ranks of a stage move in lock step, so one stands for all).  Its operations
are named by (stage, op type, sequence number within the step), and every
step and every data-parallel (DP) rank runs the same operations in the same
order, so one graph serves them all.  Edges, per stage:

* the compute stream: forward and backward computes in schedule order
  (1F1B, or interleaved 1F1B when there are virtual stages);
* four pipeline streams (forward send, forward receive, backward send,
  backward receive), each in sequence order; the k-th send of a direction
  waits for the k-th compute of that direction, the k-th receive waits for
  the (k-1)-th compute of that direction and feeds the k-th; the first
  backward send and receive wait for the compute two before the first
  backward (where the steady 1F1B phase starts);
* the data-parallel stream: parameter all-gathers (the first feeds the first
  forward of its model chunk), then gradient reduce-scatters;
* after the last compute: garbage collection, the layer-norm all-reduce, the
  embedding all-reduce (first and last stage), the gradient reduce-scatters,
  gradient clipping, the optimizer.

Communication operations finish together: a group (a send with its peer's
receive; the embedding all-reduce of the first and last stage; gradient
clipping across all stages; each DP collective, which also spans every DP
rank) ends at the latest start of its members plus each member's own
transfer time.  A collective therefore waits for its slowest member.
This is the model of Lin et al., "Understanding Stragglers in Large Model
Training Using What-if Analysis" (OSDI 2025, arXiv 2505.05713, section 3),
written afresh for relmodel.
"""

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..errors import OpGraphError

__all__ = ["OpGraph", "build_graph", "one_f_one_b", "interleaved_1f1b", "COMPUTE", "P2P", "DP_COLLECTIVES", "TAIL",
           "COMM_TYPES"]

FWD, BWD = "forward-compute", "backward-compute"
COMPUTE = (FWD, BWD)
P2P = ("forward-send", "forward-recv", "backward-send", "backward-recv")
AG, RS = "params-all-gather", "grads-reduce-scatter"
DP_COLLECTIVES = (AG, RS)
GC, LN, EMB, CLIP, OPT = ("gc", "layernorm-grads-all-reduce", "embedding-grads-all-reduce",
                          "optimizer-clip-main-grad", "optimizer")
TAIL = (GC, LN, EMB, CLIP, OPT)
COMM_TYPES = P2P + DP_COLLECTIVES + (LN, EMB, CLIP)  # communication in kind: typical time is the median


@dataclass(frozen=True)
class OpGraph:
    """Operations of one model-parallel group and their dependencies.

    ``stage``, ``optype``, ``seq`` describe node i; ``deps[i]`` are the nodes
    it waits for; ``group[i]`` is its communication group (-1 for compute);
    ``group_members[g]`` and ``group_dp[g]`` (does the group span the DP
    ranks) describe group g.  ``order`` lists units (a node or a group's
    members) in an order that respects every dependency.
    """

    stage: np.ndarray
    optype: np.ndarray
    seq: np.ndarray
    deps: tuple
    group: np.ndarray
    group_members: tuple
    group_dp: np.ndarray
    order: tuple
    chunk: np.ndarray = None  # model chunk (virtual stage) of each compute, 0 elsewhere

    @property
    def n_nodes(self):
        return len(self.stage)

    def index(self):
        """Mapping (stage, optype, seq) -> node number."""
        return {(int(s), str(t), int(q)): i for i, (s, t, q) in enumerate(zip(self.stage, self.optype, self.seq))}


def one_f_one_b(pp, stage, n_micro):
    """The compute order of one stage under 1F1B (PipeDream-flush, Megatron-LM's default without virtual stages).

    Returns a list of ("forward-compute" | "backward-compute", microbatch).
    Stage ``stage`` of ``pp`` runs min(pp - stage - 1, n_micro) warm-up
    forwards, then alternates one forward and one backward, then drains the
    remaining backwards.
    """
    warm = min(pp - stage - 1, n_micro)
    out = [(FWD, m) for m in range(warm)]
    f, b = warm, 0
    while f < n_micro:
        out += [(FWD, f), (BWD, b)]
        f, b = f + 1, b + 1
    out += [(BWD, m) for m in range(b, n_micro)]
    return out


def interleaved_1f1b(pp, stage, n_micro, vpp):
    """The compute order of one stage under interleaved 1F1B (Megatron-LM with ``vpp`` virtual stages).

    Returns [(op type, sequence number, model chunk), ...].  The k-th forward
    runs chunk (k mod pp·vpp) // pp of microbatch group k // (pp·vpp); the
    k-th backward runs the chunks in reverse.  Stage ``stage`` warms up with
    2 (pp - stage - 1) + (vpp - 1) pp forwards (all of them when ``n_micro``
    equals ``pp``), alternates one forward and one backward, then drains.
    ``n_micro`` must be a multiple of ``pp`` when ``vpp`` > 1; ``vpp=1`` gives :func:`one_f_one_b`.
    """
    if vpp < 1 or (vpp > 1 and n_micro % pp):
        raise OpGraphError(f"interleaved 1F1B needs vpp >= 1 and microbatches a multiple of pp={pp}; "
                           f"got vpp={vpp}, {n_micro} microbatches")
    if vpp == 1:
        return [(t, m, 0) for t, m in one_f_one_b(pp, stage, n_micro)]
    total = n_micro * vpp
    warm = total if n_micro == pp else min(total, 2 * (pp - stage - 1) + (vpp - 1) * pp)

    def chunk(k, forward):
        c = (k % (pp * vpp)) // pp
        return c if forward else vpp - 1 - c
    out = [(FWD, k, chunk(k, True)) for k in range(warm)]
    for j in range(total - warm):
        out += [(FWD, warm + j, chunk(warm + j, True)), (BWD, j, chunk(j, False))]
    out += [(BWD, k, chunk(k, False)) for k in range(total - warm, total)]
    return out


class _Builder:
    def __init__(self):
        self.key, self.deps, self.groups, self.group_dp = [], [], [], []
        self.at, self.valid, self.chunk = {}, {}, {}

    def node(self, stage, optype, seq):
        k = (stage, optype, seq)
        if k not in self.at:
            self.at[k] = len(self.key)
            self.key.append(k)
            self.deps.append([])
        return self.at[k]

    def edge(self, before, after):
        if before is not None and after is not None and before != after:
            self.deps[after].append(before)

    def chain(self, nodes, first_after=None):
        last = first_after
        for n in nodes:
            self.edge(last, n)
            last = n
        return last


_NO_PEER = {"forward-send": "last", "forward-recv": "first", "backward-send": "first", "backward-recv": "last"}


def _p2p_edges(b, stage, t, n_ops, same, chunks, pp, vpp):
    """Edges of one send or receive stream; returns its operations that have a peer, in order.

    A compute of the model's first (last) chunk has nothing to receive (send)
    in that direction.  A stream records either one operation per compute
    (those without a peer wait only for themselves) or one per compute that
    has a peer.
    """
    ops = [b.node(stage, t, q) for q in range(n_ops)]
    b.chain(ops)
    end = 0 if _NO_PEER[t] == "first" else vpp * pp - 1
    has_peer = [c * pp + stage != end for c in chunks]
    if n_ops == len(same):
        targets, paired = list(range(len(same))), [op for op, ok in zip(ops, has_peer) if ok]
    else:
        targets, paired = [k for k, ok in enumerate(has_peer) if ok][:n_ops], ops
    for op, k in zip(ops, targets):
        if t.endswith("send"):
            b.edge(same[k], op)
        else:
            b.edge(op, same[k])
            b.edge(same[k - 1] if k else None, op)
    return paired


def _stage_edges(b, stage, counts, order, pp, vpp):
    """Edges inside one stage; ``order`` is the compute order [(optype, seq, model chunk), ...]."""
    order = [tuple(o) + (0,) * (3 - len(o)) for o in order]
    chunk_of = {(t, q): c for t, q, c in order}
    comp = [b.node(stage, t, q) for t, q, _ in order]
    b.chunk.update({b.node(stage, t, q): c for t, q, c in order})
    b.chain(comp)
    by_dir = {t: [b.node(stage, t, q) for q in range(counts.get(t, 0))] for t in COMPUTE}
    for t in P2P:
        d = FWD if t.startswith("forward") else BWD
        chunks = [chunk_of.get((d, q), 0) for q in range(counts.get(d, 0))]
        b.valid[(stage, t)] = _p2p_edges(b, stage, t, counts.get(t, 0), by_dir[d], chunks, pp, vpp)
    first_b = next((i for i, (t, _, _) in enumerate(order) if t == BWD), None)
    if first_b is not None and first_b >= 2:
        for t in ("backward-send", "backward-recv"):
            if counts.get(t, 0):
                b.edge(comp[first_b - 2], b.node(stage, t, 0))
    dp_ops = [b.node(stage, AG, q) for q in range(counts.get(AG, 0))]
    rs = [b.node(stage, RS, q) for q in range(counts.get(RS, 0))]
    b.chain(dp_ops + rs)
    firsts = {}
    for t, q, c in order:  # the first forward of each model chunk waits for its parameters
        if t == FWD:
            firsts.setdefault(c, b.node(stage, t, q))
    for q, ag in enumerate(dp_ops):
        b.edge(ag, firsts.get(q if len(dp_ops) == vpp else 0))
    tail = [b.node(stage, GC, 0)] if counts.get(GC) else []
    tail += [b.node(stage, LN, 0)] if counts.get(LN) else []
    tail += [b.node(stage, EMB, 0)] if counts.get(EMB) and stage in (0, pp - 1) else []
    tail += rs
    tail += [b.node(stage, t, 0) for t in (CLIP, OPT) if counts.get(t)]
    if comp and tail:
        b.edge(comp[-1], tail[0])
    b.chain(tail)


def _groups(b, pp, counts_by_stage):
    at = b.at
    for s in range(pp):
        for t, peer, ds in (("forward-send", "forward-recv", 1), ("backward-send", "backward-recv", -1)):
            mine, theirs = b.valid.get((s, t), []), b.valid.get(((s + ds) % pp, peer), [])
            for k, op in enumerate(mine):
                b.groups.append([op, theirs[k]] if k < len(theirs) and theirs[k] != op else [op])
                b.group_dp.append(False)
        for t, q in [(t, q) for t in DP_COLLECTIVES for q in range(counts_by_stage[s].get(t, 0))]:
            b.groups.append([at[(s, t, q)]])
            b.group_dp.append(True)
    grouped = {n for g in b.groups for n in g}
    for k, i in at.items():  # a send or receive whose peer was not recorded waits only for itself
        if k[1] in P2P and i not in grouped:
            b.groups.append([i])
            b.group_dp.append(False)
    emb = [at[(s, EMB, 0)] for s in sorted({0, pp - 1}) if (s, EMB, 0) in at]
    if emb:
        b.groups.append(emb)
        b.group_dp.append(False)
    clip = [at[(s, CLIP, 0)] for s in range(pp) if (s, CLIP, 0) in at]
    if clip:
        b.groups.append(clip)
        b.group_dp.append(True)


def _order(n, deps, group, members):
    """Units in dependency order (Kahn's algorithm on nodes merged by group); raises on a cycle."""
    unit = np.where(group >= 0, n + group, np.arange(n))
    nexts, indeg = defaultdict(set), defaultdict(int)
    units = sorted(set(unit.tolist()))
    for v in range(n):
        for u in deps[v]:
            a, c = int(unit[u]), int(unit[v])
            if a != c and c not in nexts[a]:
                nexts[a].add(c)
                indeg[c] += 1
    ready = [u for u in units if indeg[u] == 0]
    out = []
    while ready:
        u = ready.pop()
        out.append(tuple(members[u - n]) if u >= n else (u,))
        for c in sorted(nexts[u]):
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    if len(out) != len(units):
        raise OpGraphError(f"the operations' dependencies form a cycle ({len(units) - len(out)} of {len(units)} "
                           "units never become ready): the recorded order of computes and sends does not fit a "
                           "pipeline schedule; check the stage, seq_id and start_ts columns")
    return tuple(out)


def build_graph(pp, counts_by_stage, orders, vpp=1):
    """The graph of one model-parallel group.

    ``counts_by_stage[s]`` maps op type to the number of such operations per
    step on stage ``s``; ``orders[s]`` is that stage's compute order as
    [(op type, sequence number, model chunk), ...] (the chunk may be left out
    when ``vpp`` is 1), from a trace or from :func:`one_f_one_b` /
    :func:`interleaved_1f1b`.
    Operation types outside the known ones raise :class:`OpGraphError`.
    """
    known = set(COMPUTE + P2P + DP_COLLECTIVES + TAIL)
    b = _Builder()
    for s in range(pp):
        unknown = set(counts_by_stage[s]) - known
        if unknown:
            raise OpGraphError(f"stage {s}: unknown op types {sorted(unknown)}; known: {sorted(known)}")
        for t, c in sorted(counts_by_stage[s].items()):
            for q in range(c):
                b.node(s, t, q)
        _stage_edges(b, s, counts_by_stage[s], orders[s], pp, vpp)
    _groups(b, pp, counts_by_stage)
    n = len(b.key)
    group = np.full(n, -1, dtype=np.int64)
    for g, mem in enumerate(b.groups):
        group[mem] = g
    stage, optype, seq = zip(*b.key)
    return OpGraph(stage=np.array(stage), optype=np.array(optype, dtype=object), seq=np.array(seq),
                   deps=tuple(tuple(sorted(set(d))) for d in b.deps), group=group,
                   group_members=tuple(tuple(g) for g in b.groups), group_dp=np.array(b.group_dp, dtype=bool),
                   order=_order(n, b.deps, group, b.groups),
                   chunk=np.array([b.chunk.get(i, 0) for i in range(n)], dtype=np.int64))
