"""The candidate rate models "today" can rest on, each fitted to a window's pooled failure times.

* **constant**: the window's average rate;
* **power law** (Crow-AMSAA): intensity ``lambda beta t^(beta - 1)``, read at the window's end,
  once the window holds at least :data:`MIN_TREND` failures;
* **log-linear** (Cox and Lewis 1966, chapter 3): intensity ``exp(a + b t)``, read at the
  window's end, with the same minimum as the power law, for a rising rate only (a rate that
  rises in a straight line lies between the two);
* **change point**: the rate since the latest change (Poisson optimal partitioning, as
  :func:`~relmodel.stats.rates.rate_changes` finds them) whose stretch holds the minimum
  evidence: at least :data:`MIN_EVENTS` failures and :data:`MIN_SHARE` of the window.

Each fit is a :class:`Component` whose :meth:`Component.expected_draws` carry parameter
uncertainty: the expected count up to the window's end is Gamma(n + 1/2) (Jeffreys), the
power-law shape is drawn from its pivot 2 n beta / beta_hat ~ chi-square(2 n) (Crow 1974),
scaled by ``dispersion`` for failures that come in bursts, and by a lognormal level with the
window's step-to-step spread (``drift``) when the rate has shown it moves.  A model that the
window cannot support (too few failures, no change with enough evidence after it) is absent.
"""

from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize, special

from ..rates.changepoint import MAX_BINS

__all__ = ["Component", "MIN_EVENTS", "MIN_SHARE", "MIN_TREND", "fit_models", "change_points"]

#: Fewest failures the stretch after a change must hold before "today" rests on it.
MIN_EVENTS = 20
#: Fewest failures in the window before a power law (a trend) may be fitted to it.
MIN_TREND = 10
#: Shortest stretch after a change, as a share of the window, that "today" may rest on.
MIN_SHARE = 0.1


@dataclass(frozen=True)
class Component:
    """One fitted rate model: ``n_used`` failures over the stretch from ``since_h`` to ``length_h``.

    ``rate_per_h`` is its rate at the window's end; ``beta`` the power-law shape (1 otherwise);
    ``weight`` its share of the forecast; ``note`` what it rests on, in words; ``growth`` the
    log-linear model's log of the rate at the end over the rate at the start (``growth_sd`` its
    standard error).
    """

    model: str
    n_used: int
    since_h: float
    length_h: float
    beta: float = 1.0
    dispersion: float = 1.0
    drift: float = 0.0
    weight: float = 1.0
    note: str = ""
    growth: float = 0.0
    growth_sd: float = 0.0

    @property
    def stretch_h(self):
        return self.length_h - self.since_h

    @property
    def rate_per_h(self):
        if self.model == "log-linear":
            return self.n_used * _end_factor(self.growth) / self.stretch_h
        return self.n_used * self.beta / self.stretch_h

    def share(self, s):
        """Share of the stretch's expected failures before fraction ``s`` of it."""
        s = np.asarray(s, float)
        if self.model == "log-linear":
            return _ratio(self.growth, s)
        return s ** self.beta

    def _level(self, n_draws, rng):
        phi = self.dispersion
        g = phi * rng.gamma((self.n_used + 0.5) / phi, size=n_draws)
        if self.model == "power law":
            shape = self.beta * rng.chisquare(2 * self.n_used, n_draws) / (2 * self.n_used)
        elif self.model == "log-linear":
            shape = self.growth + self.growth_sd * rng.standard_normal(n_draws)
        else:
            shape = np.ones(n_draws)
        return g, shape

    def rate_draws(self, n_draws, rng):
        """Draws of the rate at the window's end (parameter uncertainty, no drift)."""
        g, shape = self._level(n_draws, rng)
        return g * (_end_factor(shape) if self.model == "log-linear" else shape) / self.stretch_h

    def expected_draws(self, horizons_h, n_draws, rng):
        """Draws of the expected failures in (end, end + h] for each ``h``: shape (n_draws, len(horizons))."""
        h = np.atleast_1d(np.asarray(horizons_h, float))
        g, shape = self._level(n_draws, rng)
        if self.drift > 0:
            g = g * np.exp(self.drift * rng.standard_normal(n_draws) - self.drift**2 / 2)
        if self.model == "log-linear":
            x = shape[:, None]
            return g[:, None] * (_ratio(x, 1 + h[None, :] / self.stretch_h) - 1)
        return g[:, None] * np.expm1(shape[:, None] * np.log1p(h[None, :] / self.stretch_h))


def _ratio(x, s):
    """expm1(x s) / expm1(x): the log-linear mean function at fraction s of the stretch (s when x is 0)."""
    x, s = np.broadcast_arrays(np.asarray(x, float), np.asarray(s, float))
    small = np.abs(x) < 1e-9
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np.expm1(x * s) / np.expm1(np.where(small, 1.0, x))
    return np.where(small, s, out)


def _end_factor(x):
    """The log-linear rate at the stretch's end over its average: x / (1 - exp(-x)) (1 when x is 0)."""
    x = np.asarray(x, float)
    small = np.abs(x) < 1e-9
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np.where(small, 1.0, x / -np.expm1(-np.where(small, 1.0, x)))
    return out if out.ndim else float(out)


def _mean_share(x):
    """Mean of s under the density proportional to exp(x s) on [0, 1]."""
    return 0.5 + x / 12 if abs(x) < 1e-4 else 1 / -np.expm1(-x) - 1 / x


def _log_linear(u, length):
    if u.size < MIN_TREND:
        return None, f"a trend needs {MIN_TREND} failures, the window has {u.size}"
    m = float(np.mean(u)) / length
    lo, hi = _mean_share(-200.0), _mean_share(200.0)
    m = min(max(m, lo + 1e-9), hi - 1e-9)
    x = optimize.brentq(lambda v: _mean_share(v) - m, -200.0, 200.0, xtol=1e-10)
    if not x > 0:
        return None, ("the log-linear trend serves a rising rate only (a falling one forecasts the failures dying "
                      "away, where a fleet's falling rate levels off, as the power law lets it)")
    var = 1 / 12 if abs(x) < 1e-4 else 1 / x**2 - np.exp(-x) / np.expm1(-x) ** 2   # Var(s) under exp(x s)
    sd = 1 / np.sqrt(u.size * max(var, 1e-12))
    c = Component("log-linear", int(u.size), 0.0, length, growth=float(x), growth_sd=float(sd),
                  note=(f"the log-linear trend (the rate grew {np.exp(x):.2f} times over the window) read at the end "
                        f"of the whole window ({_days(length)}, {_plural(u.size, 'failure')})"))
    return c, ""


def change_points(u, length):
    """Change times (hours) of failure times ``u`` over (0, ``length``], found as rate_changes finds them.

    The same bins (a day, or the window / 400), penalty (3 log m) and least segment (2 bins) as
    :func:`~relmodel.stats.rates.rate_changes` with ``per="job"``, without its tables: a fast
    path for fitting many windows (a test holds the two equal).
    """
    width = max(24.0, length / MAX_BINS)
    edges = np.append(np.arange(0.0, length, width), length)
    if edges.size > 2 and edges[-1] - edges[-2] < 0.5 * width:
        edges = np.delete(edges, -2)
    counts = np.histogram(np.clip(u, 0.0, length), bins=edges)[0].astype(float)
    m = counts.size
    if m < 4 or u.size == 0:
        return np.empty(0)
    return edges[np.asarray(_partition(counts, np.diff(edges), 3.0 * np.log(max(m, 2)), 2), int)]


def _partition(counts, widths, penalty, min_size):
    """Optimal partitioning (Jackson et al. 2005) on a precomputed cost matrix: bins where segments start."""
    m = counts.size
    cn = np.concatenate([[0.0], np.cumsum(counts)])
    cw = np.concatenate([[0.0], np.cumsum(widths)])
    n = cn[None, :] - cn[:, None]                       # events in bins s..t-1, [s, t]
    length = cw[None, :] - cw[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        cost = np.where(n > 0, -2.0 * (n * np.log(n / length) - n), 0.0)
    best = np.full(m + 1, np.inf)
    best[0] = -penalty
    last = np.zeros(m + 1, int)
    for t in range(min_size, m + 1):
        total = best[:t - min_size + 1] + cost[:t - min_size + 1, t] + penalty
        i = int(np.argmin(total))
        best[t], last[t] = total[i], i
    cps, t = [], m
    while t > 0:
        t = last[t]
        if t > 0:
            cps.append(t)
    return sorted(cps)


def _plural(n, word):
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _days(h):
    return f"{h / 24:,.1f} days"


def _constant(u, length):
    return Component("constant", int(u.size), 0.0, length,
                     note=f"the whole window ({_days(length)}, {_plural(u.size, 'failure')})")


def _power_law(u, length):
    if u.size < MIN_TREND:
        return None, f"a trend needs {MIN_TREND} failures, the window has {u.size}"
    s = float(np.sum(np.log(length / u)))
    if not s > 0:
        return None, "the power law cannot be fitted (every failure at the window's end)"
    beta = u.size / s
    return Component("power law", int(u.size), 0.0, length, beta=float(beta),
                     note=(f"the power law (shape {beta:.2f}) read at the end of the whole window "
                           f"({_days(length)}, {_plural(u.size, 'failure')})")), ""


def _change_point(u, length):
    """The latest change whose stretch holds the minimum evidence, as a Component (or None), and why."""
    cps = change_points(u, length)
    if cps.size == 0:
        return None, "no change in the rate was found"
    ok = [c for c in cps if np.sum(u > c) >= MIN_EVENTS and length - c >= MIN_SHARE * length]
    last = float(cps[-1])
    if not ok:
        return None, (f"the last change, at day {last / 24:,.1f}, leaves {_days(length - last)} and "
                      f"{_plural(int(np.sum(u > last)), 'failure')}, under the minimum")
    c = float(ok[-1])
    n = int(np.sum(u > c))
    note = f"the {_days(length - c)} since the change at day {c / 24:,.1f} ({_plural(n, 'failure')})"
    if c != last:
        note += (f"; the later change at day {last / 24:,.1f} leaves {_days(length - last)} and "
                 f"{_plural(int(np.sum(u > last)), 'failure')}, under the minimum")
    return Component("change point", n, c, length, note=note), ""


def fit_models(u, length, alpha=0.05):
    """The models the window supports, as Components (constant first), and notes on those it does not."""
    out, absent = [_constant(u, length)], []
    for fit in (_power_law, _log_linear, _change_point):
        comp, why = fit(u, length)
        if comp is None:
            absent.append(why)
        else:
            out.append(comp)
    return [_spread(c, u, alpha) for c in out], absent


def _spread(c, u, alpha):
    """The component with its dispersion (bursts) and drift (a level that moves) set from the window."""
    phi = _dispersion(u, c, alpha)
    drift = _drift(u, c.length_h) if c.model == "change point" or phi > 1 else 0.0
    return replace(c, dispersion=phi, drift=drift)


def _drift(u, length, k=8):
    """Spread of the log rate from one block of the window to the next, beyond Poisson noise (0 if none).

    Half the mean squared step between successive blocks' log rates, less the Poisson part
    (about 1 / count per block), is the variance of a level that moves; its square root
    scales the forecast's rate.
    """
    c = np.histogram(u, np.linspace(0.0, length, k + 1))[0] + 0.5
    steps = np.diff(np.log(c))
    noise = 1 / c[:-1] + 1 / c[1:]
    return float(np.sqrt(max(0.0, np.mean(steps**2 - noise) / 2)))


def _dispersion(u, c, alpha):
    """Pearson's chi-square over the stretch's bins per degree of freedom, when it rejects the model at alpha.

    Failures that come in bursts (one incident on several nodes, a bad week) vary more than
    Poisson; the forecast's variance is then scaled by this factor (1 otherwise).
    """
    k = int(min(20, c.n_used // 5))
    if k < 4:
        return 1.0
    edges = np.linspace(c.since_h, c.length_h, k + 1)
    seen = np.histogram(u[u > c.since_h], edges)[0]
    expect = c.n_used * np.diff(c.share((edges - c.since_h) / c.stretch_h))
    chi2 = float(np.sum((seen - expect) ** 2 / expect))
    df = k - (2 if c.model in ("power law", "log-linear") else 1)
    return 1.0 if special.chdtrc(df, chi2) >= alpha else chi2 / df
