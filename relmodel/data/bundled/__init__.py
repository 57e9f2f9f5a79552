"""Bundled data: the data sets that ship with relmodel and published rates.

Belongs here: the bundled and public failure datasets (:mod:`.datasets`),
published interruption rates of GPU fleets and HPC systems
(:mod:`.fleets`), and the Titan GPU lifetimes (:mod:`.titan`).  May import
:mod:`..shaping` and the base.
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".", "datasets")]

__all__ = ["datasets"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
