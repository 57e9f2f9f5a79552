"""From the what-if to the plan: slow workers, eviction and goodput on the AR trace."""

import pytest

import relmodel
from relmodel.stragglers import whatif
from relmodel.stragglers.ops import example_ops
from relmodel.stragglers.plan import eviction_sentence, worker_steps

# data/mw-AR.json of github.com/ByteDance-Seed/StragglerAnalysis: mean step time of the original
# (tori) and with the slowest worker at typical times (trem), seconds
TORI, TREM = 46.33637259691022, 23.44582316843448


@pytest.fixture(scope="module")
def ar():
    return whatif(example_ops("AR"), n_boot=0, seed=0)


def test_find_slow_nodes_flags_the_one_slowed_worker(ar):
    found = ar.find_slow_workers()
    assert found.nodes == ["DP rank 0, stage 0"]
    log = worker_steps(ar)
    assert (log.n_steps, log.n_ranks) == (44, 16)


def test_eviction_uses_what_removing_the_worker_recovers(ar):
    best = ar.recoverable.iloc[0]
    assert best["worker"] == "DP rank 0, stage 0"
    assert best["slowdown_removed"] == pytest.approx(TORI / TREM - 1, rel=1e-5)
    kw = dict(detection="30min", restart="10min", interval="1h", remaining="100h")
    plan = ar.eviction_policy(**kw)
    direct = relmodel.stragglers.eviction_policy(slowdown=TORI / TREM - 1, **kw)
    assert plan.by_policy["lost_h"].to_numpy() == pytest.approx(direct.by_policy["lost_h"].to_numpy(), rel=1e-5)
    assert plan.best != "never evict"
    assert "Evicting DP rank 0, stage 0" in eviction_sentence(ar, plan)


def test_goodput_is_ettr_over_s(ar):
    # published S of AR: 1.9730450967262543 (data/result-AR.json, blocking_slowdown)
    assert ar.goodput(0.9) == pytest.approx(0.9 / 1.9730450967262543, rel=1e-5)


def test_one_call_from_a_trace_path_to_the_page(tmp_path):
    from relmodel.data.bundled.datasets import data_dir
    from relmodel.stragglers import analyse_trace

    r = analyse_trace(data_dir() / "bytedance-stragglers" / "trace-ST.parquet", n_boot=0, seed=0)
    assert r.factor == pytest.approx(1.1787021836556841, rel=1e-5)  # published, data/result-ST.json
    sentences = [r.slowdown_sentence(), r.where_sentence(), r.workers_sentence(), r.stages_sentence()]
    assert r.text() == " ".join(sentences) and all(s.endswith(".") for s in sentences)
    assert analyse_trace(n_boot=0, seed=0).name == "trace-AR"
    log = r.step_log()
    assert log.n_ranks == 8
    # the long last stage: both of its workers are flagged, and nothing else
    assert sorted(relmodel.stragglers.find_slow_nodes(log).nodes) == ["DP rank 0, stage 3", "DP rank 1, stage 3"]
