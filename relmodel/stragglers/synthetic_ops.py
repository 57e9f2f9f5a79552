"""Synthetic op-level traces of a 1F1B job, with planted slow workers and a longer last stage.

For tests and scaling studies: :func:`synthetic_ops` builds an
:class:`~relmodel.stragglers.ops.OpTrace` directly as dense arrays (no rows),
so a 4,096-worker, 1,000-step trace fits in memory; ``to_frame`` turns a
small one into the rows of an op-level trace file (times from the
simulator), which :func:`~relmodel.stragglers.ops.read_ops` reads back.
Every operation's time is its type's base time x a log-normal factor
(``noise``: its sigma) x (1 + the slowdown of its worker); slowdowns are
fractions (0.3: 30% longer), as everywhere in relmodel.
"""

import numpy as np
import pandas as pd

from ..errors import ModelInputError
from .graph import AG, CLIP, COMPUTE, EMB, GC, LN, OPT, RS, build_graph, interleaved_1f1b
from .ops import OpTrace
from .simulate import simulate_timeline

__all__ = ["synthetic_ops", "counts_1f1b", "to_frame", "BASE_S"]

BASE_S = {"forward-compute": 0.10, "backward-compute": 0.20, "forward-send": 0.002, "forward-recv": 0.002,
          "backward-send": 0.002, "backward-recv": 0.002, AG: 0.03, RS: 0.05, GC: 0.001, LN: 0.002, EMB: 0.01,
          CLIP: 0.003, OPT: 0.02}  # seconds; a made-up but plausible mix


def counts_1f1b(pp, n_micro, vpp=1):
    """Op counts per stage of one (interleaved, with ``vpp`` > 1) 1F1B step with ``n_micro`` microbatches.

    Only sends and receives with a peer are counted: the model's first chunk
    receives nothing going forward, its last chunk sends nothing.
    """
    out = []
    for s in range(pp):
        n = n_micro * vpp
        c = {"forward-compute": n, "backward-compute": n, AG: vpp, RS: vpp, GC: 1, LN: 1, CLIP: 1, OPT: 1}
        last, first = n - (n_micro if s == pp - 1 else 0), n - (n_micro if s == 0 else 0)
        c.update({k: v for k, v in (("forward-send", last), ("backward-recv", last), ("forward-recv", first),
                                    ("backward-send", first)) if v})
        if s in (0, pp - 1):
            c[EMB] = 1
        out.append(c)
    return out


def synthetic_ops(dp=4, pp=4, n_micro=8, n_steps=50, *, vpp=1, slow_workers=(), last_stage_slowdown=0.0, noise=0.02,
                  base=None, seed=None, dtype=np.float64, name="synthetic ops"):
    """A synthetic :class:`OpTrace`.

    ``slow_workers`` lists planted slow workers as (stage, DP rank,
    slowdown); every operation of theirs takes ``1 + slowdown`` times as
    long (0.3: 30% longer).  ``last_stage_slowdown`` makes the computes of
    the last stage that much longer (stage partitioning imbalance).
    ``dtype=np.float32`` halves the memory of large traces.  With ``vpp`` > 1
    the schedule is interleaved 1F1B (``n_micro`` a multiple of ``pp``) and a
    chunk's computes take 1/vpp of a stage's.
    """
    for k, v in (("dp", dp), ("pp", pp), ("n_micro", n_micro), ("n_steps", n_steps), ("vpp", vpp)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ModelInputError(f"{k} must be a whole number of at least 1; got {v!r}")
    base = {**BASE_S, **(base or {})}
    if n_micro % pp and vpp > 1:
        raise ModelInputError(f"interleaved 1F1B needs n_micro a multiple of pp={pp}; got {n_micro}")
    counts = counts_1f1b(pp, n_micro, vpp)
    graph = build_graph(pp, counts, [interleaved_1f1b(pp, s, n_micro, vpp) for s in range(pp)], vpp=vpp)
    rng = np.random.default_rng(seed)
    x = np.empty((graph.n_nodes, n_steps, dp), dtype=dtype)
    for i in range(graph.n_nodes):  # row by row keeps the temporary arrays small
        t = graph.optype[i]
        scale = base[t] * (1.0 + last_stage_slowdown if graph.stage[i] == pp - 1 and t.endswith("compute") else 1.0)
        scale /= vpp if t.endswith("compute") else 1
        z = rng.standard_normal((n_steps, dp), dtype=np.float32 if dtype == np.float32 else np.float64)
        x[i] = scale * np.exp(noise * z - noise ** 2 / 2)
    for s, d, share in slow_workers:
        if not (0 <= s < pp and 0 <= d < dp) or not share > -1:
            raise ModelInputError(f"slow workers are (stage in 0..{pp - 1}, DP rank in 0..{dp - 1}, slowdown > -1, "
                                  f"a fraction: 0.3 is 30% slower); got {(s, d, share)!r}")
        x[graph.stage == s, :, d] *= 1.0 + share
    return OpTrace(name=name, dp=dp, pp=pp, tp=1, vpp=vpp, steps=np.arange(n_steps), graph=graph, x=x,
                   recorded_s=np.full(n_steps, np.nan), n_ops=graph.n_nodes * n_steps * dp)


def to_frame(trace, *, step_gap_s=1.0):
    """The rows of an op-level trace for a (small) trace: start times from the simulator, steps one after another.

    A communication's recorded duration includes its wait for the slowest
    member of its group, as a profiler would record it.
    """
    g = trace.graph
    start, end = simulate_timeline(g, lambda i: trace.x[i], (trace.n_steps, trace.dp))
    offset = np.r_[0.0, np.cumsum(end.max(axis=(0, 2)) + step_gap_s)[:-1]]
    start, end = start + offset[None, :, None], end + offset[None, :, None]
    n, s, d = np.meshgrid(np.arange(g.n_nodes), np.arange(trace.n_steps), np.arange(trace.dp), indexing="ij")
    n, s, d = n.ravel(), s.ravel(), d.ravel()
    return pd.DataFrame({"dp_rank": d, "stage": g.stage[n], "rank": g.stage[n] * trace.dp + d,
                         "step": trace.steps[s], "optype": g.optype[n].astype(str), "start_ts": start.ravel(),
                         "duration": (end - start).ravel(), "seq_id": g.seq[n],
                         "mc": np.where(np.isin(g.optype[n], COMPUTE), g.chunk[n], -1)})
