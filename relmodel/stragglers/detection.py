"""Fail-slow nodes: persistent slowness told apart from transient noise.

:func:`find_slow_nodes` works on each node's step time (its slowest rank's),
on the log scale so a slowdown by a factor is a shift:

1. **Robust across nodes, per step.** d[s, n] = log t[s, n] - median over
   nodes of log t[s, ·]: how much slower than the typical node, per step.
2. **Persistence over steps.** Steps are cut into windows of ``window``
   steps (aligned to the end of the log); a node's window value is the 25%
   trimmed mean of its d over the window, so a spike or burst shorter than a
   quarter of a window barely moves it.  Within each window the nodes are
   ranked and each gets the normal score Φ⁻¹((rank - ½)/N).  With no slow
   node the ranks are a random permutation, so a node's score has a known
   mean and variance whatever the shape of the step-time distribution (a
   test that assumed normal window values would raise false alarms: the
   maximum of a node's ranks is skewed).
3. **Evidence.** A fail-slow node stays slow from its onset on.  For the last
   L windows, L in 1, 2, 4, ... up to all of them, the node's summed scores
   are a one-sided test, whose tail probability is a saddlepoint
   approximation for a sum of L draws from the windows' scores; a node's
   p-value is the smallest of these times their number (Bonferroni over the
   lengths, counting only lengths that could reach the level: Tarone 1990,
   Biometrics 46(2)).
4. **Multiple testing.** The p-values of all nodes are corrected for the
   number of nodes tested: Holm (default; the chance of any false alarm in
   the whole log is at most ``alpha``), Bonferroni, or Benjamini-Hochberg
   (``"bh"``: the expected share of false alarms among those flagged is at
   most ``alpha``).  The bounds are conservative: on synthetic logs with no
   slow node the realised chance of any false alarm is about half of
   ``alpha`` (tests/stragglers/test_stragglers_detection.py).  A node is flagged when its corrected p-value is at most
   ``alpha`` and it is at least ``min_slowdown`` slower than the typical node.

Flagged nodes are then set aside and the others tested again, until a
round flags nothing new, so one very slow node (always ranked last) does
not hide a milder one.  The onset is the step that best splits the node's d into "before" and
"after" (a CUSUM for a shift of the estimated size); the slowdown reported
is the median of d from the onset on.  The test assumes
noise that is independent from window to window; choose ``window`` longer
than the transient episodes of the cluster (thermal throttling bursts,
checkpoint hiccups).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ModelInputError
from ..tables import Result, html_table, people_table
from relmodel.base.escape import html_text

__all__ = ["SlowNodes", "find_slow_nodes", "adjust_pvalues", "saddlepoint_sf"]

_CHUNK = 1_000_000


def adjust_pvalues(p, method="holm"):
    """P-values corrected for testing ``len(p)`` hypotheses: "holm", "bonferroni" or "bh"."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    if method == "bh":
        return stats.false_discovery_control(p, method="bh") if m else p
    if method == "holm":
        order = np.argsort(p, kind="stable")
        adj = np.maximum.accumulate(np.minimum(1.0, p[order] * (m - np.arange(m))))
        out = np.empty(m)
        out[order] = adj
        return out
    raise ModelInputError(f"correction must be 'holm', 'bonferroni' or 'bh'; got {method!r}")


@dataclass(frozen=True)
class SlowNodes(Result):
    """Nodes flagged as fail-slow, with the evidence for each (``flagged``) and every node tested (``tested``)."""

    flagged: pd.DataFrame
    tested: pd.DataFrame
    alpha: float
    correction: str
    window: int
    level: str
    n_tested: int
    scores: np.ndarray  # rank score of each node in each window (windows down, nodes across)
    relative: np.ndarray  # log of each node's time relative to the typical node, per window
    window_steps: np.ndarray  # first step of each window

    @property
    def nodes(self):
        return list(self.flagged[self.level])

    def to_frame(self):
        """The evidence table: one row per flagged node."""
        return self.flagged.copy()

    def _people(self, n=15):
        return people_table(self._people_raw(n))

    def _people_raw(self, n=15):
        """The flagged nodes formatted for people (at most ``n`` rows)."""
        t = self.flagged.head(n)
        return pd.DataFrame({self.level: t[self.level].astype(str),
                             "slower than typical (%)": (100 * t["slowdown"]).map("{:.1f}".format),
                             "slow since step": t["onset_step"].map("{:,}".format),
                             "steps slow": t["steps_slow"].map("{:,}".format),
                             "evidence (z)": t["z"].map("{:.1f}".format),
                             "corrected p-value": t["p_adjusted"].map(_p_text),
                             "slowest rank on it": t["slowest_rank"].astype(str)})

    def text(self):
        what = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg"}[self.correction]
        return (f"{len(self.flagged)} of {self.n_tested:,} {self.level}s flagged as fail-slow "
                f"(false-alarm level {self.alpha:g}, {what} correction over {self.n_tested:,} {self.level}s, "
                f"windows of {self.window:,} steps).")

    def _repr_html_(self):
        return f"<p>{html_text(self.text())}</p>" + (html_table(self.table()) if len(self.flagged) else "")

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()


def _p_text(p):
    return "below 0.0001" if p < 1e-4 else f"{p:.4f}"


def _relative_log(grid):
    """d[s, n] = log t[s, n] - median_n log t[s, ·], in row blocks."""
    out = np.empty(grid.shape)
    rows = max(1, _CHUNK // max(1, grid.shape[1]))
    tiny = np.finfo(float).tiny
    for i in range(0, grid.shape[0], rows):
        x = np.log(np.maximum(grid[i:i + rows], tiny))
        out[i:i + rows] = x - np.median(x, axis=1, keepdims=True)
    return out


def _window_scores(d, window):
    """Per window and node: relative slowness c (trimmed mean of d, centred) and its rank score."""
    k = d.shape[0] // window
    first = d.shape[0] - k * window
    m = stats.trim_mean(d[first:].reshape(k, window, d.shape[1]), 0.25, axis=1)
    c = m - stats.trim_mean(m, 0.25, axis=1)[:, None]
    u = (stats.rankdata(c, axis=1) - 0.5) / c.shape[1]
    return stats.norm.ppf(u), c, first


def _null_values(centred, bins=256):
    """The pooled null scores as (values, weights): a histogram of every window's centred scores."""
    flat = centred.ravel()
    lo, hi = flat.min(), flat.max()
    if hi <= lo:
        return np.array([0.0]), np.array([1.0])
    counts, edges = np.histogram(flat, bins=bins, range=(lo, hi))
    sums, _ = np.histogram(flat, bins=bins, range=(lo, hi), weights=flat)
    keep = counts > 0
    return sums[keep] / counts[keep], counts[keep] / counts.sum()


def _cgf(t, v, w):
    """K(t), K'(t), K''(t) of one draw from values v with weights w, for each t."""
    a = t[:, None] * v[None, :]
    a_max = a.max(axis=1, keepdims=True)
    e = w[None, :] * np.exp(a - a_max)
    z = e.sum(axis=1)
    m1 = (e * v).sum(axis=1) / z
    m2 = (e * v * v).sum(axis=1) / z
    return np.log(z) + a_max[:, 0], m1, m2 - m1 * m1


def saddlepoint_sf(x, n, values, weights, *, normal_above=0.2):
    """P(sum of n independent draws from (values, weights) >= x), Lugannani-Rice saddlepoint, per x.

    Where the normal approximation already gives more than ``normal_above``
    (far from the tail that decides a flag) it is kept, to save time.
    """
    x = np.asarray(x, dtype=float) / n  # per-draw mean
    vmax, mean = values.max(), float(np.dot(values, weights))
    var = float(np.dot(weights, (values - mean) ** 2))
    out = stats.norm.sf((x - mean) * np.sqrt(n / var)) if var > 0 else (x <= mean).astype(float)
    top = x >= vmax - 1e-12
    out[top] = weights[np.argmax(values)] ** n
    work = np.flatnonzero(~top & (x > mean + 1e-12 * max(1.0, abs(mean))) & (var > 0) & (out < normal_above))
    if not len(work):
        return out
    target = x[work]
    lo, hi = np.zeros(len(work)), np.ones(len(work))
    for _ in range(60):  # grow the bracket until K'(hi) >= target
        grow = _cgf(hi, values, weights)[1] < target
        if not grow.any():
            break
        hi[grow] *= 2
    for _ in range(50):
        mid = (lo + hi) / 2
        below = _cgf(mid, values, weights)[1] < target
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    t = (lo + hi) / 2
    k, _, k2 = _cgf(t, values, weights)
    r = np.sqrt(np.maximum(2 * n * (t * target - k), 0))
    u = t * np.sqrt(n * k2)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = stats.norm.sf(r) + stats.norm.pdf(r) * (1 / u - 1 / r)
    good = (r > 0.5) & np.isfinite(lr) & (lr > 0)
    out[work[good]] = np.minimum(lr[good], 1.0)
    return out


def _eligible(lengths, weights, level):
    """Tarone's (1990) rule: count only the lengths whose smallest possible p-value can reach the level.

    With bounded scores, a run of L windows cannot be less likely than L top
    ranks in a row (p = w_max^L); lengths that could never be significant
    are not tests, so they do not enter the Bonferroni count.
    """
    floor = np.max(weights) ** np.asarray(lengths, dtype=float)
    for j in range(len(lengths), 0, -1):
        keep = floor <= level / j
        if keep.sum() <= j:
            return keep if keep.any() else floor == floor.min()
    return np.ones(len(lengths), dtype=bool)


def _evidence(s, level):
    """Per node: smallest Bonferroni-corrected tail probability over the dyadic tail lengths, and that length.

    Under no fail-slow node the ranks of the nodes in a window are a random
    permutation, so a node's score is a draw from that window's scores: its
    distribution is known whatever the step-time distribution.  The tail of a
    sum of L such draws is the saddlepoint approximation (Lugannani and Rice
    1980), which keeps its accuracy far into the tail where a normal one does not.
    """
    k = s.shape[0]
    lengths = sorted({min(k, 2 ** j) for j in range(int(np.ceil(np.log2(k))) + 1)})
    centred = s - s.mean(axis=1, keepdims=True)
    values, weights = _null_values(centred)
    lengths = list(np.asarray(lengths)[_eligible(lengths, weights, level)])
    tail = np.cumsum(centred[::-1], axis=0)
    ps = np.stack([saddlepoint_sf(tail[L - 1], L, values, weights) for L in lengths])
    sd = np.sqrt(np.dot(weights, values ** 2))
    zs = np.stack([tail[L - 1] / (np.sqrt(L) * sd) if sd > 0 else np.zeros(s.shape[1]) for L in lengths])
    best = ps.argmin(axis=0)
    cols = np.arange(s.shape[1])
    p = np.minimum(1.0, len(lengths) * ps[best, cols])
    return zs[best, cols], p, np.asarray(lengths)[best]


def _onset(d_node, shift):
    """Index of the step that best splits a series into before (0) and after (shift)."""
    gain = np.cumsum((d_node - shift / 2)[::-1])[::-1]
    return int(np.argmax(gain))


def find_slow_nodes(source, *, alpha=0.01, correction="holm", window=None, min_slowdown=0.02, level=None):
    """Flag persistent fail-slow nodes of a step log (see the module notes).

    ``source`` is a :class:`~relmodel.data.formats.steps.StepLog` (step times in hours).
    ``level`` is "node" (default when the log names nodes) or "rank".
    ``window`` defaults to a twentieth of the steps, between 5 and 100.
    ``alpha`` is the false-alarm probability (family-wise for "holm" and
    "bonferroni", the false-discovery rate for "bh"), ``min_slowdown`` the
    smallest fractional slowdown worth flagging.  Returns :class:`SlowNodes`.

    Examples
    --------
    >>> from relmodel.stragglers.synthetic import synthetic_steps
    >>> s = synthetic_steps(n_nodes=4, ranks_per_node=2, n_steps=200, n_slow=1, seed=1)   # 2 s steps
    >>> s.slow["node"].tolist(), s.slow["onset_step"].tolist()      # the planted slow node
    ([2], [33])
    >>> found = find_slow_nodes(s.log)
    >>> found.flagged["node"].tolist(), int(found.flagged["steps_slow"].iloc[0])
    ([2], 163)
    """
    if not 0 < alpha < 1:
        raise ModelInputError(f"alpha (the false-alarm rate) must be in (0, 1); got {alpha!r}")
    level = level or ("node" if source.nodes is not None else "rank")
    if level == "node":
        labels, grid = source.node_times_h()
    elif level == "rank":
        labels, grid = source.ranks, source.times_h
    else:
        raise ModelInputError(f"level must be 'node' or 'rank'; got {level!r}")
    if grid.shape[1] < 3:
        raise ModelInputError(f"{source.name}: telling a slow {level} from the others needs at least 3 {level}s; "
                              f"the log has {grid.shape[1]}")
    window = int(window) if window else int(np.clip(source.n_steps // 20, 5, 100))
    if window < 1 or source.n_steps // window < 1:
        raise ModelInputError(f"{source.name}: window must be between 1 and the number of steps "
                              f"({source.n_steps:,}); got {window}")
    d = _relative_log(grid)
    records, flagged, active, first_round = {}, [], np.arange(grid.shape[1]), None
    for _ in range(_MAX_ROUNDS):
        new, out = _round(d, active, window, alpha, correction, min_slowdown, records)
        first_round = first_round or out
        flagged += new
        active = np.setdiff1d(active, new)
        if not new or len(active) < 3:
            break
    tested = pd.DataFrame([dict(records[j], **{level: labels[j]}) for j in range(len(labels))])
    tested = tested[[level, "z", "p", "p_adjusted", "slowdown", "windows_slow", "onset"]]
    table = _table(source, level, labels, grid, tested, flagged)
    z, c, first = first_round
    return SlowNodes(flagged=table, tested=tested.drop(columns="onset"), alpha=alpha, correction=correction,
                     window=window, level=level, n_tested=len(labels), scores=z, relative=c,
                     window_steps=source.steps[first::window][:z.shape[0]])


_MAX_ROUNDS = 10


def _round(d, active, window, alpha, correction, min_slowdown, records):
    """One round of tests on the ``active`` columns; returns the newly flagged columns."""
    z, c, first = _window_scores(d[:, active], window)
    zmax, p, length = _evidence(z, alpha / len(active))
    p_adj = adjust_pvalues(p, correction)
    k = z.shape[0]
    shifts = np.empty(len(active))
    for L in np.unique(length):
        cols = np.flatnonzero(length == L)
        shifts[cols] = np.median(c[k - L:, cols], axis=0)
    new = []
    for i, j in enumerate(active):
        shift = float(shifts[i])
        rec = {"z": zmax[i], "p": p[i], "p_adjusted": p_adj[i], "slowdown": np.expm1(shift),
               "windows_slow": int(length[i]), "onset": -1}
        if p_adj[i] <= alpha:
            start = _onset(d[:, j], shift)
            rec.update(onset=start, slowdown=float(np.expm1(np.median(d[start:, j]))))
            if rec["slowdown"] >= min_slowdown:
                new.append(j)
        records[j] = rec
    return new, (z, c, first)


def _table(log, level, labels, grid, tested, flagged):
    rows = []
    for j in flagged:
        start = int(tested.loc[j, "onset"])
        rows.append({"onset_step": log.steps[start], "steps_slow": log.n_steps - start,
                     "slowest_rank": _slowest_rank(log, level, labels[j], start),
                     "share_slowest": float(np.mean(grid[start:].argmax(axis=1) == j))})
    extra = pd.DataFrame(rows, columns=["onset_step", "steps_slow", "slowest_rank", "share_slowest"])
    table = pd.concat([tested.iloc[flagged].drop(columns="onset").reset_index(drop=True), extra], axis=1)
    return table.sort_values("slowdown", ascending=False, kind="stable").reset_index(drop=True)


def _slowest_rank(log, level, label, start):
    if level == "rank":
        return label
    cols = np.flatnonzero(log.nodes == label)
    sub = log.times_h[start:, cols]
    return log.ranks[cols[np.bincount(sub.argmax(axis=1), minlength=len(cols)).argmax()]]
