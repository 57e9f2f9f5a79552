"""Fields of a Slurm ``sacct`` export: job ids, states, exit codes, times and durations.

The formats are those of Slurm's ``sacct`` manual page:

* **JobID**: ``1234`` (a job), ``1234_7`` (task 7 of array 1234),
  ``1234_[1-5]`` (array tasks still pending), ``1234+1`` (component of a
  heterogeneous job), each optionally followed by a step: ``.batch``,
  ``.extern``, ``.interactive`` or a step number (``.0``).
* **State**: the job state names (``COMPLETED``, ``NODE_FAIL``...) or their
  short codes (``CD``, ``NF``...); ``CANCELLED by 1234`` names the uid that
  cancelled; a trailing ``+`` (a state cut to the column width) is ignored.
* **ExitCode**: ``return code:signal``, e.g. ``1:0`` or ``0:9``.
* **Start / End**: ``YYYY-MM-DDTHH:MM:SS`` (the default
  ``SLURM_TIME_FORMAT=standard``; with a UTC offset such as ``+02:00`` on every
  time, read at that offset and given in UTC), Unix seconds
  (``SLURM_TIME_FORMAT=%s``), or any strftime format given as ``time_format``
  (which then wins, also for all-digit values); ``Unknown``, ``None`` and
  empty fields are missing (a job still running has ``End=Unknown``).
* **Elapsed**: ``[DD-]HH:MM:SS[.ffffff]`` or ``MM:SS[.ffffff]``.

:data:`STATES` is the one table of which end states interrupt a training
job; :data:`DEFAULT_STATES` the ones counted unless the caller says otherwise.
"""

import re

import numpy as np
import pandas as pd

from ...errors import SacctFormatError
from ..shaping.times import check_time_format

__all__ = ["STATES", "DEFAULT_STATES", "SHORT_STATES", "split_job_id", "parse_state", "parse_exit_code",
           "parse_times", "parse_elapsed"]

#: Job end states: (what it means for a training run, interrupts by default).
#: FAILED counts only with a non-zero exit code or a signal.
STATES = {
    "NODE_FAIL": ("node failure", True),
    "FAILED": ("job failed", True),
    "BOOT_FAIL": ("node boot failure", True),
    "OUT_OF_MEMORY": ("out of memory", False),
    "PREEMPTED": ("preempted", False),
    "REQUEUED": ("requeued", False),
    "TIMEOUT": ("time limit reached", False),
    "DEADLINE": ("deadline reached", False),
    "CANCELLED": ("cancelled", False),
    "COMPLETED": ("completed", False),
    "SPECIAL_EXIT": ("special exit", False),
    "REVOKED": ("revoked", False),
    "RUNNING": ("still running", False),
    "SUSPENDED": ("suspended", False),
    "STOPPED": ("stopped", False),
    "PENDING": ("never started", False),
    "REQUEUE_HOLD": ("requeued and held", False),
    "REQUEUE_FED": ("requeued by a federation", False),
    "RESV_DEL_HOLD": ("held: reservation deleted", False),
    "RESIZING": ("resizing", False),
    "COMPLETING": ("completing", False),
    "CONFIGURING": ("configuring", False),
    "SIGNALING": ("signalling", False),
    "STAGE_OUT": ("staging out", False),
}
DEFAULT_STATES = tuple(s for s, (_, counts) in STATES.items() if counts)
SHORT_STATES = {"NF": "NODE_FAIL", "F": "FAILED", "BF": "BOOT_FAIL", "OOM": "OUT_OF_MEMORY", "PR": "PREEMPTED",
                "RQ": "REQUEUED", "TO": "TIMEOUT", "DL": "DEADLINE", "CA": "CANCELLED", "CD": "COMPLETED",
                "SE": "SPECIAL_EXIT", "RV": "REVOKED", "R": "RUNNING", "S": "SUSPENDED", "ST": "STOPPED",
                "PD": "PENDING", "RH": "REQUEUE_HOLD", "RF": "REQUEUE_FED", "RD": "RESV_DEL_HOLD",
                "RS": "RESIZING", "CG": "COMPLETING", "CF": "CONFIGURING", "SI": "SIGNALING", "SO": "STAGE_OUT"}

_JOB_ID = re.compile(r"^(\d+)(?:_(\d+|\[[^\]]*\]))?(?:\+(\d+))?(?:\.([A-Za-z0-9_+-]+))?$")
_STATE = re.compile(r"^([A-Z_]+)\+?(?:\s+BY\s+(\d+))?$")
_EXIT = re.compile(r"^(\d+):(\d+)$")
_ELAPSED = re.compile(r"^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$")
MISSING = {"", "unknown", "none", "n/a"}


def _fail(label, line, field, value, valid):
    raise SacctFormatError(f"{label}, line {line}, field {field!r}: cannot read {value!r}; {valid}")


def split_job_id(value, label="sacct", line=None):
    """``(job id, array task or "", het component or "", step or "")`` of a JobID.

    Examples
    --------
    >>> split_job_id("1234_7.batch")
    ('1234', '7', '', 'batch')
    """
    m = _JOB_ID.match(value.strip())
    if not m:
        _fail(label, line, "JobID", value, "a job id is a number, optionally with _task, +component and "
              ".step (1234, 1234_7, 1234+1, 1234.batch)")
    return tuple(g or "" for g in m.groups())


def parse_state(value, label="sacct", line=None):
    """``(state, uid that cancelled or None)``, e.g. ``("CANCELLED", 1234)``."""
    m = _STATE.match(value.strip().upper())
    state = m and SHORT_STATES.get(m.group(1), m.group(1))
    if not m or state not in STATES:
        _fail(label, line, "State", value, "a Slurm job state such as COMPLETED, FAILED, NODE_FAIL, "
              "CANCELLED by 1234, TIMEOUT or PREEMPTED")
    return state, (int(m.group(2)) if m.group(2) else None)


#: The largest return code or signal read (Slurm stores them in 32 bits; anything longer is not an exit code).
MAX_CODE = 2 ** 32 - 1


def parse_exit_code(value, label="sacct", line=None):
    """``(return code, signal)``; ``(None, None)`` when the field is empty."""
    if value.strip().lower() in MISSING:
        return None, None
    m = _EXIT.match(value.strip())
    if not m:
        _fail(label, line, "ExitCode", value, "an exit code is return:signal, e.g. 0:0, 1:0 or 0:9")
    code, sig = int(m.group(1)), int(m.group(2))
    if code > MAX_CODE or sig > MAX_CODE:
        _fail(label, line, "ExitCode", value, f"a return code and a signal are each at most {MAX_CODE:,}")
    return code, sig


_OFFSET = re.compile(r"(?:Z|[+-]\d{2}:?\d{2})$")
def _iso_times(sub, lines, label, field):
    """ISO 8601 times, naive; times with a UTC offset (+02:00, Z) are read at that offset and given in UTC.
    A column mixing times with and without an offset is refused: the naive ones' zone is unknown."""
    offset = sub.str.contains(_OFFSET).to_numpy()
    if offset.any() and not offset.all():
        i = int(np.flatnonzero(~offset)[0] if offset[0] else np.flatnonzero(offset)[0])
        _fail(label, lines[i], field, sub.iloc[i], "the times of one export either all carry a UTC offset "
              "(2024-03-01T00:00:00+02:00) or none do; a mix cannot be put on one clock")
    if not offset.any():
        return pd.to_datetime(sub, format="ISO8601", errors="coerce")
    return pd.to_datetime(sub, format="ISO8601", errors="coerce", utc=True).dt.tz_localize(None)


def parse_elapsed(value, label="sacct", line=None):
    """Hours of an Elapsed field (``[DD-]HH:MM:SS`` or ``MM:SS``); NaN when missing.

    Examples
    --------
    >>> parse_elapsed("1-02:30:00"), parse_elapsed("30:00")
    (26.5, 0.5)
    """
    if value.strip().lower() in MISSING:
        return float("nan")
    m = _ELAPSED.match(value.strip())
    if not m:
        _fail(label, line, "Elapsed", value, "an elapsed time is [DD-]HH:MM:SS or MM:SS")
    d, h, mi, s = m.groups()
    hours_ = int(d or 0) * 24 + int(h or 0) + int(mi) / 60 + float(s) / 3600
    if not hours_ <= MAX_ELAPSED_H:  # pandas keeps times within about 292 years of 1970
        _fail(label, line, "Elapsed", value, f"an elapsed time is at most {MAX_ELAPSED_H:,} hours (100 years)")
    return hours_


#: The longest Elapsed field read, hours (100 years; a longer one is a corrupted field).
MAX_ELAPSED_H = 100 * 8766


def parse_times(values, lines, label, field, time_format=None):
    """Timestamps (naive, as sacct prints them) of a column; NaT where the field says missing."""
    text = pd.Series(values, dtype=object).astype(str).str.strip()
    missing = text.str.lower().isin(MISSING).to_numpy()
    out = pd.Series(pd.NaT, index=text.index, dtype="datetime64[ns]")
    given = ~missing
    if not given.any():
        return out, missing
    sub = text[given]
    digits = sub.str.fullmatch(r"\d{9,11}").to_numpy()
    if time_format is not None:
        check_time_format(time_format)  # a named error, not a raw regular-expression error
    if time_format in (None, "%s") and digits.all():  # SLURM_TIME_FORMAT=%s: Unix seconds, shown in UTC
        parsed = pd.to_datetime(sub.astype("int64"), unit="s")
    elif time_format:
        parsed = pd.to_datetime(sub, format=time_format, errors="coerce")
    else:
        parsed = _iso_times(sub, lines[given], label, field)
    bad = np.flatnonzero(parsed.isna().to_numpy())
    if bad.size:
        i = int(np.flatnonzero(given)[bad[0]])
        valid = (f"expected the format {time_format!r}" if time_format else
                 "use YYYY-MM-DDTHH:MM:SS (SLURM_TIME_FORMAT=standard), Unix seconds, Unknown, or give time_format")
        _fail(label, lines[i], field, text.iloc[i], valid)
    out[given] = parsed.to_numpy()
    return out, missing
