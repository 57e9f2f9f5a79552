"""Kernel logs (syslog, ``dmesg -T``, journalctl) as GPU and node interruptions.

:func:`read_xid` reads one file of any of these forms (sniffed from its
first lines, or named with ``log_format``):

* ``rfc3164``: classic syslog, ``Mar  1 12:00:00 gpu0001 kernel: ...``; the
  year is not written, so ``year`` gives the year of the log's first line (default:
  counted back from the file's modification time); every line's year follows
  from the order of all lines, whatever writes them: a month that falls by
  more than six (December to January) starts the next year;
* ``rfc5424``: ``<6>1 2024-03-01T12:00:00.000+00:00 gpu0001 kernel - - - ...``;
* ``iso``: ``journalctl -o short-iso`` and rsyslog's high-precision files,
  ``2024-03-01T12:00:00+0000 gpu0001 kernel: ...``;
* ``dmesg``: ``dmesg -T``, ``[Fri Mar  1 12:00:00 2024] ...``, one host
  (``host``, default the file's name);
* ``json``: ``journalctl -o json``, one object per line (``__REALTIME_TIMESTAMP``,
  ``_HOSTNAME``, ``MESSAGE``).

The rules (see :mod:`relmodel.data.formats.xid` for the code table):

* only lines the kernel wrote report faults and boots (the syslog tag
  ``kernel:``, RFC 5424's app name, journald's ``_TRANSPORT``): an Xid text
  that ``logger`` or a user process wrote is no GPU fault; a clean shutdown
  may also be written by ``systemd-shutdown``;
* hosts and GPUs are named by their text; a bus id is one GPU however it is
  written (``PCI:0000:CB:00.0`` is ``0000:cb:00``; a MIG-partitioned GPU's
  ``PCI:0000:3b:00 GPU-I:05`` is the GPU ``0000:3b:00``);
* text that is not UTF-8 is read with replacement characters and counted in
  a warning naming the first such line, except in host names, which keep
  such bytes as escapes (``gpu\\xe9``) so that two hosts stay two; a time
  written with digits other than 0-9 is not a time;

* each ``NVRM: Xid (PCI:...): N, ...`` line is an Xid event of the GPU at
  that PCI bus id; the events whose code interrupts a job are outages;
* interrupting lines of one GPU (or, for other kernel events, of one node
  and kind) closer than ``burst`` to the previous one merge into one
  incident (74 repeated per link, 48 followed by 94...), listed in ``problems()``;
* NIC link down, EDAC uncorrected errors, power-supply faults and kernel
  panics are node outages with their own causes;
* a boot line closes the node's most recent open outage when it comes within
  ``max_repair`` of it (its repair time; a NIC link comes back without one);
  an older outage, or one followed by a newer outage of the node, keeps an
  unknown end (listed in ``problems()``: its repair time is right-censored
  in :meth:`XidLog.repair_times`, never read as 0 s);
* a boot that closes nothing is an unexpected reboot when no clean shutdown
  line comes before it (and the node logged something earlier); when the
  node went down is not in the log, so its end is unknown too;
* lines out of time order (a relay that delivered late) are placed by their
  time, listed in ``problems()`` and warned about: none is dropped;
* GPUs of one node that fail in the same second with the same component
  are one outage of the node (the duplicate rule of :func:`~relmodel.data.shaping.logs.read_log`);
* unknown Xid codes are kept as "unknown Xid N" and listed in ``problems()``;
* the observed cluster is every host that wrote a line (``nodes`` overrides);
  times are as the log writes them (offsets converted to UTC).
"""

import warnings

import numpy as np
import pandas as pd

from ...errors import InputTypeError, KernelLogError
from ...units import hours
from ..shaping.clean import clean_events, empty_problems
from ..shaping.durations import Durations
from .kernlines import FORMATS, place_years, sniff_format
from .kernstream import finish, scan_file
from ..shaping.logs import InterruptionLog, LogWarning, _whole_or_none
from .xid import BURST_WINDOW, KERNEL_EVENTS, MAX_REPAIR, REBOOT, classify_xid

__all__ = ["read_xid", "XidLog", "FORMATS", "sniff_format", "OUT_OF_ORDER_MIN", "assemble"]

OUT_OF_ORDER_MIN = 5  #: a line this many minutes earlier than a line above it is out of order


class XidLog(InterruptionLog):
    """GPU and node outages read from a kernel log; build it with :func:`read_xid`.

    ``xid_events`` lists every Xid line (line, time_h, node, gpu, xid,
    component, category, interrupts, cause), also those that do not interrupt.
    ``row`` in ``events`` and ``problems()`` is the line of the log (1-based).
    ``last_seen`` gives, per node (every host that wrote a line), the time of its last line in hours
    from the origin.
    """

    def __init__(self, events, window_h, *, xid_events, log_format, n_lines, last_seen=None, **kwargs):
        super().__init__(events, window_h, **kwargs)
        self.last_seen = last_seen
        self.xid_events = xid_events
        self.log_format = log_format
        self.n_lines = n_lines

    @property
    def _problems(self):  # built from its pieces when first asked for: a reader seldom needs it
        table = self.__dict__.get("_problem_table")
        if table is None:
            table = _problem_table(*self.__dict__.pop("_problem_pieces"))
            self.__dict__["_problem_table"] = table
        return table

    @_problems.setter
    def _problems(self, value):
        if isinstance(value, _Pieces):
            self.__dict__["_problem_pieces"] = value.pieces
            self.__dict__.pop("_problem_table", None)
        else:
            self.__dict__["_problem_table"] = value

    def repair_times(self):
        """Repair times of every outage: known ends observed, unknown ends right-censored.

        An outage whose end the log does not show (no boot of its node within
        ``max_repair``, a newer outage first, an unexpected reboot) lasted at
        least until its last merged line; it is right-censored there, so a
        survival estimator uses it and no count reads it as a 0 s repair.
        """
        ev = self.interruptions()
        start, end = ev["start_h"].to_numpy(float), ev["end_h"].to_numpy(float)
        known = np.isfinite(end)
        low = ev["last_h"].to_numpy(float) - start if "last_h" in ev else np.zeros(len(ev))
        return Durations(np.where(known, end - start, np.maximum(low, 0.0)), known, label="repair times",
                         groups=ev["node"].to_numpy(object))

    @property
    def unknown_ends(self):
        """Outages whose end the log does not show."""
        return int(np.isnan(self.interruptions()["end_h"].to_numpy(float)).sum())

    def xid_counts(self):
        """Lines per Xid code: xid, cause, interrupts, lines."""
        x = self.xid_events
        g = x.groupby(["xid", "cause", "interrupts"], sort=True).size()
        return g.rename("lines").reset_index()

    def __repr__(self):
        return (f"XidLog({self.name!r}: {len(self)} outages on {self.n_nodes} nodes, "
                f"{self.duration_h / 24:.1f} days, {self.n_lines:,} lines)")


class _Pieces:
    """The pieces of a problems table (:func:`_problem_table`'s arguments)."""

    def __init__(self, *pieces):
        self.pieces = pieces


def _merge(rec, burst_h):
    """Merge interrupting records of one GPU (Xid) or one node and kind (others) within ``burst_h``."""
    t, line = rec["time_h"].to_numpy(float), rec["line"].to_numpy()
    node = pd.factorize(rec["node"].to_numpy(object), sort=True)[0]  # codes in the names' order
    key = pd.factorize(rec["key"].to_numpy(object), sort=True)[0]
    order = np.lexsort([line, t, key, node])
    rec = rec.take(order).reset_index(drop=True)
    t, node, key = t[order], node[order], key[order]
    cont = np.zeros(len(rec), bool)
    cont[1:] = (node[1:] == node[:-1]) & (key[1:] == key[:-1]) & (t[1:] - t[:-1] <= burst_h)
    head = np.cumsum(~cont) - 1
    at = np.flatnonzero(~cont)
    merged = rec[cont].assign(into=line[order][at][head[cont]])
    heads = rec[~cont].copy()
    heads["lines_merged"] = np.bincount(head, minlength=len(heads)).astype(int)
    heads["last_h"] = np.maximum.reduceat(t, at) if len(rec) else np.zeros(0)
    return heads, merged


def _boots(out, rec, wrote_before, max_repair_h):
    """Ends of outages closed by their node's next boot; boots that are unexpected reboots (their rows in
    ``rec``); stale outages."""
    ends = np.full(len(out), np.nan)
    extra, stale = [], []
    by_node = {}
    out_t = out["time_h"].to_numpy(float)
    for j, (kind, node, t) in enumerate(zip(out["kind"].tolist(), out["node"].tolist(), out_t.tolist())):
        if kind != "nic_down":  # a link comes back without a reboot
            by_node.setdefault(node, []).append((t, 0, j))
    kind = rec["kind"].to_numpy(object)
    rows = np.flatnonzero(~rec["interrupts"].to_numpy(bool) & ~rec["is_xid"].to_numpy(bool))
    rows = rows[np.isin(kind[rows], ["boot", "shutdown"])]
    flag, when = rec["wrote_before"].to_numpy(bool), rec["at"].to_numpy("datetime64[ns]").astype(np.int64)
    for i, node, t, k in zip(rows.tolist(), rec["node"].to_numpy(object)[rows].tolist(),
                             rec["time_h"].to_numpy(float)[rows].tolist(), kind[rows].tolist()):
        by_node.setdefault(node, []).append((t, 1 if k == "shutdown" else 2, i))
    for node, items in by_node.items():
        open_j, clean = None, False
        for t, what, obj in sorted(items, key=lambda x: (x[0], x[1])):
            if what == 0:
                if open_j is not None:
                    stale.append((open_j, "a newer outage of the node came before any boot"))
                open_j = obj
            elif what == 1:
                clean = True
            else:
                if open_j is not None and t - out_t[open_j] <= max_repair_h:
                    ends[open_j] = t
                else:
                    if open_j is not None:
                        stale.append((open_j, "no boot of the node within max_repair"))
                    if not clean and wrote_before(node, bool(flag[obj]), int(when[obj])):
                        extra.append(obj)
                open_j, clean = None, False
        if open_j is not None:
            stale.append((open_j, "no boot of the node before the log ends"))
    return ends, extra, stale


def _out_of_order(rec, label):
    """Problems rows for records written more than OUT_OF_ORDER_MIN before a record above them (None: none)."""
    t = rec["time_h"].to_numpy(float)
    if t.size < 2:
        return None
    prev = np.maximum.accumulate(t)[:-1]
    late = np.flatnonzero(t[1:] < prev - OUT_OF_ORDER_MIN / 60) + 1
    if not late.size:
        return None
    by = prev[late - 1] - t[late]
    warnings.warn(f"{label}: {late.size:,} lines are written after lines up to {by.max():,.1f} h later than "
                  "them (out of time order); they are placed by their time, none dropped; problems() lists "
                  "them", LogWarning, stacklevel=3)
    return pd.DataFrame({"row": rec["line"].to_numpy()[late], "node": rec["node"].to_numpy(object)[late],
                         "start_h": t[late], "problem": [f"out of time order: {h:,.2f} h before a line above it"
                                                         for h in by],
                         "action": "kept; placed by its time"})


#: The latest year a log may start in: times are nanoseconds from 1970, which end in April 2262.
MAX_YEAR = 2200


def _check_args(year, log_format, burst, max_repair):
    if year is not None and (isinstance(year, bool) or not isinstance(year, (int, np.integer))
                             or not 1970 <= year <= MAX_YEAR):
        raise InputTypeError(f"year= is the year of the log's first line, a whole number from 1970 to {MAX_YEAR} "
                             f"such as 2024; got {year!r}")
    if log_format is not None and log_format not in FORMATS:
        raise KernelLogError(f"log_format={log_format!r} is not a kernel log form; use one of {', '.join(FORMATS)}")
    burst_h, repair_h = float(hours(burst)), float(hours(max_repair))
    if not burst_h >= 0:
        raise KernelLogError(f"burst={burst!r}: the merge window is a duration of 0 or more, e.g. '5min'")
    if not repair_h > 0:
        raise KernelLogError(f"max_repair={max_repair!r}: the longest repair a boot closes is a duration above 0, "
                             "e.g. '3d'")
    return burst_h, repair_h


def read_xid(path_or_text, *, year=None, nodes=None, gpus_per_node=8, burst=BURST_WINDOW, log_format=None,
             host=None, name=None, max_repair=MAX_REPAIR):
    """Read a kernel log; returns an :class:`XidLog` of GPU and node outages (see the module docstring).

    Parameters
    ----------
    path_or_text : a log file (optionally .gz/.xz/.bz2) or its text.
    year : year of the log's first line, for an RFC 3164 syslog (which omits years); the later
        lines' years follow from the order of all lines.
    nodes : nodes of the observed cluster (default: the hosts that wrote a line).
    burst : lines of one GPU closer than this merge into one incident (default 5 min).
    log_format : one of :data:`FORMATS`; sniffed when not given.
    host : host of a ``dmesg -T`` log (default the file's name).
    max_repair : a boot later than this after an outage does not close it (default 3 days).

    The file is read in one streaming pass in blocks (bounded memory, whatever
    its size; :mod:`~relmodel.data.formats.kernstream`): every line's host
    and time are read (``last_seen``), only the lines the kernel wrote that
    hold a keyword are parsed.  A log with no such line is an :class:`XidLog`
    with no outages.

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
    burst_h, repair_h = _check_args(year, log_format, burst, max_repair)
    nodes, gpus_per_node = _whole_or_none("nodes", nodes), _whole_or_none("gpus_per_node", gpus_per_node)
    part = scan_file(path_or_text, year=year, log_format=log_format, host=host, hosts=nodes is None)
    return assemble([part], nodes=nodes, gpus_per_node=gpus_per_node, burst_h=burst_h, repair_h=repair_h,
                    name=name or part["label"], year=year)


def _utf8_warning(parts):
    bad = [(p["label"], *p["bad_utf8"]) for p in parts if p["bad_utf8"][0]]
    if bad:
        total = sum(b[1] for b in bad)
        label, _, first = bad[0]
        warnings.warn(f"{label}: {total:,} lines are not UTF-8 text (the first: line {first:,}); read with "
                      "replacement characters", LogWarning, stacklevel=4)


def assemble(parts, *, nodes, gpus_per_node, burst_h, repair_h, name, year=None):
    """One :class:`XidLog` from the scans of one or more files (:func:`~relmodel.data.formats.kernstream.scan_file`);
    ``year`` is the year of the first line of the earliest RFC 3164 file."""
    _utf8_warning(parts)
    firsts = [p["first"][1] if p["fmt"] == "rfc3164" and isinstance(p["rec"], list) else None for p in parts]
    parts = [finish(p, b) if isinstance(p["rec"], list) else p
             for p, b in zip(parts, place_years(firsts, year))]
    with warnings.catch_warnings():  # files whose records have no Xid: all-empty gpu/xid columns, same dtype
        warnings.simplefilter("ignore", FutureWarning)
        rec = pd.concat([p["rec"] for p in parts if len(p["rec"])] or [parts[0]["rec"]], ignore_index=True)
    rec["part"] = np.repeat(np.arange(len(parts)), [len(p["rec"]) for p in parts])
    origin = min(min([p["first"]] + ([p["rec"]["at"].min()] if len(p["rec"]) else [])) for p in parts)
    last = max(max([p["last"]] + ([p["rec"]["at"].max()] if len(p["rec"]) else [])) for p in parts)
    rec["time_h"] = (rec["at"].to_numpy("datetime64[ns]") - np.datetime64(origin, "ns")) / np.timedelta64(3_600_000_000_000, "ns")
    window = (0.0, float((last - origin) / pd.Timedelta(hours=1)))
    seen_at = pd.concat([p["seen"] for p in parts])  # per host, its last line; and the first line of its earliest file
    code, names = pd.factorize(seen_at.index.to_numpy(object))
    last_ns = np.full(len(names), np.iinfo(np.int64).min)
    np.maximum.at(last_ns, code, seen_at.to_numpy("datetime64[ns]").astype(np.int64))
    first_ns = np.full(len(names), np.iinfo(np.int64).max)
    np.minimum.at(first_ns, code, np.repeat([np.datetime64(p["first"], "ns").astype(np.int64) for p in parts],
                                            [len(p["seen"]) for p in parts]))
    seen_at = pd.Series(last_ns.astype("datetime64[ns]"), index=pd.Index(names, dtype=object)).sort_index()
    earliest = dict(zip(names.tolist(), first_ns.tolist())) if len(parts) > 1 else {}

    def wrote_before(node, flag, at):  # flag: the node wrote before the line in its own file; at: ns
        return flag or earliest.get(node, at) < at

    labels = [p["label"] for p in parts]
    log = _build(rec, window, burst_h, repair_h, wrote_before, labels)
    n_nodes = nodes if nodes is not None else max(len(seen_at), 1)
    last_seen = ((seen_at - origin) / pd.Timedelta(hours=1)).astype(float).rename("last_seen_h").rename_axis("node")
    return XidLog(log["events"], window, xid_events=log["xid"], log_format=parts[0]["fmt"],
                  n_lines=sum(p["n_lines"] for p in parts), origin=origin, cause_columns=["category", "component"],
                  name=name, n_nodes=int(n_nodes), gpus_per_node=gpus_per_node, problems=log["problems"],
                  last_seen=last_seen)


def _classified(rec):
    """Component, category, interrupts and cause of each record (one lookup per distinct kind and code);
    ``key`` (an Xid record's bus id, else its kind) and ``is_xid`` are added too."""
    kind = rec["kind"].to_numpy(object)
    xid = rec["xid"]
    code = (xid if xid.dtype.kind == "f" else pd.to_numeric(xid, errors="coerce")).to_numpy(float)
    kcode, kinds = pd.factorize(kind)
    ccode = np.where(np.isnan(code), -1, code).astype(np.int64) + 1
    inv, ukey = pd.factorize(kcode.astype(np.int64) * (1 << 40) + ccode)  # hash-based: no sort of the records
    info = []
    for u in np.asarray(ukey).tolist():
        k, c = kinds[u >> 40], (u & ((1 << 40) - 1)) - 1
        info.append(classify_xid(c) if k == "xid" else
                    (*KERNEL_EVENTS[k][1:3], True, KERNEL_EVENTS[k][3]) if k in KERNEL_EVENTS else
                    (None, None, False, None))
    for j, name in enumerate(["component", "category", "interrupts", "cause"]):
        col = np.array([i[j] for i in info] or [None], object)[inv]
        rec[name] = col.astype(bool) if name == "interrupts" else col
    is_xid = kcode == (list(kinds).index("xid") if "xid" in list(kinds) else -2)
    key = kind.copy()
    key[is_xid] = rec["gpu"].to_numpy(object)[is_xid]  # an Xid record's bus id (a string)
    rec["key"] = key
    rec["is_xid"] = is_xid
    rec["is_unknown"] = np.array([i[1] == "Unknown" for i in info] or [False], bool)[inv]
    return rec


def _columns(heads, reboots, rec):
    cols = {"row": heads["line"].to_numpy(), "start_h": heads["time_h"].to_numpy(float),
            "end_h": heads["end_h"].to_numpy(float), "node": heads["node"].to_numpy(object),
            "gpu": heads["gpu"].to_numpy(object), "xid": heads["xid"].to_numpy(float),
            "category": heads["category"].to_numpy(object), "component": heads["component"].to_numpy(object),
            "cause": heads["cause"].to_numpy(object), "lines_merged": heads["lines_merged"].to_numpy(int),
            "last_h": heads["last_h"].to_numpy(float)}
    if reboots:
        n = len(reboots)
        line, t, node = (rec[c].to_numpy()[reboots] for c in ("line", "time_h", "node"))
        more = {"row": line, "start_h": t, "end_h": [np.nan] * n, "node": node, "gpu": [None] * n,
                "xid": [np.nan] * n, "category": [REBOOT[1]] * n, "component": [REBOOT[0]] * n,
                "cause": [REBOOT[2]] * n, "lines_merged": [1] * n, "last_h": t}
        cols = {k: np.concatenate([v, np.asarray(more[k], dtype=v.dtype)]) for k, v in cols.items()}
    order = np.lexsort([cols["row"], cols["start_h"]])
    cols = {k: v[order] for k, v in cols.items()}
    cols["planned"] = np.zeros(len(cols["row"]), bool)
    return cols


def _ascending(first, then):
    """Whether rows are in order of ``first``, then ``then`` (no two rows equal in both)."""
    if first.size < 2:
        return True
    d1, d2 = np.diff(first), np.diff(then)
    return bool(((d1 > 0) | ((d1 == 0) & (d2 > 0))).all())


def _build(rec, window, burst_h, repair_h, wrote_before, label):
    """Outages, Xid lines and problems of the records (``label``: one name per part)."""
    if not _ascending(rec["time_h"].to_numpy(float), rec["line"].to_numpy()):
        rec = rec.take(np.lexsort([rec["line"].to_numpy(), rec["time_h"].to_numpy(float)]))
    rec = _classified(rec.reset_index(drop=True))
    part = rec["part"].to_numpy()
    by_line = rec[["line", "node", "time_h"]]
    if not _ascending(part, rec["line"].to_numpy()):
        by_line = by_line.take(np.lexsort([rec["line"].to_numpy(), part]))
    bounds = [0, *(np.flatnonzero(np.diff(part[by_line.index.to_numpy()])) + 1).tolist(), len(by_line)]
    groups = [by_line.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    late = [p for p in (_out_of_order(g, label[int(part[g.index[0]])]) for g in groups) if p is not None]
    order_problems = pd.concat(late, ignore_index=True) if late else empty_problems()
    at = np.flatnonzero(rec["is_xid"].to_numpy())
    xid = pd.DataFrame({c: rec[c].to_numpy()[at] for c in ["line", "time_h", "node", "gpu", "xid", "component",
                                                            "category", "interrupts", "cause"]})
    xid["xid"] = xid["xid"].astype(int)
    heads, merged = _merge(rec[rec["interrupts"].to_numpy(bool)], burst_h)
    ends, reboots, stale = _boots(heads, rec, wrote_before, repair_h)
    heads["end_h"] = ends
    events, problems, _ = clean_events(_columns(heads, reboots, rec), ["category", "component"], window)
    events["xid"] = events["xid"].astype("Int64")
    unknown = xid[rec["is_unknown"].to_numpy()[at]]
    return {"events": events, "xid": xid, "problems": _Pieces(unknown, merged, heads, stale, order_problems, problems)}


def _problem_table(unknown, merged, heads, stale, order_problems, problems):
    """One row per flagged line, in line order: unknown codes, merged bursts, unknown ends, order, clean-up."""
    open_rows = pd.DataFrame({"row": [heads["line"].iat[j] for j, _ in stale],
                              "node": [heads["node"].iat[j] for j, _ in stale],
                              "start_h": [heads["time_h"].iat[j] for j, _ in stale],
                              "problem": ["end unknown: " + why for _, why in stale],
                              "action": "kept; its repair time is right-censored (repair_times())"})
    extra = [pd.DataFrame({"row": unknown["line"], "node": unknown["node"], "start_h": unknown["time_h"],
                           "problem": "unknown Xid " + unknown["xid"].astype(str),
                           "action": "kept as an interruption named 'unknown Xid N'"}),
             pd.DataFrame({"row": merged["line"], "node": merged["node"], "start_h": merged["time_h"],
                           "problem": "burst", "action": "merged into the incident of line " + merged["into"].astype(str)}),
             open_rows, order_problems]
    problems = pd.concat([p for p in extra + [problems] if len(p)] or [empty_problems()], ignore_index=True)
    return problems.sort_values("row", kind="stable").reset_index(drop=True)
