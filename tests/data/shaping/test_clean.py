"""The vectorised log clean-up gives what a plain pandas reading of the rules gives.

The reference below is the straightforward implementation of the rules in
relmodel.data.shaping.logs (duplicates dropped keeping the first, overlaps found with a
per-node running maximum of the end times, simultaneous starts flagged, up and
down times from per-node merged outages), written with per-group pandas calls.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import relmodel


def _ref_clean(events, causes, win):
    outside = (events["start_h"] < win[0]) | (events["start_h"] > win[1])
    flags = [events[outside].assign(problem="outside window")]
    events = events[~outside]
    dup = events.duplicated(subset=["node", "start_h", "end_h"] + causes, keep="first")
    flags.append(events[dup].assign(problem="duplicate"))
    events = events[~dup].sort_values(["node", "start_h", "row"], kind="stable")
    prev_end = events.groupby("node", sort=False)["end_h"].transform(lambda s: s.cummax().shift(1))
    events = events.assign(overlaps=(events["start_h"] < prev_end).to_numpy())
    flags.append(events[events["overlaps"]].assign(problem="overlap"))
    fresh = events[~events["overlaps"]]
    simul = fresh.duplicated(subset=["start_h"], keep="first") & (
        fresh.groupby("start_h")["node"].transform("nunique") > 1)
    flags.append(fresh[simul].assign(problem="simultaneous"))
    events = events.sort_values(["start_h", "row"], kind="stable").reset_index(drop=True)
    problems = pd.concat(flags, ignore_index=True)[["row", "problem"]]
    return events, problems.sort_values(["row", "problem"]).reset_index(drop=True)


def _ref_merged(ev):
    ev = ev.sort_values(["node", "start_h"], kind="stable")
    block = (~ev["overlaps"]).cumsum()
    return ev.groupby(block, sort=False).agg(node=("node", "first"), start_h=("start_h", "first"),
                                             end_h=("end_h", "max")).reset_index(drop=True)


def _ref_uptimes(ev, t1):
    m = _ref_merged(ev)
    nxt = m.groupby("node", sort=False)["start_h"].shift(-1)
    last = nxt.isna().to_numpy()
    up = np.where(last, t1, nxt) - m["end_h"].to_numpy()
    keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
    return up[keep], ~last[keep], m["node"].to_numpy()[keep]


def _ref_downtimes(ev):
    m = _ref_merged(ev)
    d = (m["end_h"] - m["start_h"]).to_numpy()
    return d[np.isfinite(d)], m["node"].to_numpy()[np.isfinite(d)]


def _random_log(rng, n):
    """Small log on few nodes, coarse times (so ties, duplicates and overlaps are common)."""
    start = rng.integers(0, 40, n).astype(float)
    end = start + rng.integers(0, 6, n)
    end[rng.random(n) < 0.15] = np.nan
    df = pd.DataFrame({"t": start, "e": end, "host": rng.choice(["a", "b", "c", "d"], n),
                       "why": rng.choice(["gpu", "net", "sw"], n)})
    copies = df.sample(n // 4, random_state=int(rng.integers(1 << 30)), replace=True)
    return pd.concat([df, copies], ignore_index=True).sample(frac=1.0, random_state=1).reset_index(drop=True)


@pytest.mark.parametrize("in_order", [False, True])  # rows by start time take a faster path
@pytest.mark.parametrize("seed", range(12))
def test_fast_clean_up_matches_reference(seed, in_order):
    rng = np.random.default_rng(seed)
    df = _random_log(rng, int(rng.integers(3, 60)))
    if in_order:
        df = df.sort_values("t", kind="stable").reset_index(drop=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.data.LogWarning)
        log = relmodel.read_log(df, start="t", end="e", node="host", cause="why", time_unit="h", window=(2, 38))
    base = pd.DataFrame({"row": np.arange(1, len(df) + 1), "start_h": df["t"], "end_h": df["e"],
                         "node": df["host"], "why": df["why"]})
    ref, ref_problems = _ref_clean(base, ["why"], (2.0, 38.0))
    got = log.events
    assert got["row"].tolist() == ref["row"].tolist()
    assert got["overlaps"].tolist() == ref["overlaps"].tolist()
    np.testing.assert_array_equal(got["end_h"].to_numpy(), ref["end_h"].to_numpy())
    problems = log.problems()[["row", "problem"]].sort_values(["row", "problem"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(problems, ref_problems, check_dtype=False)
    up = log.uptimes()
    r_up, r_obs, r_nodes = _ref_uptimes(ref, 38.0)
    np.testing.assert_array_equal(up.hours, r_up)
    np.testing.assert_array_equal(up.observed, r_obs)
    assert list(up.groups) == list(r_nodes)
    down = log.downtimes()
    r_down, r_dnodes = _ref_downtimes(ref)
    np.testing.assert_array_equal(down.hours, r_down)
    assert list(down.groups) == list(r_dnodes)


def test_two_node_columns_join_into_one_key():
    df = pd.DataFrame({"t": [1.0, 2.0, 3.0, 4.0], "sys": [1, 1, 2, 2], "n": [7, 8, 7, 7]})
    log = relmodel.read_log(df, start="t", node=["sys", "n"], time_unit="h", window=(0, 5))
    assert log.events["node"].tolist() == ["1/7", "1/8", "2/7", "2/7"]
    assert log.n_nodes == 3


@pytest.mark.parametrize("seed", range(3))
def test_csv_reader_gives_the_same_log_as_the_dataframe(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    df = _random_log(rng, 40)
    path = tmp_path / "log.csv"
    df.to_csv(path, index=False)
    kw = dict(start="t", end="e", node="host", cause="why", time_unit="h", window=(2, 38))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.data.LogWarning)
        a, b = relmodel.read_log(df, **kw), relmodel.read_log(path, **kw)
    pd.testing.assert_frame_equal(a.events, b.events)
    pd.testing.assert_frame_equal(a.problems(), b.problems())
