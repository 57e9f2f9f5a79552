"""Imported by the fork server of relmodel's process pools: the workers' preload, done once.

Importing this module defers jsonschema's IRI checker and imports what the
execute step runs on (:func:`.worker_start.preload_execute`); every worker
forked from the fork server then starts with both done.
"""

from .worker_start import defer_iri_grammar, preload_execute

__all__ = []

defer_iri_grammar()
preload_execute()
__import__('gc').collect()
__import__('gc').freeze()
