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

__all__ = ["OpGraph", "build_graph", "one_f_one_b", "COMPUTE", "P2P", "DP_COLLECTIVES", "TAIL", "COMM_TYPES"]

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


class _Builder:
    def __init__(self):
        self.key, self.deps, self.groups, self.group_dp = [], [], [], []
        self.at = {}

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


def _stage_edges(b, stage, counts, order, pp):
    """Edges inside one stage; ``order`` is the compute order [(optype, seq), ...]."""
    comp = [b.node(stage, t, q) for t, q in order]
    b.chain(comp)
    by_dir = {t: [b.node(stage, t, q) for q in range(counts.get(t, 0))] for t in COMPUTE}
    for t in P2P:
        ops = [b.node(stage, t, q) for q in range(counts.get(t, 0))]
        b.chain(ops)
        same = by_dir[FWD if t.startswith("forward") else BWD]
        for k, op in enumerate(ops[:len(same)]):
            if t.endswith("send"):
                b.edge(same[k], op)
            else:
                b.edge(op, same[k])
                b.edge(same[k - 1] if k else None, op)
    first_b = next((i for i, (t, _) in enumerate(order) if t == BWD), None)
    if first_b is not None and first_b >= 2:
        for t in ("backward-send", "backward-recv"):
            if counts.get(t, 0):
                b.edge(comp[first_b - 2], b.node(stage, t, 0))
    dp_ops = [b.node(stage, AG, q) for q in range(counts.get(AG, 0))]
    rs = [b.node(stage, RS, q) for q in range(counts.get(RS, 0))]
    b.chain(dp_ops + rs)
    if dp_ops and by_dir[FWD]:
        b.edge(dp_ops[0], by_dir[FWD][0])
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
            for q in range(counts_by_stage[s].get(t, 0)):
                pair = [at[(s, t, q)]]
                if (s + ds, peer, q) in at:
                    pair.append(at[(s + ds, peer, q)])
                b.groups.append(pair)
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


def build_graph(pp, counts_by_stage, orders):
    """The graph of one model-parallel group.

    ``counts_by_stage[s]`` maps op type to the number of such operations per
    step on stage ``s``; ``orders[s]`` is that stage's compute order as
    [(op type, sequence number), ...] (from a trace, or :func:`one_f_one_b`).
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
        _stage_edges(b, s, counts_by_stage[s], orders[s], pp)
    _groups(b, pp, counts_by_stage)
    n = len(b.key)
    group = np.full(n, -1, dtype=np.int64)
    for g, mem in enumerate(b.groups):
        group[mem] = g
    stage, optype, seq = zip(*b.key)
    return OpGraph(stage=np.array(stage), optype=np.array(optype, dtype=object), seq=np.array(seq),
                   deps=tuple(tuple(sorted(set(d))) for d in b.deps), group=group,
                   group_members=tuple(tuple(g) for g in b.groups), group_dp=np.array(b.group_dp, dtype=bool),
                   order=_order(n, b.deps, group, b.groups))
