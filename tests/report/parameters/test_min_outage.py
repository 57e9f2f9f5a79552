"""min_outage drops short outages when a log is loaded; the data page shows how long outages last."""

import warnings

import pytest
from click.testing import CliRunner

from relmodel.cli.main import cli
from relmodel.data import LogWarning, drop_short_outages, load_source, outage_durations, read_log
from relmodel.errors import DurationError, MissingColumnError, ParameterError
from relmodel.report.parameters.rules import check_values

# Six outages on six hosts, one a day from Jan 1 to Jan 6 (a 120 h window); lengths 30 s, 2 min,
# 9 min, 15 min, 2 h and one unknown (no end).
LOG = """start,end,host
2024-01-01 00:00:00,2024-01-01 00:00:30,n1
2024-01-02 00:00:00,2024-01-02 00:02:00,n2
2024-01-03 00:00:00,2024-01-03 00:09:00,n3
2024-01-04 00:00:00,2024-01-04 00:15:00,n4
2024-01-05 00:00:00,2024-01-05 02:00:00,n5
2024-01-06 00:00:00,,n6
"""


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "outages.csv"
    p.write_text(LOG)
    return p


def test_load_source_drops_outages_shorter_than_min_outage(path):
    with pytest.warns(LogWarning, match="3 of 6 outages are shorter than 10 min"):
        src = load_source(str(path), start="start", end="end", node="host", min_outage="10min")
    # hand count: 30 s, 2 min and 9 min are under 10 min; 15 min, 2 h and the unknown end stay
    assert src.n_events == 3
    assert sorted(src.data.events["node"]) == ["n4", "n5", "n6"]
    dropped = src.data.problems()
    dropped = dropped[dropped["action"] == "dropped"]
    assert sorted(dropped["node"]) == ["n1", "n2", "n3"]
    assert dropped["problem"].str.startswith("shorter than min_outage").all()
    assert src.span_h == pytest.approx(120.0)  # the window is kept: the exposure does not shrink


def test_without_min_outage_nothing_is_dropped(path):
    src = load_source(str(path), start="start", end="end", node="host")
    assert src.n_events == 6 and len(src.data.problems()) == 0


def test_min_outage_takes_a_timedelta_and_counts_the_limit_as_kept(path):
    import datetime
    log = read_log(path, start="start", end="end", node="host")
    with pytest.warns(LogWarning, match="2 of 6"):
        kept = drop_short_outages(log, datetime.timedelta(minutes=9))  # 9 min itself is not shorter
    assert len(kept) == 4


def test_min_outage_needs_end_times_and_a_valid_duration(path):
    log = read_log(path, start="start", node="host")
    with pytest.raises(MissingColumnError, match="end"):
        drop_short_outages(log, "10min")
    with pytest.raises(MissingColumnError, match="count table"):
        load_source("llama3", min_outage="10min")
    full = read_log(path, start="start", end="end", node="host")
    for bad in ("soon", "-5min", 0):
        with pytest.raises(DurationError):
            drop_short_outages(full, bad)


def test_report_rule_checks_min_outage_before_any_kernel():
    assert check_values({"min_outage": "10min"}) == {"min_outage": "10min"}
    for bad in ("soon", "0s", -1, True):
        with pytest.raises(ParameterError, match="min_outage.*duration > 0"):
            check_values({"min_outage": bad})


def test_cli_min_outage_drops_and_says_how_many(path):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        res = CliRunner().invoke(cli, ["rates", str(path), "--start", "start", "--end", "end", "--node", "host",
                                       "--min-outage", "10min"])
    assert res.exit_code == 0, res.output
    assert "3 of 6 outages are shorter than 10 min (--min-outage)" in res.stderr
    # hand count: 3 outages left in the 120 h window: a job MTBF of 40 h
    row = next(line for line in res.stdout.splitlines() if line.strip().startswith("All causes"))
    assert row.split()[3] == "3" and float(row.split()[5]) == pytest.approx(40.0)


def test_outage_lengths_shares_under_1_10_60_min(path):
    lengths = outage_durations(read_log(path, start="start", end="end", node="host"))
    # hand count over the 5 outages with a known end: 30 s | 2 min, 9 min | 15 min | 2 h
    assert lengths.n == 5
    assert lengths.shares() == pytest.approx((1 / 5, 3 / 5, 4 / 5))
    assert list(lengths.to_frame()["outages"]) == [1, 3, 4]
    assert list(lengths.table()["Share"]) == ["20.0%", "60.0%", "80.0%"]
    text = lengths.text()
    assert "20.0% under 1 min, 60.0% under 10 min and 80.0% under 60 min" in text
    assert "Most of these \"failures\" (60.0%) last under 10 min" in text  # 3 of 5 look like reboots


def test_outage_lengths_say_when_most_are_not_reboots(path):
    with pytest.warns(LogWarning):
        log = drop_short_outages(read_log(path, start="start", end="end", node="host"), "5min")
    lengths = outage_durations(log)
    # hand count: 9 min, 15 min, 2 h remain; one of three is under 10 min
    assert lengths.reboot_share == pytest.approx(1 / 3)
    assert "most are not reboots" in lengths.text()
