"""Nonparametric estimators: Kaplan-Meier, Nelson-Aalen and cumulative incidence.

Kaplan-Meier and Nelson-Aalen are computed here on the risk sets R's
``survfit`` uses (a unit that enters at t is at risk after t, not at t) and
returned as :class:`StepEstimate`, a small result with plain arrays,
``to_frame()`` and ``_repr_html_``; lifelines' fitters are the cross-check in
the tests.  The cumulative incidence
of competing causes (Aalen-Johansen) is computed here with vectorised numpy so
that tied times of different causes are handled exactly instead of being
jittered; it is checked against lifelines' ``AalenJohansenFitter`` in the tests.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from ...data.shaping.durations import Durations
from ...errors import FitError, MissingColumnError
from ...units import hours
from ...tables import Result, html_table, pct, people_table
from ..lifetimes.risk_sets import risk_table
from relmodel.base.escape import html_text

__all__ = [
    "StepEstimate",
    "CumulativeIncidence",
    "as_durations",
    "interruptions",
    "kaplan_meier",
    "nelson_aalen",
    "NA_VARIANCES",
    "risk_table",
    "cumulative_incidence",
]


def as_durations(source, observed=None, *, entry=None, label="durations"):
    """Turn ``source`` into :class:`~relmodel.data.Durations`.

    ``source`` is a ``Durations``, an array, list or ``pandas.Series`` of durations
    (numbers are hours; timedeltas and strings such as ``"3h"`` are converted).
    ``observed`` is a boolean mask (False = right-censored), default all True.
    Raises :class:`~relmodel.errors.FitError` for empty, NaN or negative data.
    """
    if hasattr(source, "events") and hasattr(source, "window_h"):
        raise FitError("pass durations, not a whole log: e.g. log.uptimes(), log.interarrivals() or log.downtimes()")
    if isinstance(source, Durations):
        d = source
        if observed is not None or entry is not None:
            d = Durations(d.hours, d.observed if observed is None else observed,
                          d.entry if entry is None else hours(entry), d.label, d.groups)
    else:
        if isinstance(source, pd.Series):
            label = str(source.name) if source.name is not None else label
            source = source.to_numpy()
        h = np.atleast_1d(np.asarray(hours(source), dtype=float))
        d = Durations(h, observed, None if entry is None else np.asarray(hours(entry), float), label)
    if len(d) == 0:
        raise FitError("no durations given; pass at least one duration in hours")
    if not np.all(np.isfinite(d.hours)):
        raise FitError("durations contain NaN or infinite values; drop them or mark them censored at a finite time")
    if np.any(d.hours < 0):
        i = int(np.argmax(d.hours < 0))
        raise FitError(f"duration {i} is negative ({d.hours[i]!r} h); durations must be >= 0 hours")
    return d


def interruptions(source, include_planned=False):
    """A log's events that are new interruptions: overlapping rows out, planned ones only if asked."""
    if hasattr(source, "interruptions"):
        return source.interruptions(include_planned)
    ev = source.events
    if "overlaps" in ev.columns:
        ev = ev[~ev["overlaps"].astype(bool)]
    if not include_planned and "planned" in ev.columns:
        ev = ev[~ev["planned"].astype(bool)]
    return ev


def _step_at(x, y, t, before=0.0):
    """Right-continuous step function through (x, y), value ``before`` left of x[0]."""
    t = np.asarray(t, dtype=float)
    i = np.searchsorted(x, t, side="right") - 1
    out = np.where(i >= 0, y[np.clip(i, 0, None)], before)
    return out if out.ndim else float(out)


@dataclass(frozen=True, eq=False)
class StepEstimate(Result):
    """A nonparametric step-function estimate with a pointwise confidence band.

    ``hours`` are the jump times (starting at 0), ``value`` the estimate just
    after each, ``lower``/``upper`` the band at level ``conf``.  ``quantity`` says
    what is estimated ("survival", "cumulative hazard", "cumulative incidence",
    "mean cumulative function"); ``method`` names the estimator.
    """

    method: str
    quantity: str
    hours: np.ndarray
    value: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    at_risk: np.ndarray
    events: np.ndarray
    conf: float
    label: str
    n: int
    n_observed: int

    def __call__(self, t):
        """The estimate at times ``t`` (hours), read off the step function."""
        start = 1.0 if self.quantity == "survival" else 0.0
        return _step_at(self.hours, self.value, hours(t), before=start)

    @property
    def median_h(self):
        """First time the survival estimate falls to 0.5 or below (NaN if never, or not a survival curve)."""
        if self.quantity != "survival" or not np.any(self.value <= 0.5):
            return float("nan")
        return float(self.hours[np.argmax(self.value <= 0.5)])

    def to_frame(self):
        """DataFrame indexed by ``hours`` with the estimate, its band, at-risk and event counts."""
        pct = f"{100 * self.conf:g}"
        return pd.DataFrame(
            {self.quantity: self.value, f"lower_{pct}": self.lower, f"upper_{pct}": self.upper,
             "at_risk": self.at_risk, "events": self.events},
            index=pd.Index(self.hours, name="hours"),
        )

    def text(self):
        return (f"{self.method} estimate of {self.quantity} ({self.label}): n = {self.n:,}, events = "
                f"{self.n_observed:,}, {100 * self.conf:g}% band.")

    def _repr_html_(self):
        head = (f"<p><b>{html_text(self.method)}</b> estimate of {html_text(self.quantity)} ({html_text(self.label)}): "
                f"n={self.n}, events={self.n_observed}, {100 * self.conf:g}% band</p>")
        return head + html_table(self.to_frame(), max_rows=12)

    def __repr__(self):
        return f"StepEstimate({self.method}, {self.quantity}, n={self.n}, events={self.n_observed})"


def _product_limit(d, conf):
    """Kaplan-Meier estimate and its log(-log) Greenwood band on the ``survfit`` risk sets."""
    times, n, dd = risk_table(d.hours, d.observed, d.entry)
    nf, df = n.astype(float), dd.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.cumprod(np.where(nf > 0, 1 - df / nf, 1.0))
        var = np.cumsum(np.where((nf > df) & (df > 0), df / (nf * (nf - df)), 0.0))
        z = stats.norm.ppf(0.5 + conf / 2)
        spread = np.exp(z * np.sqrt(var) / np.abs(np.log(s)))
        inside = (s > 0) & (s < 1)
        lower = np.where(inside, s**spread, s)
        upper = np.where(inside, s ** (1 / spread), s)
    return StepEstimate("Kaplan-Meier", "survival", times, s, lower, upper, n, dd, conf, d.label, len(d),
                        d.n_observed)


def _check_conf(conf):
    if not 0 < conf < 1:
        raise FitError(f"conf must be between 0 and 1 (e.g. 0.95), got {conf!r}")


def kaplan_meier(source, *, observed=None, entry=None, conf=0.95):
    """Kaplan-Meier estimate of the survival function, with a pointwise band.

    ``source``: :class:`~relmodel.data.Durations`, or durations in hours with an
    ``observed`` mask (False = right-censored) and optional ``entry`` times
    (left truncation).  The band is lifelines' exponential Greenwood interval
    (log(-log S) scale; Kalbfleisch and Prentice 2002, section 1.4).
    Returns a :class:`StepEstimate` with ``quantity == "survival"``.

    Examples
    --------
    >>> km = kaplan_meier([2.0, 3.0, 5.0, 8.0], observed=[True, True, False, True])   # hours
    >>> km.value.round(4).tolist()                     # S(t) after each jump at km.hours
    [1.0, 0.75, 0.5, 0.5, 0.0]
    >>> km.hours.tolist(), km.median_h
    ([0.0, 2.0, 3.0, 5.0, 8.0], 3.0)
    """
    _check_conf(conf)
    return _product_limit(as_durations(source, observed, entry=entry), conf)


NA_VARIANCES = {
    "aalen": "Aalen variance, sum d/n^2",
    "greenwood": "Greenwood-type variance, sum (n - d) d/n^3",
}


def nelson_aalen(source, *, observed=None, entry=None, conf=0.95, variance="aalen"):
    """Nelson-Aalen estimate of the cumulative hazard H(t) = sum d_i / n_i.

    Same inputs as :func:`kaplan_meier` (durations in hours).  Each jump is
    exactly d_i / n_i (Aalen 1978; lifelines' ``NelsonAalenFitter`` without tie
    smoothing gives the event table).  ``variance`` picks the variance
    estimator of H:

    * ``"aalen"`` (default): sum d_i / n_i^2, the textbook one (Klein and
      Moeschberger, *Survival Analysis*, 2nd ed., eq. 4.2.4; R ``survfit``);
    * ``"greenwood"``: sum (n_i - d_i) d_i / n_i^3 (lifelines' choice), which
      adds nothing at a time where every unit at risk fails.

    The band is log-transformed: H exp(+-z sd / H).  ``method`` of the result
    names the variance used.  Returns a :class:`StepEstimate` with
    ``quantity == "cumulative hazard"``.

    Examples
    --------
    >>> na = nelson_aalen([2.0, 3.0, 5.0, 8.0], observed=[True, True, False, True])   # hours
    >>> na.value.round(4).tolist()                     # H(t) = sum d_i / n_i: 1/4, + 1/3, + 1/1
    [0.0, 0.25, 0.5833, 0.5833, 1.5833]
    """
    _check_conf(conf)
    if variance not in NA_VARIANCES:
        raise FitError(f"variance must be one of {', '.join(NA_VARIANCES)}, got {variance!r}")
    d = as_durations(source, observed, entry=entry)
    times, at_risk, events = risk_table(d.hours, d.observed, d.entry)
    n, dd = at_risk.astype(float), events.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.cumsum(np.where(n > 0, dd / n, 0.0))
        inc = np.where(n > 0, dd / n**2 * (1.0 if variance == "aalen" else (n - dd) / n), 0.0)
        sd = np.sqrt(np.cumsum(inc))
        spread = np.exp(stats.norm.ppf(0.5 + conf / 2) * sd / np.where(h > 0, h, 1.0))
    return StepEstimate(f"Nelson-Aalen ({NA_VARIANCES[variance]})", "cumulative hazard", times, h, h / spread,
                        h * spread, at_risk, events, conf, d.label, len(d), d.n_observed)


@dataclass(frozen=True, eq=False)
class CumulativeIncidence(Result):
    """Cumulative incidence of each cause under competing risks.

    ``curves`` maps each cause to a :class:`StepEstimate` of its cumulative
    incidence; ``by_cause`` is a table of events and the final incidence by cause.
    """

    curves: dict
    conf: float
    n: int

    @property
    def causes(self):
        """The causes, most frequent first."""
        return list(self.curves)

    def __getitem__(self, cause):
        return self.curves[cause]

    @property
    def by_cause(self):
        """One row per cause: events, share of events, final incidence and its band."""
        rows = [{"cause": c, "events": e.n_observed, "incidence": e.value[-1], "lower": e.lower[-1],
                 "upper": e.upper[-1]} for c, e in self.curves.items()]
        df = pd.DataFrame(rows)
        df.insert(2, "share", df["events"] / max(df["events"].sum(), 1))
        return df

    def to_frame(self):
        """Long DataFrame: cause, hours, cumulative incidence, band, at risk, events."""
        parts = [e.to_frame().reset_index().assign(cause=c) for c, e in self.curves.items()]
        df = pd.concat(parts, ignore_index=True)
        return df[["cause"] + [c for c in df.columns if c != "cause"]]

    def text(self):
        return f"Cumulative incidence by cause (Aalen-Johansen), n = {self.n:,}, {100 * self.conf:g}% bands."

    def table(self):
        """The final incidence of each cause, for people."""
        return people_table(self.by_cause, {"share": pct, "incidence": pct, "lower": pct, "upper": pct})


def _cif_table(h, code, k):
    """Event table over distinct times: at risk, all events, events of each cause."""
    times, inv = np.unique(h, return_inverse=True)
    removed = np.bincount(inv, minlength=times.size)
    at_risk = h.size - np.concatenate([[0], np.cumsum(removed)[:-1]])
    by_cause = np.zeros((k, times.size))
    ev = code > 0
    np.add.at(by_cause, (code[ev] - 1, inv[ev]), 1.0)
    return times, at_risk.astype(float), by_cause


def _cif_one(f, s, lag_s, d_all, d_j, n, conf):
    """Variance of one cumulative incidence curve as cmprsk's ``cuminc`` gives it, and its log(-log) band.

    The variance is Gray's delta-method estimate (Gray 1988; Pintilie, "Competing
    Risks: A Practical Perspective", 2006, section 4.2.2): each distinct time adds a
    term for the events of this cause and one for the other causes, each with the
    binomial correction for tied events, and the variance is updated at this cause's
    event times only (a step function like the estimate).  Unlike the
    Greenwood-type formula it stays finite at a last time where every unit still at
    risk fails.  ``s`` is the all-cause Kaplan-Meier after each time and ``lag_s``
    before it.  The band is ``f ** exp(+-z se / (f log f))`` (log(-log)).
    """
    def tie(d):  # 1 - (d - 1) / (n - 1): ties drawn without replacement
        return np.where(d > 1, 1 - (d - 1) / np.where(n > 1, n - 1, 1), 1.0)

    d_other = d_all - d_j
    alive = s > 0
    inv_s = np.where(alive, 1 / np.where(alive, s, 1), 0.0)
    w_j = lag_s**2 * tie(d_j) * d_j / n**2
    w_o = np.where(alive, lag_s**2 * tie(d_other) * d_other / n**2, 0.0)  # no term once nobody is left
    b_j, b_o = 1 + inv_s * f, inv_s * f
    v1 = np.cumsum(b_j**2 * w_j + b_o**2 * w_o)
    v2 = np.cumsum(inv_s * (b_j * w_j + b_o * w_o))
    v3 = np.cumsum(inv_s**2 * (w_j + w_o))
    at_event = d_j > 0
    var = np.where(at_event, v1 + f**2 * v3 - 2 * f * v2, 0.0)
    last = np.maximum.accumulate(np.where(at_event, np.arange(f.size), -1))  # held between this cause's events
    var = np.where(last >= 0, var[np.maximum(last, 0)], 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = stats.norm.ppf(0.5 + conf / 2)
        se = np.sqrt(np.maximum(var, 0.0)) / (f * np.abs(np.log(f)))
        lo = np.exp(-np.exp(np.log(-np.log(f)) + z * se))
        hi = np.exp(-np.exp(np.log(-np.log(f)) - z * se))
    return np.nan_to_num(lo, nan=0.0), np.where(np.isnan(hi), np.where(f > 0, 1.0, 0.0), hi), var


def _log_uptime_causes(log, column):
    """Per-node uptimes of a log (as in ``InterruptionLog.uptimes``) and the cause that ended each."""
    ev = log.events
    cols = list(getattr(log, "cause_columns", []))
    column = column if column is not None else (cols[0] if cols else None)
    if column is None or column not in ev.columns:
        raise MissingColumnError(f"no cause column {column!r} in the log; valid cause columns are {cols}")
    ev = ev.sort_values(["node", "start_h"], kind="stable")
    cause = ev[column].astype(object).where(~ev["planned"].astype(bool), "planned")
    m = ev.assign(cause=cause).groupby((~ev["overlaps"]).cumsum(), sort=False).agg(
        node=("node", "first"), start_h=("start_h", "first"), end_h=("end_h", "max"), cause=("cause", "first"))
    nxt = m.groupby("node", sort=False)[["start_h", "cause"]].shift(-1)
    last = nxt["start_h"].isna().to_numpy()
    up = np.where(last, log.window_h[1], nxt["start_h"]) - m["end_h"].to_numpy()
    keep = np.isfinite(up) & (up >= 0) & ~(last & (up == 0))
    d = Durations(up[keep], ~last[keep], label=f"uptimes by {column}", groups=m["node"].to_numpy()[keep])
    return d, np.where(last, None, nxt["cause"].to_numpy(object))[keep]


def cumulative_incidence(durations, causes=None, *, observed=None, conf=0.95):
    """Aalen-Johansen cumulative incidence of each cause under competing risks.

    ``durations`` in hours (or a :class:`~relmodel.data.Durations`); ``causes`` the
    cause of each event (any labels; None/NaN or ``observed == False`` marks a
    censored duration).  ``durations`` may also be an
    :class:`~relmodel.InterruptionLog`: its per-node uptimes (the rules of
    ``InterruptionLog.uptimes``) each end in the cause of the next outage, taken
    from the cause column named by ``causes`` (default the first; planned
    outages count as the cause "planned").  The incidence of cause j is
    F_j(t) = sum_{t_i <= t} S(t_i-) d_ji / n_i with S the all-cause Kaplan-Meier
    (Aalen and Johansen 1978; Kalbfleisch and Prentice 2002, section 8.2).
    The ``conf`` bands take Gray's variance, as cmprsk's ``cuminc`` does (finite
    also where every unit still at risk fails), on the log(-log) scale.
    Returns a :class:`CumulativeIncidence`, causes ordered by event count.

    Examples
    --------
    >>> ci = cumulative_incidence([1.0, 2.0, 3.0, 4.0], ["gpu", "net", "gpu", None])   # hours; None: censored
    >>> sorted(ci.causes), round(float(ci["gpu"](3.5)), 4), round(float(ci["net"](3.5)), 4)
    (['gpu', 'net'], 0.5, 0.25)
    """
    _check_conf(conf)
    if hasattr(durations, "events") and hasattr(durations, "window_h"):
        durations, causes = _log_uptime_causes(durations, causes)
    elif causes is None:
        raise FitError("pass the cause of each duration (causes=...), or an InterruptionLog")
    d = as_durations(durations, observed)
    cause = pd.Series(np.asarray(causes, dtype=object))
    if cause.size != len(d):
        raise FitError(f"causes has {cause.size} values but there are {len(d)} durations")
    event = d.observed & cause.notna().to_numpy()
    labels = cause[event].value_counts(sort=True).index.tolist()
    if not labels:
        raise FitError("no observed events with a cause; cumulative incidence needs at least one")
    code = np.zeros(len(d), int)
    code[event] = pd.Categorical(cause[event], categories=labels).codes + 1
    times, n, by_cause = _cif_table(d.hours, code, len(labels))
    d_all = by_cause.sum(axis=0)
    s = np.cumprod(1 - d_all / n)
    lag_s = np.concatenate([[1.0], s[:-1]])
    curves = {}
    for j, lab in enumerate(labels):
        f = np.cumsum(lag_s * by_cause[j] / n)
        lo, hi, _ = _cif_one(f, s, lag_s, d_all, by_cause[j], n, conf)
        curves[lab] = StepEstimate(
            "Aalen-Johansen", "cumulative incidence", np.concatenate([[0.0], times]),
            np.concatenate([[0.0], f]), np.concatenate([[0.0], lo]), np.concatenate([[0.0], hi]),
            np.concatenate([[n[0]], n]).astype(int), np.concatenate([[0], by_cause[j]]).astype(int),
            conf, str(lab), len(d), int(by_cause[j].sum()))
    return CumulativeIncidence(curves, conf, len(d))

