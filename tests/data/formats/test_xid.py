"""read_xid: one incident log written in every supported form, generator truth, bursts, reboots, errors.

The fixtures follow the line layouts of RFC 3164 and RFC 5424 syslog,
``dmesg -T``, ``journalctl -o short-iso`` and ``-o json``, and the Xid line
layout NVIDIA documents ("NVRM: Xid (PCI:0000:cb:00): 79, pid=..., ..."),
written for these tests.
"""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from relmodel import read_xid
from relmodel.data.bundled.datasets import data_dir
from relmodel.data.formats.synthetic_ops import NODE_RATES, synthetic_syslog
from relmodel.data.formats.xid import XID, xid_table
from relmodel.errors import KernelLogError

# (seconds from 2024-03-01 00:00, host, message); expected by hand: 79 (2 lines, one incident), 74 x3 (one),
# 48 then 63 (one, HBM), 13 (application, not counted), EDAC UE, NIC link down, 777 (unknown, kept);
# gpu02 reboots at 11:00 after its 79 (repair 1 h); gpu03 reboots unexpectedly at 20:00.
EVENTS = [
    (0, "gpu01", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (0, "gpu02", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (0, "gpu03", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (36000, "gpu02", "NVRM: Xid (PCI:0000:cb:00): 79, pid=1234, GPU has fallen off the bus."),
    (36001, "gpu02", "NVRM: Xid (PCI:0000:cb:00): 79, pid=1234, GPU has fallen off the bus."),
    (39600, "gpu02", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (43200, "gpu01", "NVRM: Xid (PCI:0000:1a:00): 74, pid=99, NVLink: fatal error detected on link 0"),
    (43201, "gpu01", "NVRM: Xid (PCI:0000:1a:00): 74, pid=99, NVLink: fatal error detected on link 1"),
    (43203, "gpu01", "NVRM: Xid (PCI:0000:1a:00): 74, pid=99, NVLink: fatal error detected on link 2"),
    (50000, "gpu03", "NVRM: Xid (PCI:0000:5d:00): 48, pid=7, An uncorrectable double bit error"),
    (50001, "gpu03", "NVRM: Xid (PCI:0000:5d:00): 63, pid=7, Row Remapper: New row marked"),
    (54000, "gpu01", "NVRM: Xid (PCI:0000:9a:00): 13, Graphics SM Warp Exception"),
    (60000, "gpu01", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (72000, "gpu03", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (72000, "gpu03", "Linux version 6.8.0-45-generic (buildd@host) #45"),
    (80000, "gpu01", "EDAC MC0: 1 UE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0"),
    (82000, "gpu02", "mlx5_core 0000:0c:00.0 ibp12s0: Link down"),
    (84000, "gpu02", "NVRM: Xid (PCI:0000:cb:00): 777, pid=1, new code"),
    (86399, "gpu01", "systemd[1]: Finished Daily apt upgrade and clean activities."),
]
T0 = pd.Timestamp("2024-03-01")


def _stamp(s):
    return T0 + pd.Timedelta(seconds=s)


def rfc3164():
    return "".join(f"{_stamp(s).strftime('%b %e %H:%M:%S')} {h} kernel: {m}\n" for s, h, m in EVENTS)


def rfc5424():
    return "".join(f"<4>1 {_stamp(s).strftime('%Y-%m-%dT%H:%M:%S')}.000000+00:00 {h} kernel - - - {m}\n"
                   for s, h, m in EVENTS)


def short_iso():
    return "".join(f"{_stamp(s).strftime('%Y-%m-%dT%H:%M:%S')}+0000 {h} kernel: {m}\n" for s, h, m in EVENTS)


def journal_json():
    return "".join(json.dumps({"__REALTIME_TIMESTAMP": str(int((_stamp(s) - pd.Timestamp(0)).total_seconds() * 1e6)),
                               "_HOSTNAME": h, "SYSLOG_IDENTIFIER": "kernel", "MESSAGE": m}) + "\n"
                   for s, h, m in EVENTS)


@pytest.mark.parametrize("make, kw", [(rfc3164, {"year": 2024}), (rfc5424, {}), (short_iso, {}), (journal_json, {})])
def test_every_form_gives_the_hand_count(make, kw):
    log = read_xid(make(), **kw)
    got = log.events.groupby("component").size().to_dict()
    assert got == {"Faulty GPU": 1, "NVLink": 1, "GPU HBM3 Memory": 1, "System Memory": 1, "NIC": 1,
                   "Server Chassis": 1, "unknown Xid 777": 1}
    assert log.n_nodes == 3 and log.duration_h == pytest.approx(86399 / 3600)
    by = log.events.set_index("component")
    assert by.loc["Faulty GPU", "end_h"] - by.loc["Faulty GPU", "start_h"] == pytest.approx(1.0)   # reboot
    assert by.loc["NVLink", "lines_merged"] == 3 and by.loc["Faulty GPU", "gpu"] == "0000:cb:00"
    assert by.loc["Server Chassis", "node"] == "gpu03"   # the second boot at 20:00; the first closed the 48
    assert "unknown Xid 777" in set(log.problems()["problem"])
    assert set(log.xid_events["xid"]) == {79, 74, 48, 63, 13, 777}


def test_dmesg_of_one_host():
    lines = [(s, m) for s, h, m in EVENTS if h == "gpu02"]
    text = "".join(f"[{_stamp(s).strftime('%a %b %e %H:%M:%S %Y')}] {m}\n" for s, m in lines)
    log = read_xid(text, host="gpu02")
    assert log.log_format == "dmesg"
    assert sorted(log.events["component"]) == ["Faulty GPU", "NIC", "unknown Xid 777"]


def test_known_truth_of_a_60_day_1000_node_syslog_across_new_year(tmp_path):
    truth = synthetic_syslog(tmp_path / "syslog", seed=5)
    log = read_xid(tmp_path / "syslog", year=2024)
    comp = {"xid79": "Faulty GPU", "xid48": "GPU HBM3 Memory", "xid94": "GPU HBM3 Memory", "xid74": "NVLink",
            "xid119": "GPU System Processor", "nic_down": "NIC", "edac_ue": "System Memory", "psu": "Power Supply",
            "reboot": "Server Chassis", "xid999": "unknown Xid 999"}
    want = {}
    for k, v in truth.counts.items():
        want[comp[k]] = want.get(comp[k], 0) + v
    assert log.events.groupby("component").size().to_dict() == {k: v for k, v in want.items() if v}
    assert log.n_nodes == truth.n_nodes == 1000
    end = log.origin + pd.Timedelta(hours=log.duration_h)
    assert log.origin == pd.Timestamp("2024-12-01") and end.year == 2025 and end.month == 1
    # the node MTBF the generator used (5,504 h) is inside the exact 95% interval of the count
    k = int(len(log) - truth.counts["xid999"])
    t = log.n_nodes * log.duration_h
    lo, hi = stats.chi2.ppf(0.025, 2 * k) / (2 * t), stats.chi2.ppf(0.975, 2 * k + 2) / (2 * t)
    assert lo < sum(NODE_RATES.values()) < hi
    assert 1 / sum(NODE_RATES.values()) == pytest.approx(5504, rel=1e-3)


def test_a_late_line_of_the_old_year_keeps_its_year():
    text = ("Dec 31 23:59:58 a kernel: Linux version 6.8\nJan  1 00:00:01 b kernel: Linux version 6.8\n"
            "Dec 31 23:59:59 a kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
            "Jan  1 00:10:00 b kernel: hello\n")
    log = read_xid(text, year=2024)
    assert log.events["start_h"].tolist() == pytest.approx([1 / 3600])
    assert log.duration_h == pytest.approx((2 + 600) / 3600)


_XID79 = "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus."


@pytest.mark.parametrize("stamps", [
    ("Dec 31 23:59:59", "Dec 31 23:59:60", "Jan  1 00:00:01"),                          # RFC 3164
    ("2016-12-31T23:59:59+00:00", "2016-12-31T23:59:60+00:00", "2017-01-01T00:00:01+00:00"),  # ISO
    ("2016-12-31T23:59:59.5Z", "2016-12-31T23:59:60.5Z", "2017-01-01T00:00:01.5Z"),     # ISO, fractions
])
def test_a_leap_second_is_the_second_after_23_59_59(stamps):
    """The leap second at the end of 2016 (IERS Bulletin C 52) as a syslog writes it: the line is read, not
    the whole log refused, and falls between its neighbours one second after the first (POSIX time)."""
    text = "".join(f"{s} n{i} kernel: {_XID79}\n" for i, s in enumerate(stamps))
    log = read_xid(text, year=2016)
    assert log.events["node"].tolist() == ["n0", "n1", "n2"]
    assert (log.events["start_h"] * 3600).tolist() == pytest.approx([0.0, 1.0, 2.0])


@pytest.mark.parametrize("stamp", ["Feb 30 12:00:00", "Dec 31 23:59:61", "2016-12-31T23:59:61Z"])
def test_a_time_that_is_no_time_is_still_refused(stamp):
    with pytest.raises(KernelLogError, match="line 1: cannot read the time"):
        read_xid(f"{stamp} n0 kernel: {_XID79}\n", year=2016)


def test_the_table_says_which_codes_interrupt_and_uses_the_llama3_categories():
    t = xid_table().set_index("xid")
    for code in (79, 48, 74, 94, 95, 119, 120):
        assert t.loc[code, "interrupts"], code
    for code in (13, 31, 43, 63, 92):
        assert not t.loc[code, "interrupts"], code
    published = set(pd.read_csv(data_dir() / "llama3-54day" / "table5.csv")["category"])
    assert {v[1] for v in XID.values()} <= published
    components = set(pd.read_csv(data_dir() / "llama3-54day" / "table5.csv")["component"])
    assert {"Faulty GPU", "GPU HBM3 Memory", "GPU System Processor"} <= components


def test_a_clean_shutdown_before_a_boot_is_no_outage():
    text = ("Mar  1 00:00:00 a kernel: Linux version 6.8\nMar  1 05:00:00 a kernel: reboot: Restarting system\n"
            "Mar  1 05:02:00 a kernel: Linux version 6.8\nMar  1 09:00:00 a kernel: Linux version 6.8\n")
    log = read_xid(text, year=2024)
    assert log.events["start_h"].tolist() == [9.0]     # only the boot without a shutdown before it


@pytest.mark.parametrize("text, kw, match", [
    ("Mar  1 00:00:00 a kernel: NVRM: Xid (PCI:0000:01:00): abc, x\n", {"year": 2024}, "line 1: cannot read the Xid"),
    ("Mar  1 00:00:00 a kernel: hi\nnot a line NVRM: Xid (PCI:0000:01:00): 79, x\n", {"year": 2024}, "line 2"),
    ("Mar  1 00:00:00 a kernel: hi\n", {}, "give year="),
    ("Mar  1 00:00:00 a kernel: hi\n", {"year": 2024, "log_format": "csv"}, "not a kernel log form"),
    ("{\"MESSAGE\": \"NVRM: Xid (PCI:0000:01:00): 79, x\"}\n", {}, "line 1: not a journalctl"),
    ("hello\nworld\n", {}, "cannot tell the form"),
])
def test_malformed_input_gets_named_errors(text, kw, match):
    with pytest.raises(KernelLogError, match=match):
        read_xid(text, **kw)


def test_bursts_merge_only_within_the_window():
    text = ("Mar  1 00:00:00 a kernel: NVRM: Xid (PCI:0000:01:00): 74, l0\n"
            "Mar  1 00:04:00 a kernel: NVRM: Xid (PCI:0000:01:00): 74, l1\n"
            "Mar  1 00:08:00 a kernel: NVRM: Xid (PCI:0000:01:00): 74, l2\n"     # chained: 4 min after the last
            "Mar  1 00:08:00 a kernel: NVRM: Xid (PCI:0000:02:00): 74, l0\n"     # another GPU
            "Mar  1 01:00:00 a kernel: NVRM: Xid (PCI:0000:01:00): 74, l0\n")
    log = read_xid(text, year=2024)
    assert np.sort(log.events["start_h"].to_numpy()).tolist() == pytest.approx([0, 8 / 60, 1])
    short = read_xid(text, year=2024, burst="1min")
    # five incidents; the two GPUs of node a at 00:08 with one cause are one outage of the node (duplicate rule)
    assert len(short) == 4 and "duplicate" in set(short.problems()["problem"])


@pytest.mark.parametrize("kw", [{"nodes": 0}, {"nodes": "many"}, {"gpus_per_node": 2.5}])
def test_bad_counts_are_count_errors(kw):
    from relmodel.errors import CountError
    with pytest.raises(CountError, match="whole number"):
        read_xid(rfc3164(), year=2024, **kw)


def test_syslog_lines_with_a_priority_prefix():
    text = "".join("<4>" + line + "\n" for line in rfc3164().splitlines())
    log = read_xid(text, year=2024)
    assert len(log) == 7 and log.n_nodes == 3


def test_cause_mix_beside_llama3_counted_by_hand():
    from relmodel.data.formats.xid import cause_mix
    mix = cause_mix(read_xid(rfc3164(), year=2024)).set_index("category")
    # this log: GPU 3 (79, 74, 48), Host 3 (EDAC, NIC, reboot), Unknown 1 (Xid 777)
    assert mix["count"].to_dict() == {"GPU": 3, "Host": 3, "Unknown": 1, "Dependency": 0, "Network": 0,
                                      "Unplanned Maintenance": 0}
    # Llama 3 Table 5: Host = NIC 7 + SSD 3 + PSU 3 + chassis 2 + IO board 2 + CPU 2 + memory 2 = 21 of 419
    assert mix.loc["Host", "llama3_count"] == 21 and mix.loc["Host", "llama3_share"] == pytest.approx(21 / 419)
