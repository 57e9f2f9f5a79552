"""Estimator defects: the Weibull AFT fit where Newton's step-halving gives up, Crow-AMSAA with
unequal observation windows, and the MCF's start/end mappings.

R is not reachable from the test machines, so the references that stand for R's
``survreg`` are (a) a direct maximisation of the Weibull AFT log-likelihood written here
with scipy, from several starts, and (b) lifelines' WeibullAFTFitter (another
implementation) where it converges.  The equivalent R call is

    library(survival)
    f <- survreg(Surv(time, event) ~ x1 + x2 + xc, data = d, dist = "weibull")
    print(coef(f)); print(log(f$scale)); print(f$loglik[2])
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

import relmodel
from relmodel.errors import RelmodelError


def _aft_data(seed, n=40):
    """The generator that found the failures: covariates of mixed scales, a Weibull AFT response."""
    rng = np.random.default_rng(seed)
    sc = 10.0 ** rng.integers(0, 7)
    x1 = rng.normal(size=n) * 10.0 ** rng.integers(0, 4)
    x2 = rng.integers(0, 2, size=n)
    xc = rng.normal(size=n) * sc + rng.choice([0, sc * 10])
    sig = np.exp(rng.uniform(np.log(0.02), np.log(4)))
    t = np.exp(rng.normal(0, 5) + 0.8 * x1 / x1.std() - 1.5 * x2 + rng.gumbel(size=n) * sig)
    c = rng.exponential(np.median(t) * rng.uniform(0.5, 2), size=n)
    return pd.DataFrame({"time": np.minimum(t, c), "event": (t <= c).astype(int), "x1": x1, "x2": x2,
                         "xc": xc, "unit": np.arange(n) // 4})


def _weibull_aft_mle(df):
    """Maximise sum d (z - log s - log t) - exp(z), z = (log t - x'b)/s, over standardised covariates."""
    logt, d = np.log(df["time"].to_numpy()), df["event"].to_numpy(float)
    raw = df[["x1", "x2", "xc"]].to_numpy(float)
    mu, sd = raw.mean(0), raw.std(0)
    x = np.column_stack([np.ones(len(df)), (raw - mu) / sd])

    def negll(th):
        b, ls = th[:-1], th[-1]
        z = (logt - x @ b) / np.exp(ls)
        if z.max() > 500:
            return 1e300, np.zeros_like(th)
        ez = np.exp(z)
        ll = np.sum(d * (z - ls - logt) - ez)
        dz = d - ez                                   # d ll / d z
        g_b = -(x.T @ dz) / np.exp(ls)
        g_s = np.sum(-dz * z - d)
        return -ll, -np.concatenate([g_b, [g_s]])

    best = None
    for ls0 in np.log(logt.std()) + np.array([0.0, 1.0, 2.0]):
        start = np.concatenate([[logt.max()], np.zeros(3), [ls0]])
        r = optimize.minimize(negll, start, jac=True, method="L-BFGS-B",
                              bounds=[(None, None)] * 4 + [(-10, 5)], options={"maxiter": 20000})
        r = optimize.minimize(negll, r.x, jac=True, method="BFGS", options={"gtol": 1e-9, "maxiter": 20000})
        if best is None or r.fun < best.fun:
            best = r
    b = best.x[:-1].copy()
    slopes = b[1:] / sd
    return np.concatenate([[b[0] - slopes @ mu], slopes, [best.x[-1]]]), -best.fun


# 189, 362, 515 raised "LinAlgError: SVD did not converge" before the fix; 3 and 7 (a covariate in the
# millions next to a 0/1 flag) stopped after 100 iterations far below the maximum (log-likelihood
# -71.7 for -33.7, -255.4 for -236.1) without a word; the others are ordinary sets.
SEEDS = [189, 362, 515, 3, 7, 1, 2, 11]
# In seed 189 no row with x2 = 0 fails: the intercept and x2 drift together along a flat ridge
# (quasi-separation), so only the log-likelihood and the other coefficients are determined.
DETERMINED = {189: [1, 3, 4]}


@pytest.mark.parametrize("seed", SEEDS)
def test_weibull_aft_converges_to_the_maximum(seed):
    df = _aft_data(seed)
    want, ll = _weibull_aft_mle(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = relmodel.stats.regress(df, ["x1", "x2", "xc"], "weibull_aft", duration="time", observed="event")
    fit = got.fitter
    assert fit.loglik == pytest.approx(ll, abs=1e-6)
    assert fit.loglik >= ll - 1e-9                     # never below the reference maximum
    keep = DETERMINED.get(seed, slice(None))
    np.testing.assert_allclose(fit.coef[keep], want[keep], rtol=1e-4, atol=1e-6 * np.abs(want).max())


@pytest.mark.parametrize("seed", [189, 362, 515])
def test_weibull_aft_with_cluster_converges(seed):
    df = _aft_data(seed)
    want, ll = _weibull_aft_mle(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = relmodel.stats.regress(df, ["x1", "x2", "xc"], "weibull_aft", duration="time", observed="event",
                               cluster="unit")
    assert got.fitter.loglik == pytest.approx(ll, abs=1e-6)
    assert np.all(np.isfinite(got.fitter.robust_var))


@pytest.mark.parametrize("seed", [1, 2, 3, 7, 362, 515])
def test_weibull_aft_agrees_with_lifelines(seed):
    from lifelines import WeibullAFTFitter
    df = _aft_data(seed)
    lf = WeibullAFTFitter().fit(df[["time", "event", "x1", "x2", "xc"]], "time", "event")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = relmodel.stats.regress(df, ["x1", "x2", "xc"], "weibull_aft", duration="time", observed="event")
    assert got.fitter.loglik == pytest.approx(lf.log_likelihood_, abs=1e-4)
    lam = lf.params_["lambda_"]
    np.testing.assert_allclose(got.fitter.coef[:4], lam[["Intercept", "x1", "x2", "xc"]].to_numpy(),
                               rtol=1e-3, atol=1e-6)


def test_weibull_aft_that_cannot_converge_is_a_named_error():
    """A log-likelihood that is not finite anywhere near the start: a named error, not LinAlgError."""
    from relmodel.stats.regression.aft_engine import aft_fit
    t = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    x = np.column_stack([np.ones(6), [1.0, -1.0, np.inf, -1.0, 1.0, -1.0]])
    with pytest.raises(RelmodelError, match="did not converge"):
        aft_fit(t, np.ones(6), x, "weibull")


def _power_law_fleet(seed, m=12, beta=0.7, lam=0.05):
    """m systems, each observed over its own age window (0, T_q], power-law NHPP by time transform."""
    rng = np.random.default_rng(seed)
    windows = rng.uniform(200.0, 3000.0, m)
    times, nodes = [], []
    for q, T in enumerate(windows):
        k = rng.poisson(lam * T ** beta)
        times.extend(np.sort(T * rng.uniform(size=k) ** (1 / beta)))   # order statistics of the mean function
        nodes.extend([f"n{q}"] * k)
    return np.array(times), np.array(nodes), dict(zip([f"n{q}" for q in range(m)], windows))


def _nhpp_mle(times, nodes, windows):
    """Maximise sum ln(lam beta t^(beta-1)) - lam sum T_q^beta numerically over (ln lam, ln beta)."""
    T = np.array(list(windows.values()))

    def negll(p):
        lam, beta = np.exp(p)
        return -(times.size * np.log(lam * beta) + (beta - 1) * np.log(times).sum() - lam * np.sum(T ** beta))

    r = optimize.minimize(negll, [np.log(times.size / T.sum()), 0.0], method="Nelder-Mead",
                          options={"xatol": 1e-12, "fatol": 1e-13, "maxiter": 20000})
    return np.exp(r.x[1]), np.exp(r.x[0])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_crow_amsaa_unequal_windows_is_the_mle(seed):
    times, nodes, windows = _power_law_fleet(seed)
    beta, lam = _nhpp_mle(times, nodes, windows)
    f = relmodel.stats.crow_amsaa(times, node=nodes, start={k: 0.0 for k in windows}, end=windows)
    assert f.beta == pytest.approx(beta, rel=1e-6)
    assert f.lam == pytest.approx(lam, rel=1e-5)


def test_crow_amsaa_equal_windows_keeps_the_closed_form():
    times, nodes, windows = _power_law_fleet(5)
    same = {k: 3000.0 for k in windows}
    f = relmodel.stats.crow_amsaa(times, node=nodes, start=0.0, end=same)
    assert f.beta == pytest.approx(times.size / np.log(3000.0 / times).sum(), rel=1e-12)


def test_mcf_with_fewer_mapped_systems_than_n_systems_names_them():
    times = np.array([10.0, 40.0, 25.0])
    nodes = ["a", "a", "b"]
    start, end = {"a": 0.0, "b": 5.0, "c": 0.0}, {"a": 50.0, "b": 60.0, "c": 70.0}
    with pytest.raises(RelmodelError, match=r"n_systems=10 .* name only 3 systems.*7"):
        relmodel.stats.mcf(times, node=nodes, start=start, end=end, n_systems=10)
    got = relmodel.stats.mcf(times, node=nodes, start=start, end=end, n_systems=3)
    # by hand: at 10 h all three systems are at risk (one event), at 25 h three, at 40 h three
    assert got.to_frame()["mean cumulative function"].iloc[-1] == pytest.approx(1 / 3 + 1 / 3 + 1 / 3)


def test_mcf_start_mapping_missing_a_node_names_it():
    with pytest.raises(RelmodelError, match=r"lacks nodes \['b'\]"):
        relmodel.stats.mcf([10.0, 20.0], node=["a", "b"], start={"a": 0.0}, end=50.0)
