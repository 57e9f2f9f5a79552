"""Operation-level training traces: one row per operation of every worker and step.

The format is that of the public traces of Lin et al. (OSDI 2025,
github.com/ByteDance-Seed/StragglerAnalysis): columns ``dp_rank``, ``stage``,
``step``, ``optype``, ``seq_id`` (the operation's number among those of its
type on that worker in that step), ``start_ts`` and ``duration`` (seconds);
``mc`` (a compute's model chunk) is needed for interleaved schedules
(``vpp`` > 1); ``rank``, ``gmc`` and ``mb_id`` may be present and are not needed.
:func:`read_ops` checks the trace against the stated parallelism and builds
the step's dependency model from the operations of DP rank 0 in the first
step; every other worker and step must run the same operations.  Times are
kept as dense arrays (operation x step x DP rank), so the analysis is
vectorised over steps and ranks.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..data.shaping.readers import read_table, require_columns
from ..errors import (DuplicateOpError, MissingOpsError, MissingRanksError, MissingTraceStepError, ModelInputError,
                      OpTraceError, OverlappingOpsError)
from .graph import COMPUTE, DP_COLLECTIVES, P2P, build_graph

__all__ = ["OpTrace", "read_ops", "read_meta", "example_ops", "BUNDLED"]

NEEDED = ("dp_rank", "stage", "step", "optype", "seq_id", "start_ts", "duration")
BUNDLED = ("AR", "ST")  # traces of Lin et al. (OSDI 2025) bundled in data/bytedance-stragglers (Apache-2.0)
OVERLAP_TOL_S = 1e-3  # clock jitter allowed between consecutive computes of one worker


@dataclass(frozen=True, eq=False)
class OpTrace:
    """An op-level trace as dense arrays over (operation, step, DP rank).

    ``x`` holds what the simulator needs per operation: the duration of a
    compute, the transfer time of a communication (its end minus the latest
    start among the ranks it waits for).  ``recorded_s`` is each step's
    recorded wall time (last end minus first start).
    """

    name: str
    dp: int
    pp: int
    tp: int
    vpp: int
    steps: np.ndarray
    graph: object
    x: np.ndarray
    recorded_s: np.ndarray
    n_ops: int

    @property
    def n_steps(self):
        return len(self.steps)

    @property
    def n_workers(self):
        return self.dp * self.pp

    def __repr__(self):
        return (f"OpTrace({self.name!r}: {self.n_ops:,} operations, {self.n_steps:,} steps, "
                f"dp {self.dp} x pp {self.pp} x tp {self.tp})")


def read_meta(path):
    """The parallelism of a trace from its ``meta-*.yaml`` (keys dp_size, pp_size, tp_size, vpp_size)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        with open(path, encoding="utf-8") as f:
            meta = YAML(typ="safe", pure=True).load(f)
    except FileNotFoundError:
        raise OpTraceError(f"{path}: no such metadata file; pass dp= and pp= (and tp=, vpp=) instead") from None
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) if isinstance(exc, MarkedYAMLError) else None
        where = f"{path}, line {mark.line + 1}" if mark is not None else str(path)
        raise OpTraceError(f"{where}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(meta, dict):
        raise OpTraceError(f"{path}: expected a mapping with dp_size, pp_size, tp_size, vpp_size")
    try:
        return {k: int(meta.get(f"{k}_size", 1)) for k in ("dp", "pp", "tp", "vpp")}
    except (TypeError, ValueError):
        raise OpTraceError(f"{path}: dp_size, pp_size, tp_size and vpp_size must be whole numbers") from None


def _meta_beside(path):
    p = Path(path)
    stem = p.name.split(".")[0]
    return p.with_name("meta-" + (stem[len("trace-"):] if stem.startswith("trace-") else stem) + ".yaml")


def _check_sizes(df, dp, pp, label):
    for col, n in (("dp_rank", dp), ("stage", pp)):
        seen = np.unique(df[col].to_numpy())
        bad = seen[(seen < 0) | (seen >= n)]
        if len(bad):
            raise OpTraceError(f"{label}: column {col!r} holds {bad[:5].tolist()}, outside 0..{n - 1} for {n} ranks")
        missing = sorted(set(range(n)) - set(seen.tolist()))
        if missing:
            raise MissingRanksError(f"{label}: no operations for {col} {missing[:10]} of 0..{n - 1}; a trace must "
                                    f"record every {'data-parallel rank' if col == 'dp_rank' else 'pipeline stage'}")


def _template(df, pp, vpp, label):
    """Per stage: op counts and the compute order, from DP rank 0 in the first step."""
    first = df["step"].min()
    t = df[(df["dp_rank"] == 0) & (df["step"] == first)]
    if vpp > 1 and "mc" not in t:
        raise OpTraceError(f"{label}: vpp={vpp} needs the column 'mc' (each compute's model chunk)")
    mc = t["mc"].to_numpy().astype(int) if "mc" in t else np.zeros(len(t), dtype=int)
    rows = sorted(zip(t["stage"].astype(int), t["start_ts"].astype(float), t["seq_id"].astype(int),
                      t["optype"].astype(str), mc))
    seqs, orders = [dict() for _ in range(pp)], [[] for _ in range(pp)]
    for s, _, q, op, c in rows:  # by stage, then start time, seq_id, op type: the artifact's order too
        seqs[s].setdefault(op, []).append(q)
        if op in COMPUTE:
            if not 0 <= c < vpp:
                raise OpTraceError(f"{label}: stage {s}: compute model chunk (mc) {c} is outside 0..{vpp - 1} "
                                   f"for vpp={vpp}")
            orders[s].append((op, q, c))
    for s in range(pp):
        for op, qs in seqs[s].items():
            if sorted(qs) != list(range(len(qs))):
                raise OpTraceError(f"{label}: step {first}, DP rank 0, stage {s}: {op!r} seq_id values are not "
                                   f"0, 1, 2, ... (each op type numbers its operations from 0 within a step)")
    return [{op: len(qs) for op, qs in seqs[s].items()} for s in range(pp)], orders


def _cells(df, graph, steps, dp, label):
    """Each row's flat index into the (node, step, DP rank) arrays, through a lookup table of integer codes."""
    cat = pd.Categorical(df["optype"])
    type_of = {str(t): k for k, t in enumerate(cat.categories)}
    stage, seq = df["stage"].to_numpy().astype(np.int64), df["seq_id"].to_numpy().astype(np.int64)
    lut = np.full((int(stage.max()) + 1, len(type_of), int(graph.seq.max()) + 2), -1, dtype=np.int64)
    for i, (s, t, q) in enumerate(zip(graph.stage, graph.optype, graph.seq)):
        if t in type_of:
            lut[s, type_of[t], q] = i
    node = lut[stage, cat.codes.astype(np.int64), np.clip(seq, -1, lut.shape[2] - 1)]
    node[(seq < 0) | (seq >= lut.shape[2] - 1)] = -1
    if (node < 0).any():
        i = int(np.flatnonzero(node < 0)[0])
        r = df.iloc[i]
        raise MissingOpsError(f"{label}, row {i + 1}: step {r['step']}, DP rank {r['dp_rank']}, stage {r['stage']} "
                              f"has {r['optype']!r} #{r['seq_id']}, which DP rank 0 lacks in step {steps[0]}; every "
                              "worker and step must run the same operations")
    step_i = np.searchsorted(steps, df["step"].to_numpy())
    return (node * len(steps) + step_i) * dp + df["dp_rank"].to_numpy().astype(np.int64)


def _missing_steps(count, graph, steps, label):
    """Raise when a worker has no operations at all in some step."""
    for s in np.unique(graph.stage):
        none = count[graph.stage == s].sum(axis=0) == 0  # (steps, dp)
        if none.any():
            si, d = np.argwhere(none)[0]
            raise MissingTraceStepError(f"{label}: DP rank {d}, stage {s} has no operations in step {steps[si]} "
                                        f"({int(none.sum()):,} worker-steps missing in all); every worker must be "
                                        "recorded in every step")


def _dense(df, graph, steps, dp, label):
    cell = _cells(df, graph, steps, dp, label)
    size = graph.n_nodes * len(steps) * dp
    count = np.bincount(cell, minlength=size)
    shape = (graph.n_nodes, len(steps), dp)
    if (count > 1).any():
        n, s, d = np.unravel_index(int(np.argmax(count > 1)), shape)
        raise DuplicateOpError(f"{label}: step {steps[s]}, DP rank {d}: {graph.optype[n]!r} #{graph.seq[n]} of stage "
                               f"{graph.stage[n]} is recorded {count.max()} times; each operation once")
    if (count == 0).any():
        _missing_steps(count.reshape(shape), graph, steps, label)
        n, s, d = np.unravel_index(int(np.argmin(count)), shape)
        raise MissingOpsError(f"{label}: step {steps[s]}, DP rank {d}: {graph.optype[n]!r} #{graph.seq[n]} of stage "
                              f"{graph.stage[n]} is missing ({int((count == 0).sum()):,} operations missing in all); "
                              "every worker and step must run the same operations")
    start, dur = np.empty(size), np.empty(size)
    start[cell] = df["start_ts"].to_numpy(dtype=float)
    dur[cell] = df["duration"].to_numpy(dtype=float)
    return start.reshape(shape), dur.reshape(shape)


def _streams(graph):
    """Per stage, the streams that run one operation at a time: computes (schedule order), each send or
    receive type, and the data-parallel collectives (all-gathers, then reduce-scatters), in order."""
    pos = {i: k for k, unit in enumerate(graph.order) for i in unit}
    for s in np.unique(graph.stage):
        on = np.flatnonzero(graph.stage == s)
        yield s, "compute", sorted((i for i in on if graph.optype[i] in COMPUTE), key=pos.get)
        for t in P2P:
            yield s, t, sorted((i for i in on if graph.optype[i] == t), key=lambda i: graph.seq[i])
        yield s, "data-parallel", sorted((i for i in on if graph.optype[i] in DP_COLLECTIVES),
                                         key=lambda i: (DP_COLLECTIVES.index(graph.optype[i]), graph.seq[i]))


def _check_overlap(graph, start, end, steps, label):
    for s, stream, ops in _streams(graph):
        for a, b in zip(ops[:-1], ops[1:]):
            gap = start[b] - end[a]
            if (gap < -OVERLAP_TOL_S).any():
                si, d = np.unravel_index(int(np.argmin(gap)), gap.shape)
                raise OverlappingOpsError(
                    f"{label}: step {steps[si]}, DP rank {d}, stage {s}: {graph.optype[b]!r} #{graph.seq[b]} starts "
                    f"{-gap[si, d]:.4f} s before {graph.optype[a]!r} #{graph.seq[a]} ends on the {stream} stream; "
                    "a stream runs one operation at a time, in the same order in every step")


def _effective(graph, start, dur):
    x = dur.copy()
    end = start + dur
    for g, members in enumerate(graph.group_members):
        t = np.max(start[list(members)], axis=0)
        if graph.group_dp[g]:
            t = t.max(axis=-1, keepdims=True)
        x[list(members)] = np.maximum(end[list(members)] - t, 0.0)
    return x


def read_ops(source, *, dp=None, pp=None, tp=None, vpp=None, meta=None, name=None):
    """Read an op-level trace (Parquet, CSV or a DataFrame) into an :class:`OpTrace`.

    ``dp`` and ``pp`` are the data- and pipeline-parallel sizes (``tp`` the
    tensor-parallel size, kept for the record).  Without them the sizes come
    from ``meta`` (a ``meta-*.yaml`` as published with the traces), by default
    the one beside the trace file (``trace-AR.parquet`` -> ``meta-AR.yaml``).
    Raises :class:`~relmodel.errors.MissingRanksError`,
    :class:`~relmodel.errors.MissingOpsError`,
    :class:`~relmodel.errors.DuplicateOpError` or
    :class:`~relmodel.errors.OverlappingOpsError` for a trace that does not
    fit the parallelism.  Times in the trace are seconds; the result keeps
    them in seconds (step times of a few seconds read best so).

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import data_dir
    >>> t = read_ops(data_dir() / "bytedance-stragglers" / "trace-ST.parquet")   # dp 2 x pp 4, meta-ST.yaml
    >>> t.n_workers, t.n_steps, round(float(t.recorded_s.mean()), 3)              # seconds per step
    (8, 32, 2.214)
    """
    if dp is None or pp is None:
        if meta is None and isinstance(source, pd.DataFrame):
            raise ModelInputError("give dp= and pp= (the data- and pipeline-parallel sizes) for a DataFrame")
        sizes = read_meta(meta if meta is not None else _meta_beside(source))
        dp, pp, tp, vpp = (sizes[k] if v is None else v for k, v in (("dp", dp), ("pp", pp), ("tp", tp), ("vpp", vpp)))
    tp, vpp = 1 if tp is None else tp, 1 if vpp is None else vpp
    for k, v in (("dp", dp), ("pp", pp), ("tp", tp), ("vpp", vpp)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ModelInputError(f"{k} must be a whole number of at least 1; got {v!r}")
    df, label = read_table(source)
    require_columns(df, NEEDED, label, "an op-level trace column")
    if not isinstance(df["optype"].dtype, pd.CategoricalDtype):
        df["optype"] = df["optype"].astype(str)
    _check_sizes(df, dp, pp, label)
    counts, orders = _template(df, pp, vpp, label)
    graph = build_graph(pp, counts, orders, vpp=vpp)
    steps = np.unique(df["step"].to_numpy())
    start, dur = _dense(df, graph, steps, dp, label)
    if (dur < 0).any():
        raise OpTraceError(f"{label}: negative durations; durations are seconds, at least 0")
    end = start + dur
    _check_overlap(graph, start, end, steps, label)
    recorded = end.max(axis=(0, 2)) - start.min(axis=(0, 2))
    if name is None:
        name = "the job" if isinstance(source, pd.DataFrame) else Path(str(label)).name.split(".")[0]
    return OpTrace(name=name, dp=int(dp), pp=int(pp), tp=int(tp), vpp=int(vpp), steps=steps, graph=graph,
                   x=_effective(graph, start, dur), recorded_s=recorded, n_ops=len(df))


def example_ops(name="AR"):
    """A bundled op-level trace of Lin et al. (OSDI 2025): "AR" (64 GPUs, one slowed worker) or "ST" (a long
    last stage).  Both come from github.com/ByteDance-Seed/StragglerAnalysis (Apache-2.0; see data/README.md).

    Examples
    --------
    >>> example_ops("ST")
    OpTrace('trace-ST': 6,784 operations, 32 steps, dp 2 x pp 4 x tp 1)
    """
    from ..data.bundled.datasets import data_dir

    if name not in BUNDLED:
        raise ModelInputError(f"bundled op-level traces are {', '.join(BUNDLED)}; got {name!r}")
    return read_ops(data_dir() / "bytedance-stragglers" / f"trace-{name}.parquet", name=f"trace-{name}")
