"""One argument order for every checkpoint and requirement function, and a check for swapped calls.

Durations come in the order ``work, interval, mtbf`` (or ``failures``),
``ckpt_cost, restart``, each present only where a function needs it, under
these names everywhere.  Two durations swapped by mistake still give a
plausible number, so :func:`check_order` warns (an
:class:`~relmodel.errors.ArgumentOrderWarning` naming the order) when the
values look swapped: a checkpoint cost at or above the MTBF, a restart or an
interval longer than the whole run.
"""

import warnings

import numpy as np

from ..errors import ArgumentOrderWarning

__all__ = ["check_order"]


def _big(a, b):
    """True where some element of ``a`` is at or above the matching element of ``b``."""
    if a is None or b is None:
        return False
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.asarray(a, dtype=float) >= np.asarray(b, dtype=float)))


def check_order(signature, *, work=None, interval=None, mtbf=None, ckpt_cost=None, restart=None,
                stacklevel=3):
    """Warn when hours-valued arguments look swapped; ``signature`` is shown in the message.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     check_order("young_interval(mtbf, ckpt_cost)", mtbf=0.0125, ckpt_cost=3.0)
    >>> print(str(w[0].message)[:60])
    ckpt_cost (3 h) is at or above mtbf (45 s): the arguments ma
    """
    problems = []
    if _big(ckpt_cost, mtbf) and np.any(np.asarray(ckpt_cost, dtype=float) > 0):
        problems.append(f"ckpt_cost ({_show(ckpt_cost)}) is at or above mtbf ({_show(mtbf)})")
    if restart is not None and work is not None and _big(restart, work) and np.any(np.asarray(restart) > 0):
        problems.append(f"restart ({_show(restart)}) is longer than the whole run, work ({_show(work)})")
    if interval is not None and work is not None and np.any(np.asarray(interval, dtype=float)
                                                           > np.asarray(work, dtype=float) * (1 + 1e-12)):
        problems.append(f"interval ({_show(interval)}) is longer than the whole run, work ({_show(work)})")
    if problems:
        warnings.warn("; ".join(problems) + f": the arguments may be swapped. The order is {signature} "
                      "(durations in the order work, interval, mtbf, ckpt_cost, restart since relmodel 0.2.0)",
                      ArgumentOrderWarning, stacklevel=stacklevel)


def _show(x):
    from ..tables import duration
    a = np.asarray(x, dtype=float)
    return duration(float(a)) if a.ndim == 0 else f"up to {duration(float(np.nanmax(a)))}"
