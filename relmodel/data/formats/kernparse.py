"""The lines of a kernel log that report something, parsed in bulk: time, host, kind, GPU and Xid code.

:func:`records_arrow` takes the keyword lines that :func:`~relmodel.data.formats.kernscan.matching_lines`
found (a pyarrow array) and splits them column-wise with one RE2 extraction
(the patterns keep Python's Unicode meaning of ``\\d``, ``\\s``, ``\\S``; a
line that is not in the form is then named); :func:`records` does the same
for journal exports with Python's ``re``; classic ASCII syslog takes the
numpy path of :mod:`~relmodel.data.formats.kerncols` first; :func:`stamps`
turns their time texts into timestamps (RFC 3164 times with numpy, without a
string parser per line; journalctl's epoch numbers in the unit their
magnitude says).
"""

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...errors import KernelLogError
from .xid import BOOT, KERNEL_EVENTS, SHUTDOWN

__all__ = ["FORMATS", "sniff_format", "LINE", "KEY", "LITERALS", "MAX_XID", "records", "records_arrow", "other_kind", "stamps", "epoch_unit", "split_line"]

FORMATS = ("rfc3164", "rfc5424", "iso", "dmesg", "json")
LINE = {
    "rfc3164": re.compile(r"^(?:<\d{1,3}>)?([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) (\S+) (.*)$"),
    "rfc5424": re.compile(r"^<\d{1,3}>\d{1,2} (\S+) (\S+) (.*)$"),
    "iso": re.compile(r"^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*) (\S+) (.*)$"),
    "dmesg": re.compile(r"^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})\] (.*)$"),
}
_LINE_M = {k: re.compile(v.pattern, re.M) for k, v in LINE.items()}
KEY = re.compile(r"NVRM: Xid|[Ll]ink (?:is )?[Dd]own|EDAC|[Pp]ower [Ss]upply|Linux version|reboot: |systemd-shutdown"
                 r"|Kernel panic")
#: Every line KEY can match holds one of these (searched as bytes before any regular expression).
LITERALS = (b"NVRM: Xid", b"ink ", b"EDAC", b"ower ", b"Linux version", b"reboot: ", b"systemd-shutdown",
            b"Kernel panic")
_XID = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)\): "
                  r"([^,\s]+)")
MAX_XID = 65_535  #: the largest Xid code read as one (the driver's codes are below a thousand)
# The same patterns in RE2 syntax for pyarrow, with Python's Unicode meaning of \d, \s and \S kept.
_WS = r"\t\n\x0b\f\r \x1c-\x1f\x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_NS, _D = f"[^{_WS}]", r"\p{Nd}"
_LINE_RE2 = {
    "rfc3164": rf"^(?:<{_D}{{1,3}}>)?(?P<t>[A-Z][a-z]{{2}} [ {_D}]{_D} {_D}{_D}:{_D}{_D}:{_D}{_D}) (?P<h>{_NS}+) (?P<m>.*)$",
    "rfc5424": rf"^<{_D}{{1,3}}>{_D}{{1,2}} (?P<t>{_NS}+) (?P<h>{_NS}+) (?P<m>.*)$",
    "iso": rf"^(?P<t>{_D}{{4}}-{_D}{_D}-{_D}{_D}[T ]{_D}{_D}:{_D}{_D}:{_D}{_D}{_NS}*) (?P<h>{_NS}+) (?P<m>.*)$",
    "dmesg": rf"^\[(?P<t>[A-Z][a-z]{{2}} [A-Z][a-z]{{2}} [ {_D}]{_D} {_D}{_D}:{_D}{_D}:{_D}{_D} {_D}{{4}})\] (?P<m>.*)$",
}
_HEX = "[0-9A-Fa-f]"
_XID_RE2 = (rf"NVRM: Xid \((?:PCI:)?(?P<bus>{_HEX}{{4}}:{_HEX}{{2}}:{_HEX}{{2}}(?:\.{_HEX})?)\): "
            rf"(?P<code>[^,{_WS}]+)")
_MONTHS = {m: i + 1 for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                           "Nov", "Dec"))}


def sniff_format(lines):
    """The form of a kernel log from its first readable lines: one of :data:`FORMATS`, or None."""
    for line in lines[:50]:
        s = line.strip()
        if not s or s.startswith("-- "):
            continue
        if s.startswith("{"):
            return "json"
        for name in ("rfc5424", "dmesg", "iso", "rfc3164"):
            if LINE[name].match(s):
                return name
    return None


def split_line(line, fmt, host, label, n):
    """``(time text, host, message)`` of one line; KernelLogError when it is not in the form."""
    if fmt == "json":
        try:
            rec = json.loads(line)
            msg = rec.get("MESSAGE", "")
            if isinstance(msg, list):  # journald writes non-UTF-8 messages as byte arrays
                msg = bytes(msg).decode("utf-8", "replace")
            return int(rec["__REALTIME_TIMESTAMP"]), str(rec.get("_HOSTNAME", host)), str(msg)
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
            raise KernelLogError(f"{label}, line {n}: not a journalctl -o json record with __REALTIME_TIMESTAMP "
                                 "(a whole number) and MESSAGE; export with journalctl -k -o json") from None
    m = LINE[fmt].match(line)
    if not m:
        raise KernelLogError(f"{label}, line {n}: the line is not in the {fmt} form of the rest of the file "
                             f"({line[:60]!r}); give one kind of log per file, or log_format=")
    return (m.group(1), host, m.group(2)) if fmt == "dmesg" else m.groups()


def _split_all(lines, numbers, fmt, host, label):
    if fmt == "json":
        return [split_line(ln, fmt, host, label, n) for ln, n in zip(lines, numbers)]
    found = _LINE_M[fmt].findall("\n".join(lines))
    if len(found) != len(lines):  # some line is not in the form: name it
        for ln, n in zip(lines, numbers):
            split_line(ln, fmt, host, label, n)
    if fmt == "dmesg":
        return [(t, host, m) for t, m in found]
    return found


def _xid_codes(msgs, numbers, label):
    """(bus id, code) of each Xid message; a KernelLogError names a line that cannot be read."""
    found = _XID.findall("\n".join(msgs)) if msgs else []  # a literal-led pattern: a fast scan
    ok = len(found) == len(msgs) and all(c.isdigit() and len(c) <= 6 for _, c in found)
    if not ok or any(int(c) > MAX_XID for _, c in found):
        found = []  # one message at a time: the first match of each, or the line named
        for msg, n in zip(msgs, numbers):
            m = _XID.search(msg)
            if not m or not m.group(2).isdigit():
                raise KernelLogError(f"{label}, line {n}: cannot read the Xid line {msg[:80]!r}; expected "
                                     "NVRM: Xid (PCI:0000:cb:00): 79, ...")
            if len(m.group(2)) > 6 or int(m.group(2)) > MAX_XID:
                raise KernelLogError(f"{label}, line {n}: Xid code {m.group(2)[:30]} is not a code the NVIDIA "
                                     f"driver writes (a whole number up to {MAX_XID:,}); the line is damaged")
            found.append(m.groups())
    return [(bus.lower(), int(code)) for bus, code in found]


def other_kind(msg):
    """The kind of a kernel message other than Xid (a KERNEL_EVENTS name, "boot", "shutdown"), or None."""
    for name, (pattern, *_rest) in KERNEL_EVENTS.items():
        if pattern.search(msg):
            return name
    if BOOT.search(msg):
        return "boot"
    if SHUTDOWN.search(msg):
        return "shutdown"
    return None


def records(lines, numbers, starts, fmt, host, label):
    """One row per line that reports something: line, byte, text, node, kind, gpu, xid, message."""
    is_xid = ["NVRM: Xid" in ln for ln in lines]
    keep = [x or KEY.search(ln) is not None for x, ln in zip(is_xid, lines)]
    lines = [ln for ln, k in zip(lines, keep) if k]
    numbers, starts = np.asarray(numbers)[keep], np.asarray(starts)[keep]
    is_xid = [x for x, k in zip(is_xid, keep) if k]
    parts = _split_all(lines, numbers.tolist(), fmt, host, label)
    xid_at = [i for i, p in enumerate(parts) if "NVRM: Xid" in p[2]]
    codes = _xid_codes([parts[i][2] for i in xid_at], numbers[xid_at].tolist(), label)
    kind = [None] * len(parts)
    gpu, xid = [None] * len(parts), [None] * len(parts)
    for i, (bus, code) in zip(xid_at, codes):
        kind[i], gpu[i], xid[i] = "xid", bus, code
    for i, p in enumerate(parts):
        if kind[i] is None:
            kind[i] = other_kind(p[2])
    out = pd.DataFrame({"line": numbers, "byte": starts, "text": [p[0] for p in parts],
                        "node": [p[1] for p in parts], "kind": kind, "gpu": gpu, "xid": xid,
                        "message": [p[2] for p in parts]})
    return out[out["kind"].notna()].reset_index(drop=True)


def _split_arrow(lines, numbers, fmt, host, label):
    """(time, host, message) arrays of the lines; a line not in the form is named as :func:`split_line` does."""
    parts = pc.extract_regex(lines, _LINE_RE2[fmt])
    if parts.null_count:
        bad = np.flatnonzero(parts.is_null().to_numpy(zero_copy_only=False))
        for i in bad.tolist():
            split_line(lines[i].as_py(), fmt, host, label, int(numbers[i]))
    t, m = parts.field("t"), parts.field("m")
    h = parts.field("h") if fmt != "dmesg" else pa.array(np.full(len(lines), host, object), pa.large_string())
    return t, h, m


def _xid_arrow(msgs, numbers, label):
    """(bus ids, codes) of the Xid messages (arrays); lines a fast check doubts go through :func:`_xid_codes`."""
    found = pc.extract_regex(msgs, _XID_RE2)
    if len(msgs) and not found.null_count:
        code = found.field("code")
        if pc.all(pc.match_substring_regex(code, "^[0-9]{1,6}$")).as_py():
            codes = pc.cast(code, pa.int64()).to_numpy()
            if codes.max() <= MAX_XID:
                return pc.utf8_lower(found.field("bus")).to_numpy(zero_copy_only=False), codes
    pairs = _xid_codes(msgs.to_pylist(), list(numbers), label)
    return np.array([b for b, _ in pairs], object), np.array([c for _, c in pairs], np.int64)


def records_arrow(lines, numbers, starts, fmt, host, label):
    """:func:`records` of lines given as a pyarrow string array that all match :data:`KEY` (not json)."""
    numbers, starts = np.asarray(numbers), np.asarray(starts)
    t, h, m = _split_arrow(lines, numbers, fmt, host, label)
    is_xid = pc.match_substring(m, "NVRM: Xid").to_numpy(zero_copy_only=False)
    xi, other = np.flatnonzero(is_xid), np.flatnonzero(~is_xid)
    n = len(lines)
    kind, gpu, xid = np.full(n, None, object), np.full(n, None, object), np.full(n, np.nan)
    if xi.size:
        bus, codes = _xid_arrow(m.take(pa.array(xi)), numbers[xi], label)
        kind[xi], gpu[xi], xid[xi] = "xid", bus, codes
    if other.size:
        kind[other] = [other_kind(x) for x in m.take(pa.array(other)).to_pylist()]
    keep = np.flatnonzero(kind != None)  # noqa: E711 (elementwise)
    take = pa.array(keep)
    return pd.DataFrame({"line": numbers[keep], "byte": starts[keep],
                         "text": t.take(take).to_numpy(zero_copy_only=False),
                         "node": h.take(take).to_numpy(zero_copy_only=False), "kind": kind[keep],
                         "gpu": gpu[keep], "xid": xid[keep]})


def epoch_unit(values, label, lines_at):
    """The unit of journalctl epoch numbers from their magnitude ("s", "ms", "us", "ns")."""
    v = np.abs(np.asarray(values, dtype=float))
    cuts = [(1e11, "s"), (1e14, "ms"), (1e17, "us"), (1e20, "ns")]
    units = np.array([next((u for c, u in cuts if x < c), "?") for x in v]) if v.size else np.array([], str)
    if units.size and (units != units[0]).any():
        i = int(np.flatnonzero(units != units[0])[0])
        raise KernelLogError(f"{label}, line {lines_at[i]}: the time {values[i]} is in other units than line "
                             f"{lines_at[0]} ({values[0]}); give one journal export per file")
    unit = units[0] if units.size else "us"
    if unit == "?" or (v.size and v.min() == 0):
        raise KernelLogError(f"{label}, line {lines_at[0]}: the time {values[0]} is not a Unix time in seconds, "
                             "milliseconds, microseconds or nanoseconds")
    return str(unit)


class _GridTexts:
    """The time texts of an (n, 15) byte grid, made one at a time when a message needs one."""

    def __init__(self, grid):
        self.grid = grid

    def __getitem__(self, i):
        return bytes(self.grid[i]).decode("ascii")


def _syslog_stamps(texts, year, label, lines_at, year_last):
    """RFC 3164 times ("Mar  1 12:00:00") with the year inferred, parsed with numpy."""
    n = len(texts)
    if isinstance(texts, np.ndarray):  # an (n, 15) grid of ASCII bytes
        a, texts = texts.astype(np.int64), _GridTexts(texts)
    else:
        lens = np.fromiter(map(len, texts), np.int64, n)
        if (lens != 15).any():
            bad = int(np.flatnonzero(lens != 15)[0])
            raise KernelLogError(f"{label}, line {lines_at[bad]}: cannot read the time {texts[bad]!r}")
        a = np.frombuffer("".join(texts).encode("ascii", "replace"), np.uint8).reshape(n, 15).astype(np.int64)
    key = a[:, 0] * 65536 + a[:, 1] * 256 + a[:, 2]
    known = {ord(m[0]) * 65536 + ord(m[1]) * 256 + ord(m[2]): i for m, i in _MONTHS.items()}
    inv, ukey = pd.factorize(key)  # hash-based: no sort of the lines
    month = np.array([known.get(int(k), 0) for k in ukey] or [0], np.int64)[inv]
    day = np.where(a[:, 4] == 32, 0, a[:, 4] - 48) * 10 + a[:, 5] - 48
    hh, mm, ss = ((a[:, c] - 48) * 10 + a[:, c + 1] - 48 for c in (7, 10, 13))
    years = _year_offsets(month)
    base = year if year is not None else (year_last - int(years.max(initial=0)) if year_last is not None else None)
    if base is None:
        raise KernelLogError(f"{label}: syslog lines do not say the year; give year= (the year of line "
                             f"{lines_at[0]})")
    y = base + years
    mon = (y - 1970) * 12 + month - 1
    t = (mon.astype("datetime64[M]").astype("datetime64[D]") + (day - 1)).astype("datetime64[s]")
    t = t + (hh * 3600 + mm * 60 + ss).astype("timedelta64[s]")
    back = (t.astype("datetime64[M]").astype(np.int64) != mon)
    bad = (month == 0) | (day < 1) | back | (hh > 23) | (mm > 59) | (ss > 60) | (hh < 0) | (mm < 0) | (ss < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise KernelLogError(f"{label}, line {lines_at[i]}: cannot read the time {texts[i]!r}")
    return pd.DatetimeIndex(t.astype("datetime64[ns]"))


def _year_offsets(month):
    """Years after the first line's: a month that falls by more than six starts the next year."""
    years = np.zeros(month.size, np.int64)
    if not month.size:
        return years
    change = np.flatnonzero(np.diff(month) != 0) + 1
    offset, last = 0, int(month[0])
    bounds = np.append(change, month.size)
    prev = 0
    for b in bounds.tolist():
        m = int(month[prev])
        if m < last - 6:
            offset += 1
            last = m
        elif m > last + 6 and offset > 0:
            years[prev:b] = offset - 1  # late lines of the old year
            prev = b
            continue
        else:
            last = m
        years[prev:b] = offset
        prev = b
    return years


def stamps(texts, fmt, year, label, lines_at, year_last=None):
    """Timestamps (naive UTC) of the time texts of one form."""
    if fmt == "json":
        unit = epoch_unit(texts, label, lines_at)
        return pd.DatetimeIndex(pd.to_datetime(np.asarray(texts, dtype="int64"), unit=unit))
    if fmt == "rfc3164":
        return _syslog_stamps(texts if isinstance(texts, np.ndarray) else list(texts), year, label, lines_at, year_last)
    if fmt in ("rfc5424", "iso"):
        t = pd.to_datetime(pd.Series(texts), format="ISO8601", utc=True, errors="coerce")
        t = t.dt.tz_convert("UTC").dt.tz_localize(None)
    else:
        t = pd.to_datetime(pd.Series(texts).str.replace(r"\s+", " ", regex=True), format="%a %b %d %H:%M:%S %Y",
                           errors="coerce")
    bad = np.flatnonzero(t.isna().to_numpy())
    if bad.size:
        raise KernelLogError(f"{label}, line {lines_at[bad[0]]}: cannot read the time {texts[bad[0]]!r}")
    return pd.DatetimeIndex(t)
