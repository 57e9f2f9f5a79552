"""Folder safety: what a report run may write and ask for.

Belongs here: report folders marked as relmodel's, replaced atomically and
written without truncated files (:mod:`.folders`), a file-size limit
(``ulimit -f``) met during a render turned into one named error
(:mod:`.file_limit`), and the bounds on what a run may ask for: Dask
addresses and sweep lengths (:mod:`.limits`).  May import the base
(errors, escaping) only; no other part of :mod:`relmodel.report`.

Also here: :mod:`.ownership` (Which files of a report folder relmodel wrote: the only ones ``--force`` may remove).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = []

__all__ = []
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
