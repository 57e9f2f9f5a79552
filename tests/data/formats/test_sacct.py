"""read_sacct: format fixtures counted by hand, known truth from the generator, named errors.

The fixtures follow the field formats of Slurm's sacct manual page (JobID
with _task, +component and .step; "CANCELLED by <uid>"; ExitCode
"code:signal"; Start/End as YYYY-MM-DDTHH:MM:SS, Unix seconds or Unknown;
Elapsed as [DD-]HH:MM:SS), written for these tests.
"""

import numpy as np
import pytest
from scipy import stats

from relmodel import read_sacct
from relmodel.data.formats.sacct_fields import DEFAULT_STATES
from relmodel.data.formats.synthetic_ops import synthetic_sacct
from relmodel.errors import LogFileNotFound, SacctFormatError, UnknownJobError

HEAD = "JobID|JobName|State|ExitCode|Start|End|Elapsed|NNodes|NodeList"
FIXTURE = "\n".join([
    HEAD,
    "100|llm|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-01T10:00:00|10:00:00|4|gpu[001-004]",
    "100.batch|batch|CANCELLED|0:15|2024-03-01T00:00:00|2024-03-01T10:00:00|10:00:00|1|gpu001",
    "100.extern|extern|COMPLETED|0:0|2024-03-01T00:00:00|2024-03-01T10:00:00|10:00:00|4|gpu[001-004]",
    "100.0|python|FAILED|1:0|2024-03-01T00:00:00|2024-03-01T10:00:00|10:00:00|4|gpu[001-004]",
    # requeued under the same id (sacct -D shows both records)
    "100|llm|FAILED|1:0|2024-03-01T10:30:00|2024-03-01T20:30:00|10:00:00|4|gpu[001-003,005]",
    "101|llm|TIMEOUT|0:15|2024-03-01T21:00:00|2024-03-02T21:00:00|1-00:00:00|4|gpu[001-003,005]",
    "102|llm|FAILED|0:0|2024-03-02T21:15:00|2024-03-02T22:15:00|01:00:00|4|gpu[001-003,005]",
    "103|llm|RUNNING|0:0|2024-03-02T23:15:00|Unknown|02:00:00|4|gpu[001-003,005]",
    "200_1|sweep|COMPLETED|0:0|2024-03-01T01:00:00|2024-03-01T02:00:00|01:00:00|1|cpu1",
    "200_2|sweep|NODE_FAIL|0:0|2024-03-01T03:00:00|2024-03-01T04:00:00|01:00:00|1|cpu2",
    "200_[3-9]|sweep|PENDING|0:0|Unknown|Unknown|00:00:00|1|None assigned",
    "300|notebook|CANCELLED by 1234|0:0|2024-03-01T05:00:00|2024-03-01T06:00:00|01:00:00|1|cpu3",
]) + "\n"


def test_the_fixture_by_hand():
    log = read_sacct(FIXTURE, job="llm")
    # segments of llm: 100 (NF), 100 requeued (F 1:0), 101 (TO), 102 (F 0:0), 103 (running)
    assert len(log.segments) == 5
    assert list(log.events["state"]) == ["NODE_FAIL", "FAILED"]          # TIMEOUT and FAILED 0:0 do not count
    assert log.restart_gaps().hours.tolist() == [0.5, 0.5]              # 10:00 -> 10:30, 20:30 -> 21:00
    assert log.nodes_seen == 5 and log.nodes_at_once == log.n_nodes == 4  # gpu001-005, four at a time
    # running: 10 + 10 + 24 + 1 + 2 = 47 h; wall 00:00 Mar 1 to 01:15 Mar 3 = 49.25 h
    assert log.running_h == pytest.approx(47.0)
    assert log.availability() == pytest.approx(47 / 49.25)
    assert "FAILED with exit code 0:0" in set(log.problems()["problem"])


def test_job_picked_by_id_or_array_task_and_all_jobs():
    assert len(read_sacct(FIXTURE, job="200").segments) == 2            # both started tasks of array 200
    assert len(read_sacct(FIXTURE, job="200_2")) == 1
    assert len(read_sacct(FIXTURE, job=101).segments) == 1
    everything = read_sacct(FIXTURE)
    assert sorted(everything.events["node"]) == ["llm", "llm", "sweep"]   # the cancelled notebook is no failure
    assert any(p.startswith("never started") for p in everything.problems()["problem"])


def test_other_time_formats_and_parsable_trailing_pipe():
    epoch = "JobID|JobName|State|ExitCode|Start|End|\n1|a|NODE_FAIL|0:0|1709251200|1709254800|\n" \
            "2|a|COMPLETED|0:0|1709256600|1709260200|\n"
    log = read_sacct(epoch)  # 2024-03-01 00:00 UTC + 1 h; next start 30 min later
    assert log.restart_gaps().hours.tolist() == [0.5]
    custom = "JobID|JobName|State|ExitCode|Start|End\n1|a|NODE_FAIL|0:0|03/01/24-00:00:00|03/01/24-02:00:00\n" \
             "2|a|COMPLETED|0:0|03/01/24-02:06:00|03/01/24-03:00:00\n"
    log = read_sacct(custom, time_format="%m/%d/%y-%H:%M:%S")
    assert log.restart_gaps().hours.tolist() == pytest.approx([0.1])


def test_the_states_that_count_can_be_changed():
    log = read_sacct(FIXTURE, job="llm", interruptions=DEFAULT_STATES + ("TIMEOUT",))
    assert list(log.events["state"]) == ["NODE_FAIL", "FAILED", "TIMEOUT"]
    assert len(read_sacct(FIXTURE, job="llm", interruptions=["NODE_FAIL"])) == 1


def test_known_truth_of_a_60_day_1000_node_run(tmp_path):
    truth = synthetic_sacct(tmp_path / "sacct.txt", seed=11)
    log = read_sacct(tmp_path / "sacct.txt", job="pretrain")
    assert log.events["state"].value_counts().to_dict() == truth.counts
    assert len(log.segments) == truth.extra["segments"]
    assert log.nodes_seen == truth.n_nodes and log.n_nodes == 1000
    # times are written to the second: 0.5 s of rounding per time at most
    assert log.running_h == pytest.approx(truth.extra["running_h"], abs=len(log.segments) / 3600)
    assert np.allclose(log.restart_gaps().hours, truth.extra["gaps_h"], atol=1 / 1800)
    # the job-level rate (1,000 nodes / 5,540 h) inside the exact 95% Poisson interval of the count
    k, t = len(log), log.running_h
    lo, hi = stats.chi2.ppf(0.025, 2 * k) / (2 * t), stats.chi2.ppf(0.975, 2 * k + 2) / (2 * t)
    assert lo < 1000 / 5540 < hi


@pytest.mark.parametrize("text, match", [
    (HEAD + "\n1|a|BROKEN|0:0|2024-03-01T00:00:00|2024-03-01T01:00:00|01:00:00|1|n1\n", r"line 2, field 'State'"),
    (HEAD + "\n1|a|FAILED|x|2024-03-01T00:00:00|2024-03-01T01:00:00|01:00:00|1|n1\n", r"line 2, field 'ExitCode'"),
    (HEAD + "\n1|a|FAILED|1:0|2024-13-01T00:00:00|2024-03-01T01:00:00|01:00:00|1|n1\n", r"line 2, field 'Start'"),
    (HEAD + "\n1|a|FAILED|1:0|2024-03-01T00:00:00|2024-03-01T01:00:00|1|n1\n", r"line 2: 8 fields"),
    (HEAD + "\n1|a|FAILED|1:0|2024-03-01T02:00:00|2024-03-01T01:00:00|01:00:00|1|n1\n", r"line 2, field 'End'"),
    (HEAD + "\nx1|a|FAILED|1:0|2024-03-01T00:00:00|2024-03-01T01:00:00|01:00:00|1|n1\n", r"line 2, field 'JobID'"),
    (HEAD + "\n1|a|FAILED|1:0|2024-03-01T00:00:00|2024-03-01T01:00:00|ab|1|n1\n", r"line 2, field 'Elapsed'"),
    ("JobID|State|Start\n1|FAILED|2024-03-01T00:00:00\n", r"line 1: the header has no End"),
])
def test_malformed_rows_get_named_errors_with_the_line(text, match):
    with pytest.raises(SacctFormatError, match=match):
        read_sacct(text)


def test_unknown_job_lists_the_jobs_and_missing_file_is_named(tmp_path):
    with pytest.raises(UnknownJobError, match="llm, notebook, sweep"):
        read_sacct(FIXTURE, job="nope")
    with pytest.raises(SacctFormatError, match="unknown Slurm state 'BROKEN'"):
        read_sacct(FIXTURE, interruptions=["BROKEN"])
    with pytest.raises(LogFileNotFound):
        read_sacct(tmp_path / "missing.txt")
