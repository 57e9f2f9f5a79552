"""Forecasts: the failure rate now, and the failures to expect next, with predictive intervals.

Belongs here: the rate models a log supports today (a constant rate, the
Crow-AMSAA power law and log-linear trends, the stretch after the latest change
point), their weights by leave-future-out predictive score, and the predictive
distribution of future counts from their mixture, parameter uncertainty included.  May
import the other parts of ``relmodel.stats`` (survival for the trend tests,
rates for change points), the data layer and the base; never planning or
presentation.
"""

from .current import CurrentRate, current_rate

__all__ = ["CurrentRate", "current_rate"]
