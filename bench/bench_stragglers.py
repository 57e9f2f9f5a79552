"""Speed and memory of the straggler analysis on a 10^8-row Parquet step log.

    python bench/bench_stragglers.py            # 10,000 ranks x 10,000 steps (10^8 rows)
    python bench/bench_stragglers.py --quick    # 1,000 ranks x 2,000 steps

Steps:
1. a synthetic log (1,250 nodes of 8 ranks, 3 planted slow nodes) is streamed
   to Parquet in a temporary folder, one row group per 100 steps;
2. a fresh Python process reads it with relmodel.read_steps (two passes over
   the row groups with pyarrow), runs StepLog.slowdown() (with a 1,000-draw
   block bootstrap) and relmodel.find_slow_nodes, and reports the time of each
   part and its peak resident memory (getrusage);
3. the same questions answered the way people otherwise would, with pandas
   (read_parquet, then groupby per step for max and median, and the slowest
   rank per step), on a tenth of the steps, against relmodel on the same tenth.
The target is under 60 s and 8 GiB on 2 cores for the full size.  The CPU
time of the analysing process is printed too: on a shared machine the wall
time includes waiting for a core.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))
import relmodel  # noqa: E402
from relmodel.stragglers import write_synthetic_parquet  # noqa: E402

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import relmodel
t0 = time.perf_counter()
log = relmodel.read_steps({path!r}, step="step", rank="rank", duration="duration_s", node="node")
t1 = time.perf_counter()
sd = log.slowdown(n_boot=1000)
t2 = time.perf_counter()
found = relmodel.find_slow_nodes(log)
t3 = time.perf_counter()
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"read": t1 - t0, "slowdown": t2 - t1, "detect": t3 - t2, "cpu": use.ru_utime + use.ru_stime,
                  "peak_gib": use.ru_maxrss / 2**20,
                  "share_lost": sd.share_lost, "flagged": [int(x) for x in found.nodes],
                  "rows": log.n_steps * log.n_ranks}}))
"""

PANDAS = r"""
import json, resource, sys, time
import pandas as pd
t0 = time.perf_counter()
df = pd.read_parquet({path!r})
g = df.groupby("step")["duration_s"]
top, med = g.max(), g.median()
slowest = df.loc[g.idxmax(), ["step", "rank"]]
share = 1 - med.sum() / top.sum()
t1 = time.perf_counter()
print(json.dumps({{"total": t1 - t0, "share_lost": float(share),
                  "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}}))
"""


def run(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n_nodes, n_steps = (125, 2000) if args.quick else (1250, 10_000)
    with tempfile.TemporaryDirectory() as tmp:
        big, small = Path(tmp) / "steps.parquet", Path(tmp) / "steps_tenth.parquet"
        t0 = time.perf_counter()
        planted = write_synthetic_parquet(big, n_nodes, 8, n_steps, n_slow=3, slow_factor=1.15, seed=7)
        write_synthetic_parquet(small, n_nodes, 8, n_steps // 10, n_slow=3, slow_factor=1.15, seed=7)
        size = big.stat().st_size / 2**30
        print(f"wrote {n_nodes * 8:,} ranks x {n_steps:,} steps ({n_nodes * 8 * n_steps:,} rows, "
              f"{size:.2f} GiB Parquet) in {time.perf_counter() - t0:.0f} s; planted slow nodes "
              f"{list(planted['node'])}")
        ours = run(CHILD.format(root=str(ROOT), path=str(big)))
        total = ours["read"] + ours["slowdown"] + ours["detect"]
        print(f"relmodel, full size ({ours['rows']:,} rows):")
        print(f"  read_steps (Parquet, by row group)   {ours['read']:8.1f} s")
        print(f"  StepLog.slowdown (1,000 bootstraps)  {ours['slowdown']:8.1f} s")
        print(f"  find_slow_nodes                      {ours['detect']:8.1f} s")
        print(f"  total                                {total:8.1f} s   (target < 60 s)")
        print(f"  CPU time of the process              {ours['cpu']:8.1f} s   (with import; the wall time above "
              f"includes waiting for a core when the machine is shared)")
        print(f"  peak memory                          {ours['peak_gib']:8.2f} GiB (target < 8 GiB)")
        print(f"  share of time lost {100 * ours['share_lost']:.1f}%; flagged nodes {ours['flagged']}")
        mine = run(CHILD.format(root=str(ROOT), path=str(small)))
        ref = run(PANDAS.format(path=str(small)))
        mine_t = mine["read"] + mine["slowdown"]
        print(f"a tenth of the steps ({mine['rows']:,} rows), read + per-step max/median/slowest rank:")
        print(f"  pandas read_parquet + groupby        {ref['total']:8.1f} s  peak {ref['peak_gib']:.2f} GiB")
        print(f"  relmodel read_steps + slowdown       {mine_t:8.1f} s  peak {mine['peak_gib']:.2f} GiB "
              f"{ref['total'] / mine_t:6.1f}x")
        print(f"  share of time lost: pandas {100 * ref['share_lost']:.2f}%, relmodel {100 * mine['share_lost']:.2f}%")


if __name__ == "__main__":
    main()
