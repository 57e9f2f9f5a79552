"""Where did the interruption rate change?  Poisson change points with a penalty.

The window is cut into bins (a day by default, coarser for long logs, so at
most about 400 bins); interruption starts are counted per bin.  Within a
segment the rate is constant, so a segment with ``n`` interruptions over
``L`` hours costs ``-2 log-likelihood = -2 (n log(n / L) - n)`` (0 when
``n = 0``).  The segmentation minimises the total cost plus ``penalty`` per
change, exactly, by optimal partitioning (Jackson et al., "An algorithm for
optimal partitioning of data on an interval", IEEE SPL 12(2), 2005).  The
default penalty is ``3 log m`` for ``m`` bins, stricter than BIC's ``2 log m``
(each change adds a time and a rate), so that a log with a constant rate
seldom shows a change; a smaller penalty finds more changes.

Each change time gets an interval: holding its neighbouring changes fixed,
the posterior of its position over the bin edges between them, with a flat
prior on the position and Jeffreys priors on the two rates, is proportional
to ``Gamma(n1 + 1/2) Gamma(n2 + 1/2) / (L1^(n1 + 1/2) L2^(n2 + 1/2))``; the
interval holds the central ``conf`` of that posterior.

A stretch with no records longer than ``GAP_FACTOR`` (10) times the mean
interarrival (window length / interruptions) is a gap: most likely the log
stopped, not the failures.  A segment lying mostly in a gap has no rate (NaN,
"no data"), never a rate of zero, and the text names each gap.  More than
``MAX_SENTENCES`` (5) changes are summed up in one sentence; the table lists them.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ...data.shaping.logs import InterruptionLog
from ...errors import CountError, EmptyDataError, ExposureError, UnitError
from ...units import hours
from .rates import poisson_interval
from ...tables import Result, duration, html_table
from relmodel.base.escape import html_text, html_paragraphs

__all__ = ["RateChanges", "rate_changes", "segment_cost", "MAX_BINS", "GAP_FACTOR", "MAX_SENTENCES"]

MAX_BINS = 400
#: A stretch without records longer than this many mean interarrivals is a gap (no data).
GAP_FACTOR = 10
#: More changes than this are listed in the table, not one sentence each.
MAX_SENTENCES = 5


def segment_cost(n, length):
    """-2 log-likelihood of ``n`` Poisson events over ``length`` at their best constant rate."""
    n = np.asarray(n, float)
    length = np.asarray(length, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = -2.0 * (n * np.log(n / length) - n)
    return np.where(n > 0, c, 0.0)


def _partition(counts, widths, penalty, min_size):
    """Optimal partitioning: bin indices where new segments start (excluding 0)."""
    m = counts.size
    cn = np.concatenate([[0.0], np.cumsum(counts)])
    cw = np.concatenate([[0.0], np.cumsum(widths)])
    best = np.full(m + 1, np.inf)
    best[0] = -penalty
    last = np.zeros(m + 1, int)
    for t in range(min_size, m + 1):
        s = np.arange(0, t - min_size + 1)
        s = s[np.isfinite(best[s])]
        total = best[s] + segment_cost(cn[t] - cn[s], cw[t] - cw[s]) + penalty
        i = int(np.argmin(total))
        best[t], last[t] = total[i], s[i]
    cps, t = [], m
    while t > 0:
        t = last[t]
        if t > 0:
            cps.append(t)
    return sorted(cps)


def _position_interval(counts, widths, lo, cp, hi, conf, min_size):
    """Central ``conf`` interval (bin-edge indices) of a change between edges ``lo`` and ``hi``."""
    cand = np.arange(lo + min_size, hi - min_size + 1)
    if cand.size <= 1:
        return cp, cp
    cn = np.concatenate([[0.0], np.cumsum(counts)])
    cw = np.concatenate([[0.0], np.cumsum(widths)])
    n1, l1 = cn[cand] - cn[lo], cw[cand] - cw[lo]
    n2, l2 = cn[hi] - cn[cand], cw[hi] - cw[cand]
    logp = (special.gammaln(n1 + 0.5) - (n1 + 0.5) * np.log(l1) + special.gammaln(n2 + 0.5)
            - (n2 + 0.5) * np.log(l2))
    w = np.exp(logp - logp.max())
    cdf = np.cumsum(w) / w.sum()
    a = (1 - conf) / 2
    return int(cand[np.searchsorted(cdf, a)]), int(cand[min(np.searchsorted(cdf, 1 - a), cand.size - 1)])


@dataclass(frozen=True, eq=False)
class RateChanges(Result):
    """Change points of an interruption rate, the segments between them, and the binned counts."""

    change_h: tuple
    change_lo_h: tuple
    change_hi_h: tuple
    segments: pd.DataFrame
    edges_h: np.ndarray
    counts: np.ndarray
    penalty: float
    units: float
    per: str
    name: str = "log"
    origin: object = None
    conf: float = 0.95
    gaps_h: tuple = ()
    mean_interarrival_h: float = float("nan")

    @property
    def n_changes(self):
        return len(self.change_h)

    def _when(self, h):
        if self.origin is not None:
            return (pd.Timestamp(self.origin) + pd.Timedelta(hours=float(h))).strftime("%Y-%m-%d")
        return f"day {h / 24:,.1f}"

    def _unit(self):
        return f"per 1,000 {self.per}-days" if self.per != "job" else "per day"

    def _scale(self):
        return 24000.0 if self.per != "job" else 24.0

    def text(self):
        """The findings in words, one sentence per change (or one saying there is none)."""
        return " ".join(self._sentences())

    def _sentences(self):
        seg = self.segments
        f = self._scale()
        gaps = [(g0, self._gap_sentence(g0, g1)) for g0, g1 in self.gaps_h]
        if not self.n_changes:
            if gaps and not np.isfinite(seg["rate_per_h"].iloc[0]):
                return [g for _, g in gaps]
            rate = f * seg["rate_per_h"].iloc[0]
            return [f"{self.name}: no change in the interruption rate was found (penalty {self.penalty:.1f}); "
                    f"the rate is {rate:,.2f} {self._unit()} throughout."] + [g for _, g in gaps]
        if self.n_changes > MAX_SENTENCES:
            return [f"{self.name}: the interruption rate changed {self.n_changes} times (penalty "
                    f"{self.penalty:.1f}); the table lists each segment with its rate."] + [g for _, g in gaps]
        out = []
        for i, t in enumerate(self.change_h):
            if seg["gap"].iloc[i + 1]:
                continue  # entering a gap: its own sentence says so
            before = [k for k in range(i + 1) if not seg["gap"].iloc[k]]
            r1 = f * seg["rate_per_h"].iloc[i + 1]
            when = (f"Around {self._when(t)} ({self.conf:.0%} interval {self._when(self.change_lo_h[i])} to "
                    f"{self._when(self.change_hi_h[i])})")
            if not before:
                out.append((t, f"{when} the records resume at {r1:,.2f} {self._unit()}."))
                continue
            r0 = f * seg["rate_per_h"].iloc[before[-1]]
            if before[-1] != i:
                out.append((t, f"{when} the records resume after the gap at {r1:,.2f} {self._unit()} "
                               f"({r0:,.2f} before it)."))
                continue
            out.append((t, f"{when} the rate went {'up' if r1 > r0 else 'down'} from "
                           f"{r0:,.2f} to {r1:,.2f} {self._unit()}."))
        return [text for _, text in sorted(out + gaps, key=lambda x: x[0])]

    def _gap_sentence(self, g0, g1):
        return (f"From {self._when(g0)} to {self._when(g1)} there are no records ({duration(g1 - g0)}, more than "
                f"{GAP_FACTOR} times the mean interarrival of {duration(self.mean_interarrival_h)}): no data, "
                "not a rate of zero.")

    def to_frame(self):
        """Segments in days from the window start, with counts and rates (exact intervals)."""
        f = self._scale()
        s = self.segments
        return pd.DataFrame({"from day": s["start_h"] / 24, "to day": s["end_h"] / 24,
                             "interruptions": s["count"], f"rate {self._unit()}": f * s["rate_per_h"],
                             f"{self.conf:.0%} low": f * s["rate_lo"], f"{self.conf:.0%} high": f * s["rate_hi"],
                             "no data (gap)": s["gap"]})

    def _repr_html_(self):
        text = html_paragraphs(self._sentences())
        return text + html_table(self.to_frame(), index=False, float_format="{:,.2f}".format)


def _default_bin(duration_h):
    return max(24.0, duration_h / MAX_BINS)


def _events(log, window, include_planned):
    if isinstance(log, InterruptionLog):
        t = log.interruptions(include_planned)["start_h"].to_numpy(float)
        win = log.window_h if window is None else tuple(hours(w) for w in window)
        return t, win, log.n_nodes, log.name, log.origin
    t = np.asarray(log, float).ravel()
    if window is None:
        raise ExposureError("give window=(start, end) for bare event times; the window is part of the exposure")
    return t, tuple(hours(w) for w in window), None, "events", None


def rate_changes(source, penalty=None, bin=None, min_size=2, conf=0.95, per="node", window=None,
                 include_planned=False):
    """Find where the interruption rate of a log changed (Poisson change points).

    Parameters
    ----------
    source : an :class:`InterruptionLog`, or event times in hours (then pass
        ``window=(start_h, end_h)``).
    penalty : cost of each extra change on the -2 log-likelihood scale;
        default ``3 log m`` for ``m`` bins.  Larger finds fewer changes.
    bin : bin width (anything :func:`relmodel.units.hours` reads); default one day,
        or the window / 400 for long logs.
    min_size : fewest bins in a segment.
    per : rates per "node" (the log's nodes) or "job" (the whole cluster).

    Returns a :class:`RateChanges`: change times (hours from the window
    start) with ``conf`` intervals, and the segments with their rates per
    unit-hour.

    Examples
    --------
    3 interruptions in the first 10 days, then 4 a day for 10 days:

    >>> t = np.concatenate([np.linspace(12, 228, 3), np.linspace(246, 474, 40)])    # hours
    >>> rc = rate_changes(t, window=(0, 480), per="job")
    >>> rc.change_h, rc.change_lo_h, rc.change_hi_h          # hours from the start
    ((240.0,), (216.0,), (240.0,))
    >>> print(rc.text())
    Around day 10.0 (95% interval day 9.0 to day 10.0) the rate went up from 0.30 to 4.00 per day.
    >>> from relmodel.data.bundled.datasets import stepfun
    >>> rate_changes(stepfun()).n_changes                    # a year of a real cluster
    6
    """
    if penalty is not None and (isinstance(penalty, bool) or not isinstance(penalty, (int, float, np.number))
                                or not np.isfinite(penalty) or penalty < 0):
        raise CountError(f"penalty must be a finite number >= 0 (or None for the default), got {penalty!r}")
    t, (t0, t1), n_nodes, name, origin = _events(source, window, include_planned)
    if not t1 > t0:
        raise ExposureError(f"{name}: the observation window must have positive length, got {t0} to {t1} hours")
    if t.size == 0:
        raise EmptyDataError(f"{name}: no interruptions, so no rate to follow")
    if per not in ("node", "job"):
        raise UnitError(f"per must be 'node' or 'job' for change points, got {per!r}")
    units = float(n_nodes) if per == "node" and n_nodes else 1.0
    per = per if units > 1 or per == "job" else "job"
    width = hours(bin) if bin is not None else _default_bin(t1 - t0)
    if not width > 0:
        raise ExposureError(f"the bin width must be positive, got {bin!r}")
    edges = np.append(np.arange(t0, t1, width), t1)
    if edges.size > 2 and edges[-1] - edges[-2] < 0.5 * width:
        edges = np.delete(edges, -2)  # a short last bin joins the one before
    counts = np.histogram(np.clip(t, t0, t1), bins=edges)[0].astype(float)
    widths = np.diff(edges)
    m = counts.size
    penalty = 3.0 * np.log(max(m, 2)) if penalty is None else float(penalty)
    if not penalty >= 0:
        raise CountError(f"the penalty must be zero or more, got {penalty!r}")
    min_size = max(1, int(min_size))
    cps = _partition(counts, widths, penalty, min_size) if m >= 2 * min_size else []
    bounds = [0] + cps + [m]
    ivals = [_position_interval(counts, widths, bounds[i], bounds[i + 1], bounds[i + 2], conf, min_size)
             for i in range(len(cps))]
    rel = edges - t0
    gaps, mean_gap = _gaps(t, t0, t1)
    segments = _mark_gaps(_segments(counts, widths, rel, bounds, units, conf), gaps)
    return RateChanges(tuple(float(rel[c]) for c in cps), tuple(float(rel[a]) for a, _ in ivals),
                       tuple(float(rel[b]) for _, b in ivals), segments, rel, counts, penalty, units, per, name,
                       _shift(origin, t0), conf, gaps, mean_gap)


def _gaps(t, t0, t1):
    """Stretches (hours from ``t0``) with no records longer than GAP_FACTOR mean interarrivals, and that mean."""
    pts = np.concatenate([[t0], np.sort(np.clip(t, t0, t1)), [t1]])
    mean = (t1 - t0) / t.size
    idx = np.flatnonzero(np.diff(pts) > GAP_FACTOR * mean)
    return tuple((float(pts[k] - t0), float(pts[k + 1] - t0)) for k in idx), float(mean)


def _mark_gaps(segments, gaps):
    """Flag segments with no interruptions that lie mostly in a gap; they get no rate (NaN), not zero."""
    start, end = segments["start_h"].to_numpy(float), segments["end_h"].to_numpy(float)
    inside = np.zeros(len(segments))
    for g0, g1 in gaps:
        inside += np.clip(np.minimum(end, g1) - np.maximum(start, g0), 0, None)
    gap = (segments["count"].to_numpy() == 0) & (inside >= 0.5 * (end - start))
    segments = segments.assign(gap=gap)
    segments.loc[gap, ["rate_per_h", "rate_lo", "rate_hi"]] = np.nan
    return segments


def _segments(counts, widths, rel_edges, bounds, units, conf):
    """Segments between consecutive bounds: times, counts, exposure and exact rate intervals."""
    pairs = list(zip(bounds[:-1], bounds[1:]))
    seg_n = np.array([counts[a:b].sum() for a, b in pairs])
    seg_l = np.array([widths[a:b].sum() for a, b in pairs]) * units
    rate, lo, hi = poisson_interval(seg_n, seg_l, conf)
    return pd.DataFrame({"start_h": rel_edges[bounds[:-1]], "end_h": rel_edges[bounds[1:]],
                         "count": seg_n.astype(int), "exposure_h": seg_l, "rate_per_h": np.atleast_1d(rate),
                         "rate_lo": np.atleast_1d(lo), "rate_hi": np.atleast_1d(hi)})


def _shift(origin, t0):
    return None if origin is None else pd.Timestamp(origin) + pd.Timedelta(hours=float(t0))
