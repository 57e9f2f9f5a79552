"""Policies, tolerated faults and design comparison (relmodel.scale.design.policies, relmodel.scale.design.designs)."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relmodel
from relmodel.errors import DesignError
from relmodel.scale.clusters.cluster import Cluster
from relmodel.scale.design.compound import DomainModel, closed_form
from relmodel.scale.design.designs import DESIGNS, compare_designs, design_presets, policy_variants
from relmodel.scale.design.policies import evaluate_design, tolerance_gain

FAST = dict(n_runs=200, n_boot=0, seed=0)


def test_llama3_design_reproduces_the_published_interruption_rate(llama3):
    # Llama 3 (arXiv 2407.21783, Table 5): 419 unexpected interruptions in 54 days on 16,384 GPUs.
    r = evaluate_design(Cluster.llama3(), llama3, "1min", "10min", **FAST)
    assert r.job_mtbf_h == pytest.approx(54 * 24 / 419, rel=1e-12)
    assert (r.gpus_bought, r.gpus_used, r.gpus_idle) == (16_384, 16_384, 0)


def test_tolerating_all_network_faults_removes_exactly_their_rate(llama3):
    # 35 Network Switch/Cable interruptions in 54 days (Table 5) become absorbed faults.
    g = tolerance_gain(Cluster.llama3(), llama3, "1min", "10min", {"Network Switch/Cable": 1.0}, **FAST)
    assert g.before.interruption_rate - g.after.interruption_rate == pytest.approx(35 / 1296, rel=1e-9)
    assert g.after.absorbed_rate == pytest.approx(35 / 1296, rel=1e-9) and g.ettr_gain > 0
    assert "gains" in g._repr_html_()


@pytest.mark.parametrize("absorb", [0.0, "30s"])
def test_more_tolerance_never_lowers_ettr(llama3, absorb):
    c = design_presets(4096)["nvl72-in-rack-spares"]
    ettrs = [evaluate_design(c, llama3, "1min", "10min", tolerated={"link": t}, absorb=absorb, **FAST).ettr
             for t in (0.0, 0.25, 0.5, 0.9, 1.0)]
    assert all(b >= a for a, b in zip(ettrs, ettrs[1:])) and ettrs[-1] > ettrs[0]


def test_dual_plane_rule_absorbs_network_faults(llama3):
    single = design_presets(4096)["nvl72-in-rack-spares"]
    dual = dataclasses.replace(single, planes=2)
    r1, r2 = (evaluate_design(c, llama3, "1min", "10min", **FAST) for c in (single, dual))
    assert r2.link_tolerated == 1.0 and r1.link_tolerated == 0.0
    assert r2.interruption_rate < r1.interruption_rate and r2.absorbed_rate > 0


def _pool_p(pool, **kw):
    return closed_form(DomainModel(pool=pool, **kw), 24.0)["p_no_spare"]


@pytest.mark.parametrize("kw", [dict(groups=200, trays=18, spares=0, tray_rate=7e-5, group_rate=2e-5),
                                dict(groups=200, trays=18, spares=2, tray_rate=3e-3, group_rate=1e-4),
                                dict(groups=2000, trays=1, tray_rate=1e-4, group_rate=1e-5, need=1)])
def test_more_pool_spares_never_raise_p_no_spare(kw):
    p = [_pool_p(s, **kw) for s in range(0, 40)]
    assert all(b <= a + 1e-15 for a, b in zip(p, p[1:])) and p[-1] < p[0]


@pytest.mark.parametrize("nu", [1e-5, 7e-5, 1e-3, 2e-3])
def test_more_in_domain_spares_never_raise_p_no_spare(nu):
    # with fewer than one tray of a domain in repair on average (18 trays x nu x 24 h < 1)
    p = [closed_form(DomainModel(groups=100, trays=18, spares=k, pool=1, tray_rate=nu), 24.0) for k in range(6)]
    assert all(b["p_no_spare"] <= a["p_no_spare"] for a, b in zip(p, p[1:]))
    assert all(b["p_no_group_spare"] <= a["p_no_group_spare"] for a, b in zip(p, p[1:]))


def test_more_spares_raise_ettr(llama3):
    """Whole-rack jobs with no spare rack wait for a repair at almost every failure: spares must pay."""
    base = design_presets(4096)["nvl72-whole-rack"]
    runs = [evaluate_design(dataclasses.replace(base, spare_pool=s), llama3, "1min", "10min", **FAST)
            for s in (0, 1, 2, 4, 8)]
    ettrs, p_none = [r.ettr for r in runs], [r.p_no_spare for r in runs]
    assert all(b > a for a, b in zip(ettrs, ettrs[1:])), ettrs
    assert all(b < a for a, b in zip(p_none, p_none[1:])), p_none
    assert p_none[0] > 0.9 and p_none[-1] < 0.01       # no spare: nearly every failure waits; 8: almost never
    assert ettrs[-1] - ettrs[0] > 0.5


def test_compare_named_designs(llama3):
    cmp = compare_designs(DESIGNS, llama3, ckpt_cost="1min", restart="10min", n_gpus=4096, n_runs=300, n_boot=50, seed=0)
    t = cmp.by_design
    assert list(t["design"]) == [c.name for c in design_presets(4096).values()]
    assert (t["gpus_used"] >= 4096).all()
    np.testing.assert_allclose(t["goodput_per_gpu"], t["ettr"] * t["gpus_used"] / t["gpus_bought"])
    racks = math.ceil(4096 / 64)
    row = t.set_index("design").loc["NVL72, 2 spare trays per rack"]
    assert row["gpus_idle"] == racks * 2 * 4 + 72 and row["gpus_bought"] == racks * 72 + 72
    assert (t["ettr_lo"] <= t["ettr"]).all() and (t["ettr"] <= t["ettr_hi"]).all()
    assert t.set_index("design").loc["NVL72, spare trays, dual plane", "required_transceiver_mtbf_h"] == 0
    shown = cmp.table().to_html(index=False)
    assert "nan" not in shown.lower() and "inf" not in shown and "e+" not in shown
    assert cmp.best() in set(t["design"]) and "goodput per GPU bought" in cmp.text()


def test_required_node_mtbf_meets_the_target(llama3):
    c = Cluster.llama3()
    cmp = compare_designs([c], llama3, ckpt_cost="1min", restart="10min", target_ettr=0.8, **FAST)
    row = cmp.by_design.iloc[0]
    m_node = row["required_node_mtbf_h"]
    fixed = row["interruptions_per_day"] / 24 - cmp.results[0].node_interrupt_rate
    job = 1 / (c.n_nodes / m_node + fixed)
    assert relmodel.scale.best_ettr(mtbf=job, ckpt_cost="1min", restart="10min") == pytest.approx(0.8, rel=1e-9)


def test_policy_variants_spend_the_same_purchase(llama3):
    # tp_span not stated: the cross-rack node pool is offered (the preset's tp_span=72 leaves it out)
    design = dataclasses.replace(design_presets(4096)["nvl72-whole-rack"], tp_span=None)
    variants = policy_variants(design)
    assert [v.domain_policy for v in variants] == ["whole-domain", "in-domain-spares", "in-domain-spares",
                                                   "spare-pool"]
    bought = {v.n_gpus + v.spare_pool * (v.gpus_per_node if v.domain_policy == "spare-pool" else 72)
              for v in variants}
    assert bought == {design.n_gpus + design.spare_pool * 72}


@pytest.mark.parametrize("make", [
    lambda: Cluster(n_gpus=144, gpus_per_node=4, scaleup_gpus=70),                    # domain not whole nodes
    lambda: Cluster(n_gpus=144, gpus_per_node=4, scaleup_gpus=72, domain_spares=18),   # more spares than trays
    lambda: Cluster(n_gpus=144, gpus_per_node=4, scaleup_gpus=72, domain_spares=-1),
    lambda: Cluster(n_gpus=144, policy="half-rack"),
    lambda: Cluster(n_gpus=144, gpus_per_node=4, scaleup_gpus=72, policy="in-domain-spares"),
    lambda: Cluster(n_gpus=144, planes=0),
])
def test_impossible_designs(make):
    with pytest.raises(relmodel.errors.ModelInputError) as e:
        make()
    assert isinstance(e.value, ValueError) and ("use" in str(e.value) or "must be" in str(e.value))


def test_bad_design_inputs(llama3):
    ragged = Cluster(n_gpus=100, gpus_per_node=4, scaleup_gpus=72)
    with pytest.raises(DesignError, match="do not divide into 72-GPU"):
        evaluate_design(ragged, llama3, "1min", "10min", **FAST)
    c = Cluster.llama3()
    with pytest.raises(DesignError, match="negative"):
        evaluate_design(c, llama3, "1min", "10min", tolerated={"link": -0.1}, **FAST)
    with pytest.raises(DesignError, match="over 1"):
        evaluate_design(c, llama3, "1min", "10min", tolerated={"Network Switch/Cable": 1.5}, **FAST)
    with pytest.raises(DesignError, match="valid"):
        evaluate_design(c, llama3, "1min", "10min", tolerated={"Optics": 0.5}, **FAST)
    with pytest.raises(DesignError, match="named designs"):
        compare_designs(["nvl144"], llama3, ckpt_cost="1min", restart="10min", **FAST)
    with pytest.raises(DesignError, match="share"):
        compare_designs([c], llama3, ckpt_cost="1min", restart="10min", share=1.2, **FAST)
    # the field the user gave is named (it was the internal group_rate); a fractional size is not cut short
    with pytest.raises(DesignError, match="^domain_fit must be"):
        evaluate_design(c, llama3, "1min", "10min", domain_fit=-1e5, **FAST)
    with pytest.raises(DesignError, match="n_gpus must be a whole number"):
        compare_designs(["nvl72-whole-rack"], llama3, 100.5, ckpt_cost="1min", restart="10min", **FAST)
    small = Cluster(n_gpus=36, gpus_per_node=4, nodes_per_rack=18, scaleup_gpus=72)
    with pytest.raises(DesignError, match=r"e\.g\. 72$"):       # one suggestion, not "72 or 72"
        evaluate_design(small, llama3, "1min", "10min", **FAST)


@settings(max_examples=60, deadline=None)
@given(groups=st.integers(1, 400), trays=st.integers(1, 24), spares=st.integers(0, 5), need=st.sampled_from([1, 2]),
       nu=st.floats(1e-7, 1e-2), mu=st.floats(0, 1e-3), pool=st.integers(0, 30))
def test_fuzz_one_more_pool_spare_never_raises_p_no_spare(groups, trays, spares, need, nu, mu, pool):
    spares = min(spares, trays - 1)
    if need > 1:
        trays, spares, groups = 1, 0, groups * need
    kw = dict(groups=groups, trays=trays, spares=spares, tray_rate=nu, group_rate=mu, need=need)
    a, b = _pool_p(pool, **kw), _pool_p(pool + 1, **kw)
    assert 0.0 <= b <= a + 1e-12 <= 1.0 + 1e-12


def test_one_tray_domains_have_no_room_for_spares():
    with pytest.raises(DesignError, match="spare-pool"):
        Cluster(n_gpus=64, policy="in-domain-spares")


def test_no_runs_gives_the_closed_forms_without_the_simulated_check():
    from relmodel.data.bundled.datasets import llama3_54day
    names = ["nvl72-whole-rack", "nvl72-in-rack-spares", "h100-rail"]
    simulated = compare_designs(names, llama3_54day(), 4608, 0.9, ckpt_cost="1min", restart="10min", n_runs=300,
                                n_boot=50, seed=2)
    closed = compare_designs(names, llama3_54day(), 4608, 0.9, ckpt_cost="1min", restart="10min", n_runs=0,
                             n_boot=50, seed=2)
    a, b = simulated.by_design, closed.by_design
    for col in ("ettr", "ettr_lo", "ettr_hi", "p_no_spare", "stall_share", "goodput_per_gpu", "gpus_bought"):
        np.testing.assert_array_equal(a[col].to_numpy(), b[col].to_numpy(), err_msg=col)
    assert b["p_no_spare_sim"].isna().all() and (b["sim_runs"] == 0).all() and (a["sim_runs"] > 0).all()


def test_link_faults_all_tolerated_are_a_share_of_one_not_one_and_a_rounding():
    """Rates whose dot product rounds above their sum (found on LANL's page 06, which then stopped with "got
    1.0000000000000002"): all of them tolerated is a share of exactly 1."""
    import numpy as np
    import pandas as pd

    from relmodel.scale.design.policies import _link_tolerated
    rate = np.array([0.0557994914491104, 0.04442149725411267, 0.49591115853207757, 0.010317845351750725,
                     0.07551089642112735, 0.06973986037443712, 0.14935063212135, 0.0001849170869593946])
    assert rate @ np.ones(8) / rate.sum() > 1.0   # the rounding this guards against
    table = pd.DataFrame({"level": ["link"] * 8, "rate_per_h": rate})
    assert _link_tolerated(None, table, np.ones(8)) == 1.0
