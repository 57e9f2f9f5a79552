"""A cost budget for Monte Carlo, bootstrap and grid work (base layer).

Every function that takes a run count, bootstrap size, grid size or combination
count estimates its cost before it starts and calls :func:`check_cost`, which
raises :class:`~relmodel.errors.BudgetError` (a ``ResourceLimitError``) when the
estimate is above the budget, naming the estimate, the budget and how to raise it.

The budget is two numbers:

* ``work``: elementary steps (random draws, likelihood terms, grid points times
  the work of one point); default 2e9, about a minute of numpy on one core;
* ``memory``: bytes of the largest array the request needs; default 2 GiB.

Raise them for one block with ``with budget(work=1e11): ...``, for a process with
:func:`set_budget`, or from the environment with ``RELMODEL_WORK_BUDGET`` and
``RELMODEL_MEMORY_BUDGET`` (read when relmodel is imported).

:func:`count` checks a count argument itself (a whole number in range, not a
bool, not NaN, not a float with a fraction).
"""

import math
import numbers
import os

from .errors import BudgetError, CountError
from .base.escape import brief

__all__ = ["DEFAULT_WORK", "DEFAULT_MEMORY", "budget", "set_budget", "current_budget", "check_cost", "count",
           "seed_value", "runs_within"]

#: Default budget of elementary steps.
DEFAULT_WORK = 2e9
#: Default budget of memory, bytes.
DEFAULT_MEMORY = 2 * 2**30


def _env(name, default):
    """The budget the environment variable ``name`` sets, or ``default`` when it is unset.

    A value that is not a positive, finite number (``lots``, ``-1``, ``inf``) is not replaced silently:
    :class:`~relmodel.errors.BudgetWarning` names the variable, what it holds and the default used.
    """
    text = os.environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if value > 0 and math.isfinite(value):
        return value
    import warnings

    from .errors import BudgetWarning
    warnings.warn(BudgetWarning(f"{name}={brief(text)} is not a positive number, so relmodel uses its default "
                                f"budget of {default:.3g} {'bytes' if 'MEMORY' in name else 'steps'}; set {name} "
                                "to a number such as 5e9, or unset it"), stacklevel=2)
    return default


_BUDGET = {"work": _env("RELMODEL_WORK_BUDGET", DEFAULT_WORK),
           "memory": _env("RELMODEL_MEMORY_BUDGET", DEFAULT_MEMORY)}


def current_budget():
    """The budget in force: ``{"work": steps, "memory": bytes}``."""
    return dict(_BUDGET)


def set_budget(work=None, memory=None):
    """Set the budget for this process (None keeps a value); returns the previous one."""
    previous = current_budget()
    for key, value in (("work", work), ("memory", memory)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
                raise BudgetError(f"a {key} budget must be a positive number, got {brief(value)}")
            _BUDGET[key] = float(value)
    return previous


class budget:
    """Context manager: another budget inside the block, the old one after it."""

    def __init__(self, work=None, memory=None):
        self.work, self.memory = work, memory

    def __enter__(self):
        self.previous = set_budget(self.work, self.memory)
        return current_budget()

    def __exit__(self, *exc):
        _BUDGET.update(self.previous)
        return False


def _bytes(n):
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n:,.0f} bytes"


def check_cost(what, work=0.0, memory=0.0, hint="ask for fewer"):
    """Raise BudgetError when ``work`` steps or ``memory`` bytes exceed the budget.

    ``what`` names the request (``"compare_fits(n_boot=1,000,000,000)"``);
    ``hint`` says how to ask for less.

    Examples
    --------
    >>> check_cost("a small bootstrap", work=1e6)
    >>> check_cost("a huge bootstrap", work=1e15)
    Traceback (most recent call last):
    ...
    relmodel.errors.BudgetError: a huge bootstrap would take about 1e+15 steps, above the budget of 2e+09; ...
    """
    work, memory = float(work), float(memory)
    if not math.isfinite(work) or work > _BUDGET["work"]:
        shown = f"{work:.3g}" if math.isfinite(work) else "unbounded"
        raise BudgetError(f"{what} would take about {shown} steps, above the budget of {_BUDGET['work']:.3g}; "
                          f"{hint}, or raise the budget with relmodel.budget_guard.budget(work=...) "
                          "or RELMODEL_WORK_BUDGET")
    if not math.isfinite(memory) or memory > _BUDGET["memory"]:
        shown = _bytes(memory) if math.isfinite(memory) else "unbounded memory"
        raise BudgetError(f"{what} would need about {shown}, above the memory budget of "
                          f"{_bytes(_BUDGET['memory'])}; {hint}, or raise the budget with "
                          "relmodel.budget_guard.budget(memory=...) or RELMODEL_MEMORY_BUDGET")


def count(name, value, lo=0, hi=None):
    """``value`` as an int from ``lo`` to ``hi``; CountError saying what is valid otherwise.

    Examples
    --------
    >>> count("n_boot", 200), count("n_boot", 200.0)
    (200, 200)
    """
    valid = f"a whole number from {lo:,}" + (f" to {hi:,}" if hi is not None else " or more")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise CountError(f"{name} must be {valid}, got {brief(value)}")
    if isinstance(value, numbers.Integral):
        value = int(value)
    else:
        if not math.isfinite(value) or value != int(value):
            raise CountError(f"{name} must be {valid}, got {brief(value)}")
        value = int(value)
    if value < lo or (hi is not None and value > hi):
        raise CountError(f"{name} must be {valid}, got {brief(value)}")
    return value


def seed_value(value, name="seed"):
    """``value`` when it is None or a whole number of 0 or more (what numpy seeds with); CountError otherwise.

    Examples
    --------
    >>> seed_value(7), seed_value(None)
    (7, None)
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise CountError(f"{name} must be a whole number of 0 or more, or None; got {brief(value)}")
    return int(value)


def runs_within(n_runs, per_run, limit, least=1):
    """``n_runs``, or the most runs (at least ``least``) whose ``per_run`` items each stay within ``limit``.

    For simulations whose cost grows with the events inside each run: at a
    million GPUs one run holds thousands of repairs, and a few hundred runs
    already give the printed digits.

    Examples
    --------
    >>> runs_within(10_000, 4.8, 10_000, least=100), runs_within(500, 79_920, 2e7), runs_within(5, 1e12, 10)
    (2083, 250, 1)
    """
    n_runs = int(n_runs)
    if not per_run > 0 or per_run * n_runs <= limit:
        return n_runs
    return int(max(least, min(n_runs, float(limit) // per_run)))

