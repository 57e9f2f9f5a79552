"""Simulate a fleet's life until the ETTR is known to a stated precision: :func:`simulate_fleet`.

Replications run in batches (seeds ``seed``, ``seed + 1``, ...) until the
``conf`` interval of the mean ETTR (Student t over replications) is no wider
than ``resolution`` on each side, or ``max_runs`` is reached. The same seeds
give the same runs, so two policies simulated with one seed share their
random numbers where they can (their difference is paired, as
:func:`~relmodel.scale.lifecycle.compare_policies` uses).
"""

import dataclasses
import math

import numpy as np
import pandas as pd
from scipy import stats

from ...errors import ModelInputError
from ...tables import Result, count, duration, html_table, pct
from . import loop
from .loop import COUNTERS, run_once
from .model import FleetModel, check_inputs, fleet_model
from .retirement import checked_policy

__all__ = ["FleetResult", "simulate_fleet", "mean_ci", "base_seed"]


def mean_ci(x, conf=0.95):
    """(mean, lower, upper) of the mean of ``x`` (Student t); the bounds are the mean for one value."""
    x = np.asarray(x, dtype=float)
    mu = float(x.mean())
    if x.size < 2:
        return mu, mu, mu
    hw = float(stats.t.ppf(0.5 + conf / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mu, mu - hw, mu + hw


@dataclasses.dataclass(frozen=True)
class FleetResult(Result):
    """Replications of a fleet's life: ``runs`` has one row per replication (ETTR and counters)."""

    model: FleetModel
    policy: object
    runs: pd.DataFrame
    conf: float
    resolution: float

    @property
    def n_runs(self):
        return len(self.runs)

    @property
    def ettr(self):
        return float(self.runs["ettr"].mean())

    def ci(self, column="ettr"):
        """(lower, upper) of the ``conf`` interval of a column's mean over replications."""
        return mean_ci(self.runs[column], self.conf)[1:]

    @property
    def ettr_ci(self):
        return self.ci("ettr")

    @property
    def converged(self):
        lo, hi = self.ettr_ci
        return (hi - lo) / 2 <= self.resolution

    @property
    def dry_share(self):
        """Share of replications in which the pool ran dry at least once (a stall or depletion)."""
        r = self.runs
        return float(((r["stalls"] > 0) | (r["depleted"] > 0)).mean())

    def to_frame(self):
        """One row per quantity: mean over replications and its interval."""
        rows = []
        for col in ("ettr",) + COUNTERS:
            mu, lo, hi = mean_ci(self.runs[col], self.conf)
            rows.append({"quantity": col, "mean": mu, "lower": lo, "upper": hi})
        return pd.DataFrame(rows)

    def table(self):
        """The figures a person reads, formatted."""
        r = self.runs
        lo, hi = self.ettr_ci
        rows = [
            ("ETTR", f"{pct(self.ettr)} ({pct(lo)} to {pct(hi)})"),
            ("wall time", duration(r["wall_h"].mean())),
            ("failures", count(round(r["failures"].mean()))),
            ("  of them on bad nodes", count(round(r["bad_failures"].mean()))),
            ("automatic repairs (not fixed)", f"{count(round(r['auto_repairs'].mean()))} "
                                              f"({count(round(r['auto_unfixed'].mean()))})"),
            ("manual repairs (not fixed)", f"{count(round(r['manual_repairs'].mean()))} "
                                           f"({count(round(r['manual_unfixed'].mean()))})"),
            ("nodes retired (bad)", f"{count(round(r['retired'].mean()))} ({count(round(r['retired_bad'].mean()))})"),
            ("spares taken from other work", count(round(r["preemptions"].mean()))),
            ("stalls waiting for repairs", count(round(r["stalls"].mean()))),
            ("runs where the pool ran dry", pct(self.dry_share)),
        ]
        return pd.DataFrame(rows, columns=["quantity", f"mean of {self.n_runs:,} runs"])

    def text(self):
        lo, hi = self.ettr_ci
        r = self.runs
        s = (f"Over {self.n_runs:,} simulated runs the job trains {pct(self.ettr)} of its wall time "
             f"({pct(lo)} to {pct(hi)}, {self.conf:.0%} interval of the mean) and "
             f"{'runs for' if r['cut_short'].any() else 'finishes in'} "
             f"{duration(r['wall_h'].mean())}; {count(round(r['failures'].mean()))} failures a run, "
             f"{pct(r['bad_failures'].sum() / max(r['failures'].sum(), 1))} of them on bad nodes.")
        if r["depleted"].any():
            s += (f" In {pct(r['depleted'].mean())} of runs retirements left too few nodes to hold the job "
                  f"(the run stops there; its ETTR counts the work done).")
        if r["cut_short"].any():
            s += (f" {pct(r['cut_short'].mean())} of runs were stopped after {count(loop.MAX_INTERRUPTIONS)} "
                  "interruptions with work left (restarts rarely finish before the next failure); their ETTR "
                  "counts the work done by then.")
        if not self.converged:
            s += f" The interval is wider than the {pct(self.resolution)} asked: raise max_runs."
        return s

    def _repr_html_(self):
        return f"<p>{self.text()}</p>" + html_table(self.table())


def base_seed(seed):
    """The first replication's seed: ``seed`` (a whole number >= 0) or, for None, fresh entropy."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    return _check_runs("seed", seed, 0)


def _check_runs(name, v, low):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise ModelInputError(f"{name} must be a whole number >= {low}; got {v!r}")
    return int(v)


def simulate_fleet(model=None, policy=None, *, resolution=0.002, conf=0.95, min_runs=10, max_runs=400, seed=None,
                   progress=None, **inputs):
    """Simulate a fleet's life (see :mod:`relmodel.scale.lifecycle`) until its ETTR is known to ``resolution``.

    ``model`` is a :class:`FleetModel` (or ``None`` and the inputs of :func:`fleet_model` as keywords);
    ``policy`` a retirement policy (:mod:`relmodel.scale.lifecycle.retirement`; ``None`` never retires).
    Durations are in hours; the result holds each replication's ETTR (a share of wall time), wall time
    (hours) and counts of failures, repairs, retired nodes and stalls.
    ``progress`` is called with the number of runs done after each run. Replication i uses seed ``seed + i``
    (``seed=None``: fresh entropy).

    Examples
    --------
    >>> r = simulate_fleet(job_nodes=64, warm_standbys=2, working_nodes=72, spare_nodes=4, work="30d",
    ...                    node_mtbf="200d", max_runs=20, seed=1)
    >>> 0.9 < r.ettr < 1.0
    True
    """
    check_inputs(inputs, "simulate_fleet", "resolution, conf, min_runs, max_runs, seed, progress")
    checked_policy(policy)
    if model is None:
        model = fleet_model(**inputs)
    elif inputs:
        model = model.replace(**inputs)
    if not isinstance(model, FleetModel):
        raise ModelInputError(f"model must be a FleetModel (relmodel.scale.lifecycle.fleet_model); "
                              f"got {type(model).__name__}")
    if not (isinstance(resolution, float) and 0 < resolution < 1):
        raise ModelInputError(f"resolution must be a share between 0 and 1 (0.002 for +/- 0.2 points); "
                              f"got {resolution!r}")
    if not (isinstance(conf, float) and 0 < conf < 1):
        raise ModelInputError(f"conf must be between 0 and 1, such as 0.95; got {conf!r}")
    first = _check_runs("min_runs", min_runs, 2)
    cap = _check_runs("max_runs", max_runs, first)
    seed = base_seed(seed)
    rows = []
    while len(rows) < cap:
        rows.append(run_once(model, policy, seed + len(rows)))
        if progress is not None:
            progress(len(rows))
        if len(rows) >= first:
            _, lo, hi = mean_ci([r["ettr"] for r in rows], conf)
            if (hi - lo) / 2 <= resolution:
                break
    return FleetResult(model, policy, pd.DataFrame(rows), conf, resolution)
