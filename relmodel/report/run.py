"""One-command HTML reports: run the notebook suite through Papermill.

:func:`render` checks every parameter against the notebooks' ``parameters``
cells before any kernel starts, executes each notebook with Papermill on a
kernel of the current interpreter, renders it to HTML with the code hidden
(nbconvert's ``exclude_input``), and writes ``reports/<run>/`` with one
``.ipynb`` and one ``.html`` per notebook, an ``index.html`` and a
``summary.json`` of the headline numbers the notebooks :func:`record`.
"""

import copy
import datetime as _dt
import html
import json
import numbers
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from ..errors import ReportError
from .params import notebook_parameters, validate
from .html import HEADLINE, fmt, index_page, page, table  # noqa: F401 (re-exported)
from .summary import clean

__all__ = [
    "NOTEBOOK_DIR",
    "HEADLINE",
    "MIMETYPE",
    "Report",
    "record",
    "recorded",
    "find_notebooks",
    "plan",
    "execute_one",
    "run_tasks",
    "finish",
    "merged_records",
]

#: The notebook suite shipped with the project.
NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"

#: Output mimetype that carries a recorded number inside an executed notebook.
MIMETYPE = "application/vnd.relmodel.record+json"

#: A cell still running after this many seconds fails (a hung kernel cannot stall a report).
CELL_TIMEOUT_S = 600

_RECORDED = {}


def record(name, value, reason=None):
    """Record a headline number from inside a notebook.

    In a kernel the value is attached to the cell's outputs (invisible in the
    HTML) and :func:`render` reads it back into ``summary.json``; outside a kernel
    it is kept in memory (see :func:`recorded`). ``value`` must be JSON-able;
    None, NaN and infinity are stored as None with ``reason`` (default "out
    of reach" for infinity) in the summary's ``reasons``.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = float(value)
    elif hasattr(value, "item"):  # a numpy scalar or 0-d array
        value = value.item()
    reasons = {}
    value = clean(value, reasons, name)
    if reason is not None and (value is None or reasons):
        reasons = {k: reason for k in reasons} or {name: reason}
    json.dumps(value)
    _RECORDED[name] = value
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    if get_ipython() is not None:
        from IPython.display import display
        display({MIMETYPE: {"name": name, "value": value, "reasons": reasons}}, raw=True)


def recorded():
    """Numbers recorded in this process outside a kernel, as a dict."""
    return dict(_RECORDED)


@dataclass(frozen=True)
class Report:
    """A rendered report folder."""

    path: Path
    notebooks: tuple
    parameters: dict
    headline: dict
    records: dict = field(default_factory=dict)
    runs: tuple = ()

    @property
    def index(self):
        """The report's index.html."""
        return self.path / "index.html"

    def _repr_html_(self):
        rows = "".join(f"<tr><td>{html.escape(HEADLINE.get(k, k))}</td><td>{fmt(v, k)}</td></tr>"
                       for k, v in self.headline.items())
        return f"<p>Report <code>{html.escape(str(self.index))}</code></p><table>{rows}</table>"


def find_notebooks(notebooks=None):
    """Resolve notebook names or paths; None means the whole suite.

    A name may be a path, a file stem (``03_checkpoint_interval``) or its number
    prefix (``03``). Raises ReportError for a name that matches nothing.
    """
    suite = sorted(NOTEBOOK_DIR.glob("[0-9]*.ipynb"))
    if notebooks is None:
        return suite
    if isinstance(notebooks, (str, Path)):
        notebooks = [notebooks]
    found = []
    for item in notebooks:
        path = Path(item)
        if path.suffix == ".ipynb" and path.exists():
            found.append(path.resolve())
            continue
        match = [p for p in suite if p.stem == str(item) or p.stem.split("_")[0] == str(item)]
        if len(match) != 1:
            names = ", ".join(p.stem for p in suite)
            raise ReportError(f"no notebook {item!r}; choose from: {names}, or give a .ipynb path")
        found.append(match[0])
    return found


def _records(nb):
    found, reasons = {}, {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if MIMETYPE in data:
                item = data[MIMETYPE]
                found[item["name"]] = item["value"]
                reasons.update(item.get("reasons") or {})
    if reasons:
        found["reasons"] = reasons
    return found


_EXPORTER = None


def _to_html(nb, path):
    global _EXPORTER
    if _EXPORTER is None:
        from nbconvert import HTMLExporter
        _EXPORTER = HTMLExporter(exclude_input=True, exclude_input_prompt=True,
                                 exclude_output_prompt=True)
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = [o for o in cell.outputs if MIMETYPE not in o.get("data", {})]
    body, _ = _EXPORTER.from_notebook_node(nb)
    path.write_text(body, encoding="utf-8")


def _failure(name, exc, ipynb):
    source = (exc.source or "").strip().splitlines()
    first = source[0] if source else ""
    return (f"{name}: cell {exc.cell_index + 1} of the executed notebook "
            f"(In [{exc.exec_count}]: {first!r}) failed with "
            f"{exc.ename}: {exc.evalue}; the partly executed notebook is kept at {ipynb}")


def execute_one(notebook, out_dir, parameters):
    """Execute one notebook into ``out_dir`` and render its HTML.

    Returns a dict with name, ipynb, html, records, seconds and error (None or
    a message naming the notebook and the failing cell). Runs in a worker.
    """
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from .kernel import KernelManager

    notebook, out_dir = Path(notebook).resolve(), Path(out_dir).resolve()
    name = notebook.stem
    ipynb, page = out_dir / f"{name}.ipynb", out_dir / f"{name}.html"
    start, error = time.perf_counter(), None
    try:
        papermill.execute_notebook(
            str(notebook), str(ipynb), parameters=parameters, kernel_name="python3",
            language="python", progress_bar=False, start_timeout=180,
            execution_timeout=CELL_TIMEOUT_S, kernel_manager_class=KernelManager,
            resources={"metadata": {"path": str(out_dir)}})  # kernel cwd, without os.chdir
    except PapermillExecutionError as exc:
        error = _failure(name, exc, ipynb)
    except Exception as exc:  # kernel died, bad notebook file...
        error = f"{name}: {type(exc).__name__}: {exc}"
    records = {}
    if ipynb.exists():
        nb = nbformat.read(ipynb, as_version=4)
        records = _records(nb)
        try:
            _to_html(nb, page)
        except Exception as exc:  # nbconvert templates missing, a broken output...
            error = error or f"{name}: the notebook ran but its HTML could not be written: {exc}"
    return {"name": name, "ipynb": ipynb.name, "html": page.name if page.exists() else None,
            "records": records, "seconds": time.perf_counter() - start, "error": error}


def _default_out():
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out, k = Path("reports") / stamp, 1
    while out.exists():
        k += 1
        out = Path("reports") / f"{stamp}-{k}"
    return out


def _prepare_out(out, force):
    """Check (and with force, clear) the output folder; never touch other folders."""
    out = Path(out) if out is not None else _default_out()
    if out.exists():
        if not force:
            raise ReportError(f"{out} already exists; choose another --out or pass --force to replace it")
        if not out.is_dir():
            raise ReportError(f"{out} is a file, not a report folder")
        if any(out.iterdir()) and not ((out / "summary.json").exists() or (out / "index.html").exists()):
            raise ReportError(f"{out} is not empty and holds no report; refusing to replace it")
    return out


def _clear(out):
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)


def _progress_hook(progress, total, desc):
    if progress is True:
        from tqdm import tqdm
        bar = tqdm(total=total, desc=desc, unit="notebook", file=sys.stderr)
        return lambda done, label: (bar.set_postfix_str(label), bar.update(1),
                                    bar.close() if done == total else None)
    if callable(progress):
        return lambda done, label: progress(done, total, label)
    return lambda done, label: None


def run_tasks(tasks, executor=None, progress=None, desc="report"):
    """Run ``execute_one(*task)`` for every task; results in task order.

    Uses ``executor`` (any concurrent.futures.Executor) or a ProcessPoolExecutor
    with one worker per core; a single task runs in this process.
    """
    from concurrent.futures import as_completed

    hook = _progress_hook(progress, len(tasks), desc)
    own = executor is None and len(tasks) > 1
    if own:
        executor = ProcessPoolExecutor(max_workers=min(len(tasks), os.cpu_count() or 1),
                                       mp_context=get_context("spawn"))
    try:
        if executor is None:
            results = []
            for task in tasks:
                results.append(execute_one(*task))
                hook(len(results), results[-1]["name"])
            return results
        futures = {executor.submit(execute_one, *task): i for i, task in enumerate(tasks)}
        results = [None] * len(tasks)
        for done, future in enumerate(as_completed(futures), 1):
            results[futures[future]] = future.result()
            hook(done, results[futures[future]]["name"])
        return results
    finally:
        if own:
            executor.shutdown()


def plan(notebooks=None, params=None):
    """Resolve notebooks and check parameters; returns ``[(path, params), ...]``.

    Nothing is executed: this is the check that runs before any kernel starts.
    """
    paths = find_notebooks(notebooks)
    if not paths:
        raise ReportError(f"no notebooks found in {NOTEBOOK_DIR}")
    by_name = {p.stem: notebook_parameters(p) for p in paths}
    chosen = validate(params, by_name)
    return [(p, chosen[p.stem]) for p in paths]


def merged_records(records):
    """One dict of every notebook's records, later notebooks winning; reasons merged too."""
    merged, reasons = {}, {}
    for nb_records in records.values():
        merged.update({k: v for k, v in nb_records.items() if k != "reasons"})
        reasons.update(nb_records.get("reasons") or {})
    merged["reasons"] = reasons
    return merged


def _headline(records):
    merged = merged_records(records)
    return {k: merged[k] for k in HEADLINE if k in merged}


def finish(out, results, parameters):
    """Write index.html and summary.json for executed results; return a Report.

    summary.json holds numbers or null: every null has its ``reasons`` entry.
    Raises ReportError naming each failed notebook and cell after writing them.
    """
    from .summary import answer_sentences, null_reasons, warning_lines

    reasons = {}
    records = clean({r["name"]: r["records"] for r in results}, reasons)
    merged = merged_records(records)
    headline = _headline(records)
    reasons = {**reasons, **merged.pop("reasons")}
    reasons.update({k: v for k, v in null_reasons(records, dict(reasons)).items() if k not in reasons})
    summary = {"parameters": clean(parameters, {}), "headline": headline,
               "reasons": reasons,
               "answers": answer_sentences(merged), "warnings": warning_lines(merged),
               "records": records,
               "notebooks": [{k: r[k] for k in ("name", "ipynb", "html", "seconds", "error")}
                             for r in results],
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str, allow_nan=False),
                                      encoding="utf-8")
    (out / "index.html").write_text(index_page(summary, merged, folder=out), encoding="utf-8")
    errors = [r["error"] for r in results if r["error"]]
    if errors:
        raise ReportError("; ".join(errors) + f" (report index: {out / 'index.html'})")
    return Report(out, tuple(r["name"] for r in results), parameters, headline, records)
