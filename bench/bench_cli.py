"""CPU time of one-line CLI answers against ``python -c "import pandas"`` (target: at most 1x).

Anchor: a fresh interpreter that runs ``import pandas`` and nothing else, i.e.
what any command built on pandas pays before its first line of work.  Each
command is a fresh interpreter (``python -m relmodel ...``, this tree first on
the path); its cost is the user + system CPU time of the child process
(``resource.getrusage(RUSAGE_CHILDREN)`` before and after), best of five, so
the load of other processes on the machine counts less than with wall time.
Printed: each command's CPU time, the anchor's, and their ratio.
Targets: ``interval --mtbf`` (table and JSON), ``requirements --mtbf`` (the
requirement from today's job MTBF, closed forms) and both commands' ``--help``.
``requirements`` from the bundled llama3 rates (a bootstrap over 2,000 draws
and a component table) is timed beside, for information, with what it imports.

Run: ``python bench/bench_cli.py``; the exit status is 1 when a target is missed.
"""

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from timing import Targets

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
ANCHOR = [sys.executable, "-c", "import pandas"]
INTERVAL = [sys.executable, "-m", "relmodel", "interval", "--mtbf", "3h", "--ckpt-cost", "1min", "--restart", "10min"]
REQUIREMENTS = [sys.executable, "-m", "relmodel", "requirements", "--gpus", "100000", "--mtbf", "3h", "--ckpt-cost",
                "1min", "--restart", "10min"]
TARGETED = {"interval --mtbf (table)": INTERVAL, "interval --mtbf --format json": INTERVAL + ["--format", "json"],
            "interval --help": [sys.executable, "-m", "relmodel", "interval", "--help"],
            "requirements --mtbf (table)": REQUIREMENTS,
            "requirements --mtbf --format json": REQUIREMENTS + ["--format", "json"],
            "requirements --help": [sys.executable, "-m", "relmodel", "requirements", "--help"]}
INFO = {"requirements --gpus 100000 (llama3 rates)": [sys.executable, "-m", "relmodel", "requirements", "--gpus",
                                                      "100000", "--ckpt-cost", "1min", "--restart", "10min"]}
LOADED = ("import json, runpy, sys\nsys.argv = {argv!r}\ntry:\n    runpy.run_module('relmodel', run_name='__main__')\n"
          "except SystemExit:\n    pass\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & "
          "{{'pandas', 'scipy', 'pyarrow', 'lifelines', 'matplotlib'}})), file=sys.stderr)")


def cpu_seconds(cmd):
    """User + system CPU seconds of running ``cmd`` to completion (output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(cmd, repeat=5):
    return min(cpu_seconds(cmd) for _ in range(repeat))


def heavy_imports(cmd):
    """The heavy libraries in sys.modules after running the relmodel command ``cmd``."""
    code = LOADED.format(argv=["relmodel"] + cmd[3:])
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True)
    return json.loads(done.stderr.strip().splitlines()[-1])


def main():
    targets = Targets("cli")
    anchor = best(ANCHOR)
    print("anchor: python -c 'import pandas' in a fresh interpreter, CPU time (user + system), best of 5")
    print(f"  import pandas: {anchor:.3f} s")
    for name, cmd in {**TARGETED, **INFO}.items():
        t = best(cmd)
        loaded = ", ".join(heavy_imports(cmd)) or "none of pandas, scipy, pyarrow, lifelines, matplotlib"
        print(f"  relmodel {name}: {t:.3f} s, {t / anchor:.2f}x the anchor; imports {loaded}")
        if name in TARGETED:
            targets.add(f"{name} / import pandas", t / anchor, 1.0, higher=False)
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
