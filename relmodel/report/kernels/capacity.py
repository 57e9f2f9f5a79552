"""How many notebooks a report runs at once: what was asked, clamped to what this machine can hold.

Every notebook that runs at once has a kernel of its own (about 150 MB once
it has run the default report's notebooks, see ``bench/bench_memory.py``)
and the working set of its notebook, and keeps a core busy. So a worker
count is clamped to the cores this process may run on and to the memory
available now (the machine's ``MemAvailable``, or a cgroup's limit when that
is lower), at :data:`WORKER_BYTES` per worker; a report never starts more
workers than it has notebooks either (see :mod:`.executors`).
"""

import numbers
import os
from dataclasses import dataclass
from pathlib import Path

from ...errors import ParameterError

__all__ = ["Workers", "usable_workers", "cores", "available_memory", "WORKER_BYTES"]

#: Memory set aside for each worker that runs a notebook: its kernel and the notebook's working set.
WORKER_BYTES = 400 * 10**6


def cores():
    """The cores this process may run on (its CPU affinity where the system says, else the CPU count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _meminfo():
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup():
    """What a cgroup v2 memory limit leaves (None without one)."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit == "max":
            return None
        return int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text())
    except (OSError, ValueError):
        return None


def available_memory():
    """Bytes of memory available to new processes now, or None where the system does not say."""
    known = [v for v in (_meminfo(), _cgroup()) if v is not None]
    return max(0, min(known)) if known else None


@dataclass(frozen=True)
class Workers:
    """A worker count: ``count`` to run, ``asked`` (None: as many as fit) and the limit that bound it."""

    count: int
    asked: object
    limit: str

    @property
    def clamped(self):
        """True when fewer workers run than were asked for."""
        return self.asked is not None and self.count < self.asked

    def text(self, option="--jobs"):
        """One sentence for a person: what was asked, what runs and why."""
        return f"{option} {self.asked:,} is more than this machine can use; running {self.count:,} notebooks at once ({self.limit})"


def usable_workers(jobs=None, name="jobs"):
    """The :class:`Workers` to run for ``jobs`` asked (None: one per core that memory allows).

    Raises :class:`~relmodel.errors.ParameterError` for anything but a whole
    number from 1 (``name`` is the argument's name in the message).
    """
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs < 1):
        raise ParameterError(f"{name} must be a whole number of workers from 1; got {jobs!r}")
    n_cores = cores()
    limits = [(n_cores, f"{n_cores:,} core{'s' if n_cores != 1 else ''}")]
    memory = available_memory()
    if memory is not None:
        fit = max(1, memory // WORKER_BYTES)
        limits.append((fit, f"{memory / 1e9:,.1f} GB of memory available, {WORKER_BYTES // 10**6:,} MB per worker"))
    count, limit = min(limits, key=lambda item: item[0])
    if jobs is not None and jobs <= count:
        return Workers(int(jobs), int(jobs), "as asked")
    return Workers(count, None if jobs is None else int(jobs), limit)
