"""Grids of fleet scenarios: :func:`fleet_grid` runs one :func:`~relmodel.scale.lifecycle.simulate_fleet`
per combination, on any executor with ``submit()`` (a concurrent.futures pool or a Dask Client: this
module never imports Dask), so a grid too big for one machine runs on a cluster."""

import itertools

import numpy as np
import pandas as pd

from ...errors import ModelInputError
from .model import FleetModel
from .simulate import base_seed, simulate_fleet

__all__ = ["fleet_grid"]


def _combos(grid):
    if not isinstance(grid, dict) or not grid:
        raise ModelInputError("grid must be a dict of input name to a list of values, such as "
                              "{'bad_share': [0.0, 0.05], 'job_nodes': [1024, 4096]}")
    keys = list(grid)
    values = [list(v) if isinstance(v, (list, tuple, range)) or (isinstance(v, np.ndarray) and v.ndim == 1) else [v]
              for v in grid.values()]
    return [dict(zip(keys, c)) for c in itertools.product(*values)]


def _row(combo, result):
    lo, hi = result.ettr_ci
    r = result.runs
    return {**combo, "ettr": result.ettr, "ettr_lo": lo, "ettr_hi": hi, "runs": result.n_runs,
            "wall_h": float(r["wall_h"].mean()), "failures": float(r["failures"].mean()),
            "retired": float(r["retired"].mean()), "dry_share": result.dry_share}


def fleet_grid(base, grid, policy=None, *, executor=None, seed=None, **simulate):
    """One row per combination of ``grid`` (a dict of :func:`fleet_model` input to a list of values) applied to
    ``base`` (a :class:`FleetModel`): the ETTR (a share of wall time) with its interval, runs, mean wall time
    (hours), failures and retired nodes, and the share of runs in which the pool ran dry.

    Every combination uses the same seeds (``seed``, ``seed + 1``, ...; None: fresh entropy), so the rows compare like with
    like and the table does not depend on the executor. ``simulate`` goes to :func:`simulate_fleet`
    (``resolution``, ``max_runs``, ...).

    Examples
    --------
    >>> from relmodel.scale.lifecycle import fleet_model
    >>> base = fleet_model(job_nodes=64, warm_standbys=2, working_nodes=72, spare_nodes=4, work="10d")
    >>> fleet_grid(base, {"bad_share": [0.0, 0.1]}, max_runs=10)["bad_share"].tolist()
    [0.0, 0.1]
    """
    if not isinstance(base, FleetModel):
        raise ModelInputError(f"base must be a FleetModel (fleet_model(...)); got {type(base).__name__}")
    seed = base_seed(seed)
    combos = _combos(grid)
    models = [base.replace(**c) for c in combos]   # every combination checked before any runs
    if executor is None:
        results = [simulate_fleet(m, policy, seed=seed, **simulate) for m in models]
    else:
        futures = [executor.submit(simulate_fleet, m, policy, seed=seed, **simulate) for m in models]
        results = [f.result() for f in futures]
    return pd.DataFrame([_row(c, r) for c, r in zip(combos, results)])
