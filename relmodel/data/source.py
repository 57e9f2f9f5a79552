"""One data source for the whole report suite: a bundled name or a user's file.

:func:`load_source` takes what a report's parameters say (``log`` plus the
:func:`~relmodel.data.shaping.logs.read_log` column mapping and the observed cluster)
and returns a :class:`Source`: the :class:`~relmodel.data.shaping.logs.InterruptionLog`
or :class:`~relmodel.data.shaping.counts.CountTable` together with the cluster it was
observed on (``source_gpus``, ``gpus_per_node``) and where those numbers came
from.  A CSV with ``component`` and ``count`` columns is read as a count table;
its exposure is the ``exposure`` argument or an ``exposure_h`` / ``days``
column, its cluster ``source_gpus`` or an ``n_gpus`` column.
"""

import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import CountError, ExposureError, MissingColumnError, UnitError, WindowError
from .shaping.counts import CountTable, count_table
from .bundled.datasets import NAMES, bundled_count_name, load
from .shaping.logs import LogWarning, read_log
from .shaping.outages import drop_short_outages
from .shaping.damaged import refuse_empty
from .shaping.readers import csv_header, read_table, require_existing
from relmodel.base.escape import html_text

__all__ = ["Source", "load_source", "UNITS", "is_count_file"]

#: What one row's node of a log can be: a GPU server (the default) or a unit with no GPUs in it.
UNITS = ("gpu-node", "node", "disk", "server")
#: GPUs a node of the planned job holds when the observed units hold none (``gpus_per_node=0``).
PLANNED_GPUS_PER_NODE = 8


@dataclass(frozen=True, eq=False)
class Source:
    """A log or count table with the cluster it was observed on.

    ``kind`` is "log" (event times: fits, trends, replays) or "counts" (counts
    over an exposure only).  ``cluster_from`` says how ``source_gpus`` was
    found; ``notes`` lists what a reader should know about the data.
    """

    data: object
    kind: str
    name: str
    source_gpus: int
    gpus_per_node: int
    n_events: int
    span_h: float
    cluster_from: str
    notes: tuple = ()
    unit: str = "gpu-node"

    @property
    def counts_gpus(self):
        """True when the log's units are GPU nodes, so its cluster can be stated in GPUs."""
        return self.unit == "gpu-node"

    @property
    def unit_name(self):
        """What one row's node is, in a word: "node" for a GPU node, else "disk", "server" or "node"."""
        return "node" if self.counts_gpus else self.unit

    def units_text(self, n=None):
        """``"3,279 disks"`` (or ``"16,384 GPUs"`` for GPU nodes): what was counted."""
        if self.counts_gpus:
            return f"{self.source_gpus if n is None else n:,} GPUs"
        n = self.n_nodes if n is None else n
        return f"{n:,} {self.unit}{'' if n == 1 else 's'}"

    @property
    def is_log(self):
        """True when the source has event times (so durations can be fitted)."""
        return self.kind == "log"

    @property
    def has_repairs(self):
        """True when the log gives outage end times."""
        return self.is_log and bool(self.data.events["end_h"].notna().any())

    @property
    def has_causes(self):
        """True when the outages are split by cause (a count table always is; a log when it names a cause column)."""
        return not self.is_log or bool(self.data.cause_columns)

    @property
    def measured_restart(self):
        """The restart time measured from a Slurm run's requeue gaps (a ``MeasuredRestart``), or None.

        None when the source is not a Slurm run or no interruption is followed
        by a restart; otherwise its ``median_h``, ``n`` and ``source``
        ("measured from the log ...") are what a decision reports.
        """
        if not hasattr(self.data, "restart"):
            return None
        r = self.data.restart()
        return r if r.n else None

    @property
    def n_nodes(self):
        """Nodes of the observed cluster."""
        return max(1, self.source_gpus // self.gpus_per_node)

    def describe(self):
        """One sentence: what the data is, its size and time span."""
        what = "interruptions" if self.kind == "counts" else "outages"
        return (f"{self.name}: {self.n_events:,} {what} over {self.span_h / 24:,.0f} days on "
                f"{self.units_text()} ({self.cluster_from})")

    @property
    def inside_maintenance(self):
        """``[(row, node), ...]``: unplanned outages that began inside planned maintenance, kept as interruptions."""
        problems = getattr(self.data, "problems", None)
        if not self.is_log or problems is None:
            return []
        p = problems()
        if not len(p) or "problem" not in p:
            return []
        hit = p[p["problem"] == "unplanned outage inside planned maintenance"]
        return [(int(r), str(n)) for r, n in zip(hit["row"], hit.get("node", [""] * len(hit)))]

    def to_dict(self):
        """The facts a report index states about its data (JSON-able)."""
        return {"inside_maintenance": [list(x) for x in self.inside_maintenance], "name": self.name, "kind": self.kind, "events": self.n_events, "span_h": self.span_h,
                "source_gpus": self.source_gpus if self.counts_gpus else None, "gpus_per_node": self.gpus_per_node,
                "cluster_from": self.cluster_from, "notes": list(self.notes), "unit": self.unit,
                "units": self.n_nodes, "counted": self.units_text()}

    def _repr_html_(self):
        notes = "".join(f"<br><i>{html_text(n)}</i>" for n in self.notes)
        return f"<p>{html_text(self.describe())}.{notes}</p>"


def is_count_file(path):
    """True when ``path`` is an existing CSV (.csv, .csv.gz, .csv.xz) whose header has component and count."""
    p = Path(str(path))
    return p.suffix.lower() in (".csv", ".gz", ".xz") and p.is_file() and _is_count_csv(p)


def _is_count_csv(path):
    try:
        head = csv_header(path)  # the header only: a ragged row or a bad byte is the reader's to name
    except Exception:  # not a CSV: an event log in another format
        return False
    cols = {str(c).strip().lower() for c in head}
    return {"component", "count"} <= cols


def _counts_from_csv(path, source_gpus, gpus_per_node, exposure):
    table, _ = read_table(path)
    table.columns = [str(c).strip().lower() for c in table.columns]
    notes = []
    if exposure is None:
        given = [(c, f) for c, f in (("exposure_h", 1.0), ("days", 24.0)) if c in table]
        if given:
            exposure = _exposure_column(path, table, given)
        else:
            raise MissingColumnError(f"{path}: a count table needs its observation time: pass exposure "
                                     "(e.g. '54d') or add an exposure_h or days column")
    if source_gpus is None and "n_gpus" in table:
        source_gpus = _one_value(path, table, "n_gpus", 1.0)
        if not float(source_gpus).is_integer():
            raise CountError(f"{path}, column 'n_gpus': {source_gpus:g} is not a whole number of GPUs; "
                             "n_gpus must be a whole number such as 4096")
    if source_gpus is None:
        raise MissingColumnError(f"{path}: a count table does not say how many GPUs it covers; pass "
                                 "source_gpus (the GPUs observed) or add an n_gpus column")
    data = count_table(table, n_gpus=int(source_gpus), gpus_per_node=int(gpus_per_node),
                       duration=exposure, name=Path(path).name)
    return data, "as given", notes


def _one_value(path, table, col, factor):
    """The one value (times ``factor``) every row of ``col`` gives; an error naming rows that disagree."""
    values = pd.to_numeric(table[col], errors="coerce").astype(float).to_numpy() * factor
    bad = np.flatnonzero(~np.isfinite(values) | ~np.isclose(values, values[0], rtol=1e-9))
    if bad.size:
        rows = ", ".join(f"row {i + 1} (line {i + 2}): {table[col].iloc[i]}" for i in bad[:5])
        raise ExposureError(f"{path}, column {col!r}: {bad.size} rows are blank, not numbers or "
                            f"differ from row 1 ({table[col].iloc[0]}): {rows}; every row of {col} must give the same finite number")
    return float(values[0])


def _exposure_column(path, table, given):
    """The exposure in hours from the exposure_h and/or days columns, which must agree."""
    found = [(c, _one_value(path, table, c, f)) for c, f in given]
    if len(found) == 2 and not np.isclose(found[0][1], found[1][1], rtol=1e-9):
        raise ExposureError(f"{path}: exposure_h ({found[0][1]:g} h) and days ({found[1][1] / 24:g} days = "
                            f"{found[1][1]:g} h) disagree in every row; give one of them, or make them agree")
    return found[0][1]


def _check_population(population):
    ok = isinstance(population, (int, np.integer)) and not isinstance(population, bool) and population >= 1
    if not ok:
        raise CountError(f"population must be a whole number of units the log observed, 1 or more; got "
                         f"{population!r}")
    return int(population)


def _log_cluster(data, source_gpus, gpus_per_node, population=None):
    if population is not None:
        n = _check_population(population)
        seen = int(data.events["node"].nunique()) if "node" in data.events else 0
        if n < seen:
            raise CountError(f"{data.name}: population={n:,} is fewer than the {seen:,} nodes the log names; give "
                             f"every node the log observed, failed or not")
        if source_gpus is not None and int(source_gpus) != n * int(gpus_per_node):
            raise CountError(f"source_gpus={source_gpus:,} and population={n:,} disagree at {gpus_per_node} GPUs a "
                             f"node; give one of them")
        return n * int(gpus_per_node), f"{n:,} nodes observed, as given", ()
    if source_gpus is not None:
        return int(source_gpus), "as given", ()
    if getattr(data, "_n_nodes", None):
        return int(data.n_nodes) * int(gpus_per_node), "from the data set's description", ()
    nodes = int(data.events["node"].nunique())
    if nodes <= 1:
        raise MissingColumnError(
            f"{data.name}: the log names no nodes, so the GPUs it covers are unknown; pass source_gpus "
            "(GPUs observed) or node (the column naming the node of each outage)")
    note = (f"The observed cluster is taken as the {nodes:,} nodes that appear in the log; nodes that never "
            "failed are not in it, so rates per node may be too high. Give the nodes watched (population=N) to "
            "correct this.")
    return nodes * int(gpus_per_node), f"{nodes:,} nodes seen in the log × {gpus_per_node} GPUs", (note,)


def _unit(unit, gpus_per_node):
    """``(unit, GPUs per planned node, note)``; ``gpus_per_node=0`` says the units hold no GPUs."""
    if unit not in UNITS:
        raise UnitError(f"unit={unit!r}: what one row's node is must be one of " + ", ".join(map(repr, UNITS)))
    if isinstance(gpus_per_node, (int, np.integer)) and not isinstance(gpus_per_node, bool) and gpus_per_node == 0:
        unit, gpus_per_node = ("node" if unit == "gpu-node" else unit), PLANNED_GPUS_PER_NODE
    elif unit == "gpu-node":
        return unit, gpus_per_node, None
    note = (f"Each row's node is a {unit} without GPUs, so the log's cluster is counted in {unit}s; answers for a "
            f"GPU job take units_per_node (how many {unit}s one planned node holds) and there are none without it.")
    return unit, gpus_per_node, note


def _in_units(note, unit, n):
    """The seen-in-the-log note, said of the log's own units (they cover no GPUs to pass)."""
    if not note.startswith("The observed cluster is taken as"):
        return note
    return (f"The observed {unit}s are taken as the {n:,} that appear in the log; {unit}s that never failed are "
            f"not in it, so rates per {unit} may be too high.")


def _no_window(log, window):
    if window is not None:
        raise WindowError(f"{log}: window={window!r:.60} is for an event log read with start=...; a bundled data "
                          "set, a count table (give exposure), a Slurm export or a kernel log has its own window")


def _read_source(log="llama3", *, start=None, end=None, node=None, cause=None, planned=None,
                time_format=None, time_unit=None, source_gpus=None, gpus_per_node=8, exposure=None,
                format=None, job=None, year=None, window=None, syslog=None, population=None):
    """Read the report's one data source; returns a :class:`Source`.

    ``log`` is a bundled name ("llama3", "stepfun", "lanl") or a path: a CSV
    with component and count columns is a count table (give ``exposure``, a
    duration, and ``source_gpus`` unless columns exposure_h/days and n_gpus
    hold them); any other file is an event log read with ``start`` and the
    other column names.  ``source_gpus`` is the number of GPUs observed; for a
    log it defaults to the distinct nodes in the log times ``gpus_per_node``.
    ``population`` is how many units (nodes, servers, disks) the log observed
    in all, failed or not: it takes precedence over counting the nodes the log
    names (a log that lists only the nodes that failed says nothing of the
    others), and must not be fewer than them.

    ``format`` is "sacct" (a Slurm export, read with :func:`~relmodel.data.formats.sacct.read_sacct`
    and ``job``), "xid" (a kernel log, read with :func:`~relmodel.data.formats.kernlog.read_xid`
    and ``year``) or "table"; for a file it is sniffed when not given, and the
    notes say so.  ``syslog`` is a kernel log of a Slurm run's nodes (read
    with ``year``): it is joined to the export
    (:func:`~relmodel.data.formats.operators.join_syslog`), so the source
    carries the measured detection latency and the kernel faults a backtest
    stops progress at; a kernel log that matches no interruption is an error.

    ``min_outage`` (a duration, default none) drops outages shorter than it
    (see :func:`~relmodel.data.shaping.outages.drop_short_outages`): a
    :class:`LogWarning` says how many, ``problems()`` lists them.

    ``window`` is the observation window of an event log: ``(t0, t1)`` in the
    form of its times, or a length such as ``"54d"`` from the first outage
    (a log of one event needs one).  ``unit`` says what one row's node is:
    ``"gpu-node"`` (default), or ``"node"``, ``"disk"``, ``"server"`` for
    units without GPUs (``gpus_per_node=0`` means ``"node"``); such a source
    is described in its units ("3,279 disks"), never in GPUs, and its rate
    per unit is applied to each node of the planned job (8 GPUs a node when
    ``gpus_per_node`` is 0).

    Examples
    --------
    >>> s = load_source("llama3")            # Meta's 54-day count table
    >>> s.kind, s.source_gpus, s.n_events, round(s.span_h / 24)   # GPUs, counts, days
    ('counts', 16384, 419, 54)
    """
    mapping = {k: v for k, v in dict(start=start, end=end, node=node, cause=cause, planned=planned,
                                     time_format=time_format, time_unit=time_unit).items() if v is not None}
    notes = []
    if not (isinstance(log, str) and log.lower() in NAMES):
        require_existing(log)  # a missing file is named as missing, before any format or column is asked for
    from .formats.operators import operator_source
    if population is not None and source_gpus is None and ("start" not in mapping or str(log).lower() in NAMES):
        source_gpus = _check_population(population) * int(gpus_per_node)   # a Slurm export or a count table
    ops = operator_source(log, format, mapping, job=job, year=year, source_gpus=source_gpus,
                          gpus_per_node=gpus_per_node, syslog=syslog)
    if syslog is not None and ops is None:
        from ..errors import InputTypeError
        raise InputTypeError(f"syslog={str(syslog)!r:.80}: a kernel log is joined to a Slurm export, but "
                             f"{str(log)!r:.80} is not read as one; give format='sacct'")
    if ops is not None or (str(log).lower() in NAMES and not mapping) or "start" not in mapping:
        _no_window(log, window)
    if ops is not None:
        return Source(*ops)
    if str(log).lower() in NAMES and not mapping:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LogWarning)
            data = load(str(log).lower())
        if isinstance(data, CountTable):
            gpn = data.gpus_per_node
            return Source(data, "counts", data.name, data.n_gpus, gpn, data.n_unexpected, data.duration_h,
                          "as published", (data.source,) if data.source else ())
        gpn = int(data.gpus_per_node or gpus_per_node)
    elif "start" not in mapping and is_count_file(log):
        bundled = bundled_count_name(log)
        if bundled is not None and exposure is None and source_gpus is None:  # its facts are published beside it
            data = NAMES[bundled]()
            note = f"{Path(str(log)).name} is the bundled {bundled} count table, read with its published cluster and window."
            return Source(data, "counts", data.name, data.n_gpus, data.gpus_per_node, data.n_unexpected,
                          data.duration_h, "as published", ((data.source,) if data.source else ()) + (note,))
        data, how, notes = _counts_from_csv(log, source_gpus, gpus_per_node, exposure)
        return Source(data, "counts", data.name, data.n_gpus, data.gpus_per_node, data.n_unexpected,
                      data.duration_h, how, tuple(notes))
    else:
        refuse_empty(log)
        if "start" not in mapping:
            raise MissingColumnError(
                f"{log}: say which column holds outage start times (start=...), or give a count table "
                f"(CSV with component and count columns), or a bundled name: {', '.join(NAMES)}")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", LogWarning)
            data = read_log(log, **mapping, window=window)
        notes += [str(w.message).replace("; see problems() for the rows and what was done",
                                         "; they were merged or dropped (the data page says how many)")
                  for w in caught if issubclass(w.category, LogWarning) and "inside planned maintenance"
                  not in str(w.message)]  # kept, not merged: the index lists them
        gpn = int(gpus_per_node)
    gpus, how, more = _log_cluster(data, source_gpus, gpn, population)
    if source_gpus is not None or population is not None or data._n_nodes is None:
        data = data.replace(n_nodes=max(1, gpus // gpn), gpus_per_node=gpn, problems=data.problems())
    n = len(data.interruptions())
    return Source(data, "log", data.name, gpus, gpn, n, data.duration_h, how, tuple(notes) + tuple(more))


def load_source(source="llama3", *, start=None, end=None, node=None, cause=None, planned=None,
                time_format=None, time_unit=None, source_gpus=None, gpus_per_node=8, exposure=None,
                format=None, job=None, year=None, min_outage=None, window=None, unit="gpu-node", syslog=None,
                population=None):
    unit, gpn, unit_note = _unit(unit, gpus_per_node)
    if unit != "gpu-node" and source_gpus is not None:
        raise UnitError(f"source_gpus={source_gpus!r}: a log of {unit}s covers no GPUs; leave source_gpus unset "
                        f"and name the {unit} of each row with node=... (the {unit}s are counted from the log)")
    src = _read_source(source, start=start, end=end, node=node, cause=cause, planned=planned,
                       time_format=time_format, time_unit=time_unit, source_gpus=source_gpus,
                       gpus_per_node=gpn, exposure=exposure, format=format, job=job, year=year, window=window,
                       syslog=syslog, population=population)
    if unit != "gpu-node":
        how = (src.cluster_from.replace(f" × {gpn} GPUs", "").replace(" nodes seen", f" {unit}s seen")
               .replace(" nodes observed", f" {unit}s observed"))
        notes = tuple(_in_units(n, unit, src.n_nodes) for n in src.notes) + (unit_note,)
        src = replace(src, unit=unit, cluster_from=how, notes=notes)
    if min_outage is None:
        return src
    if not src.is_log:
        raise MissingColumnError(f"{src.name}: min_outage needs an event log with outage end times; a count "
                                 "table has no outage lengths (leave min_outage unset)")
    data = drop_short_outages(src.data, min_outage)
    return replace(src, data=data, n_events=len(data.interruptions()))


load_source.__doc__ = _read_source.__doc__
