"""A restart that grows with the job's ranks, from a published start-up time.

Communicator start-up (NCCL bootstrap and connection set-up) is the part of
a restart that grows with the number of ranks N.  Meta measured stock NCCL
taking about 265 s to initialise at 96K GPUs (96 x 1,024 = 98,304), and
about 24 s with its NCCLX library (Si et al., "Collective Communication for
100k+ GPUs", arXiv 2510.20171, 2025).  Taken as growing in proportion to the
ranks, that is :data:`PER_1K_RANKS_H` (2.7 s per 1,000 ranks): about 44 s
at 16,384 GPUs and 47 minutes at 1,048,576.  Meta's FT-HSDP report
(arXiv 2602.00277, Figure 2) shows NCCL start-up growing from under 20 s at
16K GPUs to about 200 s at 98K, of the same order.  Both are in
``data/field_rates.md``, which says how far each was checked: the 265 s is
taken from secondary summaries of the paper (its text could not be read
here), and the FT-HSDP figure reading is unchecked.

:func:`growing_restart` turns a restart time into a
:class:`relmodel.checkpoint.RestartModel` whose reload is that time (exposed
to failures, as a bare restart is) and whose start-up term grows with the
ranks (downtime no failure can lengthen); functions that know the size
evaluate it there.
"""

from dataclasses import dataclass

from ...units import hours

__all__ = ["NCCL_INIT_S", "NCCL_INIT_GPUS", "PER_1K_RANKS_H", "RESTART_GROWTH_SOURCE", "growing_restart",
           "planned_growth_h", "growth_words", "default_restart", "restart_at", "PlannedRestart"]

#: Stock NCCL start-up at 96K GPUs, seconds (Si et al., arXiv 2510.20171; secondary: data/field_rates.md).
NCCL_INIT_S = 265.0
#: The GPUs of that measurement: 96K = 96 x 1,024.
NCCL_INIT_GPUS = 96 * 1024
#: Start-up hours per 1,000 ranks, in proportion to that measurement.
PER_1K_RANKS_H = NCCL_INIT_S / 3600.0 / (NCCL_INIT_GPUS / 1000.0)
#: Where the growth comes from, in words for the page.
RESTART_GROWTH_SOURCE = ("NCCL start-up of 265 s at 96K GPUs (Si et al., arXiv 2510.20171, as quoted by summaries of "
                         "the paper: see data/field_rates.md), taken as growing in proportion to the ranks: "
                         "2.7 s per 1,000 GPUs")


def growing_restart(restart="10min", per_1k_ranks=PER_1K_RANKS_H, n_gpus=None):
    """A RestartModel: ``restart`` as its reload, plus start-up growing by ``per_1k_ranks`` hours per 1,000 ranks.

    ``restart`` may already be a RestartModel, whose reload and phases are
    kept and whose ``per_1k_ranks`` is replaced.

    Examples
    --------
    >>> r = growing_restart("10min")
    >>> [round(60 * r.hours_at(n), 1) for n in (16_384, 1_048_576)]     # minutes
    [10.7, 57.1]
    """
    import dataclasses
    from ...checkpoint.restart import RestartModel
    if isinstance(restart, RestartModel):
        return dataclasses.replace(restart, per_1k_ranks=float(per_1k_ranks),
                                   n_gpus=restart.n_gpus if n_gpus is None else n_gpus)
    return RestartModel(reload=float(hours(restart)), per_1k_ranks=float(per_1k_ranks), n_gpus=n_gpus)


def planned_growth_h(n_gpus, observed_gpus=0, per_1k_ranks=PER_1K_RANKS_H):
    """Start-up hours a restart gains at ``n_gpus`` over one measured on ``observed_gpus`` (0: not measured).

    A restart measured on the observed cluster already holds that cluster's
    start-up; a planned job larger than it pays the difference, a smaller one
    pays nothing back (its other costs are not known to shrink).

    Examples
    --------
    >>> round(3600 * planned_growth_h(16_384), 1)                # seconds at 16,384 GPUs
    44.2
    >>> planned_growth_h(256, observed_gpus=1024)
    0.0
    """
    return max(float(per_1k_ranks) * (int(n_gpus) - int(observed_gpus)) / 1000.0, 0.0)


def growth_words(grow_h, n_gpus):
    """The growth a decision added, in words for its restart note."""
    from ...tables import duration
    return (f"{duration(grow_h)} of communicator start-up at {int(n_gpus):,} GPUs, which grows with the ranks: "
            f"stock NCCL took {NCCL_INIT_S:.0f} s to start at 96K GPUs, Si et al., arXiv 2510.20171, as summaries "
            "of the paper quote it")


def default_restart(restart, n_gpus):
    """The restart a planning function uses: ``restart`` as given, or, when None, the default 10 min plus the
    start-up that grows with the ranks at ``n_gpus`` (all of it exposed to failures), as :func:`relmodel.decide`
    takes it when a log shows no restarts.  One default on every face.

    Examples
    --------
    >>> round(60 * default_restart(None, 16_384), 2), default_restart("5min", 16_384)
    (10.74, '5min')
    """
    if restart is not None:
        return restart
    from ...defaults import RESTART
    return float(hours(RESTART)) + planned_growth_h(n_gpus)


def restart_at(n_gpus, restart_h, grown_h, planned_gpus, per_1k_ranks=PER_1K_RANKS_H):
    """The restart (hours) a job of ``n_gpus`` GPUs has when one of ``planned_gpus`` has ``restart_h``, of which
    ``grown_h`` is start-up grown with the ranks (:func:`planned_growth_h`): that growth is taken back and the
    size's own added, from the GPUs the restart was measured at, so a smaller job does not pay a larger one's
    start-up.  With no growth, every size has ``restart_h``.

    Examples
    --------
    >>> r = 10 / 60 + planned_growth_h(1_048_576)               # the default restart at 1M GPUs
    >>> round(60 * restart_at(16_384, r, planned_growth_h(1_048_576), 1_048_576), 2)   # minutes
    10.74
    """
    if not grown_h > 0:
        return float(restart_h)
    slope = float(per_1k_ranks) / 1000.0
    since = float(planned_gpus) - float(grown_h) / slope
    return float(restart_h) - float(grown_h) + slope * max(float(n_gpus) - since, 0.0)


@dataclass(frozen=True)
class PlannedRestart:
    """A decision's restart at any job size (:func:`restart_at`), as the requirement tables and plots take a
    restart that depends on the size (``hours_at``); all of it is exposed to failures, as in the decision."""

    restart_h: float
    grown_h: float
    planned_gpus: int

    def hours_at(self, n_gpus):
        return restart_at(n_gpus, self.restart_h, self.grown_h, self.planned_gpus)

