"""HTML of report pages, kept importable here: the shared pieces (:mod:`.blocks.markup`) and the index (:mod:`.index`).

The page pieces (style, page, table, headline values) live in
:mod:`relmodel.report.blocks.markup`; a run's index page, the index step, in
:mod:`relmodel.report.pipeline.index`.
"""

from .index import NOTEBOOK_TITLES, index_page, inputs_rows
from ..blocks.markup import HEADLINE, PRINT_STYLE, STYLE, fmt, page, table

__all__ = ["HEADLINE", "STYLE", "PRINT_STYLE", "page", "table", "fmt", "index_page", "inputs_rows", "NOTEBOOK_TITLES"]
