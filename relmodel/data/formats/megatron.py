"""Megatron-LM training logs: the per-iteration elapsed time of its log lines as a step log."""

import re
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import EmptyDataError, NotARegularFileError, TimeRangeError
from .steps import read_steps

__all__ = ["read_megatron"]


_MEGATRON = re.compile(r"iteration\s+(\d+)\s*/\s*(\d+)\s*\|.*?elapsed time per iteration \(ms\):\s*([0-9.eE+-]+|[A-Za-z]+)")


def _megatron_ms(match, text, name):
    """The time of one iteration line in ms; an error naming the line when it is not a finite number."""
    try:
        ms = float(match.group(3))
    except ValueError:
        ms = float("nan")
    if not np.isfinite(ms):
        line = text.count("\n", 0, match.start()) + 1
        raise TimeRangeError(f"{name}, line {line}: elapsed time per iteration {match.group(3)!r} is not a finite "
                             "number of milliseconds; each iteration line needs a time such as 1234.5")
    return ms


def read_megatron(path_or_text, *, name=None):
    r"""Job-level step times from a Megatron-LM style training log.

    Lines like ``iteration 100/ 500000 | ... | elapsed time per iteration (ms): 1234.5 | ...``
    become one step each (the line's iteration number), on a single rank ``"job"``.
    Other lines are ignored; an iteration logged twice (a run resumed from a
    checkpoint) keeps its last time.  Accepts a path or the log text itself.

    Times in the log are milliseconds; the :class:`StepLog` holds them in hours.

    Examples
    --------
    >>> text = ("iteration 1/ 10 | elapsed time per iteration (ms): 1200.0 |\n"
    ...         "iteration 2/ 10 | elapsed time per iteration (ms): 1300.5 |\n")
    >>> log = read_megatron(text)
    >>> log, log.steps.tolist()
    (StepLog(megatron log: 2 steps x 1 ranks), [1, 2])
    >>> (log.times_h[:, 0] * 3600).round(4).tolist()    # back to seconds
    [1.2, 1.3005]
    """
    text = str(path_or_text)
    if "\n" not in text and Path(text).is_dir():
        raise NotARegularFileError(f"{text}: a folder, not a Megatron log file; give the log file")
    if "\n" not in text and Path(text).exists():
        name = name or Path(text).name
        text = Path(text).read_text(encoding="utf-8", errors="replace")
    name = name or "megatron log"
    rows = [(int(m.group(1)), _megatron_ms(m, text, name)) for m in _MEGATRON.finditer(text)]
    if not rows:
        raise EmptyDataError(f"{name}: no 'iteration N/ M | ... elapsed time per iteration (ms): X' lines")
    frame = pd.DataFrame(rows, columns=["step", "ms"])
    frame = frame.drop_duplicates("step", keep="last")  # a resumed run logs its iterations again
    frame["rank"] = "job"
    return read_steps(frame, step="step", rank="rank", duration="ms", time_unit="ms", name=name)
