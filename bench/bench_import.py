"""Time of ``import relmodel`` beyond importing pandas and scipy (target: at most 0.3 s).

Each measurement is a fresh interpreter started from the repository root, so
this tree's relmodel is the one imported.  The baseline imports what relmodel
itself builds on (numpy, pandas, scipy.stats, scipy.optimize, scipy.special);
the extra time is ``import relmodel`` on top of it.  Also lists the heavy
libraries that must not load at ``import relmodel`` (they load when a plot,
a fit with lifelines, a report or a widget is first used).

Run: ``python bench/bench_import.py``
"""

import json
import statistics
import subprocess
import sys
from pathlib import Path

from timing import Targets

ROOT = Path(__file__).resolve().parents[1]
BASE = "import numpy, pandas, scipy.stats, scipy.optimize, scipy.special"
HEAVY = ["lifelines", "matplotlib", "nbformat", "nbconvert", "papermill", "ipywidgets", "click", "dask", "yaml",
         "ruamel", "tqdm", "pyarrow"]
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

__all__ = ["measure", "main"]


def measure(extra, repeat=7):
    """Median (baseline seconds, extra seconds) over ``repeat`` fresh interpreters, and the heavy modules loaded."""
    runs = []
    for _ in range(repeat):
        code = PROBE.format(base=BASE, extra=extra, heavy=HEAVY)
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    return (statistics.median(r["base"] for r in runs), statistics.median(r["extra"] for r in runs),
            runs[-1]["loaded"])


def main():
    base, extra, loaded = measure("import relmodel")
    _, full, loaded_all = measure("import relmodel, relmodel.plots.checkpoint, relmodel.cli, relmodel.report",
                                  repeat=3)
    print(f"numpy + pandas + scipy:               {base:.3f} s")
    print(f"import relmodel on top:               {extra:.3f} s  (target <= 0.300 s; "
          f"ratio to pandas + scipy {extra / base:.2f})")
    print(f"heavy libraries that import relmodel loads beyond pandas + scipy: {', '.join(loaded) or 'none'}")
    print(f"relmodel + plots + cli + report on top: {full:.3f} s  (loads {', '.join(loaded_all) or 'none'})")
    targets = Targets("import")
    targets.add("import relmodel beyond numpy + pandas + scipy", extra, 0.3, "s", higher=False)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
