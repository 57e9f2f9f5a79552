"""Running a planned report: execute -> store -> summarise -> index, once each, for any plan.

:func:`render_plan` takes a :class:`~.plan.Plan` (one run for a report,
several for a sweep; made by the parse, validate and plan steps of
:func:`~.render.render`) and calls, in this order:

4. **execute**: every task of every run on one executor
   (:func:`.kernels.executors.run_tasks`; :func:`.execute.execute` in the workers);
5. **store**: each result, as it arrives, into its run's folder inside one
   staging folder (:func:`.store.store`, :class:`.safety.folders.Staging`);
6. **summarise**: each run's entries into its ``summary.json``, answers and
   warnings as sentences (:func:`.summarise.summarise_runs`);
7. **index**: each run's ``index.html`` and, for a sweep, the comparison
   page over the runs' summaries (:func:`.index.index_runs`);

then swaps the staging folder in.  Ctrl-C stops the kernels and raises
:class:`~relmodel.errors.ReportInterrupted`; a failed notebook leaves a
partial report and raises :class:`~relmodel.errors.ReportIncomplete` (or
:class:`~relmodel.errors.KernelDiedError`) after the report is written.
The in-kernel API (``record``, ``key_figure``) lives in :mod:`.kernels.records`; its
names, and those of the steps, are also importable from here.
"""

from relmodel.base.escape import html_text
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import KernelDiedError, ParameterError, ReportIncomplete
from ..kernels.capacity import usable_workers
from .execute import CELL_TIMEOUT_S, execute  # noqa: F401 (re-exported)
from ..kernels.executors import WORK_PREFIX, new_run_id, run_tasks, worker_pool  # noqa: F401 (re-exported)
from ..safety.folders import Staging, check_target, write_bytes, write_text  # noqa: F401 (write_bytes re-exported)
from .index import index_page, index_run, index_runs, index_sweep  # noqa: F401 (index_page re-exported)
from ..blocks.markup import HEADLINE, fmt, page, table  # noqa: F401 (re-exported)
from .plan import NOTEBOOK_DIR, Task, find_notebooks, make_tasks, plan  # noqa: F401 (re-exported)
from ..kernels.source_cache import render_cache
from ..kernels.records import FIGURE_PREFIX, MIMETYPE, key_figure, record, recorded  # noqa: F401 (re-exported)
from .store import store
from .summarise import merged_records, summarise, summarise_run, summarise_runs  # noqa: F401 (re-exported)

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
        rows = "".join(f"<tr><td>{html_text(HEADLINE[k])}</td><td>{fmt(v, k)}</td></tr>"
                       for k, v in self.headline.items() if k in HEADLINE)
        return f"<p>Report <code>{html_text(str(self.index))}</code></p><table>{rows}</table>"


def _report(out, entries, parameters, summary):
    return Report(Path(out), tuple(e["name"] for e in entries), parameters, summary["headline"], summary["records"])


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
    """Write summary.json and index.html for one run's stored entries; return a Report.

    Raises ReportIncomplete (carrying the written Report) or KernelDiedError,
    naming each failed notebook and cell, after writing them.
    """
    folder = Path(folder or out)
    summary, merged = summarise_run(results, parameters, folder)
    index_run(summary, merged, folder)
    report = _report(out, results, parameters, summary)
    error = _run_error(report, results)
    if error is not None:
        raise error
    return report


def _outcome(the_plan, out, by_run, summaries):
    """Each run's :class:`Report` and its error (None when every notebook of it ran), in run order."""
    reports = [_report(out / run.folder, entries, run.values, summary)
               for run, entries, (summary, _) in zip(the_plan.runs, by_run, summaries)]
    return reports, [_run_error(report, entries) for report, entries in zip(reports, by_run)]


def _result(the_plan, out, reports, errors, rows):
    """The render's Report and the error it raises: the one run's, or the sweep's over every run."""
    if not the_plan.swept:
        return reports[0], errors[0]
    first = [t.name for t in the_plan.runs[0].tasks]
    report = Report(out, tuple(first), the_plan.parameters, {}, {"sweep": rows}, tuple(reports))
    return report, _sweep_error(report, rows, errors)


def _sweep_error(report, rows, errors):
    died = [e for e in errors if isinstance(e, KernelDiedError)]
    if died:
        return KernelDiedError("; ".join(map(str, died)))
    failed = [f"{', '.join(f'{n}={v}' for n, v in row['values'].items())}: {row['error']}"
              for row, e in zip(rows, errors) if e is not None]
    if not failed:
        return None
    return ReportIncomplete("the sweep is partial: " + "; ".join(failed), report=report,
                            failed=[name for e in errors if e is not None for name in e.failed])


def _progress(the_plan, entries):
    """The summary.json of a report still running: the entries stored so far."""
    done = [(the_plan.runs[w].folder, e) for e, w in zip(entries, the_plan.where) if e is not None]
    if not the_plan.swept:
        return {"notebooks": [e for _, e in done]}
    return {"sweep": list(the_plan.swept), "notebooks": [{**e, "folder": f} for f, e in done]}


def render_plan(the_plan, out=None, force=False, executor=None, progress=None, jobs=None):
    """Execute, store, summarise and index a :class:`~.plan.Plan` into ``out``; return a :class:`Report`.

    ``out``, ``force``, ``executor``, ``progress`` and ``jobs`` are as for :func:`~.render.render`.
    """
    if jobs is not None:
        if executor is not None:
            raise ParameterError("give executor or jobs, not both")
        with worker_pool(min(usable_workers(jobs).count, len(the_plan.tasks))) as pool:
            return render_plan(the_plan, out, force, pool, progress)
    out = check_target(out, force)
    tasks, where = the_plan.tasks, the_plan.where
    entries = [None] * len(tasks)
    staging = Staging(out, replace=Path(out).exists())
    try:
        with staging:
            for run in the_plan.runs:
                if run.folder:
                    (staging.path / run.folder).mkdir()

            ended = {}  # run -> (summary, merged): a sweep's run summarised and indexed as soon as its last page is in

            def on_result(i, result):
                entries[i] = store(result, staging.path / the_plan.runs[where[i]].folder)
                staging.mark("in progress", _progress(the_plan, entries))
                w = where[i]
                if the_plan.swept and all(entries[j] is not None for j, k in enumerate(where) if k == w):
                    run = the_plan.runs[w]  # the other runs' notebooks keep the workers busy meanwhile
                    ended[w] = summarise_run([e for e, k in zip(entries, where) if k == w], run.values,
                                             staging.path / run.folder)
                    index_run(*ended[w], staging.path / run.folder)
                return entries[i]

            desc = "sweep " + ", ".join(the_plan.swept) if the_plan.swept else Path(out).name
            # 4. execute every task on one executor; 5. store each result as it arrives (on_result)
            with render_cache(the_plan.run_id):  # the source is read once, for every page and run
                run_tasks(tasks, execute, executor, progress, desc=desc, on_result=on_result, run_id=the_plan.run_id)
            by_run = the_plan.by_run(entries)
            if ended:  # 6-7. a sweep: each run was summarised and indexed as it ended; the comparison page is left
                summaries = [ended[w] if w in ended else summarise_run(e, run.values, staging.path / run.folder)
                             for w, (run, e) in enumerate(zip(the_plan.runs, by_run))]
                for w, run in enumerate(the_plan.runs):
                    if w not in ended:
                        index_run(*summaries[w], staging.path / run.folder)
                reports, errors = _outcome(the_plan, Path(out), by_run, summaries)
                rows = index_sweep(the_plan, summaries, errors, staging.path)
            else:
                summaries = summarise_runs(the_plan, by_run, staging.path)  # 6. summarise
                reports, errors = _outcome(the_plan, Path(out), by_run, summaries)
                rows = index_runs(the_plan, summaries, errors, staging.path)  # 7. index
            report, error = _result(the_plan, Path(out), reports, errors, rows)
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
