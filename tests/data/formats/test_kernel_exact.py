"""Kernel logs read exactly: names by their text, kernel lines only, every byte read one way, years from the
order of every line, files of a folder placed on one year, bombs refused.

Each log here is written by hand for the case it names; the expected values are counted by hand.
"""

import gzip
import json
import warnings

import pandas as pd
import pytest

from relmodel import read_xid
from relmodel.data import read_xid_folder
from relmodel.data.shaping.decoding import LogWarning
from relmodel.errors import KernelLogError

BOOT = "kernel: Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP"
XID79 = "kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=7, GPU has fallen off the bus."


def test_two_hosts_whose_eight_byte_words_hash_alike_are_two_nodes():
    text = (f"Mar  1 00:00:00 gpu-node-000001 {BOOT}\nMar  1 00:00:00 CdLvoKsfQKKuzbn {BOOT}\n"
            f"Mar  1 05:00:00 gpu-node-000001 {XID79}\nMar  1 06:00:00 CdLvoKsfQKKuzbn cron[1]: hello\n")
    log = read_xid(text, year=2024)
    assert log.n_nodes == 2
    assert log.last_seen.to_dict() == {"CdLvoKsfQKKuzbn": 6.0, "gpu-node-000001": 5.0}
    assert log.events["node"].tolist() == ["gpu-node-000001"]


def test_hosts_that_differ_past_the_first_words_are_many_nodes():
    names = [f"gpu-node-0000{i:02d}.rack-{i % 3}.cluster.example" for i in range(40)]  # 40+ bytes: the long path
    names += [f"n{i}" for i in range(40)] + [f"node-{i:027d}" for i in range(40)]       # 32-byte names
    text = "".join(f"Mar  1 00:{i // 60:02d}:{i % 60:02d} {h} cron[1]: tick\n" for i, h in enumerate(names))
    log = read_xid(text, year=2024)
    assert log.n_nodes == 120 and sorted(log.last_seen.index) == sorted(names)


def test_one_gpu_in_its_two_spellings_is_one_incident():
    text = (f"Mar  1 00:00:00 gpu01 {BOOT}\n"
            "Mar  1 10:00:00 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=7, GPU has fallen off the bus.\n"
            "Mar  1 10:01:00 gpu01 kernel: NVRM: Xid (PCI:0000:CB:00.0): 79, pid=7, GPU has fallen off the bus.\n")
    log = read_xid(text, year=2024)
    assert len(log) == 1 and log.events["lines_merged"].tolist() == [2]
    assert set(log.xid_events["gpu"]) == {"0000:cb:00"}


@pytest.mark.parametrize("writer", ["root:", "logger[4242]:", "python3[77]:", "user-kernel:"])
def test_an_xid_text_a_user_process_wrote_is_no_gpu_fault(writer):
    text = (f"Mar  1 00:00:00 gpu01 {BOOT}\n"
            f"Mar  1 10:00:00 gpu01 {writer} NVRM: Xid (PCI:0000:cb:00): 79, pid=7, GPU has fallen off the bus.\n"
            f"Mar  1 11:00:00 gpu01 {writer} Linux version 6.8.0 (fake)\n"
            f"Mar  1 12:00:00 gpu02 {XID79}\n")
    log = read_xid(text, year=2024)
    assert log.events["node"].tolist() == ["gpu02"] and len(log.xid_events) == 1
    assert log.n_nodes == 2


def test_the_kernel_xid_in_journal_json_counts_and_a_logger_one_does_not():
    t0 = 1_709_251_200_000_000  # 2024-03-01 in microseconds
    rows = [{"__REALTIME_TIMESTAMP": str(t0), "_HOSTNAME": "a", "_TRANSPORT": "kernel", "SYSLOG_IDENTIFIER": "kernel",
             "MESSAGE": "Linux version 6.8.0 (x)"},
            {"__REALTIME_TIMESTAMP": str(t0 + 3_600_000_000), "_HOSTNAME": "a", "_TRANSPORT": "syslog",
             "SYSLOG_IDENTIFIER": "logger", "MESSAGE": "NVRM: Xid (PCI:0000:01:00): 79, fake"},
            {"__REALTIME_TIMESTAMP": str(t0 + 7_200_000_000), "_HOSTNAME": "a", "_TRANSPORT": "kernel",
             "MESSAGE": list(b"NVRM: Xid (PCI:0000:01:00): 79, \xff off the bus")}]
    log = read_xid("\n".join(json.dumps(r) for r in rows) + "\n")
    assert log.events["start_h"].tolist() == [2.0] and len(log.xid_events) == 1


@pytest.mark.parametrize("stamp", [True, False, None, "12a", [1], 1.5e15])
def test_a_journal_time_that_is_no_whole_number_is_refused(stamp):
    rows = [{"__REALTIME_TIMESTAMP": "1709251200000000", "_HOSTNAME": "a", "MESSAGE": "Linux version 6.8.0 (x)"},
            {"__REALTIME_TIMESTAMP": stamp, "_HOSTNAME": "a", "MESSAGE": "hello"},
            {"__REALTIME_TIMESTAMP": "1709254800000000", "_HOSTNAME": "a", "MESSAGE": "bye"}]
    with pytest.raises(KernelLogError, match="line 2"):
        read_xid("\n".join(json.dumps(r) for r in rows) + "\n")


def test_text_that_is_not_utf8_is_read_with_replacement_and_counted(tmp_path):
    raw = (f"Mar  1 00:00:00 gpu01 {BOOT}\n".encode() + b"Mar  1 01:00:00 gpu01 cron[1]: caf\xe9 au lait\n"
           + b"Mar  1 02:00:00 gpu\xff02 kernel: hello\n" + f"Mar  1 03:00:00 gpu01 {XID79}\n".encode()
           + b"Mar  1 04:00:00 gpu01 kernel: \xc3\x28 bad\n")
    (tmp_path / "syslog").write_bytes(raw)
    with pytest.warns(LogWarning, match=r"3 lines are not UTF-8.*line 2\b"):
        log = read_xid(tmp_path / "syslog", year=2024)
    assert len(log) == 1 and log.n_nodes == 2 and "gpu\\xff02" in set(log.last_seen.index)  # a host keeps its bytes


@pytest.mark.parametrize("time", ["Mar  1 0\u0665:00:00", "Mar  \u0661 05:00:00", "Mar  1 05:00:0\uff15"])
def test_digits_other_than_ascii_in_a_syslog_time_are_refused(time):
    text = f"Mar  1 00:00:00 gpu01 {BOOT}\n{time} gpu01 {XID79}\n"
    with pytest.raises(KernelLogError, match="line 2"):
        read_xid(text, year=2024)


def test_a_sparse_log_is_placed_by_the_order_of_all_its_lines():
    # boot Jul 1, one cron line a month, an Xid on Jan 15 of the next year: Jul 1 -> Jan 15 is
    # 31 + 31 + 30 + 31 + 30 + 31 + 14 = 198 days (the Xid alone after the boot: Jul -> Jan falls by only 6)
    lines = [f"Jul  1 00:00:00 gpu01 {BOOT}"]
    lines += [f"{m}  3 00:00:00 gpu02 cron[1]: monthly" for m in ("Aug", "Sep", "Oct", "Nov", "Dec")]
    lines += [f"Jan 15 00:00:00 gpu01 {XID79}"]
    log = read_xid("\n".join(lines) + "\n", year=2023)
    assert log.events["start_h"].tolist() == [198 * 24]          # 4,752 h
    assert log.origin == pd.Timestamp("2023-07-01")


def test_years_turn_as_often_as_the_months_fall():
    # a line every four months for three and a half years: Jan 2021 ... May 2024
    months = ["Jan", "May", "Sep"] * 4
    lines = [f"{m}  1 00:00:00 gpu01 cron[1]: tick" for m in months] + [f"Jan  1 00:00:00 gpu01 {XID79}"]
    log = read_xid("\n".join(lines) + "\n", year=2021)
    assert log.origin + pd.Timedelta(hours=log.events["start_h"].iloc[0]) == pd.Timestamp("2025-01-01")
    assert log.origin + pd.Timedelta(hours=log.duration_h) == pd.Timestamp("2025-01-01")


def test_daily_files_of_dec_31_and_jan_1_are_a_day_apart(tmp_path):
    (tmp_path / "a-jan01.log").write_text(f"Jan  1 12:00:00 gpu01 {XID79}\n")
    (tmp_path / "b-dec31.log").write_text(f"Dec 31 00:00:00 gpu01 {BOOT}\nDec 31 23:00:00 gpu01 cron[1]: hi\n")
    log = read_xid_folder(tmp_path, year=2024, jobs=1)
    assert log.origin == pd.Timestamp("2024-12-31") and log.events["start_h"].tolist() == [36.0]


def test_per_node_files_of_one_month_share_its_year(tmp_path):
    for i in range(3):
        (tmp_path / f"gpu0{i}.log").write_text(f"Mar  {i + 1} 00:00:00 gpu0{i} {BOOT}\n"
                                               f"Mar 20 00:00:00 gpu0{i} {XID79}\n")
    log = read_xid_folder(tmp_path, year=2024, jobs=1)
    assert log.origin == pd.Timestamp("2024-03-01") and log.events["start_h"].tolist() == [19 * 24] * 3


def test_a_gzip_bomb_is_a_named_error_not_memory_error(tmp_path):
    path = tmp_path / "syslog.gz"
    with gzip.open(path, "wb", compresslevel=1) as fh:
        fh.write(f"Mar  1 00:00:00 gpu01 {BOOT}\n".encode())
        zeros = bytes(1 << 20)
        for _ in range(48):  # 48 MiB of zeros in about 50 KB: one "line" with no end
            fh.write(zeros)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(KernelLogError, match="longer than"):
        read_xid(path, year=2024)


def test_a_file_of_zeros_is_a_named_error(tmp_path):
    path = tmp_path / "syslog.gz"
    with gzip.open(path, "wb", compresslevel=1) as fh:
        for _ in range(40):
            fh.write(bytes(1 << 20))
    with pytest.raises(KernelLogError):
        read_xid(path, year=2024)


def test_the_same_log_in_crlf_and_in_small_blocks_reads_the_same(monkeypatch):
    from relmodel.data.formats import kernstream
    lines = [f"Mar  1 00:00:00 gpu{i:02d} {BOOT}" for i in range(30)]
    lines += [f"Mar  1 {h:02d}:00:00 gpu{h:02d} {XID79}" for h in range(1, 20)]
    lines += [f"Mar  2 {h:02d}:00:00 gpu{h:02d} {BOOT}" for h in range(1, 10)]
    text = "\n".join(lines) + "\n"
    want = read_xid(text, year=2024)
    monkeypatch.setattr(kernstream, "BLOCK", 97)
    monkeypatch.setattr(kernstream, "MAX_LINE", 200)
    for t in (text, text.replace("\n", "\r\n"), text.rstrip("\n")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = read_xid(t, year=2024)
        assert got.events.equals(want.events) and got.last_seen.equals(want.last_seen) and got.n_lines == 58
