"""The kernel log's fast paths against plain line-by-line readings written here.

The keyword search (bytes split + newline index), the host count (numpy columns) and the RFC 3164
times (numpy digits) must give what a Python loop over the lines with the regular expressions and
pandas' strptime gives, on a random mix of lines (fixed seed).
"""

import re

import numpy as np
import pandas as pd
import pytest

from relmodel.data.formats.kernparse import KEY, stamps
from relmodel.data.formats.kernscan import host_set, keyword_lines, newlines
from relmodel.data.formats.kernparse import LITERALS

MESSAGES = ["kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=1, GPU has fallen off the bus.",
            "kernel: mlx5_core 0000:0c:00.0 ibp12s0: Link down", "kernel: mlx5_core ibp12s0: link is Down",
            "kernel: ib0: link becomes ready", "kernel: EDAC MC1: 1 UE memory read error",
            "kernel: ipmi_si: Power Supply PS2 failure detected, AC lost", "kernel: Linux version 6.8.0 (x)",
            "kernel: reboot: Restarting system", "systemd-shutdown[1]: Syncing filesystems",
            "kernel: Kernel panic - not syncing: Fatal exception", "systemd[1]: Started Session 3 of User slurm.",
            "chronyd[812]: Selected source 10.0.0.1", "kernel: powered on", "sshd[22]: blink down the hall"]


def _text(seed, n=4000, hosts=("gpu01", "node-a.example", "x", "gpu0002")):
    rng = np.random.default_rng(seed)
    t = pd.Timestamp("2024-02-27") + pd.to_timedelta(np.sort(rng.uniform(0, 6 * 86400, n)).round(), unit="s")
    head = pd.Series(t.strftime("%b %d %H:%M:%S")).str.replace(r"^(\w{3}) 0", r"\1  ", regex=True)
    lines = [f"{h} {hosts[int(rng.integers(len(hosts)))]} {MESSAGES[int(rng.integers(len(MESSAGES)))]}"
             for h in head]
    return "\n".join(lines) + "\n", lines, t


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_keyword_lines_are_the_lines_a_regex_loop_finds(seed):
    text, lines, _ = _text(seed)
    raw = text.encode()
    numbers, starts, found = keyword_lines(raw, LITERALS, "t", newlines(raw))
    want = [i + 1 for i, ln in enumerate(lines) if KEY.search(ln)]
    got = [n for n, ln in zip(numbers.tolist(), found) if KEY.search(ln)]
    assert got == want
    assert found == [lines[n - 1] for n in numbers.tolist()]
    assert all(raw[s:s + 15].decode() == lines[n - 1][:15] for s, n in zip(starts.tolist(), numbers.tolist()))


@pytest.mark.parametrize("seed", [0, 3])
def test_hosts_are_those_a_regex_loop_finds(seed):
    text, lines, _ = _text(seed)
    pat = re.compile(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (\S+) ")
    assert host_set(text.encode(), "rfc3164", "h") == {pat.match(ln).group(1) for ln in lines}
    long = text.replace("node-a.example", "a-very-long-host-name-of-forty-characters-x")
    assert "a-very-long-host-name-of-forty-characters-x" in host_set(long.encode(), "rfc3164", "h")


def test_syslog_times_equal_pandas_strptime_across_a_leap_day():
    _, lines, t = _text(5)
    got = stamps([ln[:15] for ln in lines], "rfc3164", 2024, "t", list(range(1, len(lines) + 1)))
    assert (got == pd.DatetimeIndex(t)).all()


# --- the one-pass index, the host pass and the whole reader against naive readings written here ---

from collections import Counter  # noqa: E402

from relmodel import read_xid  # noqa: E402
from relmodel.data.formats import kernscan  # noqa: E402
from relmodel.data.formats.kernscan import PAIRS, host_firsts, hosts_wrote_before, line_index  # noqa: E402

DECOYS = ["kernel: Xi VR ow wn AC DA up pp Li ux bo eb d- hu Ke ni", "kernel: known owner shown down",
          "kernel: NVLink: link 3 fatal", "kernel: Linux vers", "kernel: reboot now", "kernel: EDA C"]
XID_LINE = re.compile(r"^([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) (\S+) .*NVRM: Xid \((?:PCI:)?[0-9A-Fa-f:.]+\): (\d+)")


def _syslog(seed, n=6000):
    """A syslog of random hosts and messages (Xid lines of five codes, other events, noise, decoys)."""
    rng = np.random.default_rng(seed)
    t = pd.Timestamp("2024-03-01") + pd.to_timedelta(np.sort(rng.uniform(0, 20 * 86400, n)).round(), unit="s")
    head = pd.Series(t.strftime("%b %d %H:%M:%S")).str.replace(r"^(\w{3}) 0", r"\1  ", regex=True)
    hosts = [f"gpu{i:03d}" for i in range(40)] + ["n", "node-a.example.org"]
    xids = [f"kernel: NVRM: Xid (PCI:0000:{b}:00): {c}, pid={p}, x" for b in ("1a", "CB") for c in (13, 31, 79, 92, 999)
            for p in (7, 12345)]
    pool = xids + MESSAGES + DECOYS
    lines = [f"{h} {hosts[int(rng.integers(len(hosts)))]} {pool[int(rng.integers(len(pool)))]}" for h in head]
    return "\n".join(lines) + "\n", lines


@pytest.mark.parametrize("seed", [0, 1])
def test_read_xid_counts_equal_a_naive_per_line_parse(seed, tmp_path):
    text, lines = _syslog(seed)
    path = tmp_path / "syslog"
    path.write_text(text)
    log = read_xid(path, year=2024)
    found = [(i + 1, m.group(2), int(m.group(3))) for i, ln in enumerate(lines) if (m := XID_LINE.match(ln))]
    x = log.xid_events
    assert Counter(x["xid"].tolist()) == Counter(c for _, _, c in found)
    assert Counter(x["node"].tolist()) == Counter(h for _, h, _ in found)
    assert sorted(x["line"].tolist()) == [i for i, _, _ in found]
    assert log.n_nodes == len({ln.split()[3] for ln in lines}) and log.n_lines == len(lines)


@pytest.mark.parametrize("seed", [0, 2])
def test_line_index_finds_every_line_end_and_every_keyword_line(seed):
    text, lines = _syslog(seed, 3000)
    for end in ("", "\n\n", "\nx"):
        raw = (text + end).encode()
        nl, cand = line_index(raw)
        assert nl.tolist() == [i for i, b in enumerate(raw) if b == 10]
        every = raw.decode().split("\n")
        want = {i for i, ln in enumerate(every) if KEY.search(ln)}
        assert want <= set(cand.tolist()) and len(want) > 100
        assert all(0 <= c < len(every) for c in cand.tolist())


@pytest.mark.parametrize("literal", list(PAIRS))
def test_each_keyword_is_a_candidate_at_any_offset(literal):
    for pad in range(4):
        raw = b"x" * pad + literal + b"\nnothing here\n"
        assert 0 in line_index(raw)[1].tolist(), (literal, pad)
        assert line_index(b"nothing\n" + raw)[1].tolist()[:1] == [1], (literal, pad)


@pytest.mark.parametrize("seed", [0, 3])
def test_host_pass_gives_the_hosts_and_first_lines_a_loop_finds(seed):
    text, lines, _ = _text(seed)
    raw = text.encode()
    hosts, firsts = host_firsts(raw, "rfc3164", "h", line_index(raw)[0])
    want, first, at = set(), {}, 0
    for ln in lines:
        h = ln.split()[3]
        want.add(h)
        first.setdefault(h, at)
        at += len(ln.encode()) + 1
    assert hosts == want and firsts == first


def test_one_pass_over_the_words_says_what_a_search_per_host_says(monkeypatch):
    rng = np.random.default_rng(4)
    words = ["a", "bb", "gpu01", "gpu02", "x", "\n", "gpu0", "gpu011", "é", " "]
    monkeypatch.setattr(kernscan, "SEARCH_OVER", -1)
    monkeypatch.setattr(kernscan, "SEARCH_MIN", -1)
    for _ in range(300):
        raw = "".join(rng.choice(words + [" "] * 4, int(rng.integers(0, 120)))).encode()
        wants = {h: int(rng.integers(0, len(raw) + 1)) for h in ["a", "bb", "gpu01", "gpu0", "zz", "é"]}
        assert hosts_wrote_before(raw, "rfc3164", wants) == {
            h: (b" " + h.encode() + b" ") in raw[:p] for h, p in wants.items()}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_folder_shares_hold_each_file_once_and_are_near_the_best_split(seed, tmp_path):
    import itertools

    from relmodel.data.formats.kernfolder import _shares
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 5000, 8).tolist()
    files = []
    for i, n in enumerate(sizes):
        (tmp_path / f"f{i}").write_bytes(b"x" * n)
        files.append(tmp_path / f"f{i}")
    shares = _shares(files, 2)
    assert sorted(i for s in shares for i in s) == list(range(8)) and all(s == sorted(s) for s in shares)
    best = min(max(sum(n for n, a in zip(sizes, pick) if a), sum(n for n, a in zip(sizes, pick) if not a))
               for pick in itertools.product([0, 1], repeat=8))
    assert max(sum(sizes[i] for i in s) for s in shares) <= best * 4 / 3  # largest-first's bound (Graham, 1969)
