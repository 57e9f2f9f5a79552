"""Checkpoint strategies: one protocol for synchronous, asynchronous, two-level and law-aware checkpointing.

A strategy holds how a job checkpoints (its costs and restarts) and answers
the same four questions about any job MTBF, under the same names:

* ``.ettr(interval, mtbf)``: the useful fraction of wall time;
* ``.optimal_interval(mtbf)``: the best interval, hours;
* ``.breakdown(work, interval, mtbf)``: where the expected hours go, a
  :class:`~relmodel.checkpoint.TimeBreakdown`;
* ``.simulate(work, interval, failures, n_runs=..., seed=...)``: simulated
  runs (:func:`~relmodel.checkpoint.simulate_training`), where the
  simulator models the scheme;

and ``describe()`` says the strategy in words.  The classes call the
functions of :mod:`relmodel.checkpoint.intervals`,
:mod:`relmodel.checkpoint.multilevel`, :mod:`relmodel.checkpoint.search` and
:mod:`relmodel.checkpoint.simulate` (each class names them), so their
numbers are those functions' numbers, bit for bit.

One ETTR model with options, not three.  The three exponential models are
one model of Daly (2006) with more moving parts, and reduce to each other:

* Asynchronous with ``persist`` 0 is Synchronous with ``ckpt_cost`` equal to
  the stall: the same formula arranged differently, equal to about 1e-15
  relative (within 1e-12 everywhere tested, though not bit for bit).  With
  the interval at least the persist, Asynchronous is Synchronous with the
  persist added to the restart.
* TwoLevel with ``fast_fraction`` 0 and k = 1 (every checkpoint slow) is
  Synchronous with the slow cost and the slow restart; with ``fast_fraction``
  1 and equal costs it is Synchronous with that cost and the fast restart,
  for any k.  The two-level recursion solves a linear system whose 1 - β
  loses digits when a failure within one segment is likely, so these agree
  to 1e-14 absolute everywhere but relatively only to 1e-13 while
  (τ + δ)/M <= 5 and 1e-11 while (τ + δ)/M <= 10; the two-level ETTR is 0
  once Daly's falls below about 1e-15 ((τ + δ)/M about 35).  Its optimum
  with ``fast_fraction`` 0 is k = 1 at Daly's interval to the optimiser's
  tolerance (found numerically, so not bit for bit).
* LawAware with an exponential law simulates Synchronous; its answers agree
  with Synchronous within their simulation error.  Only it and Synchronous
  simulate: the simulator models synchronous writes only, so
  ``Asynchronous.simulate`` and ``TwoLevel.simulate`` raise
  :class:`~relmodel.errors.ModelInputError` rather than simulate another
  scheme.

Every constructor takes ``scenario=`` (:class:`relmodel.scenario.Scenario`):
its ``ckpt_cost`` is the checkpoint's stall (Synchronous's and LawAware's
``ckpt_cost``, Asynchronous's ``stall``, TwoLevel's ``slow_cost``) and its
``restart`` the restart (TwoLevel's ``slow_restart``); a value given
explicitly wins.

Examples
--------
>>> from relmodel.checkpoint import Synchronous, Asynchronous
>>> sync = Synchronous("45s", restart="10min")
>>> round(float(sync.optimal_interval("3h")), 4), round(float(sync.ettr(sync.optimal_interval("3h"), "3h")), 4)
(0.2656, 0.8622)
>>> sync
Synchronous(ckpt_cost=45 s, restart=10 min)
>>> round(float(Asynchronous("5s", persist="2min", restart="10min").ettr("20min", "3h")), 4)
0.8806
"""

import numpy as np

from ..defaults import RESTART
from ..errors import DurationError, ModelInputError
from ..scenario import takes_scenario
from ..tables import duration
from ..units import hours
from .breakdown import TimeBreakdown
from .intervals import _as, ettr, optimal_interval, time_breakdown
from .multilevel import (async_breakdown, async_ettr, async_optimal_interval, two_level_breakdown, two_level_ettr,
                         two_level_optimum)

__all__ = ["Strategy", "Synchronous", "Asynchronous", "TwoLevel", "LawAware"]


def _hours(**given):
    """The durations ``given`` in hours (arrays allowed), in order; a ModelInputError naming a bad one."""
    out = []
    for name, x in given.items():
        try:
            out.append(x if x is None else hours(x))
        except (DurationError, TypeError, ValueError) as exc:
            raise ModelInputError(f"{name} must be a duration (hours, a string such as '3h', or an array of "
                                  f"hours); got {x!r:.60}") from exc
    return out


def _duration(name, x, positive=False):
    """One finite duration in hours (zero allowed unless ``positive``); a ModelInputError naming ``name``."""
    v, = _hours(**{name: x})
    if np.ndim(v) or not np.isfinite(v) or v < 0 or (positive and v == 0):
        raise ModelInputError(f"{name} must be one finite duration, {'positive' if positive else 'zero or more'}; "
                              f"got {x!r}")
    return float(v)


class Strategy:
    """A way to checkpoint: ETTR, optimal interval, breakdown and simulation under one protocol.

    Subclasses set the methods; ``simulate`` refuses here (the simulator
    models synchronous checkpoints only) and :class:`Synchronous` and
    :class:`LawAware` override it.  Intervals and MTBFs are durations;
    results are fractions (ETTR) and hours.
    """

    #: (attribute, constructor argument) shown by ``repr``; durations are shown as durations.
    _shown = ()

    def ettr(self, interval, mtbf):
        """Useful fraction of wall time at ``interval`` (a duration) for job MTBF ``mtbf``."""
        raise NotImplementedError

    def optimal_interval(self, mtbf):
        """Interval maximising :meth:`ettr` for job MTBF ``mtbf``, hours."""
        raise NotImplementedError

    def breakdown(self, work, interval, mtbf):
        """Expected hours of a run of ``work`` hours of compute, by where they go (a TimeBreakdown)."""
        raise NotImplementedError

    def simulate(self, work, interval, failures_or_mtbf, *, n_runs=1000, seed=None):
        """Simulated runs; only where :func:`~relmodel.checkpoint.simulate_training` models the scheme."""
        raise ModelInputError(
            f"{type(self).__name__}.simulate: simulate_training models synchronous checkpoints only (the job "
            f"stalls for each write and a failure falls back to the last write); it does not simulate "
            f"{self._scheme}. Use .breakdown (exact for exponential failures) or Synchronous(...).simulate for a "
            "synchronous approximation")

    def describe(self):
        """The strategy in words."""
        raise NotImplementedError

    def __repr__(self):
        parts = []
        for attr, arg in self._shown:
            v = getattr(self, attr)
            parts.append(f"{arg}={duration(v) if attr.endswith('_h') else repr(v)}")
        return f"{type(self).__name__}({', '.join(parts)})"


class Synchronous(Strategy):
    """Synchronous checkpoints (Daly 2006): the job stalls ``ckpt_cost`` per write; failures exponential.

    ``ckpt_cost`` δ and ``restart`` R (default 10 min) are durations.  Calls
    :func:`~relmodel.checkpoint.ettr`, :func:`~relmodel.checkpoint.optimal_interval`,
    :func:`~relmodel.checkpoint.time_breakdown` and
    :func:`~relmodel.checkpoint.simulate_training`; vectorised over intervals and MTBFs.

    Examples
    --------
    >>> s = Synchronous("45s", "10min")
    >>> b = s.breakdown("54d", s.optimal_interval("3h"), "3h")
    >>> round(float(b.wall_h) / 24, 2), round(float(b.ettr), 4)
    (62.63, 0.8622)
    >>> s.describe()
    'synchronous checkpoints: the job stalls 45 s per write; restart 10 min'
    """

    _scheme = "synchronous checkpoints"
    _shown = (("ckpt_cost_h", "ckpt_cost"), ("restart_h", "restart"))

    @takes_scenario(ckpt_cost="ckpt_cost", restart="restart")
    def __init__(self, ckpt_cost, restart=RESTART):
        self.ckpt_cost_h = _duration("ckpt_cost", ckpt_cost)
        self.restart_h = _duration("restart", restart)

    def ettr(self, interval, mtbf):
        """Daly's exact ETTR τ / (M e^{R/M} (e^{(τ+δ)/M} − 1)), a fraction; durations in."""
        interval, mtbf = _hours(interval=interval, mtbf=mtbf)
        return ettr(interval, mtbf, self.ckpt_cost_h, self.restart_h)

    def optimal_interval(self, mtbf):
        """Daly's exact optimum (Lambert W), hours; it does not depend on the restart."""
        mtbf, = _hours(mtbf=mtbf)
        return optimal_interval(mtbf, self.ckpt_cost_h)

    def breakdown(self, work, interval, mtbf):
        """:func:`~relmodel.checkpoint.time_breakdown` of ``work`` hours of compute, hours by destination."""
        work, interval, mtbf = _hours(work=work, interval=interval, mtbf=mtbf)
        return time_breakdown(work, interval, mtbf, self.ckpt_cost_h, self.restart_h)

    def simulate(self, work, interval, failures_or_mtbf, *, n_runs=1000, seed=None):
        """:func:`~relmodel.checkpoint.simulate_training` with this strategy's costs; any failure law it takes."""
        from .simulate import simulate_training  # not at import: the closed forms load without scipy.stats
        return simulate_training(work, interval, failures_or_mtbf, self.ckpt_cost_h, self.restart_h, n_runs=n_runs,
                                 seed=seed)

    def describe(self):
        return (f"synchronous checkpoints: the job stalls {duration(self.ckpt_cost_h)} per write; "
                f"restart {duration(self.restart_h)}")


class Asynchronous(Strategy):
    """Asynchronous checkpoints: a ``stall`` for the snapshot, then a background ``persist`` (exponential failures).

    ``stall`` δ_b, ``persist`` P and ``restart`` R (default 10 min) are
    durations; the model is in :mod:`relmodel.checkpoint.multilevel` (the
    functions' ``ckpt_cost`` is the stall).  Calls
    :func:`~relmodel.checkpoint.async_ettr`,
    :func:`~relmodel.checkpoint.async_optimal_interval` and
    :func:`~relmodel.checkpoint.async_breakdown`; not simulated.

    Examples
    --------
    >>> a = Asynchronous("5s", "2min", "10min")
    >>> round(float(a.optimal_interval("3h")) * 60, 2)    # minutes
    5.42
    >>> a.describe()
    'asynchronous checkpoints: the job stalls 5 s per snapshot, then persists it in 2 min in the background; restart 10 min'
    """

    _scheme = "asynchronous writes (a background persist)"
    _shown = (("stall_h", "stall"), ("persist_h", "persist"), ("restart_h", "restart"))

    @takes_scenario(stall="ckpt_cost", restart="restart")
    def __init__(self, stall, persist, restart=RESTART):
        self.stall_h = _duration("stall", stall)
        self.persist_h = _duration("persist", persist)
        self.restart_h = _duration("restart", restart)

    def ettr(self, interval, mtbf):
        """τ / (M (e^{(max(τ,P) + δ_b)/M} - 1) e^{(R + min(τ,P))/M}), a fraction; durations in."""
        interval, mtbf = _hours(interval=interval, mtbf=mtbf)
        return async_ettr(interval, mtbf, self.stall_h, self.persist_h, self.restart_h)

    def optimal_interval(self, mtbf):
        """The best of Daly's optimum with the stall, the persist and the MTBF, hours."""
        mtbf, = _hours(mtbf=mtbf)
        if self.stall_h == 0:
            raise ModelInputError("stall must be positive for an optimal interval: with no stall the ETTR "
                                  "grows as the interval shrinks to the persist")
        return async_optimal_interval(mtbf, self.stall_h, self.persist_h, self.restart_h)

    def breakdown(self, work, interval, mtbf):
        """:func:`~relmodel.checkpoint.async_breakdown`: hours of compute, stalls, lost work and restarts."""
        work, interval, mtbf = _hours(work=work, interval=interval, mtbf=mtbf)
        return async_breakdown(work, interval, mtbf, self.stall_h, self.persist_h, self.restart_h)

    def describe(self):
        return (f"asynchronous checkpoints: the job stalls {duration(self.stall_h)} per snapshot, then persists "
                f"it in {duration(self.persist_h)} in the background; restart {duration(self.restart_h)}")


class TwoLevel(Strategy):
    """Two-level checkpoints: fast writes, every k-th to slow storage; a fraction of failures recover fast.

    ``fast_cost`` δ_1, ``slow_cost`` δ_2, ``fast_restart`` R_1 and
    ``slow_restart`` R_2 (both 10 min by default) are durations;
    ``fast_fraction`` f is the fraction of failures the fast level recovers.
    The ``interval`` of the protocol is the slow interval k τ (compute
    between slow checkpoints), so ``ettr(optimal_interval(M), M)`` is the
    plan's ETTR; ``k`` (fast checkpoints per slow one) defaults to the
    optimal plan's k at that MTBF (:meth:`plan`,
    :func:`~relmodel.checkpoint.two_level_optimum`, searched with
    ``k_max`` and ``patience``; one MTBF at a time).  Not simulated.

    Examples
    --------
    >>> t = TwoLevel("5s", "2min", 0.8, "2min", "10min")
    >>> plan = t.plan("3h")
    >>> plan.k, round(t.optimal_interval("3h") * 60, 1), round(float(t.ettr(t.optimal_interval("3h"), "3h")), 4)
    (10, 57.2, 0.8915)
    """

    _scheme = "two levels of checkpoints"
    _shown = (("fast_cost_h", "fast_cost"), ("slow_cost_h", "slow_cost"), ("fast_fraction", "fast_fraction"),
              ("fast_restart_h", "fast_restart"), ("slow_restart_h", "slow_restart"))

    @takes_scenario(slow_cost="ckpt_cost", slow_restart="restart")
    def __init__(self, fast_cost, slow_cost, fast_fraction, fast_restart=RESTART, slow_restart=RESTART, *,
                 k_max=1000, patience=8):
        self.fast_cost_h = _duration("fast_cost", fast_cost)
        self.slow_cost_h = _duration("slow_cost", slow_cost)
        try:
            f = float(fast_fraction)
        except (TypeError, ValueError):
            f = np.nan
        if isinstance(fast_fraction, bool) or not 0.0 <= f <= 1.0:
            raise ModelInputError(f"fast_fraction must be a fraction from 0 to 1; got {fast_fraction!r}")
        self.fast_fraction = f
        self.fast_restart_h = _duration("fast_restart", fast_restart)
        self.slow_restart_h = _duration("slow_restart", slow_restart)
        self.k_max, self.patience = k_max, patience
        self._plans = {}

    def plan(self, mtbf):
        """The optimal (τ, k) at job MTBF ``mtbf`` (one duration), a :class:`~relmodel.checkpoint.multilevel.TwoLevelPlan`."""
        if np.ndim(_as("mtbf", _hours(mtbf=mtbf)[0], True)):
            raise ModelInputError("mtbf must be one duration for a two-level plan (give k= for an array of MTBFs)")
        m = _duration("mtbf", mtbf, positive=True)
        if m not in self._plans:
            self._plans[m] = two_level_optimum(m, self.fast_cost_h, self.slow_cost_h, self.fast_restart_h,
                                               self.slow_restart_h, fast_fraction=self.fast_fraction,
                                               k_max=self.k_max, patience=self.patience)
        return self._plans[m]

    def optimal_interval(self, mtbf):
        """The slow interval k τ of the optimal plan, hours (:meth:`plan` has τ, k and the ETTR)."""
        return self.plan(mtbf).slow_interval_h

    def _fast(self, interval, mtbf, k):
        if k is None:
            k = self.plan(mtbf).k
        elif isinstance(k, bool) or int(k) != k or k < 1:
            raise ModelInputError(f"k (fast checkpoints per slow one) must be a whole number >= 1; got {k!r}")
        return _as("interval", interval, True) / int(k), int(k)

    def ettr(self, interval, mtbf, *, k=None):
        """:func:`~relmodel.checkpoint.two_level_ettr` with slow interval ``interval`` = k τ, a fraction."""
        interval, mtbf = _hours(interval=interval, mtbf=mtbf)
        tau, k = self._fast(interval, mtbf, k)
        return two_level_ettr(tau, mtbf, self.fast_cost_h, self.slow_cost_h, self.fast_restart_h,
                              self.slow_restart_h, k=k, fast_fraction=self.fast_fraction)

    def breakdown(self, work, interval, mtbf, *, k=None):
        """:func:`~relmodel.checkpoint.two_level_breakdown`, hours; its ``interval_h`` is the fast interval τ."""
        work, interval, mtbf = _hours(work=work, interval=interval, mtbf=mtbf)
        tau, k = self._fast(interval, mtbf, k)
        return two_level_breakdown(work, tau, mtbf, self.fast_cost_h, self.slow_cost_h, self.fast_restart_h,
                                   self.slow_restart_h, k=k, fast_fraction=self.fast_fraction)

    def describe(self):
        return (f"two-level checkpoints: fast writes stall {duration(self.fast_cost_h)} and restart in "
                f"{duration(self.fast_restart_h)} for {self.fast_fraction:.0%} of failures; slow writes stall "
                f"{duration(self.slow_cost_h)} and restart in {duration(self.slow_restart_h)}")


class LawAware(Strategy):
    """Synchronous checkpoints under any failure law, by simulation (:func:`~relmodel.checkpoint.best_interval`).

    ``failures_law`` is anything :func:`~relmodel.checkpoint.simulate_training`
    takes (a fitted distribution, ``NodeRenewals``, a log, or an MTBF);
    ``ckpt_cost`` and ``restart`` (default 10 min) are durations.  The
    law fixes the MTBF: the ``mtbf`` argument of the protocol may be left
    out (None) or must equal the law's mean.  ETTRs are simulated with
    ``n_runs`` runs of ``work`` hours (default 300 times the mean time
    between failures, as :func:`best_interval` uses) and ``seed``; the same
    seed gives the same numbers.

    Examples
    --------
    >>> law = LawAware("3h", "45s", "10min", n_runs=200, seed=1)    # an exponential law: Daly's answer, simulated
    >>> bool(abs(law.ettr("16min") - 0.8622) < 0.01)
    True
    """

    _scheme = "simulated synchronous checkpoints"
    _shown = (("source", "failures_law"), ("ckpt_cost_h", "ckpt_cost"), ("restart_h", "restart"),
              ("n_runs", "n_runs"), ("seed", "seed"))

    @takes_scenario(ckpt_cost="ckpt_cost", restart="restart")
    def __init__(self, failures_law, ckpt_cost, restart=RESTART, *, n_runs=2000, seed=None, work=None):
        from .sources import as_failure_source
        self.failures_law = failures_law
        self.ckpt_cost_h = _duration("ckpt_cost", ckpt_cost)
        self.restart_h = _duration("restart", restart)
        if isinstance(n_runs, bool) or not isinstance(n_runs, (int, np.integer)) or n_runs < 2:
            raise ModelInputError(f"n_runs must be a whole number of 2 or more; got {n_runs!r}")
        self.n_runs, self.seed = int(n_runs), seed
        src = as_failure_source(failures_law)
        self.mtbf_h, self.source = src.mean_h, src.describe()
        self.work_h = 300 * self.mtbf_h if work is None else _duration("work", work, positive=True)
        self._search = None

    def _check(self, mtbf):
        if mtbf is not None:
            m = _duration("mtbf", mtbf, positive=True)
            if not abs(m - self.mtbf_h) <= 1e-9 * self.mtbf_h:
                raise ModelInputError(f"mtbf is fixed by the failure law ({self.source}): leave it out or give "
                                      f"{self.mtbf_h:.6g} h; got {mtbf!r}")

    def ettr(self, interval, mtbf=None):
        """Simulated ETTR at ``interval`` (a duration, or an array: one simulation each), a fraction."""
        interval, = _hours(interval=interval)
        self._check(mtbf)
        t = _as("interval", interval, True)
        out = np.array([self.simulate(self.work_h, float(x), n_runs=self.n_runs, seed=self.seed).ettr
                        for x in np.ravel(t)])
        return out.reshape(np.shape(t))[()]

    def search(self):
        """:func:`~relmodel.checkpoint.best_interval` for the law (an IntervalSearch; hours), computed once."""
        if self._search is None:
            from .search import best_interval
            self._search = best_interval(self.failures_law, self.ckpt_cost_h, self.restart_h, work=self.work_h,
                                         n_runs=self.n_runs, seed=self.seed)
        return self._search

    def optimal_interval(self, mtbf=None):
        """The simulated best periodic interval, hours (:meth:`search` has the curve and the exponential answer)."""
        self._check(mtbf)
        if self.ckpt_cost_h == 0:
            raise ModelInputError("ckpt_cost must be positive for an optimal interval")
        return self.search().interval_h

    def breakdown(self, work, interval, mtbf=None):
        """Mean hours of simulated runs by destination, a TimeBreakdown (work / wall is the simulated ETTR)."""
        work, interval = _hours(work=work, interval=interval)
        self._check(mtbf)
        s = self.simulate(work, interval, n_runs=self.n_runs, seed=self.seed)
        return TimeBreakdown(
            work_h=s.work_h, interval_h=s.interval_h, mtbf_h=s.mtbf_h, ckpt_cost_h=s.ckpt_cost_h,
            restart_h=s.restart_h, wall_h=float(np.mean(s.wall_h)), checkpoint_h=s.checkpoint_h,
            lost_h=float(np.mean(s.lost_h)), restart_time_h=float(np.mean(s.restart_time_h)),
            failures=float(np.mean(s.failures)))

    def simulate(self, work, interval, failures_or_mtbf=None, *, n_runs=None, seed=None):
        """:func:`~relmodel.checkpoint.simulate_training` under the law (or ``failures_or_mtbf``); runs and
        seed default to the strategy's."""
        from .simulate import simulate_training
        law = self.failures_law if failures_or_mtbf is None else failures_or_mtbf
        return simulate_training(work, interval, law, self.ckpt_cost_h, self.restart_h,
                                 n_runs=self.n_runs if n_runs is None else n_runs,
                                 seed=self.seed if seed is None else seed)

    def describe(self):
        return (f"synchronous checkpoints under {self.source} failures, simulated ({self.n_runs:,} runs): "
                f"the job stalls {duration(self.ckpt_cost_h)} per write; restart {duration(self.restart_h)}")
