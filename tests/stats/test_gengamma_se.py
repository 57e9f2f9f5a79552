"""Standard errors of the generalized gamma near lambda = 0, and the Nelson-Aalen variance.

References: the profile likelihood of lambda (its curvature is 1 / Var(lambda)
exactly), an independent Hessian from a 30-digit mpmath log-likelihood, and
the nested log-normal fit; Klein and Moeschberger, *Survival Analysis*, 2nd
ed. (2003), eq. 4.2.4 for the Nelson-Aalen variance.
"""

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize

import relmodel
from relmodel.stats.lifetimes.fitting import prepare
from relmodel.stats.lifetimes.gengamma import GeneralizedGamma, _terms

X = [3.2, 11.5, 17, 25, 25, 40, 55, 60]
OBS = [1, 0, 1, 0, 0, 1, 0, 0]


def _mp_loglik(x, obs, mu, lnsig, lam):
    """The generalized gamma log-likelihood in 30-digit arithmetic (Prentice 1974 form)."""
    mp.mp.dps = 30
    sigma, lam, total = mp.e ** mp.mpf(lnsig), mp.mpf(lam), mp.mpf(0)
    for t, o in zip(x, obs):
        y = mp.log(t)
        w = (y - mu) / sigma
        if lam == 0:
            total += (-w**2 / 2 - mp.log(mp.sqrt(2 * mp.pi)) - mp.log(sigma) - y) if o else mp.log(mp.ncdf(-w))
            continue
        k = 1 / lam**2
        u = k * mp.e ** (lam * w)
        if o:
            total += mp.log(abs(lam)) - mp.log(sigma) - y - mp.loggamma(k) + k * mp.log(k) + k * lam * w - u
        else:
            total += mp.log(mp.gammainc(k, u, mp.inf, regularized=True) if lam > 0
                            else mp.gammainc(k, 0, u, regularized=True))
    return total


def _mp_hessian(f, theta, h):
    """Central-difference Hessian of an mpmath function, Richardson-combined over h and 2h."""
    def one(step):
        p = len(theta)
        e = [[step if i == j else 0 for j in range(p)] for i in range(p)]
        at = lambda *ds: f(*[theta[i] + sum(d[i] for d in ds) for i in range(p)])
        f0, hess = f(*theta), np.empty((p, p))
        neg = lambda v: [-a for a in v]
        for i in range(p):
            hess[i, i] = float((at(e[i]) - 2 * f0 + at(neg(e[i]))) / step**2)
            for j in range(i):
                v = (at(e[i], e[j]) - at(e[i], neg(e[j])) - at(neg(e[i]), e[j]) + at(neg(e[i]), neg(e[j])))
                hess[i, j] = hess[j, i] = float(v / (4 * step**2))
        return hess
    return (4 * one(h) - one(2 * h)) / 3


def _profile(x, obs, lam):
    s, fam = prepare(x, obs), GeneralizedGamma()
    neg = lambda th: -fam.loglik(s, np.array([th[0], th[1], lam]))
    start = [np.mean(np.log(x)), 0.3]
    res = optimize.minimize(neg, start, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-13})
    return -res.fun


def test_log_terms_match_30_digit_arithmetic_near_lambda_zero():
    y = np.log(np.array([3.2, 11.5, 25.0, 60.0, 200.0]))
    for lam in (0.5, 0.05, 3e-3, -1e-3, -0.2):
        for failed in (True, False):
            ours = _terms(y, lam, 4.1, 1.64, np.full(y.size, failed))
            ref = [float(_mp_loglik([t], [failed], 4.1, np.log(1.64), lam)) for t in np.exp(y)]
            np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-11)


def test_small_sample_standard_errors_match_profile_and_independent_hessian():
    r = relmodel.fit(X, "gengamma", observed=OBS)
    lam = r.params["lambda"]
    assert abs(lam) < 0.01
    # Profile likelihood of lambda: it falls by only ~0.003 at lambda +- 0.3 (SE ~ 3.7).
    drop = 2 * r.loglik - _profile(X, OBS, lam - 0.3) - _profile(X, OBS, lam + 0.3)
    se_profile = 0.3 / np.sqrt(drop)
    se = r.ci.set_index("param")["se"]
    assert se["lambda"] == pytest.approx(se_profile, rel=0.01)
    # Independent Hessian at lambda = 0 (30 digits), in (mu, ln sigma, lambda).
    f = lambda m, a, lm: _mp_loglik(X, OBS, m, a, lm)
    hess = _mp_hessian(f, [mp.mpf(r.params["mu"]), mp.log(r.params["sigma"]), mp.mpf(0)], mp.mpf("0.05"))
    cov = np.linalg.inv(-hess)
    assert se["mu"] == pytest.approx(np.sqrt(cov[0, 0]), rel=0.02)
    assert se["sigma"] == pytest.approx(r.params["sigma"] * np.sqrt(cov[1, 1]), rel=0.02)
    assert se["lambda"] == pytest.approx(np.sqrt(cov[2, 2]), rel=0.02)
    # A nested model cannot be more precise than the model that contains it.
    ln = relmodel.fit(X, "lognormal", observed=OBS).ci.set_index("param")["se"]
    assert se["mu"] > ln["mu"] and se["sigma"] > ln["sigma"]


def test_large_lognormal_sample_lambda_se_matches_profile():
    t = np.random.default_rng(1).lognormal(3, 1, 1000)
    r = relmodel.fit(t, "gengamma")
    lam = r.params["lambda"]
    drop = 2 * r.loglik - _profile(t, None, lam - 0.1) - _profile(t, None, lam + 0.1)
    se = r.ci.set_index("param")["se"]
    assert se["lambda"] == pytest.approx(0.1 / np.sqrt(drop), rel=0.01)
    ln = relmodel.fit(t, "lognormal").ci.set_index("param")["se"]
    assert se["mu"] >= ln["mu"]


def test_nelson_aalen_variance_is_the_textbook_one_by_default():
    t, obs = [1, 2, 2, 3, 5, 8], [1, 1, 0, 1, 0, 1]
    na = relmodel.stats.nelson_aalen(t, observed=obs)
    var = np.cumsum([1 / 36, 1 / 25, 1 / 9, 0, 1 / 1])  # K&M 4.2.4: sum d/n^2 at 1, 2, 3, 5, 8
    h = np.array([1 / 6, 1 / 6 + 1 / 5, 1 / 6 + 1 / 5 + 1 / 3, 0.7, 1.7])
    z = 1.959963984540054
    np.testing.assert_allclose(na.upper[1:], h * np.exp(z * np.sqrt(var) / h), rtol=1e-12)
    assert "d/n^2" in na.method
    # The last unit at risk fails at 8 h: the textbook variance grows there, lifelines' does not.
    gw = relmodel.stats.nelson_aalen(t, observed=obs, variance="greenwood")
    assert "(n - d)" in gw.method
    sd_gw = np.log(gw.upper[1:] / h) / z * h
    assert sd_gw[-1] == pytest.approx(sd_gw[-2], rel=1e-12)
    assert np.sqrt(var[-1]) > np.sqrt(var[-2]) + 0.5
    with pytest.raises(relmodel.errors.FitError, match="variance must be one of"):
        relmodel.stats.nelson_aalen(t, observed=obs, variance="exact")
