"""Cox fits against R's coxph: Efron and Breslow ties, strata, entry, weights, offsets, robust errors.

The data are tests/stats/data/*.csv (written by data/generate.py with fixed seeds); R's numbers come
from tests/stats/data/reference.R (R 4.2, survival 3.5, options(digits = 15)) and are recorded here.
R stops at a relative log-likelihood change of 1e-9, so its coefficients carry about 9 digits.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lifelines import CoxPHFitter, CoxTimeVaryingFitter

import relmodel
from relmodel.stats.regression.cox_engine import cox_fit
from relmodel.stats.regression.covariates import CovariateWarning

DATA = Path(__file__).parent / "data"
TERMS = ["age", "rack=r2", "rack=r3"]


@pytest.fixture(scope="module")
def fleet():
    return pd.read_csv(DATA / "cox_fleet.csv")


@pytest.fixture(scope="module")
def spells():
    return pd.read_csv(DATA / "recurrent_fleet.csv")


def _check(r, coef, se, loglik, rtol=1e-7):
    t = r.coefficients.set_index("term")
    np.testing.assert_allclose(t["coef"].to_numpy(), coef, rtol=rtol)
    np.testing.assert_allclose(t["se"].to_numpy(), se, rtol=rtol)
    assert r.loglik == pytest.approx(loglik, rel=1e-10)


def test_efron_ties_and_the_first_level_as_reference(fleet):
    # coxph(Surv(stop, event) ~ age + rack, data = d)
    r = relmodel.stats.regress(fleet, ["age", "rack"], duration="stop", observed="event")
    assert r.references == {"rack": "r1"} and list(r.coefficients["term"]) == TERMS
    _check(r, [0.290864900269719, -0.579143537870127, -0.988474672969034],
           [0.0550122768232523, 0.1585069462625943, 0.2341322774164416], -894.575980585506)
    assert r.fitter.loglik_null == pytest.approx(-917.340796726329, rel=1e-12)
    assert r.aic == pytest.approx(2 * 894.575980585506 + 6, rel=1e-10)
    # lifelines (Efron) agrees to its own tolerance
    x = fleet.assign(r2=(fleet["rack"] == "r2") * 1.0, r3=(fleet["rack"] == "r3") * 1.0)
    ref = CoxPHFitter().fit(x[["stop", "event", "age", "r2", "r3"]], "stop", "event")
    np.testing.assert_allclose(r.coefficients["coef"], ref.params_, rtol=1e-5)
    assert r.concordance == pytest.approx(ref.concordance_index_, rel=1e-12)


def test_breslow_ties(fleet):
    # coxph(Surv(stop, event) ~ age + rack, data = d, ties = "breslow")
    r = relmodel.stats.regress(fleet, ["age", "rack"], duration="stop", observed="event", ties="breslow")
    _check(r, [0.284693844656947, -0.567041052973963, -0.969797672467756],
           [0.0550040501115321, 0.1585761182949088, 0.2342296515169974], -898.902976304565)


@pytest.mark.parametrize("ties, coef, robust, naive, loglik", [
    # coxph(Surv(entry, stop, event) ~ age + rack + strata(site) + offset(off), data = d, weights = w,
    #       cluster = unit)       -- and the same with ties = "breslow"
    ("efron", [0.165079333271542, -0.848426336702820, -0.978170028746020],
     [0.0491517106900904, 0.1739113286882652, 0.2353194532673165],
     [0.0525206721061002, 0.1514122091937055, 0.2100225270994479], -902.008310510768),
    ("breslow", [0.157828203834728, -0.816900937404031, -0.944724586557022],
     [0.0469375321424399, 0.1679705047861152, 0.2298717179377813],
     [0.0523402585054064, 0.1515056701013191, 0.2101947650640136], -909.563147280002),
])
def test_entry_strata_weights_offset_and_clusters(fleet, ties, coef, robust, naive, loglik):
    r = relmodel.stats.regress(fleet, ["age", "rack"], duration="stop", observed="event", entry="entry", strata="site",
                         weights="w", offset="off", cluster="unit", ties=ties)
    _check(r, coef, robust, loglik)
    np.testing.assert_allclose(np.sqrt(np.diag(r.fitter.var)), naive, rtol=1e-7)
    assert r.robust


def test_robust_without_a_cluster_makes_each_row_its_own(fleet):
    # coxph(Surv(stop, event) ~ age + rack, data = d, robust = TRUE)
    r = relmodel.stats.regress(fleet, ["age", "rack"], duration="stop", observed="event", robust=True)
    _check(r, [0.290864900269719, -0.579143537870127, -0.988474672969034],
           [0.0550340851718953, 0.1552846938233298, 0.2213489017962741], -894.575980585506)
    same = relmodel.stats.regress(fleet.assign(row=np.arange(len(fleet))), ["age", "rack"], duration="stop",
                            observed="event", cluster="row")
    np.testing.assert_allclose(same.coefficients["se"], r.coefficients["se"], rtol=1e-12)


def test_counting_process_with_clusters_is_r_not_lifelines(spells):
    # coxph(Surv(start, stop, event) ~ age_y + rack + cluster(node), data = g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CovariateWarning)
        r = relmodel.stats.regress(spells, ["age_y", "rack"], duration="stop", observed="event", entry="start",
                             cluster="node")
    _check(r, [0.1922775861635809, 0.1408501086303872, -0.0760602292760936],
           [0.0924634948667498, 0.2386754791101786, 0.2367667456434683], -2633.30201435411, rtol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(r.fitter.var)),
                               [0.0389633447777571, 0.0942880447101510, 0.1083376139574578], rtol=1e-6)
    # lifelines' counting-process fit gives the same coefficients
    x = spells.assign(b=(spells["rack"] == "b") * 1.0, c=(spells["rack"] == "c") * 1.0)
    ref = CoxTimeVaryingFitter().fit(x[["node", "start", "stop", "event", "age_y", "b", "c"]], id_col="node",
                                     event_col="event", start_col="start", stop_col="stop")
    np.testing.assert_allclose(r.coefficients["coef"], ref.params_, rtol=1e-5)


def test_score_residuals_sum_to_the_score_and_the_engine_takes_plain_arrays(fleet):
    x = np.column_stack([fleet["age"], fleet["rack"] == "r2", fleet["rack"] == "r3"]).astype(float)
    fit = cox_fit(fleet["stop"], fleet["event"], x, entry=fleet["entry"], weights=fleet["w"], robust=True)
    assert np.abs(fit.residuals.sum(axis=0)).max() < 1e-8
    # a finite-difference check of the information at a point away from the optimum
    from relmodel.stats.regression.cox_engine import _Layout, _evaluate
    lay = _Layout(fleet["stop"].to_numpy(float), fleet["event"].to_numpy(float), x, fleet["entry"].to_numpy(float),
                  None, fleet["w"].to_numpy(float), np.zeros(len(fleet)), "efron")
    b = np.array([0.1, -0.2, 0.3])
    ev = _evaluate(lay, b)
    for k in range(3):
        e = np.zeros(3)
        e[k] = 1e-6
        up, down = _evaluate(lay, b + e, False), _evaluate(lay, b - e, False)
        assert (up["loglik"] - down["loglik"]) / 2e-6 == pytest.approx(ev["score"][k], rel=1e-6)
        np.testing.assert_allclose((down["score"] - up["score"]) / 2e-6, ev["info"][k], rtol=1e-5)
