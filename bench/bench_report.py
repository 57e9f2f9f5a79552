"""Report rendering speed: relmodel report against plain Papermill, and a parallel sweep.

1. The default report (every notebook, bundled data) against the time Papermill
   needs for the same number of trivial notebooks, each then exported to HTML
   by nbconvert as the report exports its pages (``HTMLExporter(exclude_input=True)``),
   plus the computations themselves (each notebook's code run as a plain
   Python script, figures drawn off-screen). Target: at most 1.5x.
2. A four-value sweep over n_gpus on 2 workers against the same sweep on one
   worker, each on the pool ``relmodel report --jobs N`` creates, measured as
   bench_sweep.py measures it (its function and its numbers of runs): the
   fastest of 5 alternating runs, 3 with --quick (one run's ratio moved
   between 1.5x and 2.3x on a shared machine). Target: at least 1.7x faster.

The default report runs its notebooks in parallel (one worker per core); the
table also shows it on one worker. Every time is the fastest of --repeat runs.

3. Warm kernels (relmodel.report.kernels.pool): the default report and the report on
   one worker, each with kernel reuse off (RELMODEL_KERNEL_POOL=0, before) and
   on (after), against the same number of trivial notebooks through Papermill
   in sequence and on 2 processes. Target: report within 2x that floor.

Usage: python bench/bench_report.py [--quick] [--repeat N] [--pool]
       (--quick: one run each, and the sweep renders notebooks 03-05;
        --pool: only the warm-kernel table of part 3)
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import nbformat
import papermill
from nbconvert import HTMLExporter, PythonExporter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone without installing
from relmodel.report import find_notebooks, render
from relmodel.report.kernels.executors import worker_pool
from timing import Targets
from bench_sweep import TARGET as SWEEP_TARGET, fastest_sweeps, runs  # the same sweep, measured the same way

PRELUDE = "import matplotlib\nmatplotlib.use('Agg')\nfrom IPython.display import display\n"

ANCHORS = (
    "papermill floor: for each notebook of the suite, a trivial notebook (a parameters cell, one cell) run by "
    "papermill.execute_notebook and exported to HTML by nbconvert's HTMLExporter(exclude_input=True), one "
    "exporter per process; in sequence (1 worker) or split over 2 spawned processes (default workers)",
    "computations: each notebook's code as a plain Python script (nbconvert PythonExporter, magics dropped, "
    "matplotlib Agg), run one after another",
    "sweep: the same sweep on 1 worker, as bench_sweep.py measures it",
)


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def trivial_notebooks(folder, n):
    paths = []
    for i in range(n):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        cell = nbformat.v4.new_code_cell("x = 1  # a parameter")
        cell.metadata["tags"] = ["parameters"]
        nb.cells += [cell, nbformat.v4.new_code_cell("x + 1")]
        paths.append(folder / f"trivial{i}.ipynb")
        nbformat.write(nb, paths[-1])
    return paths


def papermill_trivial(paths, folder):
    """Each notebook through Papermill, then to HTML (code hidden) as the report writes its pages."""
    exporter = HTMLExporter(exclude_input=True)
    for p in paths:
        out = folder / f"out-{p.name}"
        papermill.execute_notebook(str(p), str(out), progress_bar=False)
        body, _ = exporter.from_filename(str(out))
        out.with_suffix(".html").write_text(body, encoding="utf-8")


def as_script(path, folder):
    """The notebook's code as a Python script: magics dropped, figures off-screen."""
    source, _ = PythonExporter().from_notebook_node(nbformat.read(path, as_version=4))
    lines = [l for l in source.splitlines() if "get_ipython()" not in l]
    script = folder / f"{path.stem}.py"
    script.write_text(PRELUDE + "\n".join(lines) + "\n")
    return script


def run_scripts(scripts, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for s in scripts:
        done = subprocess.run([sys.executable, str(s)], cwd=cwd, env=env, capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{s.name} failed:\n{done.stderr}")


def best(repeat, fn, *args):
    """Fastest of ``repeat`` runs, each in a fresh folder (the machine may be shared)."""
    times = []
    for i in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            times.append(timed(fn, Path(tmp), *args))
    return min(times)


def default_report(tmp, workers=None):
    if workers is None:
        render(out=tmp / "default")
        return
    with worker_pool(workers) as pool:  # as ``relmodel report --jobs N``
        render(out=tmp / "default", executor=pool)


def baseline_trivial(tmp, n):
    papermill_trivial(trivial_notebooks(tmp, n), tmp)


def baseline_scripts(tmp, suite):
    run_scripts([as_script(p, tmp) for p in suite], tmp)


def _trivial_half(paths, folder):
    papermill_trivial([Path(p) for p in paths], Path(folder))


def trivial_parallel(tmp, n, workers=2):
    """``n`` trivial notebooks through Papermill, split over ``workers`` spawned processes."""
    paths = [str(p) for p in trivial_notebooks(tmp, n)]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        list(pool.map(_trivial_half, [paths[i::workers] for i in range(workers)], [str(tmp)] * workers))


def with_pool(on, fn, *args):
    """Run ``fn`` with kernel reuse on or off (workers inherit the switch when they start)."""
    previous = os.environ.get("RELMODEL_KERNEL_POOL")
    os.environ["RELMODEL_KERNEL_POOL"] = "1" if on else "0"
    try:
        return fn(*args)
    finally:
        if previous is None:
            os.environ.pop("RELMODEL_KERNEL_POOL")
        else:
            os.environ["RELMODEL_KERNEL_POOL"] = previous


def pool_table(repeat, n, targets=None):
    """Report with kernel reuse off and on against the Papermill floor; prints a table."""
    floor_seq = best(repeat, baseline_trivial, n)
    floor_par = best(repeat, trivial_parallel, n)
    times = {}
    for _ in range(repeat):  # alternate off and on, so a busy spell hits both
        for on in (False, True):
            for workers in (None, 1):
                t = with_pool(on, best, 1, default_report, workers)
                times[on, workers] = min(times.get((on, workers), float("inf")), t)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"warm kernels (fastest of {repeat}; load average {load:.1f} on {os.cpu_count()} cores)")
    print(f"{f'papermill + HTML, {n} trivial notebooks in sequence':<58}{floor_seq:>9.2f}")
    print(f"{f'papermill + HTML, {n} trivial notebooks on 2 processes':<58}{floor_par:>9.2f}")
    print(f"{'':<30}{'reuse off':>12}{'reuse on':>12}{'off/floor':>11}{'on/floor':>10}")
    for workers, label, floor in ((None, "report, default workers", floor_par),
                                  (1, "report, 1 worker", floor_seq)):
        off, on = times[False, workers], times[True, workers]
        print(f"{label:<30}{off:>12.2f}{on:>12.2f}{off / floor:>10.2f}x{on / floor:>9.2f}x")
        if targets is not None:
            targets.add(f"{label}, warm kernels: time over the papermill floor", on / floor, 2.0, higher=False)
    print("(default workers against the 2-process floor, 1 worker against the sequential floor;"
          " target <= 2x)")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, sweep notebooks 03-05 only")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement; the fastest counts")
    parser.add_argument("--pool", action="store_true", help="only the warm-kernel table (reuse off and on)")
    args = parser.parse_args()
    repeat = 1 if args.quick else args.repeat
    print("anchors:")
    for text in ANCHORS:
        print(f"  {text}")
    notebooks = ["03", "04", "05"] if args.quick else None  # with 4 notebooks the first of each worker dominates
    suite = find_notebooks()
    if args.pool:
        pool_table(repeat, len(suite))
        return
    t_report = best(repeat, default_report)
    t_report1 = best(repeat, default_report, 1)
    t_trivial = best(repeat, baseline_trivial, len(suite))
    t_compute = best(repeat, baseline_scripts, suite)
    sweeps, own = fastest_sweeps(runs(args.quick), notebooks)  # as bench_sweep
    t_par, t_seq = sweeps[2], sweeps[1]
    base = t_trivial + t_compute
    print(f"{'what (fastest of %d)' % repeat:<58}{'seconds':>9}")
    print(f"{f'relmodel report, default ({len(suite)} notebooks)':<58}{t_report:>9.2f}")
    print(f"{'relmodel report, default, 1 worker':<58}{t_report1:>9.2f}")
    print(f"{f'papermill + nbconvert HTML, {len(suite)} trivial notebooks':<58}{t_trivial:>9.2f}")
    print(f"{'the computations as plain scripts':<58}{t_compute:>9.2f}")
    print(f"{'sweep n_gpus x4, 2 workers':<58}{t_par:>9.2f}")
    print(f"{'sweep n_gpus x4, 1 worker (sequential)':<58}{t_seq:>9.2f}")
    print()
    print(f"report / (papermill trivial + computations) = {t_report / base:.2f}x  (target <= 1.5x)")
    print(f"  the same on 1 worker                       = {t_report1 / base:.2f}x")
    print(f"sweep speed-up, 2 workers vs sequential     = {t_seq / t_par:.2f}x  (target >= 1.7x)")
    print(f"  the sweep's notebooks' own seconds: {own[1]:.2f} on 1 worker, {own[2]:.2f} on 2 "
          f"({own[2] / own[1]:.2f}x; above 1, each took longer beside another)")
    print()
    targets = Targets("report")
    targets.add("report over papermill trivial + the computations", t_report / base, 1.5, higher=False)
    targets.add("sweep on 2 workers against 1", t_seq / t_par, SWEEP_TARGET)
    pool_table(repeat, len(suite), targets)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
