"""The presentation blocks every report page and the pipeline share.

Belongs here: numbers, durations and tables formatted for people
(:mod:`.present`, which keeps the presentation rules of
:mod:`relmodel.report`), the HTML every page shares (:mod:`.markup`), alt
text for a page's figures (:mod:`.alt_text`), the note of a notebook that
stopped at a failing cell (:mod:`.failures`) and the scripts a page loads
from the network (:mod:`.page_scripts`), the index's sentences on which nodes to pull
(:mod:`.node_words`) and on the four decisions and what swings them (:mod:`.decision_words`).  May import the base (formatting,
escaping) only; no other part of :mod:`relmodel.report`.
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = []

__all__ = []
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
