"""One kernel-log line read as the rules read it: its form, host, time, writer and what it reports.

Every form is matched on the line's bytes with ASCII-only patterns (a digit is 0-9: a time written
in other digits is not a time); text is decoded as UTF-8 with replacement.  A line reports something
only when the kernel wrote it: the syslog tag (``kernel:``), the RFC 5424 app name or journald's
``_TRANSPORT`` / ``SYSLOG_IDENTIFIER`` say which process wrote the line, so an Xid text that a user
process or ``logger`` wrote is no GPU fault.  A clean shutdown may also be written by
``systemd-shutdown``.  Bus ids are normalised: ``PCI:0000:CB:00.0`` and ``0000:cb:00`` are one GPU.
"""

import json
import re

import numpy as np
import pandas as pd

from ...errors import KernelLogError
from .xid import BOOT, KERNEL_EVENTS, SHUTDOWN

__all__ = ["FORMATS", "sniff_format", "LINE", "KEY_RE2", "MAX_XID", "line_record", "syslog_times", "json_fields",
           "epoch_unit", "bus_id", "MONTHS", "writer_of", "place_years", "XID_RE2"]

FORMATS = ("rfc3164", "rfc5424", "iso", "dmesg", "json")
_MON = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
#: Per form, the line's (time, host, message) groups (dmesg: time, message), on bytes, ASCII digits only.
LINE = {
    "rfc3164": re.compile(rb"(?:<[0-9]{1,3}>)?(" + _MON + rb" [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}) (\S+) (.*)",
                          re.S),
    "rfc5424": re.compile(rb"<[0-9]{1,3}>[0-9]{1,2} (\S+) (\S+) (.*)", re.S),
    "iso": re.compile(rb"([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}\S*) (\S+) (.*)", re.S),
    "dmesg": re.compile(rb"\[([A-Z][a-z]{2} " + _MON + rb" [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4})\] (.*)",
                        re.S),
}
MONTHS = {m.encode(): i + 1 for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
                                                   "Oct", "Nov", "Dec"))}
#: A MIG-partitioned GPU's Xid names the GPU instance (and compute instance) after the bus id, as the driver
#: prints it ("(PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u)"); the fault is the physical GPU's.
_MIG = r"(?: GPU-I:[0-9]{1,4}(?: GPU-CI:[0-9]{1,4})?)?"
_XID = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)" + _MIG
                  + r"\): ([^,\s]+)")
MAX_XID = 65_535  #: the largest Xid code read as one (the driver's codes are below a thousand)
#: Every line that reports something matches this (RE2 syntax; a quick test before the rules).
KEY_RE2 = "|".join(["NVRM: Xid", *(p.pattern for p, *_ in KERNEL_EVENTS.values()), BOOT.pattern, SHUTDOWN.pattern])
_KEY = re.compile(KEY_RE2.encode())
_WORDS = (b"NVRM", b"ink", b"EDAC", b"upply", b"Linux", b"reboot", b"shutdown", b"panic")  # one in each KEY match
_TAG = re.compile(rb"[^\s\[:]*")


def sniff_format(lines):
    """The form of a kernel log from its first readable lines (str or bytes): one of :data:`FORMATS`, or None."""
    for line in lines[:50]:
        s = (line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line).strip()
        if not s or s.startswith(b"-- "):
            continue
        if s.startswith(b"{"):
            return "json"
        for name in ("rfc5424", "dmesg", "iso", "rfc3164"):
            if LINE[name].fullmatch(s):
                return name
    return None


def bus_id(text):
    """A PCI bus id as one GPU's name: lower case, ``domain:bus:device``, a function ``.0`` dropped."""
    text = text.lower()
    return text[:-2] if text.endswith(".0") else text


def _xid(msg, label, n):
    m = _XID.search(msg)
    code = m.group(2) if m else ""
    if not (m and code.isascii() and code.isdigit()):
        raise KernelLogError(f"{label}, line {n}: cannot read the Xid line {msg[:80]!r}; expected "
                             "NVRM: Xid (PCI:0000:cb:00): 79, ...")
    if len(code) > 6 or int(code) > MAX_XID:
        raise KernelLogError(f"{label}, line {n}: Xid code {code[:30]} is not a code the NVIDIA driver writes "
                             f"(a whole number up to {MAX_XID:,}); the line is damaged")
    return bus_id(m.group(1)), int(code)


#: The usual kernel Xid message (after the host; one "NVRM: Xid" in it) in RE2 syntax: Arrow reads a block's Xid
#: lines with it; :func:`line_record` reads any other message (and says the same of a usual one).
XID_RE2 = (r"^kernel[:\[].*?NVRM: Xid \((?:PCI:)?(?P<bus>[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}"
           r"(?:\.[0-9A-Fa-f])?)" + _MIG + r"\): (?P<code>[0-9]{1,5})(?:[,\t\n\x0b\x0c\r ]|$)")


_KINDS = [(name, pattern, word) for (name, (pattern, *_rest)), word in
          zip(KERNEL_EVENTS.items(), ("ink", "EDAC", "upply", "Kernel panic"))]
_KINDS += [("boot", BOOT, "Linux version"), ("shutdown", SHUTDOWN, "")]  # each match holds its word


def _kind(msg):
    for name, pattern, word in _KINDS:
        if word in msg and pattern.search(msg):
            return name
    return None


def line_record(msg, writer, label, n, keyed=False):
    """``(kind, gpu, xid)`` of a message (bytes, after the host) written by ``writer`` (b"kernel",
    b"systemd-shutdown", another tag, or None when the form does not say), or None when it reports nothing;
    ``keyed``: the message is known to match :data:`KEY_RE2`."""
    if not (keyed or (any(w in msg for w in _WORDS) and _KEY.search(msg))):
        return None
    kernel = writer is None or writer == b"kernel"
    if not (kernel or writer == b"systemd-shutdown"):
        return None
    text = msg.decode("utf-8", "replace")
    if kernel and "NVRM: Xid" in text:
        return ("xid", *_xid(text, label, n))
    kind = _kind(text)
    if kind is None or (not kernel and kind != "shutdown"):
        return None
    return kind, None, np.nan


def writer_of(fmt, msg):
    """The process that wrote a message (its tag, bytes) in a syslog form; None for dmesg (the kernel)."""
    if fmt == "dmesg":
        return None
    return _TAG.match(msg).group(0)


def json_fields(line, host, label, n):
    """``(time, host, writer, message bytes)`` of a ``journalctl -o json`` line; KernelLogError when it is not one.

    ``__REALTIME_TIMESTAMP`` must be a whole number (a JSON number or a string of 0-9); a MESSAGE given
    as an array of byte values (how journald writes text that is not UTF-8) is those bytes.
    """
    try:
        rec = json.loads(line)
        t = rec["__REALTIME_TIMESTAMP"]
        if isinstance(t, str) and t.isascii() and t.isdigit():
            t = int(t)
        if isinstance(t, bool) or not isinstance(t, int):
            raise ValueError
        msg = rec.get("MESSAGE", "")
        if isinstance(msg, list):
            msg = bytes(msg)
        elif isinstance(msg, str):
            msg = msg.encode("utf-8", "surrogatepass")
        else:
            raise ValueError
        name = rec.get("_HOSTNAME", host)
        transport, ident = rec.get("_TRANSPORT"), rec.get("SYSLOG_IDENTIFIER")
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
        raise KernelLogError(f"{label}, line {n}: not a journalctl -o json record with __REALTIME_TIMESTAMP "
                             "(a whole number) and MESSAGE (text or an array of bytes); export with "
                             "journalctl -k -o json") from None
    if transport == "kernel" or (transport is None and ident in (None, "kernel")):
        writer = b"kernel"
    else:
        writer = str(ident).encode("utf-8", "replace")
    return t, str(name), writer, msg


def epoch_unit(value, label, n):
    """The unit of a journalctl epoch number from its magnitude ("s", "ms", "us", "ns")."""
    for cut, unit in ((1e11, "s"), (1e14, "ms"), (1e17, "us"), (1e20, "ns")):
        if 0 < value < cut:
            return unit
    raise KernelLogError(f"{label}, line {n}: the time {value} is not a Unix time in seconds, milliseconds, "
                         "microseconds or nanoseconds")


_MONTH_KEY = {k[0] << 16 | k[1] << 8 | k[2]: v for k, v in MONTHS.items()}
_KEYS = np.array(sorted(_MONTH_KEY), np.int64)
_VALS = np.array([_MONTH_KEY[k] for k in sorted(_MONTH_KEY)], np.int64)


def syslog_times(texts, years, label, lines):
    """RFC 3164 times (15-byte ``b"Mar  1 12:00:00"``) in the given years, as datetime64[ns]; a time that is no
    date (Feb 30, 25:00) is a KernelLogError naming its line."""
    n = len(texts)
    if not n:
        return np.zeros(0, "datetime64[ns]")
    a = np.frombuffer(b"".join(texts), np.uint8).reshape(n, 15).astype(np.int64)
    key = a[:, 0] << 16 | a[:, 1] << 8 | a[:, 2]
    at = np.minimum(np.searchsorted(_KEYS, key), _KEYS.size - 1)
    month = np.where(_KEYS[at] == key, _VALS[at], 0)
    day = np.where(a[:, 4] == 32, 0, a[:, 4] - 48) * 10 + a[:, 5] - 48
    hh, mm, ss = ((a[:, c] - 48) * 10 + a[:, c + 1] - 48 for c in (7, 10, 13))
    mon = (np.asarray(years, np.int64) - 1970) * 12 + month - 1
    date = mon.astype("datetime64[M]").astype("datetime64[D]") + (day - 1)
    back = date.astype("datetime64[M]").astype(np.int64) != mon
    t = date.astype("datetime64[s]") + (hh * 3600 + mm * 60 + ss).astype("timedelta64[s]")  # :60 is the next second
    bad = (month == 0) | (day < 1) | back | (hh > 23) | (mm > 59) | (ss > 60)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise KernelLogError(f"{label}, line {lines[i]}: cannot read the time {texts[i].decode('ascii', 'replace')!r}")
    return t.astype("datetime64[ns]")


def other_times(texts, fmt, label, lines):
    """Times of the rfc5424, iso and dmesg forms (texts as bytes) as datetime64[ns] (offsets converted to UTC).

    A leap second (``23:59:60``) is read as the second after ``23:59:59``, as a POSIX clock counts it."""
    if not len(texts):
        return np.zeros(0, "datetime64[ns]")
    s = pd.Series([t.decode("ascii") for t in texts])
    leap = s.str.contains(r"\d:\d\d:60(?!\d)", regex=True).to_numpy()
    if leap.any():
        s = s.str.replace(r"(\d:\d\d):60(?!\d)", r"\1:59", n=1, regex=True)
    if fmt == "dmesg":
        t = pd.to_datetime(s.str.replace(r"\s+", " ", regex=True), format="%a %b %d %H:%M:%S %Y", errors="coerce")
    else:
        t = pd.to_datetime(s, format="ISO8601", utc=True, errors="coerce").dt.tz_convert("UTC").dt.tz_localize(None)
    bad = np.flatnonzero(t.isna().to_numpy())
    if bad.size:
        raise KernelLogError(f"{label}, line {lines[bad[0]]}: cannot read the time {texts[bad[0]].decode()!r}")
    return t.to_numpy("datetime64[ns]") + np.where(leap, np.timedelta64(1, "s"), np.timedelta64(0, "s"))


def place_years(firsts, year):
    """The year of each RFC 3164 file's first line from those lines' time texts (None: another form; all None
    when ``year`` is None): ``year`` for the earliest, the others after it.

    Without years, a file's first line is a day of some year; the files' first lines are placed on the
    shortest span of one year that holds them all (the largest gap between them, around the year's circle,
    is where the span starts), so daily files of Dec 31 and Jan 1 are a day apart, in any name order."""
    at = [i for i, t in enumerate(firsts) if t is not None]
    bases = [None] * len(firsts)
    if year is None or not at:
        return bases
    day = np.array([_day_of_year(firsts[i]) for i in at], float)
    d = np.sort(day)
    gaps = np.diff(np.append(d, d[0] + 366 * 86400))
    start = d[(int(np.argmax(gaps)) + 1) % d.size]
    for i, x in zip(at, day.tolist()):
        bases[i] = year if x >= start else year + 1
    return bases


def _day_of_year(text):
    """Seconds from Jan 1 of a leap year to an RFC 3164 time (bytes), for ordering only."""
    month = MONTHS.get(text[:3], 1)
    days = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335][month - 1]
    try:
        day, hh, mm, ss = int(text[4:6]), int(text[7:9]), int(text[10:12]), int(text[13:15])
    except ValueError:
        return days * 86400.0
    return ((days + day - 1) * 24 + hh) * 3600.0 + mm * 60 + ss
