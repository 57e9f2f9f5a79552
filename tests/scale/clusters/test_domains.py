"""Fault domains and the compound-failure simulator (relmodel.scale.clusters.domains, relmodel.scale.design.compound).

Counts are checked against small fabrics counted by hand; the simulator
against closed forms computed here independently (Poisson occupancy of an
M/G/infinity queue, binomial counts of independent domains, the M/M/infinity
busy period).
"""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

import relmodel
from relmodel.errors import DesignError
from relmodel.scale.clusters.cluster import Cluster
from relmodel.scale.design.compound import DomainModel, closed_form, simulate_domains
from relmodel.scale.clusters.domains import blast_radius, cause_levels
from relmodel.scale.clusters.scaling import scale_rates
from relmodel.scale.sparing.spares import EmpiricalRepair, p_no_spare


def test_hand_counted_two_tier_rail_with_planes():
    # 64 GPUs, 8 per node, radix 16: 8 leaves of 8 down / 8 up ports, 64 uplinks into 4 spines of 16 ports.
    c = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="rail")
    n = c.counts()
    assert c.n_tiers == 2 and c.switches_per_tier() == [8, 4]
    assert (n["switch"], n["link"], n["optical_link"], n["transceiver"]) == (12, 128, 128, 256)
    two = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="rail", planes=2).counts()
    assert (two["switch"], two["link"], two["transceiver"]) == (24, 256, 512)
    fat = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="fat-tree").counts()
    assert fat["transceiver"] == 128  # only the 64 leaf-to-spine links are optical


def test_blast_radius_by_hand():
    rail = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="rail")
    # a node pool swaps the server a failed GPU sits in: the job loses its 8 GPUs until the swap
    assert [blast_radius(rail, lv) for lv in ("gpu", "node", "domain", "leaf", "link", "job")] == [8, 8, 8, 8, 1, 0]
    assert blast_radius(rail, "gpu", physical=True) == 1
    tor = Cluster(n_gpus=64, gpus_per_node=8, radix=16, fabric="fat-tree", leaf_down=16)
    assert blast_radius(tor, "leaf") == 16  # a ToR over two 8-NIC servers
    rack = Cluster(n_gpus=144, gpus_per_node=4, nodes_per_rack=18, scaleup_gpus=72, radix=64)
    assert (blast_radius(rack, "node", physical=True), blast_radius(rack, "domain")) == (4, 72)
    # whole-domain (the default with no spare trays): a tray fault takes its 72-GPU rack out of the job
    assert [blast_radius(rack, lv) for lv in ("gpu", "node", "link")] == [72, 72, 72]
    # a rail leaf reaches one NIC on each of up to 64 trays: all 36 trays here, so both racks
    assert blast_radius(rack, "leaf") == 144
    spare_trays = Cluster(n_gpus=144, gpus_per_node=4, nodes_per_rack=18, scaleup_gpus=72, radix=64, domain_spares=2)
    assert [blast_radius(spare_trays, lv) for lv in ("gpu", "node", "link", "leaf")] == [4, 4, 1, 32]
    dual = Cluster(n_gpus=144, gpus_per_node=4, scaleup_gpus=72, planes=2)
    assert blast_radius(dual, "leaf") == 0 and blast_radius(dual, "link") == 0
    fd = rack.fault_domains()
    assert fd.set_index("level").loc["domain", "units"] == 2 and fd.set_index("level").loc["node", "units"] == 36
    assert "nan" not in rack.fault_domains(readable=True).to_html()


def test_cause_levels_default_and_override(llama3):
    scaled = scale_rates(llama3, n_boot=1, seed=0)
    lv = cause_levels(scaled).set_index("component")["level"]
    assert lv["Faulty GPU"] == "node" and lv["NIC"] == "node"
    assert lv["Network Switch/Cable"] == "link" and lv["Software Bug"] == "job"
    over = cause_levels(scaled, {"Network Switch/Cable": "leaf", "GPU": "gpu"}).set_index("component")
    assert over.loc["Network Switch/Cable", "level"] == "leaf" and over.loc["Faulty GPU", "level"] == "gpu"
    assert over.loc["Network Switch/Cable", "gpus_lost_per_event"] == 16  # Llama 3 ToR: 16 NICs
    with pytest.raises(DesignError, match="valid"):
        cause_levels(scaled, {"Cosmic rays": "node"})
    with pytest.raises(DesignError, match="level must be one of"):
        cause_levels(scaled, {"NIC": "planet"})


def _binom_tail(n, q, s):
    return stats.binom.sf(s - 1, n, q) if s > 0 else 1.0


@pytest.mark.parametrize("groups,trays,k,pool,nu,mu", [
    (60, 18, 2, 1, 2e-3, 0.0),      # in-rack spares, compound tray failures decide
    (60, 18, 1, 2, 1e-3, 4e-4),     # in-rack spares plus whole-rack faults
    (40, 18, 0, 3, 2e-4, 0.0),      # whole racks from a pool
    (500, 1, 0, 4, 4e-4, 0.0),      # any node replaces any other
])
def test_simulator_matches_closed_forms(groups, trays, k, pool, nu, mu):
    m = DomainModel(groups=groups, trays=trays, spares=k, pool=pool, tray_rate=nu, group_rate=mu)
    s = 24.0
    a_t, a_d = trays * nu * s, mu * s
    # independent closed forms (see relmodel.scale.design.compound notes)
    p_eq, p_le = stats.poisson.pmf(k, a_t), stats.poisson.cdf(k, a_t)
    q = 1 - p_le * math.exp(-a_d)
    lam_t, lam_d = groups * trays * nu * (trays - k) / trays, groups * mu
    # of the faults on groups in service (P = p_le e^-a_d): those on a group already out take no spare
    p_none = (lam_t * p_eq + lam_d * p_le) * _binom_tail(groups - 1, q, pool) / ((lam_t + lam_d) * p_le)
    cf = closed_form(m, s)
    assert cf["p_no_spare"] == pytest.approx(p_none, rel=1e-9)
    assert cf["p_no_group_spare"] == pytest.approx(p_eq / p_le, rel=1e-9)
    r = simulate_domains(m, s, n_runs=1500, horizon="7d", seed=3)
    se = math.sqrt(p_none * (1 - p_none) / r.n_events)
    assert r.n_events > 2000
    assert abs(r.p_no_spare - p_none) < 4 * se + 2e-3
    if k:
        p_ng = p_eq / p_le
        assert abs(r.p_no_group_spare - p_ng) < 4 * math.sqrt(p_ng * (1 - p_ng) / r.n_events) + 2e-3


@pytest.mark.parametrize("split", [False, True])
def test_with_no_spare_every_fault_on_a_group_in_service_finds_none(split):
    # No pool: every fault that puts a group in service out finds no spare, however many groups are already out
    # (faults on those are not counted: they take nothing from the pool).  It said 0.906 when it divided by them.
    kw = dict(groups=7 * 18, trays=1, need=18) if split else dict(groups=7, trays=18)
    m = DomainModel(pool=0, tray_rate=2e-4, group_rate=5e-4, **kw)
    assert closed_form(m, 24.0)["p_no_spare"] == pytest.approx(1.0, rel=1e-12)
    r = simulate_domains(m, 24.0, n_runs=500, horizon="7d", seed=1)
    assert r.n_events > 1000 and r.p_no_spare == 1.0


def test_node_pool_with_whole_domain_faults_needs_a_domain_of_nodes():
    m = DomainModel(groups=18 * 30, trays=1, pool=40, tray_rate=5e-4, group_rate=1e-3, need=18)
    cf = closed_form(m, 24.0)
    r = simulate_domains(m, 24.0, n_runs=1500, horizon="7d", seed=5)
    assert abs(r.p_no_spare - cf["p_no_spare"]) < 0.15 * cf["p_no_spare"] + 2e-3


def test_mean_stall_is_the_mm_infinity_busy_period():
    # One group, no spares: a failure that finds the group in service stalls the job for a busy period of
    # the M/M/inf queue of its trays, E[B] = (e^{lam S} - 1) / lam; failures during a stall add none.
    nu, trays, s = 0.01, 4, 10.0
    lam = nu * trays
    r = simulate_domains(DomainModel(groups=1, trays=trays, pool=0, tray_rate=nu), s, n_runs=4000,
                         horizon="30d", seed=7)
    expected = math.exp(-lam * s) * (math.exp(lam * s) - 1) / lam
    assert r.mean_stall_h == pytest.approx(expected, rel=0.05)


def test_large_node_pool_tends_to_the_poisson_spare_model():
    # Many nodes, rare failures: the binomial count of nodes out tends to the Poisson occupancy of spares.py.
    n, nu, s, pool = 200_000, 1e-6, 24.0, 8
    cf = closed_form(DomainModel(groups=n, trays=1, pool=pool, tray_rate=nu), s)
    assert cf["p_no_spare"] == pytest.approx(p_no_spare(pool, n * nu * s, "poisson"), rel=0.01)


def test_empirical_repairs_and_more_pool_spares_never_stall_more():
    repair = EmpiricalRepair(np.array([1.0, 2.0, 5.0, 20.0, 100.0]))
    m = dict(groups=30, trays=18, spares=1, tray_rate=2e-3)
    stalls = [simulate_domains(DomainModel(pool=p, **m), repair, n_runs=300, seed=1).mean_stall_h
              for p in range(4)]
    assert all(b <= a for a, b in zip(stalls, stalls[1:])) and stalls[0] > 0


@pytest.mark.parametrize("kw", [dict(groups=0, trays=1), dict(groups=1, trays=4, spares=4),
                                dict(groups=1, trays=4, pool=-1), dict(groups=1, trays=1, tray_rate=-1.0)])
def test_bad_domain_model(kw):
    with pytest.raises(DesignError):
        DomainModel(**kw)


def test_public_names():
    assert relmodel.scale.blast_radius is blast_radius
    assert callable(relmodel.scale.compare_designs)


def test_a_hot_spare_rack_with_spare_trays_is_dead_only_when_a_rack_in_service_would_be_out():
    """An idle spare rack of 18 trays, 2 of them spare, fails as in service: it is dead on the shelf when 3 or
    more trays are in repair or the rack itself is (Poisson counts of M/G/infinity, written here), not at its
    first tray fault."""
    from relmodel.scale.design.design_capacity import with_capacity
    m = DomainModel(groups=7, trays=18, spares=2, pool=1, tray_rate=1 / 2000, group_rate=2e-3)
    s = 24.0
    got, _ = with_capacity(m, s)
    dead = 1 - stats.poisson.cdf(2, 18 / 2000 * s) * math.exp(-2e-3 * s)
    assert -math.expm1(-got.pool_rate * s) == pytest.approx(dead, rel=1e-12)
    # without spare trays it is dead at any fault, as before
    bare, _ = with_capacity(dataclasses.replace(m, spares=0), s)
    assert bare.pool_rate == pytest.approx(18 / 2000 + 2e-3, rel=1e-12)
