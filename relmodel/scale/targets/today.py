"""Today's failure rate of a source: the rate at its window's end, from the models that forecast it best.

:func:`todays_rate` is the one place the planning layer asks "how often does
it fail now?", and it answers with the same models and interval that
:func:`~relmodel.checkpoint.forecast_check` measures against what happened next:
:func:`~relmodel.stats.forecast.current_rate` weighs a constant rate (the
window's average), the power-law (Crow-AMSAA) and log-linear trends read at the
window's end, and the rate since the latest change point with enough evidence
after it, by how well each forecast the later parts of the window from the
earlier.  The rate is "steady" when the constant carries the most weight or
the interval of the rate now holds the average, and today's rate is then the
window's average; else it is rising or falling, and today's rate is the
weighted one.  A count table has no failure times and gives the average.  The result's ``factor`` (today's rate
over the window's average, with the interval of the rate now) multiplies every
cause's average rate.
"""

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd

from ...tables import Result

__all__ = ["TodaysRate", "todays_rate"]


@dataclasses.dataclass(frozen=True)
class TodaysRate(Result):
    """The rate "today" means, as a multiple of the window's average.

    ``factor`` (with ``factor_lo``, ``factor_hi``) multiplies the average rate;
    ``trend`` is "steady", "rising", "falling", "disagree" or "not tested";
    ``method`` says how the rate now was found; ``window_h`` the window's length;
    ``today_window`` which stretch of the window each model rests on and why;
    ``weights`` pairs each model with its weight; ``dispersion`` how many times Poisson's variance the
    counts show around the rate the plan uses (1: none), by which the decision's ranges widen in variance.
    """

    factor: float
    factor_lo: float
    factor_hi: float
    trend: str
    method: str
    reason: str
    window_h: float
    n_events: int
    conf: float
    today_window: str = ""
    weights: tuple = ()
    dispersion: float = 1.0

    @property
    def moving(self):
        """True when today's rate is the fitted rate at the window's end, not the average."""
        return self.trend in ("rising", "falling")

    def to_frame(self):
        row = dataclasses.asdict(self)
        row["weights"] = ", ".join(f"{m} {w:.2f}" for m, w in self.weights)
        return pd.DataFrame([row])

    def text(self):
        if not self.moving:
            return f"Today's rate is the average over the window: {self.reason}."
        return (f"The rate is {self.trend}: today's rate is {self.factor:.2f}x the window's average "
                f"({self.factor_lo:.2f}-{self.factor_hi:.2f}x), {self.method}.")


def _average(reason, window_h, n, conf, trend="steady"):
    return TodaysRate(1.0, 1.0, 1.0, trend, "the average over the window", reason, float(window_h), int(n), conf)


def todays_rate(source, *, conf=0.95, alpha=0.05):
    """Today's rate of ``source`` (a Source, an InterruptionLog or a count table) as a :class:`TodaysRate`.

    The rate now and its ``conf`` interval are :func:`~relmodel.stats.forecast.current_rate`'s
    (``alpha``: level of its test for bursts).
    """
    from ...errors import FitError
    from ...stats.forecast.current import current_rate
    data = getattr(source, "data", source)
    window = float(getattr(data, "duration_h", float("nan")))
    if not hasattr(data, "interruptions"):
        return _average("a count table has no failure times to test for a trend", window,
                        getattr(data, "n_unexpected", 0), conf, "not tested")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cr = current_rate(data, conf=conf, alpha=alpha)
    except FitError as err:  # no usable times
        return _average(f"no trend could be tested ({err})", window, len(data.interruptions()), conf, "not tested")
    window = float(cr.window_h[1] - cr.window_h[0])
    if not cr.average_per_h > 0:
        return _average(cr.reason, window, cr.n, conf, "not tested")
    k, lo, hi = (x / cr.average_per_h for x in (cr.rate_per_h, cr.lo_per_h, cr.hi_per_h))
    steady = cr.model == "constant" or lo <= 1.0 <= hi
    phi = _bursts(cr, steady)
    if not all(math.isfinite(x) and x > 0 for x in (k, lo, hi)):
        return _average("the fitted rate at the window's end is not finite", window, cr.n, conf)
    if steady:  # steady: plan on the window's average, not on a small drift
        weights = ", ".join(f"{m} {w:.2f}" for m, w in cr.weights)
        why = ("the window's average forecasts its later parts best" if cr.model == "constant" else
               f"the rate now ({k:.2f}× the average, {lo:.2f}–{hi:.2f}×) cannot be told from the average")
        return TodaysRate(1.0, 1.0, 1.0, "steady", "the average over the window",
                          f"{why} (weights: {weights})" if weights else cr.reason, window, cr.n, conf,
                          cr.today_window, tuple(cr.weights), phi)
    word = "rising" if k > 1 else "falling"
    method = ("the weighted rate at the window's end of the rate models, each weighed by how well it forecast the "
              "log" if len(cr.weights) > 1 else "the average over the window")
    return TodaysRate(k, lo, hi, word, method, cr.reason, window, cr.n, conf, cr.today_window, tuple(cr.weights), phi)


def _bursts(cr, steady):
    """The dispersion of the rate the plan uses (1: Poisson): the constant model's when the plan takes the
    window's average, else the rate models' weighted by their weights."""
    parts = list(cr.components) or [cr]
    if steady:
        const = [c for c in parts if c.model == "constant"]
        parts = const or parts
    w = np.array([getattr(c, "weight", 1.0) for c in parts], float)
    phi = np.array([float(c.dispersion) for c in parts])
    return max(1.0, float(np.dot(w, phi) / w.sum())) if w.sum() > 0 else 1.0
