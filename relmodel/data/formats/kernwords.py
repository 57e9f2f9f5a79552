"""Byte words of a classic syslog block read column-wise: the masks and codes :mod:`.kernstream` tests whole
columns of lines with (the time's digits and separators, the month, the writer's tag, the host's bytes).

Each line's first bytes are read as little-endian 64-bit words; a mask picks the bytes a rule looks at and a
code says what they must hold, so one numpy comparison tests a rule on every line of a block.  Also the
byte-level clean-up of a block before it is read: line ends made "\\n", the NUL padding that begins a line taken out.
"""

import lzma
import re
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .kernlines import KEY_RE2, MAX_XID, MONTHS, XID_RE2

__all__ = []

_KEY_B = re.compile(KEY_RE2.encode())
_BROKEN = (EOFError, OSError, ValueError, lzma.LZMAError, zlib.error)  # what a truncated or corrupt file raises
_BLANK = re.compile(rb"\s*")
_LOW = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], np.uint64)
_SIX = np.uint64((1 << 48) - 1)
_KERNEL = np.frombuffer(b"kernel\0\0", "<u8")[0]
_SYSTEMD = np.frombuffer(b"systemd-", "<u8")[0]
_SHUTDOWN = np.frombuffer(b"shutdown", "<u8")[0]
_MONTH_CODES = {int.from_bytes(k, "little"): v for k, v in MONTHS.items()}
_MKEYS = np.array(sorted(_MONTH_CODES), np.uint64)
_MVALS = np.array([_MONTH_CODES[int(k)] for k in _MKEYS], np.int64)


def _keyed(ba, n, count):
    """The 0-based lines of a block that match :data:`KEY_RE2` (RE2 over an Arrow view of the lines), a set."""
    buf = np.frombuffer(ba, np.uint8, n)
    off = np.empty(count + 1, np.int64)
    nl = np.flatnonzero(buf == 10)[:count]
    off[0], off[1:nl.size + 1] = 0, nl + 1
    if nl.size < count:
        off[-1] = n
    view = pa.Array.from_buffers(pa.large_binary(), count, [None, pa.py_buffer(off), pa.py_buffer(ba)])
    return set(np.flatnonzero(pc.match_substring_regex(view, KEY_RE2).to_numpy(zero_copy_only=False)).tolist())


def _xids(msgs):
    """``(gpu, xid, usual)`` of messages (Arrow binary, after the host): the usual kernel Xid line (one "NVRM: Xid",
    a code up to MAX_XID) read with RE2 as :func:`~.kernlines.line_record` reads it; any other is for line_record."""
    x = pc.extract_regex(msgs, XID_RE2)
    bus, code = (f.cast(pa.string()) for f in x.flatten())
    code = code.fill_null("0").cast(pa.int64()).to_numpy()
    usual = pc.and_(x.is_valid(), pc.equal(pc.count_substring(msgs, "NVRM: Xid"), 1)).to_numpy(False)
    usual &= code <= MAX_XID
    return pc.replace_substring_regex(pc.utf8_lower(bus), r"\.0$", "").to_pylist(), code, usual


def _month(w0):
    """Month (1-12, 0 unknown) of each line from its first word."""
    key = w0 & np.uint64(0xFFFFFF)
    at = np.minimum(np.searchsorted(_MKEYS, key), _MKEYS.size - 1)
    return np.where(_MKEYS[at] == key, _MVALS[at], 0)


def _masks(spec):
    m = v = 0
    for i, (a, b) in spec.items():
        m, v = m | a << 8 * i, v | b << 8 * i
    return np.uint64(m), np.uint64(v)


_DIGITS = (5, 7, 8, 10, 11, 13, 14)  # the time's digits; 3, 6, 15 spaces, 9, 12 colons; 4 a digit or space
_BYTES = {**{i: (0xF0, 0x30) for i in _DIGITS}, **{i: (0xFF, c) for i, c in zip((3, 6, 9, 12, 15), b"  :: ")}}
_SHAPE = [_masks({i - 8 * w: mv for i, mv in _BYTES.items() if 8 * w <= i < 8 * w + 8}) for w in (0, 1)]
_LOWN = [_masks({i - 8 * w: (0x0F, 0x06) for i in _DIGITS if 8 * w <= i < 8 * w + 8}) for w in (0, 1)]
_SIXTEEN = [_masks({i - 8 * w: (0x10, 0x10) for i in _DIGITS if 8 * w <= i < 8 * w + 8})[1] for w in (0, 1)]


def _time_ok(rows):
    """Whether bytes 0-15 of each line are ``Mmm dd hh:mm:ss `` with ASCII digits (whole-word tests)."""
    ok = np.ones(rows.shape[0], bool)
    for w in (0, 1):
        x = rows[:, w]
        ok &= ((x & _SHAPE[w][0]) == _SHAPE[w][1]) & (((x & _LOWN[w][0]) + _LOWN[w][1]) & _SIXTEEN[w] == 0)
    c4 = (rows[:, 0] >> np.uint64(32)) & np.uint64(255)
    return ok & ((c4 == 32) | (c4 - np.uint64(48) <= np.uint64(9)))


def _host_words(grid, rows, width):
    """``(length, words)`` of the host in the ``width`` bytes from byte 16: the bytes before the first byte at or
    below a space, and its words with every byte from that one on set to 0."""
    hl = np.argmax(grid[:, 16:16 + width] <= 32, axis=1)
    return hl, rows[:, 2:2 + width // 8] & _KEEP[width].take(hl, axis=0)


#: per window and host length, the masks of the window's words
_KEEP = {w: _LOW[np.clip(np.arange(w + 1)[:, None] - 8 * np.arange(w // 8), 0, 8)] for w in (32, 64)}


def _unpadded(ba, n):
    """``ba[:n]`` without the NUL bytes that begin a line (the padding an unclean shutdown leaves in a syslog,
    often with no line end before the next line); the new length.  NUL inside a line (a host name) is kept."""
    if not n or (ba[0] != 0 and ba.find(b"\n\x00", 0, n) < 0):
        return n
    data = re.sub(rb"(?m)^\x00+", b"", bytes(ba[:n]))
    ba[:len(data)] = data
    return len(data)


def _crlf(ba, n, more):
    """Line ends "\\r\\n" and "\\r" made "\\n" in ``ba[:n]`` (a last "\\r" kept when more may follow); the new
    length."""
    keep = more and ba[n - 1] == 13
    data = bytes(ba[:n - keep]).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    ba[:len(data)] = data
    if keep:
        ba[len(data)] = 13
    return len(data) + keep
