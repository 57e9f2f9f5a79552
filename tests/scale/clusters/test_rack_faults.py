"""Whole-rack faults from a log, against a hand count, Garwood's table and a generator's ground truth."""

import numpy as np
import pandas as pd
import pytest

from relmodel.errors import ModelInputError
from relmodel.scale.clusters.rack_faults import rack_fault_rate


def _frame(nodes, starts, span):
    df = pd.DataFrame({"node": nodes, "start_h": starts})
    df.attrs["duration_h"] = span
    return df


def test_hand_count_and_garwood_table():
    # rack A: a1 and a2 within 5 min (an event), a1 again alone; rack B: b1 and b2 20 min apart (not within 10 min)
    df = _frame(["a1", "a2", "a1", "b1", "b2"], [1.0, 1.0 + 5 / 60, 30.0, 40.0, 40.0 + 20 / 60], 500.0)
    racks = {"a1": "A", "a2": "A", "b1": "B", "b2": "B"}
    r = rack_fault_rate(df, racks, "10min")
    assert r.n_events == 1 and r.rack_hours == 1000.0
    assert r.fit == pytest.approx(1e9 / 1000.0)
    # Garwood (1936) 95% limits for one event: 0.0253 to 5.572
    assert r.fit_lo == pytest.approx(0.02532 * 1e6, rel=1e-3) and r.fit_hi == pytest.approx(5.5716 * 1e6, rel=1e-3)
    assert rack_fault_rate(df, racks, "30min").n_events == 2
    none = rack_fault_rate(df, racks, "1min")
    assert none.n_events == 0 and none.fit == 0 and none.fit_hi == pytest.approx(3.6889 * 1e6, rel=1e-3)
    assert "rack-hours" in r.text() and "e+" not in r.text()


def test_recovers_a_known_rack_rate():
    rng = np.random.default_rng(7)
    racks, nodes_per_rack, span = 400, 18, 24 * 365.0
    rack_rate, node_rate = 2e-5, 2e-5                  # per rack-hour, per node-hour
    nodes, starts = [], []
    for r in range(racks):
        for t in rng.uniform(0, span, rng.poisson(rack_rate * span)):   # a rack fault takes 3 to 18 nodes down
            hit = rng.choice(nodes_per_rack, rng.integers(3, nodes_per_rack + 1), replace=False)
            nodes += [f"r{r}n{k}" for k in hit]
            starts += list(t + rng.uniform(0, 2 / 60, hit.size))
        for k in range(nodes_per_rack):
            n = rng.poisson(node_rate * span)
            nodes += [f"r{r}n{k}"] * n
            starts += list(rng.uniform(0, span, n))
    truth = rack_rate * 1e9
    rack_of = {f"r{r}n{k}": r for r in range(racks) for k in range(nodes_per_rack)}
    res = rack_fault_rate(_frame(nodes, starts, span), rack_of, "5min")
    assert res.fit_lo < truth < res.fit_hi
    assert res.chance_events < 1.0


def test_bad_maps_name_the_node():
    df = _frame(["a1", "zz"], [1.0, 2.0], 10.0)
    with pytest.raises(ModelInputError, match="'zz'.*row 2"):
        rack_fault_rate(df, {"a1": "A"})
    with pytest.raises(ModelInputError, match="min_nodes"):
        rack_fault_rate(df, {"a1": "A", "zz": "A"}, min_nodes=1)
