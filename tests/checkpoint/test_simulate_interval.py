"""Best periodic interval by simulation, next to the exponential answer."""

import math

import numpy as np
import pytest
from scipy import stats

from relmodel.checkpoint import ettr, optimal_interval
from relmodel.errors import ModelInputError
from relmodel.checkpoint.search import best_interval


class Fit:
    def __init__(self, dist):
        self.dist, self.mean_h = dist, float(dist.mean())

    def ppf(self, q):
        return self.dist.ppf(q)


def weibull(shape, mean):
    return Fit(stats.weibull_min(shape, scale=mean / math.gamma(1 + 1 / shape)))


def test_exponential_failures_recover_the_exact_optimum():
    res = best_interval(Fit(stats.expon(scale=3.0)), "45s", "10min", n_runs=600, seed=1, work="600h")
    tau = float(optimal_interval(3.0, 45 / 3600))
    assert res.exp_interval_h == pytest.approx(tau)
    # ETTR is flat near the optimum: the simulated best is close in ETTR, not necessarily in tau
    assert ettr(res.interval_h, 3.0, 45 / 3600, 1 / 6) > ettr(tau, 3.0, 45 / 3600, 1 / 6) - 2e-3
    assert res.ettr_lo <= res.exp_ettr <= res.ettr_hi + 2e-3
    assert res.exp_interval_sim_lo <= res.exp_ettr <= res.exp_interval_sim_hi


def test_decreasing_hazard_differs_from_exponential_answer():
    res = best_interval(weibull(0.5, 3.0), "45s", "10min", n_runs=600, seed=2, work="600h")
    # the exponential formula misjudges the ETTR of a Weibull(0.5) renewal process
    assert not (res.exp_interval_sim_lo <= res.exp_ettr <= res.exp_interval_sim_hi)
    # the simulated best is at least as good as the exponential optimum, up to noise
    assert res.ettr >= res.exp_interval_sim_ettr - (res.ettr_hi - res.ettr_lo)
    assert res.curve.shape == (21, 4) and np.all(res.curve["lo"] <= res.curve["hi"])
    assert res.to_frame().shape[0] == 2 and "simulation" in res._repr_html_()


@pytest.mark.parametrize("kw", [dict(ckpt_cost=0), dict(grid=2), dict(span=1.0), dict(failures=-1)])
def test_bad_input(kw):
    args = dict(failures=3.0, ckpt_cost="45s", n_runs=50)
    args.update(kw)
    with pytest.raises(ModelInputError):
        best_interval(**args)
