"""A decision carries the lifecycle's answer only where a log shows bad nodes, and says why not elsewhere."""

import warnings

import numpy as np
import pandas as pd
import pytest

from relmodel.data.source import load_source
from relmodel.scale.lifecycle import with_fleet
from relmodel.scale.targets.decision import decide


def _homogeneous(path, seed=2):
    """240 failures spread evenly over 60 interchangeable nodes (Poisson, the same rate each)."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 2400, 240))
    t0 = pd.Timestamp("2024-01-01")
    pd.DataFrame({"start": t0 + pd.to_timedelta(t, unit="h"), "end": t0 + pd.to_timedelta(t + 2, unit="h"),
                  "node": rng.integers(0, 60, t.size).astype(str), "cause": "GPU Xid 79"}).to_csv(path, index=False)
    return load_source(str(path), start="start", end="end", node="node", cause="cause", population=60)


def test_a_count_table_and_a_homogeneous_fleet_carry_no_fleet(tmp_path):
    warnings.simplefilter("ignore")
    llama = load_source("llama3")
    dec = with_fleet(decide(llama, 4096, simulate=False, n_boot=0, seed=0), llama)
    assert dec.fleet == {} and "count table names no nodes" in dec.fleet_note and "fleet" not in dec.headline()
    src = _homogeneous(tmp_path / "even.csv")
    dec = with_fleet(decide(src, 512, simulate=False, n_boot=0, seed=0), src, population=60, seed=0)
    assert dec.fleet == {} and "No bad nodes stand out" in dec.fleet_note
    assert dec.to_dict()["fleet"] == {}


def test_the_decision_without_a_fleet_is_unchanged(tmp_path):
    warnings.simplefilter("ignore")
    src = _homogeneous(tmp_path / "even.csv")
    plain = decide(src, 512, simulate=False, n_boot=0, seed=0)
    assert plain.fleet is None and plain.fleet_note == ""
    withf = with_fleet(plain, src, population=60, seed=0)
    assert withf.headline() == plain.headline() and withf.ettr == pytest.approx(plain.ettr, rel=0)


def _lemons(path, seed=4):
    """64 nodes over 3,000 h: 56 fail every 2,000 h, 8 lemons 15 times as often; a 'Software Bug' every 60 h
    on a random node (a per-job cause, by name)."""
    rng = np.random.default_rng(seed)
    rate = np.where(np.arange(64) < 8, 15 / 2000, 1 / 2000)
    rows = [(t, str(i), "GPU Xid 79") for i in range(64) for t in rng.uniform(0, 3000, rng.poisson(rate[i] * 3000))]
    rows += [(t, str(rng.integers(64)), "Software Bug") for t in rng.uniform(0, 3000, rng.poisson(50))]
    t = np.array([r[0] for r in rows])
    t0 = pd.Timestamp("2024-01-01")
    pd.DataFrame({"start": t0 + pd.to_timedelta(t, unit="h"), "end": t0 + pd.to_timedelta(t + 3, unit="h"),
                  "node": [r[1] for r in rows], "cause": [r[2] for r in rows]}).to_csv(path, index=False)
    return load_source(str(path), start="start", end="end", node="node", cause="cause", population=64,
                       window=["2024-01-01", "2024-05-05 00:00:00"])


def test_the_fleet_runs_the_decisions_plan_and_never_retiring_is_its_answer(tmp_path):
    """The lifecycle takes the decision's interval, checkpoint cost, restart and rates; never retiring then gives
    the decision's ETTR (Daly's exact exponential model, written here) to within 1.5 points: failures strike
    the simulated restarts as they do Daly's, and bad nodes spend more of their time in repair than in the
    job."""
    import math

    from relmodel.scale.lifecycle import fleet_answer
    from relmodel.stats.nodes import bad_nodes
    warnings.simplefilter("ignore")
    src = _lemons(tmp_path / "lemons.csv")
    dec = decide(src, 2048, simulate=False, n_boot=0, seed=0)
    est = bad_nodes(src, population=64, seed=0)
    assert est.heterogeneous and dec.fixed_per_day > 0
    ans = fleet_answer(est, src, n_gpus=2048, decision=dec, runs=10, seed=0, work="20d")
    m = ans.comparison.model
    assert m.interval_h == dec.interval_h and m.ckpt_cost_h == dec.ckpt_cost_h and m.recovery_h == dec.restart_h
    assert m.reload_h == dec.restart_h
    assert m.job_mtbf_h == pytest.approx(24 / dec.fixed_per_day, rel=1e-12)
    mean_rate = (1 + m.bad_share * (m.multiplier - 1)) / m.life.mean_h
    assert m.job_nodes * mean_rate == pytest.approx(dec.hardware_per_day / 24, rel=1e-12)
    lam, tau, c, r = 1 / dec.job_mtbf_h, dec.interval_h, dec.ckpt_cost_h, dec.restart_h
    daly = tau * math.exp(-lam * r) * lam / math.expm1(lam * (tau + c))  # failures may strike restarts too
    assert daly == pytest.approx(dec.ettr, abs=1e-9)  # the decision's formula answer, from the test's own formula
    never = ans.comparison.to_frame().iloc[0]
    assert never["policy"] == "never retire" and abs(never["ettr"] - daly) < 0.015, (never["ettr"], daly)
    assert "the job as the headline plans it" in ans.said and "0.8" not in ans.said.split("plans it")[0][-5:]
    # the good node's MTBF the simulation runs is rescaled to today's rate: the sentence gives the log's fit beside it
    from relmodel.tables import duration
    assert (f"a good node's MTBF {duration(m.life.mean_h)} (scaled so the job's nodes fail at today's rate, as the "
            f"headline takes it; the log's two-class fit gives {duration(1 / est.lam)})") in ans.said


def test_a_plan_whose_restarts_rarely_finish_says_its_runs_were_cut_short(tmp_path, monkeypatch):
    # At 131,072 GPUs the lemons' fleet fails every few minutes and a restart takes over 10: the headline's ETTR is
    # about 0 and so is the simulated fleet's (before, restarts saw no failure and it said several percent).
    from relmodel.scale.lifecycle import fleet_answer, loop
    from relmodel.stats.nodes import bad_nodes
    warnings.simplefilter("ignore")
    monkeypatch.setattr(loop, "MAX_INTERRUPTIONS", 300)
    src = _lemons(tmp_path / "lemons.csv")
    dec = decide(src, 131_072, simulate=False, n_boot=0, seed=0)
    assert dec.ettr < 0.001
    ans = fleet_answer(est=bad_nodes(src, population=64, seed=0), source=src, n_gpus=131_072, decision=dec, runs=2,
                       seed=0, work="20d")
    never = ans.comparison.to_frame().iloc[0]
    assert never["ettr"] < 0.005 and (ans.comparison.runs["cut_short"] == 1).all()
    assert "Every run was stopped after 300 interruptions with work left" in ans.said
