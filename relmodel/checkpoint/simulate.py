"""Monte Carlo simulation of a checkpointed training job.

The job has ``work`` hours of computation, cut into segments of ``interval``
hours (the last one shorter if the work is not a whole number of
intervals), each followed by a checkpoint write of ``ckpt_cost`` hours.  A
failure loses everything since the last completed checkpoint and costs a
restart of ``restart`` hours; a failure during a restart starts the restart
again.  This is the model of Daly (2006, FGCS 22(3)), so for exponential
failures the mean wall time matches :func:`relmodel.checkpoint.expected_wall_time`
when the work is a whole number of intervals (the formula treats a last,
shorter segment as a fraction of a full one).

Two engines, both vectorised across replicas with no Python loop per failure:

* exponential failures: failures are memoryless, so every attempt at a
  segment (or at a restart) is independent of the past.  Per group of
  equal segments the number of failed attempts is then negative binomial
  (a sum of geometric counts), each failed attempt loses a time drawn from
  the exponential truncated to the attempt's span, and restarts likewise; the
  lost times are drawn by inversion from 32-bit uniforms and summed per
  replica through products of blocks of factors
  (:mod:`relmodel.checkpoint.simulate_exponential`).
* any other failure process (:mod:`relmodel.checkpoint.sources`): gaps
  between failures come as a (replicas, k) matrix; within a gap the job
  first restarts, then completes floor(available / (τ + δ)) segments.  A
  running (capped) cumulative sum of completed segments finds the gap in
  which each replica finishes, all in whole-matrix numpy operations.
"""

import numpy as np

from ..defaults import RESTART
from ..budget_guard import check_cost
from ..errors import DurationError, ModelInputError, NoProgressError
from .costs import cost_hours
from .order import check_order
from .sim_result import SimulationResult
from .simulate_exponential import exponential_runs
from .sources import ExponentialFailures, as_failure_source
from ..units import hours

__all__ = ["simulate_training", "SimulationResult"]

_MAX_DRAWS = 4_000_000  # lost-time draws held in memory at once
#: Failures one simulated run may need: beyond it the run is refused before any draw (NoProgressError). A run
#: of a few hundred MTBFs of work that needs 100,000 failures has an ETTR below about 0.3%, and simulating it
#: for a search of intervals would take hours; nobody waits for that number.
MAX_FAILURES_PER_RUN = 1e5
#: Failures of every run together (the same refusal).
MAX_FAILURES = 2e9
#: Checkpoint intervals one simulated run may hold (work / interval); more is a mistake of units.
MAX_SEGMENTS = 1e12
#: Gaps drawn (from a stream of their own) to estimate how much work a renewal law lets a run do per gap.
_PILOT = 4096
_NEVER_ENDS = ("the job does not finish: with these failures it rarely gets an interval plus a checkpoint "
               "and a restart done between two failures (ETTR near 0); shorten the interval or the costs")


_SIGNATURE = "simulate_training(work, interval, failures, ckpt_cost, restart)"


def _duration(name, x, positive):
    try:
        v = cost_hours(x, name=name)
    except (DurationError, TypeError, ValueError) as e:
        raise ModelInputError(f"{name} must be a duration; got {_what(x)}. The argument order is {_SIGNATURE} "
                              "since relmodel 0.2.0") from e
    if np.ndim(v) or not np.isfinite(v) or v < 0 or (positive and v == 0):
        what = "positive" if positive else "zero or more"
        raise ModelInputError(f"{name} must be one finite duration, {what}; got {x!r}")
    return float(v)


def _what(x):
    return repr(x) if isinstance(x, (str, int, float)) else f"a {type(x).__name__}"


def _segments(work, interval, ckpt):
    """(n full segments, span τ + δ of one, span of the shorter last one or 0)."""
    n = int(np.floor(work / interval * (1 + 1e-12)))
    rem = work - n * interval
    tail = rem + ckpt if rem > 1e-9 * work else 0.0
    return n, interval + ckpt, tail


def _groups(segs):
    n, span, tail = segs
    return [g for g in ((n, span), (1, tail)) if g[0] and g[1]]


def simulate_training(work, interval, failures, ckpt_cost, restart=RESTART, *, n_runs=1000,
                      seed=None, step=None, rng=None, executor=None, chunks=None, sdc_rate=0.0, sdc_delay=0.0,
                      latency=0.0):
    """Simulate ``n_runs`` runs of a checkpointed training job.

    Parameters
    ----------
    work : duration
        Hours of useful computation the run needs (e.g. ``"54d"``).
    interval : duration
        Compute time between checkpoints τ.  With ``step`` it is rounded down
        to a whole number of steps; an interval shorter than one step raises
        :class:`~relmodel.errors.ModelInputError`.
    failures
        Job MTBF (number of hours or duration string: exponential failures),
        a fitted distribution with ``mean_h`` and ``sample`` or ``ppf`` (renewal between
        job failures), :class:`~relmodel.checkpoint.sources.NodeRenewals`,
        an interruption log or :class:`~relmodel.checkpoint.sources.LogReplay`,
        or a count table (exponential at its job MTBF).
    ckpt_cost, restart : duration
        Checkpoint write δ (zero allowed) and restart time R (zero allowed;
        default 10 min, :mod:`relmodel.defaults`).
    n_runs : int
        Number of simulated runs. :func:`relmodel.checkpoint.simulate_to_precision` sizes the run to the
        digits printed.
    seed, rng
        Seed or ``numpy.random.Generator``.
    executor, chunks
        Run in parallel: ``executor`` is anything with ``submit()`` (a
        concurrent.futures pool, a Dask Client); ``chunks`` the number of
        tasks (default: one per block). With either, replicas are drawn in
        fixed blocks of :data:`BLOCK` replicas, block ``i`` from stream ``i`` of
        ``numpy.random.SeedSequence(seed).spawn(...)``, so the result for a
        seed is the same for any number of chunks or workers (but differs
        from the single-stream result without them). Needs ``seed``, not ``rng``.

    Returns
    -------
    SimulationResult
        Per-replica wall time and lost-time breakdown, ETTR with confidence
        intervals, wall-time quantiles.

    Since 0.2.0 the failures come third, where the MTBF is in every other
    function: (work, interval, failures, ckpt_cost, restart).

    Examples
    --------
    >>> s = simulate_training("30d", "16min", "3h", "45s", "10min", n_runs=400, seed=1)
    >>> lo, hi = s.ettr_ci(0.99)
    >>> bool(lo < 0.8622 < hi)              # Daly's exact ETTR at this interval
    True
    >>> round(s.ettr, 2)
    0.86
    """
    w = _duration("work", work, True)
    tau = _duration("interval", interval, True)
    d, r = _duration("ckpt_cost", ckpt_cost, False), _duration("restart", restart, False)
    if step is not None:
        s = _duration("step", step, True)
        if tau < s * (1 - 1e-12):
            raise ModelInputError(f"interval ({tau:.4g} h) is shorter than one step ({s:.4g} h)")
        tau = s * np.floor(tau / s * (1 + 1e-12))
    replicas = n_runs
    whole = isinstance(replicas, (int, np.integer)) or (isinstance(replicas, (float, np.floating))
                                                        and np.isfinite(replicas) and float(replicas).is_integer())
    if isinstance(replicas, bool) or not whole or replicas < 2:
        raise ModelInputError(f"n_runs must be a whole number of 2 or more (simulate_to_precision sizes a "
                              f"run to its printed digits); got {replicas!r}")
    src = as_failure_source(failures)
    detect = _detection(src, sdc_rate, sdc_delay, latency)
    if detect is not None:
        src = ExponentialFailures(detect[0])
    check_order(_SIGNATURE, work=w, interval=tau, mtbf=src.mean_h, ckpt_cost=d, restart=r)
    if (executor is not None or chunks is not None) and (rng is not None or seed is None):
        raise ModelInputError("parallel simulation (executor= or chunks=) needs seed=, an int, "
                              "so that every chunk draws from its own stream")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ModelInputError(f"seed must be a whole number of 0 or more, or None; got {seed!r}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ModelInputError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)); got {rng!r:.60}")
    rng = rng if rng is not None else np.random.default_rng(seed)
    check_cost(f"simulate_training(n_runs={int(replicas):,})", memory=64.0 * replicas, hint="simulate fewer runs")
    if not w / tau <= MAX_SEGMENTS:
        raise ModelInputError(f"the run holds about {w / tau:.3g} checkpoint intervals (work {w:.4g} h over an "
                              f"interval of {tau:.4g} h); relmodel simulates at most {MAX_SEGMENTS:.0e}: give "
                              "the work and the interval in hours, or durations such as '30d' and '20min'")
    segs = _segments(w, tau, d)
    est = _daly_wall(w, tau, src.mean_h, d, r)
    per_run = _check_budget(_failures_per_run(src, segs, r, est), replicas)
    ckpt = (segs[0] + (1 if segs[2] else 0)) * d
    spec = (segs, r, src, w + ckpt, est, per_run)
    if executor is None and chunks is None:
        lost, rest, nfail = _draw(rng, int(replicas), spec)
    else:
        lost, rest, nfail = _parallel(seed, int(replicas), spec, executor, chunks)
    if detect is not None:
        extra_rng = rng if executor is None and chunks is None else np.random.default_rng((seed, 7919))
        rest = rest + _dwell(extra_rng, nfail, *detect)
    return SimulationResult(
        work_h=w, interval_h=tau, ckpt_cost_h=d, restart_h=r, source=src.describe(),
        mtbf_h=src.mean_h, checkpoint_h=ckpt, lost_h=lost, restart_time_h=rest, failures=nfail,
    )


def _detection(src, sdc_rate, sdc_delay, latency):
    """(combined MTBF, SDC share, SDC delay, latency shares, latencies) or None when neither is asked for."""
    if not (sdc_rate or sdc_delay or (latency if not isinstance(latency, dict) else latency)):
        return None
    from .detection import detection_terms, mean_latency
    if not isinstance(src, ExponentialFailures):
        raise ModelInputError("detection latency and silent corruption are simulated with exponential failures: "
                              "give the job MTBF (a duration) as failures")
    m_all, _, _ = detection_terms(src.mtbf_h, sdc_rate, sdc_delay, latency)
    classes = latency if isinstance(latency, dict) and latency else {"all": (1.0, latency or 0.0)}
    mean_latency(classes)  # validates the shares
    shares = np.array([float(v[0]) for v in classes.values()])
    lat = np.array([float(hours(v[1])) for v in classes.values()])
    return float(m_all), float(sdc_rate) * float(m_all), float(hours(sdc_delay)), shares, lat


def _dwell(rng, nfail, m_all, p_sdc, delay, shares, lat):
    """Hours each replica spends before its failures are noticed: corruptions wait ``delay``, others their class."""
    n_sdc = rng.binomial(nfail, min(p_sdc, 1.0))
    fail_stop = rng.multinomial(nfail - n_sdc, shares / shares.sum())
    return n_sdc * delay + fail_stop @ lat


def _draw(rng, n, spec):
    segs, r, src, total, est, per_run = spec
    if isinstance(src, ExponentialFailures):
        return exponential_runs(rng, n, _groups(segs), r, src.mtbf_h)
    if src.kind == "renewal":
        return _renewal(rng, n, segs, r, src, per_run)
    return _timeline(rng, n, segs, r, src, total, est)


#: Replicas per random stream in a parallel simulation.
BLOCK = 250


def _run_blocks(blocks, spec):
    """Simulate blocks ``[(SeedSequence, n), ...]`` one after another; arrays concatenated."""
    parts = [_draw(np.random.default_rng(ss), n, spec) for ss, n in blocks]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _parallel(seed, replicas, spec, executor, chunks):
    sizes = [min(BLOCK, replicas - i) for i in range(0, replicas, BLOCK)]
    blocks = list(zip(np.random.SeedSequence(seed).spawn(len(sizes)), sizes))
    k = len(blocks) if chunks is None else int(chunks)
    if k < 1 or k != chunks and chunks is not None:
        raise ModelInputError(f"chunks must be a whole number >= 1; got {chunks!r}")
    cuts = np.linspace(0, len(blocks), min(k, len(blocks)) + 1).round().astype(int)
    groups = [blocks[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    if executor is None:
        parts = [_run_blocks(g, spec) for g in groups]
    else:
        futures = [executor.submit(_run_blocks, g, spec) for g in groups]
        parts = [f.result() for f in futures]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _daly_wall(work, tau, mtbf, ckpt, restart):
    """Daly's expected wall time, as :func:`relmodel.checkpoint.expected_wall_time` but for checked scalars (inf on overflow)."""
    with np.errstate(over="ignore"):
        return float(work / tau * mtbf * np.exp(restart / mtbf) * np.expm1((tau + ckpt) / mtbf))


def _failures_per_run(src, segs, r, est):
    """Expected failures in one simulated run, estimated before any run is drawn.

    Exponential failures and failure timelines: Daly's expected wall time over the MTBF.  Another renewal
    law: a pilot of :data:`_PILOT` of its gaps (from a stream of their own, so the runs' draws are
    unchanged) gives the segments a gap holds after a restart, E[floor((gap - restart) / (τ + δ))⁺]; the
    run needs its segments over that many failures.  A law whose gaps rarely outlast a restart (regular
    gaps shorter than the restart) is hopeless although its mean says otherwise; the pilot sees it.  When
    no pilot gap holds a segment, segments times the pilot's size is a lower bound.
    """
    formula = est / src.mean_h
    if isinstance(src, ExponentialFailures) or src.kind != "renewal":
        return formula
    n, span, tail = segs
    need = n + (1 if tail else 0)
    g = np.asarray(src.gaps(np.random.default_rng(_PILOT), 1, _PILOT), dtype=float).ravel()
    per_gap = float(np.floor(np.maximum(g - r, 0.0) / span).mean())
    return need * _PILOT if per_gap <= 0 else need / per_gap


def _check_budget(per_run, replicas):
    """``per_run`` when the simulation is worth drawing; else :class:`NoProgressError` (before any draw)."""
    total = per_run * replicas
    if not np.isfinite(total) or total > MAX_FAILURES or per_run > MAX_FAILURES_PER_RUN:
        raise NoProgressError(
            f"the job does not finish in a simulation worth running: about {per_run:,.3g} failures would have "
            f"to be simulated in each of {replicas:,} runs (at most "
            f"{MAX_FAILURES_PER_RUN:,.0f} are): the job almost never completes a segment between failures "
            "(ETTR near 0), so there is nothing to simulate; use relmodel.ettr (the formula) for this case, "
            "or shorten the interval or the restart")
    return float(per_run)


class _State:
    """Running totals of the gap engine for the rows still running."""

    def __init__(self, rows):
        self.done = np.zeros(rows)          # full segments completed (capped at n)
        self.lost = np.zeros(rows)
        self.rest = np.zeros(rows)
        self.nfail = np.zeros(rows, dtype=np.int64)
        self.need_restart = False           # the first gap starts fresh


def _scan(g, st, segs, r):
    """Run the rows of a (rows, k) gap matrix; return (finished mask, lost, rest, nfail).

    In gap k the job restarts (except in the very first gap of the run),
    then completes floor(available / span) full segments, capped at the n
    it still needs.  It finishes in the first gap k* whose available time
    covers what is left.  Before k*, the lost time telescopes to
    sum(available) - span * (segments completed), and the restart time to
    sum(gaps) - sum(available); so two cumulative sums along the rows give
    both.  Unfinished rows carry their totals in ``st``.
    """
    n, span, tail = segs
    rows, k = g.shape
    avail = g - r
    if not st.need_restart:
        avail[:, 0] = g[:, 0]
    np.maximum(avail, 0.0, out=avail)
    cum = np.floor(avail / span)
    np.cumsum(cum, axis=1, out=cum)
    cum += st.done[:, None]
    np.minimum(cum, n, out=cum)
    before = np.empty_like(cum)
    before[:, 0] = st.done
    before[:, 1:] = cum[:, :-1]
    fin = (n - before) * span + tail <= avail
    any_fin = fin.any(axis=1)
    kstar = np.where(any_fin, fin.argmax(axis=1), k)
    ridx = np.arange(rows)
    prev = np.maximum(kstar - 1, 0)
    had = kstar > 0
    s_av = np.where(had, np.cumsum(avail, axis=1)[ridx, prev], 0.0)
    s_g = np.where(had, np.cumsum(g, axis=1)[ridx, prev], 0.0)
    done_at = np.where(any_fin, before[ridx, np.minimum(kstar, k - 1)], cum[:, -1])
    lost = st.lost + s_av - span * (done_at - st.done)
    rest = st.rest + (s_g - s_av)
    fr = ridx[any_fin]
    first = (kstar[fr] == 0) & (not st.need_restart)
    rest[fr] += np.where(first, 0.0, r)
    nfail = st.nfail + kstar
    keep = ~any_fin
    st.done, st.lost, st.rest, st.nfail = cum[keep, -1], lost[keep], rest[keep], nfail[keep]
    st.need_restart = True
    return any_fin, lost, rest, nfail


def _blocks(next_block, replicas, segs, r, limit=np.inf):
    """Feed gap blocks to :func:`_scan` until every row has finished.

    ``next_block(rows)`` returns the next block of gaps for the rows (an
    index array) still running.  Blocks of at most 64 gaps keep the
    matrices in cache, and finished rows drop out between blocks.
    """
    out = np.zeros((3, replicas))
    rows = np.arange(replicas)
    st = _State(replicas)
    drawn = 0
    while rows.size:
        g = next_block(rows)
        drawn += g.shape[1]
        if drawn > limit:
            raise NoProgressError(_NEVER_ENDS)
        fin, lost, rest, nfail = _scan(g, st, segs, r)
        out[:, rows[fin]] = lost[fin], rest[fin], nfail[fin]
        rows = rows[~fin]
    return out[0], out[1], out[2].astype(np.int64)


def _renewal(rng, replicas, segs, r, src, per_run):
    """Gap engine for independent gaps, drawn block by block for the rows still running (at most 20 times
    the failures a run was expected to need, then :class:`NoProgressError`)."""
    k = int(min(max(16, 1.2 * per_run + 8), 64))
    limit = max(1e4, 20 * per_run)
    return _blocks(lambda rows: src.gaps(rng, rows.size, k), replicas, segs, r, limit)


def _timeline(rng, replicas, segs, r, src, busy, est):
    """Gap engine for failure timelines, in batches of replicas.

    Each batch draws its timelines up to a horizon and doubles the horizon
    (redrawing the batch) until every run ends inside it.
    """
    first = 1.5 * est + 10 * src.mean_h
    per_row = first / src.mean_h
    if per_row > 2e5:
        raise NoProgressError(_NEVER_ENDS)
    nodes = int(getattr(src, "n_nodes", 1))  # NodeRenewals draws one up time per node and replica
    batch = int(max(1, min(replicas, 1e6 // per_row, _MAX_DRAWS // nodes)))
    parts = [_timeline_batch(rng, min(batch, replicas - i), segs, r, src, busy, first)
             for i in range(0, replicas, batch)]
    return tuple(np.concatenate([p[j] for p in parts]) for j in range(3))


def _timeline_batch(rng, rows, segs, r, src, busy, horizon):
    for _ in range(3):  # up to 4 times the first horizon
        t = src.times(rng, rows, horizon)
        t = np.concatenate([t, np.full((rows, 1), np.inf)], axis=1)
        with np.errstate(invalid="ignore"):  # inf - inf past the last failure
            g = np.diff(t, axis=1, prepend=0.0)
        g[np.isnan(g)] = np.inf
        col = [0]

        def next_block(live, g=g, col=col):
            c0 = col[0]
            col[0] += 64
            return g[live, c0:c0 + 64]
        lost, rest, nfail = _blocks(next_block, rows, segs, r)  # the last gap is inf: all finish
        if np.all(busy + lost + rest <= horizon):
            return lost, rest, nfail
        horizon *= 2
    raise NoProgressError(_NEVER_ENDS)
