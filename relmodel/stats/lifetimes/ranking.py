"""Choose among failure-time families: AIC, Akaike weights and a censored GOF test.

:func:`compare_fits` fits each family by censored maximum likelihood
(:func:`relmodel.stats.lifetimes.fitting.fit`) and ranks them by AIC (Burnham and Anderson,
*Model Selection and Multimodel Inference*, 2nd ed., 2002, section 2.9 for
Akaike weights).  Goodness of fit is the Kolmogorov-Smirnov distance between
the Kaplan-Meier estimate and the fitted distribution function; because the
parameters are estimated and the data censored, its p-value comes from a
parametric bootstrap (Efron, "Censored data and the bootstrap", JASA 76,
1981): each replicate draws failure times from the fitted model and censoring
times from the Kaplan-Meier estimate of the censoring distribution (failures
treated as censored), refits the family, and recomputes the distance.
Left-truncated rows are redrawn conditional on surviving their entry time.
For samples larger than ``boot_size`` the replicates have ``boot_size`` rows
and distances are compared on the sqrt(n) scale, where the statistic has a
limiting distribution (an m-out-of-n bootstrap; Bickel, Goetze and van Zwet,
Statistica Sinica 7, 1997), so the cost of a p-value does not grow with n
(left-truncated samples are always resampled at full size).
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...errors import FitError
from .registry import get_family
from .fitting import MIN_FAILURES, FitResult, FitWarning, fit_sample, prepare
from .mle import Sample
from ...tables import Result, people_table
from relmodel.budget_guard import check_cost, count
from relmodel.base.progress import steps

__all__ = ["compare_fits", "Comparison", "DEFAULT_FAMILIES", "ks_distance"]

DEFAULT_FAMILIES = ("exponential", "weibull", "lognormal", "gamma", "loglogistic")
_COLUMNS = ["family", "loglik", "aic", "bic", "delta_aic", "akaike_weight", "ks", "p_value"]


@dataclass(frozen=True, eq=False)
class Comparison(Result):
    """Families ranked by AIC.

    ``by_family`` columns: family, loglik, aic, bic, delta_aic, akaike_weight, ks
    (Kaplan-Meier vs fitted CDF), p_value (parametric bootstrap; NaN when
    ``n_boot`` is 0).  ``best`` is the lowest-AIC :class:`FitResult`;
    ``fits`` maps family name to its fit.
    """

    by_family: pd.DataFrame
    fits: dict
    best: FitResult
    n_boot: int

    def to_frame(self):
        """The comparison table (a copy)."""
        return self.by_family.copy()

    def text(self):
        boot = (f"; p-values from {self.n_boot:,} bootstrap resamples" if self.n_boot
                else "; no bootstrap p-values (n_boot=0)")
        return (f"Model comparison: n = {self.best.n:,}, failures = {self.best.n_observed:,}; best by AIC: "
                f"{self.best.family}{boot}.")

    def _people(self):
        t = self.by_family
        return people_table(pd.DataFrame({
            "family": t["family"], "log-likelihood": t["loglik"], "AIC": t["aic"], "BIC": t["bic"],
            "AIC above the best": t["delta_aic"], "Akaike weight": t["akaike_weight"],
            "KS distance to Kaplan-Meier": t["ks"], "bootstrap p-value": t["p_value"]}),
            missing="not computed")

    def table(self):
        """The result as a table for people (text cells, worded headers, no index)."""
        return self._people()

    def __repr__(self):
        return f"Comparison(best={self.best.family})\n{self.by_family.to_string(index=False)}"


def compare_fits(source, families=DEFAULT_FAMILIES, *, observed=None, entry=None, n_boot=200, seed=None,
                 boot_size=10_000):
    """Fit several families and rank them by AIC, with a bootstrap GOF p-value.

    Parameters
    ----------
    source, observed, entry
        As for :func:`relmodel.fit` (durations in hours).
    families : sequence of str
        Family names (default: exponential, Weibull, log-normal, gamma,
        log-logistic).
    n_boot : int
        Parametric bootstrap resamples per family for the p-value; 0 skips the
        bootstrap (``p_value`` is NaN).  The p-value is
        ``(1 + #{KS* >= KS}) / (n_boot + 1)``.
    seed : int or Generator, optional
        Random seed of the bootstrap.
    boot_size : int or None
        Rows per bootstrap replicate when the sample is larger (None: always
        the full sample); see the module notes.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(1).weibull(0.7, 300) * 100.0      # hours
    >>> cmp = compare_fits(x, ["exponential", "weibull"], n_boot=0, seed=0)
    >>> cmp.best.family
    'weibull'
    """
    if int(n_boot) < 0:
        raise FitError(f"n_boot must be a whole number >= 0, got {n_boot!r}")
    if boot_size is not None and int(boot_size) < 50:
        raise FitError(f"boot_size must be at least 50 rows (or None), got {boot_size!r}")
    names = [get_family(f).name for f in ([families] if isinstance(families, str) else families)]
    if not names:
        raise FitError("no families to compare; name at least one of " + ", ".join(DEFAULT_FAMILIES))
    sample = prepare(source, observed, entry)
    n_boot = count("n_boot", n_boot)
    rows_per = min(sample.t.size, int(boot_size)) if boot_size is not None else sample.t.size
    check_cost(f"compare_fits(n_boot={n_boot:,})", work=n_boot * len(names) * rows_per * 200,
               hint="use fewer bootstrap resamples (n_boot) or families")
    rng = np.random.default_rng(seed)
    cens = _censoring_law(sample) if n_boot else None
    km = _km_steps(sample.t, sample.obs, sample.entry, sample.w)
    fits, rows = {}, []
    for name in _fittable(names, sample):
        try:
            res = fit_sample(sample, name)
        except FitError as exc:
            if sample.d == 0:
                raise
            warnings.warn(f"{exc}; it is left out of the comparison", FitWarning, stacklevel=2)
            continue
        fits[name] = res
        ks = ks_distance(sample, get_family(res.family).law(res.params), km)
        p = _bootstrap_p(sample, res, ks, cens, (int(n_boot), boot_size), rng) if n_boot else np.nan
        rows.append([name, res.loglik, res.aic, res.bic, ks, p])
    if not fits:
        raise FitError("no family could be fitted to these data: " + ", ".join(names))
    table = _rank(pd.DataFrame(rows, columns=["family", "loglik", "aic", "bic", "ks", "p_value"]))
    return Comparison(table, fits, fits[table["family"].iloc[0]], int(n_boot))


def _fittable(names, sample):
    """Unique family names; only the exponential when a shape cannot be estimated."""
    names = list(dict.fromkeys(names))
    fail = sample.t[sample.obs]
    shaped = any(get_family(n).n_params > 1 for n in names)
    if shaped and (0 < fail.size < MIN_FAILURES or (fail.size and fail.min() == fail.max())):
        distinct = 1 if fail.min() == fail.max() else 2
        warnings.warn(f"{fail.size} failure(s) at {distinct} distinct time(s): only the exponential can be "
                      "fitted", FitWarning, stacklevel=3)
        return ["exponential"]
    return names


def _rank(table):
    """Sort by AIC; add the AIC difference and Akaike weights (Burnham and Anderson 2002)."""
    table = table.sort_values("aic", kind="stable").reset_index(drop=True)
    table.insert(4, "delta_aic", table["aic"] - table["aic"].iloc[0])
    rel = np.exp(-0.5 * table["delta_aic"])
    table.insert(5, "akaike_weight", rel / rel.sum())
    return table[_COLUMNS]


def _km_steps(t, obs, entry=None, w=None):
    """Kaplan-Meier survival at the distinct failure times: ``(times, S)``."""
    w = np.ones(t.size) if w is None else w
    order = np.argsort(t, kind="stable")
    ts, ws = t[order], w[order]
    cum = np.concatenate([[0.0], np.cumsum(ws)])
    times, inv = np.unique(t[obs], return_inverse=True)
    deaths = np.bincount(inv, weights=w[obs], minlength=times.size)
    at_risk = cum[-1] - cum[np.searchsorted(ts, times, side="left")]
    if entry is not None:
        eo = np.argsort(entry, kind="stable")
        ce = np.concatenate([[0.0], np.cumsum(w[eo])])
        at_risk -= ce[-1] - ce[np.searchsorted(entry[eo], times, side="left")]
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(at_risk > 0, 1 - deaths / at_risk, 1.0)
    return times, np.cumprod(factor)


def ks_distance(sample, dist, km=None):
    """Largest gap between the Kaplan-Meier curve and the fitted CDF.

    Taken over ``[0, longest duration]`` on both sides of every Kaplan-Meier
    step.  With left truncation the model is conditioned on surviving the
    earliest entry time, as the Kaplan-Meier curve is.  ``km`` reuses a
    ``(times, S)`` pair computed before.
    """
    times, s_km = km if km is not None else _km_steps(sample.t, sample.obs, sample.entry, sample.w)
    if times.size == 0:
        return np.nan
    s_before = np.concatenate([[1.0], s_km[:-1]])
    tmax = float(np.max(sample.t))
    grid = np.append(times, tmax)
    s_model = dist.sf(grid)
    if sample.entry is not None:
        s_model = s_model / dist.sf(float(np.min(sample.entry)))
    gaps = np.abs(np.concatenate([s_km - s_model[:-1], s_before - s_model[:-1], [s_km[-1] - s_model[-1]]]))
    return float(np.max(gaps))


def _censoring_law(sample):
    """Support and CDF of the follow-up after entry (reverse Kaplan-Meier), or None.

    Censoring is measured from each row's entry (from 0 without truncation),
    so a redrawn censoring time never falls before its row's entry.
    """
    if sample.obs.all():
        return None
    follow = sample.t if sample.entry is None else sample.t - sample.entry
    times, s = _km_steps(follow, ~sample.obs, None, sample.w)
    return times, 1 - s


def _draw(sample, res, cens, rng, m):
    """One bootstrap sample of ``m`` rows with the same censoring design."""
    dist = get_family(res.family).law(res.params)
    n = sample.t.size
    rows = None
    if sample.w is not None:
        rows = rng.choice(n, size=m, p=sample.w / sample.w.sum())
    elif m < n:
        rows = rng.choice(n, size=m, replace=False)
    entry = None
    if sample.entry is not None:
        entry = sample.entry if rows is None else sample.entry[rows]
        lo = dist.cdf(entry)
        t = dist.ppf(lo + rng.random(m) * (1 - lo))
    else:
        t = dist.rvs(size=m, random_state=rng)
    obs = np.ones(m, bool)
    if cens is not None:
        c_times, c_cdf = cens
        j = np.searchsorted(c_cdf, rng.random(m), side="left")
        c = np.where(j < c_times.size, c_times[np.minimum(j, c_times.size - 1)], np.inf)
        if entry is not None:
            c = c + entry
        obs = t <= c
        t = np.minimum(t, c)
    t = np.maximum(t, np.finfo(float).tiny)
    return Sample(t, obs, entry)


def _bootstrap_p(sample, res, ks, cens, sizes, rng):
    """Parametric-bootstrap p-value of the KS distance for one family."""
    n_boot, boot_size = sizes
    fam = get_family(res.family)
    n = int(sample.t.size if sample.w is None else sample.w.sum())
    # Truncated samples are resampled at full size: the early Kaplan-Meier steps
    # depend on how many rows enter early, which does not scale with sqrt(n).
    m = n if boot_size is None or sample.entry is not None else min(n, int(boot_size))
    target = ks * np.sqrt(n / m)  # compare sqrt(m) D*_m with sqrt(n) D_n
    exceed, done = 0, 0
    with warnings.catch_warnings(), steps(f"bootstrap of the {res.family} fit", total=n_boot) as step:
        warnings.simplefilter("ignore")
        for _ in range(n_boot):
            boot = _draw(sample, res, cens, rng, m)
            step()
            if boot.d < MIN_FAILURES:
                continue
            try:
                theta, _, _ = fam.maximise(boot)
            except FitError:
                continue
            exceed += ks_distance(boot, fam.law(fam.params(theta))) >= target
            done += 1
    return (1 + exceed) / (1 + done)
