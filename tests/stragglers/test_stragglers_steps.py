"""Step-time logs in: CSV, Parquet and DataFrame agree; bad input gets its named error; Megatron-LM logs."""

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import (DuplicateStepError, EmptyDataError, LogFormatError, MissingColumnError,
                             MissingStepsError, NegativeTimeError, UnknownFileTypeError)


def long_table(n_steps=5, n_ranks=4, seed=0):
    rng = np.random.default_rng(seed)
    t = pd.DataFrame({"step": np.repeat(np.arange(n_steps) * 10, n_ranks),
                      "rank": np.tile(np.arange(n_ranks), n_steps),
                      "secs": rng.uniform(1, 2, n_steps * n_ranks)})
    t["host"] = "h" + (t["rank"] // 2).astype(str)
    return t.sample(frac=1.0, random_state=1).reset_index(drop=True)  # rows in any order


def test_dataframe_grid_matches_the_table():
    t = long_table()
    log = relmodel.read_steps(t, step="step", rank="rank", duration="secs", node="host")
    assert (log.n_steps, log.n_ranks, log.n_nodes) == (5, 4, 2)
    for row in t.itertuples():
        i, j = list(log.steps).index(row.step), list(log.ranks).index(row.rank)
        assert log.times_h[i, j] == pytest.approx(row.secs / 3600)
        assert log.nodes[j] == row.host
    back = log.to_frame().set_index(["step", "rank"])["duration_s"]
    assert np.allclose(back.loc[list(zip(t.step, t["rank"]))].to_numpy(), t.secs.to_numpy())


def test_csv_parquet_and_dataframe_agree(tmp_path):
    t = long_table()
    t.to_csv(tmp_path / "s.csv", index=False)
    t.to_parquet(tmp_path / "s.parquet", row_group_size=7)  # several row groups
    kw = dict(step="step", rank="rank", duration="secs", node="host")
    logs = [relmodel.read_steps(s, **kw) for s in (t, tmp_path / "s.csv", tmp_path / "s.parquet")]
    for other in logs[1:]:
        assert np.allclose(other.times_h, logs[0].times_h, rtol=1e-12, atol=0)
        assert list(other.nodes) == list(logs[0].nodes)


def test_start_end_columns_units_and_ranks_per_node():
    t = long_table()
    t["t0"] = pd.Timestamp("2025-01-01") + pd.to_timedelta(t["step"], unit="min")
    t["t1"] = t["t0"] + pd.to_timedelta(t["secs"], unit="s")
    a = relmodel.read_steps(t, step="step", rank="rank", start="t0", end="t1", node=2)
    b = relmodel.read_steps(t.assign(ms=t.secs * 1000), step="step", rank="rank", duration="ms", time_unit="ms")
    assert np.allclose(a.times_h, b.times_h)
    assert list(a.nodes) == [0, 0, 1, 1]


def test_missing_pairs_raise_or_drop():
    t = long_table().iloc[1:]  # one (step, rank) pair gone
    with pytest.raises(MissingStepsError, match="missing"):
        relmodel.read_steps(t, step="step", rank="rank", duration="secs")
    log = relmodel.read_steps(t, step="step", rank="rank", duration="secs", missing="drop")
    assert log.n_steps == 4


def test_duplicates_negative_times_and_columns_get_named_errors(tmp_path):
    t = long_table()
    with pytest.raises(DuplicateStepError, match="more than once"):
        relmodel.read_steps(pd.concat([t, t.iloc[:1]]), step="step", rank="rank", duration="secs")
    bad = t.copy()
    bad.loc[3, "secs"] = -1.0
    with pytest.raises(NegativeTimeError, match="row 4"):
        relmodel.read_steps(bad, step="step", rank="rank", duration="secs")
    with pytest.raises(MissingColumnError):
        relmodel.read_steps(t, step="iteration", rank="rank", duration="secs")
    with pytest.raises(UnknownFileTypeError):
        relmodel.read_steps(tmp_path / "s.xlsx", step="step", rank="rank", duration="secs")
    with pytest.raises(EmptyDataError):
        relmodel.read_steps(t.iloc[:0], step="step", rank="rank", duration="secs")
    clash = t.copy()
    clash.loc[clash.index[0], "host"] = "elsewhere"
    with pytest.raises(LogFormatError, match="belongs to one node"):
        relmodel.read_steps(clash, step="step", rank="rank", duration="secs", node="host")
    for err in (DuplicateStepError, NegativeTimeError, MissingStepsError):
        assert issubclass(err, ValueError) and issubclass(err, relmodel.errors.RelmodelError)


MEGATRON = """\
 [2024-05-01 10:00:00] iteration       10/     500 | consumed samples:        10240 | elapsed time per iteration (ms): 1520.4 | learning rate: 1.0E-04 | global batch size:  1024 | lm loss: 7.1E+00 |
 [2024-05-01 10:00:15] iteration       20/     500 | consumed samples:        20480 | elapsed time per iteration (ms): 1498.0 | learning rate: 1.0E-04 | global batch size:  1024 |
saving checkpoint at iteration      20 to /ckpt
 [2024-05-01 10:00:30] iteration       30/     500 | consumed samples:        30720 | elapsed time per iteration (ms): 2210.5 | learning rate: 1.0E-04 |
 [2024-05-01 10:20:30] iteration       30/     500 | consumed samples:        30720 | elapsed time per iteration (ms): 1501.5 | learning rate: 1.0E-04 |
"""


def test_megatron_recipe(tmp_path):
    path = tmp_path / "train.log"
    path.write_text(MEGATRON)
    log = relmodel.data.read_megatron(path)
    assert list(log.steps) == [10, 20, 30] and log.n_ranks == 1
    assert np.allclose(log.times_h[:, 0] * 3600, [1.5204, 1.498, 1.5015])  # resumed iteration keeps its last time
    assert relmodel.data.read_megatron(MEGATRON).times_h.tolist() == log.times_h.tolist()
    with pytest.raises(EmptyDataError):
        relmodel.data.read_megatron("no iterations here\n")


def test_bundled_example_is_the_documented_generator():
    """data/steps-example is synthetic_steps(**documented settings), times rounded to 0.01 ms."""
    from relmodel.data.formats.steps import example_steps
    import json

    log = example_steps()
    settings = json.loads((relmodel.datasets.data_dir() / "steps-example" / "settings.json").read_text())
    again = relmodel.stragglers.synthetic_steps(**settings).log
    assert log.times_h.shape == again.times_h.shape
    assert np.max(np.abs(log.times_h - again.times_h)) * 3600 * 1000 <= 0.005 + 1e-9
    assert list(log.nodes) == list(again.nodes)


def test_labels_that_are_not_a_whole_integer_range(tmp_path):
    """String ranks are hashed; integer ranks with gaps keep only the ranks that appear."""
    t = long_table()
    named = t.assign(rank="gpu" + t["rank"].astype(str))
    a = relmodel.read_steps(named, step="step", rank="rank", duration="secs")
    assert list(a.ranks) == ["gpu0", "gpu1", "gpu2", "gpu3"]
    gappy = t.assign(rank=t["rank"] * 1000)  # ranks 0, 1000, 2000, 3000
    gappy.to_parquet(tmp_path / "g.parquet", row_group_size=6)
    b = relmodel.read_steps(tmp_path / "g.parquet", step="step", rank="rank", duration="secs", node="host")
    assert list(b.ranks) == [0, 1000, 2000, 3000] and list(b.steps) == [0, 10, 20, 30, 40]
    assert np.array_equal(a.times_h, b.times_h) and list(b.nodes) == ["h0", "h0", "h1", "h1"]
