"""Best periodic checkpoint interval for any failure process, by simulation.

The closed forms assume exponential failures.  Real logs often show a
decreasing hazard (Weibull shape below 1): failures cluster, e.g. soon after
a restart.  :func:`best_interval` finds the periodic interval that maximises
the simulated ETTR for any failure source the simulator accepts (a fitted
distribution, renewing nodes, a replayed log) and sets it beside the
exponential answer with the same mean time between failures.

Method: the simulated ETTR is evaluated on a log-spaced grid of intervals
around the exponential optimum, all with the same seed (common random
numbers, which makes the curve smooth in τ); a parabola in log τ through the
best grid point and its neighbours locates the maximum; the ETTR there and
at the exponential optimum are then re-simulated with a fresh seed and more
replicas, so the reported values and intervals are not biased by the search.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..scenario import takes_scenario
from ..defaults import RESTART
from ..errors import ModelInputError, NoProgressError, PrecisionWarning
from .costs import cost_hours
from .intervals import _ettr, _optimal
from .order import check_order
from .simulate import simulate_training
from .sources import as_failure_source
from ..units import hours
from ..tables import Result, duration, number
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps

__all__ = ["best_interval", "IntervalSearch"]


@dataclass(frozen=True)
class IntervalSearch(Result):
    """Simulated best interval next to the exponential answer.

    ``curve`` holds the search grid (interval_h, ettr, lo, hi); an interval at which a simulated job
    would almost never finish a segment is refused before simulating and has ettr, lo and hi 0.  ``ettr``
    and ``exp_interval_sim_ettr`` come from independent confirmation runs
    with 99% intervals.
    """

    interval_h: float
    ettr: float
    ettr_lo: float
    ettr_hi: float
    exp_interval_h: float
    exp_ettr: float
    exp_interval_sim_ettr: float
    exp_interval_sim_lo: float
    exp_interval_sim_hi: float
    mtbf_h: float
    ckpt_cost_h: float
    restart_h: float
    source: str
    curve: pd.DataFrame
    resolution: float = None  # the printed step the confirmation runs were sized to (None: fixed sizes)
    n_runs_best: int = None  # runs of the confirmation at the simulated best
    n_runs_exp: int = None  # runs of the confirmation at the exponential optimum
    precise: bool = None  # both 99% intervals within half the printed step (None: not sized)

    def to_frame(self):
        """Two rows: the simulated best interval and the exponential optimum.

        ``ettr_if_exponential`` is what Daly's exponential model predicts at
        that interval with the same mean time between failures.
        """
        return pd.DataFrame([
            {"interval": "simulated best", "interval_h": self.interval_h, "ettr_sim": self.ettr,
             "ettr_lo": self.ettr_lo, "ettr_hi": self.ettr_hi,
             "ettr_if_exponential": float(_ettr(self.interval_h, self.mtbf_h, self.ckpt_cost_h, self.restart_h))},
            {"interval": "exponential optimum", "interval_h": self.exp_interval_h,
             "ettr_sim": self.exp_interval_sim_ettr, "ettr_lo": self.exp_interval_sim_lo,
             "ettr_hi": self.exp_interval_sim_hi, "ettr_if_exponential": self.exp_ettr},
        ])

    def text(self):
        """The simulated best interval next to the exponential answer."""
        return (f"Best periodic interval by simulation ({self.source}; mean time between failures "
                f"{duration(self.mtbf_h)}): {duration(self.interval_h)}, ETTR {number(self.ettr, 4)} (99% interval "
                f"{number(self.ettr_lo, 4)} to {number(self.ettr_hi, 4)}); the exponential optimum "
                f"{duration(self.exp_interval_h)} gives {number(self.exp_interval_sim_ettr, 4)} when simulated.")


def _sim_ettr(work, tau, d, r, src, replicas, seed):
    s = simulate_training(work, tau, src, d, r, n_runs=replicas, seed=seed)
    lo, hi = s.ettr_ci(0.99)
    return s.ettr, lo, hi


def _grid_ettr(work, tau, d, r, src, replicas, seed):
    """``(ettr, lo, hi, no_progress)`` at one grid interval; an interval at which the job would almost never
    finish a segment (:class:`~relmodel.errors.NoProgressError`, refused before any draw) has ETTR 0 there."""
    try:
        return _sim_ettr(work, tau, d, r, src, replicas, seed) + (False,)
    except NoProgressError:
        return 0.0, 0.0, 0.0, True


def _confirm(work, tau, d, r, src, cap, seed, resolution):
    """``(ettr, lo, hi, runs, precise)`` at ``tau``: ``cap`` runs, or as few as the printed step needs."""
    if resolution is None:
        return _sim_ettr(work, tau, d, r, src, cap, seed) + (cap, None)
    import warnings

    from .precision import simulate_to_precision
    with warnings.catch_warnings(record=True) as caught:  # the cap reached: said by ``precise``
        warnings.simplefilter("always", PrecisionWarning)
        s = simulate_to_precision(work, tau, src, d, r, resolution=resolution, conf=0.99, first=min(200, cap),
                                  max_runs=cap, seed=seed)
    lo, hi = s.ettr_ci(0.99)
    return s.ettr, lo, hi, s.n_runs, not any(issubclass(w.category, PrecisionWarning) for w in caught)


def _parabola_peak(x, y, i):
    """Vertex of the parabola through points i-1, i, i+1 (x in log space), clipped to them."""
    if i == 0 or i == len(x) - 1:
        return x[i]
    a = np.polyfit(x[i - 1:i + 2], y[i - 1:i + 2], 2)
    if a[0] >= 0:
        return x[i]
    return float(np.clip(-a[1] / (2 * a[0]), x[i - 1], x[i + 1]))


@takes_scenario(ckpt_cost="ckpt_cost", restart="restart")
def best_interval(failures, ckpt_cost, restart=RESTART, *, work=None, n_runs=2000, seed=None, grid=21,
                  span=6.0, confirm_n_runs=None, resolution=None):
    """Simulated best periodic checkpoint interval for ``failures``.

    Parameters
    ----------
    failures
        Anything :func:`relmodel.simulate_training` accepts.
    ckpt_cost, restart : duration
        Checkpoint cost and restart time (default 10 min).
    work : duration, optional
        Work per simulated run; default 300 times the mean time between
        failures, so each run sees a few hundred failures.
    n_runs, seed
        Simulated runs per grid point and the seed shared by the grid (None:
        fresh entropy, drawn once and shared by every grid point).
    grid, span
        Number of intervals, log-spaced from τ_exp/span to τ_exp*span.
    confirm_n_runs
        Runs of the two confirmation simulations (default 4 x n_runs).
    resolution
        The step the ETTR is printed in (0.001 for a percentage with one
        decimal).  When given, each confirmation simulation runs
        (:func:`relmodel.checkpoint.simulate_to_precision`) only until its 99% interval
        is narrower than half that step, with ``confirm_n_runs`` as the cap;
        ``precise`` says whether both got there.  The grid keeps ``n_runs``
        per interval, so its common random numbers compare the intervals.

    Returns an :class:`IntervalSearch`; intervals in hours.

    Examples
    --------
    For exponential failures the simulated best sits near Daly's exact optimum (0.2656 h):

    >>> res = best_interval("3h", "45s", "10min", n_runs=200, grid=7, work="300h", seed=1)
    >>> round(res.exp_interval_h, 4), 0.15 < res.interval_h < 0.45
    (0.2656, True)
    """
    src = as_failure_source(failures)
    d, r = cost_hours(ckpt_cost, name="ckpt_cost"), cost_hours(restart, name="restart")
    if not (np.isfinite(d) and d > 0):
        raise ModelInputError(f"ckpt_cost must be a positive duration; got {ckpt_cost!r}")
    if int(grid) != grid or grid < 3 or not span > 1:
        raise ModelInputError("grid must be a whole number >= 3 and span greater than 1")
    if resolution is not None and not (isinstance(resolution, (int, float)) and 0 < resolution < 1):
        raise ModelInputError(f"resolution must be the printed step of the ETTR, between 0 and 1 (0.001 for a "
                              f"percentage with one decimal), or None for fixed run counts; got {resolution!r}")
    m = src.mean_h
    replicas = count("n_runs", n_runs, lo=2)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])  # fresh, but one seed for the whole grid
    check_cost(f"best_interval(grid={int(grid):,}, n_runs={replicas:,})",
               work=(int(grid) + 4) * replicas * 400, hint="use a smaller grid or fewer runs")
    check_order("best_interval(failures, ckpt_cost, restart)", mtbf=m, ckpt_cost=d)
    tau_exp = float(_optimal(m, d))
    w = hours(work) if work is not None else 300 * m
    taus = tau_exp * np.geomspace(1 / span, span, int(grid))
    rows = []
    with steps("simulated ETTR over the interval grid", total=len(taus)) as step:
        for t in taus:
            rows.append((t,) + _grid_ettr(w, t, d, r, src, replicas, seed))
            step()
    if all(row[-1] for row in rows):  # no interval of the grid lets the job make progress
        raise NoProgressError(f"at none of the {len(rows)} intervals from {duration(taus[0])} to "
                              f"{duration(taus[-1])} does a simulated job finish a stretch of work between two "
                              "failures (ETTR near 0): there is nothing to simulate; the formula (relmodel.ettr) "
                              "is the answer")
    curve = pd.DataFrame([row[:-1] for row in rows], columns=["interval_h", "ettr", "lo", "hi"])
    i = int(np.argmax(curve["ettr"]))
    best = float(np.exp(_parabola_peak(np.log(taus), curve["ettr"].to_numpy(), i)))
    n2 = int(confirm_n_runs or 4 * replicas)
    rng = np.random.default_rng(seed)
    s1, s2 = (int(x) for x in rng.integers(1, 2**31, size=2))
    e, lo, hi, n_best, ok = _confirm(w, best, d, r, src, n2, s1, resolution)
    try:
        e2, lo2, hi2, n_exp, ok2 = _confirm(w, tau_exp, d, r, src, n2, s2, resolution)
    except NoProgressError:  # the exponential optimum makes no progress under this law: ETTR about 0 there
        e2, lo2, hi2, n_exp, ok2 = 0.0, 0.0, 0.0, 0, ok
    return IntervalSearch(
        interval_h=best, ettr=e, ettr_lo=lo, ettr_hi=hi, exp_interval_h=tau_exp,
        exp_ettr=float(_ettr(tau_exp, m, d, r)), exp_interval_sim_ettr=e2, exp_interval_sim_lo=lo2,
        exp_interval_sim_hi=hi2, mtbf_h=m, ckpt_cost_h=d, restart_h=r, source=src.describe(), curve=curve,
        resolution=resolution, n_runs_best=n_best, n_runs_exp=n_exp, precise=None if ok is None else ok and ok2,
    )
