"""Progress of long library loops, for whoever shows it (base layer; library code never prints).

A long loop (a bootstrap, a Monte Carlo run, a grid) asks for a step function
and calls it as it goes::

    with progress.steps("bootstrap of the weibull fit", total=n_boot) as step:
        for _ in range(n_boot):
            ...
            step()

With nobody listening, ``step`` is a function that does nothing.  An
application that wants to show progress (the ``relmodel`` command draws a bar
on stderr) listens for a block::

    with progress.listen(callback):
        relmodel.stats.compare_fits(x, n_boot=100_000)

``callback`` gets an :class:`Update` at most every :data:`EVERY_S` seconds
while a loop runs, and once when it ends (``finished=True``, also after an
error or Ctrl-C).  Listening is per thread and per asyncio task (a
``contextvars`` variable), so a listener in one place never sees another's
loops.  A loop inside another loop reports on its own.

Ctrl-C: every loop that reports here runs steps of well under a second of work
between calls, so ``KeyboardInterrupt`` reaches it at once.
"""

import contextlib
import contextvars
import time
from dataclasses import dataclass

__all__ = ["EVERY_S", "Update", "steps", "listen", "listening"]

#: Least seconds between two updates of one loop.
EVERY_S = 0.1

_LISTENER = contextvars.ContextVar("relmodel_progress_listener", default=None)


@dataclass(frozen=True)
class Update:
    """Where a loop is: ``done`` of ``total`` steps (``total`` None when unknown) after ``elapsed_s``."""

    label: str
    done: int
    total: int
    elapsed_s: float
    finished: bool = False

    @property
    def fraction(self):
        """Share of the steps done (0 to 1), or None without a total."""
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    @property
    def remaining_s(self):
        """Seconds left at the pace so far, or None before the first step or without a total."""
        if not self.total or self.done <= 0:
            return None
        return self.elapsed_s * (self.total - self.done) / self.done


def _ignore(n=1):
    return None


def listening():
    """True when a listener is in place here (a loop may skip its bookkeeping otherwise)."""
    return _LISTENER.get() is not None


@contextlib.contextmanager
def listen(callback):
    """Send every loop's :class:`Update` in this block to ``callback`` (a function of one argument)."""
    if not callable(callback):
        from ..errors import InputTypeError
        raise InputTypeError(f"a progress listener must be a function of one Update, got {type(callback).__name__}")
    token = _LISTENER.set(callback)
    try:
        yield
    finally:
        _LISTENER.reset(token)


@contextlib.contextmanager
def steps(label, total=None):
    """A step function for a loop of ``total`` steps named ``label``; call ``step(n=1)`` after each.

    Examples
    --------
    >>> seen = []
    >>> with listen(seen.append):
    ...     with steps("counting", total=3) as step:
    ...         for _ in range(3):
    ...             step()
    >>> seen[-1].done, seen[-1].total, seen[-1].finished
    (3, 3, True)
    """
    callback = _LISTENER.get()
    if callback is None:
        yield _ignore
        return
    total = None if total is None else int(total)
    start = time.monotonic()
    state = {"done": 0, "last": start}

    def step(n=1):
        state["done"] += n
        now = time.monotonic()
        if now - state["last"] >= EVERY_S:
            state["last"] = now
            callback(Update(label, state["done"], total, now - start))

    callback(Update(label, 0, total, 0.0))
    try:
        yield step
    finally:
        callback(Update(label, state["done"], total, time.monotonic() - start, finished=True))
