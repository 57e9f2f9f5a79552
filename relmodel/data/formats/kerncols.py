"""Column-wise parsing of classic syslog keyword lines with numpy: time, host, Xid bus id and code.

When a file is ASCII and in the RFC 3164 form, each keyword line has its
time in bytes 0-14 and its host from byte 16 to the next space; an Xid
message has its bus id and code at fixed places after ``NVRM: Xid``.
:func:`syslog_records` reads those bytes for all lines at once (gathers of
small windows of the file, hashing for the distinct hosts and bus ids), so
no Python object is made per line.  Whenever a line is not exactly in the
common shape it returns None and the caller uses the regular-expression
path (:func:`~relmodel.data.formats.kernparse.records_arrow`), which names the line
or reads the unusual form; tests check both paths give equal records.
"""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .kernparse import MAX_XID
from .xid import BOOT, KERNEL_EVENTS, SHUTDOWN
from .kernscan import gather as _gather

__all__ = ["syslog_records"]

_SPACES = np.zeros(256, bool)
_SPACES[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True  # str.isspace of the ASCII bytes
_DIGIT = np.zeros(256, bool)
_DIGIT[48:58] = True
_HEX = _DIGIT.copy()
_HEX[list(b"abcdefABCDEF")] = True


def _names(win, length):
    """(codes, names) of the first ``length`` bytes of each row of ``win``: one decode per distinct name."""
    win = np.pad(win, ((0, 0), (0, (-win.shape[1]) % 8)))
    win[np.arange(win.shape[1])[None, :] >= length[:, None]] = 0
    words = win.view(np.uint64)
    h = words[:, 0].copy()
    with np.errstate(over="ignore"):
        for j in range(1, words.shape[1]):
            h = h * np.uint64(1_000_003) ^ words[:, j]
    codes, _ = pd.factorize(h)
    first = np.zeros(codes.max(initial=-1) + 1, np.int64)
    first[codes[::-1]] = np.arange(codes.size)[::-1]
    if not (win == win[first[codes]]).all():  # two names with one hash: sort the rows instead
        _, first, codes = np.unique(win, axis=0, return_index=True, return_inverse=True)
        codes = codes.ravel()
    return codes, np.array([bytes(win[i, :length[i]]).decode("ascii") for i in first.tolist()], object)


# The kinds of other kernel lines in the order of kernparse.other_kind, searched in the message (after the
# time and host) with RE2; on ASCII text RE2's \b, \w and \d mean what Python's do.
_KINDS = [(name, f"^.{{16}}[^ ]+ .*?(?:{pattern.pattern})") for name, (pattern, *_rest) in KERNEL_EVENTS.items()]
_KINDS += [("boot", f"^.{{16}}[^ ]+ .*?(?:{BOOT.pattern})"), ("shutdown", f"^.{{16}}[^ ]+ .*?(?:{SHUTDOWN.pattern})")]


def _other_kinds(lines):
    """The kind of each line (None when it reports nothing), first pattern first."""
    kind = np.full(len(lines), None, object)
    for name, pattern in _KINDS:
        hit = pc.match_substring_regex(lines, pattern).to_numpy(zero_copy_only=False) & (kind == None)  # noqa: E711
        kind[hit] = name
    return kind


def _time_ok(t):
    up, low = (t >= 65) & (t <= 90), (t >= 97) & (t <= 122)
    d = _DIGIT[t]
    return (up[:, 0] & low[:, 1] & low[:, 2] & (t[:, 3] == 32) & ((t[:, 4] == 32) | d[:, 4]) & d[:, 5]
            & (t[:, 6] == 32) & d[:, 7] & d[:, 8] & (t[:, 9] == 58) & d[:, 10] & d[:, 11] & (t[:, 12] == 58)
            & d[:, 13] & d[:, 14] & (t[:, 15] == 32))


def _xid(buf, pos, ends):
    """(bus window, bus length, code) at ``pos`` (just after "NVRM: Xid"); None when a line is unusual."""
    w = _gather(buf, pos, 20)
    pci = (w[:, 2] == 80) & (w[:, 3] == 67) & (w[:, 4] == 73) & (w[:, 5] == 58)
    at = pos + 2 + 4 * pci
    b = _gather(buf, at, 15)
    h = _HEX[b]
    ok = (w[:, 0] == 32) & (w[:, 1] == 40) & h[:, :4].all(1) & (b[:, 4] == 58) & h[:, 5:7].all(1) & (b[:, 7] == 58)
    ok &= h[:, 8:10].all(1)
    blen = np.where((b[:, 10] == 46) & h[:, 11], 12, 10)
    tail = _gather(buf, at + blen, 3)
    ok &= (tail[:, 0] == 41) & (tail[:, 1] == 58) & (tail[:, 2] == 32)
    cpos = at + blen + 3
    c = _gather(buf, cpos, 8)
    d = _DIGIT[c]
    run = np.argmin(d, axis=1)
    stop = c[np.arange(len(c)), run]
    ok &= (run >= 1) & (run <= 6) & ((cpos + run >= ends) | (_SPACES[stop] | (stop == 44))) & (cpos + run <= ends)
    if not ok.all():
        return None
    val = np.zeros(len(c), np.int64)
    for j in range(6):
        val = np.where(j < run, val * 10 + (c[:, j].astype(np.int64) - 48), val)
    if val.size and val.max() > MAX_XID:
        return None
    low = np.where((b >= 65) & (b <= 70), b + 32, b).astype(np.uint8)
    return low, blen, val


def syslog_records(numbers, starts, picked):
    """``(rec, time grid)`` of RFC 3164 keyword lines of an ASCII file, or None (use the regex path).

    ``picked`` is the lines as a pyarrow binary array (line ends kept), ``starts`` their offsets in the file.
    """
    if not len(picked):
        return None
    # the picked lines lie end to end in one Arrow buffer: small and read in order, unlike the whole file
    off = np.frombuffer(picked.buffers()[1], np.int64)[picked.offset:picked.offset + len(picked) + 1]
    buf = np.frombuffer(picked.buffers()[2], np.uint8)[:off[-1]]
    s = off[:-1]
    ends = off[1:] - (buf[off[1:] - 1] == 10)
    head = _gather(buf, s, 48)  # the time (16 bytes) and the host (up to 31) in one gather
    t, hw = head[:, :16], head[:, 16:]
    sp = _SPACES[hw]
    if not sp.any(axis=1).all():  # a host of 32 characters or more
        hw = _gather(buf, s + 16, 64)
        sp = _SPACES[hw]
    hl = np.argmax(sp, axis=1)
    if not (_time_ok(t).all() and (hw[np.arange(len(hw)), hl] == 32).all() and (hl >= 1).all()
            and (s + 16 + hl < ends).all()):
        return None
    node_codes, node_names = _names(hw, hl)
    at = pc.find_substring(picked, "NVRM: Xid").to_numpy(zero_copy_only=False).astype(np.int64)
    xi, other = np.flatnonzero(at >= 0), np.flatnonzero(at < 0)
    n = s.size
    kind, gpu, xid = np.full(n, None, object), np.full(n, None, object), np.full(n, np.nan)
    if xi.size:
        found = _xid(buf, s[xi] + at[xi] + 9, ends[xi])
        if found is None:
            return None
        bus, blen, code = found
        bus_codes, bus_names = _names(bus, blen)
        kind[xi], gpu[xi], xid[xi] = "xid", bus_names[bus_codes], code
    if other.size:
        kind[other] = _other_kinds(picked.take(pa.array(other)))
    keep = np.flatnonzero(kind != None)  # noqa: E711 (elementwise)
    rec = pd.DataFrame({"line": np.asarray(numbers)[keep], "byte": np.asarray(starts, np.int64)[keep],
                        "node": node_names[node_codes[keep]], "kind": kind[keep], "gpu": gpu[keep], "xid": xid[keep]})
    return rec, t[keep, :15]
