"""The kernels: how the report's notebooks are executed.

Belongs here: the kernel the notebooks run on, with robust message polling
(:mod:`.kernel`), warm kernels reused across the notebooks of a run
(:mod:`.pool`, and :mod:`.kernel_state` inside the kernel), kernels forked
from a process that has already imported the report's modules
(:mod:`.zygote`, :mod:`.zygote_main`), how a process-pool worker starts
(:mod:`.worker_start`, :mod:`.worker_preload`), the executors and a clean
stop on Ctrl-C or SIGTERM (:mod:`.executors`, :mod:`.interrupts`), the
Papermill engine (:mod:`.engine`), the data source shared by the pages of
one render (:mod:`.source_cache`), and the in-kernel API a notebook hands
its numbers and figures to (:mod:`.records`).  May import
:mod:`..safety`, :mod:`..blocks`, the data layer and the base; never the
pipeline or the pages.

Also here: :mod:`.capacity` (How many notebooks a report runs at once: what was asked, clamped to what this machine can hold); :mod:`.sockets` (Where the report's sockets live: a folder whose paths fit in a Unix socket address); :mod:`.stale` (temporary folders of killed reports, found by their owner record and removed); :mod:`.config_dirs` (IPython's and matplotlib's folders when the home folder cannot hold them).
"""

from ...base import lazy as _lazy

#: (module, names) this package re-exports, each module imported the first time one of its names is used.
EXPORTS = [(".records", "key_figure record recorded")]

__all__ = ["key_figure", "record", "recorded"]
__getattr__, __dir__ = _lazy.face(__name__, EXPORTS)
