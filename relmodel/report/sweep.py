"""Parameter sweeps: one report per combination and a comparison page.

``render(sweep={"n_gpus": [16384, 65536], "ckpt_cost": ["30s", "2min"]})``
renders the notebooks that take a swept parameter once per combination of
values (the cross product), into ``<out>/n_gpus-16384_ckpt_cost-30s/`` and so
on, running every (combination, notebook) pair in parallel on the executor,
then writes ``<out>/index.html``: a table of the headline numbers of every
combination and small multiples (one panel per headline number against the
first swept parameter, one line per combination of the others), and
``<out>/summary.json``. The headline numbers are read from each report's
summary.json, whatever they are. Values equal after normalisation (``1 min``
and ``1  min``, ``4096`` and ``4096.0``) are refused before anything runs.
"""

import io
import itertools
import json
import re
from pathlib import Path

from ..errors import ParameterError, ReportIncomplete
from .folders import Staging, check_target, write_bytes, write_text, marker
from .limits import check_sweep_size
from .params import load_params, parse_value
from .rules import DURATIONS, normalise
from .failures import status_text
from .sweep_page import parameter_label
from .run import (HEADLINE, Report, execute, find_notebooks, finish, fmt, make_tasks, merged_records, new_run_id,
                  page, plan, run_tasks, store, table)

__all__ = ["parse_sweep", "render_sweep", "comparison_figure", "combinations"]


def parse_sweep(text):
    """Parse ``NAME=V1,V2,...`` into ``{name: [v1, v2, ...]}`` (values read as YAML 1.2)."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier() or not values.strip():
        raise ParameterError(f"expected --sweep NAME=V1,V2,..., got {text!r}")
    return {name: [parse_value(v, f"--sweep {name} value {v.strip()!r}") for v in values.split(",")]}


def combinations(sweep):
    """Check a sweep and return ``(names, [combination dict, ...])`` in cross-product order."""
    if isinstance(sweep, str):
        sweep = parse_sweep(sweep)
    if not isinstance(sweep, dict) or not sweep:
        raise ParameterError("a sweep maps parameter names to lists of values, "
                             "e.g. {'n_gpus': [4096, 16384]}")
    grid = {}
    for name, values in sweep.items():
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        keys = [normalise(name, v) for v in values]
        if not values or len(set(map(repr, keys))) != len(keys):
            raise ParameterError(f"sweep {name!r} needs distinct values, got {values!r}"
                                 + (" (equal as durations)" if name in DURATIONS else ""))
        grid[name] = values
    names = list(grid)
    return names, [dict(zip(names, combo)) for combo in itertools.product(*grid.values())]


def _folders(combos):
    used, out = set(), []
    for combo in combos:
        base = "_".join(f"{n}-" + re.sub(r"[^A-Za-z0-9.-]+", "", str(v).replace(" ", ""))
                        for n, v in combo.items())
        name, k = base, 1
        while name.lower() in used:
            k += 1
            name = f"{base}-{k}"
        used.add(name.lower())
        out.append(name)
    return out


def _x(name, value):
    key = normalise(name, value)
    return key[1] if key[0] in ("h", "n") else str(value)


#: Axis label and scale of each headline number in the comparison figure.
_AXIS = {"job_mtbf_h": ("hours", 1.0), "optimal_interval_h": ("minutes", 60.0), "ettr": ("ETTR (%)", 100.0),
         "required_node_mtbf_h": ("hours", 1.0), "design_ettr": ("ETTR (%)", 100.0),
         "design_goodput_per_gpu": ("goodput per GPU bought", 1.0)}


def comparison_figure(names, rows):
    """A matplotlib Figure: one panel per headline number against the first swept parameter."""
    from matplotlib.figure import Figure

    names = [names] if isinstance(names, str) else list(names)
    # a panel per number (None: out of reach, said on the panel); text values get none
    keys = [k for k in _keys(rows)
            if any(k in r["headline"] and isinstance(r["headline"][k], (int, float, type(None))) for r in rows)]
    ncols = min(3, max(len(keys), 1))
    nrows = -(-max(len(keys), 1) // ncols)
    fig = Figure(figsize=(4.6 * ncols, 3.3 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    first, others = names[0], names[1:]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(str(r["values"][n]) for n in others), []).append(r)
    for ax, key in zip(axes, keys):
        ylabel, scale = _AXIS.get(key, (HEADLINE.get(key, key.replace("_", " ")), 1.0))
        ax.set_title(HEADLINE.get(key, key.replace("_", " ")), fontsize=10)
        if not any(isinstance(r["headline"].get(key), (int, float)) for r in rows):
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(0.5, 0.5, "out of reach at every value\n(per-job causes cap ETTR)", ha="center",
                    va="center", transform=ax.transAxes, fontsize=10)
            continue
        for label, members in groups.items():
            pts = [(_x(first, r["values"][first]), scale * r["headline"][key]) for r in members
                   if isinstance(r["headline"].get(key), (int, float))]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                        label=", ".join(f"{parameter_label(n)}: {v}" for n, v in zip(others, label)) or None)
        gone = [", ".join(f"{n}={r['values'][n]}" for n in names) for r in rows
                if key in r["headline"] and r["headline"][key] is None]
        if gone:
            ax.text(0.02, 0.96, "out of reach at " + "; ".join(gone), transform=ax.transAxes, fontsize=8,
                    va="top", wrap=True, bbox={"facecolor": "#fdf6e3", "edgecolor": "#c98a00"})
        ys = [r["headline"][key] for r in rows if isinstance(r["headline"].get(key), (int, float))]
        if ys and min(ys) > 0 and max(ys) / min(ys) > 20:
            ax.set_yscale("log")
        xs = [_x(first, r["values"][first]) for r in rows]
        if all(isinstance(x, (int, float)) for x in xs) and min(xs) > 0 and max(xs) / min(xs) > 20:
            ax.set_xscale("log")
        _plain_ticks(ax)
        ax.set_xlabel(parameter_label(first) + (" (hours)" if first in DURATIONS else ""))
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        if others and key == keys[0] and groups and any(ax.get_lines()):
            ax.legend(fontsize=8)
    return fig


def _plain(v, _pos=None):
    if v >= 1:
        return f"{v:,.0f}"
    return f"{v:.2g}"


def _plain_ticks(ax):
    """Log axes labelled 1,000 and 0.5, never 10^3; at most a few labels, so none overlap."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=6))
            axis.set_major_formatter(FuncFormatter(_plain))
            axis.set_minor_formatter(NullFormatter())
    for label in ax.get_xticklabels():
        label.set_rotation(30)
        label.set_horizontalalignment("right")


def _keys(rows):
    keys = []
    for r in rows:
        keys += [k for k in r["headline"] if k not in keys]
    return keys


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _comparison_page(names, rows, folder, params=None):
    from .sweep_page import sweep_page

    write_bytes(folder / "comparison.png", _png(comparison_figure(names, rows)))
    return sweep_page(names, rows, params)


def _paths(names, notebooks, params):
    from .params import describe, notebook_parameters

    for name in names:
        if name in params:
            raise ParameterError(f"{name!r} is both fixed by -p/--params and swept; give it once")
    paths = find_notebooks(notebooks)
    taking = [p for p in paths if set(names) & set(notebook_parameters(p))]
    for name in names:
        if not any(name in notebook_parameters(p) for p in paths):
            raise ParameterError(f"no notebook takes {name!r}; they take:\n" + "\n".join(
                f"{p.stem}:\n{describe(notebook_parameters(p))}" for p in paths))
    return taking if notebooks is None else paths


def render_sweep(sweep, notebooks=None, params=None, out=None, force=False, executor=None,
                 progress=None):
    """Render one report per combination of swept values plus a comparison page; return a Report.

    Without ``notebooks``, only the notebooks that take a swept parameter run.
    Every combination is checked before any kernel starts or any folder is touched.
    """
    names, combos = combinations(sweep)
    check_sweep_size(len(combos))
    params = load_params(params)
    paths = _paths(names, notebooks, params)
    plans = [plan(paths, {**params, **combo}) for combo in combos]  # raises before any kernel
    out = check_target(out, force)
    folders, run_id = _folders(combos), new_run_id()
    tasks, where = [], []
    for k, combo_plans in enumerate(plans):
        tasks += make_tasks(combo_plans, run_id)
        where += [k] * len(combo_plans)
    staging = Staging(out, replace=Path(out).exists())
    try:
        with staging:
            for folder in folders:
                (staging.path / folder).mkdir()
            results = run_tasks(tasks, execute, executor, progress, desc="sweep " + ", ".join(names),
                                on_result=lambda i, r: store(r, staging.path / folders[where[i]]),
                                run_id=run_id)
            report, errors = _finish_sweep(names, combos, folders, params, out, staging, results, where)
            staging.commit()
    except KeyboardInterrupt:
        raise staging.interrupted() from None
    if errors:
        raise ReportIncomplete("the sweep is partial: " + "; ".join(errors), report=report,
                               failed=[r["name"] for r in results if r["error"]])
    return report


def _finish_sweep(names, combos, folders, params, out, staging, results, where):
    rows, runs, errors = [], [], []
    for k, combo in enumerate(combos):
        chunk = [r for r, w in zip(results, where) if w == k]
        values = {**params, **combo}
        try:
            runs.append(finish(out / folders[k], chunk, values, folder=staging.path / folders[k]))
            error, stopped = None, "complete"
        except ReportIncomplete as exc:
            runs.append(exc.report)
            error = str(exc)
            stopped = "; ".join(f"{r['name']} {status_text(r)}" for r in chunk if r["error"])
            errors.append(", ".join(f"{n}={v}" for n, v in combo.items()) + f": {exc}")
        summary = json.loads((staging.path / folders[k] / "summary.json").read_text(encoding="utf-8"))
        merged = merged_records(summary.get("records", {}))
        merged.pop("reasons", None)
        rows.append({"values": combo, "value": combo[names[0]], "folder": folders[k],
                     "headline": summary.get("headline", {}), "reasons": summary.get("reasons", {}),
                     "records": merged, "error": error, "status": stopped})
    runs_json = [{k: r[k] for k in ("values", "value", "folder", "headline", "reasons", "error")} for r in rows]
    summary = {"sweep": names, "parameters": params, "runs": runs_json,
               "status": "partial" if errors else "complete", "relmodel": marker("complete")}
    write_text(staging.path / "index.html", _comparison_page(names, rows, staging.path, params))
    write_text(staging.path / "summary.json", json.dumps(summary, indent=2, default=str, allow_nan=False))
    per = [r["name"] for r, w in zip(results, where) if w == 0]
    return Report(out, tuple(per), params, {}, {"sweep": rows}, tuple(runs)), errors
