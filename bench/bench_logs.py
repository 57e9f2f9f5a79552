"""Big logs: read_log + interarrivals + uptimes + downtimes on a generated log, beside pandas, polars and duckdb.

Generates a log of ``--rows`` outages (default 5,000,000 on 100,000 nodes with
50 causes over 5 years, about 1% exact duplicates and 0.25% overlapping
outages, rows in time order; seeded) as CSV in a temporary folder (deleted
afterwards), then times, each in a fresh process so peak memory is its own:

* relmodel: ``read_log`` (every validation rule), ``interarrivals()``,
  ``uptimes()``, ``downtimes()``;
* plain pandas doing the same steps the way one would write them;
* polars and duckdb doing the same steps (when they are installed: ``pip
  install -e .[bench]``), each with its own multi-threaded CSV reader.

Engine: relmodel keeps pyarrow's multi-threaded CSV reader (already a
dependency, via pandas) and does the clean-up in numpy on integer codes: one
vectorised sort of packed ``node * n + row`` keys gives the stable node order
(several times faster than a stable argsort), node and cause names are
dictionary-encoded and never expanded per row before the final table, and
no step sorts what is already in order.  A fixed-width ``time_format`` is read
in numpy from the text where pyarrow left it (each two-digit pair by one table
look-up, blocks of rows at a time), so giving the format costs about what
pyarrow's own parsing of ISO times does.  That reaches the targets without
adding polars or duckdb as runtime dependencies (each is a large binary, and
neither is needed by anything else in relmodel).

Each side runs four ways: with and without a time format (relmodel's
``time_format=``, pandas' ``format=``; polars always gets the format, its
fastest way to read these times, so its anchor is the same both ways), and on
one thread (``OMP_NUM_THREADS=1``, which pyarrow obeys; ``POLARS_MAX_THREADS=1``;
duckdb ``SET threads = 1``) and on default threading.

Targets (the script exits with status 1 when one is missed), in every one of
the four ways: relmodel's total wall time at most 2x polars', and its peak
resident memory at most 1.5x polars'; and ``read_log`` with the format at most
1.3x ``read_log`` without it, on the same file and threading.  That last ratio
compares relmodel with itself, so after the main runs relmodel's read runs
again, without and with the format in turn so that both meet the same load
(``--repeat`` runs each way in all, default 3), and the fastest of each is
compared; the runs' seconds are printed.  The machine's
load average is printed beside the results: on a shared machine run it twice
and compare the ratios.

Run: ``python bench/bench_logs.py [--quick] [--rows N] [--only relmodel|pandas|polars|duckdb]
[--threads 1|default] [--format yes|no] [--repeat N]`` (``--quick``: 500,000 rows).
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from timing import Targets

ROOT = Path(__file__).resolve().parents[1]
HOURS_5Y = 5 * 8766.0


def generate(path, rows, nodes=100_000, causes=50, seed=0):
    """Write a CSV log: start, end (ISO timestamps), node, cause."""
    import pyarrow as pa
    from pyarrow import csv as pacsv
    rng = np.random.default_rng(seed)
    n_new = int(rows * 0.99)
    node = rng.integers(0, nodes, n_new)
    start_s = np.sort(rng.uniform(0, HOURS_5Y * 3600, n_new)).astype(np.int64)
    dur_s = rng.lognormal(np.log(1800), 1.2, n_new).astype(np.int64) + 60
    cause = rng.integers(0, causes, n_new)
    over = rng.integers(0, n_new, n_new // 200)  # 0.5% outages that start inside an earlier one on its node
    node[over[1::2]], start_s[over[1::2]] = node[over[::2][:over[1::2].size]], start_s[over[::2][:over[1::2].size]] + 60
    dup = rng.integers(0, n_new, rows - n_new)  # exact copies of earlier rows
    node, start_s = np.concatenate([node, node[dup]]), np.concatenate([start_s, start_s[dup]])
    dur_s, cause = np.concatenate([dur_s, dur_s[dup]]), np.concatenate([cause, cause[dup]])
    order = np.argsort(start_s, kind="stable")  # in time order, as loggers write them
    node, start_s, dur_s, cause = node[order], start_s[order], dur_s[order], cause[order]
    t0 = np.datetime64("2019-01-01T00:00:00", "s")
    table = pa.table({
        "start": pa.array(t0 + start_s.astype("timedelta64[s]")),
        "end": pa.array(t0 + (start_s + dur_s).astype("timedelta64[s]")),
        "node": pa.array(np.char.add("node-", np.char.zfill(node.astype(str), 6))),
        "cause": pa.array(np.char.add("cause-", np.char.zfill(cause.astype(str), 2))),
    })
    pacsv.write_csv(table, path, pacsv.WriteOptions(include_header=True))


class Clock:
    """Wall-clock and CPU seconds (all threads) per step."""

    def __init__(self):
        self.wall, self.cpu = {}, {}
        self._t = None

    def start(self):
        self._t = (time.perf_counter(), time.process_time())

    def stop(self, step):
        self.wall[step] = time.perf_counter() - self._t[0]
        self.cpu[step] = time.process_time() - self._t[1]


FORMAT = "%Y-%m-%d %H:%M:%S"  # how generate() writes the times
ANCHORS = {
    "relmodel": "relmodel.read_log(path, start, end, node, cause[, time_format=FORMAT]) with every validation "
                "rule, then interarrivals(), uptimes(), downtimes()",
    "pandas": "pd.read_csv(engine='pyarrow'), pd.to_datetime([format=FORMAT]), duplicated(), two stable sorts, "
              "groupby cummax for overlaps, groupby merge for up and down times",
    "polars": "pl.read_csv() (its own multi-threaded CSV reader) then str.to_datetime(FORMAT) (always given the "
              "format: its fastest way, so its anchor is the same with and without one), unique(), sort(), "
              "cum_max().over(node), group_by merge for up and down times",
    "duckdb": "one SQL statement over read_csv() (its own typed CSV reader) with window functions",
}


def run_relmodel(path, fmt=None):
    import warnings
    sys.path.insert(0, str(ROOT))
    import relmodel
    t = Clock()
    t.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.data.LogWarning)
        log = relmodel.read_log(path, start="start", end="end", node="node", cause="cause", time_format=fmt)
    t.stop("read_log")
    t.start()
    gaps = log.interarrivals(include_planned=True)
    t.stop("interarrivals")
    t.start()
    up = log.uptimes()
    t.stop("uptimes")
    t.start()
    down = log.downtimes()
    t.stop("downtimes")
    n_interruptions = int((~log.events["overlaps"]).sum())  # what the others count; no copy of the table
    return t, _digest(n_interruptions, up.hours, up.observed, down.hours, gaps.hours)


def run_pandas(path, fmt=None):
    import pandas as pd
    t = Clock()
    t.start()
    df = pd.read_csv(path, engine="pyarrow")
    start, end = pd.to_datetime(df["start"], format=fmt), pd.to_datetime(df["end"], format=fmt)
    origin = start.min()
    ev = pd.DataFrame({"row": np.arange(1, len(df) + 1), "start_h": (start - origin) / pd.Timedelta(hours=1),
                       "end_h": (end - origin) / pd.Timedelta(hours=1),
                       "node": df["node"].astype(str), "cause": df["cause"]})
    del df, start, end
    t1 = float(np.nanmax([ev["start_h"].max(), ev["end_h"].max()]))
    ev = ev[~ev.duplicated(subset=["node", "start_h", "end_h", "cause"], keep="first")]
    ev = ev.sort_values(["node", "start_h", "row"], kind="stable")
    prev_end = ev.groupby("node", sort=False)["end_h"].cummax().groupby(ev["node"], sort=False).shift(1)
    ev = ev.assign(overlaps=(ev["start_h"] < prev_end).to_numpy())
    ev = ev.sort_values(["start_h", "row"], kind="stable").reset_index(drop=True)
    t.stop("read_log")
    t.start()
    starts = np.unique(ev.loc[~ev["overlaps"], "start_h"].to_numpy())
    gaps = np.append(np.diff(starts), t1 - starts[-1])
    t.stop("interarrivals")

    def merged():
        m = ev.sort_values(["node", "start_h"], kind="stable")
        block = (~m["overlaps"]).cumsum()
        return m.groupby(block, sort=False).agg(node=("node", "first"), start_h=("start_h", "first"),
                                                end_h=("end_h", "max")).reset_index(drop=True)
    t.start()
    m = merged()
    nxt = m.groupby("node", sort=False)["start_h"].shift(-1)
    last = nxt.isna().to_numpy()
    up = np.where(last, t1, nxt) - m["end_h"].to_numpy()
    keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
    t.stop("uptimes")
    t.start()
    m = merged()
    d = (m["end_h"] - m["start_h"]).to_numpy()
    t.stop("downtimes")
    return t, _digest(int((~ev["overlaps"]).sum()), up[keep], ~last[keep], d[np.isfinite(d)], gaps)


def run_polars(path, fmt=None):
    import polars as pl
    t = Clock()
    t.start()
    # the format always given: several times faster in polars than try_parse_dates or a Datetime schema
    df = pl.read_csv(path).with_columns(pl.col("start", "end").str.to_datetime(FORMAT, time_unit="us"))
    origin = df["start"].min()
    hours = [((pl.col(c) - origin).dt.total_microseconds() / 3.6e9).alias(c + "_h") for c in ("start", "end")]
    ev = df.with_row_index("row", 1).with_columns(hours).drop("start", "end")
    del df
    t1 = max(ev["start_h"].max(), ev["end_h"].max())
    ev = ev.unique(subset=["node", "start_h", "end_h", "cause"], keep="first", maintain_order=True)
    ev = ev.sort(["node", "start_h", "row"])
    prev_end = pl.col("end_h").cum_max().shift(1).over("node")
    ev = ev.with_columns(overlaps=(pl.col("start_h") < prev_end).fill_null(False)).sort(["start_h", "row"])
    t.stop("read_log")
    t.start()
    starts = ev.filter(~pl.col("overlaps"))["start_h"].unique().sort().to_numpy()
    gaps = np.append(np.diff(starts), t1 - starts[-1])
    t.stop("interarrivals")

    def merged():
        m = ev.sort(["node", "start_h", "row"]).with_columns(block=(~pl.col("overlaps")).cum_sum())
        return m.group_by("block", maintain_order=True).agg(pl.col("node").first(), pl.col("start_h").first(),
                                                             pl.col("end_h").max())
    t.start()
    m = merged().with_columns(nxt=pl.col("start_h").shift(-1).over("node"))
    last = m["nxt"].is_null().to_numpy()
    up = np.where(last, t1, m["nxt"].fill_null(0.0).to_numpy()) - m["end_h"].to_numpy()
    keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
    t.stop("uptimes")
    t.start()
    m = merged()
    d = (m["end_h"] - m["start_h"]).to_numpy()
    t.stop("downtimes")
    return t, _digest(int((~ev["overlaps"]).sum()), up[keep], ~last[keep], d[np.isfinite(d)], gaps)


_DUCK_EVENTS = """
CREATE TEMP TABLE ev AS
WITH raw AS (
    SELECT row_number() OVER () AS row, node, cause,
           epoch_us("start") / 3.6e9 AS s_abs, epoch_us("end") / 3.6e9 AS e_abs
    FROM read_csv('{path}', header = true)
), d AS (
    SELECT * FROM raw QUALIFY row_number() OVER (PARTITION BY node, s_abs, e_abs, cause ORDER BY row) = 1
), o AS (SELECT min(s_abs) AS origin FROM raw)
SELECT row, node, cause, s_abs - origin AS start_h, e_abs - origin AS end_h,
       coalesce(s_abs < max(e_abs) OVER (PARTITION BY node ORDER BY s_abs, row
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS over
FROM d, o ORDER BY start_h, row
"""
_DUCK_MERGED = """
WITH b AS (SELECT *, sum(CASE WHEN over THEN 0 ELSE 1 END) OVER (ORDER BY node, start_h, row) AS block FROM ev)
SELECT node, min(start_h) AS start_h, max(end_h) AS end_h FROM b GROUP BY node, block
"""


def run_duckdb(path, fmt=None):
    import duckdb
    con = duckdb.connect()
    if os.environ.get("OMP_NUM_THREADS") == "1":
        con.execute("SET threads = 1")
    t = Clock()
    t.start()
    con.execute(_DUCK_EVENTS.format(path=str(path).replace("'", "''")))
    t1 = con.execute("SELECT greatest(max(start_h), max(end_h)) FROM ev").fetchone()[0]
    t.stop("read_log")
    t.start()
    starts = con.execute("SELECT DISTINCT start_h FROM ev WHERE NOT over ORDER BY 1").fetchnumpy()["start_h"]
    gaps = np.append(np.diff(starts), t1 - starts[-1])
    t.stop("interarrivals")
    t.start()
    m = con.execute(f"SELECT end_h, lead(start_h) OVER (PARTITION BY node ORDER BY start_h) AS nxt "
                    f"FROM ({_DUCK_MERGED})").fetchnumpy()
    nxt = np.ma.filled(np.ma.asarray(m["nxt"]).astype(float), np.nan)
    last = np.isnan(nxt)
    up = np.where(last, t1, nxt) - np.asarray(m["end_h"], float)
    keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
    t.stop("uptimes")
    t.start()
    d = con.execute(f"SELECT end_h - start_h AS d FROM ({_DUCK_MERGED})").fetchnumpy()["d"]
    d = np.asarray(d, float)
    t.stop("downtimes")
    n_int = con.execute("SELECT count(*) FROM ev WHERE NOT over").fetchone()[0]
    return t, _digest(n_int, up[keep], ~last[keep], d[np.isfinite(d)], gaps)


RUNNERS = {"relmodel": run_relmodel, "pandas": run_pandas, "polars": run_polars, "duckdb": run_duckdb}
STEPS = ("read_log", "interarrivals", "uptimes", "downtimes")
TARGETS = {"time": 2.0, "memory": 1.5, "format": 1.3}  # relmodel / polars, and with / without a format, at most
ONE_THREAD = {"OMP_NUM_THREADS": "1", "POLARS_MAX_THREADS": "1", "RAYON_NUM_THREADS": "1"}


def _digest(n_interruptions, up, up_observed, down, gaps):
    return {"interruptions": int(n_interruptions), "n_up": int(up.size), "sum_up": float(np.sum(up)),
            "censored_up": int((~np.asarray(up_observed)).sum()), "n_down": int(down.size),
            "sum_down": float(np.sum(down)), "n_gaps": int(gaps.size), "sum_gaps": float(np.sum(gaps))}


def _child(which, path, fmt):
    if os.environ.get("OMP_NUM_THREADS") == "1":
        import pyarrow as pa
        pa.set_cpu_count(1)
    t, digest = RUNNERS[which](path, None if fmt == "-" else fmt)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": t.wall, "cpu": t.cpu, "peak_mib": peak_mib, "digest": digest}))


def _installed(name):
    import importlib.util
    return name in ("relmodel", "pandas") or importlib.util.find_spec(name) is not None


def _load():
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def _table(out):
    names = list(out)
    print(f"seconds per step, wall clock (CPU seconds of all threads in brackets); {_load()}")
    print(f"{'step':<14}" + "".join(f"{n:>20}" for n in names))
    for step in STEPS + ("total",):
        cells = []
        for n in names:
            w, c = out[n]["wall"], out[n]["cpu"]
            a, b = (sum(w.values()), sum(c.values())) if step == "total" else (w[step], c[step])
            cells.append(f"{a:>10.2f} ({b:>6.2f})")
        print(f"{step:<14}" + "".join(f"{x:>20}" for x in cells))
    print(f"{'peak MiB':<14}" + "".join(f"{out[n]['peak_mib']:>20,.0f}" for n in names))
    ref = out.get("relmodel", out[names[0]])["digest"]
    for n in names[1:]:
        same = all(np.isclose(ref[k], out[n]["digest"][k], rtol=1e-9) for k in ref)
        print(f"same results as {n}: {same}" + ("" if same else f" {ref} vs {out[n]['digest']}"))


def _format_runs(path, threadings, repeat):
    """relmodel's read_log seconds without and with FORMAT, ``repeat - 1`` more runs of each per threading,
    alternated (without, with, without, with...) so that both see the same load: ``{(threads, fmt): [s]}``."""
    reads = {}
    for threads in threadings:
        env = dict(os.environ, **(ONE_THREAD if threads == "1" else {}))
        for _ in range(repeat - 1):
            for fmt in (None, FORMAT):
                proc = subprocess.run([sys.executable, __file__, "--child", "relmodel", str(path), fmt or "-"],
                                      capture_output=True, text=True, check=True, env=env)
                reads.setdefault((threads, fmt), []).append(
                    json.loads(proc.stdout.strip().splitlines()[-1])["wall"]["read_log"])
    return reads


def _ratios(runs, table, reads=None):
    """Add each way's ratios to ``table`` (a Targets); print them.  The format ratio is the fastest
    read_log with FORMAT over the fastest without, over the main run and the alternated ones in ``reads``."""
    rows, notes = [], []
    for (threads, fmt), out in runs.items():
        way = f"{'1 thread' if threads == '1' else 'default threads'}, {'with' if fmt else 'without'} format"
        r = out.get("relmodel")
        for n in (x for x in out if x != "relmodel" and r is not None):
            o = out[n]
            rows.append((f"relmodel / {n}, total time ({way})", sum(r["wall"].values()) / sum(o["wall"].values()),
                         TARGETS["time"] if n == "polars" else None))
            rows.append((f"relmodel / {n}, peak memory ({way})", r["peak_mib"] / o["peak_mib"],
                         TARGETS["memory"] if n == "polars" else None))
        plain = runs.get((threads, None), {}).get("relmodel")
        if fmt and r is not None and plain is not None:
            with_, without = ([out_["wall"]["read_log"]] + (reads or {}).get((threads, f), [])
                              for out_, f in ((r, fmt), (plain, None)))
            notes.append(f"read_log seconds ({way.split(',')[0]}), runs without format: "
                         + ", ".join(f"{x:.2f}" for x in without) + "; with: " + ", ".join(f"{x:.2f}" for x in with_))
            rows.append((f"read_log with / without time_format ({way.split(',')[0]})",
                         min(with_) / min(without), TARGETS["format"]))
    print("\n" + "\n".join(notes) if notes else "")
    print(f"{'ratio':<58}{'value':>8}{'target':>10}")
    for what, ratio, target in rows:
        print(f"{what:<58}{ratio:>7.2f}x{'' if target is None else f'<= {target:g}x':>10}")
        if target is not None:
            table.add(what, ratio, target, higher=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--quick", action="store_true", help="500,000 rows")
    ap.add_argument("--only", choices=list(RUNNERS), help="Run one side only (no ratios against others).")
    ap.add_argument("--threads", choices=["1", "default"], help="one way of threading only (default: both)")
    ap.add_argument("--format", choices=["yes", "no"], help="with or without a time format only (default: both)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="read_log runs without and with the format per threading, for the format ratio (default 3)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return _child(*args.child)
    rows = 500_000 if args.quick else args.rows
    print("anchors (each side in a fresh process; total = read + interarrivals + uptimes + downtimes):")
    for name, text in ANCHORS.items():
        print(f"  {name}: {text}")
    print(f"  FORMAT = {FORMAT!r}")
    print("threading: default = each library's own (pyarrow's and polars' thread pools on every core); 1 thread = "
          + " ".join(f"{k}={v}" for k, v in ONE_THREAD.items()) + " (pyarrow obeys OMP_NUM_THREADS; polars "
          "POLARS_MAX_THREADS), duckdb SET threads = 1")
    print(f"targets, in each of the four ways: relmodel total time <= {TARGETS['time']:g}x polars', relmodel peak "
          f"memory <= {TARGETS['memory']:g}x polars'; read_log with time_format=FORMAT <= {TARGETS['format']:g}x "
          "read_log without it (same file, same threading)")
    folder = Path(tempfile.mkdtemp(prefix="relmodel-bench-logs-"))
    runs = {}
    try:
        path = folder / "log.csv"
        t0 = time.perf_counter()
        generate(path, rows)
        print(f"generated {rows:,} rows ({path.stat().st_size / 2**20:,.0f} MiB CSV) in "
              f"{time.perf_counter() - t0:.1f} s; {os.cpu_count()} cores; {_load()}")
        for threads in [args.threads] if args.threads else ["1", "default"]:
            env = dict(os.environ, **(ONE_THREAD if threads == "1" else {}))
            for fmt in {"yes": [FORMAT], "no": [None]}.get(args.format, [None, FORMAT]):
                out = runs.setdefault((threads, fmt), {})
                for which in [args.only] if args.only else [n for n in RUNNERS if _installed(n)]:
                    proc = subprocess.run([sys.executable, __file__, "--child", which, str(path), fmt or "-"],
                                          capture_output=True, text=True, check=True, env=env)
                    out[which] = json.loads(proc.stdout.strip().splitlines()[-1])
                print(f"\n--- {'1 thread' if threads == '1' else 'default threading'}, "
                      f"{'time_format=' + repr(fmt) if fmt else 'no time format'} ---")
                _table(out)
        reads = {}
        if not args.format and (not args.only or args.only == "relmodel") and args.repeat > 1:
            print(f"\nrelmodel's read_log {args.repeat - 1} more times in each way, without and with FORMAT in "
                  f"turn, for the format ratio (relmodel against itself: each way's fastest); {_load()}")
            reads = _format_runs(path, [args.threads] if args.threads else ["1", "default"], args.repeat)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if "polars" not in {n for out in runs.values() for n in out} and not args.only:
        print("polars is not installed (pip install -e .[bench]): the targets cannot be checked")
        return 1
    table = Targets("logs")
    _ratios(runs, table, reads)
    return table.report()


if __name__ == "__main__":
    sys.exit(main())
