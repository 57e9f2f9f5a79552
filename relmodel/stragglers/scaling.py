"""How straggler loss grows with the number of ranks: E[max of N] and fail-slow nodes.

A synchronous step on N ranks whose step times X_1..X_N are independent
with distribution F takes max_i X_i.  Its mean is computed exactly by
numerical integration, with the substitution u = e^{-y/N} in
E[max] = ∫_0^1 Q(u^{1/N}) du:

    E[max of N] = ∫_0^∞ Q̄(1 - e^{-y/N}) e^{-y} dy,

where Q̄(p) is the inverse survival function (the value exceeded with
probability p), evaluated at -expm1(-y/N) so it keeps its digits for N up
to 10^6 and beyond.  :func:`gumbel_max` gives the extreme-value asymptote
a_N + γ b_N (a_N = Q̄(1/N), b_N = 1/(N f(a_N))) for comparison.

**Fail-slow nodes.** Nodes turn slow at ``rate`` per node-hour, by
``slowdown`` (a fraction: their step times are multiplied by
``factor = 1 + slowdown``), and stay slow until detected and evicted ``duration`` hours
later.  By Little's law the number slow at any moment is Poisson with mean
rate × nodes × duration.  With m slow ranks among N the step takes
E[max] = ∫ (1 - F(x)^{N-m} F(x/factor)^m) dx (positive step times),
averaged over the Poisson count of slow nodes.  The share of time lost is
1 - typical / E[step], against the typical (median, or mean) step time of
one rank, the straggler-free pace.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ModelInputError
from ..stats import fit
from ..units import hours
from ..tables import Result, people_table
from .quadrature import integrate

__all__ = ["expected_max", "gumbel_max", "max_with_slow", "ScalingCurve", "straggler_scaling", "as_distribution",
           "within_step_times", "fit_rank_times"]

_EULER = 0.5772156649015329


def as_distribution(dist):
    """A frozen scipy distribution from a :func:`relmodel.fit` result or a frozen distribution."""
    d = dist.dist if hasattr(dist, "family") and hasattr(dist, "params") else dist
    if not all(hasattr(d, a) for a in ("isf", "cdf", "ppf")):
        raise ModelInputError(f"need a fitted distribution (relmodel.fit result) or a frozen scipy "
                              f"distribution; got {type(dist).__name__}")
    return d


def _sizes(n):
    arr = np.atleast_1d(np.asarray(n, dtype=float))
    if np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise ModelInputError(f"numbers of ranks must be whole numbers >= 1; got {n!r}")
    return arr


def _emax_one(d, n):
    def f(y):
        u = np.exp(-y / n)  # the quantile level; its complement keeps its digits through expm1
        low = u < 0.5
        q = np.empty_like(y)
        q[low] = d.ppf(u[low])
        q[~low] = d.isf(-np.expm1(-y[~low] / n))
        w = np.exp(-y)
        v = q * w
        v[(w < 1e-250) & ~np.isfinite(v)] = 0.0    # a quantile that overflows where its weight is nil
        return v

    # beyond y = 700 the weight e^{-y} is below 1e-304
    return integrate(f, (0.0, 1e-12, 1e-9, 1e-6, 1e-3, 1.0, 10.0, 50.0, 700.0), epsrel=1e-11)[0]


def expected_max(dist, n):
    """E[max of n] independent draws from ``dist``, by numerical integration (see the module notes).

    ``dist`` is a frozen scipy distribution or a :func:`relmodel.fit` result
    (step times in hours, or any unit: the result is in the unit of ``dist``);
    ``n`` is the number of draws (ranks).

    Examples
    --------
    >>> import math
    >>> from scipy import stats
    >>> d = stats.norm(1.0, 0.1)
    >>> round(float(expected_max(d, 1)), 6), round(float(expected_max(d, 2)), 6)
    (1.0, 1.056419)
    >>> round(1.0 + 0.1 / math.sqrt(math.pi), 6)        # closed form for the max of two normals
    1.056419
    """
    d = as_distribution(dist)
    sizes = _sizes(n)
    out = np.array([_emax_one(d, k) for k in sizes])
    return out.reshape(np.shape(n))[()]


def gumbel_max(dist, n):
    """The Gumbel asymptote a_n + γ b_n of E[max of n] (a_n = Q̄(1/n), b_n = 1/(n f(a_n)))."""
    d = as_distribution(dist)
    sizes = _sizes(n)
    a = d.isf(1.0 / sizes)
    with np.errstate(divide="ignore"):  # n = 1: the asymptote does not exist (inf)
        b = 1.0 / (sizes * d.pdf(a))
    return (a + _EULER * b).reshape(np.shape(n))[()]


def max_with_slow(dist, n, n_slow=0, *, slowdown=0.0):
    """E[max] of n - n_slow draws from ``dist`` and n_slow draws slower by ``slowdown`` (positive times).

    ``slowdown`` is a fraction: a slow draw is ``(1 + slowdown)`` × a draw
    of ``dist`` (0.3: 30% longer).

    Examples
    --------
    >>> from scipy import stats
    >>> d = stats.expon()                  # one rank's step time: exponential, mean 1
    >>> round(max_with_slow(d, 2, 1, slowdown=0.5), 6)   # E[max(X, 1.5 Y)] = 1 + 1.5 - E[min] (mean 1 / (1 + 2/3))
    1.9
    """
    d = as_distribution(dist)
    n, m, slowdown = float(n), float(n_slow), float(slowdown)
    factor = 1.0 + slowdown
    if m == 0 or slowdown == 0.0:
        return float(expected_max(d, n))
    if not (0 <= m <= n and factor > 0):
        raise ModelInputError(f"need 0 <= n_slow <= n and slowdown > -1 (a fraction: 0.3 is 30% slower); "
                              f"got n={n}, n_slow={m}, slowdown={slowdown}")
    if d.ppf(0) < 0:
        raise ModelInputError("max_with_slow needs positive step times (a distribution on [0, inf))")

    def surv(x):
        with np.errstate(divide="ignore"):
            return -np.expm1((n - m) * d.logcdf(x) + m * d.logcdf(x / factor))

    hi = max(d.isf(1e-15 / n), factor * d.isf(1e-15 / max(m, 1)))
    # where each group's largest draw changes fastest: its quantiles at c / (group size), c from 1e-3 to 1e3
    levels = np.array([1e-3, 1e-2, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0, 1e3])
    fast = [p for p in levels / (n - m) if p < 1] if n > m else []
    slow = [p for p in levels / m if p < 1]
    pts = [float(d.ppf(0.5)), float(factor * d.ppf(0.5)), *map(float, d.isf(np.array(fast))),
           *map(float, factor * d.isf(np.array(slow)))]
    ends = [float(v) * k for v in d.support() for k in (1.0, factor) if np.isfinite(v)]   # kinks of bounded times
    pts = sorted({p for p in pts + ends if 0 < p < hi})
    return float(integrate(surv, [0.0, *pts, hi], epsrel=1e-11)[0])


@dataclass(frozen=True)
class ScalingCurve(Result):
    """Expected step time and share of time lost against the number of GPUs (``by_size``, one row per size)."""

    by_size: pd.DataFrame
    typical_h: float
    typical: str
    fail_slow: dict

    def to_frame(self):
        return self.by_size.copy()

    def _people(self):
        return people_table(self._people_raw())

    def _people_raw(self):
        """The table formatted for people."""
        t = self.by_size
        out = pd.DataFrame({"GPUs": t["n_gpus"].map("{:,.0f}".format),
                            "expected step (s)": (t["step_h"] * 3600).map("{:,.3f}".format),
                            "lost to noise (%)": (100 * t["loss_noise"]).map("{:.1f}".format)})
        if self.fail_slow:
            out["slow nodes at a time"] = t["mean_slow_nodes"].map(_count_text)
            out["lost with fail-slow (%)"] = (100 * t["loss_total"]).map("{:.1f}".format)
        return out

    def text(self):
        out = (f"Typical step ({self.typical}) of one rank: {self.typical_h * 3600:,.3g} s; a synchronous "
               f"step waits for the slowest of all ranks.")
        if self.fail_slow:
            f = self.fail_slow
            out += (f" Fail-slow nodes: one per {1 / f['rate_per_node_h']:,.0f} node-hours, each making a step "
                    f"{100 * f['slowdown']:.0f}% slower for {60 * f['duration_h']:,.0f} min until swapped out.")
        return out

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _count_text(v):
    return "under 0.01" if v < 0.005 else f"{v:,.2f}"


def _poisson_mix(d, n_gpus, gpus_per_node, mean_slow, slowdown):
    if mean_slow <= 0:
        return float(expected_max(d, n_gpus))
    n_nodes = n_gpus / gpus_per_node
    k_max = int(min(n_nodes, stats.poisson.isf(1e-9, mean_slow)))
    ks = np.arange(k_max + 1)
    w = stats.poisson.pmf(ks, mean_slow)
    vals = [max_with_slow(d, n_gpus, min(k * gpus_per_node, n_gpus), slowdown=slowdown) for k in ks]
    return float(np.dot(w, vals) / w.sum())


def straggler_scaling(dist, sizes=(8, 64, 512, 4096, 32768, 262144, 1048576), *, typical="median",
                      gpus_per_node=8, fail_slow_rate=0.0, slowdown=0.5, duration="1h"):
    """Expected synchronous step time and share of time lost for each cluster size in ``sizes`` (GPUs).

    ``dist`` is one rank's step-time distribution in hours (a :func:`relmodel.fit`
    result or a frozen scipy distribution).  ``fail_slow_rate`` (per node-hour),
    ``slowdown`` (a fraction: 0.5 makes a slow node's steps 50% longer) and
    ``duration`` (until evicted) add fail-slow nodes.

    Returns a :class:`ScalingCurve`; its ``by_size`` has step times in hours,
    the expected step's ``slowdown`` against the typical step (a fraction:
    0.074 is 7.4% longer) and the share of time lost (a fraction) per size.

    Examples
    --------
    >>> from scipy import stats
    >>> c = straggler_scaling(stats.lognorm(0.05, scale=2 / 3600), sizes=(8, 1024))   # 2 s median step
    >>> c.by_size["n_gpus"].tolist(), c.by_size["slowdown"].round(3).tolist()
    ([8, 1024], [0.074, 0.177])
    """
    d = as_distribution(dist)
    if typical not in ("median", "mean"):
        raise ModelInputError(f"typical must be 'median' or 'mean'; got {typical!r}")
    if fail_slow_rate < 0 or not slowdown >= 0:
        raise ModelInputError(f"need fail_slow_rate >= 0 and slowdown >= 0 (a fraction: 0.5 is 50% slower); "
                              f"got {fail_slow_rate!r}, {slowdown!r}")
    base = float(d.median() if typical == "median" else d.mean())
    sizes = _sizes(sizes)
    dur = hours(duration)
    step = expected_max(d, sizes)
    mean_slow = fail_slow_rate * sizes / gpus_per_node * dur
    total = np.array([_poisson_mix(d, n, gpus_per_node, ms, float(slowdown)) for n, ms in zip(sizes, mean_slow)])
    table = pd.DataFrame({"n_gpus": sizes.astype(np.int64), "step_h": step, "slowdown": step / base - 1,
                          "loss_noise": 1 - base / step, "mean_slow_nodes": mean_slow, "step_total_h": total,
                          "loss_total": 1 - base / total})
    fs = ({"rate_per_node_h": fail_slow_rate, "slowdown": float(slowdown), "duration_h": dur}
          if fail_slow_rate > 0 else {})
    return ScalingCurve(table, base, typical, fs)


def within_step_times(source, *, exclude=(), n=5000, seed=None):
    """A sample of per-rank step times (hours) with the step-to-step variation taken out.

    Each time is divided by its step's median and multiplied by the median
    step, so what is left is how ranks differ within a step, the spread that
    E[max of N] turns into waiting.  Ranks on the ``exclude`` nodes (e.g. the
    flagged fail-slow ones) are left out; ``n`` values are drawn at random.
    """
    keep = np.ones(source.n_ranks, dtype=bool)
    if len(exclude):
        keep &= ~np.isin(source.nodes if source.nodes is not None else source.ranks, list(exclude))
    if keep.sum() < 2:
        raise ModelInputError(f"{source.name}: fewer than 2 ranks left to describe the spread between ranks")
    rng = np.random.default_rng(seed)
    size = min(int(n), source.n_steps * int(keep.sum()))
    rows = rng.integers(0, source.n_steps, size=size)
    cols = rng.choice(np.flatnonzero(keep), size=size)
    med = np.median(source.times_h[rows], axis=1)
    return source.times_h[rows, cols] / med * float(np.median(med))


def fit_rank_times(source, family="lognormal", *, exclude=(), n=5000, seed=None):
    """Fit ``family`` (see :func:`relmodel.fit`) to :func:`within_step_times` of the log."""
    return fit(within_step_times(source, exclude=exclude, n=n, seed=seed), family)
