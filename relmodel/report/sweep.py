"""Parameter sweeps: one report per value and a comparison page.

``render(sweep={"n_gpus": [4096, 16384, 65536, 131072]})`` renders the
notebooks that take ``n_gpus`` once per value, into ``<out>/n_gpus-4096/`` and
so on, running every (value, notebook) pair in parallel on the executor, then
writes ``<out>/index.html`` with a table and a plot of the headline numbers
across the values, and ``<out>/summary.json``.
"""

import html
import io
import json
import re

from ..errors import ParameterError, ReportError
from .params import load_params, parse_value
from .run import (HEADLINE, Report, _clear, _prepare_out, find_notebooks, finish, fmt,
                     merged_records, page, plan, run_tasks, table)

__all__ = ["parse_sweep", "render_sweep", "comparison_figure"]


def parse_sweep(text):
    """Parse ``NAME=V1,V2,...`` into ``{name: [v1, v2, ...]}`` (values as YAML scalars)."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier() or not values.strip():
        raise ParameterError(f"expected --sweep NAME=V1,V2,..., got {text!r}")
    return {name: [parse_value(v) for v in values.split(",")]}


def _one(sweep):
    if isinstance(sweep, str):
        sweep = parse_sweep(sweep)
    if not isinstance(sweep, dict) or len(sweep) != 1:
        raise ParameterError("a sweep takes exactly one parameter, e.g. {'n_gpus': [4096, 16384]}")
    (name, values), = sweep.items()
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    if not values or len(set(map(repr, values))) != len(values):
        raise ParameterError(f"sweep {name!r} needs distinct values, got {values!r}")
    return name, values


def _folder(name, value):
    return f"{name}-" + re.sub(r"[^A-Za-z0-9._-]+", "_", str(value))


#: Axis label and scale of each headline number in the comparison figure.
_AXIS = {"job_mtbf_h": ("hours", 1.0), "optimal_interval_h": ("minutes", 60.0), "ettr": ("ETTR (%)", 100.0),
         "required_node_mtbf_h": ("hours", 1.0)}


def comparison_figure(name, rows):
    """A matplotlib Figure of each headline number against the swept value."""
    from matplotlib.figure import Figure

    keys = [k for k in HEADLINE if any(k in r["headline"] for r in rows)]
    ncols = min(2, max(len(keys), 1))
    nrows = -(-max(len(keys), 1) // ncols)
    fig = Figure(figsize=(5.2 * ncols, 3.4 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(keys):]:
        ax.set_visible(False)
    numeric = all(isinstance(r["value"], (int, float)) for r in rows)
    for ax, key in zip(axes, keys):
        label, scale = _AXIS.get(key, (HEADLINE[key], 1.0))
        pts = [(r["value"], r["headline"][key]) for r in rows
               if isinstance(r["headline"].get(key), (int, float)) and r["headline"].get(key) is not None]
        gone = [str(r["value"]) for r in rows if key in r["headline"] and r["headline"][key] is None]
        ax.set_title(HEADLINE[key], fontsize=10)
        if not pts:  # nothing to draw: say so instead of an empty frame
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(0.5, 0.5, f"out of reach at every {name}\n(per-job causes cap ETTR)", ha="center",
                    va="center", transform=ax.transAxes, fontsize=10)
            continue
        ax.set_xlabel(name)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        if gone:
            ax.text(0.02, 0.96, f"out of reach at {name} = {', '.join(gone)}", transform=ax.transAxes,
                    fontsize=8, va="top", bbox={"facecolor": "#fdf6e3", "edgecolor": "#c98a00"})
        xs = [p[0] if numeric else str(p[0]) for p in pts]
        ys = [scale * p[1] for p in pts]
        ax.plot(xs, ys, "o-")
        if min(ys) > 0 and max(ys) / min(ys) > 20:
            ax.set_yscale("log")
        if numeric and min(xs) > 0 and max(xs) / min(xs) > 20:
            ax.set_xscale("log")
    return fig


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _comparison_page(name, rows, out, params=None):
    from .summary import answer_sentences

    keys = [k for k in HEADLINE if any(k in r["headline"] for r in rows)]
    body = []
    for r in rows:
        link = f"<a href='{html.escape(r['folder'])}/index.html'>{fmt(r['value'])}</a>"
        reasons = r.get("reasons") or {}
        cells = [fmt(r["headline"][k], k, "out of reach" if k in reasons else None)
                 if k in r["headline"] else "—" for k in keys]
        body.append([link] + cells + [html.escape(r["error"] or "ok")])
    png = _png(comparison_figure(name, rows))
    (out / "comparison.png").write_bytes(png)
    img = "<p><img src='comparison.png' alt='headline numbers against the swept value'></p>"
    fixed = ", ".join(f"{html.escape(k)} = {html.escape(str(v))}" for k, v in (params or {}).items())
    intro = (f"<p>One report per value of <b>{html.escape(name)}</b>; fixed inputs: "
             f"{fixed or 'the defaults (assumptions)'}.</p>")
    answers = "".join(
        f"<h3>{html.escape(name)} = {fmt(r['value'])}</h3>"
        + "".join(f"<p>{html.escape(s)}</p>" for s in answer_sentences(r.get("records") or {},
                                                                      parts=("interval", "ettr", "requirement")))
        for r in rows)
    return page(f"relmodel sweep over {name}",
                intro + table([name] + [HEADLINE[k] for k in keys] + ["status"], body) + img
                + "<h2>Answers</h2>" + answers)


def render_sweep(sweep, notebooks=None, params=None, out=None, force=False, executor=None,
                 progress=None):
    """Render one report per swept value plus a comparison page; return a Report.

    Without ``notebooks``, only the notebooks that take the swept parameter run.
    Every value is checked before any kernel starts.
    """
    name, values = _one(sweep)
    params = load_params(params)
    if name in params:
        raise ParameterError(f"{name!r} is both fixed by -p/--params and swept; give it once")
    paths = find_notebooks(notebooks)
    if notebooks is None:
        from .params import describe, notebook_parameters
        taking = [p for p in paths if name in notebook_parameters(p)]
        if not taking:
            raise ParameterError(f"no notebook takes {name!r}; they take:\n" + "\n".join(
                f"{p.stem}:\n{describe(notebook_parameters(p))}" for p in paths))
        paths = taking
    plans = [plan(paths, {**params, name: v}) for v in values]  # raises before any kernel
    out = _prepare_out(out, force)
    _clear(out)
    tasks = []
    for value, tasks_v in zip(values, plans):
        (out / _folder(name, value)).mkdir()
        tasks += [(p, out / _folder(name, value), nb_params) for p, nb_params in tasks_v]
    results = run_tasks(tasks, executor, progress, desc=f"sweep {name}")
    return _finish_sweep(name, values, params, out, results, len(paths))


def _finish_sweep(name, values, params, out, results, per_value):
    rows, runs, errors = [], [], []
    for i, value in enumerate(values):
        folder = out / _folder(name, value)
        chunk = results[i * per_value:(i + 1) * per_value]
        try:
            run = finish(folder, chunk, {**params, name: value})
            runs.append(run)
            error = None
        except ReportError as exc:
            error = str(exc)
            errors.append(f"{name}={value}: {exc}")
        saved = json.loads((folder / "summary.json").read_text())
        merged = merged_records(saved["records"])
        merged.pop("reasons", None)
        rows.append({"value": value, "folder": folder.name, "headline": saved["headline"],
                     "reasons": saved.get("reasons", {}), "records": merged, "error": error})
    summary = {"sweep": name, "parameters": params,
               "runs": [{k: r[k] for k in ("value", "folder", "headline", "reasons", "error")} for r in rows]}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str, allow_nan=False),
                                      encoding="utf-8")
    (out / "index.html").write_text(_comparison_page(name, rows, out, params), encoding="utf-8")
    if errors:
        raise ReportError("; ".join(errors))
    names = tuple(r["name"] for r in results[:per_value])
    return Report(out, names, params, {}, {"sweep": rows}, tuple(runs))
