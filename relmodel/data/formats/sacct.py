"""Slurm accounting exports (``sacct -P``) as the interruptions of a training job.

:func:`read_sacct` reads the pipe-separated output of ``sacct --parsable2``
(or ``--parsable``, with its trailing ``|``) with a header line, e.g.::

    sacct -a -D -P -S 2024-03-01 -E 2024-05-01 \\
        -o JobID,JobName,State,ExitCode,Start,End,Elapsed,NNodes,NodeList > sacct.txt

and returns a :class:`JobLog`, an :class:`~relmodel.data.shaping.logs.InterruptionLog`
whose events are the interruptions of the chosen job(s).  The rules:

* **segments** are the allocation rows; step rows (``.batch``, ``.extern``,
  ``.0`` ...) are dropped, and so are rows that never started (pending array
  tasks, jobs cancelled in the queue);
* a **run** is the segments of one job name (a job resubmitted under the
  same name, requeued with the same id, or the tasks of a job array), in
  order of start; ``job=`` picks runs by name, job id or array task id;
* a segment whose end **state** is in ``interruptions`` (default
  :data:`~relmodel.data.formats.sacct_fields.DEFAULT_STATES`: NODE_FAIL, FAILED with
  a non-zero exit code or a signal, BOOT_FAIL; see
  :data:`~relmodel.data.formats.sacct_fields.STATES`) is an interruption at its end
  time; its **restart gap** runs to the start of the run's next segment;
* sacct does not name the node that failed: an interruption's ``node`` is
  the run's name, and its segment's node list is kept in ``nodelist``;
* the **observed cluster** is counted two ways: ``nodes_seen``, the distinct
  nodes allocated to the chosen runs (a replaced node adds one), and
  ``nodes_at_once``, the largest single allocation.  ``n_nodes`` (the
  exposure of rates per node) is ``nodes_at_once`` for one run, which held
  that many nodes at a time, and ``nodes_seen`` for several runs;
* a segment still running (``End`` Unknown) ends at ``Start + Elapsed``, or
  at the latest time in the export when there is no Elapsed field.
"""

import numpy as np
import pandas as pd

from ...errors import InputTypeError, SacctFormatError, UnknownJobError
from ..shaping.clean import clean_events, empty_problems
from ..shaping.durations import Durations
from ..shaping.logs import InterruptionLog, _whole_or_none
from .nodelist import expand_nodelist
from .sacct_fields import (DEFAULT_STATES, STATES, parse_elapsed, parse_exit_code, parse_state, parse_times,
                           split_job_id)
from .textinput import read_text

__all__ = ["read_sacct", "JobLog", "DEFAULT_STATES", "STATES"]

_NEEDED = ("JobID", "State", "Start", "End")


class JobLog(InterruptionLog):
    """The interruptions of Slurm job runs, with their segments; build it with :func:`read_sacct`.

    ``segments`` has one row per allocation: run, job_id, state, cancelled_by,
    exit_code, signal, start_h, end_h, running, nodes, nodelist, interrupts,
    gap_h (to the run's next segment).  ``row`` in ``events`` and ``problems()`` is
    the line of the export (1-based, the header is line 1).
    """

    def __init__(self, events, window_h, *, segments, nodes_at_once=None, nodes_seen=None, **kwargs):
        super().__init__(events, window_h, **kwargs)
        self.segments = segments
        self.nodes_at_once = nodes_at_once
        self.nodes_seen = nodes_seen

    @property
    def n_nodes(self):
        """Nodes the run held (see :func:`read_sacct`); a named error when the export does not say."""
        if self._n_nodes is None:
            raise SacctFormatError(
                f"{self.name}: the Slurm export has neither NNodes nor NodeList, so how many nodes the job held "
                "is unknown and is not guessed; export with sacct -P -o JobID,JobName,State,ExitCode,Start,End,"
                "Elapsed,NNodes,NodeList, or give nodes= to read_sacct (or source_gpus= to a report)")
        return self._n_nodes

    @property
    def running_h(self):
        """Hours the runs held their allocations (sum over segments)."""
        s = self.segments
        return float((s["end_h"] - s["start_h"]).sum())

    def availability(self):
        """Running time over wall time, from the first start to the last end of each run."""
        wall = self.segments.groupby("run")["end_h"].max() - self.segments.groupby("run")["start_h"].min()
        return self.running_h / float(wall.sum()) if float(wall.sum()) > 0 else float("nan")

    def restart_gaps(self):
        """Hours from each interruption to the run's next start (observed gaps only)."""
        gaps = self.events["end_h"].to_numpy(float) - self.events["start_h"].to_numpy(float)
        gaps = gaps[np.isfinite(gaps)]
        return Durations(gaps, np.ones(gaps.size, bool), label="restart gaps")

    def restart(self):
        """The measured restart time (median, interval, count of requeue gaps); a ``MeasuredRestart``."""
        from .restarts import measured_restart
        return measured_restart(self)

    def join_kernel(self, kernel, **options):
        """This run's interruptions matched to a kernel log's faults; see :func:`~relmodel.data.formats.kernjoin.join_kernel`."""
        from .kernjoin import join_kernel
        return join_kernel(self, kernel, **options)

    def __repr__(self):
        size = "an unknown number of" if self._n_nodes is None else f"{self._n_nodes}"
        return (f"JobLog({self.name!r}: {len(self)} interruptions in {len(self.segments)} segments on "
                f"{size} nodes, {self.duration_h / 24:.1f} days)")


def _header(lines, label):
    first = next(i for i, line in enumerate(lines) if line.strip())
    names = [c.strip() for c in lines[first].split("|")]
    if names and names[-1] == "":
        names = names[:-1]  # --parsable ends every line with "|"
    missing = [c for c in _NEEDED if c not in names]
    if missing:
        raise SacctFormatError(
            f"{label}, line {first + 1}: the header has no {', '.join(missing)} field; export with "
            "sacct -P -o JobID,JobName,State,ExitCode,Start,End,Elapsed,NodeList (header included)")
    return first, names


def _rows(lines, label):
    """The header's names and a DataFrame of text fields with a ``line`` column (1-based)."""
    first, names = _header(lines, label)
    rows, at = [], []
    for i in range(first + 1, len(lines)):
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("|")
        if len(fields) == len(names) + 1 and fields[-1] == "":
            fields = fields[:-1]
        if len(fields) != len(names):
            raise SacctFormatError(f"{label}, line {i + 1}: {len(fields)} fields where the header has "
                                   f"{len(names)}; export with sacct -P (or --parsable2) so '|' separates fields")
        rows.append(fields)
        at.append(i + 1)
    if not rows:
        raise SacctFormatError(f"{label}: the export has a header (line {first + 1}) but no job rows; export "
                               "with sacct -P over a window in which the job ran (-S START -E END)")
    df = pd.DataFrame(rows, columns=names, dtype=object)
    df["line"] = at
    return df


def _duplicates(df):
    """Rows whose every field repeats an earlier row (an export concatenated twice): dropped, listed."""
    fields = [c for c in df.columns if c != "line"]
    dup = df.duplicated(fields, keep="first").to_numpy()
    if not dup.any():
        return df, empty_problems()
    first = df.groupby(fields, sort=False)["line"].transform("first")
    rows = df[dup]
    name = rows["JobName"] if "JobName" in rows else rows["JobID"]
    problems = pd.DataFrame({"row": rows["line"].to_numpy(), "node": name.to_numpy(object), "start_h": np.nan,
                             "problem": "duplicate of line " + first[dup].astype(str).to_numpy(object),
                             "action": "counted once"})
    return df[~dup].reset_index(drop=True), problems


def _parse(df, label, time_format):
    """Allocation rows with parsed ids, states, exit codes and times; step rows dropped."""
    lines = df["line"].to_numpy()
    ids = [split_job_id(v, label, n) for v, n in zip(df["JobID"], lines)]
    df = df.assign(job_id=[f"{a}_{t}" if t else a for a, t, _, _ in ids], base_id=[a for a, *_ in ids],
                   het=[h for _, _, h, _ in ids], step=[s for *_, s in ids])
    df = df[df["step"] == ""].reset_index(drop=True)
    lines = df["line"].to_numpy()
    st = [parse_state(v, label, n) for v, n in zip(df["State"], lines)]
    ex = [parse_exit_code(v, label, n) for v, n in zip(df.get("ExitCode", [""] * len(df)), lines)]
    df["state"], df["cancelled_by"] = [s for s, _ in st], [b for _, b in st]
    df["exit_code"] = pd.array([e for e, _ in ex], dtype="Int64")
    df["signal"] = pd.array([g for _, g in ex], dtype="Int64")
    df["start"], no_start = parse_times(df["Start"], lines, label, "Start", time_format)
    df["end"], _ = parse_times(df["End"], lines, label, "End", time_format)
    if "Elapsed" in df:
        df["elapsed_h"] = [parse_elapsed(v, label, n) for v, n in zip(df["Elapsed"], lines)]
    if "NNodes" in df:
        _check_nnodes(df, label)
    name = df["JobName"].astype(str).str.strip() if "JobName" in df else df["base_id"]
    df["run"] = np.where(name == "", df["base_id"], name)
    return df, no_start


def _check_nnodes(df, label):
    """Refuse an NNodes field that is a number but not a whole count of 1 or more (-4, 0, 2.5)."""
    text = df["NNodes"].astype(str).str.strip()
    given = pd.to_numeric(text, errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isnan(given) & ~((given >= 1) & (given <= 2 ** 31) & (given == np.floor(given))))
    if bad.size:
        i = int(bad[0])
        raise SacctFormatError(f"{label}, line {df['line'].iloc[i]}, field 'NNodes': cannot read "
                               f"{text.iloc[i]!r}; a job holds a whole number of nodes, 1 or more")


def _select(df, job, label):
    if job is None:
        return df
    wanted = [job] if isinstance(job, (str, int, np.integer)) else list(job) if isinstance(job, (list, tuple)) else None
    if wanted is None or not wanted:
        raise InputTypeError(f"job= is a job name, id or array task id (a string or number) or a list of them; "
                             f"got {type(job).__name__} {job!r:.60}")
    wanted = {str(w) for w in wanted}
    keep = df["run"].isin(wanted) | df["base_id"].isin(wanted) | df["job_id"].isin(wanted)
    if not keep.any():
        names = sorted(set(df["run"]))
        shown = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        raise UnknownJobError(f"{label}: no job named or numbered {', '.join(sorted(wanted))}; the export holds "
                              f"the jobs {shown}")
    return df[keep]


def _ends(df, label):
    """Fill the ends of running segments; refuse ends before starts."""
    latest = pd.concat([df["start"], df["end"]]).max()
    no_end = df["end"].isna()
    if "elapsed_h" in df:
        by_elapsed = df["start"] + pd.to_timedelta(df["elapsed_h"], unit="h")
        df.loc[no_end, "end"] = by_elapsed[no_end].fillna(latest)
    else:
        df.loc[no_end, "end"] = latest
    df["running"] = no_end.to_numpy()
    bad = np.flatnonzero((df["end"] < df["start"]).to_numpy())
    if bad.size:
        r = df.iloc[int(bad[0])]
        raise SacctFormatError(f"{label}, line {r['line']}, field 'End': the job ends ({r['End']}) before it "
                               f"starts ({r['Start']}); End must be at or after Start")
    return df


def _counts(df, states):
    code = df["exit_code"].fillna(0).to_numpy(int)
    sig = df["signal"].fillna(0).to_numpy(int)
    hit = df["state"].isin(states).to_numpy()
    failed_ok = (df["state"] == "FAILED").to_numpy() & (code == 0) & (sig == 0)
    return hit & ~failed_ok, failed_ok


def _check_states(states):
    if isinstance(states, str) or not all(isinstance(s, str) for s in states):
        raise InputTypeError("interruptions= is a list of Slurm states, e.g. DEFAULT_STATES + ('PREEMPTED',)")
    out = {s.strip().upper() for s in states}
    unknown = sorted(out - set(STATES))
    if unknown:
        raise SacctFormatError(f"interruptions=: unknown Slurm state {unknown[0]!r}; use states from "
                               f"{', '.join(STATES)}")
    return out


def _segments(df, states, nodes=None):
    df = df.sort_values(["run", "start", "line"], kind="stable").reset_index(drop=True)
    origin = df["start"].min()
    h = pd.Timedelta(hours=1)
    seg = pd.DataFrame({"run": df["run"].to_numpy(), "job_id": df["job_id"].to_numpy(),
                        "state": df["state"].to_numpy(), "cancelled_by": df["cancelled_by"].to_numpy(),
                        "exit_code": df["exit_code"].to_numpy(), "signal": df["signal"].to_numpy(),
                        "start_h": ((df["start"] - origin) / h).to_numpy(float),
                        "end_h": ((df["end"] - origin) / h).to_numpy(float), "running": df["running"].to_numpy(),
                        "line": df["line"].to_numpy()})
    seg["nodelist"] = df["NodeList"].to_numpy() if "NodeList" in df else ""
    seg["nodes"] = [expand_nodelist(v) for v in seg["nodelist"]]
    seg["n_nodes"] = _node_counts(df, seg["nodes"], nodes)
    seg["interrupts"], seg["failed_exit_0"] = _counts(df, states)
    nxt = seg.groupby("run")["start_h"].shift(-1)
    seg["gap_h"] = nxt - seg["end_h"]
    return seg, origin


def _node_counts(df, lists, nodes):
    """Nodes each segment held: its NodeList, else its NNodes, else ``nodes=``."""
    count = np.array([len(v) for v in lists], dtype=float)
    if "NNodes" in df:
        given = pd.to_numeric(df["NNodes"].astype(str).str.strip(), errors="coerce").to_numpy(float)
        count = np.where(count > 0, count, given)
    if nodes is not None:
        count = np.where(count > 0, count, nodes)
    return np.nan_to_num(count, nan=0.0).astype(int)


def _problems(seg, dropped):
    rows = [dropped]
    odd = seg[seg["failed_exit_0"]]
    rows.append(pd.DataFrame({"row": odd["line"], "node": odd["run"], "start_h": odd["end_h"],
                              "problem": "FAILED with exit code 0:0", "action": "not counted as an interruption"}))
    over = seg[seg["gap_h"] < 0]
    rows.append(pd.DataFrame({"row": over["line"], "node": over["run"], "start_h": over["end_h"],
                              "problem": "next segment of the run starts before this one ends",
                              "action": "kept; its restart gap is unknown"}))
    return pd.concat([r for r in rows if len(r)] or [empty_problems()], ignore_index=True)


def read_sacct(path_or_text, *, job=None, interruptions=DEFAULT_STATES, time_format=None, gpus_per_node=8,
               nodes=None, name=None):
    """Read a ``sacct -P`` export; returns a :class:`JobLog` of the chosen job(s).

    Parameters
    ----------
    path_or_text : path of the export (optionally .gz/.xz/.bz2) or its text.
    job : job name, job id or array task id (or a list of them); default every job.
    interruptions : end states that interrupt a run (see :data:`STATES`).
    time_format : strftime format of Start/End when SLURM_TIME_FORMAT was custom.
    gpus_per_node : GPUs per node of the allocated nodes (for rates per GPU).
    nodes : nodes the job held at once, for an export with neither NNodes nor
        NodeList; a segment's NodeList, then its NNodes, win over it.  Without
        any of them the job's size is never guessed: the log reads (restart
        gaps, backtest) but ``n_nodes`` and rates per node raise
        :class:`~relmodel.errors.SacctFormatError` saying what to give.

    A row repeated field for field (an export concatenated twice) is counted
    once and listed in ``problems()`` ("duplicate of line N").

    Examples
    --------
    >>> text = '''JobID|JobName|State|ExitCode|Start|End|NodeList
    ... 10|train|NODE_FAIL|0:0|2024-03-01T00:00:00|2024-03-02T00:00:00|gpu[01-04]
    ... 10.batch|batch|CANCELLED|0:15|2024-03-01T00:00:00|2024-03-02T00:00:00|gpu01
    ... 11|train|COMPLETED|0:0|2024-03-02T00:30:00|2024-03-03T00:30:00|gpu[01-03,05]
    ... '''
    >>> log = read_sacct(text, job="train")
    >>> len(log), log.n_nodes, log.nodes_seen, log.restart_gaps().hours.tolist(), round(log.availability(), 4)
    (1, 4, 5, [0.5], 0.9897)
    """
    states = _check_states(interruptions)
    gpus_per_node = _whole_or_none("gpus_per_node", gpus_per_node)
    nodes = _whole_or_none("nodes", nodes)
    lines, label = read_text(path_or_text, "Slurm export")
    df = _rows(lines, label)
    sized = "NodeList" in df or "NNodes" in df or nodes is not None
    df, dups = _duplicates(df)
    df, no_start = _parse(df, label, time_format)
    dropped = df[no_start]
    dropped = pd.DataFrame({"row": dropped["line"], "node": dropped["run"], "start_h": np.nan,
                            "problem": "never started (" + dropped["state"].str.lower() + ")", "action": "dropped"})
    df = _select(df[~no_start].copy(), job, label)
    if df.empty:
        raise SacctFormatError(f"{label}: no job of the export ever started (every Start is Unknown or None)")
    df = _ends(df, label)
    seg, origin = _segments(df, states, nodes)
    hit = seg[seg["interrupts"]]
    cols = {"row": hit["line"].to_numpy(), "start_h": hit["end_h"].to_numpy(float),
            "end_h": (hit["end_h"] + hit["gap_h"].where(hit["gap_h"] >= 0)).to_numpy(float),
            "node": hit["run"].to_numpy(object), "category": [STATES[s][0] for s in hit["state"]],
            "state": hit["state"].to_numpy(object), "job_id": hit["job_id"].to_numpy(object),
            "exit_code": hit["exit_code"].to_numpy(), "nodelist": hit["nodelist"].to_numpy(object),
            "planned": np.zeros(len(hit), bool)}
    win = (0.0, float(seg["end_h"].max()))
    events, problems, _ = clean_events(cols, ["category", "state"], win)
    seen = len({n for names in seg["nodes"] for n in names}) or int(seg["n_nodes"].max()) or None
    at_once = int(seg["n_nodes"].max()) or None
    runs = sorted(set(seg["run"]))
    n_nodes = (at_once if len(runs) == 1 else seen) if sized else None
    log = JobLog(events, win, segments=seg, nodes_at_once=at_once, nodes_seen=seen,
                 origin=origin, cause_columns=["category", "state"],
                 name=name or (runs[0] if len(runs) == 1 else f"{label} ({len(runs)} jobs)"),
                 n_nodes=n_nodes, gpus_per_node=gpus_per_node,
                 problems=pd.concat([p for p in (dups, _problems(seg, dropped), problems) if len(p)]
                                   or [empty_problems()], ignore_index=True))
    return log
