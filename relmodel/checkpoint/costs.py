"""Checkpoint cost and restart time that grow with the job's size.

A checkpoint stalls the job while it writes its state.  With S bytes of
state that do not depend on the job's size (the model and optimiser state,
written once), s bytes more per GPU (per-rank shards, replicated buffers,
metadata), nodes writing at b bytes per second each and a storage system that
takes in at most B bytes per second, a checkpoint of a job on N GPUs (n =
N / GPUs per node nodes) costs

    δ(N) = fixed + (S + s N) / min(n b, B)

seconds: the aggregate write bandwidth grows with the nodes until the storage
caps it, after which the cost grows with whatever grows with N.  Restart
terms that grow with the number of ranks (scheduling, communicator and NCCL
initialisation, health checks) live on :class:`relmodel.checkpoint.RestartModel`
(``per_doubling`` x log2 N + ``per_1k_ranks`` x N / 1,000); no public
per-rank figures are bundled with relmodel, so both default to 0 and
:func:`fit_growth` fits them to a team's own measurements.

Every function that takes a constant ``ckpt_cost`` or ``restart`` and knows
the job's size (designs, requirements, sweeps) also takes these models and
evaluates them at that size (:func:`cost_hours`); the interval functions,
which do not know the size, take a model built with ``n_gpus``.
"""

import dataclasses
import math

import numpy as np

from ..errors import ModelInputError
from ..units import hours

__all__ = ["CheckpointModel", "cost_hours", "describe_cost", "fit_growth"]


def _rate(name, value, allow_inf=False):
    v = float(value)
    if not (v > 0 and (allow_inf or math.isfinite(v))) or math.isnan(v):
        raise ModelInputError(f"{name} must be a positive{'' if allow_inf else ', finite'} number of bytes per "
                              f"second; got {value!r}")
    return v


@dataclasses.dataclass(frozen=True)
class CheckpointModel:
    """Checkpoint cost δ(N) = fixed + (state_bytes + state_bytes_per_gpu x N) / min(nodes x b, cap).

    ``state_bytes`` (bytes written once, whatever the size),
    ``state_bytes_per_gpu`` (bytes that grow with the GPUs),
    ``write_bandwidth_per_node`` b and ``storage_bandwidth_cap`` (bytes per
    second; infinite = no cap), ``gpus_per_node``, ``fixed`` (a duration:
    barrier, pause, metadata) and ``n_gpus`` (the size at which functions
    that do not know it take the model; ``None`` = they must be told).

    Examples
    --------
    A 2.8 TB state (a 175B-parameter model with its Adam moments at 16 bytes a
    parameter: an assumption) written at 2 GB/s per node into storage capped
    at 1 TB/s:

    >>> m = CheckpointModel(state_bytes=2.8e12, write_bandwidth_per_node=2e9, storage_bandwidth_cap=1e12)
    >>> [round(3600 * m.hours_at(n), 1) for n in (1_024, 4_096, 16_384)]     # seconds
    [10.9, 2.8, 2.8]
    """

    state_bytes: float
    write_bandwidth_per_node: float
    storage_bandwidth_cap: float = math.inf
    gpus_per_node: int = 8
    fixed: object = 0.0
    state_bytes_per_gpu: float = 0.0
    n_gpus: int = None

    def __post_init__(self):
        for name in ("state_bytes", "state_bytes_per_gpu"):
            v = float(getattr(self, name))
            if not (v >= 0 and math.isfinite(v)):
                raise ModelInputError(f"{name} must be a finite number of bytes >= 0; got {getattr(self, name)!r}")
        _rate("write_bandwidth_per_node", self.write_bandwidth_per_node)
        _rate("storage_bandwidth_cap", self.storage_bandwidth_cap, allow_inf=True)
        if not (isinstance(self.gpus_per_node, (int, np.integer)) and self.gpus_per_node >= 1):
            raise ModelInputError(f"gpus_per_node must be a whole number >= 1; got {self.gpus_per_node!r}")
        f = float(hours(self.fixed))
        if not (f >= 0 and math.isfinite(f)):
            raise ModelInputError(f"fixed must be a finite duration >= 0; got {self.fixed!r}")
        object.__setattr__(self, "fixed", f)
        if self.n_gpus is not None:
            _size(self.n_gpus)

    def hours_at(self, n_gpus=None):
        """Checkpoint cost in hours for a job of ``n_gpus`` GPUs (default the model's ``n_gpus``)."""
        n = _size(self.n_gpus if n_gpus is None else n_gpus, "CheckpointModel")
        nodes = max(n / self.gpus_per_node, 1.0)
        bandwidth = min(nodes * float(self.write_bandwidth_per_node), float(self.storage_bandwidth_cap))
        return self.fixed + (float(self.state_bytes) + float(self.state_bytes_per_gpu) * n) / bandwidth / 3600.0

    def describe(self, n_gpus=None):
        """One phrase: the cost at that size and what it comes from."""
        n = self.n_gpus if n_gpus is None else n_gpus
        return (f"{_seconds(self.hours_at(n))} at {int(n):,} GPUs (checkpoint model: "
                f"{float(self.state_bytes) / 1e12:,.3g} TB written at {float(self.write_bandwidth_per_node) / 1e9:,.3g}"
                f" GB/s per node, storage capped at {_cap(self.storage_bandwidth_cap)})")


def _cap(b):
    return "no cap" if not math.isfinite(float(b)) else f"{float(b) / 1e9:,.4g} GB/s"


def _size(n, what="a cost model"):
    if n is None:
        raise ModelInputError(f"{what} needs the job's size here: build it with n_gpus=..., or pass it to a "
                              f"function that knows the cluster (designs, requirements, sweeps)")
    if isinstance(n, bool) or not float(n) >= 1 or not math.isfinite(float(n)):
        raise ModelInputError(f"n_gpus must be a whole number of GPUs >= 1; got {n!r}")
    return float(n)


def _seconds(h):
    s = 3600.0 * h
    return f"{s:,.3g} s" if s < 120 else f"{s / 60:,.3g} min"


def cost_hours(value, n_gpus=None, name="ckpt_cost"):
    """``value`` in hours: a duration as it is, a cost model (``hours_at``) at ``n_gpus``.

    Examples
    --------
    >>> cost_hours("90s"), cost_hours(CheckpointModel(3.6e12, 1e9, gpus_per_node=1), 1000)
    (0.025, 0.001)
    """
    if hasattr(value, "hours_at"):
        return float(value.hours_at(n_gpus))
    return hours(value)


def describe_cost(value, n_gpus=None):
    """A phrase for the page: "1 min (fixed)" or the model's description at that size."""
    if hasattr(value, "describe"):
        return value.describe(n_gpus)
    if hasattr(value, "hours_at"):
        return f"{_seconds(value.hours_at(n_gpus))} at {int(n_gpus):,} GPUs (model)"
    return f"{_seconds(float(hours(value)))} (fixed)"


def fit_growth(n_ranks, seconds):
    """Least-squares a + b log2 N + c N / 1,000 to measured restart (or init) times; returns (a, b, c) seconds.

    ``n_ranks`` and ``seconds`` are equal-length sequences (at least three
    sizes).  Coefficients that come out negative are set to 0 and the others
    refitted, so the law never shrinks with N.
    """
    n = np.asarray(n_ranks, float)
    y = np.asarray(seconds, float)
    if n.shape != y.shape or n.ndim != 1 or n.size < 3 or np.any(~(n >= 1)) or np.any(~np.isfinite(y)):
        raise ModelInputError("fit_growth needs at least three sizes (ranks >= 1) and as many finite times")
    design = np.column_stack([np.ones_like(n), np.log2(n), n / 1000.0])
    keep = [0, 1, 2]
    while True:
        coef, *_ = np.linalg.lstsq(design[:, keep], y, rcond=None)
        bad = [k for k, c in zip(keep, coef) if k and c < 0]
        if not bad:
            break
        keep = [k for k in keep if k not in bad]
    out = np.zeros(3)
    out[keep] = coef
    return tuple(float(v) for v in out)
