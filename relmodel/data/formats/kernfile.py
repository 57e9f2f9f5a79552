"""One kernel log file scanned into records with timestamps: the unit of work of a serial or parallel read.

:func:`scan_file` reads a file (or a text), finds the keyword lines with a
bytes search, parses them in bulk, times them, collects the hosts that wrote
and the first and last times; the result is a plain dict that pickles, so a
folder of files can be scanned on local processes or Dask workers and
assembled into one :class:`~relmodel.data.formats.kernlog.XidLog` by
:func:`~relmodel.data.formats.kernlog.assemble`.
"""

import os
from datetime import datetime
from pathlib import Path

import numpy as np

from ...errors import KernelLogError
from .kernparse import FORMATS, KEY, LINE, LITERALS, records, records_arrow, sniff_format, split_line, stamps
from .kerncols import syslog_records
from .kernscan import (decode_lines, host_firsts, hosts_wrote_before, keyword_lines, line_index, line_view,
                       matching_lines, newlines, read_bytes)

__all__ = ["scan_file"]


def _texts(edges, rec, grid):
    """The time texts of the first edge, the records and the last edge (an (n, 15) byte grid when ``grid``)."""
    head, tail = [e[0] for e in edges[:1]], [e[0] for e in edges[1:]]
    if grid is None:
        return head + rec["text"].tolist() + tail
    ends = [np.frombuffer(t.encode("utf-8"), np.uint8) for t in head + tail]
    if all(e.size == 15 for e in ends):
        return np.vstack(ends[:len(head)] + [grid] + ends[len(head):])
    return head + [bytes(r).decode("ascii") for r in grid] + tail


def _edges(data, fmt, host, label, nl):
    """(time text, line number) of the first and last lines in the form (the observed window)."""
    out = []
    head = data[:1 << 16].split(b"\n")
    for i, ln in enumerate(head[:-1] if len(head) > 1 else head):
        text = ln.decode("utf-8", "replace")
        if text.strip() and (fmt == "json" and text.lstrip().startswith("{") or fmt != "json" and LINE[fmt].match(text)):
            out.append((split_line(text, fmt, host, label, i + 1)[0], i + 1))
            break
    if not out:
        raise KernelLogError(f"{label}: no line of the log's first 64 KiB is in the {fmt} form; give "
                             "log_format= or another file")
    end = len(data)
    while end > 0 and data[end - 1] == 10:
        end -= 1
    n_lines = nl.size + (0 if data.endswith(b"\n") else 1)
    line = n_lines
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        text = data[start:end].decode("utf-8", "replace")
        if text.strip() and (fmt == "json" and text.lstrip().startswith("{") or fmt != "json" and LINE[fmt].match(text)):
            out.append((split_line(text, fmt, host, label, line)[0], line))
            break
        end, line = start - 1, line - 1
    return out, n_lines


def scan_file(source, *, year=None, log_format=None, host=None, hosts=True):
    """A dict: label, fmt, rec (records with ``at`` timestamps), first, last, n_lines, hosts (a set or None)."""
    data, label = read_bytes(source, "kernel log")
    fmt = log_format or sniff_format(data[:1 << 16].decode("utf-8", "replace").split("\n")[:50])
    if fmt is None:
        raise KernelLogError(f"{label}: cannot tell the form of the log from its first lines; give log_format= "
                             f"({', '.join(FORMATS)})")
    year_last = None
    if label != "text":
        host = host or Path(label).name.split(".")[0]
        year_last = datetime.fromtimestamp(os.stat(label).st_mtime).year
    host = host or "localhost"
    grid, view = None, None
    if fmt == "json":
        nl = newlines(data)
        numbers, starts, lines = keyword_lines(data, LITERALS, label, nl)
        rec = records(lines, numbers, starts, fmt, host, label)
    else:  # one table pass over the bytes for the line ends and the lines that may hold a keyword, RE2 on those
        nl, candidates = line_index(data)
        view = line_view(data, nl)
        plain = fmt == "rfc3164" and data.isascii()
        fast = None
        if plain:  # the column reader keeps only lines it names a kind, and each such line holds a keyword:
            # the candidates need no RE2 test unless it steps aside on one of them
            fast = syslog_records(*matching_lines(data, None, label, nl, False, candidates, view))
        if fast is None:
            numbers, starts, lines = matching_lines(data, KEY.pattern, label, nl, decode=not plain,
                                                    candidates=candidates, view=view)
            fast = syslog_records(numbers, starts, lines) if plain else None
        if fast is None:
            rec = records_arrow(decode_lines(lines, numbers, label) if plain else lines, numbers, starts, fmt,
                                host, label)
        else:
            rec, grid = fast
    edges, n_lines = _edges(data, fmt, host, label, nl)
    texts = _texts(edges, rec, grid)
    at = np.concatenate([[e[1] for e in edges[:1]], rec["line"].to_numpy(), [e[1] for e in edges[1:]]]).astype(int)
    when = stamps(texts, fmt, year, label, at, year_last)
    rec["at"] = when[1:1 + len(rec)]
    found, firsts = host_firsts(data, fmt, host, nl, view) if hosts else (None, None)
    firsts = firsts or {}
    boot = np.flatnonzero((rec["kind"] == "boot").to_numpy())
    nodes, byte_at = rec["node"].to_numpy()[boot].tolist(), rec["byte"].to_numpy()[boot].tolist()
    first = {}  # per host, its first boot record
    for n, p in zip(nodes, byte_at):
        first.setdefault(n, p)
    # whether each host wrote before its first boot: a line of its own says so, else a search of the bytes
    ask = {n: p for n, p in first.items() if not firsts.get(n, p) < p}
    told = hosts_wrote_before(data, fmt, ask) if ask else {}
    first = {n: -1 if n not in ask or told[n] else p for n, p in first.items()}
    wrote = np.zeros(len(rec), bool)
    wrote[boot] = [first[n] < p for n, p in zip(nodes, byte_at)]
    rec["wrote_before"] = wrote
    for col in ("byte", "text"):
        if col in rec:
            del rec[col]
    return {"label": label, "fmt": fmt, "rec": rec, "first": when[0],
            "last": when[-1], "n_lines": n_lines, "hosts": found}
