"""The one table of defaults that the API, the CLI and the notebooks share.

Base layer: read from :class:`relmodel.scenario.Scenario`'s fields, the one
place a planning default is written.  Every function, CLI option and
notebook parameter that has a default for one of these names takes it from
there (the notebooks' parameters cells hold the same literals; a test checks
they match).  ``restart`` here is the assumption taken when the log gives no
restart to measure (the scenario's ``restart`` is None: measured first).

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

from .scenario import ASSUMED_RESTART, Scenario

__all__ = ["DEFAULTS", "RESTART", "CKPT_COST", "TARGET_ETTR", "GPUS_PER_NODE", "N_GPUS"]

RESTART = ASSUMED_RESTART
CKPT_COST = Scenario.field("ckpt_cost").default
TARGET_ETTR = Scenario.field("target_ettr").default
GPUS_PER_NODE = 8  # when neither the data nor the scenario say (Scenario.gpus_per_node None)
N_GPUS = Scenario.field("n_gpus").default

DEFAULTS = MappingProxyType({
    "restart": RESTART,
    "ckpt_cost": CKPT_COST,
    "target_ettr": TARGET_ETTR,
    "gpus_per_node": GPUS_PER_NODE,
    "n_gpus": N_GPUS,
})
