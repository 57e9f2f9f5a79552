"""Report rendering speed: relmodel report against plain Papermill, and a parallel sweep.

1. The default report (every notebook, bundled data) against the time Papermill
   needs for the same number of trivial notebooks plus the computations
   themselves (each notebook's code run as a plain Python script, figures
   drawn off-screen). Target: at most 1.5x.
2. A four-value sweep over n_gpus on 2 workers against the same sweep on one
   worker. Target: at least 1.6x faster.

Usage: python bench/bench_report.py [--quick]   (--quick sweeps one notebook)
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
from nbconvert import PythonExporter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone without installing
from relmodel.report import find_notebooks, render

SWEEP = {"n_gpus": [4096, 16384, 65536, 131072]}
PRELUDE = "import matplotlib\nmatplotlib.use('Agg')\nfrom IPython.display import display\n"


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
    for p in paths:
        papermill.execute_notebook(str(p), str(folder / f"out-{p.name}"), progress_bar=False)


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


def sweep(out, workers, notebooks):
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        render(notebooks=notebooks, sweep=SWEEP, out=out, executor=pool)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sweep only the checkpoint notebook")
    args = parser.parse_args()
    suite = find_notebooks()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t_report = timed(render, out=tmp / "default")
        t_trivial = timed(papermill_trivial, trivial_notebooks(tmp, len(suite)), tmp)
        scripts = [as_script(p, tmp) for p in suite]
        t_compute = timed(run_scripts, scripts, tmp)
        notebooks = ["03"] if args.quick else None
        t_par = timed(sweep, tmp / "sweep2", 2, notebooks)
        t_seq = timed(sweep, tmp / "sweep1", 1, notebooks)
    base = t_trivial + t_compute
    print(f"{'what':<58}{'seconds':>9}")
    print(f"{f'relmodel report, default ({len(suite)} notebooks)':<58}{t_report:>9.2f}")
    print(f"{f'papermill, {len(suite)} trivial notebooks':<58}{t_trivial:>9.2f}")
    print(f"{'the computations as plain scripts':<58}{t_compute:>9.2f}")
    print(f"{'sweep n_gpus x4, 2 workers':<58}{t_par:>9.2f}")
    print(f"{'sweep n_gpus x4, 1 worker (sequential)':<58}{t_seq:>9.2f}")
    print()
    print(f"report / (papermill trivial + computations) = {t_report / base:.2f}x  (target <= 1.5x)")
    print(f"sweep speed-up, 2 workers vs sequential     = {t_seq / t_par:.2f}x  (target >= 1.6x)")


if __name__ == "__main__":
    main()
