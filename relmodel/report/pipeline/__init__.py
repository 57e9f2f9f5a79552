"""The report pipeline: its steps, one file each, called once each in order.

The steps: :mod:`.parse` (values a user passes), :mod:`.validate` (each
value against the notebooks' declared parameters, :mod:`.params`),
:mod:`.plan`, :mod:`.execute`, :mod:`.store`, :mod:`.summarise`
(summary.json and the answer sentences, with :mod:`.ranges` for the words of a
range and :mod:`.headline` for the headline, the designs' figures and the fleet's) and :mod:`.index` (each run's
index page).  :mod:`.run` drives execute, store, summarise and index for
any plan; :mod:`.sweep` and :mod:`.sweep_page` write a swept plan's
comparison page; :mod:`.provenance` says where a report came from.
:mod:`.html` and :mod:`.summary` keep names importable at their former
homes.  May import :mod:`..kernels`, :mod:`..blocks`,
:mod:`..parameters`, :mod:`..safety` and every lower layer; never the
notebooks' pages.

Also here: :mod:`.input_rules` (Rules that read what the user's files hold, checked before any kernel starts).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".html", "fmt"), (".plan", "NOTEBOOK_DIR find_notebooks"), (".run", "Report")]

__all__ = ["fmt", "NOTEBOOK_DIR", "find_notebooks", "Report"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
