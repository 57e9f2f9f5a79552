"""The one table of defaults that the API, the CLI and the notebooks share.

Base layer: imports nothing from relmodel.  Every function, CLI option and
notebook parameter that has a default for one of these names takes it from
:data:`DEFAULTS` (the notebooks' parameters cells hold the same literals; a
test checks they match).

========================  ===========  ==========================================
name                      default      meaning
========================  ===========  ==========================================
``restart``               ``"10min"``  detect a failure, reschedule, reload, catch up
``ckpt_cost``             ``"1min"``   time the job stalls to write one checkpoint
``target_ettr``           ``0.9``      share of wall time spent on useful training
``gpus_per_node``         ``8``        GPUs per server
``n_gpus``                ``16384``    GPUs in the job (Llama 3's size)
========================  ===========  ==========================================

The 10-minute restart and 1-minute checkpoint are planning assumptions, not
measurements: change them for your system.

Examples
--------
>>> from relmodel.defaults import DEFAULTS, RESTART, CKPT_COST
>>> DEFAULTS["restart"], RESTART, CKPT_COST
('10min', '10min', '1min')
"""

from types import MappingProxyType

__all__ = ["DEFAULTS", "RESTART", "CKPT_COST", "TARGET_ETTR", "GPUS_PER_NODE", "N_GPUS"]

RESTART = "10min"
CKPT_COST = "1min"
TARGET_ETTR = 0.9
GPUS_PER_NODE = 8
N_GPUS = 16384

DEFAULTS = MappingProxyType({
    "restart": RESTART,
    "ckpt_cost": CKPT_COST,
    "target_ettr": TARGET_ETTR,
    "gpus_per_node": GPUS_PER_NODE,
    "n_gpus": N_GPUS,
})
