"""Designs with crews, an RMA lead time, failing spares and whole-rack faults, against hand-computed forms."""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from relmodel import Cluster
from relmodel.data.bundled.datasets import llama3_54day
from relmodel.scale.design.designs import compare_designs, design_presets
from relmodel.scale.design.policies import evaluate_design

H = 54 * 24.0
GPU_RATE = 268 / (H * 16_384)          # Llama 3 Table 5, GPU causes per GPU-hour
NODE_RATE = 53 / (H * 2_048)           # host causes per server-hour
FAST = dict(n_runs=0, n_boot=0, seed=0)


def erlang_c(c, a):
    """Erlang C from its textbook sum (Kleinrock 1975, eq. 3.40)."""
    top = a ** c / math.factorial(c) * c / (c - a)
    return top / (sum(a ** k / math.factorial(k) for k in range(c)) + top)


@pytest.fixture(scope="module")
def llama3():
    return llama3_54day()


def test_rack_faults_add_interruptions_and_take_whole_racks(llama3):
    c = design_presets(16_384)["nvl72-whole-rack"]          # 228 racks busy, 12 spare racks
    base = evaluate_design(c, llama3, "1min", "10min", spare_rate_per_h=0, **FAST)
    fit = 50_000.0
    rack = evaluate_design(c, llama3, "1min", "10min", spare_rate_per_h=0, rack_fit=fit, **FAST)
    assert rack.interruption_rate - base.interruption_rate == pytest.approx(fit * 1e-9 * 228, rel=1e-12)
    tray = 4 * GPU_RATE + NODE_RATE
    # racks out by tray faults: Binomial(228, q), q = 1 - exp(-18 tray rate x 24 h); racks in repair from rack
    # faults: Poisson(rate x 24 h), apart from the others (exact while two rack faults rarely overlap)
    q = 1 - math.exp(-18 * tray * 24)
    k = np.arange(14)
    out = np.convolve(stats.binom.pmf(k, 228, q), stats.poisson.pmf(k, fit * 1e-9 * 228 * 24))[:14]
    # nothing fails while the job waits: the law of the racks out confined to 0..13, as in Erlang's loss system
    assert rack.stall_share == pytest.approx(out[13] / out.sum(), rel=1e-9)
    # failures going on during waits: more than 12 racks out, the rack fault counted in q (the closed form
    # takes the racks the rack faults hold out of the others' count: a little pessimistic)
    q_any = 1 - math.exp(-(18 * tray + fit * 1e-9) * 24)
    assert rack.stall_share_free == pytest.approx(stats.binom.sf(12, 228, q_any), rel=1e-3)
    assert rack.stall_share > base.stall_share


def test_crews_and_lead_time_lengthen_every_repair(llama3):
    c = dataclasses.replace(Cluster.llama3().with_gpus(65_536), spare_pool=82, policy="spare-pool")
    base = evaluate_design(c, llama3, "1min", "10min", spare_rate_per_h=0, **FAST)
    crews = 26
    r = evaluate_design(c, llama3, "1min", "10min", spare_rate_per_h=0, crews=crews, rma_lead_time="48h", **FAST)
    lam = 8_192 * (8 * GPU_RATE + NODE_RATE)                 # servers failing per hour
    a = lam * 24.0
    wait = erlang_c(crews, a) * 24.0 / (crews - a)
    assert r.repair_out_h == pytest.approx(24.0 + wait + 48.0, rel=1e-9)
    q = 1 - math.exp(-(8 * GPU_RATE + NODE_RATE) * r.repair_out_h)
    out = stats.binom.pmf(np.arange(84), 8_192, q)
    # confined to 0..83 servers out; a wait in which the servers out drain without new faults ends a little sooner
    confined = out[83] / out.sum()
    assert 0.999 * confined < r.stall_share <= confined
    assert r.stall_share > base.stall_share and r.ettr < base.ettr
    with pytest.raises(ValueError, match="crews"):
        evaluate_design(c, llama3, "1min", "10min", crews=2, **FAST)


def test_no_spare_sentence_has_no_scientific_notation(llama3):
    c = Cluster.llama3().with_gpus(131_072)                   # no spares at all: the job almost never runs
    cmp = compare_designs([c], llama3, ckpt_cost="1min", restart="10min", n_runs=0, n_boot=200, seed=0)
    text = cmp.text()
    assert "e+" not in text and "0.000 (0.000" not in text
    assert "100%" in text or "99." in text
    cells = " ".join(cmp.table().astype(str).to_numpy().ravel())
    assert "e+" not in cells and "0.000 (0.000" not in cells
