"""Kernel logs (syslog, ``dmesg -T``, journalctl) as GPU and node interruptions.

:func:`read_xid` reads one file of any of these forms (sniffed from its
first lines, or named with ``log_format``):

* ``rfc3164``: classic syslog, ``Mar  1 12:00:00 gpu0001 kernel: ...``; the
  year is not written, so ``year`` gives the year of the first line (default:
  counted back from the file's modification time); a month that falls by
  more than six (December to January) starts the next year;
* ``rfc5424``: ``<6>1 2024-03-01T12:00:00.000+00:00 gpu0001 kernel - - - ...``;
* ``iso``: ``journalctl -o short-iso`` and rsyslog's high-precision files,
  ``2024-03-01T12:00:00+0000 gpu0001 kernel: ...``;
* ``dmesg``: ``dmesg -T``, ``[Fri Mar  1 12:00:00 2024] ...``, one host
  (``host``, default the file's name);
* ``json``: ``journalctl -o json``, one object per line (``__REALTIME_TIMESTAMP``,
  ``_HOSTNAME``, ``MESSAGE``).

The rules (see :mod:`relmodel.data.xid` for the code table):

* each ``NVRM: Xid (PCI:...): N, ...`` line is an Xid event of the GPU at
  that PCI bus id; the events whose code interrupts a job are outages;
* interrupting lines of one GPU (or, for other kernel events, of one node
  and kind) closer than ``burst`` to the previous one merge into one
  incident (74 repeated per link, 48 followed by 94...), listed in ``problems()``;
* NIC link down, EDAC uncorrected errors and power-supply faults are node
  outages with their own causes; a boot line closes the node's open outage
  (its repair time; a NIC link comes back without one) and is itself an unexpected reboot when no clean
  shutdown line and no open outage comes before it (and the node logged
  something earlier);
* GPUs of one node that fail in the same second with the same component
  are one outage of the node (the duplicate rule of :func:`~relmodel.data.logs.read_log`);
* unknown Xid codes are kept as "unknown Xid N" and listed in ``problems()``;
* the observed cluster is every host that wrote a line (``nodes`` overrides);
  times are as the log writes them (offsets converted to UTC).
"""

import json
import os
import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputTypeError, KernelLogError
from ..units import hours
from .clean import clean_events, empty_problems
from .logs import InterruptionLog, _whole_or_none
from .textinput import read_raw
from .xid import BOOT, BURST_WINDOW, KERNEL_EVENTS, REBOOT, SHUTDOWN, classify_xid

__all__ = ["read_xid", "XidLog", "FORMATS", "sniff_format"]

FORMATS = ("rfc3164", "rfc5424", "iso", "dmesg", "json")
_LINE = {
    "rfc3164": re.compile(r"^(?:<\d{1,3}>)?([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) (\S+) (.*)$"),
    "rfc5424": re.compile(r"^<\d{1,3}>\d{1,2} (\S+) (\S+) (.*)$"),
    "iso": re.compile(r"^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*) (\S+) (.*)$"),
    "dmesg": re.compile(r"^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})\] (.*)$"),
}
_KEY = re.compile(r"NVRM: Xid|[Ll]ink (?:is )?[Dd]own|EDAC|[Pp]ower [Ss]upply|Linux version|reboot: |systemd-shutdown")
_XID = re.compile(r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-9A-Fa-f])?)\): "
                  r"([^,\s]+)")
_HOST_JSON = re.compile(r'"_HOSTNAME"\s*:\s*"([^"]*)"')


class XidLog(InterruptionLog):
    """GPU and node outages read from a kernel log; build it with :func:`read_xid`.

    ``xid_events`` lists every Xid line (line, time_h, node, gpu, xid,
    component, category, interrupts, cause), also those that do not interrupt.
    ``row`` in ``events`` and ``problems()`` is the line of the log (1-based).
    """

    def __init__(self, events, window_h, *, xid_events, log_format, n_lines, **kwargs):
        super().__init__(events, window_h, **kwargs)
        self.xid_events = xid_events
        self.log_format = log_format
        self.n_lines = n_lines

    def xid_counts(self):
        """Lines per Xid code: xid, cause, interrupts, lines."""
        x = self.xid_events
        g = x.groupby(["xid", "cause", "interrupts"], sort=True).size()
        return g.rename("lines").reset_index()

    def __repr__(self):
        return (f"XidLog({self.name!r}: {len(self)} outages on {self.n_nodes} nodes, "
                f"{self.duration_h / 24:.1f} days, {self.n_lines:,} lines)")


def sniff_format(lines):
    """The form of a kernel log from its first readable lines: one of :data:`FORMATS`, or None."""
    for line in lines[:50]:
        s = line.strip()
        if not s or s.startswith("-- "):
            continue
        if s.startswith("{"):
            return "json"
        for name in ("rfc5424", "dmesg", "iso", "rfc3164"):
            if _LINE[name].match(s):
                return name
    return None


def _hosts_and_ok(lines, fmt, host):
    """Per line, the host (None when the line is not in the form) — a fast pass over every line."""
    if fmt == "rfc3164" and any(ln.startswith("<") for ln in lines[:50]):  # with a <PRI> prefix: the slow way
        matches = (_LINE["rfc3164"].match(ln) for ln in lines)
        return [m.group(2) if m else None for m in matches]
    if fmt == "rfc3164":
        return [ln[16:ln.find(" ", 16)] if len(ln) > 17 and ln[15] == " " and ln[3] == " " else None
                for ln in lines]
    if fmt == "iso":
        return [ln.split(" ", 2)[1] if ln[:4].isdigit() and ln.count(" ", 0, 40) else None for ln in lines]
    if fmt == "rfc5424":
        return [ln.split(" ", 3)[2] if ln.startswith("<") and ln.count(" ", 0, 60) >= 3 else None for ln in lines]
    if fmt == "dmesg":
        return [host if ln.startswith("[") else None for ln in lines]
    out = []
    for ln in lines:
        m = _HOST_JSON.search(ln) if ln.startswith("{") else None
        out.append(m.group(1) if m else None)
    return out


def _split(line, fmt, host, label, n):
    """``(time text, host, message)`` of one line; KernelLogError when it is not in the form."""
    if fmt == "json":
        try:
            rec = json.loads(line)
            msg = rec.get("MESSAGE", "")
            if isinstance(msg, list):  # journald writes non-UTF-8 messages as byte arrays
                msg = bytes(msg).decode("utf-8", "replace")
            return int(rec["__REALTIME_TIMESTAMP"]), str(rec.get("_HOSTNAME", host)), str(msg)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise KernelLogError(f"{label}, line {n}: not a journalctl -o json record with __REALTIME_TIMESTAMP "
                                 "and MESSAGE; export with journalctl -k -o json") from None
    m = _LINE[fmt].match(line)
    if not m:
        raise KernelLogError(f"{label}, line {n}: the line is not in the {fmt} form of the rest of the file "
                             f"({line[:60]!r}); give one kind of log per file, or log_format=")
    return (m.group(1), host, m.group(2)) if fmt == "dmesg" else m.groups()


def _times(texts, fmt, year, label, lines_at, year_last=None):
    """Hours-capable timestamps (naive) of the time texts of one form."""
    if fmt == "json":
        return pd.to_datetime(np.asarray(texts, dtype="int64"), unit="us")
    if fmt in ("rfc5424", "iso"):
        t = pd.to_datetime(pd.Series(texts), format="ISO8601", utc=True, errors="coerce")
        t = t.dt.tz_convert("UTC").dt.tz_localize(None)
    elif fmt == "dmesg":
        t = pd.to_datetime(pd.Series(texts).str.replace(r"\s+", " ", regex=True), format="%a %b %d %H:%M:%S %Y",
                           errors="coerce")
    else:
        t = _syslog_years(texts, year, label, lines_at, year_last)
    bad = np.flatnonzero(t.isna().to_numpy())
    if bad.size:
        raise KernelLogError(f"{label}, line {lines_at[bad[0]]}: cannot read the time {texts[bad[0]]!r}")
    return pd.DatetimeIndex(t)


def _syslog_years(texts, year, label, lines_at, year_last):
    s = pd.Series(texts).str.replace(r"\s+", " ", regex=True)
    month = pd.to_datetime("2000 " + s, format="%Y %b %d %H:%M:%S", errors="coerce").dt.month.to_numpy()
    offset, last, years = 0, None, np.zeros(len(s), int)
    for i, m in enumerate(month):
        if np.isnan(m):
            continue
        if last is not None and m < last - 6:
            offset += 1
        elif last is not None and m > last + 6 and offset > 0:
            years[i] = offset - 1  # a late line of the old year
            continue
        years[i], last = offset, m
    base = year if year is not None else (year_last - offset if year_last is not None else None)
    if base is None:
        raise KernelLogError(f"{label}: syslog lines do not say the year; give year= (the year of line "
                             f"{lines_at[0]})")
    return pd.to_datetime((base + years).astype(str) + " " + s, format="%Y %b %d %H:%M:%S", errors="coerce")


def _kind(msg, label, n):
    """What a message reports: ("xid", gpu, code), ("nic_down"|..., None, None), ("boot"|"shutdown"...)."""
    if "NVRM: Xid" in msg:
        m = _XID.search(msg)
        if not m or not m.group(2).isdigit():
            raise KernelLogError(f"{label}, line {n}: cannot read the Xid line {msg[:80]!r}; expected "
                                 "NVRM: Xid (PCI:0000:cb:00): 79, ...")
        return "xid", m.group(1).lower(), int(m.group(2))
    for name, (pattern, *_rest) in KERNEL_EVENTS.items():
        if pattern.search(msg):
            return name, None, None
    if BOOT.search(msg):
        return "boot", None, None
    if SHUTDOWN.search(msg):
        return "shutdown", None, None
    return None, None, None


_LITERALS = ("NVRM: Xid", "ink down", "ink Down", "ink is down", "ink is Down", "EDAC", "ower supply", "ower Supply",
             "Linux version", "reboot: ", "systemd-shutdown")  # every line _KEY can match holds one of these


def _candidates(text):
    """0-based numbers of the lines holding a keyword: C-speed ``str.find`` over the whole text."""
    pos = []
    for lit in _LITERALS:
        i = text.find(lit)
        while i >= 0:
            pos.append(i)
            i = text.find(lit, i + 1)
    pos.sort()
    out, prev, line = [], 0, 0
    for p in pos:
        line += text.count("\n", prev, p)
        prev = p
        if not out or out[-1] != line:
            out.append(line)
    return out


def _records(text, lines, fmt, host, label):
    """One record per line that reports something: (line, time text, host, kind, gpu, xid, message)."""
    out = []
    for i in _candidates(text):
        line = lines[i]
        if not _KEY.search(line):
            continue
        t, h, msg = _split(line, fmt, host, label, i + 1)
        kind, gpu, code = _kind(msg, label, i + 1)
        if kind is not None:
            out.append((i + 1, t, h, kind, gpu, code, msg))
    return out


def _edge_times(lines, fmt, host, hosts_ok):
    """Time texts and line numbers of the first and last lines in the form (the observed window)."""
    ok = [i for i in (next((i for i, h in enumerate(hosts_ok) if h is not None), None),
                      next((i for i in range(len(lines) - 1, -1, -1) if hosts_ok[i] is not None), None))
          if i is not None]
    if not ok:
        raise KernelLogError(f"no line of the log is in the {fmt} form; give log_format= or another file")
    return [(_split(lines[i], fmt, host, "log", i + 1)[0], i + 1) for i in ok]


def _merge(rec, burst_h):
    """Merge interrupting records of one GPU (Xid) or one node and kind (others) within ``burst_h``."""
    rec = rec.sort_values(["node", "key", "time_h", "line"], kind="stable").reset_index(drop=True)
    same = (rec["node"] == rec["node"].shift()) & (rec["key"] == rec["key"].shift())
    gap = rec["time_h"] - rec["time_h"].shift()
    cont = (same & (gap <= burst_h)).to_numpy()
    head = np.cumsum(~cont) - 1
    first = rec.groupby(head)["line"].transform("first")
    merged = rec[cont].assign(into=first[cont])
    heads = rec[~cont].copy()
    heads["lines_merged"] = np.bincount(head).astype(int)
    return heads, merged


def _boots(out, rec, first_line):
    """Close open outages at the node's next boot; unexpected reboots become outages."""
    ends = np.full(len(out), np.nan)
    extra = []
    by_node = {}
    for j, r in enumerate(out.itertuples()):
        if r.kind != "nic_down":  # a link comes back without a reboot
            by_node.setdefault(r.node, []).append((r.time_h, 0, j))
    for r in rec[rec["kind"].isin(["boot", "shutdown"])].itertuples():
        by_node.setdefault(r.node, []).append((r.time_h, 1 if r.kind == "shutdown" else 2, r))
    for node, items in by_node.items():
        open_j, clean = None, False
        for t, what, obj in sorted(items, key=lambda x: (x[0], x[1])):
            if what == 0:
                open_j = obj
            elif what == 1:
                clean = True
            else:
                if open_j is not None:
                    ends[open_j] = t
                elif not clean and first_line.get(node, obj.line) < obj.line:
                    extra.append(obj)
                open_j, clean = None, False
    return ends, extra


def read_xid(path_or_text, *, year=None, nodes=None, gpus_per_node=8, burst=BURST_WINDOW, log_format=None,
             host=None, name=None):
    """Read a kernel log; returns an :class:`XidLog` of GPU and node outages (see the module docstring).

    Parameters
    ----------
    path_or_text : a log file (optionally .gz/.xz/.bz2) or its text.
    year : year of the first line of an RFC 3164 syslog (which omits it).
    nodes : nodes of the observed cluster (default: the hosts that wrote a line).
    burst : lines of one GPU closer than this merge into one incident (default 5 min).
    log_format : one of :data:`FORMATS`; sniffed when not given.
    host : host of a ``dmesg -T`` log (default the file's name).

    Examples
    --------
    >>> text = '''Mar  1 00:00:00 gpu01 kernel: Linux version 6.8.0 (build)
    ... Mar  1 00:00:00 gpu02 kernel: Linux version 6.8.0 (build)
    ... Mar  2 10:00:00 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus.
    ... Mar  2 10:00:02 gpu01 kernel: NVRM: Xid (PCI:0000:cb:00): 79, pid=77, GPU has fallen off the bus.
    ... Mar  2 11:00:00 gpu01 kernel: Linux version 6.8.0 (build)
    ... Mar  3 00:00:00 gpu02 kernel: NVRM: Xid (PCI:0000:1a:00): 13, Graphics Exception
    ... '''
    >>> log = read_xid(text, year=2024)
    >>> len(log), log.n_nodes, list(log.events["component"]), log.downtimes().hours.round(3).tolist()
    (1, 2, ['Faulty GPU'], [1.0])
    """
    if year is not None and (isinstance(year, bool) or not isinstance(year, (int, np.integer))
                             or not 1970 <= year <= 9999):
        raise InputTypeError(f"year= is the year of the log's first line, a whole number such as 2024; got {year!r}")
    if log_format is not None and log_format not in FORMATS:
        raise KernelLogError(f"log_format={log_format!r} is not a kernel log form; use one of {', '.join(FORMATS)}")
    nodes, gpus_per_node = _whole_or_none("nodes", nodes), _whole_or_none("gpus_per_node", gpus_per_node)
    burst_h = float(hours(burst))
    if burst_h < 0:
        raise KernelLogError(f"burst={burst!r}: the merge window is a duration of 0 or more, e.g. '5min'")
    text, label = read_raw(path_or_text, "kernel log")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    fmt = log_format or sniff_format(lines)
    if fmt is None:
        raise KernelLogError(f"{label}: cannot tell the form of the log from its first lines; give log_format= "
                             f"({', '.join(FORMATS)})")
    year_last = None
    if label != "text":
        host = host or Path(label).name.split(".")[0]
        year_last = datetime.fromtimestamp(os.stat(label).st_mtime).year
    host = host or "localhost"
    hosts_ok = _hosts_and_ok(lines, fmt, host)
    hosts = pd.Series(hosts_ok, dtype=object).dropna().drop_duplicates()
    first_line = dict(zip(hosts.to_numpy(), hosts.index.to_numpy() + 1))
    rec = _records(text, lines, fmt, host, label)
    edges = _edge_times(lines, fmt, host, hosts_ok)
    texts = [e[0] for e in edges[:1]] + [r[1] for r in rec] + [e[0] for e in edges[1:]]
    at = [e[1] for e in edges[:1]] + [r[0] for r in rec] + [e[1] for e in edges[1:]]
    stamps = _times(texts, fmt, year, label, at, year_last)
    origin = stamps[0]
    h = ((stamps - origin) / pd.Timedelta(hours=1)).to_numpy(float)
    rec = pd.DataFrame(rec, columns=["line", "text", "node", "kind", "gpu", "xid", "message"])
    rec["time_h"] = h[1:1 + len(rec)]
    window = (0.0, float(h.max()))
    log = _build(rec, window, burst_h, first_line, fmt, label, len(lines))
    n_nodes = nodes if nodes is not None else len(first_line)
    return XidLog(log["events"], window, xid_events=log["xid"], log_format=fmt, n_lines=len(lines),
                  origin=origin, cause_columns=["category", "component"], name=name or label,
                  n_nodes=int(n_nodes), gpus_per_node=gpus_per_node, problems=log["problems"])


def _classified(rec):
    info = [classify_xid(c) if k == "xid" else
            ((*KERNEL_EVENTS[k][1:3], True, KERNEL_EVENTS[k][3]) if k in KERNEL_EVENTS else (None, None, False, None))
            for k, c in zip(rec["kind"], rec["xid"])]
    rec = rec.assign(component=[i[0] for i in info], category=[i[1] for i in info],
                     interrupts=[bool(i[2]) for i in info], cause=[i[3] for i in info])
    rec["key"] = np.where(rec["kind"] == "xid", rec["gpu"].astype(str), rec["kind"])
    return rec


def _build(rec, window, burst_h, first_line, fmt, label, n_lines):
    rec = _classified(rec)
    xid = rec[rec["kind"] == "xid"][["line", "time_h", "node", "gpu", "xid", "component", "category",
                                     "interrupts", "cause"]].reset_index(drop=True)
    xid["xid"] = xid["xid"].astype(int)
    heads, merged = _merge(rec[rec["interrupts"]], burst_h)
    ends, reboots = _boots(heads, rec, first_line)
    heads["end_h"] = ends
    heads = heads.sort_values(["time_h", "line"], kind="stable")
    cols = {"row": heads["line"].to_numpy(), "start_h": heads["time_h"].to_numpy(float),
            "end_h": heads["end_h"].to_numpy(float), "node": heads["node"].to_numpy(object),
            "gpu": heads["gpu"].to_numpy(object), "xid": heads["xid"].to_numpy(float),
            "category": heads["category"].to_numpy(object), "component": heads["component"].to_numpy(object),
            "cause": heads["cause"].to_numpy(object), "lines_merged": heads["lines_merged"].to_numpy(int)}
    if reboots:
        n = len(reboots)
        more = {"row": [r.line for r in reboots], "start_h": [r.time_h for r in reboots],
                "end_h": [r.time_h for r in reboots], "node": [r.node for r in reboots], "gpu": [None] * n,
                "xid": [np.nan] * n, "category": [REBOOT[1]] * n, "component": [REBOOT[0]] * n,
                "cause": [REBOOT[2]] * n, "lines_merged": [1] * n}
        cols = {k: np.concatenate([v, np.asarray(more[k], dtype=v.dtype)]) for k, v in cols.items()}
        order = np.lexsort([cols["row"], cols["start_h"]])
        cols = {k: v[order] for k, v in cols.items()}
    cols["planned"] = np.zeros(len(cols["row"]), bool)
    events, problems, _ = clean_events(cols, ["category", "component"], window)
    events["xid"] = events["xid"].astype("Int64")
    unknown = xid[xid["category"] == "Unknown"]
    extra = [pd.DataFrame({"row": unknown["line"], "node": unknown["node"], "start_h": unknown["time_h"],
                           "problem": "unknown Xid " + unknown["xid"].astype(str),
                           "action": "kept as an interruption named 'unknown Xid N'"}),
             pd.DataFrame({"row": merged["line"], "node": merged["node"], "start_h": merged["time_h"],
                           "problem": "burst", "action": "merged into the incident of line " + merged["into"].astype(str)})]
    problems = pd.concat([p for p in extra + [problems] if len(p)] or [empty_problems()], ignore_index=True)
    return {"events": events, "xid": xid, "problems": problems.sort_values("row", kind="stable").reset_index(drop=True)}
