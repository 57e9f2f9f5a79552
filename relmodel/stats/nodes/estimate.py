"""One call: bad ("lemon") nodes and repairs that do not fix, estimated from an interruption log.

:func:`bad_nodes` reads each node's in-service intervals (:mod:`.intervals`),
tests a homogeneous fleet against an overdispersed one, measures the worst
nodes' share of failures (:mod:`.dispersion`) and fits the two-class model of
good and bad nodes with imperfect repairs (:mod:`.twoclass`).
"""

import warnings

import numpy as np
import pandas as pd
from scipy import linalg, stats

from ...data.shaping.logs import InterruptionLog, LogWarning
from ...data.shaping.window import check_observed_time
from ...errors import CountError, InputTypeError, ModelInputError
from .dispersion import dispersion_test, worst_shares
from .intervals import node_intervals
from .result import BadNodes
from .twoclass import _BOUNDS, fit_twoclass, homogeneous_loglik, natural, paths

__all__ = ["bad_nodes"]


def _log_and_population(source, population):
    """The log, the population (None: unknown) and where it came from."""
    if isinstance(source, InterruptionLog):
        log, stated = source, source._n_nodes
    elif getattr(source, "kind", None) == "log" and isinstance(getattr(source, "data", None), InterruptionLog):
        log = source.data
        stated = None if "seen in the log" in str(source.cluster_from) else int(source.n_nodes)
    else:
        log = None
    if log is not None and hasattr(log, "segments"):   # a Slurm export: its rows are jobs, not nodes
        log, stated = _kernel_of(log)
    if log is None:
        raise InputTypeError(f"bad_nodes needs an interruption log (read_log, relmodel.datasets.stepfun(), or a "
                             f"Source of a log); got {type(source).__name__}: a count table has no per-node failures")
    keys = log._codes()[1]
    if len(keys) == 1 and str(keys[0]) == "all":   # read without node=: one system, no nodes to compare
        raise InputTypeError(f"{log.name}: the log names no nodes (it was read without node=), so there are no "
                             "nodes to compare; read it with node= the column naming each outage's node")
    if population is not None:
        ok = isinstance(population, (int, np.integer)) and not isinstance(population, bool) and population >= 1
        if not ok:
            raise CountError(f"population must be a whole number of nodes, 1 or more; got {population!r}")
        return log, int(population)
    return log, (int(stated) if stated is not None else None)


def _check_arguments(conf, alpha, k, seed):
    """Refuse arguments numpy would trip on later, each with its name."""
    for name, v in (("conf", conf), ("alpha", alpha)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not 0 < v < 1:
            raise ModelInputError(f"{name} is a probability between 0 and 1, such as 0.95 or 0.05; got {v!r}")
    if k is not None:
        for v in np.atleast_1d(np.asarray(k, dtype=object)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer, float, np.floating)) \
                    or not float(v).is_integer() or v < 1:
                raise ModelInputError(f"k is a whole number of nodes, 1 or more (or a list of them); got {k!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ModelInputError(f"seed is a whole number, 0 or more (or None for fresh entropy); got {seed!r}")


def _with_ends(log):
    """The log, its outages taken as instantaneous when it has no end times at all (with a warning): each
    would otherwise stop its node's observation at its first outage."""
    end = log.events["end_h"].to_numpy(float)
    if end.size == 0 or not np.isnan(end).all():
        return log
    warnings.warn(f"{log.name}: the log has no outage end times, so outages are taken as instantaneous: time in "
                  "repair counts as time in service, and a repair that does not fix shows as failures soon after "
                  "the last one", LogWarning, stacklevel=3)
    events = log.events.copy()
    events["end_h"] = events["start_h"]
    return log.replace(events=events)


def _kernel_of(run):
    """The node-level log of a Slurm run: its joined kernel log, with the run's nodes as the population."""
    kernel = getattr(run, "kernel", None)
    if kernel is None:
        raise InputTypeError(f"{run.name}: a Slurm export names the job of each interruption, not the node that "
                             f"failed; join the kernel log of its nodes (syslog=...) to find bad nodes")
    seen = getattr(run, "nodes_seen", None)
    listed = kernel.events["node"].nunique()
    stated = int(seen) if isinstance(seen, (int, np.integer)) and seen >= listed else None
    return kernel, stated


def _exact_rates(k, t, conf):
    """Garwood's exact Poisson interval of ``k`` failures in ``t`` hours, per 1,000 h (NaN where t is 0)."""
    a = 1 - conf
    uk, at = np.unique(k, return_inverse=True)   # the chi-square quantiles once per distinct count
    at = at.reshape(np.shape(k))
    with np.errstate(divide="ignore", invalid="ignore"):
        tt = np.where(t > 0, t, np.nan)
        lo = np.where(uk > 0, stats.chi2.ppf(a / 2, 2 * np.maximum(uk, 1)), 0.0)[at] / (2 * tt)
        hi = stats.chi2.ppf(1 - a / 2, 2 * uk + 2)[at] / (2 * tt)
        return 1000 * k / tt, 1000 * lo, 1000 * hi


def _fleet_paths(iv, population, listed_fail):
    """Path arrays: the listed nodes (only those that failed when the population is unknown), plus one
    weighted node standing for the unlisted ones."""
    n, u, failed = iv.n, iv.u, iv.failed
    if population is None:
        keep = np.repeat(listed_fail, n)
        n = n[listed_fail]
        return paths(n, u[keep], failed[keep], np.ones(n.size), np.full(n.size, iv.window_h))
    extra = population - iv.keys.size
    weight = np.ones(n.size + (extra > 0))
    if extra > 0:
        n, u, failed = np.append(n, 1), np.append(u, iv.window_h), np.append(failed, False)
        weight[-1] = extra
    return paths(n, u, failed, weight, np.zeros(n.size))


def _not_estimable(theta, info, fails, lr, alpha):
    """Why the two-class model is not identified at the fit, or "" when it is."""
    pi, m = natural(theta, 1.0)[:2]
    if fails.max(initial=0) < 2:
        return "no node failed twice"
    crit = stats.chi2.ppf(1 - alpha, 3)
    if lr < crit:
        return (f"one rate for all nodes fits about as well: likelihood ratio {lr:.1f}, below the {crit:.1f} a "
                "bad class would need")
    if pi < 1e-3 or theta[0] <= _BOUNDS[0][0] + 0.01:
        return "the fit puts no nodes in the bad class"
    if theta[1] >= _BOUNDS[1][1] - 0.01:
        return ("bad nodes fail so much more often than good ones that the fit runs to its largest rate ratio: "
                "the log holds too few good-node failures to measure the ratio")
    if m < 1.1 or theta[1] <= _BOUNDS[1][0] + 0.01:
        return "bad and good nodes fail at the same rate in the fit"
    if not np.all(np.isfinite(info)) or np.linalg.eigvalsh(info).min() <= 0:
        return "the likelihood is flat in some direction"
    return ""


def _estimates(theta, p, scale, conf, reason, info):
    """The parameters' table: value and Wald interval on the fit's scales, back-transformed."""
    z = stats.norm.ppf(0.5 + conf / 2)
    rows = []
    if reason:
        k, t = float(np.dot(p.weight, p.fails)), float(np.dot(p.weight, p.expo))
        lam, lo, hi = (v / 1000 for v in _exact_rates(np.array(k), np.array(t), conf))
        nan = (np.nan, np.nan, np.nan, False)
        return pd.DataFrame([("bad_share",) + nan, ("multiplier",) + nan, ("lam", float(lam), float(lo),
                             float(hi), True), ("good_mtbf_h", 1 / lam, 1 / hi, 1 / lo if lo > 0 else np.inf, True),
                             ("unfixed",) + nan], columns=["parameter", "value", "low", "high", "estimable"])
    cov = linalg.inv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    value, low, high = natural(theta, scale), natural(theta - z * se, scale), natural(theta + z * se, scale)
    for i, name in enumerate(("bad_share", "multiplier", "lam", "unfixed")):
        rows.append((name, float(value[i]), float(low[i]), float(high[i]), True))
    rows.insert(3, ("good_mtbf_h", 1 / value[2], 1 / high[2], 1 / low[2], True))
    return pd.DataFrame(rows, columns=["parameter", "value", "low", "high", "estimable"])


def _worst_frame(ks, share, envelope):
    return pd.DataFrame({"k": np.asarray(ks, int), "share": share, "envelope": envelope,
                         "beyond": np.asarray(share) > np.asarray(envelope)})


def _nodes_frame(iv, p_bad, p_ever, conf):
    fails, expo = iv.failures, iv.exposure_h
    rate, lo, hi = _exact_rates(fails.astype(float), expo, conf)
    df = pd.DataFrame({"node": iv.keys, "failures": fails, "exposure_h": expo, "rate_per_1000h": rate,
                       "rate_lo": lo, "rate_hi": hi, "p_bad": p_bad, "p_bad_ever": p_ever})
    # likeliest bad now first; among nodes alike on that (to the printed digit), those likeliest bad in the log
    order = np.lexsort((-fails, -np.round(p_ever, 3), -np.round(p_bad, 3)))   # stable; NaN last
    return df.take(order).reset_index(drop=True)


def _fit(iv, population, listed_fail, alpha):
    """The two-class fit: (theta, loglik, scale, paths, reason it is not estimable, p_bad per listed node,
    observed information, likelihood ratio against one rate for all nodes)."""
    p = _fleet_paths(iv, population, listed_fail)
    theta, ll, scale, _, post, info = fit_twoclass(p, details=True)
    lr = max(0.0, 2 * (ll - homogeneous_loglik(p, scale)))
    reason = _not_estimable(theta, info, iv.failures, lr, alpha)
    p_bad = np.full(iv.keys.size, np.nan)
    p_ever = p_bad.copy()
    if reason:
        return theta, ll, scale, p, reason, (p_bad, p_ever), info, lr
    post, ever = post[p.last], 1.0 - post[p.starts]
    fitted = listed_fail if population is None else np.ones(iv.keys.size, bool)
    p_bad[fitted] = post[:int(fitted.sum())]
    p_ever[fitted] = ever[:int(fitted.sum())]
    if not fitted.all():  # listed for planned outages only: no failure in their time in service
        pi, m, lam, _ = natural(theta, scale)
        e = iv.exposure_h[~fitted]
        p_bad[~fitted] = p_ever[~fitted] = 1 / (1 + (1 - pi) / pi * np.exp(lam * (m - 1) * e))
    return theta, ll, scale, p, reason, (p_bad, p_ever), info, lr


def bad_nodes(source, *, population=None, conf=0.95, alpha=0.05, k=None, seed=None):
    """Find bad ("lemon") nodes and say whether repairs fix them, from an interruption log.

    Each node is good (``lam`` failures per hour in service) or bad
    (``multiplier * lam``), bad at the start with probability ``bad_share``; a
    repair fixes a bad node for good with probability ``1 - unfixed``.  Time in
    an outage is no exposure; a planned outage is no failure.

    Parameters
    ----------
    source : an :class:`~relmodel.data.shaping.logs.InterruptionLog` (with a node column) or a
        :class:`~relmodel.data.source.Source` of one.
    population : nodes the log observed (a count).  Default: the log's stated
        node count; when it has none only the nodes that failed are known and
        each node's likelihood is conditioned on at least one failure.
    conf : confidence level of the intervals (a probability).
    alpha : level of the homogeneity test (a probability).
    k : worst-k counts of nodes for the share of failures they hold (default
        1, 3, 10, 1% and 5% of the nodes).
    seed : seed of the homogeneous fleet's simulated envelope (None: fresh entropy).

    Returns a :class:`~relmodel.stats.nodes.result.BadNodes`: the nodes ranked
    by their chance of being bad now, the test, the fitted shares, rates (per
    hour) and their intervals.

    Examples
    --------
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> r = bad_nodes(stepfun(), seed=0)          # 400 servers, 349 days
    >>> r.n_nodes, r.n_failures, r.heterogeneous
    (400, 582, True)
    >>> r.ranked(3)[["failures", "p_bad"]].round(2).to_dict("list")    # failures and chance bad, worst first
    {'failures': [14, 6, 7], 'p_bad': [0.8, 0.77, 0.75]}
    >>> print(f"{r.bad_share:.2f} {r.multiplier:.1f} {r.unfixed:.2f}")   # share bad, rate ratio, repairs unfixed
    0.20 10.6 0.83
    """
    _check_arguments(conf, alpha, k, seed)
    log, population = _log_and_population(source, population)
    iv = node_intervals(_with_ends(check_observed_time(log)))
    if population is not None and population < iv.keys.size:
        raise CountError(f"{log.name}: population={population:,} but the log lists {iv.keys.size:,} nodes; give "
                         f"a population of at least {iv.keys.size:,} (or leave it out)")
    fails, expo = iv.failures, iv.exposure_h
    if fails.sum() == 0:
        raise CountError(f"{log.name}: no node failed in the window (only planned outages); there is nothing "
                         "to tell bad nodes from good")
    listed_fail = fails > 0
    truncated = population is None
    theta, ll, scale, p, reason, p_bad, info, lr = _fit(iv, population, listed_fail, alpha)
    n_zero = 0 if truncated else population - iv.keys.size
    use = listed_fail if truncated else np.ones(iv.keys.size, bool)
    n_counted = int(use.sum()) + n_zero
    if np.any(use & (expo <= 0)):   # failed with no time in service (down from the window's start): no count
        held = int(np.sum(use & (expo <= 0)))   # the two-class fit, on intervals, still takes them
        warnings.warn(f"{log.name}: {held:,} node{'s' if held > 1 else ''} failed with no time in service in the "
                      "window (down from its start); their failures are left out of the homogeneity test and "
                      "the worst-node shares", LogWarning, stacklevel=2)
        use = use & (expo > 0)
    w = np.append(np.ones(int(use.sum())), n_zero)
    disp = dispersion_test(np.append(fails[use], 0), np.append(expo[use], iv.window_h), w, truncated, conf)
    ks, share, envelope, _ = worst_shares(fails[use], expo[use], n_zero, iv.window_h, truncated, seed=seed, ks=k)
    nodes = _nodes_frame(iv, *p_bad, conf)
    return BadNodes(log.name, nodes, _estimates(theta, p, scale, conf, reason, info), disp,
                    _worst_frame(ks, share, envelope), not reason, reason,
                    n_counted, int(iv.keys.size), int(fails.sum()), float(np.dot(p.weight, p.expo)),
                    truncated, conf, alpha, ll, lr)
