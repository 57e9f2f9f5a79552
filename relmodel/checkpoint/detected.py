"""ETTR and the best interval with detection latency and silent corruption (:mod:`relmodel.checkpoint.detection`)."""

from .detection import detection_terms
from .intervals import _as, _ettr, _optimal

__all__ = ["detection_ettr", "detection_optimal_interval"]


def detection_ettr(interval, mtbf, ckpt_cost, restart, *, sdc_rate=0.0, sdc_delay=0.0, latency=0.0):
    """ETTR with detection latency and silent corruption: Daly's ETTR at M' with restart R' (module notes)."""
    m_all, _, extra = detection_terms(_as("mtbf", mtbf, True), sdc_rate, sdc_delay, latency)
    r = _as("restart", restart, False)
    return _ettr(_as("interval", interval, True), m_all, _as("ckpt_cost", ckpt_cost, False), r + extra)


def detection_optimal_interval(mtbf, ckpt_cost, *, sdc_rate=0.0, sdc_delay=0.0, latency=0.0):
    """The interval that maximises :func:`detection_ettr`: Daly's exact optimum at M' (R' does not move it)."""
    m_all, _, _ = detection_terms(_as("mtbf", mtbf, True), sdc_rate, sdc_delay, latency)
    return _optimal(m_all, _as("ckpt_cost", ckpt_cost, True))
