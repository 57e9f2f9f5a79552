"""Synthetic step-time logs with planted slow nodes, for tests, examples and benchmarks.

:func:`synthetic_steps` draws a log of ``n_steps`` synchronous steps on
``n_nodes`` × ``ranks_per_node`` ranks:

* every rank's step time is ``step_time`` × a log-normal factor with log
  standard deviation ``noise`` (per rank and step, independent);
* **spikes** (transient noise): each rank-step is, with probability
  ``spike_prob``, slower by ``spike_slowdown`` (a fraction: 0.5 makes the
  step 50% longer) for that one step;
* **bursts** (transient noise): each node starts, with probability
  ``burst_prob`` per step, a burst of ``burst_len`` steps during which all its
  ranks are slower by ``burst_slowdown`` (thermal throttling, a noisy
  neighbour);
* **slow nodes** (fail-slow, planted): ``n_slow`` nodes chosen at random
  become slower by ``slowdown`` from their onset step (uniform over the
  first ``onset_within`` share of the run, unless ``onsets`` is given) to
  the end.

Every slowdown is a fraction, as in :func:`relmodel.stragglers.find_slow_nodes` (its
``flagged["slowdown"]`` estimates the planted ``slow["slowdown"]``); a step
time is multiplied by ``1 + slowdown``.

The result carries the log and the truth (which nodes were slow, from when).
:func:`write_synthetic_parquet` streams the same model to a Parquet file in
row groups of whole steps (for logs too large for one table in memory).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.formats.steps import StepLog
from ..base.escape import brief
from ..budget_guard import check_cost, seed_value
from ..errors import ModelInputError
from ..units import hours
from ..tables import html_table, people_table

__all__ = ["SyntheticSteps", "synthetic_steps", "write_synthetic_parquet", "plant"]


@dataclass(frozen=True)
class SyntheticSteps:
    """A synthetic :class:`StepLog` and its planted slow nodes (``slow``: node, onset_step, slowdown).

    ``slow["slowdown"]`` is a fraction (0.2: the node's steps are 20% longer).
    """

    log: StepLog
    slow: pd.DataFrame
    settings: dict

    def to_frame(self):
        return self.slow.copy()

    def _repr_html_(self):
        return (f"<p>Synthetic log: {self.log.n_steps:,} steps on {self.log.n_ranks:,} ranks; "
                f"{len(self.slow)} planted slow nodes.</p>" + html_table(self._people(), index=False))

    def _people(self):
        t = self.slow
        return people_table(pd.DataFrame({"node": t["node"].map(str),
                                          "slow from step": t["onset_step"].map("{:,}".format),
                                          "slower (%)": (100 * t["slowdown"]).map("{:.1f}".format)}))


def _entropy(seed):
    """``seed``, or fresh entropy for ``seed=None`` (one number, so the draw can be repeated from it)."""
    return int(np.random.SeedSequence().entropy) if seed is None else seed_value(seed)


def _whole(v):
    """Whether ``v`` is a whole number (an int, or a finite float without a fraction), not a bool."""
    return not isinstance(v, bool) and (isinstance(v, (int, np.integer)) or (
        isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer()))


def _check_slowdowns(**slowdowns):
    for name, v in slowdowns.items():
        arr = np.asarray(v, dtype=float)
        if not np.all(arr >= 0):  # NaN fails too
            raise ModelInputError(f"{name} must be a fraction >= 0 (0.2: 20% slower); got {v!r}")


def plant(n_nodes, n_steps, *, n_slow=2, slowdown=0.2, onsets=None, onset_within=0.5, seed=None):
    """The planted slow nodes: a table of node, onset_step and slowdown (a fraction; drawn with ``seed``).

    ``slowdown`` is one fraction for all or one per node.
    """
    rng = np.random.default_rng([_entropy(seed), 1])
    if not _whole(n_slow) or not 0 <= n_slow <= n_nodes:
        raise ModelInputError(f"n_slow must be a whole number from 0 to n_nodes ({n_nodes}); got {n_slow!r}")
    n_slow = int(n_slow)
    _check_slowdowns(slowdown=slowdown)
    nodes = np.sort(rng.choice(n_nodes, size=n_slow, replace=False))
    if onsets is None:
        onsets = rng.integers(0, max(1, int(onset_within * n_steps)), size=n_slow)
    onsets = np.broadcast_to(np.asarray(onsets, dtype=np.int64), (n_slow,))
    shares = np.broadcast_to(np.asarray(slowdown, dtype=float), (n_slow,))
    return pd.DataFrame({"node": nodes, "onset_step": onsets, "slowdown": shares})


def _check(n_nodes, ranks_per_node, n_steps, noise, spike_prob, burst_prob):
    for name, v in (("n_nodes", n_nodes), ("ranks_per_node", ranks_per_node), ("n_steps", n_steps)):
        if not _whole(v) or v < 1:
            raise ModelInputError(f"{name} must be a whole number >= 1; got {brief(v)}")
    if noise < 0:
        raise ModelInputError(f"noise (log standard deviation) must be >= 0; got {noise!r}")
    for name, v in (("spike_prob", spike_prob), ("burst_prob", burst_prob)):
        if not 0 <= v <= 1:
            raise ModelInputError(f"{name} must be a probability in [0, 1]; got {v!r}")


def _block(rng, first, n, cfg, slow):
    """Step times (hours) of steps first .. first+n-1: shape (n, ranks)."""
    k, r = cfg["n_nodes"], cfg["ranks_per_node"]
    out = rng.standard_normal((n, k * r), dtype=np.float64)
    out *= cfg["noise"]
    np.exp(out, out=out)
    out *= cfg["step_time_h"]
    if cfg["spike_prob"] > 0:
        hit = rng.random((n, k * r)) < cfg["spike_prob"]
        out[hit] *= 1.0 + cfg["spike_slowdown"]
    node_factor = np.ones((n, k))
    if cfg["burst_prob"] > 0:
        start_s, start_n = np.nonzero(rng.random((n, k)) < cfg["burst_prob"])
        for s, j in zip(start_s, start_n):
            node_factor[s:s + cfg["burst_len"], j] *= 1.0 + cfg["burst_slowdown"]
    steps = first + np.arange(n)
    for node, onset, share in slow.itertuples(index=False):
        node_factor[steps >= onset, node] *= 1.0 + share
    out.reshape(n, k, r)[...] *= node_factor[:, :, None]
    return out


def _config(n_nodes, ranks_per_node, step_time, noise, spike_prob, spike_slowdown, burst_prob, burst_len,
            burst_slowdown, n_steps):
    _check(n_nodes, ranks_per_node, n_steps, noise, spike_prob, burst_prob)
    _check_slowdowns(spike_slowdown=spike_slowdown, burst_slowdown=burst_slowdown)
    return {"n_nodes": int(n_nodes), "ranks_per_node": int(ranks_per_node), "step_time_h": hours(step_time),
            "noise": float(noise), "spike_prob": float(spike_prob), "spike_slowdown": float(spike_slowdown),
            "burst_prob": float(burst_prob), "burst_len": int(burst_len), "burst_slowdown": float(burst_slowdown)}


def synthetic_steps(n_nodes=16, ranks_per_node=8, n_steps=1000, *, step_time="2s", noise=0.02,
                    spike_prob=0.001, spike_slowdown=0.5, burst_prob=0.002, burst_len=5, burst_slowdown=0.3,
                    n_slow=2, slowdown=0.2, onsets=None, onset_within=0.5, seed=None):
    """Draw a synthetic step log (see the module notes); returns :class:`SyntheticSteps`.

    ``n_nodes`` nodes of ``ranks_per_node`` ranks run ``n_steps`` steps of
    ``step_time`` (a duration, "2s" or hours) with relative ``noise``; spikes and
    bursts occur with the given probabilities per step and make a step slower by
    ``spike_slowdown`` and ``burst_slowdown``; ``n_slow`` nodes turn slower by
    ``slowdown`` (a fraction, one for all or one per node: 0.2 is 20% slower) at
    an onset within the first ``onset_within`` fraction of the run.  ``seed``
    fixes the draw.

    Examples
    --------
    >>> from relmodel.stragglers.synthetic import synthetic_steps
    >>> s = synthetic_steps(n_nodes=4, ranks_per_node=2, n_steps=200, n_slow=1, seed=1)   # 2 s steps
    >>> s.log
    StepLog(synthetic (seed 1): 200 steps x 8 ranks on 4 nodes)
    >>> print(s.slow.to_string(index=False))
     node  onset_step  slowdown
        2          33       0.2
    """
    cfg = _config(n_nodes, ranks_per_node, step_time, noise, spike_prob, spike_slowdown, burst_prob, burst_len,
                  burst_slowdown, n_steps)
    cells = float(n_steps) * float(n_nodes) * float(ranks_per_node)  # held at once: times, draws and masks
    check_cost(f"synthetic_steps({int(n_steps):,} steps x {int(n_nodes) * int(ranks_per_node):,} ranks)",
               work=4.0 * cells, memory=24.0 * cells,
               hint="draw fewer steps or ranks, or stream them to a file with write_synthetic_parquet")
    seed = _entropy(seed)
    slow = plant(n_nodes, n_steps, n_slow=n_slow, slowdown=slowdown, onsets=onsets,
                 onset_within=onset_within, seed=seed)
    grid = _block(np.random.default_rng([seed, 2]), 0, int(n_steps), cfg, slow)
    ranks = np.arange(n_nodes * ranks_per_node)
    log = StepLog(grid, np.arange(n_steps), ranks, ranks // ranks_per_node, name=f"synthetic (seed {seed})")
    return SyntheticSteps(log, slow, dict(cfg, n_steps=int(n_steps), n_slow=n_slow, seed=seed))


def write_synthetic_parquet(path, n_nodes=16, ranks_per_node=8, n_steps=1000, *, steps_per_group=100,
                            step_time="2s", noise=0.02, spike_prob=0.001, spike_slowdown=0.5, burst_prob=0.002,
                            burst_len=5, burst_slowdown=0.3, n_slow=2, slowdown=0.2, onsets=None,
                            onset_within=0.5, seed=None):
    """Stream a synthetic log to Parquet (columns step, rank, node, duration_s), one row group per block of steps.

    The arguments are :func:`synthetic_steps`'s (slowdowns as fractions).
    Returns the planted slow nodes.  Memory stays at one block of steps.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    cfg = _config(n_nodes, ranks_per_node, step_time, noise, spike_prob, spike_slowdown, burst_prob, burst_len,
                  burst_slowdown, n_steps)
    seed = _entropy(seed)
    slow = plant(n_nodes, n_steps, n_slow=n_slow, slowdown=slowdown, onsets=onsets,
                 onset_within=onset_within, seed=seed)
    rng = np.random.default_rng([seed, 2])
    n_ranks = n_nodes * ranks_per_node
    schema = pa.schema([("step", pa.int32()), ("rank", pa.int32()), ("node", pa.int32()),
                        ("duration_s", pa.float32())])
    ranks = np.arange(n_ranks, dtype=np.int32)
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for first in range(0, n_steps, steps_per_group):
            n = min(steps_per_group, n_steps - first)
            grid = _block(rng, first, n, cfg, slow)
            table = pa.table({"step": np.repeat(np.arange(first, first + n, dtype=np.int32), n_ranks),
                              "rank": np.tile(ranks, n), "node": np.tile(ranks // ranks_per_node, n),
                              "duration_s": (grid * 3600).astype(np.float32).ravel()}, schema=schema)
            writer.write_table(table, row_group_size=len(table))
    return slow
