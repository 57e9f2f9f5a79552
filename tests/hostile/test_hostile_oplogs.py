"""Operator logs (Slurm exports, kernel logs) that used to be misread silently or raised a traceback.

Each case is written by hand here; the expected counts and times are read off the text of the case.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from relmodel import read_log, read_sacct, read_xid
from relmodel.cli import cli
from relmodel.data.shaping.logs import LogWarning
from relmodel.data.shaping.outages import drop_short_outages, outage_durations
from relmodel.errors import KernelLogError, OutageThresholdError, RelmodelError, SacctFormatError

SACCT = """JobID|JobName|State|ExitCode|Start|End|NNodes|NodeList
10|train|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-02T00:00:00|4|gpu[01-04]
11|train|NODE_FAIL|0:0|2024-03-02T00:30:00|2024-03-03T00:00:00|4|gpu[01-04]
12|train|COMPLETED|0:0|2024-03-03T01:00:00|2024-03-04T00:00:00|4|gpu[01-04]
"""
BOOT = "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP"
XID79 = "kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=7, GPU has fallen off the bus."


def test_a_repeated_sacct_row_is_counted_once_and_listed():
    lines = SACCT.splitlines()
    doubled = "\n".join(lines[:2] + [lines[1]] + lines[2:]) + "\n"   # row of job 10 twice (lines 2 and 3)
    log = read_sacct(doubled, job="train")
    assert len(log) == 2                                              # jobs 10 and 11, as in SACCT
    p = log.problems()
    row = p[p["problem"].str.startswith("duplicate")]
    assert row["row"].tolist() == [3] and row["problem"].iat[0] == "duplicate of line 2"


def test_an_export_without_node_fields_never_guesses_one_node():
    text = "\n".join("|".join(f.split("|")[:6]) for f in SACCT.splitlines()) + "\n"
    log = read_sacct(text, job="train")
    assert len(log) == 2 and log.restart_gaps().hours.tolist() == [0.5, 1.0]   # what the log does say
    with pytest.raises(SacctFormatError, match="neither NNodes nor NodeList.*nodes="):
        log.n_nodes
    assert read_sacct(text, job="train", nodes=4).n_nodes == 4


def test_a_header_only_export_is_a_named_error():
    with pytest.raises(SacctFormatError, match="no job rows"):
        read_sacct("JobID|JobName|State|ExitCode|Start|End|NodeList\n")


def test_journal_json_in_milliseconds_is_not_read_as_1970():
    t0 = pd.Timestamp("2024-03-01 12:00:00")
    ms = int(t0.value // 10**6)
    rec = [{"__REALTIME_TIMESTAMP": str(ms + k * 3_600_000), "_HOSTNAME": "gpu01",
            "MESSAGE": m} for k, m in enumerate(["Linux version 6.8.0 (x)", "NVRM: Xid (PCI:0000:01:00): 79, off"])]
    log = read_xid("\n".join(json.dumps(r) for r in rec) + "\n")
    assert log.origin == t0                                           # not 1970-01-20
    assert log.events["start_h"].tolist() == [1.0]
    us = [dict(r, __REALTIME_TIMESTAMP=str(int(r["__REALTIME_TIMESTAMP"]) * 1000)) for r in rec]
    assert read_xid("\n".join(json.dumps(r) for r in us) + "\n").origin == t0
    bad = [dict(rec[0], __REALTIME_TIMESTAMP="17"), rec[1]]
    with pytest.raises(KernelLogError, match="line 2|line 1"):
        read_xid("\n".join(json.dumps(r) for r in bad) + "\n")


def test_syslog_lines_two_days_out_of_order_keep_their_outage():
    text = "\n".join([f"Mar  3 00:00:00 gpu01 {BOOT}", f"Mar  3 00:00:00 gpu02 {BOOT}",
                      "Mar  4 00:00:00 gpu02 kernel: EXT4-fs re-mounted",
                      f"Mar  1 10:00:00 gpu01 {XID79}",                  # two days before the lines above it
                      "Mar  5 00:00:00 gpu01 kernel: EXT4-fs re-mounted"]) + "\n"
    with pytest.warns(LogWarning, match="out of time order"):
        log = read_xid(text, year=2024)
    assert log.events["node"].tolist() == ["gpu01"] and log.events["start_h"].tolist() == [0.0]
    assert log.duration_h == 4 * 24 - 10                              # Mar 1 10:00 to Mar 5 00:00
    p = log.problems()
    assert p[p["problem"].str.startswith("out of time order")]["row"].tolist() == [4]


def test_min_outage_that_drops_everything_is_refused():
    df = pd.DataFrame({"start": ["2024-01-01 00:00", "2024-01-03 00:00"], "end": ["2024-01-01 02:00",
                                                                                  "2024-01-03 05:00"],
                       "node": ["a", "b"]})
    log = read_log(df, start="start", end="end", node="node")
    with pytest.raises(OutageThresholdError, match="all 2 outages.*longest lasted 5"):
        drop_short_outages(log, "100d")


def test_cli_min_outage_that_drops_everything_exits_2(tmp_path):
    path = tmp_path / "log.csv"
    pd.DataFrame({"start": ["2024-01-01 00:00", "2024-01-03 00:00"], "end": ["2024-01-01 02:00", "2024-01-03 05:00"],
                  "node": ["a", "b"]}).to_csv(path, index=False)
    r = CliRunner().invoke(cli, ["rates", str(path), "--start", "start", "--end", "end", "--node", "node",
                                 "--min-outage", "100d"])
    assert r.exit_code == 2 and "Traceback" not in r.output and "would drop all 2 outages" in r.output


def test_a_syslog_without_xid_lines_is_an_empty_log():
    log = read_xid("Mar  1 00:00:00 gpu01 kernel: hello\nMar  2 00:00:00 gpu02 kernel: hello again\n", year=2024)
    assert len(log) == 0 and log.n_nodes == 2 and log.duration_h == 24


def test_an_absurd_xid_code_names_its_line():
    text = f"Mar  1 00:00:00 gpu01 {BOOT}\nMar  1 01:00:00 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): " \
           "99999999999999999999, x\n"
    with pytest.raises(KernelLogError, match="line 2.*Xid code"):
        read_xid(text, year=2024)


def test_a_reboot_closes_only_the_outage_it_belongs_to():
    # Xid 79 on Mar 1; 23 days later a kernel panic and a boot an hour after it.
    text = "\n".join([f"Mar  1 00:00:00 gpu01 {BOOT}", f"Mar  1 10:00:00 gpu01 {XID79}",
                      "Mar 24 10:00:00 gpu01 kernel: Kernel panic - not syncing: Fatal exception",
                      f"Mar 24 11:00:00 gpu01 {BOOT}", "Mar 25 00:00:00 gpu01 kernel: EXT4-fs re-mounted"]) + "\n"
    log = read_xid(text, year=2024)
    ev = log.events
    assert ev["cause"].tolist() == ["GPU has fallen off the bus", "kernel panic"]
    assert np.isnan(ev["end_h"].iat[0]) and ev["end_h"].iat[1] - ev["start_h"].iat[1] == 1.0
    assert log.downtimes().hours.tolist() == [1.0]                    # never 562.8 h
    rt = log.repair_times()
    assert rt.observed.tolist() == [False, True]                      # the Xid's repair: right-censored


def test_a_boot_long_after_an_outage_does_not_close_it():
    text = "\n".join([f"Mar  1 00:00:00 gpu01 {BOOT}", f"Mar  1 10:00:00 gpu01 {XID79}",
                      "Mar 24 09:00:00 gpu01 kernel: reboot: Restarting system",
                      f"Mar 24 10:00:00 gpu01 {BOOT}"]) + "\n"
    log = read_xid(text, year=2024)
    assert len(log) == 1 and np.isnan(log.events["end_h"].iat[0])
    assert "no boot of the node within max_repair" in " ".join(log.problems()["problem"])
    assert read_xid(text, year=2024, max_repair="30d").downtimes().hours.tolist() == [23 * 24]


def test_unexpected_reboots_are_not_zero_second_repairs_and_no_advice_drops_hardware_faults():
    lines = [f"Mar  1 00:00:00 gpu{n:02d} {BOOT}" for n in range(1, 6)]
    lines += [f"Mar  2 0{n}:00:00 gpu{n:02d} {BOOT}" for n in range(1, 5)]          # four unexpected reboots
    lines += [f"Mar  3 00:00:00 gpu05 {XID79}", f"Mar  3 00:05:00 gpu05 {BOOT}"]    # a 5 min real repair
    log = read_xid("\n".join(lines) + "\n", year=2024)
    assert len(log) == 5
    assert log.downtimes().hours.tolist() == pytest.approx([5 / 60])  # no 0 s repair from a reboot
    assert log.unknown_ends == 4
    text = outage_durations(log).text()
    assert "min_outage would drop real failures" in text and "set min_outage" not in text


def test_an_unplanned_outage_inside_maintenance_stays_an_outage():
    df = pd.DataFrame({"start": ["2024-01-01 00:00", "2024-01-01 02:00", "2024-01-05 00:00"],
                       "end": ["2024-01-01 08:00", "2024-01-01 05:00", "2024-01-05 01:00"],
                       "node": ["a", "a", "b"], "planned": [True, False, False]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWarning)
        log = read_log(df, start="start", end="end", node="node", planned="planned")
    assert log.interruptions()["start_h"].tolist() == [2.0, 96.0]
    p = log.problems()
    assert p["problem"].tolist() == ["unplanned outage inside planned maintenance"] and p["row"].tolist() == [2]


def test_every_case_is_a_relmodel_error():
    for call in (lambda: read_sacct("JobID|JobName|State|ExitCode|Start|End\n"),
                 lambda: read_xid("Mar  1 00:00:00 a kernel: NVRM: Xid (PCI:0000:01:00): 1e99, x\n", year=2024)):
        with pytest.raises(RelmodelError):
            call()
