"""Forecasts: the failure rate now, and the failures to expect next, with predictive intervals.

Belongs here: the choice of the rate model a log supports today (a constant
rate, the Crow-AMSAA power law when the trend tests agree the rate moves, or
the last segment after a change point) and the predictive distribution of
future counts that follows from it, parameter uncertainty included.  May
import the other parts of ``relmodel.stats`` (survival for the trend tests,
rates for change points), the data layer and the base; never planning or
presentation.
"""

from .current import CurrentRate, current_rate

__all__ = ["CurrentRate", "current_rate"]
