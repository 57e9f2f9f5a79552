"""Failure processes a training job can be simulated against.

Each source draws the job's failure times for many replicas at once with
numpy.  Two kinds exist:

* renewal sources (:class:`ExponentialFailures`, :class:`RenewalFailures`):
  the gaps between job failures are independent draws, so the simulator
  asks for a ``(rows, k)`` matrix of gaps at a time (``gaps``);
* timeline sources (:class:`NodeRenewals`, :class:`LogReplay`): failure
  times up to a horizon, as a ``(replicas, k)`` matrix padded with ``inf``
  (``times``).

:func:`as_failure_source` turns what a user passes as ``failures`` into one
of these: a number or duration string is the job MTBF (exponential); an
object with ``mean_h`` and ``sample(n, rng)`` or a vectorised ``ppf`` (a
fitted distribution such as :class:`relmodel.stats.lifetimes.fitting.FitResult`) is the
distribution of the time between job failures; an object with ``events``
and ``window_h`` (an :class:`relmodel.InterruptionLog`) is replayed; a count
table (counts only, such as the Llama 3 table) gives exponential failures at
its job MTBF.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import ModelInputError
from ..tables import duration
from ..units import hours

__all__ = [
    "ExponentialFailures", "RenewalFailures", "NodeRenewals", "LogReplay", "Rescaled", "as_failure_source",
]


def _draw(fit, rng, shape):
    """Draws of ``shape`` from a fitted distribution, with a NaN/negative guard.

    Uses ``fit.sample(n, rng)`` when the object has it (scipy's ``rvs`` is
    several times faster than its generic ``ppf``), else ``fit.ppf`` of
    uniform numbers.
    """
    n = int(np.prod(shape))
    if hasattr(fit, "sample"):
        x = np.asarray(fit.sample(n, rng), dtype=float).reshape(shape)
    else:
        x = np.asarray(fit.ppf(rng.random(n)), dtype=float).reshape(shape)
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ModelInputError("the failure distribution's sample/ppf returned negative, infinite or NaN times")
    return x


def _mean_h(fit):
    m = float(getattr(fit, "mean_h", np.nan))
    if not np.isfinite(m) or m <= 0:
        raise ModelInputError(f"a failure distribution needs a positive, finite mean_h; got {m!r}")
    return m


@dataclass(frozen=True)
class ExponentialFailures:
    """Job failures as a Poisson process with mean time between failures ``mtbf_h``."""

    mtbf_h: float

    kind = "renewal"

    @property
    def mean_h(self):
        return self.mtbf_h

    def gaps(self, rng, rows, k):
        return rng.exponential(self.mtbf_h, size=(rows, k))

    def describe(self):
        return f"exponential, MTBF {duration(self.mtbf_h)}"


@dataclass(frozen=True)
class RenewalFailures:
    """Times between job failures drawn independently from a fitted distribution.

    ``fit`` needs ``mean_h`` and ``sample(n, rng)`` or a vectorised
    ``ppf(q)``.  The job is a renewal process: the first failure is one draw after the start, and the
    clock renews at each failure (as it would for a job whose failures come
    from one component that is replaced).
    """

    fit: object

    kind = "renewal"

    @property
    def mean_h(self):
        return _mean_h(self.fit)

    def gaps(self, rng, rows, k):
        return _draw(self.fit, rng, (rows, k))

    def describe(self):
        name = getattr(self.fit, "name", None) or getattr(self.fit, "family", type(self.fit).__name__)
        return f"renewal, {name}, mean {duration(self.mean_h, digits=3)}"


@dataclass(frozen=True)
class NodeRenewals:
    """``n_nodes`` nodes, each renewing with up times drawn from ``fit``.

    The job fails whenever any node fails (the superposition of the nodes'
    renewal processes).  A failed node is replaced at once (the replacement
    time is part of the restart) and starts a fresh up time; the other nodes
    keep their age.  Nodes are new ``warmup_h`` hours before the job starts
    (default 0: all new at the start); a long warm-up approaches the steady
    state of an aged fleet.
    """

    fit: object
    n_nodes: int
    warmup_h: float = 0.0

    kind = "timeline"

    def __post_init__(self):
        if int(self.n_nodes) != self.n_nodes or self.n_nodes < 1:
            raise ModelInputError(f"n_nodes must be a positive whole number; got {self.n_nodes!r}")
        object.__setattr__(self, "warmup_h", float(hours(self.warmup_h)))
        if not np.isfinite(self.warmup_h) or self.warmup_h < 0:
            raise ModelInputError(f"warmup_h must be zero or more hours; got {self.warmup_h!r}")

    @property
    def mean_h(self):
        """Long-run job MTBF: node mean up time / number of nodes."""
        return _mean_h(self.fit) / self.n_nodes

    def times(self, rng, replicas, horizon):
        n = int(self.n_nodes)
        t = _draw(self.fit, rng, (replicas * n,)) - self.warmup_h
        cell = np.arange(t.size)  # replica * n + node, for the nodes still inside the horizon
        rows, found = [], []
        for _ in range(100_000):
            inside = t <= horizon
            if not inside.any():
                break
            cell, t = cell[inside], t[inside]
            keep = t >= 0  # renewals during the warm-up are not job failures
            rows.append(cell[keep] // n)
            found.append(t[keep])
            t = t + _draw(self.fit, rng, (t.size,))
        else:
            raise ModelInputError("node up times are too short to simulate (over 100,000 renewals per node)")
        return _ragged_to_matrix(np.concatenate(rows or [np.empty(0, int)]),
                                 np.concatenate(found or [np.empty(0)]), replicas)

    def describe(self):
        return f"{self.n_nodes} renewing nodes, job MTBF about {self.mean_h:.4g} h"


def _ragged_to_matrix(rows, values, replicas):
    """Sort (row, value) pairs into a (replicas, kmax) matrix padded with inf."""
    order = np.argsort(rows, kind="stable")  # integer keys: a radix sort
    rows, values = rows[order], values[order]
    counts = np.bincount(rows, minlength=replicas)
    out = np.full((replicas, max(int(counts.max(initial=0)), 1)), np.inf)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    col = np.arange(rows.size) - start[rows]
    out[rows, col] = values
    out.sort(axis=1)  # inf padding stays at the end
    return out


@dataclass(frozen=True)
class LogReplay:
    """Replay the interruptions of a real log, from a random point of its window.

    Each replica starts at an offset drawn uniformly in the log's window and
    sees the log's interruption start times from there, wrapping around to
    the beginning (the log repeats) when the run outlasts the window.
    ``fraction`` keeps each interruption with that probability (a job that
    spans part of the logged cluster); ``include_planned=False`` drops the
    rows the log marks as planned.  Interruptions that start together (one
    outage hitting several nodes) count as several failures but cost one
    restart, as the later ones strike at the very start of that restart.
    """

    log: object
    fraction: float = 1.0
    include_planned: bool = True

    kind = "timeline"

    def __post_init__(self):
        if not 0 < self.fraction <= 1:
            raise ModelInputError(f"fraction must be in (0, 1]; got {self.fraction!r}")
        if self._starts().size == 0:
            raise ModelInputError("the log holds no interruptions to replay")

    def _starts(self):
        ev = self.log.events
        if not self.include_planned and "planned" in ev:
            ev = ev[~ev["planned"].astype(bool)]
        t0, _ = self.log.window_h
        return np.sort(np.asarray(ev["start_h"], dtype=float) - float(t0))

    @property
    def period_h(self):
        t0, t1 = self.log.window_h
        return float(t1) - float(t0)

    @property
    def mean_h(self):
        return self.period_h / (self._starts().size * self.fraction)

    def times(self, rng, replicas, horizon):
        s, w = self._starts(), self.period_h
        n = s.size
        off = rng.random(replicas) * w
        first = np.searchsorted(s, off)
        # most events any window of length `horizon` can hold: whole periods plus the
        # busiest stretch of the remainder
        whole, rem = divmod(horizon, w)
        busiest = np.searchsorted(np.concatenate([s, s + w]), s + rem, side="right") - np.arange(n)
        k = int(whole) * n + int(busiest.max()) + 1
        j = first[:, None] + np.arange(k)[None, :]
        t = s[j % n] + (j // n) * w - off[:, None]
        t[t > horizon] = np.inf
        if self.fraction < 1:
            t[rng.random(t.shape) >= self.fraction] = np.inf
            t.sort(axis=1)
        return t

    def describe(self):
        return f"replay of {getattr(self.log, 'name', 'a log')}, job MTBF about {self.mean_h:.4g} h"


@dataclass(frozen=True)
class Rescaled:
    """A fitted distribution stretched in time to a new mean (same shape).

    Used to move a distribution of times between failures fitted at one
    cluster size to another: if the failure rate grows k-fold, every time
    shrinks k-fold, which keeps e.g. a Weibull shape and divides its scale.
    Has ``mean_h``, ``sample`` and ``ppf`` like a FitResult.
    """

    fit: object
    mean_h: float

    def __post_init__(self):
        m = float(hours(self.mean_h))
        if not np.isfinite(m) or m <= 0:
            raise ModelInputError(f"mean_h must be a positive duration; got {self.mean_h!r}")
        object.__setattr__(self, "mean_h", m)

    @property
    def factor(self):
        return self.mean_h / _mean_h(self.fit)

    @property
    def name(self):
        return f"{getattr(self.fit, 'name', getattr(self.fit, 'family', 'fit'))} rescaled"

    def ppf(self, q):
        return self.factor * np.asarray(self.fit.ppf(q), dtype=float)

    def sample(self, n, rng=None):
        return self.factor * _draw(self.fit, np.random.default_rng(rng), (int(n),))


def as_failure_source(failures):
    """Turn the ``failures`` argument of the simulator into a source object."""
    if isinstance(failures, (ExponentialFailures, RenewalFailures, NodeRenewals, LogReplay)):
        return failures
    if hasattr(failures, "events") and hasattr(failures, "window_h"):
        return LogReplay(failures)
    if hasattr(failures, "counts") and hasattr(failures, "duration_h"):  # a CountTable: counts only
        from ..stats.rates import component_rates
        df = component_rates(failures, per="job")
        return ExponentialFailures(float(df.loc[df["component"] == "Total", "mtbf_h"].iloc[0]))
    if hasattr(failures, "ppf") or hasattr(failures, "sample"):
        _mean_h(failures)
        return RenewalFailures(failures)
    try:
        m = hours(failures)
    except Exception as exc:
        raise ModelInputError(
            "failures must be a job MTBF (hours or a duration such as '3h'), a fitted distribution "
            "with sample or ppf and mean_h, NodeRenewals, or an interruption log; "
            f"got {type(failures).__name__}") from exc
    if np.ndim(m) or not np.isfinite(m) or m <= 0:
        raise ModelInputError(f"the job MTBF must be one positive, finite duration; got {failures!r}")
    return ExponentialFailures(float(m))
