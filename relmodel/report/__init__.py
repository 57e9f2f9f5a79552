"""Presentation layer, reports: run the notebook suite through Papermill into HTML.

Subpackages, bottom up (each imports only those before it): :mod:`.safety`
(marked report folders, the file-size limit, bounds on a run);
:mod:`.parameters` (parameter values read as data and their rules);
:mod:`.blocks` (the presentation blocks pages and the pipeline share);
:mod:`.kernels` (how notebooks are executed, and what they record);
:mod:`.pipeline` (the steps, one file each, and the run that calls them);
:mod:`.notebook_pages` (each notebook's page builder, imported in its
kernel).

Belongs here: the one entry point :func:`render` (:mod:`.render`) and the
report pipeline's steps, each in the file of its name, called once each in
this order: :mod:`.pipeline.parse` (values a user passes, read as YAML 1.2 by
:mod:`.parameters.yaml12`), :mod:`.pipeline.validate` (each value against the notebooks'
declared parameters, :mod:`.pipeline.params`, and the value rules, :mod:`.parameters.rules`),
:mod:`.pipeline.plan`, then, run by :func:`.pipeline.run.render_plan`, :mod:`.pipeline.execute` (on
executors, :mod:`.kernels.executors`, and warm kernels, :mod:`.kernels.kernel`,
:mod:`.kernels.pool`), :mod:`.pipeline.store`, :mod:`.pipeline.summarise` (summary.json and the
answer sentences) and :mod:`.pipeline.index` (each run's index page and a sweep's
comparison page, :mod:`.pipeline.sweep`).  Also here: marked report folders
(:mod:`.safety.folders`), the HTML pieces every page shares (:mod:`.blocks.markup`), the
blocks the notebooks' pages are built of (:mod:`.notebook_pages.pages`, :mod:`.blocks.present`)
and the in-kernel API (:mod:`.kernels.records`).  May import every lower layer; the
CLI imports it, and so do the notebooks, inside their kernels
(``from relmodel.report import record``).

Presentation rules (every page of a report keeps them; :mod:`.blocks.present`
holds the formatters that do):

1. A page reads as a document for a head of infrastructure: the question,
   the inputs (defaults marked as assumptions), the answers as sentences with
   their intervals, then figures, then the warnings that matter.
2. A table shows at most about 15 rows; a longer one becomes a plot or folds
   into a collapsed ``<details>`` block.  No pandas index column.
3. Headers are words with units ("Required node MTBF (h)"), never
   snake_case column names.
4. Durations are in the unit a person would say (s, min, h, d, years);
   MTBFs in hours; thousands separators everywhere; no scientific notation
   between 0.001 and 10^7.
5. No NaN, inf or None in a cell or a sentence: say what it means ("—",
   "none observed", "out of reach").  summary.json holds JSON numbers, or
   null with a ``reason``.
6. Tables fit the page width or scroll inside their own box; figures fit
   1280 px.  A figure whose quantity is out of reach says so instead of
   zooming on a flat line.
7. No warnings, stderr or tracebacks in the HTML: they are caught, and the
   ones a reader needs become styled notes.
8. Statistics are read honestly: a verdict only when the tests agree, the
   AIC-best family together with whether its bootstrap test rejects it, and
   means or quantiles far beyond the data carry that caveat.
"""

from ..base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used
#: (so the command's ``report --help`` and a kernel's ``record`` load only what they need).
EXPORTS = [(".pipeline.html", "fmt"), (".render", "render"), (".pipeline.plan", "NOTEBOOK_DIR find_notebooks"),
           (".kernels.records", "key_figure record recorded"), (".pipeline.run", "Report")]

__all__ = ["fmt", "render", "NOTEBOOK_DIR", "Report", "find_notebooks", "record", "recorded", "key_figure"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
