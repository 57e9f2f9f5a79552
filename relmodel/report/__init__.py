"""Presentation layer, reports: run the notebook suite through Papermill into HTML.

Belongs here: parameter parsing and checking (:mod:`.params`, :mod:`.yaml12`,
:mod:`.rules`), the kernel (:mod:`.kernel`), running notebooks (:mod:`.run`)
on executors (:mod:`.executors`) into marked report folders
(:mod:`.folders`), HTML pages (:mod:`.html`), sweeps (:mod:`.sweep`) and the
one entry point :func:`render`.  May import every lower layer; only the CLI
imports it.
"""

from .html import fmt
from .render import render
from .run import NOTEBOOK_DIR, Report, find_notebooks, record, recorded

__all__ = ["fmt", "render", "NOTEBOOK_DIR", "Report", "find_notebooks", "record", "recorded"]
