"""Time of ``import relmodel`` beyond importing numpy, pandas and scipy (target: at most 0.3 s), and CLI start-up.

Each measurement is a fresh interpreter started from the repository root with
this tree first on the path, so this tree's relmodel is the one imported; the
figure printed is the median of five.  The baseline imports what relmodel
itself builds on (numpy, pandas, scipy.stats, scipy.optimize, scipy.special)
and is printed beside it; the extra time is ``import relmodel`` on top of it.
The face of the package loads on first use, so the bench also times the first
use of each layer (on top of the same baseline) and lists the heavy libraries
that ``import relmodel`` must not load.  The command's start-up (``relmodel
--help``, ``relmodel report --help``) is timed against ``python -c pass`` and
an interpreter that only imports click (target: ``relmodel --help`` at most
0.3 s beyond click).

Run: ``python bench/bench_import.py``; the exit status is 1 when a target is missed.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from timing import Targets

ROOT = Path(__file__).resolve().parents[1]
BASE = "import numpy, pandas, scipy.stats, scipy.optimize, scipy.special"
HEAVY = ["numpy", "pandas", "scipy", "lifelines", "matplotlib", "nbformat", "nbconvert", "papermill", "ipywidgets",
         "click", "dask", "yaml", "ruamel", "tqdm", "pyarrow"]
PROBE = """
import json, sys, time
t0 = time.perf_counter()
{base}
t1 = time.perf_counter()
before = {{m.split(".")[0] for m in sys.modules}}
{extra}
t2 = time.perf_counter()
print(json.dumps({{"base": t1 - t0, "extra": t2 - t1,
                   "loaded": sorted(({{m.split(".")[0] for m in sys.modules}} - before) & set({heavy!r}))}}))
"""
#: First use of each layer through the face, on top of the baseline.
FIRST_USE = [("relmodel.read_log", "data"), ("relmodel.fit", "statistics"),
             ("relmodel.optimal_interval", "checkpoint"), ("relmodel.Cluster", "scale"),
             ("relmodel.stragglers.slowdown", "stragglers"), ("relmodel.plots.survival_plot", "plots"),
             ("relmodel.report.render", "report")]
REPEAT = 5

__all__ = ["measure", "command_time", "main"]


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def measure(extra, base=BASE, repeat=REPEAT):
    """Median (baseline seconds, extra seconds) over ``repeat`` fresh interpreters, and the heavy modules loaded."""
    runs = []
    for _ in range(repeat):
        code = PROBE.format(base=base, extra=extra, heavy=HEAVY)
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True,
                             check=True)
        runs.append(json.loads(out.stdout))
    return (statistics.median(r["base"] for r in runs), statistics.median(r["extra"] for r in runs),
            runs[-1]["loaded"])


def command_time(args, repeat=REPEAT):
    """Median wall time in seconds of ``python args...`` in a fresh process (output discarded)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _imports(targets):
    base, extra, loaded = measure("import relmodel")
    print(f"numpy + pandas + scipy alone:           {base:.3f} s")
    print(f"import relmodel on top:                 {extra:.3f} s  (target <= 0.300 s; "
          f"ratio to numpy + pandas + scipy {extra / base:.3f})")
    print(f"heavy libraries import relmodel loads:  {', '.join(loaded) or 'none'}")
    _, alone, loaded_alone = measure("import relmodel", base="pass")
    print(f"import relmodel in a bare interpreter:  {alone:.3f} s  (loads {', '.join(loaded_alone) or 'none'})")
    print("\nfirst use of each layer, on top of numpy + pandas + scipy:")
    for expr, layer in FIRST_USE:
        _, t, more = measure(f"import relmodel\n{expr}", repeat=3)
        print(f"  {layer:<12} {expr:<32} {t:.3f} s  (loads {', '.join(more) or 'nothing heavy'})")
    targets.add("import relmodel beyond numpy + pandas + scipy", extra, 0.3, "s", higher=False)


def _command(targets):
    bare = command_time(["-c", "pass"])
    click_only = command_time(["-c", "import click"])
    main = "from relmodel.cli import main; main()"
    top = command_time(["-c", main, "--help"])
    report = command_time(["-c", main, "report", "--help"])
    print(f"\npython -c pass: {bare:.3f} s; python -c 'import click': {click_only:.3f} s")
    print(f"relmodel --help:        {top:.3f} s  ({top - bare:.3f} s beyond the bare interpreter, "
          f"{top - click_only:.3f} s beyond click)")
    print(f"relmodel report --help: {report:.3f} s  ({report - bare:.3f} s beyond the bare interpreter)")
    targets.add("relmodel --help beyond python -c 'import click'", top - click_only, 0.3, "s", higher=False)


def main():
    targets = Targets("import")
    _imports(targets)
    _command(targets)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
