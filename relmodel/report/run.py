"""One-command HTML reports: run the notebook suite through Papermill.

:func:`render` checks every parameter against the notebooks' ``parameters``
cells before any kernel starts, executes each notebook with Papermill on a
kernel of the current interpreter, renders it to HTML with the code hidden
(nbconvert's ``exclude_input``), and writes ``reports/<run>/`` with one
``.ipynb`` and one ``.html`` per notebook, an ``index.html`` and a
``summary.json`` of the headline numbers the notebooks :func:`record`.
"""

import base64
import copy
import datetime as _dt
from relmodel.escape import html_text
import io
import json
import numbers
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputTypeError, KernelDiedError, ReportError, ReportIncomplete
from ..resources import notebook_dir
from .executors import WORK_PREFIX, new_run_id, run_tasks  # noqa: F401 (re-exported)
from .folders import write_bytes, write_text
from .params import notebook_parameters, validate
from .html import HEADLINE, fmt, index_page, page, table  # noqa: F401 (re-exported)
from .summary import clean
from .alt_text import figure_alts, with_alt_text
from .failures import ERROR_CELL_TAG, failed_cell, failure_message, stopped_note
from .file_limit import read_notebook, size_error, too_large

__all__ = [
    "NOTEBOOK_DIR",
    "HEADLINE",
    "MIMETYPE",
    "Report",
    "record",
    "recorded",
    "key_figure",
    "find_notebooks",
    "plan",
    "Task",
    "make_tasks",
    "execute",
    "execute_one",
    "store",
    "run_tasks",
    "finish",
    "merged_records",
]

#: The notebook suite shipped with the project.
NOTEBOOK_DIR = notebook_dir()

#: Output mimetype that carries a recorded number inside an executed notebook.
MIMETYPE = "application/vnd.relmodel.record+json"

#: A cell still running after this many seconds fails (a hung kernel cannot stall a report).
CELL_TIMEOUT_S = 600

_RECORDED = {}


def record(name, value, reason=None):
    """Record a headline number from inside a notebook.

    In a kernel the value is attached to the cell's outputs (invisible in the
    HTML) and :func:`render` reads it back into ``summary.json``; outside a kernel
    it is kept in memory (see :func:`recorded`). ``value`` must be JSON-able
    and in the units its name says (``_h`` for hours); None, NaN and infinity
    are stored as None with ``reason`` (default "out of reach" for infinity)
    in the summary's ``reasons``.

    Examples
    --------
    >>> record("node_mtbf_h", 16595.4)      # hours, say
    >>> recorded()["node_mtbf_h"]
    16595.4
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
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise InputTypeError(f"record({name!r}, ...): a {type(value).__name__} cannot be recorded; record "
                             "a number, text, true/false, None, or a list or dict of those") from None
    _RECORDED[name] = value
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    if get_ipython() is not None:
        from IPython.display import display
        display({MIMETYPE: {"name": name, "value": value, "reasons": reasons}}, raw=True)


#: Record names that carry a key figure (PNG, base64) rather than a number.
FIGURE_PREFIX = "figure:"


def key_figure(fig, name, dpi=80):
    """Mark a matplotlib figure as a key figure of the report's summary page.

    The figure is kept as PNG bytes in the notebook's records; the process
    that writes the report folder saves it as ``key-<name>.png`` beside
    ``index.html`` (so workers need no shared folder).  ``name`` orders the
    figures (e.g. ``"1-ettr-against-interval"``); ``dpi`` is a count of dots
    per inch of the PNG.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1)); _ = fig.subplots().plot([0, 1])
    >>> key_figure(fig, "1-demo")
    >>> recorded()["figure:1-demo"][:8]      # base64 of a PNG signature
    'iVBORw0K'
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    record(FIGURE_PREFIX + str(name), base64.b64encode(buf.getvalue()).decode("ascii"))


def recorded():
    """Numbers recorded in this process outside a kernel, as a dict.

    Values are as recorded (numbers in the units their names say, e.g. ``_h`` for hours).

    Examples
    --------
    >>> record("ettr", 0.85)
    >>> recorded()["ettr"]
    0.85
    """
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
        rows = "".join(f"<tr><td>{html_text(HEADLINE.get(k, k))}</td><td>{fmt(v, k)}</td></tr>"
                       for k, v in self.headline.items())
        return f"<p>Report <code>{html_text(str(self.index))}</code></p><table>{rows}</table>"


def find_notebooks(notebooks=None):
    """Resolve notebook names or paths; None means the whole suite.

    A name may be a path, a file stem (``03_checkpoint_interval``) or its number
    prefix (``03``). Raises ReportError for a name that matches nothing.

    Returns a list of notebook paths.

    Examples
    --------
    >>> [p.name for p in find_notebooks(["03", "04"])]
    ['03_checkpoint_interval.ipynb', '04_requirements_at_scale.ipynb']
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
    unique = list(dict.fromkeys(found))  # '-n 05 -n 05' runs 05 once
    stems = [p.stem for p in unique]
    clash = sorted({s for s in stems if stems.count(s) > 1})
    if clash:
        raise ReportError(f"two notebooks are named {clash[0]!r}; their outputs would overwrite "
                          "each other in one report, so rename one")
    return unique


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


def _to_html(nb):
    global _EXPORTER
    if _EXPORTER is None:
        from nbconvert import HTMLExporter
        _EXPORTER = HTMLExporter(exclude_input=True, exclude_input_prompt=True,
                                 exclude_output_prompt=True)
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if ERROR_CELL_TAG not in c.metadata.get("tags", [])]
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = [stopped_note(o) if o.get("output_type") == "error" else o
                            for o in cell.outputs if MIMETYPE not in o.get("data", {})]
    body, _ = _EXPORTER.from_notebook_node(nb)
    return with_alt_text(body, figure_alts(nb))


def _with_footer(body, parameters):
    from .provenance import footer, provenance
    end = body.rfind("</body>")
    from .html import PRINT_STYLE
    note = f"<style>{PRINT_STYLE}</style>" + footer(provenance(parameters))
    return body[:end] + note + body[end:] if end >= 0 else body + note


@dataclass(frozen=True)
class Task:
    """One notebook to execute: plain data, so it can travel to any worker."""

    name: str
    source: str  # the notebook's JSON text
    parameters: dict
    run_id: str = "solo"

    def __getitem__(self, i):  # task[0] is the name, as for a tuple
        return (self.name, self.source, self.parameters, self.run_id)[i]


def make_tasks(plans, run_id):
    """Tasks from ``[(path, params), ...]``, reading each notebook once."""
    texts = {}
    return [Task(p.stem, texts.setdefault(p, Path(p).read_text(encoding="utf-8")), dict(params), run_id)
            for p, params in plans]


def execute(task):
    """Execute one :class:`Task` in a scratch folder; return its outputs as data.

    Returns a dict with name, ipynb_bytes, html_bytes, records, seconds and
    error (None or a message naming the notebook and its own cell number).
    The kernel runs in the scratch folder, which is removed afterwards: the
    worker writes nothing else, so it needs no shared file system.
    """
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from .pool import kernel_manager_for

    name = task.name
    scratch = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{task.run_id}-"))
    source, ipynb = scratch / f"{name}.source.ipynb", scratch / f"{name}.ipynb"
    start, error = time.perf_counter(), None
    out = {"ipynb_bytes": None, "html_bytes": None, "records": {}, "failure": None}
    try:
        source.write_text(task.source, encoding="utf-8")
        try:
            papermill.execute_notebook(
                str(source), str(ipynb), parameters=task.parameters, kernel_name="python3",
                language="python", progress_bar=False, start_timeout=180,
                execution_timeout=CELL_TIMEOUT_S, kernel_manager_class=kernel_manager_for(task.run_id),
                resources={"metadata": {"path": str(scratch)}})  # kernel cwd, without os.chdir
        except PapermillExecutionError as exc:
            error = ("failed", exc)
        except Exception as exc:  # kernel died, bad notebook file...
            if too_large(exc):
                raise size_error(ipynb) from None
            error = f"{name}: {type(exc).__name__}: {exc}"
            if _kernel_died(exc):
                out["kernel_died"] = True
                error = (f"{name}: the kernel running the notebook died (killed, or out of memory); "
                         f"rerun it, with smaller parameters if it ran out of memory")
        if ipynb.exists():
            nb = read_notebook(ipynb, name)
            out["ipynb_bytes"], out["records"] = ipynb.read_bytes(), _records(nb)
            if isinstance(error, tuple):
                number = failed_cell(nbformat.reads(task.source, 4), nb)
                out["failure"] = {"cell": number, "error": error[1].ename}
                error = failure_message(name, error[1], number)
            try:
                out["html_bytes"] = _with_footer(_to_html(nb), task.parameters).encode("utf-8")
            except Exception as exc:  # nbconvert templates missing, a broken output...
                error = error or f"{name}: the notebook ran but its HTML could not be written: {exc}"
        elif isinstance(error, tuple):
            out["failure"] = {"cell": None, "error": error[1].ename}
            error = failure_message(name, error[1], None)
        if error is not None and out["failure"] is None:
            out["failure"] = {"cell": None, "error": error.split(": ")[1] if ": " in error else "error"}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        from .interrupts import reinstall
        reinstall()
    return {"name": name, **out, "seconds": time.perf_counter() - start, "error": error}


def _kernel_died(exc):
    from nbclient.exceptions import DeadKernelError
    return isinstance(exc, DeadKernelError) or "kernel died" in str(exc).lower()


def store(result, folder):
    """Write a result's notebook and HTML into ``folder``; return its summary entry."""
    folder, name = Path(folder), result["name"]
    entry = {k: result[k] for k in ("name", "records", "seconds", "error")}
    if result.get("kernel_died"):
        entry["kernel_died"] = True
    entry["failure"] = result.get("failure")
    entry["records"] = dict(entry["records"] or {})
    for key in [k for k in entry["records"] if k.startswith(FIGURE_PREFIX)]:
        png = entry["records"].pop(key)
        if isinstance(png, str):
            safe = "".join(c if c.isalnum() or c == "-" else "-" for c in key[len(FIGURE_PREFIX):])
            write_bytes(folder / f"key-{safe}.png", base64.b64decode(png))
    entry["ipynb"] = entry["html"] = None
    if result.get("ipynb_bytes") is not None:
        write_bytes(folder / f"{name}.ipynb", result["ipynb_bytes"])
        entry["ipynb"] = f"{name}.ipynb"
    if result.get("html_bytes") is not None:
        write_bytes(folder / f"{name}.html", result["html_bytes"])
        entry["html"] = f"{name}.html"
    return entry


def execute_one(notebook, out_dir, parameters):
    """Execute one notebook in this process and write it into ``out_dir``; return its entry."""
    task = make_tasks([(Path(notebook), parameters)], new_run_id())[0]
    return store(execute(task), out_dir)


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


def finish(out, results, parameters, folder=None):
    """Write index.html and summary.json for executed results; return a Report.

    The files go to ``folder`` (default ``out``: a staging folder that becomes
    ``out``).  summary.json holds numbers or null: every null has its
    ``reasons`` entry.  Raises ReportError naming each failed notebook and
    cell after writing them
    (:class:`~relmodel.errors.ReportIncomplete`, carrying the written Report).
    """
    from .folders import marker
    from .provenance import provenance
    from .summary import answer_sentences, null_reasons, warning_lines

    folder = Path(folder or out)
    failed = [r["name"] for r in results if r["error"]]
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
               "notebooks": [{k: r.get(k) for k in ("name", "ipynb", "html", "seconds", "error", "failure")}
                             for r in results],
               "status": "partial" if failed else "complete", "failed": failed,
               "provenance": provenance(parameters),
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
               "relmodel": marker("complete")}
    write_text(folder / "index.html", index_page(summary, merged, folder=folder))
    write_text(folder / "summary.json", json.dumps(summary, indent=2, default=str, allow_nan=False))
    report = Report(Path(out), tuple(r["name"] for r in results), parameters, headline, records)
    if any(r.get("kernel_died") for r in results):
        errors = "; ".join(r["error"] for r in results if r["error"])
        raise KernelDiedError(errors + f" (report index: {Path(out) / 'index.html'})")
    if failed:
        errors = "; ".join(r["error"] for r in results if r["error"])
        raise ReportIncomplete(f"the report is partial: {errors} (report index: {Path(out) / 'index.html'})",
                               report=report, failed=failed)
    return report
