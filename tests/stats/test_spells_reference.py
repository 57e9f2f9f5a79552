"""Merged outages per node (recurrent._spells) against a pandas groupby written here."""

import numpy as np
import pandas as pd
import pytest

from relmodel.data.shaping.logs import LogWarning, read_log
from relmodel.stats.regression.recurrent import _spells


def _reference(log):
    ev = log.events.sort_values(["node", "start_h"], kind="stable")
    block = (~ev["overlaps"].astype(bool)).cumsum()
    return ev.groupby(block, sort=False).agg(node=("node", "first"), start_h=("start_h", "first"),
                                             end_h=("end_h", "max"), planned=("planned", "first"))


def test_overlapping_rows_unknown_ends_and_planned_outages():
    rng = np.random.default_rng(4)
    n = 600
    start = np.round(rng.uniform(0, 500, n), 1)
    end = start + rng.exponential(3.0, n)
    end[rng.random(n) < 0.05] = np.nan                        # a few outages of unknown end
    df = pd.DataFrame({"start": start, "end": end, "node": rng.choice([f"n{i}" for i in range(12)], n),
                       "planned": rng.random(n) < 0.2})
    with pytest.warns(LogWarning, match="overlap"):
        log = read_log(df, start="start", end="end", node="node", planned="planned", time_unit="h", window=(0, 520))
    assert log.events["overlaps"].any()                     # the merge has work to do
    got, want = _spells(log), _reference(log)
    assert len(got) == len(want) < n
    assert list(got["node"].astype(str)) == list(want["node"].astype(str))
    np.testing.assert_array_equal(got["start_h"].to_numpy(), want["start_h"].to_numpy())
    np.testing.assert_array_equal(got["end_h"].to_numpy(), want["end_h"].to_numpy())
    np.testing.assert_array_equal(got["planned"].to_numpy(bool), want["planned"].to_numpy(bool))
