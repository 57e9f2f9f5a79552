"""Rules for the parameters that say what a log covers: its window and its unit.

``window`` is one duration ("54d": that long from the first outage) or a pair
``[t0, t1]`` in the form of the log's times; ``unit`` says what one row's node
is.  ``gpus_per_node=0`` says the log's units hold no GPUs: they are then
counted as "node"s and the planned job keeps 8 GPUs a node.  A bundled data
set has its own window and units.
"""

from ...errors import ParameterError
from ...base.escape import brief
from ...units import hours

__all__ = ["WINDOWS", "check_window", "non_gpu", "check_bundled"]

#: GPUs a node of the planned job holds when the log's units hold none (gpus_per_node=0).
_PLANNED_GPUS_PER_NODE = 8
#: Parameters holding an observation window: one duration, or a pair of times.
WINDOWS = ("window",)


def check_window(value):
    """A window is one duration > 0 ("54d", as text or a list of one) or a pair [t0, t1]; returns it as passed on."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, list):
        if len(value) == 2 and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
            return value
    elif isinstance(value, str) and _positive_hours(value):
        return value
    raise ParameterError(f"parameter 'window' = {brief(value)} is invalid: it must be a duration > 0 such as "
                         "'54d' (that long from the first outage), or [t0, t1], the start and end of "
                         "observation in the form of the log's times, e.g. ['2024-01-01', '2024-03-01'], or null")


def non_gpu(values, defaults, out):
    """gpus_per_node=0: the log's units hold no GPUs; the planned job keeps 8 GPUs a node."""
    if values.get("gpus_per_node") == 0:
        out["gpus_per_node"] = _PLANNED_GPUS_PER_NODE
        if "unit" in (defaults or {}) and values.get("unit") in (None, "gpu-node"):
            out["unit"] = "node"


def _positive_hours(text):
    try:
        return 0 < hours(text) <= 100_000
    except (ValueError, TypeError):
        return False


def check_bundled(merged):
    """A bundled data set has its own window and its own units."""
    from ...data.bundled.datasets import NAMES
    log = merged.get("log")
    if not isinstance(log, str) or log.lower() not in NAMES:
        return
    if merged.get("syslog") is not None:
        raise ParameterError(f"parameter 'syslog': a kernel log is joined to a Slurm export; the bundled data set "
                             f"{log!r} is not one (give 'log' the sacct -P export of the run, with format 'sacct')")
    for name, unset in (("window", None), ("unit", "gpu-node")):
        if merged.get(name, unset) != unset:
            raise ParameterError(f"parameter {name!r}: the bundled data set {log!r} has its own {name}; give "
                                 f"'log' a file path to set {name} (or leave it out)")
