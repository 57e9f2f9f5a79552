"""Step-time logs: how long each rank (GPU) or node took for each training step.

:func:`read_steps` turns a long table (one row per step and rank) from CSV,
Parquet or a DataFrame into a :class:`StepLog`, a dense grid of step times in
hours (steps down, ranks across).  Parquet files are read one row group at a
time with pyarrow, in two passes (labels first, then times), so 10^8 rows need
only the grid itself in memory (8 bytes per step and rank).

Rules:

* every step must have a time for every rank (a synchronous step waits for
  all ranks): a missing (step, rank) pair raises :class:`MissingStepsError`
  unless ``missing="drop"`` (steps with a missing rank are then dropped);
  gaps in the step numbers (a log written every k steps) are fine;
* a (step, rank) pair given twice raises :class:`DuplicateStepError`;
* a negative time (or an end before its start) raises
  :class:`NegativeTimeError`.

Numeric time columns are read in ``time_unit`` (seconds when it is None);
timedelta columns and start/end timestamps carry their own unit.

:func:`read_megatron` reads job-level step times from Megatron-LM style
training logs (``iteration N/ M | ... | elapsed time per iteration (ms): X``).
Such a log has one "rank" (the job); each line's time is the mean over the
iterations since the previous line.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import (DuplicateStepError, EmptyDataError, LogFormatError, MissingColumnError,
                      MissingStepsError, NegativeTimeError, TimeRangeError,
                      UnknownFileTypeError)
from ...units import unit_hours
from relmodel.budget_guard import check_cost
from relmodel.base.escape import html_text

__all__ = ["StepLog", "read_steps", "example_steps"]


class StepLog:
    """Step times in hours on a dense grid: ``times_h[i, j]`` is step ``steps[i]`` on rank ``ranks[j]``.

    ``nodes`` (or None) gives each rank's node.  Build it with :func:`read_steps`.
    """

    def __init__(self, times_h, steps, ranks, nodes=None, *, name="step log"):
        self.times_h = np.asarray(times_h, dtype=float)
        self.steps = np.asarray(steps)
        self.ranks = np.asarray(ranks)
        self.nodes = None if nodes is None else np.asarray(nodes)
        self.name = name
        if self.times_h.shape != (len(self.steps), len(self.ranks)):
            raise LogFormatError(f"{name}: times have shape {self.times_h.shape}, expected "
                                 f"({len(self.steps)} steps, {len(self.ranks)} ranks)")
        if self.nodes is not None and len(self.nodes) != len(self.ranks):
            raise LogFormatError(f"{name}: {len(self.nodes)} node labels for {len(self.ranks)} ranks")

    @property
    def n_steps(self):
        return self.times_h.shape[0]

    @property
    def n_ranks(self):
        return self.times_h.shape[1]

    @property
    def n_nodes(self):
        return self.n_ranks if self.nodes is None else len(pd.unique(self.nodes))

    def __repr__(self):
        return (f"StepLog({self.name}: {self.n_steps:,} steps x {self.n_ranks:,} ranks"
                f"{'' if self.nodes is None else f' on {self.n_nodes:,} nodes'})")

    def _repr_html_(self):
        med = float(np.median(self.step_times_h())) * 3600 if self.n_steps else float("nan")
        return (f"<p><b>{html_text(self.name)}</b>: {self.n_steps:,} steps on {self.n_ranks:,} ranks"
                f"{'' if self.nodes is None else f' ({self.n_nodes:,} nodes)'}; "
                f"median step time {med:,.3g} s.</p>")

    def step_times_h(self):
        """Job step time per step: the slowest rank (hours)."""
        return self.times_h.max(axis=1)

    def node_groups(self):
        """(node labels, column order, group starts) such that ``times_h[:, order]`` is grouped by node."""
        if self.nodes is None:
            return self.ranks, np.arange(self.n_ranks), np.arange(self.n_ranks)
        codes, labels = pd.factorize(self.nodes, sort=False)
        order = np.argsort(codes, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
        return np.asarray(labels), order, starts

    def node_times_h(self):
        """(node labels, step times per node): each node's time is its slowest rank's."""
        labels, order, starts = self.node_groups()
        grid = self.times_h if np.array_equal(order, np.arange(self.n_ranks)) else self.times_h[:, order]
        if len(starts) == grid.shape[1]:
            return labels, grid
        return labels, np.maximum.reduceat(grid, starts, axis=1)

    def to_frame(self):
        """Long table: ``step, rank, node, duration_s`` (one row per step and rank)."""
        out = pd.DataFrame({"step": np.repeat(self.steps, self.n_ranks),
                            "rank": np.tile(self.ranks, self.n_steps)})
        if self.nodes is not None:
            out["node"] = np.tile(self.nodes, self.n_steps)
        out["duration_s"] = self.times_h.ravel() * 3600.0
        return out


# ---------------------------------------------------------------- reading


def _chunks_of(source, columns, name):
    """A function returning an iterator of ``{column: ndarray}`` chunks (row groups for Parquet)."""
    if isinstance(source, pd.DataFrame):
        missing = [c for c in columns if c not in source.columns]
        if missing:
            raise MissingColumnError(f"{name}: no column {missing[0]!r}; columns are {list(source.columns)}")
        def one():
            return iter([{c: source[c].to_numpy() for c in columns}])
        one.n_rows = len(source)
        one.ranges = {c: (int(source[c].min()), int(source[c].max())) for c in columns
                      if source[c].dtype.kind in "iu" and len(source)}
        return one
    path = Path(source)
    suffixes = "".join(path.suffixes[-2:]).lower()
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        have = pf.schema_arrow.names
        missing = [c for c in columns if c not in have]
        if missing:
            raise MissingColumnError(f"{name}: no column {missing[0]!r}; columns are {have}")

        def groups():
            for i in range(pf.num_row_groups):
                table = pf.read_row_group(i, columns=list(columns))
                yield {c: table.column(c).to_numpy() for c in columns}
        groups.n_rows = pf.metadata.num_rows
        groups.ranges = _parquet_ranges(pf, columns)
        return groups
    if suffixes.endswith((".csv", ".csv.gz", ".csv.xz", ".csv.bz2", ".csv.zst", ".txt")):
        try:
            frame = pd.read_csv(path)
        except pd.errors.EmptyDataError:
            raise EmptyDataError(f"{name}: the file is empty (no header, no rows); a step log has a header "
                                 f"and one row per step and rank") from None
        except (pd.errors.ParserError, UnicodeDecodeError) as exc:
            raise LogFormatError(f"{name}: not a CSV file relmodel can read ({str(exc).splitlines()[0]})") from None
        return _chunks_of(frame, columns, name)
    raise UnknownFileTypeError(f"{name}: cannot read {path.suffix!r} files; use .csv or .parquet, or a DataFrame")


def _parquet_ranges(pf, columns):
    """{column: (min, max)} of integer columns whose every row group records its min and max."""
    import pyarrow as pa

    md = pf.metadata
    where = {md.schema.column(i).path: i for i in range(md.num_columns)}
    out = {}
    for c in columns:
        if c not in where or not pa.types.is_integer(pf.schema_arrow.field(c).type):
            continue
        stats_ = [md.row_group(g).column(where[c]).statistics for g in range(md.num_row_groups)]
        if md.num_row_groups and all(st is not None and st.has_min_max for st in stats_):
            out[c] = (min(int(st.min) for st in stats_), max(int(st.max) for st in stats_))
    return out


def _durations_h(chunk, duration, start, end, factor, name, offset):
    if duration is not None:
        d = chunk[duration]
        if d.dtype.kind == "m":
            out = d.astype("timedelta64[ns]").astype(np.int64) / 3.6e12
        else:
            num = d if d.dtype.kind in "iuf" else pd.to_numeric(pd.Series(d), errors="coerce").to_numpy()
            out = num.astype(float) * factor
        col = duration
    else:
        s, e = chunk[start], chunk[end]
        if s.dtype.kind in "Mm" or e.dtype.kind in "Mm" or s.dtype.kind == "O":
            diff = pd.to_datetime(pd.Series(e)) - pd.to_datetime(pd.Series(s))
            out = diff.dt.total_seconds().to_numpy(float) / 3600.0
        else:
            out = (e.astype(float) - s.astype(float)) * factor
        col = end
    _check_finite(chunk, col, out, name, offset)
    bad = np.flatnonzero(out < 0)
    if len(bad):
        raise NegativeTimeError(f"{name}, row {offset + bad[0] + 1}, column {col!r}: step time "
                                f"{out[bad[0]] * 3600:g} s is negative; step times must be >= 0"
                                f" ({len(bad)} such rows)")
    return out


def _check_finite(chunk, col, out, name, offset):
    """An error naming the rows whose step time is NaN, infinite or not a number (a row present is not a hole)."""
    bad = np.flatnonzero(~np.isfinite(out))
    if len(bad):
        rows = ", ".join(str(offset + i + 1) for i in bad[:10])
        raise TimeRangeError(f"{name}, column {col!r}: rows {rows} have no finite step time ({len(bad)} such rows); "
                             "step times must be finite numbers >= 0; drop those rows to treat them as missing")


def _labels(chunks, columns):
    """Sorted unique labels of each column, over all chunks."""
    seen = {c: [] for c in columns}
    for chunk in chunks():
        for c in columns:
            seen[c].append(pd.unique(chunk[c]))
    out = {}
    for c in columns:
        u = pd.unique(np.concatenate(seen[c])) if seen[c] else np.array([])
        try:
            u = np.sort(u)
        except TypeError:
            u = np.array(sorted(u, key=str), dtype=object)
        out[c] = u
    return out


def read_steps(source, *, step, rank, duration=None, start=None, end=None, node=None, time_unit=None,
               missing="raise", name=None):
    """Read per-rank (or per-node) step times into a :class:`StepLog`.

    ``source`` is a DataFrame or a path to a .csv or .parquet file with one row
    per (step, rank).  Give the step time as a ``duration`` column, or as
    ``start`` and ``end`` columns.  ``node`` is a column naming each rank's
    node, or an int (ranks per node: node = rank // node, for integer ranks).
    ``time_unit`` is the unit of numeric times (seconds when None).
    ``missing="drop"`` drops steps lacking a rank instead of raising.

    The :class:`StepLog` holds step times in hours.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"step": [0, 0, 1, 1], "rank": [0, 1, 0, 1], "seconds": [2.0, 2.1, 2.0, 2.6]})
    >>> log = read_steps(df, step="step", rank="rank", duration="seconds")
    >>> log
    StepLog(step table: 2 steps x 2 ranks)
    >>> (log.times_h * 3600).round(2).tolist()          # seconds again, one row per step
    [[2.0, 2.1], [2.0, 2.6]]
    """
    if name is None:
        name = "step table" if isinstance(source, pd.DataFrame) else Path(source).name
    if (duration is None) == (start is None or end is None):
        raise LogFormatError(f"{name}: give either duration= or both start= and end=")
    if missing not in ("raise", "drop"):
        raise LogFormatError(f"{name}: missing must be 'raise' or 'drop'; got {missing!r}")
    factor = unit_hours(time_unit or "s")
    node_col = node if isinstance(node, str) else None
    time_cols = [duration] if duration is not None else [start, end]
    columns = [step, rank] + ([node_col] if node_col else []) + time_cols
    chunks = _chunks_of(source, columns, name)
    if chunks.n_rows == 0:
        raise EmptyDataError(f"{name}: no rows")
    index, dense = _indexers(chunks, step, rank)
    grid, node_codes, node_labels, n_valid = _fill(chunks, step, rank, node_col, index,
                                                   (duration, start, end, factor), name)
    holes = np.isnan(grid)
    if grid.size - np.count_nonzero(holes) < n_valid:
        _raise_duplicate(chunks, step, rank, name)
    steps, ranks = index[step].labels, index[rank].labels
    if dense:  # labels were the whole integer range: drop steps and ranks that never appear
        rows, cols = ~holes.all(axis=1), ~holes.all(axis=0)
        if not (rows.all() and cols.all()):
            grid, holes = grid[rows][:, cols], holes[rows][:, cols]
            steps, ranks, node_codes = steps[rows], ranks[cols], None if node_codes is None else node_codes[cols]
    nodes = _nodes(node, node_codes, node_labels, ranks, name)
    grid, steps = _check_missing(grid, holes, steps, ranks, missing, name)
    return StepLog(grid, steps, ranks, nodes, name=name)


class _Index:
    """Positions of labels: arithmetic for a whole integer range, hashing otherwise."""

    def __init__(self, labels, offset=None):
        self.labels, self.offset = labels, offset
        self._index = None if offset is not None else pd.Index(labels)

    def __call__(self, values):
        if self.offset is not None:
            return np.asarray(values, dtype=np.int64) - self.offset
        return self._index.get_indexer(values)


def _indexers(chunks, step, rank):
    """An :class:`_Index` for the step and rank columns, and whether they are whole integer ranges."""
    r = chunks.ranges
    if step in r and rank in r:
        n_steps, n_ranks = r[step][1] - r[step][0] + 1, r[rank][1] - r[rank][0] + 1
        if n_steps * n_ranks <= 2 * chunks.n_rows + 1_000_000:
            return {step: _Index(np.arange(r[step][0], r[step][1] + 1), r[step][0]),
                    rank: _Index(np.arange(r[rank][0], r[rank][1] + 1), r[rank][0])}, True
    labels = _labels(chunks, [step, rank])
    return {step: _Index(labels[step]), rank: _Index(labels[rank])}, False


def _fill(chunks, step, rank, node_col, index, how, name):
    duration, start, end, factor = how
    n_ranks = len(index[rank].labels)
    cells = float(len(index[step].labels)) * n_ranks
    check_cost(f"{name}: a grid of {len(index[step].labels):,} steps x {n_ranks:,} ranks", work=cells,
               memory=cells * 8, hint="read a window of steps or a subset of ranks; a step log needs most "
               "(step, rank) pairs present")
    grid = np.full((len(index[step].labels), n_ranks), np.nan)
    flat = grid.reshape(-1)
    node_of = np.full(n_ranks, -1, dtype=np.int64) if node_col else None
    node_labels, node_index = [], pd.Index([])
    offset = n_valid = 0
    for chunk in chunks():
        d = _durations_h(chunk, duration, start, end, factor, name, offset)
        ri = index[rank](chunk[rank])
        if node_col:
            new = [v for v in pd.unique(chunk[node_col]) if v not in node_index]
            if new:
                node_labels += new
                node_index = pd.Index(node_labels)
            _check_nodes(node_of, ri, node_index.get_indexer(chunk[node_col]), node_labels, index[rank].labels,
                         name)
        flat[index[step](chunk[step]) * n_ranks + ri] = d
        offset += len(d)
        n_valid += len(d) - int(np.isnan(d).sum())
    return grid, node_of, node_labels, n_valid


def _check_nodes(node_of, ri, codes, node_labels, ranks, name):
    unset = node_of[ri] < 0
    node_of[ri[unset]] = codes[unset]
    clash = np.flatnonzero(node_of[ri] != codes)
    if len(clash):
        j = clash[0]
        raise LogFormatError(f"{name}: rank {ranks[ri[j]]!r} appears on nodes {node_labels[node_of[ri[j]]]!r} "
                             f"and {node_labels[codes[j]]!r}; a rank belongs to one node")


def _raise_duplicate(chunks, step, rank, name):
    parts = [pd.DataFrame({"step": c[step], "rank": c[rank]}) for c in chunks()]
    table = pd.concat(parts, ignore_index=True)
    dup = np.flatnonzero(table.duplicated(["step", "rank"]).to_numpy())
    row = table.iloc[dup[0]]
    raise DuplicateStepError(f"{name}, row {dup[0] + 1}: step {row['step']!r} on rank {row['rank']!r} appears "
                             f"more than once ({len(dup)} repeated rows); each (step, rank) pair must be unique")


def _nodes(node, node_of, node_labels, ranks, name):
    if node is None:
        return None
    if isinstance(node, str):
        return np.asarray(node_labels, dtype=object if not node_labels else None)[node_of]
    k = int(node)
    if k < 1 or ranks.dtype.kind not in "iu":
        raise LogFormatError(f"{name}: node={node!r} as ranks per node needs integer ranks and a count >= 1")
    return ranks // k


def _check_missing(grid, holes, steps, ranks, missing, name):
    if not holes.any():
        return grid, steps
    bad_steps = holes.any(axis=1)
    if missing == "drop":
        if bad_steps.all():
            raise EmptyDataError(f"{name}: every step lacks a rank; nothing is left after dropping them")
        return np.ascontiguousarray(grid[~bad_steps]), steps[~bad_steps]
    i, j = np.argwhere(holes)[0]
    raise MissingStepsError(f"{name}: step {steps[i]!r} has no time for rank {ranks[j]!r} "
                            f"({int(holes.sum()):,} missing (step, rank) pairs in {int(bad_steps.sum()):,} steps); "
                            "every rank must report every step, or pass missing='drop'")


def example_steps():
    """The bundled example step log (synthetic, planted slow nodes; see ``data/README.md``).

    Returns a :class:`StepLog` with step times in hours, 8 ranks (GPUs) on each of 16 nodes.

    Examples
    --------
    >>> log = example_steps()
    >>> log
    StepLog(example step log: 1,200 steps x 128 ranks on 16 nodes)
    >>> log.times_h.shape
    (1200, 128)
    """
    from ..bundled.datasets import data_dir

    return read_steps(data_dir() / "steps-example" / "steps.parquet", step="step", rank="rank",
                      duration="duration_ms", node="node", time_unit="ms", name="example step log")
