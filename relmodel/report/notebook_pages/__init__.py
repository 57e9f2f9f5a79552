"""The notebooks' pages: what each notebook of the suite calls to build its page.

Belongs here: the builder of each page (:mod:`.data_page` for notebook 01,
:mod:`.fit_page` 02, :mod:`.interval_page` 03, :mod:`.requirement_page`
04, :mod:`.design_page` 06 with its spares, repairs and swings in
:mod:`.design_supply`, :mod:`.straggler_page` 07, :mod:`.node_page` 09 (bad nodes and retirement); page 08 reads its
table with :mod:`relmodel.data.formats.lives` and says its verdict with :mod:`.covariate_page`), the setup call every page makes after its parameters cell
(:mod:`.page_setup`), and the blocks of pages 01-05 by their former shared
name (:mod:`.pages`).  Imported inside the notebooks' kernels.  May import
every other part of :mod:`relmodel.report` but :mod:`..render`, and every
lower layer.
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = []

__all__ = []
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
