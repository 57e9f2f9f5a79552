"""Detection latency and silent data corruption in Daly's checkpoint model.

A fail-stop failure (rate 1/M) is noticed only after a detection latency ℓ:
a heartbeat notices a dead process in seconds, a collective-operation
timeout (an NCCL watchdog) only after its timeout, often minutes (MegaScale,
arXiv 2402.15627, detects and diagnoses within 10 minutes).  ``latency`` is
one duration, or a dict of cause class to (share of the fail-stop failures,
latency) whose shares add up to 1; only the mean enters.

Silent data corruption (rate σ per hour) is noticed only ``sdc_delay`` L
hours after it strikes (a loss spike, a checksum, a replayed step).  Then
the work since the last checkpoint written *before* the corruption, plus
the L hours that followed, are lost, and the job restarts from that
checkpoint.  Checkpoints written during the L hours hold corrupt state; with
period T = τ + δ between checkpoint completions, L spans floor(L/T) or
floor(L/T) + 1 of them, so the clean one is still kept when ``keep`` k >
floor(L/T) + 1, with probability 1 - frac(L/T) when k = floor(L/T) + 1, and
never when k <= floor(L/T) (:func:`p_unrecoverable`,
:func:`checkpoints_to_keep`).

In Daly's model both are failures followed by a stretch D during which the
job makes no progress and that no other failure can lengthen (ℓ for a
fail-stop failure, L for a corruption), then the restart R: failures come at
rate 1/M' = 1/M + σ and the mean stretch is E[D] = (ℓ/M + σL) M'.  As for
:class:`relmodel.checkpoint.RestartModel`, the model stays exact with the
effective restart R' = R + M' ln(1 + E[D]/M'), so ETTR, the optimal interval
(which depends on M' only) and the wall time follow from Daly's formulas.
What this leaves out: a fail-stop failure during the L hours of an
undetected corruption (second order in L/M).
"""

import math

import numpy as np

from ..errors import ModelInputError
from ..units import hours

__all__ = ["mean_latency", "detection_terms", "p_unrecoverable", "checkpoints_to_keep"]


def mean_latency(latency):
    """Mean detection latency in hours: a duration, or {class: (share, latency)} with shares adding to 1."""
    if isinstance(latency, dict):
        if not latency:
            return 0.0
        shares, lat = [], []
        for name, pair in latency.items():
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise ModelInputError(f"latency[{name!r}] must be (share of fail-stop failures, latency); "
                                      f"got {pair!r}")
            share, value = float(pair[0]), float(hours(pair[1]))
            if not (0 <= share <= 1) or not (value >= 0 and math.isfinite(value)):
                raise ModelInputError(f"latency[{name!r}]: the share must be a fraction from 0 to 1 and the "
                                      f"latency a finite duration >= 0; got {pair!r}")
            shares.append(share)
            lat.append(value)
        if abs(sum(shares) - 1.0) > 1e-9:
            raise ModelInputError(f"latency shares must add up to 1 over the cause classes; they add up to "
                                  f"{sum(shares):.6g}")
        return float(np.dot(shares, lat))
    v = float(hours(latency))
    if not (v >= 0 and math.isfinite(v)):
        raise ModelInputError(f"latency must be a finite duration >= 0; got {latency!r}")
    return v


def _rate(x):
    v = float(x)
    if not (v >= 0 and math.isfinite(v)):
        raise ModelInputError(f"sdc_rate must be a finite rate per hour >= 0; got {x!r}")
    return v


def detection_terms(mtbf_h, sdc_rate=0.0, sdc_delay=0.0, latency=0.0):
    """(M', E[D], R' - R as a function of M') for fail-stop MTBF ``mtbf_h`` (hours), vectorised over M.

    Returns the combined MTBF M' = 1 / (1/M + σ), the mean stretch without
    progress E[D] and the restart increment M' ln(1 + E[D]/M').
    """
    m = np.asarray(mtbf_h, dtype=float)
    s, big_l, ell = _rate(sdc_rate), float(hours(sdc_delay)), mean_latency(latency)
    if not (big_l >= 0 and math.isfinite(big_l)):
        raise ModelInputError(f"sdc_delay must be a finite duration >= 0; got {sdc_delay!r}")
    with np.errstate(divide="ignore"):
        lam = np.where(np.isinf(m), 0.0, 1.0 / m)
    total = lam + s
    with np.errstate(divide="ignore", invalid="ignore"):
        m_all = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0), np.inf)
        dwell = np.where(total > 0, (lam * ell + s * big_l) / np.where(total > 0, total, 1.0), 0.0)
        extra = np.where(total > 0, m_all * np.log1p(dwell / np.where(total > 0, m_all, 1.0)), 0.0)
    return m_all[()], dwell[()], extra[()]


def p_unrecoverable(interval, ckpt_cost, sdc_delay, keep=2):
    """Chance a corruption is found only after the last clean checkpoint was dropped (``keep`` are kept)."""
    k = int(keep)
    if k < 1 or k != keep:
        raise ModelInputError(f"keep must be a whole number of checkpoints >= 1; got {keep!r}")
    period = float(hours(interval)) + float(hours(ckpt_cost))
    spans = float(hours(sdc_delay)) / period
    whole = math.floor(spans)
    if k > whole + 1:
        return 0.0
    if k == whole + 1:
        return spans - whole
    return 1.0


def checkpoints_to_keep(interval, ckpt_cost, sdc_delay):
    """The fewest kept checkpoints that always hold a clean one when a corruption is found: floor(L/T) + 2.

    Examples
    --------
    >>> checkpoints_to_keep("30min", "1min", "2h")      # 2 h span 3 or 4 checkpoints 31 min apart
    5
    """
    period = float(hours(interval)) + float(hours(ckpt_cost))
    return int(math.floor(float(hours(sdc_delay)) / period)) + 2

