"""Weights of the rate models by how well each forecast the later parts of the window from the earlier.

Leave-future-out cross-validation (Bürkner, Gabry and Vehtari, "Approximate leave-future-out
cross-validation for Bayesian time series models", J. Stat. Comput. Simul. 90(14), 2020):
at each origin in :data:`ORIGINS` (shares of the window) every model is fitted, by the same
procedure as on the whole window, to the failures before the origin, and scored by the log
of its predictive probability of the failures counted in the next :data:`BLOCK` of the
window.  The weights are pseudo-BMA+ (Yao, Vehtari, Simpson and Gelman, "Using stacking to
average Bayesian predictive distributions", Bayesian Analysis 13(3), 2018): softmax of the
summed scores, averaged over Bayesian-bootstrap draws of the folds, which keeps weight on
a model that predicts almost as well instead of betting everything on one.
"""

import numpy as np
from scipy import special

from .models import _change_point, _constant, _log_linear, _power_law, _spread

__all__ = ["ORIGINS", "BLOCK", "lfo_scores", "pseudo_bma_plus"]

#: Forecast origins, as shares of the window; each forecasts the next BLOCK of it.
ORIGINS = (0.5, 0.6, 0.7, 0.8, 0.9)
BLOCK = 0.1
_FITS = {"constant": lambda u, L: (_constant(u, L), ""), "power law": _power_law,
         "log-linear": _log_linear, "change point": _change_point}


def _log_pred(comp, y, h, n_draws, rng):
    """log P(y failures in the next h hours) under a component's predictive distribution."""
    mu = comp.expected_draws([h], n_draws, rng)[:, 0]
    mu = np.maximum(mu, 1e-300)
    phi = comp.dispersion
    if phi > 1:                 # gamma-mixed Poisson with variance phi times the mean
        r = mu / (phi - 1)
        lp = (special.gammaln(y + r) - special.gammaln(r) - special.gammaln(y + 1) - r * np.log(phi)
              + y * np.log1p(-1 / phi))
    else:
        lp = y * np.log(mu) - mu - special.gammaln(y + 1)
    top = lp.max()
    return float(top + np.log(np.mean(np.exp(lp - top))))


def lfo_scores(u, length, models, alpha=0.05, n_draws=300, seed=None):
    """Log predictive scores, shape (len(ORIGINS), len(models)), of each named model on each held-out block.

    A model the prefix cannot support (too few failures, no change) forecasts as the constant does
    there: the procedure, not one fit, is scored.  ``seed`` fixes the Monte Carlo draws (None: fresh).
    """
    rng = np.random.default_rng(seed)
    out = np.zeros((len(ORIGINS), len(models)))
    for i, o in enumerate(ORIGINS):
        cut = o * length
        h = (min(1.0, o + BLOCK) if BLOCK else 1.0) * length - cut
        prefix = u[u <= cut]
        y = int(np.sum((u > cut) & (u <= cut + h)))
        const = _spread(_constant(prefix, cut), prefix, alpha)
        for j, name in enumerate(models):
            comp = const if name == "constant" else _FITS[name](prefix, cut)[0]
            comp = const if comp is None else (comp if name == "constant" else _spread(comp, prefix, alpha))
            out[i, j] = _log_pred(comp, y, h, n_draws, rng)
    return out


def pseudo_bma_plus(scores, n_boot=1000, seed=None):
    """Pseudo-BMA+ weights from a (folds, models) array of log predictive scores (``seed``: the bootstrap's)."""
    k = scores.shape[0]
    a = np.random.default_rng(seed).dirichlet(np.ones(k), n_boot)
    z = k * a @ scores
    w = np.exp(z - special.logsumexp(z, axis=1, keepdims=True))
    return w.mean(axis=0)
