"""One streaming pass over a kernel log file: records of the lines that report something, every host's
first and last line, the year of each line, in bounded memory.

:func:`scan_file` reads a file (plain, .gz, .xz, .bz2) or a text in blocks of :data:`BLOCK` bytes cut at
line ends, so memory stays a few blocks whatever the file's size; a line longer than :data:`MAX_LINE`
(a decompression bomb, a binary file) is a :class:`~relmodel.errors.KernelLogError`.  Each block of a
classic syslog is read column-wise with numpy when its lines are in the common shape (the time in bytes
0-14, a host of under 64 bytes from byte 16; a few blank or foreign lines are passed over): hosts keyed
exactly by their bytes (Arrow's hash table compares whole values), the months of every line for the
year, the lines the kernel or ``systemd-shutdown`` wrote tested with RE2; any other block is read line by
line with the same rules (:mod:`~relmodel.data.formats.kernlines`).  Tests hold both readings equal.

A classic syslog does not write years: each line's year is counted from the order of **all** lines (a
month that falls by more than six starts the next year); the scan keeps those offsets, and
:func:`finish` gives the times once the year of the first line is known (a folder places its files
first).  The result is a plain dict that pickles, so a folder's files can be scanned in parallel.
"""

import codecs
import io
import os
from datetime import datetime
from itertools import compress, repeat
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from numpy.lib.stride_tricks import as_strided

from ...base.progress import steps
from ...errors import CorruptFileError, EmptyDataError, EncodingError, KernelLogError
from .kernlines import (FORMATS, KEY_RE2, LINE, MONTHS, epoch_unit, json_fields, line_record, other_times, place_years,
                        sniff_format, syslog_times, writer_of)
from .kernwords import (_BLANK, _BROKEN, _KERNEL, _KEY_B, _SHUTDOWN, _SIX, _SYSTEMD, _crlf, _host_words, _keyed,
                        _month, _time_ok, _unpadded, _xids)
from .textinput import source_path

__all__ = ["scan_file", "finish", "first_time", "placed_years", "BLOCK", "MAX_LINE"]

BLOCK = 16 << 20  #: bytes read at a time
MAX_LINE = 16 << 20  #: a line longer than this is no log line
_PAD = 128  # zero bytes after a block: a line's 88-byte window may run past the block's end
_STEP = 1 << 20  # bytes searched for line ends at a time (a small temporary)


class _Years:
    """Year offsets from the first line's year: a month that falls by more than six starts the next year; a
    month more than six above the last (while a year has turned) is a late line of the old year."""

    def __init__(self):
        self.offset, self.last, self.most = 0, None, 0

    def step(self, m):
        if self.last is None:
            self.last = m
        elif m < self.last - 6:
            self.offset += 1
            self.last = m
            self.most = max(self.most, self.offset)
        elif m > self.last + 6 and self.offset > 0:
            return self.offset - 1
        else:
            self.last = m
        return self.offset


def _open(source):
    """``(binary stream, label, modification year or None, size in bytes or None)``."""
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        data = source.encode("utf-8", "surrogateescape")
        return io.BytesIO(data), "text", None, len(data)
    path, opener = source_path(source, "kernel log")
    try:
        fh = opener(path, "rb")
    except OSError as exc:
        raise CorruptFileError(f"{path}: cannot be read ({exc})") from None
    st = os.stat(path)
    size = st.st_size if opener is open else None
    return fh, str(path), datetime.fromtimestamp(st.st_mtime), size


def _blocks(fh, label, size=None):
    """Blocks of whole lines (a bytearray, its length), each followed by _PAD zero bytes; line ends made "\\n".
    ``size``: the stream's length when known (a smaller buffer serves a small file)."""
    room = BLOCK + MAX_LINE if size is None else min(BLOCK + MAX_LINE, size + 1)
    ba = bytearray(room + _PAD)
    mv = memoryview(ba)
    held, at = 0, 0  # bytes in ba from the last block; bytes of the stream before ba
    while True:
        try:
            got = fh.readinto(mv[held:held + BLOCK])
        except _BROKEN as exc:
            raise CorruptFileError(f"{label}: truncated or corrupt ({exc}); give the whole file") from None
        n = held + got
        if ba.find(b"\r", max(held - 1, 0), n) >= 0:
            n = _crlf(ba, n, more=got > 0)
        if not got:
            n = _unpadded(ba, n)
            if n:
                ba[n:n + _PAD] = bytes(_PAD)
                yield ba, n
            return
        cut = ba.rfind(b"\n", 0, n) + 1
        if not cut:
            if n >= MAX_LINE:
                raise KernelLogError(f"{label}: the line at byte {at:,} is longer than {MAX_LINE >> 20} MiB with no "
                                     "line end: "
                                     "not a text log (a binary file, or a compressed file that expands without "
                                     "bound)")
            held = n
            continue
        tail = bytes(ba[cut:n])  # the start of the next block's first line
        at += cut
        cut = _unpadded(ba, cut)
        ba[cut:cut + _PAD] = bytes(_PAD)
        yield ba, cut
        held = len(tail)
        ba[:held] = tail


def _filled_lines(buf, n):
    """The lines of ``buf[:n]`` that are not blank (empty, or a lone CR): their starts, ends and indices among all
    the lines, and the count of all; found 1 MB at a time, so a block of blank lines costs no memory per line."""
    starts, ends, index = [], [], []
    count, last = 0, -1
    for a in range(0, n, _STEP):
        loc = np.flatnonzero(buf[a:min(a + _STEP, n)] == 10) + a
        if not loc.size:
            continue
        prev = np.empty(loc.size, np.int64)
        prev[0], prev[1:] = last, loc[:-1]
        length = loc - prev - 1
        keep = np.flatnonzero((length > 1) | ((length == 1) & (buf[np.maximum(loc - 1, 0)] != 13)))
        starts.append(prev[keep] + 1)
        ends.append(loc[keep])
        index.append(count + keep)
        count, last = count + loc.size, int(loc[-1])
    if n and buf[n - 1] != 10:   # a last line without its newline
        if n - last - 1 > 1 or buf[n - 1] != 13:
            starts.append(np.array([last + 1], np.int64))
            ends.append(np.array([n], np.int64))
            index.append(np.array([count], np.int64))
        count += 1
    if not starts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), count
    return np.concatenate(starts), np.concatenate(ends), np.concatenate(index), count


class _Scan:
    """The state of one pass: lines so far, hosts, records, years, lines that are not UTF-8."""

    def __init__(self, fmt, label, host):
        self.fmt, self.label, self.host = fmt, label, host
        self.n = 0  # lines before the current block
        self.years = _Years()
        self.index = {}  # host bytes -> its number (in order of its first line)
        self.hosts = [np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, object), np.zeros(0, np.int64)]
        self.rec = []  # (line, host bytes, kind, gpu, xid, time text, year offset, wrote before)
        self.first = self.last = None  # (line, time text, year offset) of the first and last line in the form
        self.bad, self.bad_first = 0, None
        self.unit = None

    # -- every form, one line at a time ------------------------------------------------------------
    def lines(self, ba, n):
        lines = bytes(ba[:n]).split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if self.fmt == "json":
            return self._json(lines)
        keyed = _keyed(ba, n, len(lines))
        pattern, fmt, label, rfc3164 = LINE[self.fmt], self.fmt, self.label, self.fmt == "rfc3164"
        hosts, step, first, last, known = {}, self.years.step, None, None, self.index
        dmesg_host = self.host.encode("utf-8", "surrogatepass")
        for i, line in enumerate(lines):
            m = pattern.fullmatch(line)
            if m is None:
                if i in keyed and line.strip():
                    raise KernelLogError(f"{label}, line {self.n + i + 1}: the line is not in the {fmt} form of the "
                                         f"rest of the file ({line[:60]!r}); give one kind of log per file, "
                                         "or log_format=")
                continue
            k = self.n + i + 1
            if fmt == "dmesg":
                (text, msg), host = m.groups(), dmesg_host
            else:
                text, host, msg = m.groups()
            yoff = step(MONTHS[text[:3]]) if rfc3164 else 0
            hosts.setdefault(host, [k])[1:] = k, text, yoff
            last = (k, text, yoff)
            first = first or last
            if i in keyed:
                found = line_record(msg, writer_of(fmt, msg), label, k, keyed=True)
                if found is not None:
                    self.rec.append((k, host, *found, text, yoff, host in known or hosts[host][0] < k))
        self.first, self.last = self.first or first, last or self.last
        self._merge(hosts)
        self.n += len(lines)

    def _json(self, lines):
        hosts = {}
        for i, line in enumerate(lines):
            k = self.n + i + 1
            if not line.strip() or not line.lstrip().startswith(b"{"):
                continue
            t, name, writer, msg = json_fields(line, self.host, self.label, k)
            unit = epoch_unit(t, self.label, k)
            if self.unit is None:
                self.unit = (unit, k, t)
            elif unit != self.unit[0]:
                raise KernelLogError(f"{self.label}, line {k}: the time {t} is in other units than line "
                                     f"{self.unit[1]} ({self.unit[2]}); give one journal export per file")
            host = name.encode("utf-8", "surrogatepass")
            hosts.setdefault(host, [k])[1:] = k, t, 0
            self.first, self.last = self.first or (k, t, 0), (k, t, 0)
            found = line_record(msg, writer, self.label, k)
            if found is not None:
                self.rec.append((k, host, *found, t, 0, host in self.index or hosts[host][0] < k))
        self._merge(hosts)
        self.n += len(lines)

    def _merge(self, hosts):  # the hosts of a block read line by line: {host: [first line, last line, text, year]}
        v = list(hosts.values())
        self._hosts(list(hosts), *(np.array([x[j] for x in v], object if j == 2 else np.int64) for j in range(4)))

    def _hosts(self, names, first, *rest):
        """Take a block's hosts (in order of their first line in it), each one's first line and its last line, time
        text and year offset; their numbers, and how many hosts earlier blocks had."""
        index, m = self.index, len(self.index)
        index.update(zip([h for h in names if h not in index], range(m, m + len(names))))
        g = np.fromiter(map(index.__getitem__, names), np.int64, len(names))
        self.hosts = h = [np.concatenate([a, np.zeros(len(index) - m, a.dtype)]) for a in self.hosts]
        h[0][g[g >= m]] = first[g >= m]
        h[1][g], h[2][g], h[3][g] = rest
        return g, m

    # -- classic syslog, a block at a time with numpy ------------------------------------------------
    def syslog_block(self, ba, n):
        """Read a block column-wise; False (nothing read) when a line is not in the common shape."""
        buf = np.frombuffer(ba, np.uint8)
        s, ends, num, total = _filled_lines(buf, n)
        if not s.size:   # blank lines only
            self.n += total
            return True
        grid = as_strided(buf, (buf.size - 56, 56), (1, 1))[s]  # bytes 0-55 of each line (past its end: the next)
        month = _month(grid.view("<u8")[:, 0])
        ok = _time_ok(grid.view("<u8")) & (month > 0) & (ends - s >= 18)
        num += self.n + 1  # the lines' numbers
        if not ok.all():  # a few foreign lines (not in the form) are passed over; any other: line reading
            odd = np.flatnonzero(~ok)
            if odd.size > max(16, s.size // 100) or odd.size == s.size:
                return False
            for i in odd.tolist():
                line = bytes(ba[s[i]:ends[i]])
                if LINE["rfc3164"].fullmatch(line) or (line.strip() and _KEY_B.search(line)):
                    return False
            s, ends, grid, month, num = s[ok], ends[ok], grid[ok], month[ok], num[ok]
        for width in (32, 64):  # hosts of under 32 bytes; a block with longer ones read again with 64
            if width == 64:
                grid = as_strided(buf, (buf.size - 88, 88), (1, 1))[s]
            hl, host = _host_words(grid, grid.view("<u8"), width)
            stop = grid.ravel()[np.arange(s.size) * grid.shape[1] + 16 + hl]
            if ((stop == 32) & (hl >= 1) & (s + 17 + hl <= ends)).all():
                break
        else:
            return False  # a host of 64 bytes or more, a control byte in it, or no message
        enc = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), s.size, [None, pa.py_buffer(host)])
        enc = enc.dictionary_encode()
        code, names = enc.indices.to_numpy(), enc.dictionary
        names = np.frombuffer(names.buffers()[1], f"S{width}", len(names), names.offset * width).tolist()  # no \0
        yoff = self._block_years(month)
        g, m, first = self._block_hosts(code, names, grid, yoff, num)
        at = s + 17 + hl  # each line's message, its writer's tag first
        word = as_strided(np.frombuffer(ba, "<u8", buf.size // 8), (buf.size - 8,), (1,))  # 8 bytes from each byte
        tag = word[at]
        cand = (tag & _SIX) == _KERNEL
        sd = np.flatnonzero(tag == _SYSTEMD)  # systemd-shutdown: the only other writer read
        cand[sd] = word[at[sd] + 8] == _SHUTDOWN
        cand = np.flatnonzero(cand)
        if cand.size:  # RE2 on the candidates' messages (from the tag to the line's end)
            off = np.empty(3 * s.size + 1, np.int64)
            off[0:-1:3], off[1::3], off[2::3], off[-1] = s, at, ends, ends[-1]
            view = pa.Array.from_buffers(pa.large_binary(), 3 * s.size, [None, pa.py_buffer(off), pa.py_buffer(ba)])
            some = view.take(pa.array(3 * cand + 1))
            keyed = pc.match_substring_regex(some, KEY_RE2)
            hit, some = cand[keyed.to_numpy(zero_copy_only=False)], some.filter(keyed)
            gpu, xid, sure = _xids(some)
            c = code[hit]
            k, who, texts, year, w = (num[hit].tolist(), list(map(names.__getitem__, c.tolist())),
                                      grid[hit, :15].copy().view("S15")[:, 0].tolist(), yoff[hit].tolist(),
                                      ((g[c] < m) | (first[c] < hit)).tolist())
            rec = list(compress(zip(k, who, repeat("xid"), gpu, xid.tolist(), texts, year, w), sure))
            for j, msg in zip(np.flatnonzero(~sure).tolist(), some.filter(pa.array(~sure)).to_pylist()):
                found = line_record(msg, writer_of("rfc3164", msg), self.label, k[j], keyed=True)  # the rules
                if found is not None:
                    rec.append((k[j], who[j], *found, texts[j], year[j], w[j]))
            self.rec += sorted(rec) if not sure.all() else rec
        self.n += total
        return True

    def _block_years(self, month):
        change = np.flatnonzero(month[1:] != month[:-1]) + 1
        at = np.concatenate([[0], change])
        offs = np.array([self.years.step(int(m)) for m in month[at].tolist()], np.int64)
        return np.repeat(offs, np.diff(np.append(at, month.size)))

    def _block_hosts(self, code, names, grid, yoff, num):
        """Take a block's hosts; their numbers, the hosts of earlier blocks, each one's first row in the block."""
        first, last = np.zeros(len(names), np.int64), np.zeros(len(names), np.int64)
        first[code[::-1]], last[code] = np.arange(code.size)[::-1], np.arange(code.size)
        text = np.frombuffer(grid[last, :15].tobytes(), "S15").astype(object)
        g, m = self._hosts(names, num[first], num[last], text, yoff[last])
        self.first = self.first or (int(num[0]), bytes(grid[0, :15]), int(yoff[0]))
        self.last = (int(num[-1]), bytes(grid[-1, :15]), int(yoff[-1]))
        return g, m, first

    def utf8(self, ba, n):
        """Count the block's lines that are not UTF-8 (they are read with replacement characters)."""
        if np.frombuffer(ba, np.uint8, n).max(initial=0) < 128:
            return
        try:
            codecs.utf_8_decode(memoryview(ba)[:n], "strict", True)
            return
        except UnicodeDecodeError:
            pass
        for i, line in enumerate(bytes(ba[:n]).split(b"\n")):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                self.bad += 1
                if self.bad_first is None:
                    self.bad_first = self.n + i + 1


def scan_file(source, *, year=None, log_format=None, host=None, hosts=True):
    """One pass over a kernel log: a dict (label, fmt, records, hosts, first and last lines, year offsets,
    lines that are not UTF-8), times pending the year (:func:`finish`).  ``hosts`` is kept for callers."""
    fh, label, mtime, size = _open(source)
    with fh:
        blocks = _blocks(fh, label, size)
        first = next(blocks, None)
        if first is None or _BLANK.fullmatch(memoryview(first[0])[:first[1]]):
            raise EmptyDataError(f"{label}: the kernel log has no lines")
        if bytes(first[0][:2]) in (b"\xff\xfe", b"\xfe\xff"):
            raise EncodingError(f"{label}: the file is UTF-16 text (its first two bytes say so); a kernel log is read "
                                "as UTF-8 or ASCII: convert it first, e.g. iconv -f UTF-16 -t UTF-8")
        head = bytes(first[0][:min(first[1], 1 << 16)]).split(b"\n")[:50]
        fmt = log_format or sniff_format(head)
        if fmt is None:
            raise KernelLogError(f"{label}: cannot tell the form of the log from its first lines; give log_format= "
                                 f"({', '.join(FORMATS)})")
        if label != "text":
            host = host or Path(label).name.split(".")[0]
        scan = _Scan(fmt, label, host or "localhost")
        mib = None if size is None else -(-size // (1 << 20))
        with steps(f"reading {Path(label).name if label != 'text' else 'the log'} (MiB)", total=mib) as step:
            for ba, n in _chain(first, blocks):
                scan.utf8(ba, n)
                if not (fmt == "rfc3164" and scan.syslog_block(ba, n)):
                    scan.lines(ba, n)
                step(n >> 20)
    if scan.first is None:
        raise KernelLogError(f"{label}: no line is in the {fmt} form; give log_format= or another file")
    return {"label": label, "fmt": fmt, "n_lines": scan.n, "rec": scan.rec, "hosts": [list(scan.index), *scan.hosts],
            "first": scan.first, "last": scan.last, "years": scan.years.most, "mtime": mtime,
            "bad_utf8": (scan.bad, scan.bad_first), "unit": scan.unit and scan.unit[0]}


def first_time(source, log_format=None):
    """The time text (bytes) of the first line of an RFC 3164 file, from its first 64 KiB; None for another
    form or when no line there is in the form."""
    fh, label, _, _ = _open(source)
    with fh:
        try:
            head = fh.read(1 << 16).replace(b"\r", b"\n").split(b"\n")
        except _BROKEN as exc:
            raise CorruptFileError(f"{label}: truncated or corrupt ({exc}); give the whole file") from None
    if (log_format or sniff_format(head)) != "rfc3164":
        return None
    return next((m.group(1) for m in map(LINE["rfc3164"].fullmatch, head) if m), None)


def placed_years(sources, year, log_format=None):
    """:func:`~relmodel.data.formats.kernlines.place_years` of files (their first lines read from their first
    64 KiB); all None when ``year`` is None (each file's modification time then says)."""
    return place_years([first_time(s, log_format) if year is not None else None for s in sources], year)


def _chain(first, rest):
    yield first
    yield from rest


def host_name(raw):
    """A host's name as text, one name for each byte name: bytes that are not UTF-8 kept as ``\\xe9`` escapes and
    NUL as ``\\x00`` (decoded with replacement, ``gpu\\xe9`` and ``gpu\\xe8`` would be one host)."""
    return raw.decode("utf-8", "backslashreplace").replace("\x00", "\\x00")


def finish(part, base_year=None):
    """The scan's times: ``part`` gains rec (a DataFrame with ``at``), first, last (timestamps) and seen (a
    Series: every host that wrote a line -> the time of its last line; each byte name is its own text name,
    :func:`host_name`).  ``base_year`` is the year of an RFC 3164
    file's first line."""
    fmt, label = part["fmt"], part["label"]
    rows = part.pop("rec")
    names, _, last, last_text, last_year = part.pop("hosts")
    cols = list(zip(*rows)) or [()] * 8
    lines = [*cols[0], part["first"][0], part["last"][0], *last.tolist()]
    texts = [*cols[5], part["first"][1], part["last"][1], *last_text.tolist()]
    if fmt == "rfc3164":
        mtime = part["mtime"] if base_year is None else None
        if base_year is None:
            if mtime is None:
                raise KernelLogError(f"{label}: syslog lines do not say the year; give year= (the year of line "
                                     f"{part['first'][0]}, the log's first)")
            base_year = mtime.year - part["years"]
        offs = [*cols[6], part["first"][2], part["last"][2], *last_year.tolist()]
        at = syslog_times(texts, base_year + np.asarray(offs, np.int64), label, lines)
        if mtime is not None and at.size and at.max() > np.datetime64(mtime) + np.timedelta64(1, "D"):
            # the last line falls after the file was written: it was written the year before (a December log
            # rotated in January)
            base_year -= 1
            at = syslog_times(texts, base_year + np.asarray(offs, np.int64), label, lines)
    elif fmt == "json":
        at = pd.to_datetime(np.asarray(texts, np.int64), unit=part["unit"] or "us").to_numpy("datetime64[ns]")
    else:
        at = other_times(texts, fmt, label, lines)
    k = len(rows)
    decode = {h: host_name(h) for h in names}
    rec = pd.DataFrame({"line": np.array(cols[0], np.int64), "node": np.array([decode[h] for h in cols[1]], object),
                        "kind": np.array(cols[2], object), "gpu": np.array(cols[3], object),
                        "xid": np.array(cols[4], float), "at": at[:k], "wrote_before": np.array(cols[7], bool)})
    seen = pd.Series(at[k + 2:], index=pd.Index([decode[h] for h in names], dtype=object))
    part.update(rec=rec, first=pd.Timestamp(at[k]), last=pd.Timestamp(at[k + 1]), seen=seen)
    return part
