"""read_ops: a trace written from a known schedule reads back exactly; each kind of bad trace has its error."""

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import (DuplicateOpError, MissingColumnError, MissingOpsError, MissingRanksError,
                             MissingStepsError, MissingTraceStepError, ModelInputError, OpTraceError,
                             OverlappingOpsError)
from relmodel.stragglers import read_ops
from relmodel.stragglers.ops import example_ops
from relmodel.stragglers.synthetic_ops import synthetic_ops, to_frame


@pytest.fixture(scope="module")
def small():
    trace = synthetic_ops(dp=3, pp=3, n_micro=4, n_steps=6, slow_workers=[(2, 1, 0.4)], noise=0.05, seed=3)
    return trace, to_frame(trace)


def test_round_trip_recovers_durations_and_transfer_times(small):
    trace, df = small
    back = read_ops(df.sample(frac=1.0, random_state=1), dp=3, pp=3)  # row order does not matter
    assert back.x.shape == trace.x.shape
    assert np.abs(back.x - trace.x).max() < 1e-9
    # each recorded step lasts from its first start to its last end, as written
    firsts = df.groupby("step")["start_ts"].min()
    lasts = (df["start_ts"] + df["duration"]).groupby(df["step"]).max()
    assert back.recorded_s == pytest.approx((lasts - firsts).to_numpy())
    assert back.n_ops == len(df) and back.name == "the job"


def test_bundled_traces_and_their_metadata():
    ar = example_ops("AR")
    assert (ar.dp, ar.pp, ar.tp, ar.n_steps, ar.n_ops) == (4, 4, 4, 44, 117_216)  # meta-AR.yaml; rows counted
    assert example_ops("ST").n_workers == 8
    with pytest.raises(ModelInputError, match="AR, ST"):
        example_ops("XX")


def test_missing_column(small):
    with pytest.raises(MissingColumnError, match="seq_id"):
        read_ops(small[1].drop(columns="seq_id"), dp=3, pp=3)


def test_missing_operation(small):
    df = small[1]
    drop = df.index[(df["step"] == 4) & (df["dp_rank"] == 2) & (df["optype"] == "optimizer")][0]
    with pytest.raises(MissingOpsError, match="step 4, DP rank 2: 'optimizer'"):
        read_ops(df.drop(index=drop), dp=3, pp=3)


def test_extra_operation_against_the_first_step(small):
    df = small[1]
    extra = df[(df["step"] == 5) & (df["optype"] == "gc")].head(1).assign(seq_id=1)
    with pytest.raises(MissingOpsError, match="which DP rank 0 lacks"):
        read_ops(pd.concat([df, extra]), dp=3, pp=3)


def test_duplicate_operation(small):
    df = small[1]
    with pytest.raises(DuplicateOpError, match="recorded 2 times"):
        read_ops(pd.concat([df, df.iloc[[10]]]), dp=3, pp=3)


def test_ranks_against_the_parallelism(small):
    df = small[1]
    with pytest.raises(MissingRanksError, match=r"dp_rank \[3\]"):
        read_ops(df, dp=4, pp=3)
    with pytest.raises(OpTraceError, match="outside 0..1"):
        read_ops(df, dp=3, pp=2)
    with pytest.raises(ModelInputError, match="whole number"):
        read_ops(df, dp=0, pp=3)
    with pytest.raises(ModelInputError, match="dp= and pp="):
        read_ops(df)
    with pytest.raises(OpTraceError, match="needs the column 'mc'"):
        read_ops(df.drop(columns="mc"), dp=3, pp=3, vpp=2)
    with pytest.raises(OpTraceError, match=r"chunk \(mc\) 1 is outside 0..0"):
        read_ops(df.assign(mc=df["mc"].where(df["optype"] != "forward-compute", 1)), dp=3, pp=3)


def test_overlapping_computes(small):
    df = small[1].copy()
    i = df.index[(df["step"] == 2) & (df["dp_rank"] == 0) & (df["stage"] == 1)
                 & (df["optype"] == "backward-compute") & (df["seq_id"] == 1)][0]
    df.loc[i, "duration"] += 5.0  # runs into the next compute of that worker
    with pytest.raises(OverlappingOpsError, match="step 2, DP rank 0, stage 1"):
        read_ops(df, dp=3, pp=3)


def test_negative_durations(small):
    df = small[1].copy()
    df.loc[df.index[-1], "duration"] = -1.0
    with pytest.raises(OpTraceError, match="negative"):
        read_ops(df, dp=3, pp=3)


def test_metadata_beside_the_file(tmp_path, small):
    path = tmp_path / "trace-X.parquet"
    small[1].to_parquet(path)
    with pytest.raises(OpTraceError, match="meta-X.yaml"):
        read_ops(path)
    (tmp_path / "meta-X.yaml").write_text("dp_size: 3\npp_size: 3\ntp_size: 2\nvpp_size: 1\n")
    t = relmodel.read_ops(path)
    assert (t.dp, t.pp, t.tp, t.name) == (3, 3, 2, "trace-X")
    (tmp_path / "meta-Y.yaml").write_text("dp_size: three\n")
    with pytest.raises(OpTraceError, match="whole numbers"):
        read_ops(path, meta=tmp_path / "meta-Y.yaml")


def test_interleaved_round_trip():
    trace = synthetic_ops(dp=2, pp=4, n_micro=8, n_steps=4, vpp=2, slow_workers=[(1, 1, 0.4)], noise=0.05, seed=7)
    back = read_ops(to_frame(trace), dp=2, pp=4, vpp=2)
    assert back.vpp == 2 and np.abs(back.x - trace.x).max() < 1e-9


def test_overlapping_sends(small):
    df = small[1].copy()
    i = df.index[(df["step"] == 3) & (df["dp_rank"] == 1) & (df["stage"] == 0)
                 & (df["optype"] == "forward-send") & (df["seq_id"] == 0)][0]
    df.loc[i, "duration"] += 5.0
    with pytest.raises(OverlappingOpsError, match="forward-send stream"):
        read_ops(df, dp=3, pp=3)


def test_seq_ids_must_count_from_zero(small):
    df = small[1].copy()
    df.loc[(df["optype"] == "optimizer") & (df["stage"] == 1), "seq_id"] = 3
    with pytest.raises(OpTraceError, match="seq_id values are not"):
        read_ops(df, dp=3, pp=3)


def test_missing_step_of_one_worker(small):
    df = small[1]
    gone = (df["step"] == 3) & (df["dp_rank"] == 2) & (df["stage"] == 0)
    with pytest.raises(MissingTraceStepError, match="DP rank 2, stage 0 has no operations in step 3") as e:
        read_ops(df[~gone], dp=3, pp=3)
    assert isinstance(e.value, MissingStepsError) and isinstance(e.value, MissingOpsError)
