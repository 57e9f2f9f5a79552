"""The command line's progress bar on stderr for long library loops (see :mod:`relmodel.base.progress`).

A loop is drawn only when it is worth it: once it has run :data:`SHOW_AFTER_S`
seconds and, at its pace so far, would take :data:`SHOW_IF_TOTAL_S` seconds or
more in all; quick loops leave stderr untouched.  The bar is drawn on a
terminal only (with ``\\r``, on one line, wiped when the loop ends); piped or
redirected stderr gets nothing, so logs and error lines stay clean.
"""

import shutil
import sys

__all__ = ["SHOW_AFTER_S", "SHOW_IF_TOTAL_S", "Bar", "line"]

#: Seconds a loop runs before its bar can appear.
SHOW_AFTER_S = 1.0
#: Estimated total seconds from which a bar is shown.
SHOW_IF_TOTAL_S = 2.0


def line(update, width=80):
    """One line for ``update``: label, bar, share, steps and time left, at most ``width`` characters.

    Examples
    --------
    >>> from relmodel.base.progress import Update
    >>> line(Update("bootstrap of the weibull fit", 500, 2000, 3.0), width=90)
    'bootstrap of the weibull fit [######-----------------]  25.0% 500 of 2,000, about 9 s left'
    """
    from ..tables import count, duration, pct  # pandas: loaded with the first bar, not at start-up

    if update.fraction is None:
        return f"{update.label}: {count(update.done)} steps, {duration(update.elapsed_s / 3600)}"[:width]
    left = update.remaining_s
    tail = f" {pct(update.fraction):>6} {count(update.done)} of {count(update.total)}"
    if left is not None:
        tail += f", about {duration(round(left) / 3600)} left"
    room = max(10, min(24, width - len(update.label) - len(tail) - 3))
    filled = int(round(room * update.fraction))
    return f"{update.label} [{'#' * filled}{'-' * (room - filled)}]{tail}"[:width]


class Bar:
    """A listener (for :func:`relmodel.base.progress.listen`) drawing a bar on ``stream`` (default stderr)."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.drawn = 0

    def _terminal(self):
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):
            return False

    def _worth_it(self, update):
        if update.elapsed_s < SHOW_AFTER_S:
            return False
        left = update.remaining_s
        return left is None or update.elapsed_s + left >= SHOW_IF_TOTAL_S

    def __call__(self, update):
        if not self._terminal():
            return
        if update.finished:
            self._wipe()
            return
        if not (self.drawn or self._worth_it(update)):
            return
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        text = line(update, width)
        self.stream.write("\r" + text.ljust(self.drawn))
        self.stream.flush()
        self.drawn = max(self.drawn, len(text))

    def _wipe(self):
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.stream.flush()
            self.drawn = 0
