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
