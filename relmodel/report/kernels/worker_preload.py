"""Imported by the fork server of relmodel's process pools: the workers' preload, done once.

Importing this module defers jsonschema's IRI checker and imports what the
execute step runs on (:func:`.worker_start.preload_execute`); every worker
forked from the fork server then starts with both done.
"""

import gc

from .worker_start import defer_iri_grammar, preload_execute

__all__ = []

defer_iri_grammar()
preload_execute()
gc.collect()
gc.freeze()  # what the workers forked from here share stays shared (see .zygote_main._preload)
