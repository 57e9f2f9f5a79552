"""Failure-time families: parameter names, transforms, start values, likelihood.

Each family is a small class.  It names its parameters, maps them to and from
unconstrained coordinates ``theta`` (logs of positive parameters), gives
starting values, builds the matching frozen ``scipy.stats`` distribution and
says which engine of :mod:`relmodel.stats.lifetimes.mle` maximises its likelihood.  All times
are hours.

==============  =====================  =======================================
family          parameters             survival function
==============  =====================  =======================================
exponential     scale (the mean)       exp(-t/scale)
weibull         shape k, scale l       exp(-(t/l)^k)
lognormal       mu, sigma (of ln t)    1 - Phi((ln t - mu)/sigma)
gamma           shape k, scale l       Q(k, t/l) (regularised upper gamma)
loglogistic     shape b, scale a       1/(1 + (t/a)^b)
==============  =====================  =======================================

The generalized gamma (``"gengamma"``: mu, sigma, lambda) lives in
:mod:`relmodel.stats.lifetimes.gengamma`; the base class in :mod:`relmodel.stats.lifetimes.base`.

Parameter names map to lifelines as: WeibullFitter ``lambda_`` = scale,
``rho_`` = shape; LogNormalFitter ``mu_``, ``sigma_``; LogLogisticFitter
``alpha_`` = scale, ``beta_`` = shape; ExponentialFitter ``lambda_`` = scale.
"""

from ...errors import FitError
from .classic import Exponential, Gamma, LogLogistic, LogNormal, Weibull
from .base import Family, Law
from .gengamma import GeneralizedGamma

__all__ = ["Family", "Law", "FAMILIES", "get_family"]

FAMILIES = {f.name: f for f in (Exponential(), Weibull(), LogNormal(), Gamma(), LogLogistic(),
                                GeneralizedGamma())}
_ALIASES = {"exp": "exponential", "lognorm": "lognormal", "log-normal": "lognormal",
            "log-logistic": "loglogistic", "fisk": "loglogistic", "weibull_min": "weibull",
            "generalized gamma": "gengamma", "generalizedgamma": "gengamma", "generalized_gamma": "gengamma"}


def get_family(name):
    """The :class:`Family` called ``name``; raises :class:`FitError` if unknown."""
    if isinstance(name, Family):
        return name
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in FAMILIES:
        raise FitError(f"unknown family {name!r}; valid families are " + ", ".join(FAMILIES))
    return FAMILIES[key]

