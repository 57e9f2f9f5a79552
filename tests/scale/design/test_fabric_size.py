"""Fabrics sized to the job: the fat tree grows tiers past 65,536 NICs; large spare pools stay fast."""

import numpy as np
import pytest
from scipy import stats

from relmodel.scale import Cluster, design_presets
from relmodel.scale.design.compound import _convolve
from relmodel.scale.design.fabric_size import fabric_choice, fabric_text


# Hand count: a non-blocking k-tier tree of radix-64 switches reaches 2 x 32^k NICs:
# k=3 -> 65,536; k=4 -> 2,097,152.  One NIC per GPU in the Llama 3 design.
@pytest.mark.parametrize("n_gpus, tiers", [(1_024, 3), (65_536, 3), (65_544, 4), (131_072, 4), (1_048_576, 4)])
def test_fat_tree_preset_has_the_fewest_tiers_that_reach_every_nic(n_gpus, tiers):
    fat = design_presets(n_gpus)["h100-fat-tree"]
    assert fat.n_gpus >= n_gpus and fat.radix == 64
    assert fat.n_tiers == tiers
    assert 2 * 32 ** fat.n_tiers >= fat.n_nics


@pytest.mark.parametrize("n_gpus", [1_024, 131_072, 1_048_576])
def test_every_named_design_builds_at_every_size(n_gpus):
    for name, cluster in design_presets(n_gpus).items():
        assert cluster.n_gpus >= n_gpus, name
        assert 2 * (cluster.radix // 2) ** cluster.n_tiers >= cluster.n_nics, name


def test_the_page_says_what_was_chosen():
    text = fabric_text(["h100-fat-tree", "h100-rail"], 131_072)
    assert "H100, fat tree: 4 tiers of radix-64 switches (one more than the 3 of the design as built" in text
    assert "131,072 NICs" in text
    # the rail design chooses freely: 131,072 NICs need 4 tiers of radix 64 (hand count above)
    assert "H100, rail fabric: 4 tiers of radix-64 switches" in text
    assert "more than" not in fabric_text(["h100-fat-tree"], 16_384)
    assert fabric_choice(Cluster.llama3()) == "3 tiers of radix-64 switches"


@pytest.mark.parametrize("n1, q1, n2, q2, weight", [(400, 0.03, 50, 0.2, 8), (2_000, 0.001, 300, 0.05, 18),
                                                    (60, 0.5, 10, 0.9, 1)])
def test_trimmed_convolution_equals_the_full_one(n1, q1, n2, q2, weight):
    a = stats.binom.pmf(np.arange(n1 + 1), n1, q1)
    b = np.zeros(weight * n2 + 1)
    b[::weight] = stats.binom.pmf(np.arange(n2 + 1), n2, q2)
    full = np.convolve(a, b)
    got = _convolve(n1, q1, n2, q2, weight)
    assert got.shape == full.shape
    np.testing.assert_allclose(got, full, rtol=0, atol=1e-15)  # rounding of the sums only
    for t in (0, n1 // 10, n1 // 2):  # the tails the closed form reads
        assert got[t:].sum() == pytest.approx(full[t:].sum(), rel=1e-9, abs=1e-15)


def test_trimmed_convolution_matches_a_simulation_at_a_million_gpus():
    # 262,144 trays and 14,564 racks of 18: the sum's mean and spread against plain numpy draws
    rng = np.random.default_rng(0)
    n1, q1, n2, q2, w = 262_144, 0.004, 14_564, 0.001, 18
    pmf = _convolve(n1, q1, n2, q2, w)
    draws = rng.binomial(n1, q1, 200_000) + w * rng.binomial(n2, q2, 200_000)
    k = np.arange(len(pmf))
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert (k * pmf).sum() == pytest.approx(draws.mean(), rel=2e-3)
    assert np.sqrt(((k - (k * pmf).sum()) ** 2 * pmf).sum()) == pytest.approx(draws.std(), rel=1e-2)
    assert pmf[1_200:].sum() == pytest.approx((draws >= 1_200).mean(), abs=5e-3)
