"""The streaming kernel-log reader against plain line-by-line readings written here.

A classic syslog block is read column-wise with numpy when every line is in the common shape, line by line
otherwise; both must give what a Python loop over the lines with regular expressions gives (fixed seeds:
hosts of several lengths, bus ids in every spelling, codes of one to five digits, other kernel events,
keywords written by user processes, decoys, bytes that are not UTF-8), whatever the block size.  The bench's
fleet generator (bench/fleet_syslog.py) and its plain loop (bench/bench_xid.py) give the reference on a
realistic mix.
"""

import importlib.util
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from relmodel import read_xid
from relmodel.data.formats import kernstream
from relmodel.errors import KernelLogError

BENCH = Path(__file__).resolve().parents[3] / "bench"
HOSTS = ["g1", "gpu0001", "node-a.example.org", "EDAC-link-down", "gpu-node-000001", "CdLvoKsfQKKuzbn",
         "x" * 31, "caf\u00e9-01"]
#: MIG-partitioned GPUs name the instance after the bus id, as the driver prints it (open-gpu-kernel-modules).
BUSES = ["0000:cb:00", "PCI:0000:CB:00.0", "PCI:0000:3b:00.0", "0001:Ff:1f.7", "0000:1a:00",
         "PCI:0000:3b:00 GPU-I:05", "PCI:0000:1a:00 GPU-I:01 GPU-CI:02"]
OTHER = ["kernel: mlx5_core ibp12s0: Link down", "kernel: EDAC MC1: 1 UE memory read error",
         "kernel: Linux version 6.8.0 (x)", "kernel: reboot: Power down", "kernel: blink twice",
         "kernel: Power Supply PS1 failure", "kernel: ib0: link is down again", "kernel: mce: 1 UE seen",
         "kernel: EDAC MC0: 2 CE memory read error", "kernel: Link downstream",
         "systemd-shutdown[1]: Syncing filesystems", "kernel: Kernel panic - not syncing: x"]
NOISE = ["systemd[1]: Started Session 3 of User slurm.", "chronyd[812]: Selected source 10.0.0.1",
         "root: NVRM: Xid (PCI:0000:cb:00): 79, fake", "logger[3]: Linux version 1.0", "cron[1]: caf\u00e9",
         "sshd[9]: EDAC UE link down", "kernel: NVRM: GPU at PCI:0000:cb:00: GPU-1234"]
XID = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.([0-9A-Fa-f]))?"
                 r"(?: GPU-I:\d+(?: GPU-CI:\d+)?)?\): (\d+)")
T0 = pd.Timestamp("2024-03-01")


def _log(seed, n=4000, hosts=HOSTS, bad_bytes=False):
    """(bytes of the log, its lines as bytes, their times)."""
    rng = np.random.default_rng(seed)
    t = T0 + pd.to_timedelta(np.sort(rng.uniform(0, 20 * 86400, n)).round(), unit="s")
    head = pd.Series(t.strftime("%b %d %H:%M:%S")).str.replace(r"^(\w{3}) 0", r"\1  ", regex=True)
    lines = []
    for h in head:
        host = hosts[int(rng.integers(len(hosts)))]
        r = rng.random()
        if r < 0.3:
            code = int(rng.integers(0, 65536)) if rng.random() < 0.1 else int(rng.choice([13, 48, 79, 94]))
            sep = ", " if rng.random() < 0.8 else " "
            msg = f"kernel: [ 12.5] NVRM: Xid ({BUSES[int(rng.integers(len(BUSES)))]}): {code}{sep}pid=1"
        elif r < 0.5:
            msg = OTHER[int(rng.integers(len(OTHER)))]
        else:
            msg = NOISE[int(rng.integers(len(NOISE)))]
        line = f"{h} {host} {msg}".encode()
        if bad_bytes and rng.random() < 0.05:
            line += b" \xff\xfe"
        lines.append(line)
    return b"\n".join(lines) + b"\n", lines, t


def _reference(lines, t):
    """Xid lines (line, node, gpu, code), hosts' last-seen hours, read one line at a time."""
    xids, last = [], {}
    for i, (ln, when) in enumerate(zip(lines, t)):
        text = ln.decode("utf-8", "replace")
        m = re.match(r"^.{15} (\S+) ([^\s\[:]*)(.*)$", text)
        host, tag, rest = m.groups()
        last[host] = (when - t[0]) / pd.Timedelta(hours=1)
        x = XID.search(rest)
        if tag == "kernel" and x:
            fn = x.group(2)
            gpu = x.group(1).lower() + (f".{fn.lower()}" if fn and fn != "0" else "")
            xids.append((i + 1, host, gpu, int(x.group(3))))
    return xids, last


def _read(raw, tmp_path, name="syslog"):
    path = tmp_path / name
    path.write_bytes(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_xid(path, year=2024)


def _same(a, b):
    assert a.events.equals(b.events)
    assert a.xid_events.equals(b.xid_events)
    assert a.last_seen.equals(b.last_seen)
    assert (a.n_nodes, a.n_lines, a.origin, a.duration_h) == (b.n_nodes, b.n_lines, b.origin, b.duration_h)
    assert a.problems().equals(b.problems())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_column_reading_equals_the_line_reading_and_a_python_loop(seed, tmp_path, monkeypatch):
    raw, lines, t = _log(seed)
    used, block = [], kernstream._Scan.syslog_block
    monkeypatch.setattr(kernstream._Scan, "syslog_block",
                        lambda self, ba, n: used.append(block(self, ba, n)) or used[-1])
    fast = _read(raw, tmp_path)
    assert used == [True]  # the column reading read the whole log
    xids, last = _reference(lines, t)
    x = fast.xid_events
    assert list(zip(x["line"], x["node"], x["gpu"], x["xid"])) == xids
    assert fast.last_seen.to_dict() == pytest.approx(last) and fast.n_nodes == len(HOSTS)
    calls = []
    monkeypatch.setattr(kernstream._Scan, "syslog_block", lambda self, ba, n: calls.append(n) and False)
    slow = _read(raw, tmp_path)
    assert calls  # the line reading was used
    _same(fast, slow)


@pytest.mark.parametrize("block", [211, 4096])
def test_blocks_of_any_size_read_the_same(block, tmp_path, monkeypatch):
    raw, lines, t = _log(3, n=1500, bad_bytes=True)
    whole = _read(raw, tmp_path)
    monkeypatch.setattr(kernstream, "BLOCK", block)
    monkeypatch.setattr(kernstream, "MAX_LINE", 4096)
    _same(whole, _read(raw, tmp_path))


def test_long_hosts_and_odd_lines_take_the_line_reading_with_the_same_rules(tmp_path):
    hosts = HOSTS + ["a-very-long-host-name-of-forty-characters-x", "y" * 32]
    raw, lines, t = _log(4, n=2000, hosts=hosts)
    raw = b"<6>" + raw  # a priority prefix on the first line
    log = _read(raw, tmp_path)
    xids, last = _reference([lines[0]] + lines[1:], t)
    x = log.xid_events
    assert list(zip(x["line"], x["node"], x["gpu"], x["xid"])) == xids
    assert sorted(log.last_seen.index) == sorted(last)


def test_lines_that_are_not_utf8_are_counted_once_each(tmp_path):
    raw, lines, t = _log(5, n=3000, bad_bytes=True)
    bad = [i + 1 for i, ln in enumerate(lines) if b"\xff" in ln]
    with pytest.warns(Warning, match=rf"{len(bad):,} lines are not UTF-8.*line {bad[0]:,}\)"):
        read_xid(raw.decode("utf-8", "surrogateescape"), year=2024)


def _bench(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, mod)
    spec.loader.exec_module(mod)
    return mod


def test_a_realistic_fleet_log_reads_to_the_generator_truth_and_the_plain_loop(tmp_path):
    gen, bench = _bench("fleet_syslog"), _bench("bench_xid")
    truth = gen.write_fleet_syslog(tmp_path / "syslog", 3, nodes=300, days=6, seed=1, start="2024-12-29",
                                   hw_per_node_day=0.2, app_share=0.01)
    log = read_xid(tmp_path / "syslog", year=2024)
    last, xids, boots = bench.plain_loop(tmp_path / "syslog")
    assert Counter(log.xid_events["xid"]) == Counter(truth["xid"]) == Counter(x[4] for x in xids)
    assert log.xid_events["line"].tolist() == [x[0] for x in xids]
    assert log.xid_events["gpu"].tolist() == [x[3].decode() for x in xids]
    assert len(boots) == truth["boots"] and log.n_nodes == len(truth["hosts"]) == len(last) == 300
    assert log.n_lines == truth["lines"]
    seen = {h: (log.origin + pd.Timedelta(hours=v)).round("s") for h, v in log.last_seen.items()}
    assert seen == {h: t for h, (_, t) in truth["last"].items()}
    assert {h.decode(): n for h, (n, _) in last.items()} == {h: n for h, (n, _) in truth["last"].items()}
    # the log turns the year (Dec 29 to Jan 4): the last line is in 2025
    assert (log.origin + pd.Timedelta(hours=log.duration_h)).year == 2025


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_folder_shares_hold_each_file_once_and_give_the_workers_room_to_start(seed, tmp_path):
    import itertools

    from relmodel.data.formats.kernfolder import START, _shares
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5000, 8).tolist()
    files = []
    for i, n in enumerate(sizes):
        (tmp_path / f"f{i}").write_bytes(b"x" * n)
        files.append(tmp_path / f"f{i}")
    shares = _shares(files, 2)
    assert sorted(i for s in shares for i in s) == list(range(8)) and all(s == sorted(s) for s in shares)
    head = START * sum(sizes) / 2
    load = [sum(sizes[i] for i in shares[0]), head + sum(sizes[i] for i in shares[1])]
    best = min(max(sum(n for n, a in zip(sizes, pick) if a), head + sum(n for n, a in zip(sizes, pick) if not a))
               for pick in itertools.product([0, 1], repeat=8))
    assert max(load) <= best * 4 / 3 + 1  # largest-first's bound (Graham, 1969)


def test_hosts_of_32_to_63_bytes_are_read_column_wise_as_the_lines_read_them(tmp_path, monkeypatch):
    hosts = ["gpu-node-000123.rack12.dc1.example.com", "y" * 32, "z" * 63, "gpu01", "n\u00e9-" + "x" * 40]
    raw, lines, t = _log(6, n=2000, hosts=hosts)
    used, block = [], kernstream._Scan.syslog_block
    monkeypatch.setattr(kernstream._Scan, "syslog_block",
                        lambda self, ba, n: used.append(block(self, ba, n)) or used[-1])
    fast = _read(raw, tmp_path)
    assert used == [True]
    xids, last = _reference(lines, t)
    x = fast.xid_events
    assert list(zip(x["line"], x["node"], x["gpu"], x["xid"])) == xids and fast.n_nodes == len(hosts)
    monkeypatch.setattr(kernstream._Scan, "syslog_block", lambda self, ba, n: False)
    _same(fast, _read(raw, tmp_path))
    long = _log(7, n=50, hosts=["w" * 64])[0]
    used.clear()
    monkeypatch.setattr(kernstream._Scan, "syslog_block",
                        lambda self, ba, n: used.append(block(self, ba, n)) or used[-1])
    assert _read(long, tmp_path, "long").n_nodes == 1 and used == [False]  # 64 bytes: the line reading


def test_a_few_blank_or_foreign_lines_are_passed_over_as_the_line_reading_does(tmp_path, monkeypatch):
    raw, lines, t = _log(8, n=3000)
    rng = np.random.default_rng(8)
    odd = [b"", b"-- MARK --", b"   ", b"\tcontinued text", b"Mar  1"]
    for at in sorted(rng.choice(len(lines), 25, replace=False).tolist(), reverse=True):
        lines.insert(at, odd[at % len(odd)])
    raw = b"\n".join(lines) + b"\n"
    used, block = [], kernstream._Scan.syslog_block
    monkeypatch.setattr(kernstream._Scan, "syslog_block",
                        lambda self, ba, n: used.append(block(self, ba, n)) or used[-1])
    fast = _read(raw, tmp_path)
    assert used == [True] and fast.n_lines == 3025
    monkeypatch.setattr(kernstream._Scan, "syslog_block", lambda self, ba, n: False)
    _same(fast, _read(raw, tmp_path))
    bad = raw + b"stray NVRM: Xid (PCI:0000:cb:00): 79, x\n"
    for read in (lambda self, ba, n: False, block):
        monkeypatch.setattr(kernstream._Scan, "syslog_block", read)
        with pytest.raises(KernelLogError, match="line 3026"):
            _read(bad, tmp_path)


X79 = b"kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus.\n"


@pytest.mark.parametrize("a,b", [(b"gpu\xe9", b"gpu\xe8"), (b"gpuA\x00x", b"gpuA\x00y")])
def test_hosts_that_differ_only_in_bytes_that_are_not_text_stay_two_hosts(a, b, tmp_path):
    raw = (b"Mar  1 00:00:00 " + a + b" kernel: Linux version 6.8\n" + b"Mar  1 00:00:00 " + b +
           b" kernel: Linux version 6.8\n" + b"Mar  1 00:10:00 " + a + b" " + X79 + b"Mar  1 00:11:00 " + b + b" " + X79)
    log = _read(raw, tmp_path)
    assert log.n_nodes == 2 and len(log.events) == 2
    assert log.events["node"].nunique() == 2


def test_a_december_log_rotated_in_january_is_placed_in_the_year_it_was_written(tmp_path):
    import os
    path = tmp_path / "syslog.1"
    path.write_bytes(b"Dec 24 00:00:00 gpu01 kernel: Linux version 6.8\nDec 31 22:00:00 gpu01 " + X79)
    when = pd.Timestamp("2024-01-01 06:25").timestamp()
    os.utime(path, (when, when))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = read_xid(path)
    assert log.origin == pd.Timestamp("2023-12-24")
    assert log.events["start_h"].tolist() == [7 * 24 + 22.0]


def test_a_year_past_what_the_clock_holds_is_refused(tmp_path):
    from relmodel.errors import InputTypeError
    path = tmp_path / "syslog"
    path.write_bytes(b"Mar  1 00:00:00 gpu01 " + X79)
    with pytest.raises(InputTypeError, match="1970 to 2200"):
        read_xid(path, year=2261)


def test_blocks_of_blank_lines_are_passed_over_and_the_lines_keep_their_numbers(tmp_path, monkeypatch):
    """Blank lines (empty, or a lone CR) in runs of any length: the lines around them keep their numbers, read
    column-wise as line by line; a block of nothing but blank lines is read too."""
    raw = (b"Mar  1 00:00:00 gpu01 kernel: Linux version 6.8\n" + b"\n" * 5000 + b"\r\n" * 7
           + b"Mar  1 00:10:00 gpu01 " + X79 + b"\n" * 3000 + b"Mar  1 00:20:00 gpu02 " + X79.rstrip(b"\n"))
    monkeypatch.setattr(kernstream, "BLOCK", 4096)
    log = _read(raw, tmp_path)
    assert log.xid_events["line"].tolist() == [5009, 8010] and log.n_lines == 8010 and log.n_nodes == 2
    calls = []
    monkeypatch.setattr(kernstream._Scan, "syslog_block", lambda self, ba, n: calls.append(n) and False)
    _same(log, _read(raw, tmp_path))
