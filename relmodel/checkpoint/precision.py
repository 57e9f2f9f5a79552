"""Monte Carlo runs sized to the precision a page prints.

A page that prints the ETTR as ``86.5%`` (steps of 0.1 percentage point)
needs the estimate to about half a step, not 10^4 runs for every design.
:func:`simulate_to_precision` runs :func:`relmodel.simulate_training` in
batches and stops as soon as the confidence interval of the ETTR is narrower
than half the printed step, or at a cap on the number of runs.

The batches are sized from the half-width seen so far (it shrinks as
1/sqrt(n_runs)), so a typical run takes a pilot batch and one or two more.
The interval is the simulator's own (:meth:`SimulationResult.ettr_ci`: the
normal approximation to the mean wall time).  Stopping when an interval is
narrow enough, after looking at it, makes its coverage slightly lower than
``conf``; the projected batches keep the number of looks to two or three.
"""

import math
import warnings

import numpy as np

from ..defaults import RESTART
from ..errors import ModelInputError, PrecisionWarning
from ..tables import count, pct
from .sim_result import SimulationResult
from .simulate import simulate_training

__all__ = ["simulate_to_precision", "half_width"]

_LOOKS = 8  # batches at most


def half_width(result, conf=0.95):
    """Half the width of the ``conf`` confidence interval of ``result.ettr`` (a fraction of wall time).

    Examples
    --------
    >>> s = simulate_training("30d", "16min", "3h", "45s", "10min", n_runs=400, seed=1)
    >>> bool(half_width(s) < 0.005)      # the ETTR is known to better than +/- 0.5 percentage point
    True
    """
    lo, hi = result.ettr_ci(conf)
    return float((hi - lo) / 2)


def _check(resolution, conf, first, cap):
    if not (isinstance(resolution, (int, float)) and 0 < resolution < 1):
        raise ModelInputError(f"resolution must be the printed step of the ETTR, between 0 and 1 "
                              f"(0.001 for a percentage with one decimal); got {resolution!r}")
    if not (isinstance(conf, float) and 0 < conf < 1):
        raise ModelInputError(f"conf must be a confidence level between 0 and 1, such as 0.95; got {conf!r}")
    for name, v in (("first", first), ("max_runs", cap)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 2:
            raise ModelInputError(f"{name} must be a whole number of runs, 2 or more; got {v!r}")
    if cap < first:
        raise ModelInputError(f"max_runs ({cap}) must be at least first ({first})")


def _merge(parts):
    """One SimulationResult holding the runs of every batch, in order."""
    head = parts[0]
    if len(parts) == 1:
        return head
    cat = lambda name: np.concatenate([getattr(p, name) for p in parts])  # noqa: E731
    return SimulationResult(
        work_h=head.work_h, interval_h=head.interval_h, ckpt_cost_h=head.ckpt_cost_h, restart_h=head.restart_h,
        source=head.source, mtbf_h=head.mtbf_h, checkpoint_h=head.checkpoint_h, lost_h=cat("lost_h"),
        restart_time_h=cat("restart_time_h"), failures=cat("failures"),
    )


def _next_size(done, hw, target, cap):
    """Runs still to draw so the half-width reaches ``target`` (10% margin), within the cap."""
    need = math.ceil(done * (hw / target) ** 2 * 1.1) if np.isfinite(hw) else 2 * done
    return int(min(max(need - done, done // 4, 2), cap - done))


def simulate_to_precision(work, interval, failures, ckpt_cost, restart=RESTART, *, resolution=0.001,
                          conf=0.95, first=200, max_runs=100_000, seed=None, rng=None, **options):
    """Simulate until the ETTR is known to the digits it is printed with.

    Runs :func:`relmodel.simulate_training` (same first five arguments, and
    any of its keyword ``options`` such as ``step`` or ``sdc_rate``) in
    batches until the ``conf`` confidence interval of the ETTR has a
    half-width below ``resolution / 2``, or ``max_runs`` runs are
    done (then a :class:`~relmodel.errors.PrecisionWarning` says how wide the
    interval still is).

    Parameters
    ----------
    resolution : float
        The step the ETTR is printed in, as a fraction: 0.001 for a
        percentage with one decimal (``86.5%``), 0.01 for a whole percentage.
    conf : float
        Confidence level of the interval that must fit in half a step.
    first : int
        Runs in the first (pilot) batch.
    max_runs : int
        The cap.
    seed, rng
        As for :func:`relmodel.simulate_training`; one generator feeds every
        batch, so a seed gives the same runs on every call.

    Returns
    -------
    SimulationResult
        All runs of all batches (``n_runs`` says how many were needed).

    Examples
    --------
    >>> s = simulate_to_precision("30d", "16min", "3h", "45s", "10min", resolution=0.01, seed=1)
    >>> half_width(s) < 0.005, s.n_runs < 1000
    (True, True)
    """
    _check(resolution, conf, first, max_runs)
    if "n_runs" in options or "replicas" in options:
        raise ModelInputError("simulate_to_precision sizes the run itself: pass first= and max_runs=, "
                              "not n_runs=")
    if options.get("executor") is not None or options.get("chunks") is not None:
        raise ModelInputError("simulate_to_precision runs in one process; drop executor= and chunks=")
    rng = rng if rng is not None else np.random.default_rng(seed)
    target = resolution / 2
    parts, size = [], int(first)
    for _ in range(_LOOKS):
        parts.append(simulate_training(work, interval, failures, ckpt_cost, restart, n_runs=size, rng=rng,
                                       **options))
        result = _merge(parts)
        hw = half_width(result, conf)
        if hw < target or result.n_runs >= max_runs:
            break
        size = _next_size(result.n_runs, hw, target, max_runs)
    if not hw < target:
        warnings.warn(f"after {count(result.n_runs)} runs the {pct(conf, 0)} interval of the ETTR is "
                      f"still +/- {pct(hw, 3)}, wider than half the printed step ({pct(target, 3)}); raise "
                      "max_runs or print fewer digits", PrecisionWarning, stacklevel=2)
    return result
