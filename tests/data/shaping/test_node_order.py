"""The node-then-start order read_log keeps from its rules gives the same merged outages as sorting afresh."""

import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.data.shaping.clean import merged_outages


def _messy(seed, n=3000):
    """Rows out of time order, exact duplicates, overlapping outages on a node, rows outside the window."""
    rng = np.random.default_rng(seed)
    start = rng.uniform(-50, 1050, n).round(1)  # coarse: many ties in start
    frame = pd.DataFrame({"start": start, "end": start + rng.exponential(5, n).round(1),
                          "node": rng.choice([f"n{i}" for i in range(40)], n)})
    dup = frame.sample(200, random_state=seed)
    return pd.concat([frame, dup]).sample(frac=1.0, random_state=seed + 1).reset_index(drop=True)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_kept_order_merges_as_a_fresh_sort_does(seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = relmodel.read_log(_messy(seed), start="start", end="end", node="node", time_unit="h",
                                window=(0.0, 1000.0))
    assert log._order_cache[0] is log.events
    kept = log._merged()
    fresh = merged_outages(log.events, log._codes())  # sorted here, not taken from the rules
    for a, b in zip(kept[:3], fresh[:3]):
        np.testing.assert_array_equal(a, b)
    # by hand: per node, merged outages are disjoint and in start order, and cover every kept outage
    ev = log.events
    code, start, end, keys = kept
    for k in range(0, len(keys), 7):
        rows = ev[ev["node"] == keys[k]].sort_values("start_h")
        spans = []
        for s, e in zip(rows["start_h"], rows["end_h"]):
            if spans and s < spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], e)
            else:
                spans.append([s, e])
        mine = code == k
        np.testing.assert_allclose(np.c_[start[mine], end[mine]], np.array(spans))
