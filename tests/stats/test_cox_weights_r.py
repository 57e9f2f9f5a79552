"""Cox case weights: R's coxph gives robust (sandwich) errors by default when a weight is not a whole
number, the model-based ones for whole-number (frequency) weights; the result says which it gives.

Data: tests/stats/data/cox_fleet.csv (weights w: 0.5, 1, 2).  R 4.2.2, survival 3.5-3, options(digits = 15):

    d <- read.csv("cox_fleet.csv"); d$w2 <- round(d$w * 2)
    f <- coxph(Surv(stop, event) ~ age + rack, data = d, weights = w)      # robust by default
    coef(f); sqrt(diag(f$var)); sqrt(diag(f$naive.var)); f$loglik
    g <- coxph(Surv(stop, event) ~ age + rack, data = d, weights = w2)     # model-based by default
    coef(g); sqrt(diag(g$var)); is.null(g$naive.var)                        # TRUE
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import relmodel

DATA = Path(__file__).parent / "data" / "cox_fleet.csv"
COEF = [0.212087034253608, -0.696566028441530, -1.028093683435161]
ROBUST_SE = [0.0575983859293383, 0.1748521694847940, 0.2389285706186537]
NAIVE_SE = [0.053179002681831, 0.149123367782486, 0.206622956039014]
LOGLIK = -1109.43571790535
WHOLE_SE = [0.0376032334130603, 0.1054461445923713, 0.1461044933639964]


@pytest.fixture(scope="module")
def fleet():
    d = pd.read_csv(DATA)
    return d.assign(w2=(d["w"] * 2).round())


def _fit(d, weights, **kw):
    return relmodel.stats.regress(d, ["age", "rack"], duration="stop", observed="event", weights=weights, **kw)


def _check(r, se):
    t = r.coefficients
    np.testing.assert_allclose(t["coef"], COEF, rtol=1e-7)
    np.testing.assert_allclose(t["se"], se, rtol=1e-7)


def test_fractional_weights_give_rs_default_robust_errors(fleet):
    r = _fit(fleet, "w")
    _check(r, ROBUST_SE)
    assert r.loglik == pytest.approx(LOGLIK, rel=1e-10)
    assert r.robust and r.variance.startswith("robust") and "not whole numbers" in r.variance
    assert "robust" in r._repr_html_()


def test_model_based_errors_when_asked(fleet):
    r = _fit(fleet, "w", robust=False)
    _check(r, NAIVE_SE)
    assert not r.robust and r.variance == "model-based"


def test_whole_number_weights_stay_model_based_as_in_r(fleet):
    r = _fit(fleet, "w2")
    _check(r, WHOLE_SE)
    assert not r.robust and r.variance == "model-based"
    assert "model-based" in r._repr_html_()


def test_cluster_says_cluster_robust(fleet):
    assert _fit(fleet, "w", cluster="unit").variance.startswith("cluster-robust")
