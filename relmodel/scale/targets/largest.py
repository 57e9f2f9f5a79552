"""The largest job that still makes useful progress at today's failure rates, each size with its own restart.

A planned job that cannot reach an ETTR worth running is told how large a job could: the hardware rate scales
with the GPUs, the per-job rate is held, and the restart is the size's own (:func:`.restart_growth.restart_at`),
so the planned job's communicator start-up is not charged to a smaller one.
"""

from .requirements import required_job_mtbf
from .restart_growth import restart_at

__all__ = ["largest_job"]


def largest_job(ettr, n_gpus, ckpt_cost_h, restart_h, grown_h, fixed_per_h, hardware_per_h):
    """The most GPUs a job can have and still reach ``ettr`` at the optimal interval (None: no size can), with
    the per-job rate ``fixed_per_h`` held and the hardware rate ``hardware_per_h`` of ``n_gpus`` GPUs scaled to
    each size, and each size's own restart (a smaller job does not pay the start-up of one of ``n_gpus``).
    Exponential failures (Daly's exact model); rates per hour, durations in hours.

    Examples
    --------
    >>> round(largest_job(0.5, 1_048_576, 1 / 60, 10 / 60, 0.0, 0.0, 24.0), -3)  # 24 hardware faults an hour at 1M
    104000.0
    """
    from scipy.optimize import brentq

    n = float(n_gpus)

    def short(size):                    # > 0: a job of ``size`` GPUs falls short of ``ettr``
        need = float(required_job_mtbf(ettr, ckpt_cost_h, restart_at(size, restart_h, grown_h, n)))
        return need * (fixed_per_h + hardware_per_h * size / n) - 1.0

    if hardware_per_h <= 0 or short(1.0) >= 0:
        return None
    return n if short(n) <= 0 else brentq(short, 1.0, n, xtol=1e-3 * n)
