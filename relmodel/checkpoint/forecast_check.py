"""Forecasts checked against what happened next: fit on the first part of a window, forecast the rest.

:func:`forecast_check` takes logs (interruption logs, Slurm
:class:`~relmodel.data.JobLog` runs, :class:`~relmodel.Source` objects), fits each on
the first ``split`` of its observation window with the machinery that gives
today's rate (:func:`~relmodel.stats.forecast.current_rate`: a constant rate,
power-law and log-linear trends and the stretch after a change point, weighed by
how well each forecast the later parts of the fitted window), forecasts the remainder with predictive
intervals that carry parameter uncertainty and the trend, and says whether
what happened fell inside:

* ``failures``: interruptions in the held-out part, per log, and over all
  logs together ("all logs": the sum of independent forecasts);
* ``job_mtbf``: held-out wall hours per interruption (the job spans the log);
* ``ettr``: for a Slurm run, Daly's ETTR at the interval recommended from the
  fitted part (its rate today, ``ckpt_cost``), with the run's measured restart
  gap, evaluated at the forecast MTBF and at the MTBF that happened.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..defaults import CKPT_COST, RESTART
from ..base.escape import brief
from ..budget_guard import check_cost
from ..budget_guard import count as budget_count
from ..errors import FitError, ModelInputError, RelmodelError
from ..tables import Result, count, duration, pct
from ..units import hours
from ..stats.forecast import current_rate
from ..stats.forecast.current import _event_times
from .intervals import _ettr, _optimal

__all__ = ["forecast_check", "ForecastCheck", "QUANTITIES", "held_out_path"]

QUANTITIES = ("failures", "job_mtbf", "ettr")
_WORDS = {"failures": "failures", "job_mtbf": "job MTBF", "ettr": "ETTR"}


@dataclass(frozen=True)
class ForecastCheck(Result):
    """Forecasts of the held-out part of each log beside what happened.

    ``frame`` has one row per source and quantity: ``source``, ``quantity``,
    ``lo``, ``hi`` (the ``conf`` predictive interval), ``forecast`` (the
    predictive median), ``observed``, ``covered``, ``pit`` (randomised
    probability integral transform: uniform when the forecasts are calibrated),
    ``model`` and ``reason`` (the rate model chosen on the fitted part),
    ``fit_h`` and ``horizon_h``.
    """

    frame: pd.DataFrame
    conf: float
    split: float
    draws: tuple = field(default=(), repr=False, compare=False)

    @property
    def coverage(self):
        """Share of the forecasts whose interval held what happened."""
        return float(self.frame["covered"].mean()) if len(self.frame) else float("nan")

    def coverage_at(self, levels=(0.5, 0.8, 0.9, 0.95), quantity=None):
        """Coverage of the central predictive intervals at each level, from the same draws.

        ``quantity`` keeps one quantity ("failures", ...); "all logs" rows are left out.
        Returns columns level, coverage, forecasts.
        """
        keep = self.frame["source"].ne("all logs").to_numpy()
        if quantity is not None:
            keep &= self.frame["quantity"].eq(quantity).to_numpy()
        levels = np.atleast_1d(np.asarray(levels, float))
        hits = np.zeros(levels.size)
        rows = np.flatnonzero(keep)
        for i in rows:
            d = self.draws[i]
            lo = np.quantile(d, (1 - levels) / 2, method="inverted_cdf")
            hi = np.quantile(d, (1 + levels) / 2, method="inverted_cdf")
            obs = self.frame["observed"].iat[i]
            hits += (lo <= obs) & (obs <= hi)
        return pd.DataFrame({"level": levels, "coverage": hits / max(rows.size, 1), "forecasts": rows.size})

    def to_frame(self):
        return self.frame.copy()

    def table(self):
        rows = []
        for r in self.frame.itertuples():
            fmt = _formatter(r.quantity)
            rows.append({"Log": r.source, "Quantity": _WORDS[r.quantity],
                         f"Forecast ({self.conf:.0%} range)": f"{fmt(r.forecast)} ({fmt(r.lo)} to {fmt(r.hi)})",
                         "Happened": fmt(r.observed), "Inside?": "yes" if r.covered else "no",
                         "Model": r.model})
        return pd.DataFrame(rows)

    def text(self, source=None):
        """The findings in sentences; for one log (or ``source``), how well it forecast itself.

        The one-log sentence is the report index's "how well this log forecasts itself".
        """
        logs = self.frame.loc[self.frame["source"].ne("all logs"), "source"].unique()
        if source is not None or len(logs) == 1:
            return self._one_log(logs[0] if source is None else source)
        n, hit = len(self.frame), int(self.frame["covered"].sum())
        if not n:
            return "No forecast was checked."
        missed = self.frame.loc[~self.frame["covered"], "source"].drop_duplicates().tolist()
        tail = f" Missed: {', '.join(missed[:5])}{' and others' if len(missed) > 5 else ''}." if missed else ""
        return (f"Fitted on the first {self.split:.0%} of each window, {hit} of {n} forecasts "
                f"({pct(hit / n, 0)}) held what happened next inside their {self.conf:.0%} range.{tail}")

    def summary(self, source=None):
        """The failures forecast of one log (``source``, default the first) as plain numbers for summary.json.

        Keys: source, predicted (the predictive median), lo, hi, observed, covered, conf, split,
        model, fit_h, horizon_h and sentence (:meth:`text` of that log).
        """
        f = self.frame[self.frame["quantity"].eq("failures") & self.frame["source"].ne("all logs")]
        if source is not None:
            f = f[f["source"].eq(source)]
        if f.empty:
            raise FitError(f"{source or 'this check'}: no forecast of failures was checked; "
                           "run forecast_check with quantities including 'failures'")
        r = f.iloc[0]
        return {"source": str(r.source), "predicted": float(r.forecast), "lo": float(r.lo), "hi": float(r.hi),
                "observed": float(r.observed), "covered": bool(r.covered), "conf": float(self.conf),
                "split": float(self.split), "model": str(r.model), "fit_h": float(r.fit_h),
                "horizon_h": float(r.horizon_h), "sentence": self._one_log(r.source)}

    def _one_log(self, source):
        f = self.frame[self.frame["quantity"].eq("failures") & self.frame["source"].eq(source)]
        if f.empty:
            return f"{source}: no forecast of its failures was checked."
        r = f.iloc[0]
        where = "inside" if r.covered else ("above" if r.observed > r.hi else "below")
        return (f"Fitted on the first {self.split:.0%} of its window ({duration(r.fit_h)}), this log forecast "
                f"{count(round(r.forecast))} failures ({self.conf:.0%} range {count(r.lo)} to {count(r.hi)}) for the "
                f"remaining {duration(r.horizon_h)} ({r.model} rate); {count(r.observed)} happened, {where} the range.")


def _formatter(quantity):
    if quantity == "ettr":
        return lambda x: pct(x, 1)
    if quantity == "job_mtbf":
        return lambda x: "no failure" if not np.isfinite(x) else duration(x)
    return lambda x: count(int(round(x)))


def _fraction(name, value, example):
    """``value`` as a float strictly between 0 and 1; FitError naming ``name`` otherwise (text, NaN, bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0 < float(value) < 1:
        raise FitError(f"{name} must be a number between 0 and 1 ({example}), got {brief(value)}")
    return float(value)


def _cost(name, value):
    """A duration in hours, finite and zero or more; ModelInputError naming ``name`` otherwise."""
    try:
        h = float(hours(value))
    except (RelmodelError, TypeError, ValueError) as exc:
        raise ModelInputError(f"{name} must be a duration such as '1min' or hours; got {brief(value)}") from exc
    if not np.isfinite(h) or h < 0:
        raise ModelInputError(f"{name} must be a finite duration of zero or more; got {brief(value)}")
    return h


def _sources(sources, names):
    if isinstance(sources, dict):
        return list(sources.items())
    if not isinstance(sources, (list, tuple)):
        sources = [sources]
    names = list(names) if names is not None else [None] * len(sources)
    if len(names) != len(sources):
        raise FitError(f"names has {len(names)} entries for {len(sources)} sources; give one name per source")
    out = []
    for i, (name, s) in enumerate(zip(names, sources)):
        label = name or getattr(s, "name", None) or f"source {i + 1}"
        out.append((str(label), s))
    return out


def _restart(data, given, cut_h):
    """The restart time: ``given``, else the mean restart gap of the run's fitted part, else the default."""
    if given is not None:
        return float(hours(given))
    ev = data.events
    gaps = (ev["end_h"] - ev["start_h"])[ev["start_h"] <= cut_h].to_numpy(float)
    gaps = gaps[np.isfinite(gaps)]
    return float(np.mean(gaps)) if gaps.size else float(hours(RESTART))


def _check_one(label, src, split, conf, quantities, ckpt, restart, alpha, n_draws, rng):
    data = getattr(src, "data", src) if hasattr(src, "kind") else src
    u, length, _, _, (t0, t1) = _event_times(src, None, False)
    cut = split * length
    fit = current_rate(src, conf=conf, alpha=alpha, window=(t0, t0 + cut))
    h = length - cut
    counts = fit.count_draws([h], n_draws, rng)[:, 0]
    obs = int(np.sum(u > cut))
    out = []
    with np.errstate(divide="ignore"):
        mtbf, obs_mtbf = h / counts, (h / obs if obs else np.inf)
    want = {"failures": (counts, obs), "job_mtbf": (mtbf, obs_mtbf)}
    if "ettr" in quantities and hasattr(data, "segments"):
        r = _restart(data, restart, t0 + cut)
        tau = float(_optimal(fit.mtbf_h, ckpt)) if np.isfinite(fit.mtbf_h) else h
        want["ettr"] = (_ettr(tau, mtbf, ckpt, r), float(_ettr(tau, obs_mtbf, ckpt, r)))
    for q in (q for q in quantities if q in want):
        d, o = want[q]
        lo, med, hi = np.quantile(d, [(1 - conf) / 2, 0.5, (1 + conf) / 2], method="inverted_cdf")
        pit = np.mean(d < o) + rng.uniform() * np.mean(d == o)
        out.append(({"source": label, "quantity": q, "lo": lo, "hi": hi, "forecast": med, "observed": o,
                     "covered": bool(lo <= o <= hi), "pit": float(pit), "model": fit.model, "reason": fit.reason,
                     "fit_h": cut, "horizon_h": h}, d))
    return out, counts


def forecast_check(sources, *, split=0.7, conf=0.9, quantities=QUANTITIES, names=None, ckpt_cost=CKPT_COST,
                   restart=None, alpha=0.05, n_draws=4000, seed=None):
    """Fit each source on the first ``split`` of its window, forecast the rest, and compare with what happened.

    ``sources``: one log or a list (or a dict name -> log) of
    :class:`~relmodel.InterruptionLog`, Slurm :class:`~relmodel.data.JobLog` or
    :class:`~relmodel.Source` objects; ``names`` labels them.  ``quantities``:
    any of "failures", "job_mtbf", "ettr" (the last for Slurm runs only, at the
    interval recommended from the fitted part with ``ckpt_cost`` and the run's
    measured restart gap unless ``restart`` is given).  ``conf``: level of the
    predictive intervals; ``n_draws`` Monte Carlo draws of the predictive
    distribution (``seed`` fixes them; None draws fresh ones).  Durations are hours.  Returns a
    :class:`ForecastCheck`.

    Examples
    --------
    >>> import relmodel
    >>> check = relmodel.checkpoint.forecast_check(relmodel.datasets.stepfun())
    >>> sorted(check.to_frame()["quantity"])
    ['failures', 'job_mtbf']
    """
    split = _fraction("split", split, "the share of each window fitted, e.g. 0.7")
    conf = _fraction("conf", conf, "e.g. 0.9")
    quantities = (quantities,) if isinstance(quantities, str) else tuple(quantities)
    bad = [q for q in quantities if q not in QUANTITIES]
    if bad or not quantities:
        raise FitError(f"unknown quantities {bad}; choose from {', '.join(QUANTITIES)}")
    twice = sorted({q for q in quantities if quantities.count(q) > 1})
    if twice:
        raise FitError(f"quantities lists {', '.join(twice)} more than once; give each quantity once")
    ckpt = _cost("ckpt_cost", ckpt_cost)
    restart = None if restart is None else _cost("restart", restart)
    n_draws = budget_count("n_draws", n_draws, lo=1)
    labelled = _sources(sources, names)
    if not labelled:
        raise FitError("forecast_check needs at least one log; got an empty list of sources")
    check_cost(f"forecast_check(n_draws={n_draws:,})", work=40.0 * n_draws * len(labelled) * len(quantities),
               memory=8.0 * n_draws * (len(quantities) * len(labelled) + 4), hint="use fewer draws")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ModelInputError(f"seed must be a whole number of 0 or more, or None; got {brief(seed)}")
    rng = np.random.default_rng(seed)
    rows, draws, totals, observed = [], [], np.zeros(n_draws), 0
    for label, src in labelled:
        out, counts = _check_one(label, src, split, conf, quantities, ckpt, restart, alpha, n_draws, rng)
        rows += [r for r, _ in out]
        draws += [d for _, d in out]
        totals += counts
        observed += next((r["observed"] for r, _ in out if r["quantity"] == "failures"), 0)
    if len(draws) > len(quantities) and "failures" in quantities:
        lo, med, hi = np.quantile(totals, [(1 - conf) / 2, 0.5, (1 + conf) / 2], method="inverted_cdf")
        rows.append({"source": "all logs", "quantity": "failures", "lo": lo, "hi": hi, "forecast": med,
                     "observed": observed, "covered": bool(lo <= observed <= hi),
                     "pit": float(np.mean(totals < observed) + rng.uniform() * np.mean(totals == observed)),
                     "model": "sum", "reason": "the sum of the logs' forecasts", "fit_h": np.nan,
                     "horizon_h": np.nan})
        draws.append(totals)
    return ForecastCheck(pd.DataFrame(rows), conf, split, tuple(draws))


def held_out_path(source, *, split=0.7, conf=0.9, n_grid=60, n_draws=2000, seed=None, alpha=0.05):
    """Cumulative failures over a log's window beside the forecast band of its held-out part.

    Returns columns t_h (hours from the window start), observed (cumulative
    failures), forecast, lo, hi (the pointwise ``conf`` band; NaN over the
    fitted part) for a figure.

    Examples
    --------
    >>> import relmodel
    >>> path = held_out_path(relmodel.datasets.stepfun(), seed=1)
    >>> list(path.columns), int(path["observed"].iloc[-1])          # hours, failures
    (['t_h', 'observed', 'forecast', 'lo', 'hi'], 582)
    """
    if not 0 < split < 1:
        raise FitError(f"split must be between 0 and 1 (e.g. 0.7), got {split!r}")
    u, length, _, _, (t0, _) = _event_times(source, None, False)
    cut = split * length
    fit = current_rate(source, conf=conf, alpha=alpha, window=(t0, t0 + cut))
    grid = np.linspace(cut, length, n_grid)
    paths = np.sum(u <= cut) + fit.count_draws(grid - cut, n_draws, seed)
    lo, med, hi = np.quantile(paths, [(1 - conf) / 2, 0.5, (1 + conf) / 2], axis=0, method="inverted_cdf")
    before = np.linspace(0.0, cut, n_grid, endpoint=False)
    t = np.concatenate([before, grid])
    nan = np.full(before.size, np.nan)
    return pd.DataFrame({"t_h": t, "observed": np.searchsorted(u, t, side="right"),
                         "forecast": np.concatenate([nan, med]), "lo": np.concatenate([nan, lo]),
                         "hi": np.concatenate([nan, hi])})
