"""Report parameters are data, never code: how their values are read and ruled.

Belongs here: values read as YAML 1.2 plain data and nothing else
(:mod:`.yaml12`), the value rules every parameter is checked against before
any kernel starts (:mod:`.rules`; a log's window and unit in
:mod:`.source_rules`), and a notebook's cells read straight from its JSON
(:mod:`.notebook_json`).  May import the lower layers (planning,
statistics, data) and the base; no other part of :mod:`relmodel.report`.
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = []

__all__ = []
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
