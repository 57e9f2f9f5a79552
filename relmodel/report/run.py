"""Running a planned report: execute -> store -> summarise -> index, once each, for any plan.

:func:`render_plan` takes a :class:`~.plan.Plan` (one run for a report,
several for a sweep) and

1. **execute**: every task of every run on one executor
   (:func:`.executors.run_tasks`; :func:`.execute.execute` in the workers);
2. **store**: each result, as it arrives, into its run's folder inside one
   staging folder (:func:`.store.store`, :class:`.folders.Staging`);
3. **summarise**: each run's records into its ``summary.json``
   (:func:`summarise`, with the sentences of :mod:`.summary`);
4. **index**: each run's ``index.html`` (:func:`.html.index_page`) and, for
   a sweep, the comparison page over the runs' summaries
   (:func:`.sweep.write_index`);

then swaps the staging folder in.  Ctrl-C stops the kernels and raises
:class:`~relmodel.errors.ReportInterrupted`; a failed notebook leaves a
partial report and raises :class:`~relmodel.errors.ReportIncomplete` (or
:class:`~relmodel.errors.KernelDiedError`) after the report is written.
The in-kernel API (``record``, ``key_figure``) lives in :mod:`.record`; its
names are also importable from here.
"""

import datetime as _dt
from relmodel.escape import html_text
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import KernelDiedError, ReportIncomplete
from .execute import CELL_TIMEOUT_S, execute  # noqa: F401 (re-exported)
from .executors import WORK_PREFIX, new_run_id, run_tasks  # noqa: F401 (re-exported)
from .failures import status_text
from .folders import Staging, check_target, marker, write_bytes, write_text  # noqa: F401 (write_bytes re-exported)
from .html import HEADLINE, fmt, index_page, page, table  # noqa: F401 (re-exported)
from .plan import NOTEBOOK_DIR, Task, find_notebooks, make_tasks, plan  # noqa: F401 (re-exported)
from .source_cache import render_cache
from .records import FIGURE_PREFIX, MIMETYPE, key_figure, record, recorded  # noqa: F401 (re-exported)
from .store import store, write_summary
from .summary import answer_sentences, clean, null_reasons, warning_lines
from .sweep import write_index

__all__ = [
    "NOTEBOOK_DIR", "HEADLINE", "MIMETYPE", "Report", "record", "recorded", "key_figure", "find_notebooks",
    "plan", "Task", "make_tasks", "execute", "execute_one", "store", "run_tasks", "render_plan", "summarise",
    "finish", "merged_records",
]


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


def merged_records(records):
    """One dict of every notebook's records, later notebooks winning; reasons merged too."""
    merged, reasons = {}, {}
    for nb_records in records.values():
        merged.update({k: v for k, v in nb_records.items() if k != "reasons"})
        reasons.update(nb_records.get("reasons") or {})
    merged["reasons"] = reasons
    return merged


def summarise(entries, parameters):
    """The summary of one run's stored entries: ``(summary dict, merged records without reasons)``.

    summary.json holds numbers or null: every null has its ``reasons`` entry.
    """
    from .provenance import provenance

    failed = [e["name"] for e in entries if e["error"]]
    reasons = {}
    records = clean({e["name"]: e["records"] for e in entries}, reasons)
    merged = merged_records(records)
    reasons = {**reasons, **merged.pop("reasons")}
    reasons.update({k: v for k, v in null_reasons(records, dict(reasons)).items() if k not in reasons})
    summary = {"parameters": clean(parameters, {}), "headline": {k: merged[k] for k in HEADLINE if k in merged},
               "reasons": reasons, "answers": answer_sentences(merged), "warnings": warning_lines(merged),
               "records": records,
               "notebooks": [{k: e.get(k) for k in ("name", "ipynb", "html", "seconds", "error", "failure")}
                             for e in entries],
               "status": "partial" if failed else "complete", "failed": failed,
               "provenance": provenance(parameters),
               "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
               "relmodel": marker("complete")}
    return summary, merged


def _finish_run(out, entries, parameters, folder):
    """Summarise and index one run into ``folder``; return ``(Report, summary, merged)``."""
    summary, merged = summarise(entries, parameters)
    write_text(Path(folder) / "index.html", index_page(summary, merged, folder=folder))
    write_summary(folder, summary)
    report = Report(Path(out), tuple(e["name"] for e in entries), parameters, summary["headline"],
                    summary["records"])
    return report, summary, merged


def _run_error(report, entries):
    """The error a run's failed notebooks raise (None when every notebook ran)."""
    errors = "; ".join(e["error"] for e in entries if e["error"])
    if any(e.get("kernel_died") for e in entries):
        return KernelDiedError(errors + f" (report index: {report.index})")
    failed = [e["name"] for e in entries if e["error"]]
    if failed:
        return ReportIncomplete(f"the report is partial: {errors} (report index: {report.index})",
                                report=report, failed=failed)
    return None


def finish(out, results, parameters, folder=None):
    """Write index.html and summary.json for one run's stored entries; return a Report.

    Raises ReportIncomplete (carrying the written Report) or KernelDiedError,
    naming each failed notebook and cell, after writing them.
    """
    report, _, _ = _finish_run(out, results, parameters, Path(folder or out))
    error = _run_error(report, results)
    if error is not None:
        raise error
    return report


def _sweep_row(run, entries, summary, merged, error):
    stopped = "; ".join(f"{e['name']} {status_text(e)}" for e in entries if e["error"])
    return {"values": run.combination, "value": next(iter(run.combination.values())), "folder": run.folder,
            "headline": summary["headline"], "reasons": summary["reasons"], "records": merged,
            "error": None if error is None else str(error), "status": stopped or "complete"}


def _finish(the_plan, out, staging, entries):
    """Summarise and index every run, then the sweep's comparison page; return ``(Report, error)``."""
    reports, rows, errors = [], [], []
    for k, run in enumerate(the_plan.runs):
        mine = [e for e, w in zip(entries, the_plan.where) if w == k]
        report, summary, merged = _finish_run(out / run.folder, mine, run.values, staging.path / run.folder)
        error = _run_error(report, mine)
        reports.append(report)
        errors.append(error)
        rows.append(_sweep_row(run, mine, summary, merged, error) if the_plan.swept else None)
    if not the_plan.swept:
        return reports[0], errors[0]
    write_index(the_plan.swept, rows, the_plan.parameters, staging.path)
    first = [t.name for t in the_plan.runs[0].tasks]
    report = Report(out, tuple(first), the_plan.parameters, {}, {"sweep": rows}, tuple(reports))
    return report, _sweep_error(the_plan, report, entries, rows, errors)


def _sweep_error(the_plan, report, entries, rows, errors):
    died = [e for e in errors if isinstance(e, KernelDiedError)]
    if died:
        return KernelDiedError("; ".join(map(str, died)))
    failed = [f"{', '.join(f'{n}={v}' for n, v in row['values'].items())}: {row['error']}"
              for row, e in zip(rows, errors) if e is not None]
    if not failed:
        return None
    return ReportIncomplete("the sweep is partial: " + "; ".join(failed), report=report,
                            failed=[e["name"] for e in entries if e["error"]])


def _progress(the_plan, entries):
    """The summary.json of a report still running: the entries stored so far."""
    done = [(the_plan.runs[w].folder, e) for e, w in zip(entries, the_plan.where) if e is not None]
    if not the_plan.swept:
        return {"notebooks": [e for _, e in done]}
    return {"sweep": list(the_plan.swept), "notebooks": [{**e, "folder": f} for f, e in done]}


def render_plan(the_plan, out=None, force=False, executor=None, progress=None):
    """Execute, store, summarise and index a :class:`~.plan.Plan` into ``out``; return a :class:`Report`.

    ``out``, ``force``, ``executor`` and ``progress`` are as for :func:`~.render.render`.
    """
    out = check_target(out, force)
    tasks, where = the_plan.tasks, the_plan.where
    entries = [None] * len(tasks)
    staging = Staging(out, replace=Path(out).exists())
    try:
        with staging:
            for run in the_plan.runs:
                if run.folder:
                    (staging.path / run.folder).mkdir()

            def on_result(i, result):
                entries[i] = store(result, staging.path / the_plan.runs[where[i]].folder)
                staging.mark("in progress", _progress(the_plan, entries))
                return entries[i]

            desc = "sweep " + ", ".join(the_plan.swept) if the_plan.swept else Path(out).name
            with render_cache(the_plan.run_id):  # the source is read once, for every page and run
                run_tasks(tasks, execute, executor, progress, desc=desc, on_result=on_result, run_id=the_plan.run_id)
            report, error = _finish(the_plan, Path(out), staging, entries)
            staging.commit()
    except KeyboardInterrupt:
        raise staging.interrupted() from None
    if error is not None:
        raise error
    return report


def execute_one(notebook, out_dir, parameters):
    """Execute one notebook in this process and write it into ``out_dir``; return its entry."""
    task = make_tasks([(Path(notebook), parameters)], new_run_id())[0]
    return store(execute(task), out_dir)
