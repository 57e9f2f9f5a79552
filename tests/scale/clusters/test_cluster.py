"""Cluster shapes and component counts (formulas in relmodel.scale.clusters.cluster)."""

import math

import pytest

from relmodel.scale.clusters.cluster import COUNT_KEYS, Cluster
from relmodel.errors import ModelInputError


def test_two_tier_rail_counts_by_hand():
    c = Cluster(n_gpus=1024, gpus_per_node=8, nodes_per_rack=4, radix=64, fabric="rail")
    n = c.counts()
    assert c.n_tiers == 2  # one tier reaches 64 NICs, two reach 2 * 32^2 = 2048
    assert (n["node"], n["rack"], n["nic"]) == (128, 32, 1024)
    assert c.switches_per_tier() == [32, 16] and n["switch"] == 48
    assert n["link"] == 2048 and n["optical_link"] == 2048 and n["transceiver"] == 4096
    assert set(n) == set(COUNT_KEYS) and n["job"] == 1


def test_fat_tree_keeps_nic_links_copper():
    c = Cluster(n_gpus=1024, fabric="fat-tree", radix=64)
    assert c.counts()["optical_link"] == 1024  # only the leaf-to-spine links
    assert Cluster(n_gpus=1024, fabric="fat-tree", optical_nic_links=True).counts()["optical_link"] == 2048


def test_single_switch_and_tier_growth():
    assert Cluster(n_gpus=32, gpus_per_node=8).n_tiers == 1
    assert Cluster(n_gpus=32, gpus_per_node=8).counts()["switch"] == 1
    assert Cluster(n_gpus=100_000).n_tiers == 4  # 3 tiers of radix 64 reach 65,536
    grown = Cluster.llama3().with_gpus(1_000_000)
    assert grown.n_tiers == 4 and grown.counts()["gpu"] == 1_000_000


def test_presets_and_assumptions():
    p = Cluster.presets()
    l3 = p["llama3"]
    assert (l3.n_gpus, l3.n_nodes, l3.n_racks) == (16_384, 2_048, 1_024)
    assert l3.switches_per_tier() == [1024, 512, math.ceil(16_384 / (7 * 64))]
    assert l3.links_per_tier()[-1] == math.ceil(16_384 / 7)
    assert p["megascale"].n_gpus == 12_288 and p["megascale"].n_nodes == 1_536
    nv = p["nvl72"]
    assert nv.n_gpus >= 100_000 and nv.n_racks == nv.n_gpus // 72 and nv.counts()["scaleup_switch"] == 9 * nv.n_racks
    for c in p.values():
        assert c.assumptions and "Assumed" in c.assumptions
        assert c.to_frame().shape == (len(COUNT_KEYS), 3)
        assert "<table" in c._repr_html_()


def test_links_per_gpu_equal_tiers_when_non_blocking():
    c = Cluster(n_gpus=50_000)
    assert c.counts()["link"] == c.n_tiers * c.n_nics


@pytest.mark.parametrize("kw", [{"n_gpus": 0}, {"n_gpus": 8, "fabric": "torus"}, {"n_gpus": 8, "radix": 63},
                                {"n_gpus": 8, "oversubscription": 0.5}, {"n_gpus": 10_000, "tiers": 1},
                                {"n_gpus": 8.5}, {"n_gpus": True}])
def test_bad_cluster(kw):
    with pytest.raises(ModelInputError):
        Cluster(**kw)
