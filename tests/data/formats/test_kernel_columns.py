"""The column-wise syslog reader (numpy on the file's bytes) and the pyarrow regex path against a Python loop.

Every keyword line of a random RFC 3164 log (fixed seeds: hosts of several lengths, bus ids with and
without ``PCI:``, a function digit and upper-case hex, codes of one to five digits, other kernel events and
noise) is read by a plain loop here with Python's ``re``; both fast paths must give the same records, and
the numpy path must step aside (None) on lines whose shape it does not read, so the regex path names them.
"""

import re

import numpy as np
import pytest

from relmodel.data.formats.kerncols import syslog_records
from relmodel.data.formats.kernparse import KEY, records_arrow
from relmodel.data.formats.kernscan import decode_lines, gather, matching_lines

HOSTS = ["g1", "gpu0001", "node-a.example.org", "n" * 40, "EDAC-link-down"]
BUSES = ["0000:cb:00", "PCI:0000:1A:00", "PCI:0000:3b:00.0", "0001:Ff:1f.7"]
OTHER = ["kernel: mlx5_core ibp12s0: Link down", "kernel: EDAC MC1: 1 UE memory read error",
         "kernel: Linux version 6.8.0 (x)", "kernel: reboot: Power down", "kernel: blink twice",
         "kernel: Power Supply PS1 failure", "kernel: ib0: link is down again", "kernel: mce: 1 UE seen",
         "kernel: Linux version x", "kernel: EDAC MC0: 2 CE memory read error", "kernel: Link downstream"]
NOISE = ["systemd[1]: Started Session 3 of User slurm.", "chronyd[812]: Selected source 10.0.0.1"]
XID = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)\): (\d+)")
TIMES = ["Mar  1 00:00:01", "Mar 12 23:59:59", "Apr  3 10:20:30"]


def _log(seed, n=3000):
    rng = np.random.default_rng(seed)
    lines = []
    for _ in range(n):
        head = f"{TIMES[int(rng.integers(3))]} {HOSTS[int(rng.integers(len(HOSTS)))]} "
        r = rng.random()
        if r < 0.5:
            code = int(rng.integers(0, 65536)) if rng.random() < 0.2 else int(rng.choice([13, 48, 79, 94]))
            sep = ", " if rng.random() < 0.8 else " "
            lines.append(head + f"kernel: [ 12.5] NVRM: Xid ({BUSES[int(rng.integers(4))]}): {code}{sep}pid=1")
        elif r < 0.7:
            lines.append(head + OTHER[int(rng.integers(len(OTHER)))])
        else:
            lines.append(head + NOISE[int(rng.integers(len(NOISE)))])
    return lines


def _reference(lines):
    """(line, node, kind-is-xid, gpu, xid, time text) of the keyword lines, read one line at a time."""
    out = []
    for i, ln in enumerate(lines):
        if not KEY.search(ln):
            continue
        msg = re.match(r"^.{15} \S+ (.*)$", ln).group(1)  # the rules read the message, not the host
        m = XID.search(msg)
        if m:
            out.append((i + 1, _host(ln), True, m.group(1).lower(), float(m.group(2)), ln[:15]))
        elif re.search(r"[Ll]ink (?:is )?[Dd]own\b|EDAC.*UE|Linux version \d|reboot: Power|Power Supply.*failure",
                       msg):
            out.append((i + 1, _host(ln), False, None, float("nan"), ln[:15]))
    return out


def _host(ln):
    return re.match(r"^.{15} (\S+) ", ln).group(1)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("trailing", ["\n", ""])
def test_numpy_and_regex_paths_equal_a_python_loop(seed, trailing):
    lines = _log(seed)
    raw = ("\n".join(lines) + trailing).encode()
    numbers, starts, picked = matching_lines(raw, KEY.pattern, "t", decode=False)
    fast, grid = syslog_records(numbers, starts, picked)
    slow = records_arrow(decode_lines(picked, numbers, "t"), numbers, starts, "rfc3164", "h", "t")
    want = _reference(lines)
    assert fast["line"].tolist() == [w[0] for w in want] == slow["line"].tolist()
    assert fast["node"].tolist() == [_host(lines[w[0] - 1]) for w in want] == slow["node"].tolist()
    assert (fast["kind"] == "xid").tolist() == [w[2] for w in want] == (slow["kind"] == "xid").tolist()
    assert fast["kind"].tolist() == slow["kind"].tolist()
    assert fast["gpu"].tolist() == [w[3] for w in want] == slow["gpu"].tolist()
    np.testing.assert_array_equal(fast["xid"].to_numpy(float), [w[4] for w in want])
    np.testing.assert_array_equal(slow["xid"].to_numpy(float), [w[4] for w in want])
    assert [bytes(r).decode() for r in grid] == [w[5] for w in want] == slow["text"].tolist()


@pytest.mark.parametrize("line", [
    "Mar  1 00:00:01 gpu\t01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=1",       # a tab in the host
    "Mar  1 00:00:01 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 1234567, pid=1",    # a code too long
    "Mar  1 00:00:01 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 99999, pid=1",      # above the largest code
    "Mar  1 00:00:01 gpu01 kernel: NVRM: Xid (PCI:0000:cb:0): 79, pid=1",          # a short bus id
    "Mar  1 00:00:01 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79x, pid=1",        # letters in the code
    "Mar 1 00:00:01 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=1",          # a one-space day
    "<6>Mar  1 00:00:01 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=1",      # a priority prefix
])
def test_numpy_path_steps_aside_on_an_unusual_line(line):
    raw = ("Mar  1 00:00:00 gpu01 kernel: Linux version 6.8.0 (x)\n" + line + "\n").encode()
    numbers, starts, picked = matching_lines(raw, KEY.pattern, "t", decode=False)
    assert syslog_records(numbers, starts, picked) is None


@pytest.mark.parametrize("n", [0, 1, 5, 9, 17, 40])
def test_gather_reads_the_bytes_slicing_reads_with_fill_past_the_end(n):
    rng = np.random.default_rng(n)
    buf = rng.integers(0, 256, n).astype(np.uint8)
    for width in [1, 3, 8, 15, 16, 20]:
        at = rng.integers(0, max(n, 1), 30) if n else np.zeros(0, int)
        pad = np.concatenate([buf, np.full(width, 7, np.uint8)])
        want = np.array([pad[a:a + width] for a in at.tolist()], np.uint8).reshape(len(at), width)
        np.testing.assert_array_equal(gather(buf, at, width, fill=7), want)
