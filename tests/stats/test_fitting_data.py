"""Fits of the bundled StepFun trace and of the LANL records, checked against lifelines."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from lifelines import LogLogisticFitter, LogNormalFitter, WeibullFitter

import relmodel

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"  # beside the clone, when present
TIGHT = {"ftol": 1e-15, "gtol": 1e-12}


@pytest.fixture(scope="module")
def lanl_log():
    shared = SHARED / "lanl-1996-2005" / "LA-UR-05-7318-failure-data-1996-2005.csv.xz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return relmodel.datasets.lanl(shared if shared.exists() else None)


def lifelines_fit(fitter, d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fitter().fit(d.hours, d.observed, fit_options=TIGHT)


@pytest.mark.parametrize("what", ["interarrivals", "uptimes"])
def test_stepfun_fits_agree_with_lifelines(stepfun_log, what):
    d = getattr(stepfun_log, what)()
    assert d.n_observed > 300
    cmp = relmodel.stats.compare_fits(d, n_boot=10, seed=0)
    assert cmp.by_family.p_value.between(0, 1).all()
    w, ref = cmp.fits["weibull"], lifelines_fit(WeibullFitter, d)
    assert w.params["shape"] == pytest.approx(ref.rho_, rel=1e-5)
    assert w.params["scale"] == pytest.approx(ref.lambda_, rel=1e-5)
    assert w.loglik == pytest.approx(ref.log_likelihood_, rel=1e-6)
    ln, ref = cmp.fits["lognormal"], lifelines_fit(LogNormalFitter, d)
    assert ln.params["mu"] == pytest.approx(ref.mu_, rel=1e-5)
    assert ln.params["sigma"] == pytest.approx(ref.sigma_, rel=1e-5)
    # failures cluster in time: a decreasing hazard (shape below 1) for both
    assert w.ci.set_index("param").loc["shape", "upper"] < 1


def test_stepfun_downtimes_fit(stepfun_log):
    d = stepfun_log.downtimes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.stats.FitWarning)
        cmp = relmodel.stats.compare_fits(d, n_boot=0)
    assert np.isfinite(cmp.by_family.aic).all() and cmp.best.n == len(d)


@pytest.mark.parametrize("what", ["interarrivals", "uptimes", "downtimes"])
def test_lanl_fits_agree_with_lifelines(lanl_log, what):
    d = getattr(lanl_log, what)()
    assert len(d) > 20_000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", relmodel.stats.FitWarning)  # a few zero-length records
        cmp = relmodel.stats.compare_fits(d, n_boot=0)
        hours = relmodel.stats.lifetimes.fitting.prepare(d).t
    ref = lifelines_fit(LogLogisticFitter, relmodel.data.Durations(hours, d.observed))
    ll = cmp.fits["loglogistic"]
    assert ll.params["shape"] == pytest.approx(ref.beta_, rel=1e-5)
    assert ll.params["scale"] == pytest.approx(ref.alpha_, rel=1e-5)
    assert ll.loglik == pytest.approx(ref.log_likelihood_, rel=1e-6)
    assert cmp.by_family.family.iloc[-1] == "exponential"  # failures are far from memoryless
