"""A report sweep timed as a user times it: the ``relmodel report`` command, from outside, on 1 and 2 workers.

Anchor: the same command on one worker.  Each run is a fresh ``python -m relmodel report -q --sweep
n_gpus=4096,8192,16384,32768,65536,131072`` (no ``-n``: every notebook that takes ``n_gpus``, the default
suite) into its own temporary folder, timed by wall clock around the whole process: start-up, kernels,
every notebook, summaries, indexes and the comparison page.  Nothing inside the project is timed apart.

1. Local workers: ``--jobs 1`` against ``--jobs 2``, alternately, fastest of ``--repeat``.
2. A running Dask cluster (``dask scheduler`` and ``dask worker --nthreads 1`` processes started here on
   loopback, as an operator runs them): ``--dask tcp://127.0.0.1:PORT`` with one worker against two, fastest
   of ``--repeat`` (the first run of a cluster also starts its workers' kernels).  ``--no-dask`` skips it.

Target: 2 workers at least 1.7x one worker, in both.  The load average is printed with each run: on a machine
whose cores are busy with other work, two workers cannot be twice as fast as one.

Usage: python bench/bench_sweep_cli.py [--repeat 2] [--no-dask]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import Targets

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
SIZES = "4096,8192,16384,32768,65536,131072"
BIN = Path(sys.executable).parent


def report(*how):
    """Wall seconds of one ``relmodel report`` sweep with the worker options ``how``."""
    tmp = tempfile.mkdtemp(prefix="relmodel-bench-sweep-")
    try:
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "relmodel", "report", "-q", "--sweep", f"n_gpus={SIZES}", *how,
                              "--out", os.path.join(tmp, "r")], env=ENV, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if run.returncode != 0:
        raise SystemExit(f"relmodel report {' '.join(how)} failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
    return seconds


def _said(label, seconds):
    print(f"  {label}: {seconds:.1f} s (load average {os.getloadavg()[0]:.1f})", flush=True)
    return seconds


def local(repeat):
    """Fastest of ``repeat`` runs on 1 and on 2 local workers, measured alternately."""
    one, two = [], []
    for _ in range(repeat):
        one.append(_said("--jobs 1", report("--jobs", "1")))
        two.append(_said("--jobs 2", report("--jobs", "2")))
    return min(one), min(two)


def dask_cluster(workers, port):
    """Start ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes; return them."""
    quiet = dict(env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = [subprocess.Popen([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--dashboard-address", "127.0.0.1:0"], **quiet)]
    time.sleep(3)
    procs += [subprocess.Popen([str(BIN / "dask"), "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1",
                                "--host", "127.0.0.1", "--no-dashboard"], **quiet) for _ in range(workers)]
    from distributed import Client
    with Client(f"tcp://127.0.0.1:{port}", timeout=30) as c:
        c.wait_for_workers(workers, timeout=60)
    return procs


def on_dask(repeat):
    """Fastest of ``repeat`` runs on a running Dask cluster of 1 and of 2 workers."""
    best = {}
    for workers, port in ((1, 8797), (2, 8798)):
        procs = dask_cluster(workers, port)
        try:
            best[workers] = min(_said(f"Dask cluster, {workers} worker{'s' if workers > 1 else ''}",
                                      report("--dask", f"tcp://127.0.0.1:{port}")) for _ in range(repeat))
        finally:
            for p in procs[::-1]:
                p.terminate()
            for p in procs:
                p.wait()
    return best[1], best[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-dask", action="store_true")
    a = ap.parse_args()
    targets = Targets("sweep-cli")
    print(f"relmodel report -q --sweep n_gpus={SIZES}, the whole command timed from outside")
    one, two = local(a.repeat)
    print(f"local: 1 worker {one:.1f} s, 2 workers {two:.1f} s: {one / two:.2f}x")
    targets.add("relmodel report sweep, --jobs 2 / --jobs 1 speed-up", one / two, 1.7)
    if not a.no_dask and shutil.which(str(BIN / "dask")):
        one, two = on_dask(a.repeat)
        print(f"Dask cluster: 1 worker {one:.1f} s, 2 workers {two:.1f} s: {one / two:.2f}x")
        targets.add("relmodel report sweep on a Dask cluster, 2 workers / 1 worker speed-up", one / two, 1.7)
    sys.exit(targets.report())


if __name__ == "__main__":
    main()
