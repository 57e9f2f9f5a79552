"""The fewest spares at a large offered load, in a bounded number of steps.

:func:`~relmodel.scale.sparing.spares.spare_pool` walks the spare counts one by one,
which is exact and quick while the offered load ``a`` (failure rate times
mean repair hours) is modest.  Above :data:`LARGE_LOAD` Erlangs that walk
would take ``a`` steps and an array of ``a`` numbers, so the count is found
here directly:

* Poisson model: from the Poisson quantile, checked against the exact tail
  on either side (a few evaluations);
* Erlang model: by bisection on B(c, a), evaluated from its integral form
  ``1 / B(c, a) = integral over t > 0 of exp(-t) (1 + t/a)^c dt``
  (Jagerman 1974), which holds for any real ``c`` and needs no recursion;
  each evaluation is one numerical integral scaled at its peak.

Loads above :data:`MAX_LOAD` are refused with a named error: a spare count
beyond 10^11 is not a plan, and B(c, a) of neighbouring counts there differ
by less than the integration's precision.
"""

import math
import warnings

import numpy as np
from scipy import integrate, stats

from ...errors import ModelInputError

__all__ = ["LARGE_LOAD", "MAX_LOAD", "erlang_b_integral", "fewest_spares", "check_load"]

#: Offered load (Erlangs) above which the spare count is searched, not walked.
LARGE_LOAD = 1e5
#: Largest offered load (Erlangs) for which a spare count is given.
MAX_LOAD = 1e11


def check_load(a):
    """``a`` (Erlangs) as a float; ModelInputError when it is not finite or above :data:`MAX_LOAD`."""
    a = float(a)
    if not math.isfinite(a) or a > MAX_LOAD:
        raise ModelInputError(f"offered load of {a:.3g} Erlangs (failure rate per hour times mean repair hours) "
                              f"is above the largest supported, {MAX_LOAD:.0e}: check that the rate is per hour "
                              "and the repair time in hours")
    return a


def _log_integrand(t, c, a):
    return -t + c * math.log1p(t / a)


def _reach(c, a, start, step, peak):
    """Distance from ``start`` in direction ``step`` (+1/-1) where the integrand is e^-60 of its peak."""
    d = 1.0
    while True:
        t = start + step * d
        if t <= 0:
            return start
        if peak - _log_integrand(t, c, a) > 60:
            return d
        d *= 2


def erlang_b_integral(c, a):
    """Erlang loss probability B(c, a) from its integral form (any ``c`` >= 0, ``a`` > 0).

    Examples
    --------
    >>> round(erlang_b_integral(2, 1.0), 12)     # 1/B = 1 + 2 + 2
    0.2
    """
    c, a = float(c), float(a)
    if c == 0:
        return 1.0
    top = max(0.0, c - a)                        # the integrand's peak
    peak = _log_integrand(top, c, a)
    lo = max(0.0, top - _reach(c, a, top, -1, peak)) if top > 0 else 0.0
    hi = top + _reach(c, a, top, +1, peak)
    f = lambda t: math.exp(_log_integrand(t, c, a) - peak)  # noqa: E731
    points = [top] if lo < top < hi else None
    with warnings.catch_warnings():               # a smooth one-peaked integrand: the limit is rounding
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        value, _ = integrate.quad(f, lo, hi, points=points, epsabs=0.0, epsrel=1e-13, limit=400)
    return float(math.exp(-(peak + math.log(value))))


def _poisson_fewest(a, target):
    c = max(0, int(stats.poisson.ppf(1.0 - target, a)) - 3)
    p = lambda k: float(stats.poisson.sf(k - 1, a))  # noqa: E731  P(N >= k)
    while c > 0 and p(c - 1) < target:
        c -= 1
    while p(c) >= target:
        c += 1
    return c


def _erlang_fewest(a, target):
    lo, hi = 0, int(a + 10 * math.sqrt(a) + 20)
    while erlang_b_integral(hi, a) >= target:
        lo, hi = hi, hi * 2
    while hi - lo > 1:                           # B(lo) >= target > B(hi)
        mid = (lo + hi) // 2
        if erlang_b_integral(mid, a) < target:
            hi = mid
        else:
            lo = mid
    return hi


def fewest_spares(a, target, model):
    """(n, spares, p): the fewest spares with P(no spare free) < ``target`` and the curve near it.

    ``spares`` runs from 20 below ``n`` to 2 above; ``p`` holds P(no spare
    free) at each.
    """
    a = check_load(a)
    n = _poisson_fewest(a, target) if model == "poisson" else _erlang_fewest(a, target)
    cs = np.arange(max(0, n - 20), n + 3)
    if model == "poisson":
        p = stats.poisson.sf(cs - 1, a)
    else:
        p = np.array([erlang_b_integral(c, a) for c in cs])
    return n, cs, np.asarray(p, dtype=float)
