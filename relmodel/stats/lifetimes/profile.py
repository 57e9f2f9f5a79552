"""Profile-likelihood intervals: where the profile log-likelihood of one parameter falls
chi2(1, conf)/2 below its maximum (Meeker and Escobar, *Statistical Methods for Reliability
Data*, 1998, section 8.2).  Better than Wald intervals in small samples.
"""

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .registry import get_family

__all__ = ["profile_table"]


def _profile(fam, sample, theta_hat, i, value):
    """Maximum log-likelihood with theta[i] held at ``value``."""
    others = [j for j in range(theta_hat.size) if j != i]

    def neg(x):
        th = theta_hat.copy()
        th[i] = value
        th[others] = x
        v = fam.loglik(sample, th)
        return -v if np.isfinite(v) else 1e300

    if not others:
        return -neg(np.array([]))
    res = optimize.minimize(neg, theta_hat[others], method="Nelder-Mead",
                            options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 4000})
    return -res.fun


def _bound(fam, sample, theta_hat, i, ll_max, cut, se, sign):
    f = lambda v: ll_max - _profile(fam, sample, theta_hat, i, v) - cut  # noqa: E731
    step = max(se, 1e-3)
    for _ in range(40):
        far = theta_hat[i] + sign * step
        if f(far) > 0:
            return optimize.brentq(f, *sorted((theta_hat[i], far)), xtol=1e-10)
        step *= 2
    return sign * np.inf


def profile_table(sample, res):
    """Profile intervals of each parameter of ``res`` (a FitResult of ``sample``).

    Returns a DataFrame ``param, estimate, lower, upper, wald_lower, wald_upper``
    (natural parameters; the scale in hours); an unbounded side is 0 (positive
    parameters) or infinity.
    """
    conf = res.conf
    fam = get_family(res.family)
    theta = fam.theta(res.params)
    ll_max = fam.loglik(sample, theta)
    cut = stats.chi2.ppf(conf, 1) / 2
    rows = []
    for i, (name, pos) in enumerate(zip(fam.param_names, fam.positive)):
        se = float(res.ci.loc[i, "se"] / (res.params[name] if pos else 1.0))
        lo, hi = (_bound(fam, sample, theta, i, ll_max, cut, se, s) for s in (-1, 1))
        to_nat = np.exp if pos else (lambda x: x)
        rows.append([name, res.params[name], float(to_nat(lo)), float(to_nat(hi)), res.ci.loc[i, "lower"],
                     res.ci.loc[i, "upper"]])
    return pd.DataFrame(rows, columns=["param", "estimate", "lower", "upper", "wald_lower", "wald_upper"])
