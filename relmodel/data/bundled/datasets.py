"""Bundled and public failure datasets.

Bundled in the repository's ``data/`` folder (see ``data/README.md`` for
sources, licences and citations):

* :func:`llama3_54day` - Table 5 of "The Llama 3 Herd of Models" (Meta, 2024,
  arXiv 2407.21783, section 3.3.4): 419 unexpected interruptions in a 54-day
  snapshot on 16,384 H100 GPUs;
* :func:`stepfun` - the StepFun InfiniteHBD fault trace (SIGCOMM 2025, arXiv
  2502.03885; Apache-2.0): 584 faults on 400 GPU servers over 348 days;
* :func:`lanl` - Los Alamos failure records of 22 HPC systems, 1996-2005
  (the data behind Schroeder and Gibson, DSN 2006).

:func:`grid5000` reads the Failure Trace Archive's Grid'5000 trace from a path
(it is not bundled).  :func:`load` turns a name ("llama3", "stepfun", "lanl")
or a path into a log or count table.

The bundled datasets load without a :class:`~relmodel.data.shaping.logs.LogWarning`:
their known problems (overlapping and duplicate rows) are described in
``data/README.md`` and still listed by ``problems()``.  Logs read from a
path you give (:func:`grid5000`, :func:`lanl` with a path, :func:`load` with
column options) warn as any :func:`read_log` does.
"""

import json
import lzma
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from ... import resources
from ..shaping.counts import count_table
from ...errors import LogFileNotFound, LogFormatError, MissingColumnError
from ..shaping.logs import LogWarning, read_log
from ..shaping.damaged import refuse_empty
from .titan import titan, titan_lives, titan_synthetic  # noqa: F401  (re-exported: relmodel.datasets.titan)

__all__ = ["data_dir", "llama3_54day", "stepfun", "lanl", "grid5000", "load", "NAMES", "bundled_count_name",
           "LANL_CAUSE_COLUMNS", "STEPFUN_START", "fleets"]

STEPFUN_START = "2024-03-30"  # day 0 of the trace (its README)
LANL_CAUSE_COLUMNS = ("Facilities", "Hardware", "Human Error", "Network", "Undetermined", "Software")


@contextmanager
def _known_problems():
    """Silence LogWarning for a bundled file whose problems data/README.md documents."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LogWarning)
        yield


def data_dir():
    """The folder holding bundled data: ``$RELMODEL_DATA`` or the packaged ``data/``.

    Returns a ``pathlib.Path`` (see :func:`relmodel.resources.data_dir`: a
    wheel carries the data as package data; a checkout keeps it at its root).

    Examples
    --------
    >>> (data_dir() / "llama3-54day" / "table5.csv").exists()
    True
    """
    return resources.data_dir()


def llama3_54day():
    """Llama 3 pre-training interruptions (Meta 2024, arXiv 2407.21783, Table 5).

    16,384 H100 GPUs, 8 per server (2,048 servers), 54 days: 419 unexpected
    interruptions by root cause, plus 47 planned ones.  The table keeps the
    paper's printed shares in ``printed_pct``; they match count/419 except
    Faulty GPU, printed as 30.1% where 148/419 is 35.3% (so the text's "GPU
    issues are 58.7%" is 64.0% by the counts).  relmodel uses the counts.

    Returns a :class:`~relmodel.data.shaping.counts.CountTable` (counts; the window in hours).

    Examples
    --------
    >>> t = llama3_54day()
    >>> t.n_unexpected, t.n_gpus, t.n_nodes, t.duration_h
    (419, 16384, 2048, 1296.0)
    """
    t = pd.read_csv(data_dir() / "llama3-54day" / "table5.csv")
    return count_table(t, n_gpus=16384, gpus_per_node=8, duration="54d", n_planned=47,
                       name="Llama 3 pre-training, 54 days",
                       source="Source: The Llama 3 Herd of Models (Meta, 2024), section 3.3.4, Table 5.")


def _pair_faults(records):
    """Pair each fault_start with the next fault_end of the same node and fault type."""
    df = pd.json_normalize(records).rename(columns=lambda c: c.replace("fault_type.", ""))
    key = ["node_id", "Level", "Class", "Desc"]
    df = df.sort_values(key + ["event_time"], kind="stable")
    df["k"] = df.groupby(key + ["event_type"]).cumcount()
    starts = df[df.event_type == "fault_start"].set_index(key + ["k"])["event_time"]
    ends = df[df.event_type == "fault_end"].set_index(key + ["k"])["event_time"]
    if len(starts) != len(ends):
        raise LogFormatError(f"StepFun trace: {len(starts)} fault_start but {len(ends)} fault_end events")
    pairs = pd.DataFrame({"start_d": starts, "end_d": ends.reindex(starts.index)}).reset_index()
    return pairs.drop(columns="k").sort_values("start_d", kind="stable").reset_index(drop=True)


def stepfun():
    """The StepFun InfiniteHBD fault trace as an :class:`~relmodel.data.shaping.logs.InterruptionLog`.

    400 GPU servers in an LLM pre-training cluster, 348 days from 2024-03-30
    (InfiniteHBD, SIGCOMM 2025, arXiv 2502.03885; Apache-2.0).  Times are days
    from the first event; causes are Level / Class / Desc; each fault's end
    gives its repair time.  Servers are taken to hold 8 GPUs.  The window runs
    from the first event to the last.

    Examples
    --------
    >>> log = stepfun()
    >>> log.n_nodes, round(log.duration_h / 24, 1)        # nodes, days
    (400, 349.0)
    """
    with lzma.open(data_dir() / "stepfun-infinitehbd" / "fault_trace.json.xz", "rt") as fh:
        records = json.load(fh)
    pairs = _pair_faults(records)
    t0 = pd.Timestamp(STEPFUN_START)
    pairs["start"] = t0 + pd.to_timedelta(pairs.pop("start_d"), unit="D")
    pairs["end"] = t0 + pd.to_timedelta(pairs.pop("end_d"), unit="D")
    with _known_problems():  # two faults start while their node is down: data/README.md
        return read_log(pairs, start="start", end="end", node="node_id", cause=["Level", "Class", "Desc"],
                        window=(t0, pairs["end"].max()), n_nodes=400, gpus_per_node=8,
                        name="StepFun InfiniteHBD trace")


def lanl(path=None, *, systems=None):
    """Los Alamos failure records 1996-2005 (Schroeder and Gibson, DSN 2006).

    The recipe: node key = System + nodenum, start = "Prob Started", end =
    "Prob Fixed" (format ``%m/%d/%Y %H:%M``), cause = the blame column that is
    filled (``category``) and its text (``detail``); a row without a node number
    is kept under the node ``unknown`` of its system.  ``systems`` keeps only
    the listed system numbers.  Outages hitting several nodes at one time and
    exact duplicate rows are reported by ``problems()``; the bundled copy
    loads without a warning (its problems are described in data/README.md),
    a ``path`` of yours warns.

    Returns an :class:`~relmodel.data.shaping.logs.InterruptionLog` (times in hours).

    Examples
    --------
    >>> log = lanl(systems=[20])
    >>> sorted(set(log.events["category"]))[:3]
    ['Facilities', 'Hardware', 'Human Error']
    """
    bundled = path is None
    path = Path(path) if path else data_dir() / "lanl-1996-2005" / "LA-UR-05-7318-failure-data-1996-2005.csv.xz"
    if not Path(path).is_file():
        raise LogFileNotFound(path)
    raw = pd.read_csv(path, skipinitialspace=True, low_memory=False)
    missing = [c for c in LANL_CAUSE_COLUMNS + ("System", "nodenum", "Prob Started", "Prob Fixed") if c not in raw]
    if missing:
        raise MissingColumnError(f"{path}: not a LANL failure file; missing columns {missing}")
    if systems is not None:
        raw = raw[raw["System"].isin(list(systems))].reset_index(drop=True)
    blame = raw[list(LANL_CAUSE_COLUMNS)]
    filled = blame.notna()
    raw["category"] = np.where(filled.any(axis=1), filled.idxmax(axis=1), "Unknown")
    raw["detail"] = blame.bfill(axis=1).iloc[:, 0].fillna("Unknown")
    raw["nodenum"] = raw["nodenum"].astype(object).where(raw["nodenum"].notna(), "unknown")  # named, not NaN
    with _known_problems() if bundled else warnings.catch_warnings():  # a path of yours warns
        return read_log(raw, start="Prob Started", end="Prob Fixed", node=["System", "nodenum"],
                        cause=["category", "detail"], time_format="%m/%d/%Y %H:%M", name=f"LANL ({path.name})")


def grid5000(path):
    """Grid'5000 availability trace from the Failure Trace Archive (Javadi et al., JPDC 2013).

    ``path`` is the ``event_trace.tab`` file (optionally .xz) or its folder.
    Unavailability intervals (``event_type`` 0) become outages on ``node_id``;
    times are Unix seconds, read as UTC.

    Returns an :class:`~relmodel.data.shaping.logs.InterruptionLog` (times in hours).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "event_trace.tab"
    >>> _ = p.write_text("0\\t0\\t0\\t5\\tn1\\t1\\t0\\t3600\\tNULL\\n1\\t0\\t0\\t5\\tn1\\t0\\t3600\\t7200\\tNULL\\n"
    ...                  "2\\t0\\t1\\t5\\tn2\\t1\\t0\\t10800\\tNULL\\n")
    >>> log = grid5000(p)
    >>> len(log), log.n_nodes, log.events["end_h"].tolist()      # one outage, 1 h to 2 h
    (1, 2, [2.0])
    """
    path = Path(path)
    if path.is_dir():
        path = next(p for p in (path / "event_trace.tab.xz", path / "event_trace.tab") if p.exists())
    names = ["event_id", "component_id", "node_id", "platform_id", "node_name", "event_type",
             "event_start_time", "event_stop_time", "event_end_reason"]
    df = pd.read_csv(path, sep="\t", comment="#", header=None, names=names, skipinitialspace=True,
                     usecols=["node_id", "event_type", "event_start_time", "event_stop_time"])
    out = df[df["event_type"] == 0]
    table = pd.DataFrame({"node": out["node_id"].to_numpy(),
                          "start": pd.to_datetime(out["event_start_time"].to_numpy(), unit="s", utc=True),
                          "end": pd.to_datetime(out["event_stop_time"].to_numpy(), unit="s", utc=True)})
    t0 = pd.to_datetime(df["event_start_time"].min(), unit="s", utc=True)
    t1 = pd.to_datetime(df["event_stop_time"].max(), unit="s", utc=True)
    return read_log(table, start="start", end="end", node="node", window=(t0, t1),
                    n_nodes=int(df["node_id"].nunique()), name="Grid'5000 (FTA)")


NAMES = {"llama3": llama3_54day, "stepfun": stepfun, "lanl": lanl}
#: Bundled count tables by their file under :func:`data_dir`: such a path reads as the published data set.
COUNT_FILES = {"llama3": ("llama3-54day", "table5.csv")}


def bundled_count_name(path):
    """The bundled data set whose count table ``path`` is ("llama3" for data/llama3-54day/table5.csv), or None.

    Its exposure and cluster are published beside the table, not in it, so the
    file alone cannot say them.

    Examples
    --------
    >>> bundled_count_name(data_dir() / "llama3-54day" / "table5.csv"), bundled_count_name("other.csv")
    ('llama3', None)
    """
    for name, parts in COUNT_FILES.items():
        try:
            if Path(str(path)).samefile(data_dir().joinpath(*parts)):
                return name
        except (OSError, ValueError):  # no such file (either side), or a path no file system takes
            continue
    return None


def load(source, **read_log_kwargs):
    """A bundled dataset by name ("llama3", "stepfun", "lanl"), or a log file read with :func:`read_log`.

    Returns a :class:`~relmodel.data.shaping.counts.CountTable` or an :class:`~relmodel.data.shaping.logs.InterruptionLog` (times in hours).

    Examples
    --------
    >>> load("llama3").n_gpus
    16384
    >>> load("stepfun").n_nodes
    400
    """
    if isinstance(source, str) and source.lower() in NAMES and not read_log_kwargs:
        return NAMES[source.lower()]()
    refuse_empty(source)
    if "start" not in read_log_kwargs:
        raise MissingColumnError(f"{source}: say which column holds outage start times (start=...); "
                                 f"or use a bundled dataset: {', '.join(NAMES)}")
    return read_log(source, **read_log_kwargs)


def fleets(kind=None, **kwargs):
    """Published interruption rates of GPU fleets and HPC systems; see :func:`relmodel.data.bundled.fleets.fleets`.

    Returns a DataFrame, one row per count: ``count`` interruptions over
    ``nodes`` x ``exposure_days``, with the rates per node-day, per GPU-day
    and per 1,000 node-days derived from them.  ``kind`` is "gpu", "hpc" or
    None (every row); ``primary=True`` keeps one row (the total) per fleet.

    Examples
    --------
    >>> t = fleets("gpu", primary=True)
    >>> list(t["fleet"])
    ['llama3', 'rsc1', 'rsc2', 'stepfun', 'opt175b']
    >>> r = t.set_index("fleet").loc["llama3"]     # 419 interruptions, 2,048 nodes, 54 days
    >>> int(r["count"]), int(r["nodes"]), float(r["exposure_days"])
    (419, 2048, 54.0)
    >>> round(float(r["rate_per_1000_node_days"]), 3), round(1000 * 419 / (2048 * 54), 3)
    (3.789, 3.789)
    """
    from .fleets import fleets as _fleets
    return _fleets(kind, **kwargs)
