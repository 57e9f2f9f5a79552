"""Fast passes over a kernel log's bytes: the lines worth parsing, the hosts that wrote, the edge lines.

A fleet's kernel logs are mostly lines no reader needs (service chatter,
mounts, sessions).  :func:`line_index` reads the file once as byte pairs
through a 64 Ki table: the line ends, and the few lines that may hold a
keyword (:data:`PAIRS`); :func:`matching_lines` tests those lines with the
keyword pattern: an Arrow view of the lines (no copy) tested by RE2 in C,
only the matching lines copied out; :func:`host_firsts` reads each line's
host from a 32-byte Arrow slice, keyed by distinct windows; :func:`keyword_lines` does the same with a bytes search for a
list of literals (journal exports);  :func:`gather` reads fixed-width windows
at many offsets as 8-byte words; :func:`host_set`
collects the hosts that wrote any line with numpy over the line starts (the
host sits at one column in a file of one form) and falls back to a regular
expression when the column moves.  :func:`read_bytes` reads plain or
compressed files as bytes.
"""

import gzip
import lzma
import re
import sys
import zlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import CorruptFileError, EmptyDataError, EncodingError
from .textinput import source_path

__all__ = ["read_bytes", "newlines", "line_index", "keyword_lines", "matching_lines", "decode_lines", "gather",
           "host_set", "host_firsts", "host_wrote_before", "hosts_wrote_before", "line_view", "word_codes", "HOST_PATTERNS",
           "PAIRS"]


#: Per form, a pattern whose one group is the host of a line (re.M, bytes).
HOST_PATTERNS = {
    "rfc3164": re.compile(rb"^(?:<\d{1,3}>)?[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d (\S+) ", re.M),
    "rfc5424": re.compile(rb"^<\d{1,3}>\d{1,2} \S+ (\S+) ", re.M),
    "iso": re.compile(rb"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S* (\S+) ", re.M),
    "json": re.compile(rb'"_HOSTNAME"\s*:\s*"([^"]*)"'),
}


def read_bytes(source, what="kernel log"):
    """``(data, label)``: the bytes of a path (.gz/.xz/.bz2 decompressed) or of a text, line ends "\\n"."""
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        data, label = source.encode("utf-8", "surrogateescape"), "text"
    else:
        path, opener = source_path(source, what)
        try:
            with opener(path, "rb") as fh:
                data = fh.read()
        except (EOFError, lzma.LZMAError, zlib.error, gzip.BadGzipFile, OSError) as exc:
            raise CorruptFileError(f"{path}: truncated or corrupt ({exc}); give the whole file") from None
        label = str(path)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if not data or data.isspace():
        raise EmptyDataError(f"{label}: the {what} has no lines")
    return data, label


def _decode(line, label, number):
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EncodingError(f"{label}, line {number}: not UTF-8 text (byte {exc.start}); convert it with "
                            "iconv -t UTF-8") from None


def newlines(raw):
    """Byte offsets of the line ends ("\\n") of ``raw``, as an int64 array."""
    return np.flatnonzero(np.frombuffer(raw, np.uint8) == 10)


#: Per literal that every match of one alternative of kernparse.KEY holds ("[Ll]ink (is )?[Dd]own" holds
#: "own"), two of its byte pairs: the first starts at an even place of the literal, the second at an odd one,
#: so one of them sits at an even offset of the file wherever the literal is; a line holding no pair at an
#: even offset holds no keyword.  The pairs are ones that ordinary log text seldom holds.
PAIRS = {b"NVRM: Xid": (b"Xi", b"VR"), b"own": (b"ow", b"wn"), b"EDAC": (b"AC", b"DA"), b"upply": (b"up", b"pp"),
         b"Linux version": (b"Li", b"ux"), b"reboot: ": (b"bo", b"eb"), b"systemd-shutdown": (b"d-", b"hu"),
         b"Kernel panic": (b"Ke", b"ni")}
_FLAGS = np.zeros(65536, np.uint8)  # per little-endian byte pair: 1 a keyword piece, 2 first byte "\n", 4 second
for _pair in {p for pair in PAIRS.values() for p in pair}:
    _FLAGS[_pair[0] | _pair[1] << 8] |= 1
_FLAGS[10 | np.arange(256) << 8] |= 2
_FLAGS[np.arange(256) | 10 << 8] |= 4
_FLAGS_ARROW = pa.array(_FLAGS)


def line_index(raw):
    """``(newlines, candidates)`` in one pass over ``raw``: :func:`newlines`, and the 0-based lines that may hold
    a keyword (a superset of the keyword lines: test them with the regular expression).

    The file is read as 2-byte words, each looked up in a 64 Ki table (:data:`PAIRS`, line ends): one table
    lookup per two bytes (Arrow's take, in C).
    """
    n2 = len(raw) // 2
    if sys.byteorder == "little":  # Arrow's take reads the pairs as native 2-byte words, in C
        words = pa.Array.from_buffers(pa.uint16(), n2, [None, pa.py_buffer(raw)])
        flags = pc.take(_FLAGS_ARROW, words).to_numpy(zero_copy_only=False)
    else:
        words, flags, step = np.frombuffer(raw, "<u2", n2), np.empty(n2, np.uint8), 1 << 18
        for a in range(0, n2, step):
            np.take(_FLAGS, words[a:a + step], out=flags[a:a + step], mode="clip")
    hit = np.flatnonzero(flags != 0)
    v = flags[hit]
    sel = (v & 6) != 0
    at, vv = hit[sel], v[sel]
    if (vv == 6).any() or (vv == 7).any():  # "\n\n": both bytes of a word end a line
        nl = np.sort(np.concatenate([2 * at[(vv & 2) != 0], 2 * at[(vv & 4) != 0] + 1]))
    else:
        nl = 2 * at + ((vv & 4) != 0)
    if len(raw) % 2 and raw[-1] == 10:
        nl = np.append(nl, len(raw) - 1)
    k = np.searchsorted(nl, 2 * hit[(v & 1) != 0])
    if k.size:
        k = k[np.concatenate([[True], k[1:] != k[:-1]])]
    n_lines = nl.size + (0 if nl.size and nl[-1] == len(raw) - 1 else 1)
    return nl.astype(np.int64, copy=False), k[k < n_lines]


def _positions(raw, lit):
    """Offsets of every ``lit`` in ``raw``: one C-speed split, no Python step per occurrence."""
    pieces = raw.split(lit)
    if len(pieces) == 1:
        return np.zeros(0, np.int64)
    lens = np.fromiter(map(len, pieces), np.int64, len(pieces))[:-1] + len(lit)
    return np.cumsum(lens) - len(lit)


def keyword_lines(raw, literals, label="log", nl=None):
    """``(numbers, starts, lines)``: 1-based numbers, byte offsets and text of the lines holding a literal.

    ``nl`` is :func:`newlines` of ``raw`` when the caller has it.
    """
    pos = np.unique(np.concatenate([_positions(raw, lit) for lit in literals]))
    if not pos.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), []
    nl = newlines(raw) if nl is None else nl
    k = np.unique(np.searchsorted(nl, pos, side="left"))   # 0-based line of each hit
    starts = np.where(k > 0, nl[np.maximum(k - 1, 0)] + 1, 0)
    ends = np.where(k < nl.size, nl[np.minimum(k, nl.size - 1)] if nl.size else len(raw), len(raw))
    numbers = k + 1
    chunks = [raw[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    try:
        lines = b"\n".join(chunks).decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = [_decode(c, label, n) for c, n in zip(chunks, numbers.tolist())]
    return numbers, starts, lines


def line_view(raw, nl):
    """``(offsets, lines)``: every line of ``raw`` as a pyarrow binary array viewing ``raw`` (line ends kept)."""
    offsets = np.empty(nl.size + 2, np.int64)
    offsets[0], offsets[1:-1], offsets[-1] = 0, nl + 1, len(raw)
    if offsets[-2] == len(raw):
        offsets = offsets[:-1]
    return offsets, pa.Array.from_buffers(pa.large_binary(), offsets.size - 1,
                                          [None, pa.py_buffer(offsets), pa.py_buffer(raw)])


def matching_lines(raw, pattern, label="log", nl=None, decode=True, candidates=None, view=None):
    """``(numbers, starts, lines)`` of the lines matching ``pattern`` (RE2 syntax), in one pass over ``raw``.

    The lines are an Arrow view of ``raw`` (no copy); RE2 tests each in C and
    only the matching lines are copied out: a ``pyarrow`` string array
    without line ends (:func:`decode_lines`), or with ``decode=False`` the
    binary lines as they are.  ``candidates`` (0-based lines, sorted, as
    :func:`line_index` gives) limits the test to those lines (``pattern`` None: no test); ``view`` is
    :func:`line_view` of ``raw`` when the caller has it.
    """
    nl = newlines(raw) if nl is None else nl
    offsets, every = line_view(raw, nl) if view is None else view
    if candidates is None:
        k = np.flatnonzero(pc.match_substring_regex(every, pattern).to_numpy(zero_copy_only=False))
        picked = every.take(pa.array(k))
    else:
        some = every.take(pa.array(candidates))
        if pattern is None:  # the candidates as they are
            hit = np.arange(len(some))
        else:
            hit = np.flatnonzero(pc.match_substring_regex(some, pattern).to_numpy(zero_copy_only=False))
        k = np.asarray(candidates, np.int64)[hit]
        picked = some if hit.size == len(some) else some.take(pa.array(hit))
    return k + 1, offsets[k], (decode_lines(picked, k + 1, label) if decode else picked)


def decode_lines(picked, numbers, label="log"):
    """Binary lines (pyarrow) as UTF-8 strings without their line ends; a line that is not UTF-8 is named."""
    try:
        return pc.utf8_rtrim(picked.cast(pa.large_string()), characters="\n")
    except pa.ArrowInvalid:
        for b, n in zip(picked.to_pylist(), np.asarray(numbers).tolist()):
            _decode(b, label, n)
        raise


def gather(buf, at, width, fill=0):
    """(len(at), width) bytes of ``buf`` (uint8) from each offset, read as 8-byte words (``fill`` past the end)."""
    w8 = -(-width // 8)
    at = np.asarray(at, np.int64)
    out = np.full((at.size, w8), int.from_bytes(bytes([fill]) * 8, "little"), np.uint64)
    safe = at + 8 * w8 <= buf.size
    if buf.size >= 8 and safe.any():
        words = np.ndarray(shape=(buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))  # a word at every byte
        rows = words[at[safe, None] + np.arange(0, 8 * w8, 8)]  # row by row: one pass over the memory
        if safe.all():
            out = rows
        else:
            out[safe] = rows
    if not safe.all():  # the rows that reach the end of the buffer: from a padded copy of its last bytes
        lo = max(int(at[~safe].min()), 0)
        tail = np.concatenate([buf[lo:], np.full(8 * w8, fill, np.uint8)])
        idx = np.clip(at[~safe, None] - lo + np.arange(8 * w8), 0, tail.size - 1)
        out[~safe] = np.ascontiguousarray(tail[idx]).view(np.uint64)
    return out.view(np.uint8)[:, :width]


def _line_starts(data, nl=None):
    nl = newlines(data) if nl is None else nl
    starts = np.concatenate([[0], nl + 1])
    return starts[starts < len(data)]


def _host_column(buf, starts, fmt):
    """``(rows in the form, host column)``; column None when it moves from line to line."""
    head = gather(buf, starts, 16, fill=32)
    if fmt == "rfc3164":
        ok = (head[:, 3] == 32) & (head[:, 15] == 32) & (head[:, 0] >= 65) & (head[:, 0] <= 90)
        return starts[ok], 16
    ok = ((head[:, :4] >= 48) & (head[:, :4] <= 57)).all(axis=1)
    rows = starts[ok]
    if not rows.size:
        return rows, 16
    first = bytes(buf[rows[0]:rows[0] + 64])
    col = first.find(b" ") + 1
    if col <= 1 or (gather(buf, rows + col - 1, 1, fill=32)[:, 0] != 32).any():
        return rows, None
    return rows, col


_LOW = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [(1 << 64) - 1], np.uint64)  # the low i bytes of a word


def word_codes(words):
    """``(codes, first)`` of the rows of ``words`` ((n, k) uint64) by a hash of each row (no sort of every
    row): ``codes`` numbers the distinct hashes in order of appearance, ``first[c]`` is the first row of code
    ``c``.  Two rows with one hash share a code; a caller that must know compares ``words[first][codes]``."""
    h = words[:, 0].copy()
    with np.errstate(over="ignore"):
        for j in range(1, words.shape[1]):
            h = h * np.uint64(1_000_003) ^ words[:, j]
    codes, _ = pd.factorize(h)
    first = np.zeros(codes.max(initial=-1) + 1, np.int64)
    first[codes[::-1]] = np.arange(codes.size)[::-1]
    return codes, first


def _fixed_column_hosts(data, starts, fmt, width=16):
    """Hosts when every line in the form puts its host at one column; None when the column moves."""
    buf = np.frombuffer(data, np.uint8)
    if fmt == "rfc3164":  # the time and the host in one gather: one pass over the file's memory
        head = gather(buf, starts, 16 + width, fill=32)
        ok = (head[:, 3] == 32) & (head[:, 15] == 32) & (head[:, 0] >= 65) & (head[:, 0] <= 90)
        rows, col, win = starts[ok], 16, head[:, 16:]
        if not ok.all():
            win = win[ok]
    else:
        rows, col = _host_column(buf, starts, fmt)
        if col is None:
            return None
        win = gather(buf, rows + col, width, fill=32)
    if not rows.size:
        return set()
    stop = (win == 32) | (win == 10)
    length = np.argmax(stop, axis=1)
    if (length == 0).any():
        return None  # no host at the column
    if not stop[np.arange(len(rows)), length].all():
        return _fixed_column_hosts(data, starts, fmt, width * 2) if width < 64 else None
    words = np.ascontiguousarray(win).view(np.uint64)
    words = words & _LOW[np.clip(length[:, None] - 8 * np.arange(words.shape[1]), 0, 8)]
    _, first = word_codes(words)
    return {words[i].tobytes().rstrip(b"\0").decode("utf-8", "replace") for i in first.tolist()}


def _syslog_hosts(every, starts):
    """``(hosts, firsts)`` of an RFC 3164 file from the first 32 bytes of every line; None when a line is
    shorter or a host longer than the quick reading takes (the caller then reads the hosts otherwise).

    The 16 bytes after the time of each line are one key; the distinct keys (a host and what follows it) are
    few, and only they are read as names.  ``firsts`` gives, per host, the start of its first line where a
    space follows it.
    """
    n = len(every)
    cut = pc.binary_slice(every, 0, 32)
    off = np.frombuffer(cut.buffers()[1], np.int64)[cut.offset:cut.offset + n + 1]
    if not n or off[-1] - off[0] != 32 * n:
        return None
    grid = np.frombuffer(cut.buffers()[2], np.uint8)[off[0]:off[-1]].reshape(n, 32)
    ok = (grid[:, 3] == 32) & (grid[:, 15] == 32) & (grid[:, 0] >= 65) & (grid[:, 0] <= 90)
    rows = np.flatnonzero(ok) if not ok.all() else np.arange(n)
    if not rows.size:
        return set(), {}
    words = grid.view(np.uint64)
    w2, w3 = (words[rows, 2], words[rows, 3]) if rows.size < n else (words[:, 2], words[:, 3])
    with np.errstate(over="ignore"):
        codes, _ = pd.factorize(w2 * np.uint64(1_000_003) ^ w3)  # hash-based: no sort of every line
    first = np.zeros(codes.max() + 1, np.int64)
    first[codes[::-1]] = np.arange(codes.size)[::-1]
    if not ((w2 == w2[first][codes]) & (w3 == w3[first][codes])).all():
        return None  # two keys with one hash
    rep = grid[rows[first], 16:]
    stop = (rep == 32) | (rep == 10)
    length = np.argmax(stop, axis=1)
    if not stop[np.arange(len(rep)), length].all() or (length == 0).any():
        return None
    hosts, firsts = set(), {}
    at = starts[rows[first]].tolist()
    for r, k, p in zip(rep, length.tolist(), at):
        name = bytes(r[:k]).decode("utf-8", "replace")
        hosts.add(name)
        if r[k] == 32 and p < firsts.get(name, p + 1):
            firsts[name] = p
    return hosts, firsts


def host_firsts(raw, fmt, host, nl=None, view=None):
    """``(hosts, firsts)``: :func:`host_set`, and per host the start of its first line in the form where a
    space follows the host (None when not read; ``view`` is :func:`line_view` of ``raw`` when at hand)."""
    if fmt == "rfc3164" and not raw.startswith(b"<"):
        offsets, every = line_view(raw, newlines(raw) if nl is None else nl) if view is None else view
        found = _syslog_hosts(every, offsets)
        if found is not None:
            return found
    return host_set(raw, fmt, host, nl), None


def host_set(raw, fmt, host, nl=None):
    """The hosts that wrote a line in the form ``fmt`` (``{host}`` for a dmesg log of one host)."""
    if fmt == "dmesg":
        return {host} if re.search(rb"^\[[A-Z][a-z]{2} ", raw, re.M) else set()
    if fmt in ("rfc3164", "iso") and not raw.startswith(b"<"):
        with np.errstate(over="ignore"):
            found = _fixed_column_hosts(raw, _line_starts(raw, nl), fmt)
        if found is not None:
            return found
    return {h.decode("utf-8", "replace") for h in set(HOST_PATTERNS[fmt].findall(raw))}


def host_wrote_before(raw, fmt, host, pos):
    """Whether ``host`` wrote a line in the form before byte ``pos`` (the start of one of its lines)."""
    if fmt == "dmesg":
        return pos > 0
    name = host.encode("utf-8")
    needle = b'"' + name + b'"' if fmt == "json" else b" " + name + b" "
    return raw.find(needle, 0, pos) >= 0


SEARCH_OVER, SEARCH_MIN = 16, 1 << 20  #: searches per host while they read under 16 times the bytes (+ 1 MiB)


def hosts_wrote_before(raw, fmt, wants):
    """``{host: whether it wrote before byte p}`` for ``wants`` ``{host: p}``, as :func:`host_wrote_before`
    of each; when one search per host would read the start of the file many times over (a fleet's log that
    opens with every node's boot), one pass over the words between spaces before the last ``p`` instead."""
    top = max(wants.values(), default=0)
    if fmt in ("dmesg", "json") or sum(wants.values()) <= SEARCH_OVER * top + SEARCH_MIN:
        return {h: host_wrote_before(raw, fmt, h, p) for h, p in wants.items()}
    head = np.frombuffer(raw, np.uint8, top)
    sp = np.flatnonzero(head == 32)  # " host " is a word between two neighbouring spaces
    size = np.diff(sp) - 1
    names = {h: h.encode("utf-8") for h in wants}
    out = {}
    for n in sorted({len(b) for b in names.values()}):
        at = sp[:-1][size == n]
        mine = [h for h, b in names.items() if len(b) == n]
        if not n:
            out.update({h: host_wrote_before(raw, fmt, h, wants[h]) for h in mine})
            continue
        if not at.size:
            out.update(dict.fromkeys(mine, False))
            continue
        words = np.ascontiguousarray(head[at[:, None] + 1 + np.arange(n)]).view(f"V{n}").ravel()
        uniq, first = np.unique(words, return_index=True)
        want = np.frombuffer(b"".join(names[h] for h in mine), f"V{n}")
        k = np.minimum(np.searchsorted(uniq, want), uniq.size - 1)
        hit = (uniq[k] == want) & (at[first[k]] + n + 2 <= np.array([wants[h] for h in mine]))
        out.update(zip(mine, hit.tolist()))
    return out
