"""PyTorch profiler (Kineto) traces, one step per rank, read as an op-level trace."""

import json

import numpy as np
import pytest

from relmodel.errors import LogFileNotFound, OpTraceError
from relmodel.stragglers import whatif
from relmodel.stragglers.kineto import kineto_frame, read_kineto, write_kineto_example
from relmodel.stragglers.synthetic_ops import synthetic_ops, to_frame


@pytest.fixture()
def files(tmp_path):
    trace = synthetic_ops(dp=2, pp=3, n_micro=3, n_steps=1, slow_workers=[(1, 0, 0.5)], noise=0.05, seed=2)
    return trace, write_kineto_example(to_frame(trace), tmp_path, step=0)


def test_round_trip_through_kineto_json(files):
    trace, paths = files
    back = read_kineto(paths, dp=2, pp=3)
    assert np.abs(back.x - trace.x).max() < 1e-6  # microseconds written as floats
    assert whatif(back, n_boot=0, seed=0).by_worker.iloc[0]["worker"] == "DP rank 0, stage 1"


def test_ranks_by_mapping_tensor_parallel_peers_and_names(files, tmp_path):
    trace, paths = files
    # with tp 2 the same six files are ranks 0, 2, 4, ... (TP rank 0); odd ranks are skipped
    doubled = {2 * i: p for i, p in enumerate(sorted(paths, key=lambda p: int(p.name[4:].split(".")[0])))}
    peer = tmp_path / "peer.json"
    peer.write_text(json.dumps({"traceEvents": []}))
    doubled[1] = peer
    assert read_kineto(doubled, dp=2, pp=3, tp=2).n_ops == read_kineto(paths, dp=2, pp=3).n_ops
    doc = json.loads(paths[0].read_text())
    for e in doc["traceEvents"]:
        if e["name"] == "optimizer":
            e["name"] = "Optimizer.step#AdamW"
    paths[0].write_text(json.dumps(doc))
    df = kineto_frame(paths, dp=2, pp=3, names={"Optimizer.step#AdamW": "optimizer"})
    assert (df["optype"] == "optimizer").sum() == 6


def test_bad_kineto_files(tmp_path, files):
    _, paths = files
    with pytest.raises(LogFileNotFound):
        read_kineto([tmp_path / "none.json"], dp=2, pp=3)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(OpTraceError, match="not a Kineto"):
        read_kineto([tmp_path / "bad.json"], dp=2, pp=3)
    (tmp_path / "norank.json").write_text(json.dumps({"traceEvents": []}))
    with pytest.raises(OpTraceError, match="distributedInfo"):
        read_kineto([tmp_path / "norank.json"], dp=2, pp=3)
    with pytest.raises(OpTraceError, match="outside 0..5"):
        read_kineto({9: paths[0]}, dp=2, pp=3)
    (tmp_path / "empty.json").write_text(json.dumps({"distributedInfo": {"rank": 0}, "traceEvents": [
        {"ph": "X", "name": "aten::mm", "ts": 0, "dur": 5}]}))
    with pytest.raises(OpTraceError, match="record_function"):
        read_kineto([tmp_path / "empty.json"], dp=2, pp=3)
