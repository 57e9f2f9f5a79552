"""Today's failure rate of a source: the rate at the end of its window when the trend tests agree it moves.

:func:`todays_rate` is the one place the planning layer asks "how often does
it fail now?".  A count table, or a log whose trend tests do not all find a
trend in the same direction, gives the average over the window.  When every
test agrees (MIL-HDBK-189, Laplace and Lewis-Robinson, each below ``alpha``
with the same direction) the rate now is the power-law (Crow-AMSAA) intensity
at the window's end.  For that model the intensity at the end over the
window's average is the shape ``beta`` (``u(T) = n beta / T`` against
``n / T``), so the rate now is the average times the bias-corrected
``beta`` (MIL-HDBK-189C), with the exact chi-square interval of ``beta``.
The result's ``factor`` multiplies every cause's average rate.
"""

import dataclasses
import math
import warnings

import pandas as pd

from ...tables import Result

__all__ = ["TodaysRate", "todays_rate"]


@dataclasses.dataclass(frozen=True)
class TodaysRate(Result):
    """The rate "today" means, as a multiple of the window's average.

    ``factor`` (with ``factor_lo``, ``factor_hi``) multiplies the average rate;
    ``trend`` is "steady", "rising", "falling", "disagree" or "not tested";
    ``method`` says how the rate now was found; ``window_h`` the window's length.
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

    @property
    def moving(self):
        """True when today's rate is the fitted rate at the window's end, not the average."""
        return self.trend in ("rising", "falling")

    def to_frame(self):
        return pd.DataFrame([dataclasses.asdict(self)])

    def text(self):
        if not self.moving:
            return f"Today's rate is the average over the window: {self.reason}."
        return (f"The rate is {self.trend}: today's rate is {self.factor:.2f}x the window's average "
                f"({self.factor_lo:.2f}-{self.factor_hi:.2f}x), {self.method}.")


def _average(reason, window_h, n, conf, trend="steady"):
    return TodaysRate(1.0, 1.0, 1.0, trend, "the average over the window", reason, float(window_h), int(n), conf)


def todays_rate(source, *, conf=0.95, alpha=0.05):
    """Today's rate of ``source`` (a Source, an InterruptionLog or a count table) as a :class:`TodaysRate`."""
    from ...stats.survival.trends import trend
    data = getattr(source, "data", source)
    window = float(getattr(data, "duration_h", float("nan")))
    if not hasattr(data, "interruptions"):
        return _average("a count table has no failure times to test for a trend", window,
                        getattr(data, "n_unexpected", 0), conf, "not tested")
    n = len(data.interruptions())
    if n < 10:
        return _average(f"only {n} interruptions, too few to test for a trend", window, n, conf, "not tested")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tr = trend(data, alpha=alpha, conf=conf)
    except ValueError as err:  # a FitError: no usable times
        return _average(f"no trend could be tested ({err})", window, n, conf, "not tested")
    dirs = {t.direction for t in tr.tests}
    agree = all(t.p_value < alpha for t in tr.tests) and len(dirs) == 1
    if not agree:
        some = [t.test for t in tr.tests if t.p_value < alpha]
        if not some:
            return _average("no trend test finds the rate changing", window, n, conf)
        return _average(f"the trend tests disagree ({', '.join(some)} alone finds a trend)", window, n, conf,
                        "disagree")
    f = tr.fit
    k = float(f.beta_unbiased)
    lo, hi = (float(f.beta_lo), float(f.beta_hi))
    if not all(math.isfinite(x) and x > 0 for x in (k, lo, hi)):
        return _average("the power-law fit gives no finite rate at the window's end", window, n, conf)
    word = "rising" if k > 1 else "falling"
    return TodaysRate(k, lo, hi, word, "the power-law (Crow-AMSAA) rate at the window's end",
                      f"every trend test finds the rate {word}", window, n, conf)
