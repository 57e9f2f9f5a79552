"""Reliability budgets, share-based FIT targets and what-if questions."""

import numpy as np
import pytest

from relmodel import datasets
from relmodel.scale.targets.budget import share_fit, split_budget, budget_what_if
from relmodel.checkpoint import ettr, optimal_interval
from relmodel.errors import InfeasibleTargetError, ModelInputError
from relmodel.scale.clusters.scaling import scale_rates

LLAMA_H = 54 * 24  # Llama 3, arXiv 2407.21783, Table 5


@pytest.fixture(scope="module")
def at_100k():
    return scale_rates(datasets.llama3_54day(), None, 100_000, n_boot=10, seed=0)


def test_proportional_split_needs_one_common_improvement(at_100k):
    b = split_budget(at_100k, 10.0)
    t = b.by_cause
    assert t["allowed_rate_per_h"].sum() == pytest.approx(0.1)
    assert np.allclose(t["improvement"], t["improvement"].iloc[0])
    assert t["improvement"].iloc[0] == pytest.approx(at_100k.job_rate_per_h / 0.1)


def test_equal_and_weighted_split(at_100k):
    t = split_budget(at_100k, 10.0, "equal", by="scales_with").by_cause
    assert set(t["name"]) == {"gpu", "node", "link", "job"}
    assert np.allclose(t["allowed_rate_per_h"], 0.1 / 4)
    w = split_budget(at_100k, 10.0, {"gpu": 3, "node": 1}, by="scales_with").by_cause.set_index("name")
    assert w.loc["gpu", "allowed_rate_per_h"] == pytest.approx(0.075)
    assert w.loc["link", "allowed_rate_per_h"] == 0.0
    assert w.loc["gpu", "allowed_fit"] == pytest.approx(0.075 / 100_000 * 1e9)


def test_hold_software_and_split_rest(at_100k):
    t = split_budget(at_100k, 10.0, hold=["job"], by="scales_with").by_cause.set_index("name")
    assert t.loc["job", "held"] and t.loc["job", "allowed_rate_per_h"] == pytest.approx(63 / LLAMA_H)
    assert t["allowed_rate_per_h"].sum() == pytest.approx(0.1)
    with pytest.raises(InfeasibleTargetError):
        split_budget(at_100k, 30.0, hold=["job"])  # software alone fails every 20.6 h


def test_share_fit_for_optics(at_100k):
    t = at_100k.by_cause
    net = t.component == "Network Switch/Cable"
    others = t.loc[~net, "rate_per_h"].sum()
    n_tx = at_100k.target.counts()["transceiver"]
    fit = share_fit(at_100k, "Network Switch/Cable", 0.1, per="transceiver")
    assert fit == pytest.approx(others / 9 / n_tx * 1e9)
    # at that FIT the optics are exactly 10% of interruptions
    optics = fit / 1e9 * n_tx
    assert optics / (optics + others) == pytest.approx(0.1)
    with pytest.raises(ModelInputError):
        share_fit(at_100k, "Network", 1.0)
    with pytest.raises(ModelInputError):
        share_fit(at_100k, "Network", 0.1, per="widget")


def test_what_if_halve_hbm_and_double_optics(at_100k):
    hbm = at_100k.by_cause.set_index("component").loc["GPU HBM3 Memory", "rate_per_h"]
    w = budget_what_if(at_100k, {"GPU HBM3 Memory": 0.5}, "1min", "10min", n_boot=500, seed=0)
    assert 1 / w.after_mtbf_h == pytest.approx(at_100k.job_rate_per_h - hbm / 2)
    assert w.after_mtbf_h > w.before_mtbf_h and w.after_ettr > w.before_ettr
    tau = optimal_interval(w.after_mtbf_h, "1min")
    assert w.after_interval_h == pytest.approx(tau)
    assert w.after_ettr == pytest.approx(ettr(tau, w.after_mtbf_h, "1min", "10min"))
    assert w.after_ettr_lo < w.after_ettr < w.after_ettr_hi
    d = budget_what_if(at_100k, {"link": 2}, "1min", "10min", n_boot=10, seed=0)
    assert d.after_mtbf_h < d.before_mtbf_h
    with pytest.raises(ModelInputError, match="no cause matches"):
        budget_what_if(at_100k, {"flux capacitor": 0.5}, "1min", seed=0)
    with pytest.raises(ModelInputError):
        split_budget(at_100k, 10.0, "random")
