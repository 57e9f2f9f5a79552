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
