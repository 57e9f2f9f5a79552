"""Page 06 names the row that is the design pages 03 and 04 plan on (the observed cluster's own, grown), with the
interruptions a day they use: on Llama 3's counts at its own size that is 419 interruptions over 54 days, by hand."""

import warnings

import pytest

from relmodel.data.source import load_source
from relmodel.report.notebook_pages import design_page as D
from relmodel.scale.design.designs import compare_designs, design_presets
from relmodel.scale.targets.decision import decide


@pytest.fixture(scope="module")
def llama():
    warnings.simplefilter("ignore")
    src = load_source("llama3")
    dec = decide(src, 16384, 0.9, "1min", simulate=False, n_boot=50, seed=0)
    presets = design_presets(16384)
    designs = [presets[n] for n in ("h100-rail", "h100-fat-tree", "nvl72-whole-rack")]
    cmp = compare_designs(designs, D.design_source(src).data, 16384, n_runs=0, n_boot=0, seed=0)
    return dec, cmp, designs


def test_the_observed_design_and_its_rate_are_said(llama):
    dec, cmp, designs = llama
    text = str(D.observed_design_sentence(dec, cmp, designs))
    assert "7.76 interruptions a day" in text  # 419 / 54 = 7.759, Meta's Table 5 at its own 16,384 GPUs
    fat = next(c.name for c in designs if c.fabric == "fat-tree")
    per_day = float(cmp.by_design.set_index("design").loc[fat, "interruptions_per_day"])
    if abs(per_day - 419 / 54) <= 0.005 * 419 / 54:
        assert f"The {fat} row counts the same" in text
    else:
        assert f"the nearest is {fat}" in text


def test_no_row_is_claimed_when_no_design_shares_the_fabric(llama):
    dec, cmp, designs = llama
    nvl = [c for c in designs if c.fabric != "fat-tree"]
    text = str(D.observed_design_sentence(dec, cmp, nvl))
    assert "No row below is that design" in text
    assert D.observed_design_sentence(None, cmp, designs) is None


def test_the_pools_two_chances_are_said_and_page_04s_is_the_exact_count():
    """Page 04's chance that a failure finds no spare equals the exact birth-death count of the pool written here
    (job swaps at a constant rate while spares last, idle spares failing at their own rate, exponential repairs
    of the same mean); page 06's rows holding that pool say theirs beside it, with the reason."""
    import numpy as np

    from relmodel.report.notebook_pages import requirement_page as R
    from relmodel.scale.sparing.spares import swap_rate
    warnings.simplefilter("ignore")
    src = load_source("llama3")
    dec = decide(src, 16384, 0.9, "1min", simulate=False, n_boot=50, seed=0)
    spares = R.spare_plan(src, dec, repair="exponential", seed=0)
    lam, s, nu, n = swap_rate(dec.scaled), spares.repair_mean_h, spares.plan.spare_rate_per_h, spares.n_spares
    logp = np.zeros(601)
    for k in range(600):  # birth rate: swaps plus the idle spares' own failures; death rate: repairs
        logp[k + 1] = logp[k] + np.log(lam + nu * max(n - k, 0)) - np.log((k + 1) / s)
    p = np.exp(logp - logp.max())
    assert spares.plan.p_no_spare == pytest.approx(p[n:].sum() / p.sum(), rel=1e-6)
    presets = D.planned_designs(["h100-fat-tree"], 16384, spares)
    cmp = compare_designs([presets["h100-fat-tree"]], D.design_source(src).data, 16384, repair=f"{s}h", n_runs=0,
                          n_boot=0, seed=0)
    text = str(D.pool_sentence(spares, cmp))
    from relmodel.report.notebook_pages.design_supply import _share
    assert _share(spares.plan.p_no_spare) in text and _share(float(cmp.by_design["p_no_spare"].iloc[0])) in text
    assert "counts only the idle spares failing" in text
