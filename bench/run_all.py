"""Run every benchmark and print where the project stands: one table of ratios against targets.

    python bench/run_all.py --quick           # small sizes, a few minutes
    python bench/run_all.py --quick simulate  # only the benchmarks whose name contains "simulate"

Each ``bench_*.py`` runs in its own process (``--quick`` passed on to those that
take it; ``bench_logs.py`` gets ``--rows 500000``, ``bench_xid.py`` ``--lines 200000``).  A benchmark that measures
targets reports them through :class:`timing.Targets`; their rows are gathered
here into one table.  The exit status is 1 when a target is missed or a
benchmark fails, else 0.  Not part of the test suite: timings depend on the
machine and its load (the load average is printed beside the table).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import RESULTS_ENV, table

HERE = Path(__file__).resolve().parent

#: Arguments for the benchmarks without a --quick option.
QUICK_ARGS = {"bench_logs": ["--rows", "500000"], "bench_import": [], "bench_cli": [], "bench_xid": ["--lines", "200000"],
              "bench_sweep_cli": ["--repeat", "1", "--no-dask"]}


def scripts(only=None):
    """The benchmark scripts, by name, optionally those whose name contains ``only``."""
    return [p for p in sorted(HERE.glob("bench_*.py")) if only is None or only in p.stem]


def run_one(path, quick, results):
    """Run one benchmark; returns (exit status, seconds)."""
    args = QUICK_ARGS.get(path.stem, ["--quick"]) if quick else []
    env = dict(os.environ, **{RESULTS_ENV: str(results)})
    start = time.perf_counter()
    status = subprocess.run([sys.executable, str(path), *args], cwd=HERE, env=env).returncode
    return status, time.perf_counter() - start


def read_rows(path):
    import json

    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (passed on to every benchmark)")
    ap.add_argument("only", nargs="?", help="run only the benchmarks whose name contains this")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results.jsonl"
        runs = []
        for path in scripts(args.only):
            print(f"\n=== {path.stem} ===", flush=True)
            status, seconds = run_one(path, args.quick, results)
            runs.append((path.stem, status, seconds))
        rows = read_rows(results)
    print("\n=== where the project stands ===")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (timings slow down under load)")
    if rows:
        print(table(rows))
    with_targets = {r["bench"] for r in rows}
    print()
    for name, status, seconds in runs:
        short = name.removeprefix("bench_")
        what = "targets in the table" if short in with_targets else "no targets reported"
        print(f"  {name:<20} {'exit 0' if status == 0 else f'exit {status}':<8} {seconds:7.1f} s  {what}")
    missed = [r for r in rows if not r["met"]]
    missing = {"bench_" + r["bench"] for r in missed}
    failed = [name for name, status, _ in runs if status != 0 and not (status == 1 and name in missing)]
    if missed or failed:
        print(f"\n{len(missed)} target(s) missed; {len(failed)} benchmark(s) failed: {', '.join(failed) or 'none'}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
