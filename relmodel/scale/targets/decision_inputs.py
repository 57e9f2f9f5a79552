"""The inputs a decision rests on, each with where it came from.

* :func:`restart_input`: the restart time measured from the log (a Slurm
  export's requeue gaps, plus the detection latency when a kernel log was
  joined), else the parameter, else the default (an assumption);
* :func:`choose_law`: the failure law of the job's interruptions, the AIC
  ranking's best family among those its bootstrap test does not reject,
  exponential with its reason otherwise;
* :func:`cluster_wide_causes`: causes that strike many nodes at once in the
  log, held per job rather than grown with the node count;
* :func:`cost_input`: a checkpoint cost or restart as given, checked (finite,
  0 to a year); :func:`interval_at`: the interval at an MTBF bound (inf when
  the bound is unbounded).

Each returns plain values and a sentence a report can print.
"""

import copy
import hashlib
import math
import warnings

import numpy as np

from ...checkpoint.intervals import optimal_interval
from ...defaults import DEFAULTS
from ...errors import ModelInputError
from ...units import hours

__all__ = ["MEASURED", "PARAMETER", "ASSUMED", "MAX_COST_H", "cost_input", "interval_at", "restart_input", "detection_latency", "choose_law", "law_ranking",
           "cluster_wide_causes", "LAW_FAMILIES", "law_name"]

#: Where an input came from, as summary.json's ``headline.source`` says it.
MEASURED, PARAMETER, ASSUMED = "measured from the log", "parameter", "assumption"

#: Families ranked for the job's failure law.
LAW_FAMILIES = ("exponential", "weibull", "lognormal", "gamma", "loglogistic")

#: Family names as sentences write them (a law named for a person is capitalised).
_NAMES = {"weibull": "Weibull", "loglogistic": "log-logistic"}


def law_name(family):
    """A law family as a sentence names it: "weibull" -> "Weibull", "gamma" -> "gamma"."""
    return _NAMES.get(str(family), str(family))


def detection_latency(source):
    """Hours from a fault to the job's end, as a joined kernel log measured it; None when not known."""
    data = getattr(source, "data", source)
    for name in ("detection_latency_h", "detection_latency"):
        value = getattr(data, name, None)
        if callable(value):
            try:
                value = value()
            except Exception:  # a reader without a joined kernel log
                value = None
        value = getattr(value, "hours", value)
        if value is None:
            continue
        arr = np.asarray(value, dtype=float).ravel()
        arr = arr[np.isfinite(arr)]
        if arr.size:
            return float(arr.mean())
    return None


def restart_input(source, restart=None):
    """``(restart_h, source, note, latency_h)``: the restart time a decision uses, and where it came from.

    ``restart`` given: the parameter.  Not given: the mean of the log's
    requeue gaps (job end to next start) plus the measured detection latency
    when the log has them; else the default 10 minutes, an assumption.
    """
    data = getattr(source, "data", source)
    latency = detection_latency(data)
    if restart is not None:
        return float(hours(restart)), PARAMETER, "as given", latency
    gaps = None
    if hasattr(data, "restart_gaps"):
        try:
            g = data.restart_gaps()
            gaps = np.asarray(getattr(g, "hours", g), float)
            gaps = gaps[np.isfinite(gaps) & (gaps >= 0)]
        except Exception:  # a log without segments
            gaps = None
    if gaps is not None and gaps.size:
        r = float(np.median(gaps))  # a run held for a day between two restarts is not a restart time
        note = f"the median of {gaps.size:,} requeue gaps (job end to next start) in the log"
        if latency is not None:
            r += latency
            note += ", plus the measured detection latency (fault to job end)"
        return r, MEASURED, note, latency
    return float(hours(DEFAULTS["restart"])), ASSUMED, "the default: the log shows no restarts", latency


def law_ranking(source, *, n_boot=100, seed=None, families=LAW_FAMILIES):
    """``(comparison, reason)``: the fits :func:`choose_law` ranks, on the job's times between interruptions.

    ``comparison`` is a :func:`~relmodel.stats.lifetimes.ranking.compare_fits`
    result (None, with the reason, for a count table or fewer than 10 gaps);
    the failure-distributions page shows it beside its own ranking so the law
    the answer uses is seen where laws are compared.
    """
    data = getattr(source, "data", source)
    if not hasattr(data, "interarrivals"):
        return None, "a count table has no times to fit a shape to"
    gaps = data.interarrivals()
    if gaps.n_observed < 10:
        return None, f"only {gaps.n_observed} gaps between interruptions, too few to fit a shape"
    from ...stats.lifetimes.fitting import prepare
    from ...stats.lifetimes.ranking import compare_fits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sample = prepare(gaps)
    key = None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):  # a fixed seed: the same ranking again
        digest = hashlib.blake2b(digest_size=16)
        for a in (sample.t, sample.obs, sample.entry, sample.w):
            digest.update(b"-" if a is None else np.ascontiguousarray(a).tobytes() + b"|")
        key = (digest.hexdigest(), tuple(families), int(n_boot), int(seed))
        if key in _RANKINGS:
            return copy.deepcopy(_RANKINGS[key]), None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = compare_fits(gaps, list(families), n_boot=n_boot, seed=seed)
    if key is not None:
        _RANKINGS[key] = copy.deepcopy(cmp)
        while len(_RANKINGS) > 8:  # the last few logs' rankings: a report's pages, a CLI and a script share them
            _RANKINGS.pop(next(iter(_RANKINGS)))
    return cmp, None


#: :func:`law_ranking`'s recent results by the gaps' bytes, families, resamples and seed (the bootstrap is seeded,
#: so the same inputs give the same ranking: computed once per process, a copy handed out each time).
_RANKINGS = {}


def choose_law(source, *, alpha=0.05, n_boot=100, seed=None, families=LAW_FAMILIES, ranking=None):
    """``(family, fit, comparison_fit, reason)``: the law the job's interruptions follow.

    ``family`` is the AIC-best family its bootstrap test does not reject
    (``fit`` its fit), or "exponential" (``fit`` None) with the reason;
    ``comparison_fit`` is the AIC-best fit whatever its test says (None for a
    count table or too few gaps), for a simulation shown beside the answer.
    ``ranking`` is :func:`law_ranking`'s result when already computed.
    """
    cmp, why = ranking if ranking is not None else law_ranking(source, n_boot=n_boot, seed=seed, families=families)
    if cmp is None:
        return "exponential", None, None, why
    t = cmp.by_family
    best = cmp.fits[str(t["family"].iloc[0])]
    if int(n_boot) < 1:
        fam = str(t["family"].iloc[0])
        return fam, (None if fam == "exponential" else best), best, "the AIC-best family (no bootstrap test run)"
    ok = [str(f) for f, p in zip(t["family"], t["p_value"]) if math.isfinite(p) and p >= alpha]
    if not ok:
        return "exponential", None, best, (f"every family's bootstrap test rejects it (p below {alpha:g}), so no "
                                           "shape is trusted and the exponential formula answers")
    fam = ok[0]
    rank = list(map(str, t["family"])).index(fam) + 1
    where = "the AIC-best family" if rank == 1 else f"ranked {rank} by AIC, the best its bootstrap test keeps"
    if fam == "exponential":
        return "exponential", None, best, f"the exponential law is {where}"
    p = float(t["p_value"].iloc[rank - 1])
    return fam, cmp.fits[fam], best, f"the {law_name(fam)} law is {where}, with bootstrap p = {p:.2g}"


def cluster_wide_causes(source, *, min_nodes=3, within="1min", share=0.5):
    """Causes whose outages mostly strike ``min_nodes`` or more nodes within ``within`` of each other.

    Such a cause lives in what the nodes share (file system, power,
    scheduler, network core), so it is held per job.  Returns a dict
    cause -> share of its outages in such bursts (a log with causes and
    nodes only; else empty).
    """
    data = getattr(source, "data", source)
    cols = list(getattr(data, "cause_columns", None) or [])
    if not cols or not hasattr(data, "interruptions"):
        return {}
    ev = data.interruptions()
    if "node" not in ev or ev["node"].nunique() < min_nodes:
        return {}
    col, tol = cols[0], float(hours(within))
    out = {}
    for cause, g in ev.groupby(col, observed=True, sort=False):
        if len(g) < min_nodes:
            continue
        t = np.sort(g["start_h"].to_numpy(float))
        nodes = g.sort_values("start_h")["node"].to_numpy()
        burst = np.zeros(t.size, bool)
        lo = 0
        for hi in range(t.size):
            while t[hi] - t[lo] > tol:
                lo += 1
            if len(set(nodes[lo:hi + 1])) >= min_nodes:
                burst[lo:hi + 1] = True
        frac = float(burst.mean())
        if frac >= share:
            out[str(cause)] = frac
    return out


def cost_input(name, value):
    """A checkpoint cost or restart in hours: finite, 0 or more and under :data:`MAX_COST_H`; else ModelInputError."""
    h = float(hours(value))
    if not 0 <= h <= MAX_COST_H:
        raise ModelInputError(f"{name} must be a duration from 0 to {MAX_COST_H:,.0f} h (a year); got {value!r:.60}")
    return h


#: The longest checkpoint cost or restart a decision takes, hours (a year: anything longer is a slip of units).
MAX_COST_H = 8766.0


def interval_at(mtbf, d):
    """The optimal interval at one bound of the MTBF; ``inf`` when that bound is unbounded (too few failures)."""
    return math.inf if not math.isfinite(mtbf) else float(optimal_interval(mtbf=mtbf, ckpt_cost=d))
