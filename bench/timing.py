"""Timing helpers shared by the benchmark scripts (run them as ``python bench/NAME.py``)."""

import json
import os
import time

__all__ = ["best_of", "once", "Targets", "RESULTS_ENV"]

#: When set, :meth:`Targets.report` also appends its rows as JSON lines to this file (``run_all.py`` reads them).
RESULTS_ENV = "RELMODEL_BENCH_RESULTS"


def best_of(fn, repeat=3, clock=time.perf_counter):
    """Fastest of ``repeat`` calls of ``fn()`` on ``clock`` (wall time; ``time.process_time`` for CPU time):
    ``(seconds, last result)``."""
    times, out = [], None
    for _ in range(repeat):
        t0 = clock()
        out = fn()
        times.append(clock() - t0)
    return min(times), out


def once(fn):
    """One timed call of ``fn()``: ``(seconds, result)``."""
    return best_of(fn, 1)


class Targets:
    """Measured ratios (or rates) beside their targets: one table at the end, and the exit status.

    ``add(what, value, target)`` records a number that must reach ``target``
    (``higher=False``: stay at or below it); ``report()`` prints the table and
    returns 0 when every target is met, 1 otherwise (pass it to ``sys.exit``).
    """

    def __init__(self, bench):
        self.bench, self.rows = bench, []

    def add(self, what, value, target, unit="x", higher=True):
        met = value >= target if higher else value <= target
        self.rows.append({"bench": self.bench, "what": what, "value": float(value), "target": float(target),
                          "unit": unit, "higher": higher, "met": bool(met)})

    def report(self):
        print()
        print(table(self.rows))
        path = os.environ.get(RESULTS_ENV)
        if path:
            with open(path, "a", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in self.rows)
        return 0 if all(r["met"] for r in self.rows) else 1


def _number(x, unit):
    text = f"{x:,.3g}" if abs(x) >= 1e4 or abs(x) < 0.01 else f"{x:,.2f}"
    return f"{text}{unit}" if unit == "x" else f"{text} {unit}"


def table(rows):
    """The rows of one or more :class:`Targets` as a plain-text table, its columns as wide as their content."""
    cells = [(r["bench"], r["what"], _number(r["value"], r["unit"]),
              ("at least " if r["higher"] else "at most ") + _number(r["target"], r["unit"]),
              "ok" if r["met"] else "MISSED") for r in rows]
    names = ("bench", "measure", "value", "target", "status")
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]

    def line(c):
        return (f"{c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:>{widths[3]}}  "
                f"{c[4]}").rstrip()

    head = line(names)
    return "\n".join([head, "-" * len(head)] + [line(c) for c in cells])
