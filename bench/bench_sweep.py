"""Report sweep speed-up: the same sweep rendered on 1 worker and on 2, in one script.

The sweep is ``n_gpus`` over four values; by default it renders the
checkpoint, requirements and what-if notebooks for each value (12 notebooks),
with ``--quick`` only the checkpoint notebook (4 notebooks). Each worker count
gets its own spawn process pool, created inside the timed call (as
``relmodel report --jobs N`` does), and the two are measured alternately so
that a busy spell on a shared machine hits both. Every time is the fastest of
``--repeat`` runs; the load average is printed beside the ratio, since on a
machine whose cores are busy with other work two workers cannot be twice as
fast as one. Target: 2 workers at least 1.7x one worker.

Usage: python bench/bench_sweep.py [--quick] [--repeat N]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone without installing
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import Targets  # noqa: E402

from relmodel.report import render  # noqa: E402
from relmodel.report.executors import worker_pool  # noqa: E402

SWEEP = {"n_gpus": [4096, 16384, 65536, 131072]}
#: Speed-up of 2 workers over 1 that the sweep must reach.
TARGET = 1.7


def sweep_seconds(workers, notebooks):
    """Seconds to render the sweep into a fresh folder on ``workers`` workers."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        with worker_pool(workers) as pool:
            render(notebooks=notebooks, sweep=SWEEP, out=Path(tmp) / "sweep", executor=pool)
        return time.perf_counter() - start


def load_average():
    return os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, only the checkpoint notebook")
    parser.add_argument("--repeat", type=int, default=2, help="runs per worker count; the fastest counts")
    args = parser.parse_args()
    repeat = 1 if args.quick else max(1, args.repeat)
    notebooks = ["03"] if args.quick else ["03", "04", "05"]
    before = load_average()
    times = {1: float("inf"), 2: float("inf")}
    for _ in range(repeat):
        for workers in (1, 2):
            times[workers] = min(times[workers], sweep_seconds(workers, notebooks))
    after = load_average()
    n = len(notebooks) * len(SWEEP["n_gpus"])
    ratio = times[1] / times[2]
    print(f"sweep n_gpus x{len(SWEEP['n_gpus'])} over {', '.join(notebooks)} ({n} notebooks), "
          f"fastest of {repeat} on {os.cpu_count()} cores")
    print(f"{'1 worker':<20}{times[1]:>9.2f} s")
    print(f"{'2 workers':<20}{times[2]:>9.2f} s")
    print(f"speed-up {ratio:.2f}x (target >= {TARGET}x); load average before "
          f"{before[0]:.2f}, after {after[0]:.2f} (1-minute)")
    targets = Targets("sweep")
    targets.add("sweep on 2 workers / 1 worker", ratio, TARGET)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
