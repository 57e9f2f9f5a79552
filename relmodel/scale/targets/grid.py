"""Headline planning numbers over a grid of cluster designs, without notebooks.

:func:`sweep_grid` takes a dict of lists (``n_gpus``, ``gpus_per_node``,
``ckpt_cost``, ``restart``, ``target_ettr``) and returns one row per
combination with the report's headline numbers: job MTBF, optimal checkpoint
interval, ETTR at that interval, and the job and node MTBF the target needs
(NaN with a reason when the per-job causes alone miss the target).

Everything is vectorised with numpy and cut into chunks of fixed size
(:data:`CHUNK` rows), so the result does not depend on how many workers run
it; the chunks go to any executor with ``submit()`` (a concurrent.futures
pool or a Dask Client: this module never imports Dask).

The required job MTBF uses the closed form of the best ETTR for exponential
failures at the optimal interval (Daly 2006, FGCS 22(3)):
``E(M) = y · exp(-R/M)`` with ``y = -W0(-exp(-1 - δ/M))``, which inverts to
``M = δ / (y - 1 - ln y)`` where ``y`` solves
``ln y - (R/δ)(y - 1 - ln y) = ln t`` on ``(t, 1)``; the left side increases
with ``y``, so the bisection of :mod:`.goodput`, vectorised, finds it (checked against
:func:`relmodel.scale.required_job_mtbf` in the tests).
"""

import math

import numpy as np
import pandas as pd

from ...checkpoint.costs import cost_hours
from ...checkpoint.intervals import ettr, optimal_interval
from ...errors import ModelInputError
from ...units import hours
from .goodput import _bisect
from relmodel.budget_guard import check_cost
from relmodel.base.progress import steps

__all__ = ["sweep_grid", "GRID_KEYS", "CHUNK", "ROW_BYTES", "job_mtbf_for", "required_job_mtbf_vec"]

#: The parameters a grid may vary, with their defaults.
GRID_KEYS = {"n_gpus": 16384, "gpus_per_node": 8, "ckpt_cost": "1min", "restart": "10min", "target_ettr": 0.9}
#: Rows per chunk handed to an executor.
CHUNK = 20_000


def required_job_mtbf_vec(target_ettr, ckpt_cost_h, restart_h):
    """Job MTBF (hours) whose best ETTR equals the target; arrays of equal shape, hours."""
    t, d, r = (np.asarray(a, dtype=float) for a in (target_ettr, ckpt_cost_h, restart_h))
    log_t, k = np.log(t), r / d

    def gap(log_y):  # increasing in ln y on (ln t, 0)
        return log_y - k * (np.expm1(log_y) - log_y) - log_t
    log_y = _bisect(gap, log_t, np.zeros_like(t))
    return d / (np.expm1(log_y) - log_y)  # y - 1 - ln y, >= 0


def _rates_by_unit(source, fixed_rate_per_h):
    from ...data.bundled import datasets
    from ..clusters.scaling import cluster_of, scale_rates

    src = datasets.llama3_54day() if source is None else source
    base = cluster_of(src)
    table = scale_rates(src, base, base, n_boot=1, seed=0).by_cause
    by_unit = table.groupby("scales_with")["rate_per_h"].sum().to_dict()
    if fixed_rate_per_h is not None:
        by_unit["job"] = float(fixed_rate_per_h)
    return base, by_unit


def job_mtbf_for(base, by_unit, n_gpus, gpus_per_node):
    """(job MTBF hours, nodes, per-job rate) for a design grown from the source cluster."""
    from ..clusters.scaling import grow_cluster

    tgt = grow_cluster(int(n_gpus), base, gpus_per_node=int(gpus_per_node))
    s, c = base.counts(), tgt.counts()
    rate = sum(v * c[u] / s[u] for u, v in by_unit.items())
    return 1.0 / rate, tgt.n_nodes, by_unit.get("job", 0.0)


def _values(name, values):
    values = list(values) if isinstance(values, (list, tuple, np.ndarray, pd.Series)) else [values]
    if not values:
        raise ModelInputError(f"grid {name!r} has no values")
    if name in ("ckpt_cost", "restart"):
        out = [v if hasattr(v, "hours_at") else float(hours(v)) for v in values]   # models grow with n_gpus
        bad = [v for v in out if not hasattr(v, "hours_at") and
               (not math.isfinite(v) or v < 0 or (name == "ckpt_cost" and v == 0))]
    elif name == "target_ettr":
        out = [float(v) for v in values]
        bad = [v for v in out if not 0 < v < 1]
    else:
        out = [int(v) for v in values]
        bad = [v for v, raw in zip(out, values) if v < 1 or v != raw]
    if bad:
        raise ModelInputError(f"grid {name!r}: invalid value {bad[0]!r}; " + {
            "ckpt_cost": "checkpoint costs must be durations > 0",
            "restart": "restarts must be durations >= 0",
            "target_ettr": "targets must be fractions strictly between 0 and 1"}.get(
            name, "GPU and node counts must be whole numbers >= 1"))
    return out


def _axis(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out if any(hasattr(v, "hours_at") for v in values) else np.asarray(values)


def _columns(axes, designs, a, b):
    """Rows ``a`` to ``b`` of the cross product, as a dict of arrays."""
    shape = [len(v) for v in axes.values()]
    idx = dict(zip(axes, np.unravel_index(np.arange(a, b), shape)))
    g, p = idx["n_gpus"], idx["gpus_per_node"]
    return {"n_gpus": axes["n_gpus"][g], "gpus_per_node": axes["gpus_per_node"][p],
            "ckpt_cost_h": designs["ckpt_cost_h"][idx["ckpt_cost"], g],
            "restart_h": designs["restart_h"][idx["restart"], g],
            "target_ettr": axes["target_ettr"][idx["target_ettr"]], "n_nodes": designs["n_nodes"][g, p],
            "job_mtbf_h": designs["job_mtbf_h"][g, p], "fixed_rate_per_h": designs["fixed_rate_per_h"][g, p]}


def _chunk(axes, designs, a, b):
    """The headline numbers for rows ``a`` to ``b`` (built here, so tasks carry only the axes)."""
    cols = _columns(axes, designs, a, b)
    m, d, r, t = cols["job_mtbf_h"], cols["ckpt_cost_h"], cols["restart_h"], cols["target_ettr"]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        tau = optimal_interval(m, d)
        best = ettr(tau, m, d, r)
        need = required_job_mtbf_vec(t, d, r)
        room = 1.0 / need - cols["fixed_rate_per_h"]
        node = np.where(room > 0, cols["n_nodes"] / np.where(room > 0, room, 1.0), np.nan)
    cols.update(optimal_interval_h=np.atleast_1d(tau), ettr=np.atleast_1d(best),
                required_job_mtbf_h=need, required_node_mtbf_h=node)
    return cols


def _reasons(df):
    """'' where the target is reachable, else why not (one text per distinct per-job rate)."""
    out = pd.Series("", index=df.index, dtype=object)
    miss = df["required_node_mtbf_h"].isna()
    texts = {x: f"out of reach: per-job causes alone ({24.0 * x:.2g} a day) miss the target"
             for x in df.loc[miss, "fixed_rate_per_h"].unique()}
    out[miss] = df.loc[miss, "fixed_rate_per_h"].map(texts)
    return out.to_numpy()


#: Peak memory per combination, bytes: the chunks' columns, their concatenation, the frame built from them and
#: its reasons (about 430 bytes measured with tracemalloc on 200,000 rows; 480 with room).
ROW_BYTES = 480


def sweep_grid(grid, source=None, *, n_gpus=16384, target_ettr=0.9, ckpt_cost="1min", restart="10min",
               gpus_per_node=8, fixed_rate_per_h=None, executor=None):
    """Headline numbers for every combination of ``grid`` (dict of lists); a DataFrame.

    ``grid`` keys are among :data:`GRID_KEYS`; parameters not in the grid take
    the keyword values. ``source`` is what the rates are scaled from (a count
    table or interruption log; default Llama 3's 54-day counts). Causes that
    scale with the job (software, unknown) are held at their observed rate,
    or at ``fixed_rate_per_h`` when given. ``executor`` (anything with
    ``submit()``) runs fixed-size chunks in parallel; the result is the same.

    ``ckpt_cost`` and ``restart`` values may be cost models
    (:class:`relmodel.checkpoint.CheckpointModel`,
    :class:`relmodel.checkpoint.RestartModel`), evaluated at each row's
    ``n_gpus``.

    Columns: n_gpus, gpus_per_node, ckpt_cost_h, restart_h, target_ettr,
    n_nodes, job_mtbf_h, fixed_rate_per_h, optimal_interval_h, ettr (at the
    optimal interval), required_job_mtbf_h, required_node_mtbf_h (NaN when out
    of reach), reason (why it is out of reach, else empty).

    Examples
    --------
    >>> t = sweep_grid({"n_gpus": [1024, 16384], "ckpt_cost": ["1min", "5min"]})   # Llama 3 rates scaled
    >>> t["n_nodes"].tolist(), t["ckpt_cost_h"].round(3).tolist()
    ([128, 128, 2048, 2048], [0.017, 0.083, 0.017, 0.083])
    >>> t["job_mtbf_h"].round(2).tolist(), t["ettr"].round(3).tolist()
    ([15.2, 15.2, 3.09, 3.09], [0.944, 0.889, 0.853, 0.744])
    """
    if not isinstance(grid, dict) or not grid:
        raise ModelInputError("grid must be a dict of parameter lists, e.g. {'n_gpus': [4096, 16384]}")
    unknown = [k for k in grid if k not in GRID_KEYS]
    if unknown:
        raise ModelInputError(f"grid key {unknown[0]!r} unknown; use " + ", ".join(GRID_KEYS))
    fixed = dict(n_gpus=n_gpus, gpus_per_node=gpus_per_node, ckpt_cost=ckpt_cost, restart=restart,
                 target_ettr=target_ettr)
    axes = {k: _axis(_values(k, grid.get(k, fixed[k]))) for k in GRID_KEYS}
    combos = float(np.prod([float(len(v)) for v in axes.values()]))
    check_cost(f"sweep_grid with {combos:,.0f} combinations", work=combos * 100, memory=combos * ROW_BYTES,
               hint="give fewer values per parameter")
    base, by_unit = _rates_by_unit(source, fixed_rate_per_h)
    found = [[job_mtbf_for(base, by_unit, g, p) for p in axes["gpus_per_node"]] for g in axes["n_gpus"]]
    designs = {"job_mtbf_h": np.array([[x[0] for x in row] for row in found], dtype=float),
               "n_nodes": np.array([[x[1] for x in row] for row in found], dtype=np.int64),
               "fixed_rate_per_h": np.array([[x[2] for x in row] for row in found], dtype=float)}
    for key in ("ckpt_cost", "restart"):  # hours at each size: constants, or models that grow with n_gpus
        designs[key + "_h"] = np.array([[cost_hours(v, float(g), key) for g in axes["n_gpus"]]
                                        for v in axes[key]], dtype=float)
    n = int(np.prod([len(v) for v in axes.values()]))
    spans = [(a, min(a + CHUNK, n)) for a in range(0, n, CHUNK)]
    if executor is None:
        done = []
        with steps("grid combinations", total=n) as step:
            for a, b in spans:
                done.append(_chunk(axes, designs, a, b))
                step(b - a)
    else:
        futures = [executor.submit(_chunk, axes, designs, a, b) for a, b in spans]
        done = [f.result() for f in futures]
    df = pd.DataFrame({k: np.concatenate([p[k] for p in done]) for k in done[0]})
    df["reason"] = _reasons(df)
    return df
