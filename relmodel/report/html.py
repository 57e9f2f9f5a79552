"""HTML of report pages, kept importable here: the shared pieces (:mod:`.markup`) and the index (:mod:`.index`).

The page pieces (style, page, table, headline values) live in
:mod:`relmodel.report.markup`; a run's index page, the index step, in
:mod:`relmodel.report.index`.
"""

from .index import NOTEBOOK_TITLES, index_page, inputs_rows
from .markup import HEADLINE, PRINT_STYLE, STYLE, fmt, page, table

__all__ = ["HEADLINE", "STYLE", "PRINT_STYLE", "page", "table", "fmt", "index_page", "inputs_rows", "NOTEBOOK_TITLES"]
