"""The execute step: one :class:`~.plan.Task` through Papermill, returned as data.

:func:`execute` runs in whichever process the executor chose (this one, a
process-pool worker, a Dask worker): the notebook runs on a (warm, see
:mod:`.kernels.pool`) kernel of this interpreter in a scratch folder that is removed
afterwards, and the executed notebook, its HTML (nbconvert, inputs hidden) and
its records come back as bytes and plain data, so workers need no shared
file system.  Only the process that owns the report folder writes it
(:mod:`.store`).
"""

import copy
import shutil
import tempfile
import threading
import time
from pathlib import Path

from ..blocks.alt_text import figure_alts, with_alt_text
from ..kernels.executors import WORK_PREFIX
from ..kernels.stale import mark_owner
from ..blocks.failures import ERROR_CELL_TAG, failed_cell, failure_message, stopped_note
from ..safety.file_limit import read_notebook, size_error, too_large
from ..blocks.page_scripts import html_exporter, scripts_needed
from ..kernels.records import MIMETYPE, read_records

__all__ = ["CELL_TIMEOUT_S", "VERDICT_TAG", "execute", "to_html", "verdict_first"]

_EXPORT_LOCK = threading.Lock()

#: A cell still running after this many seconds fails (a hung kernel cannot stall a report).
CELL_TIMEOUT_S = 600


#: A cell with this tag holds the page's plain verdict: the page shows it first, under the title.
VERDICT_TAG = "verdict"


def verdict_first(cells):
    """The cells with any ``verdict``-tagged ones moved right after the first (the title): the page's answer in
    plain words comes before its statistics, while the notebook computes it last."""
    lead = [c for c in cells if VERDICT_TAG in c.metadata.get("tags", [])]
    if not lead or not cells:
        return cells
    rest = [c for c in cells if VERDICT_TAG not in c.metadata.get("tags", [])]
    return rest[:1] + lead + rest[1:]


def to_html(nb):
    """An executed notebook as HTML: inputs, prompts and records hidden, errors as stopped notes.

    The page loads from the network only the scripts its content needs (:mod:`.blocks.page_scripts`).
    """
    nb = copy.deepcopy(nb)
    nb.cells = verdict_first([c for c in nb.cells if ERROR_CELL_TAG not in c.metadata.get("tags", [])])
    for cell in nb.cells:
        if "outputs" in cell:
            cell.outputs = [stopped_note(o) if o.get("output_type") == "error" else o
                            for o in cell.outputs if MIMETYPE not in o.get("data", {})]
    with _EXPORT_LOCK:  # one exporter for the process: its threads take turns (the GIL would serialise them anyway)
        body, _ = html_exporter().from_notebook_node(nb, resources={"relmodel_scripts": scripts_needed(nb)})
    return with_alt_text(body, figure_alts(nb))


def _with_footer(body, parameters):
    from ..blocks.markup import PRINT_STYLE
    from .provenance import footer, provenance

    end = body.rfind("</body>")
    note = f"<style>{PRINT_STYLE}</style>" + footer(provenance(parameters))
    return body[:end] + note + body[end:] if end >= 0 else body + note


def _literal(path):
    """``path`` as papermill reads it back unchanged: it formats paths with the parameters
    (``str.format``), so a brace in a notebook's name or the temporary folder is doubled."""
    return str(path).replace("{", "{{").replace("}", "}}")


def _papermill(task, source, ipynb, scratch):
    """Run the notebook; returns ``(error, died)``: error None, ``("failed", exc)`` or a message."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from ..kernels.engine import ENGINE
    from ..kernels.pool import kernel_manager_for

    try:
        papermill.execute_notebook(
            _literal(source), _literal(ipynb), parameters=task.parameters, kernel_name="python3",
            language="python", progress_bar=False, start_timeout=180, engine_name=ENGINE,
            execution_timeout=CELL_TIMEOUT_S, kernel_manager_class=kernel_manager_for(task.run_id),
            resources={"metadata": {"path": str(scratch)}})  # kernel cwd, without os.chdir
    except PapermillExecutionError as exc:
        return ("failed", exc), False
    except Exception as exc:  # kernel died, bad notebook file...
        if too_large(exc):
            raise size_error(ipynb) from None
        from ..kernels.kernel import kernel_said, run_stopped
        if run_stopped(task.run_id):  # its kernel was stopped with the run: not killed, not out of memory
            return f"{task.name}: stopped: the report was interrupted", False
        if _kernel_died(exc):
            said = _last_line(kernel_said(task.run_id))
            if said:  # it said why: no guessing
                return f"{task.name}: the kernel running the notebook ended: {said}", True
            return (f"{task.name}: the kernel running the notebook died (killed, or out of memory); "
                    f"rerun it, with smaller parameters if it ran out of memory"), True
        return f"{task.name}: {type(exc).__name__}: {exc}", False
    return None, False


def _read_back(task, ipynb, error, out):
    """Fill ``out`` from the executed notebook; return the error message (or None)."""
    import nbformat

    if ipynb.exists():
        nb = read_notebook(ipynb, task.name)
        out["ipynb_bytes"], out["records"] = ipynb.read_bytes(), read_records(nb)
        if isinstance(error, tuple):
            number = failed_cell(nbformat.reads(task.source, 4), nb)
            out["failure"] = {"cell": number, "error": error[1].ename}
            error = failure_message(task.name, error[1], number)
        try:
            out["html_bytes"] = _with_footer(to_html(nb), task.parameters).encode("utf-8")
        except Exception as exc:  # nbconvert templates missing, a broken output...
            error = error or f"{task.name}: the notebook ran but its HTML could not be written: {exc}"
    elif isinstance(error, tuple):
        out["failure"] = {"cell": None, "error": error[1].ename}
        error = failure_message(task.name, error[1], None)
    if error is not None and out["failure"] is None:
        out["failure"] = {"cell": None, "error": error.split(": ")[1] if ": " in error else "error"}
    return error


def execute(task):
    """Execute one :class:`~.plan.Task` in a scratch folder; return its outputs as data.

    Returns a dict with name, ipynb_bytes, html_bytes, records, seconds and
    error (None or a message naming the notebook and its own cell number).
    The kernel runs in the scratch folder, which is removed afterwards: the
    worker writes nothing else, so it needs no shared file system.
    """
    name = task.name
    scratch = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{task.run_id}-"))
    mark_owner(scratch)  # a process killed before it removes the folder leaves a record a later run can verify
    source, ipynb = scratch / f"{name}.source.ipynb", scratch / f"{name}.ipynb"
    start = time.perf_counter()
    out = {"ipynb_bytes": None, "html_bytes": None, "records": {}, "failure": None}
    try:
        source.write_text(task.source, encoding="utf-8")
        error, died = _papermill(task, source, ipynb, scratch)
        if died:
            out["kernel_died"] = True
        error = _read_back(task, ipynb, error, out)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        from ..kernels.interrupts import reinstall
        reinstall()
    return {"name": name, **out, "seconds": time.perf_counter() - start, "error": error}


def _last_line(text):
    """The last line of a kernel's output that says something (a traceback's last line is its error)."""
    from ...base.escape import terminal_text

    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return terminal_text(lines[-1])[:300] if lines else ""


def _kernel_died(exc):
    from nbclient.exceptions import DeadKernelError
    return isinstance(exc, DeadKernelError) or "kernel died" in str(exc).lower()
