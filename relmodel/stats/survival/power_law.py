"""Goodness of fit of the power-law (Crow-AMSAA) process: a Cramer-von Mises test with a simulated p-value."""

import numpy as np

from .trends import TrendTest, _prepare
from relmodel.budget_guard import check_cost, count as whole_count
from relmodel.base.progress import steps

__all__ = ["power_law_gof"]


def _cvm(u, scale):
    """Cramer-von Mises statistic of sorted u**scale against the uniform, row by row."""
    m = u.shape[-1]
    expected = (2 * np.arange(1, m + 1) - 1) / (2 * m)
    return 1 / (12 * m) + ((np.sort(u, axis=-1) ** scale - expected) ** 2).sum(axis=-1)


def power_law_gof(times, end=None, *, start=None, node=None, n_systems=None, n_runs=2000, seed=None):
    """Cramer-von Mises goodness of fit of the Crow-AMSAA (power-law) model.

    C2 = 1/(12M) + sum_i ((t_i/T)**beta_bar - (2i-1)/(2M))**2 over the M terms
    of the fit, with beta_bar the bias-corrected beta (MIL-HDBK-189C, 2011;
    Crow 1974).  Under the power law, given M, the (t_i/T)**beta are uniform
    order statistics, so C2 is parameter-free; its p-value (upper tail) is
    estimated from ``n_runs`` simulated samples (``seed`` fixes them) instead of
    the handbook's table.  Returns a :class:`TrendTest` ("wearing out" and
    "improving" do not apply: ``direction`` says "fits" or "does not fit"
    at the 5% level).

    ``times`` in hours.

    Examples
    --------
    >>> r = power_law_gof([100.0, 300.0, 500.0, 650.0, 800.0, 900.0, 950.0], end=1000.0, n_runs=500, seed=0)
    >>> r.direction
    'fits'
    """
    t, Ti, Ts, trunc = _prepare(times, end, start, 2, node, n_systems)
    m = t.size
    beta_bar = (m - 1) / np.log(Ti / t).sum()  # (n-1)/n (time) or (n-2)/n (failure) times beta_hat
    stat = float(_cvm(t / Ti, beta_bar))
    n_runs = whole_count("n_runs", n_runs, lo=1)
    check_cost(f"power_law_gof(n_runs={n_runs:,})", work=n_runs * m * 10, hint="use fewer simulations (n_runs)")
    rng = np.random.default_rng(seed)
    sims = []
    with steps("power-law goodness-of-fit simulations", total=n_runs) as step:
        for size in np.diff(np.r_[0:int(n_runs):256, int(n_runs)]):  # chunks bound the memory
            u = rng.uniform(size=(size, m))
            beta_bar = (m - 1) / -np.log(u).sum(axis=1, keepdims=True)  # for uniform u the true beta is 1
            sims.append(_cvm(u, beta_bar))
            step(int(size))
    sims = np.concatenate(sims)
    p = float((1 + np.sum(sims >= stat)) / (1 + sims.size))
    return TrendTest("Cramer-von Mises (power law)", stat, p, "fits" if p >= 0.05 else "does not fit",
                     m, float(Ts.max()), trunc)
