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
from .kernscan import _LOW, gather as _gather, word_codes

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
    codes, first = word_codes(win.view(np.uint64))
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


def _word_masks(spec):
    """(mask, value) little-endian words over 8 bytes: ``spec`` maps a byte's place to its (mask, value)."""
    m = v = 0
    for i, (a, b) in spec.items():
        m, v = m | a << 8 * i, v | b << 8 * i
    return np.uint64(m), np.uint64(v)


_DIGITS = (5, 7, 8, 10, 11, 13, 14)  # places of the time's digits; 3, 6, 15 spaces, 9, 12 colons
_HIGH = [_word_masks({i - 8 * w: (0xF0, 0x30) for i in _DIGITS if 8 * w <= i < 8 * w + 8}) for w in (0, 1)]
_LOWN = [_word_masks({i - 8 * w: (0x0F, 0x06) for i in _DIGITS if 8 * w <= i < 8 * w + 8}) for w in (0, 1)]
_SIXTEEN = [_word_masks({i - 8 * w: (0x10, 0x10) for i in _DIGITS if 8 * w <= i < 8 * w + 8})[1] for w in (0, 1)]
_FIXED = [_word_masks({i - 8 * w: (0xFF, c) for i, c in {3: 32, 6: 32, 9: 58, 12: 58, 15: 32}.items()
                       if 8 * w <= i < 8 * w + 8}) for w in (0, 1)]


def _time_ok_words(head):
    """:func:`_time_ok` of the first 16 bytes of each row of ``head`` (whole 8-byte words: a few operations
    per word instead of one per byte)."""
    words = head[:, :16].view("<u8") if head.flags.c_contiguous else np.ascontiguousarray(head[:, :16]).view("<u8")
    ok = np.ones(len(head), bool)
    for w in (0, 1):
        x = words[:, w]
        ok &= (x & _HIGH[w][0]) == _HIGH[w][1]  # a digit's high half is 3
        ok &= ((x & _LOWN[w][0]) + _LOWN[w][1]) & _SIXTEEN[w] == 0  # its low half under 10 (no carry out)
        ok &= (x & _FIXED[w][0]) == _FIXED[w][1]
    c0, c1, c2, c4 = head[:, 0], head[:, 1], head[:, 2], head[:, 4]
    return (ok & (c0 >= 65) & (c0 <= 90) & (c1 >= 97) & (c1 <= 122) & (c2 >= 97) & (c2 <= 122)
            & ((c4 == 32) | ((c4 >= 48) & (c4 <= 57))))


def _hashed_names(win, length):
    """(codes, names) of the first ``length`` bytes of each row of ``win`` ((n, 8k) bytes, ASCII), from
    whole words masked to the length; None when two names share a hash."""
    words = win.view("<u8") if win.flags.c_contiguous else np.ascontiguousarray(win).view("<u8")
    words = words & _LOW[np.clip(length[:, None] - 8 * np.arange(words.shape[1]), 0, 8)]
    codes, first = word_codes(words)
    if not (words == words[first][codes]).all():
        return None
    return codes, np.array([words[i].tobytes()[:length[i]].decode("ascii") for i in first.tolist()], object)


def _quick_nodes(head, s, ends):
    """(node codes, names) of keyword lines whose time and host read in the first 48 bytes; None otherwise."""
    hw = head[:, 16:48]
    stop = hw <= 32
    hl = np.argmax(stop, axis=1)
    if not ((hw[np.arange(len(hw)), hl] == 32).all() and (hl >= 1).all() and (s + 16 + hl < ends).all()
            and _time_ok_words(head).all()):
        return None
    found = _hashed_names(hw, hl)
    return None if found is None else (*found, hl)


def _time_ok(t):
    up, low = (t >= 65) & (t <= 90), (t >= 97) & (t <= 122)
    d = _DIGIT[t]
    return (up[:, 0] & low[:, 1] & low[:, 2] & (t[:, 3] == 32) & ((t[:, 4] == 32) | d[:, 4]) & d[:, 5]
            & (t[:, 6] == 32) & d[:, 7] & d[:, 8] & (t[:, 9] == 58) & d[:, 10] & d[:, 11] & (t[:, 12] == 58)
            & d[:, 13] & d[:, 14] & (t[:, 15] == 32))


_LOWER = np.arange(256, dtype=np.uint8)
_LOWER[65:71] += 32  # A-F as a-f


def _parse_xid(w, rel):
    """(bus window (16 bytes, lower case), bus length, code) of 32-byte windows ``w`` that start just after
    "NVRM: Xid" (``rel``: where each line ends, from the window's start); None when a line is unusual."""
    pci = (w[:, 2] == 80) & (w[:, 3] == 67) & (w[:, 4] == 73) & (w[:, 5] == 58)
    b = np.where(pci[:, None], w[:, 6:22], w[:, 2:18])  # the bytes from the bus id on
    h = _HEX[b[:, :12]]
    ok = (w[:, 0] == 32) & (w[:, 1] == 40) & h[:, :4].all(1) & (b[:, 4] == 58) & h[:, 5:7].all(1) & (b[:, 7] == 58)
    ok &= h[:, 8:10].all(1)
    blen = np.where((b[:, 10] == 46) & h[:, 11], 12, 10)
    o = 2 + 4 * pci + blen  # where "): " is in the window
    tail = np.take_along_axis(w, o[:, None] + np.arange(3), 1)
    ok &= (tail[:, 0] == 41) & (tail[:, 1] == 58) & (tail[:, 2] == 32)
    cpos = o + 3
    c = np.take_along_axis(w, cpos[:, None] + np.arange(8), 1)
    d = _DIGIT[c]
    run = np.argmin(d, axis=1)
    stop = c[np.arange(len(c)), run]
    ok &= (run >= 1) & (run <= 6) & ((cpos + run >= rel) | (_SPACES[stop] | (stop == 44))) & (cpos + run <= rel)
    if not ok.all():
        return None
    val = np.zeros(len(c), np.int64)
    for j in range(6):
        val = np.where(j < run, val * 10 + (c[:, j].astype(np.int64) - 48), val)
    if val.size and val.max() > MAX_XID:
        return None
    return _LOWER[b], blen, val


_SEP = _SPACES.copy()
_SEP[44] = True  # what may end an Xid code: white space or a comma


def _xid(buf, pos, ends):
    """(bus id names, code) of each Xid line, ``pos`` just after its "NVRM: Xid"; None when a line is unusual.

    One 32-byte window per line; the windows are keyed by their bytes up to the first separator after the
    bus id (what the reading depends on: the process id and message after it are not), and only the distinct
    keys, a few per GPU and code, are read by :func:`_parse_xid`.
    """
    w = _gather(buf, pos, 32)
    rel = np.minimum(ends - pos, 40)
    pci = (w[:, 2] == 80) & (w[:, 3] == 67) & (w[:, 4] == 73) & (w[:, 5] == 58)
    dot = np.where(pci, w[:, 16], w[:, 12]) == 46
    o = 2 + 4 * pci + np.where(dot & _HEX[np.where(pci, w[:, 17], w[:, 13])], 12, 10)
    sep = _SEP[w] & (np.arange(32) >= o[:, None] + 3)
    size = np.where(sep.any(axis=1), np.argmax(sep, axis=1) + 1, 32)
    words = w.view("<u8") & _LOW[np.clip(size[:, None] - 8 * np.arange(4), 0, 8)]
    with np.errstate(over="ignore"):
        h = ((words[:, 0] * np.uint64(1_000_003) ^ words[:, 1]) * np.uint64(1_000_003) ^ words[:, 2]) \
            * np.uint64(1_000_003) ^ words[:, 3] ^ rel.astype(np.uint64) << np.uint64(58)
    codes, _ = pd.factorize(h)
    first = np.zeros(codes.max(initial=-1) + 1, np.int64)
    first[codes[::-1]] = np.arange(codes.size)[::-1]
    if not ((words == words[first][codes]).all() and (rel == rel[first][codes]).all()):
        return None  # two keys with one hash
    found = _parse_xid(w[first], rel[first])
    if found is None:
        return None
    bus, blen, val = found
    names = _hashed_names(bus, blen) or _names(bus[:, :15], blen)
    return names[1][names[0]][codes], val[codes]


_KERNEL_XID = np.frombuffer(b"kernel: NVRM: Xid" + b"\0" * 7, "<u8")  # the usual message start, 3 words


def _xid_at(buf, s, hl, picked):
    """Where "NVRM: Xid" starts in each line (-1: nowhere): right after "kernel: " in the usual line (read
    as three words after the host, ``hl`` its length), else searched in the line."""
    at = np.full(s.size, -1, np.int64)
    rest = np.arange(s.size)
    if hl is not None:
        w = _gather(buf, s + 17 + hl, 24).view("<u8")
        usual = (w[:, 0] == _KERNEL_XID[0]) & (w[:, 1] == _KERNEL_XID[1]) & ((w[:, 2] & np.uint64(255)) == _KERNEL_XID[2])
        at[usual] = 25 + hl[usual]
        rest = np.flatnonzero(~usual)
    if rest.size:
        some = picked if rest.size == s.size else picked.take(pa.array(rest))
        at[rest] = pc.find_substring(some, "NVRM: Xid").to_numpy(zero_copy_only=False)
    return at


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
    t = head[:, :16]
    quick = _quick_nodes(head, s, ends)
    hl = None if quick is None else quick[2]
    if quick is None:  # a host of 32 characters or more, or a line to look at byte by byte
        hw = head[:, 16:]
        sp = _SPACES[hw]
        if not sp.any(axis=1).all():
            hw = _gather(buf, s + 16, 64)
            sp = _SPACES[hw]
        hl = np.argmax(sp, axis=1)
        if not (_time_ok(t).all() and (hw[np.arange(len(hw)), hl] == 32).all() and (hl >= 1).all()
                and (s + 16 + hl < ends).all()):
            return None
        quick = _names(hw, hl)
    node_codes, node_names = quick[:2]
    at = _xid_at(buf, s, hl, picked)
    xi, other = np.flatnonzero(at >= 0), np.flatnonzero(at < 0)
    n = s.size
    kind, gpu, xid = np.full(n, None, object), np.full(n, None, object), np.full(n, np.nan)
    if xi.size:
        found = _xid(buf, s[xi] + at[xi] + 9, ends[xi])
        if found is None:
            return None
        kind[xi], gpu[xi], xid[xi] = "xid", found[0], found[1]
    if other.size:
        kind[other] = _other_kinds(picked.take(pa.array(other)))
    keep = np.flatnonzero(kind != None)  # noqa: E711 (elementwise)
    rec = pd.DataFrame({"line": np.asarray(numbers)[keep], "byte": np.asarray(starts, np.int64)[keep],
                        "node": node_names[node_codes[keep]], "kind": kind[keep], "gpu": gpu[keep], "xid": xid[keep]})
    return rec, t[keep, :15]
