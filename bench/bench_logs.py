"""Big logs: read_log + uptimes + downtimes on a generated log, against plain pandas.

Generates a log of ``--rows`` outages (default 5,000,000 on 100,000 nodes with
50 causes over 5 years, about 1% exact duplicates and 0.25% overlapping
outages, rows in time order) as CSV in a temporary folder (deleted
afterwards), then times, each in a fresh process so peak memory is its own:

* relmodel: ``read_log`` (pyarrow reader, vectorised clean-up), ``uptimes()``,
  ``downtimes()``;
* plain pandas doing the same steps the way one would write them:
  ``pandas.read_csv``, ``to_datetime``, ``duplicated``, a per-node
  ``groupby().transform(lambda s: s.cummax().shift())`` for overlaps, and
  ``sort_values`` + ``groupby().shift()`` for up and down times.

Run: ``python bench/bench_logs.py [--rows N]``.  Prints seconds per step, peak
resident memory, the ratios, and whether both give the same numbers.
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


def run_relmodel(path):
    import warnings
    sys.path.insert(0, str(ROOT))
    import relmodel
    t = Clock()
    t.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.LogWarning)
        log = relmodel.read_log(path, start="start", end="end", node="node", cause="cause")
    t.stop("read_log")
    t.start()
    up = log.uptimes()
    t.stop("uptimes")
    t.start()
    down = log.downtimes()
    t.stop("downtimes")
    return t, _digest(len(log.interruptions()), up.hours, up.observed, down.hours)


def run_pandas(path):
    import pandas as pd
    t = Clock()
    t.start()
    df = pd.read_csv(path)
    origin = pd.to_datetime(df["start"]).min()
    ev = pd.DataFrame({"row": np.arange(1, len(df) + 1),
                       "start_h": (pd.to_datetime(df["start"]) - origin) / pd.Timedelta(hours=1),
                       "end_h": (pd.to_datetime(df["end"]) - origin) / pd.Timedelta(hours=1),
                       "node": df["node"].astype(str), "cause": df["cause"]})
    t1 = float(np.nanmax([ev["start_h"].max(), ev["end_h"].max()]))
    ev = ev[~ev.duplicated(subset=["node", "start_h", "end_h", "cause"], keep="first")]
    ev = ev.sort_values(["node", "start_h", "row"], kind="stable")
    prev_end = ev.groupby("node", sort=False)["end_h"].transform(lambda s: s.cummax().shift(1))
    ev = ev.assign(overlaps=(ev["start_h"] < prev_end).to_numpy())
    ev = ev.sort_values(["start_h", "row"], kind="stable").reset_index(drop=True)
    t.stop("read_log")

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
    return t, _digest(int((~ev["overlaps"]).sum()), up[keep], ~last[keep], d[np.isfinite(d)])


def _digest(n_interruptions, up, up_observed, down):
    return {"interruptions": int(n_interruptions), "n_up": int(up.size), "sum_up": float(np.sum(up)),
            "censored_up": int((~np.asarray(up_observed)).sum()), "n_down": int(down.size),
            "sum_down": float(np.sum(down))}


def _child(which, path):
    t, digest = (run_relmodel if which == "relmodel" else run_pandas)(path)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": t.wall, "cpu": t.cpu, "peak_mib": peak_mib, "digest": digest}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--only", choices=["relmodel", "pandas"], help="Run one side only (no ratios).")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return _child(*args.child)
    folder = Path(tempfile.mkdtemp(prefix="relmodel-bench-logs-"))
    try:
        path = folder / "log.csv"
        t0 = time.perf_counter()
        generate(path, args.rows)
        print(f"generated {args.rows:,} rows ({path.stat().st_size / 2**20:,.0f} MiB CSV) in "
              f"{time.perf_counter() - t0:.1f} s; {os.cpu_count()} cores")
        out = {}
        for which in [args.only] if args.only else ("relmodel", "pandas"):
            proc = subprocess.run([sys.executable, __file__, "--child", which, str(path)],
                                  capture_output=True, text=True, check=True)
            out[which] = json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.only:
        x = out[args.only]
        print(f"{args.only}: wall {json.dumps({k: round(v, 2) for k, v in x['wall'].items()})}, "
              f"CPU {json.dumps({k: round(v, 2) for k, v in x['cpu'].items()})}, peak {x['peak_mib']:,.0f} MiB")
        return
    r, p = out["relmodel"], out["pandas"]
    print("seconds per step, wall clock (CPU time of all threads in brackets)")
    print(f"{'step':<12}{'relmodel':>18}{'pandas':>18}{'ratio':>8}")
    for step in ("read_log", "uptimes", "downtimes", "total"):
        a, b = (sum(x["wall"].values()) if step == "total" else x["wall"][step] for x in (r, p))
        ca, cb = (sum(x["cpu"].values()) if step == "total" else x["cpu"][step] for x in (r, p))
        print(f"{step:<12}{a:>9.2f} ({ca:>6.2f}){b:>9.2f} ({cb:>6.2f}){b / a:>7.1f}x")
    print(f"peak memory: relmodel {r['peak_mib']:,.0f} MiB, pandas {p['peak_mib']:,.0f} MiB "
          f"({p['peak_mib'] / r['peak_mib']:.1f}x)")
    same = all(np.isclose(r["digest"][k], p["digest"][k], rtol=1e-9) for k in r["digest"])
    print(f"same results: {same} {r['digest'] if same else (r['digest'], p['digest'])}")


if __name__ == "__main__":
    main()
