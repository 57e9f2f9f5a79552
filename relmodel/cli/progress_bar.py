"""The command line's progress bars on stderr for long library loops (see :mod:`relmodel.base.progress`).

tqdm draws them.  A loop is drawn only when it is worth it: once it has run
:data:`SHOW_AFTER_S` seconds and, at its pace so far, would take
:data:`SHOW_IF_TOTAL_S` seconds or more in all; quick loops leave stderr
untouched.  Bars are drawn on a terminal only, as wide as it is and wiped when
their loop ends (a loop inside another gets its own line); piped or redirected
stderr gets nothing, so logs and error lines stay clean.  The time shown, and
the time left at the pace so far, are the loop's own (:class:`~relmodel.base.progress.Update`).
"""

import functools
import shutil
import sys

__all__ = ["SHOW_AFTER_S", "SHOW_IF_TOTAL_S", "Bar"]

#: Seconds a loop runs before its bar can appear.
SHOW_AFTER_S = 1.0
#: Estimated total seconds from which a bar is shown.
SHOW_IF_TOTAL_S = 2.0


@functools.cache
def _loop_bar():
    """tqdm's bar with the loop's own clock (``elapsed_s`` of its updates) in place of tqdm's; tqdm is imported
    when the first bar is drawn."""
    from tqdm import tqdm

    class LoopBar(tqdm):
        elapsed_s = 0.0

        @property
        def format_dict(self):
            return {**super().format_dict, "elapsed": self.elapsed_s}

    return LoopBar


class Bar:
    """A listener (for :func:`relmodel.base.progress.listen`) drawing bars on ``stream`` (default stderr)."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.bars = {}  # loop label -> its tqdm bar, while it is drawn

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
        bar = self.bars.get(update.label)
        if update.finished:
            if bar is not None:
                del self.bars[update.label]
                bar.close()
            return
        if bar is None:
            if not (self._terminal() and self._worth_it(update)):
                return
            size = shutil.get_terminal_size((80, 24))  # a terminal that reports 0 x 0 (a bare pty) gets 80 x 24
            bar = self.bars[update.label] = _loop_bar()(total=update.total, desc=update.label, file=self.stream,
                                                        leave=False, unit="step", ncols=max(20, size.columns - 1),
                                                        nrows=max(2, size.lines), smoothing=0, mininterval=0)
        bar.n, bar.elapsed_s = update.done, update.elapsed_s
        bar.refresh()
