"""AFT fits against R's survreg (weights, clusters, robust errors) and lifelines (entry times).

Data: tests/stats/data/cox_fleet.csv (data/generate.py, seed 22).  R's numbers come from
tests/stats/data/reference.R (R 4.2, survival 3.5, options(digits = 15)):
    f <- survreg(Surv(stop, event) ~ age + rack, data = d, dist = dist)
    print(coef(f)); print(log(f$scale)); print(sqrt(diag(f$var))); print(f$loglik)
    f <- survreg(Surv(stop, event) ~ age + rack, data = d, dist = dist, weights = w, cluster = unit)
    print(coef(f)); print(log(f$scale)); print(sqrt(diag(f$var))); print(sqrt(diag(f$naive.var))); print(f$loglik)
    f <- survreg(Surv(stop, event) ~ age + rack, data = d, dist = dist, robust = TRUE); print(sqrt(diag(f$var)))
Coefficient order: (Intercept), age, rackr2, rackr3, then log(scale).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lifelines import WeibullAFTFitter

import relmodel

R = {
    "weibull": {
        "plain": ([3.522816646788786, -0.282117197069097, 0.551033262798598, 1.023547382808769, -0.046117655017536],
                  [0.1709918670001951, 0.0504605906822550, 0.1479552753907892, 0.2200196465979801,
                   0.0556680976386401], -840.646021546952),
        "weighted": ([3.217958978083559, -0.220292863028122, 0.694913971977321, 1.109032604114230,
                      -0.00713048427682696],
                     [0.1653908878895463, 0.0529615999795274, 0.1430804654820990, 0.1887163290815378,
                      0.0326149807634198], -994.080919211929),
        "robust": [0.1588696341221995, 0.0510282533272809, 0.1489930746791223, 0.2439881907272199,
                   0.0504269033201162]},
    "lognormal": {
        "plain": ([3.001041275708213, -0.284524349447645, 0.544509093408958, 1.173364240545660, 0.177571240826962],
                  [0.1919111647761029, 0.0574480273227726, 0.1762615482590032, 0.2540782418170682,
                   0.0507362987235262], -844.235674656145),
        "weighted": ([2.705361392164130, -0.218020949712369, 0.607403534601234, 1.209581576702205,
                      0.203397217046107],
                     [0.1619831676862724, 0.0522948658194764, 0.1563328139091222, 0.1596388370816177,
                      0.0316852606783004], -996.540724981674),
        "robust": [0.1830853988302737, 0.0556785495077688, 0.1765588522614591, 0.2312813866608813,
                   0.0505154265310067]},
    "loglogistic": {
        "plain": ([3.074612810595937, -0.294949405778067, 0.572094527766548, 1.104796494910996, -0.384304450258306],
                  [0.1894743803269634, 0.0562847821619861, 0.1749521813620347, 0.2422292213621919,
                   0.0587025814860697], -844.493466568756),
        "weighted": ([2.738473825768700, -0.220154094291757, 0.670573552496542, 1.143624045070232,
                      -0.342747657239726],
                     [0.1705587012456200, 0.0533754889033299, 0.1653239287634002, 0.1566481582974900,
                      0.0368826333846946], -999.166693569245),
        "robust": [0.1915214109889311, 0.0561118955628721, 0.1803292710272728, 0.2246013541578547,
                   0.0559545734444743]},
}


@pytest.fixture(scope="module")
def fleet():
    return pd.read_csv(Path(__file__).parent / "data" / "cox_fleet.csv")


def _all(r):
    fit = r.fitter
    var = fit.var if fit.robust_var is None else fit.robust_var
    return fit.coef, np.sqrt(np.diag(var))


@pytest.mark.parametrize("law", list(R))
def test_plain_fit_is_survreg(fleet, law):
    r = relmodel.stats.regress(fleet, ["age", "rack"], f"{law}_aft", duration="stop", observed="event")
    coef, se = _all(r)
    np.testing.assert_allclose(coef, R[law]["plain"][0], rtol=1e-8)
    np.testing.assert_allclose(se, R[law]["plain"][1], rtol=1e-8)
    assert r.loglik == pytest.approx(R[law]["plain"][2], rel=1e-12)
    assert r.aic == pytest.approx(-2 * R[law]["plain"][2] + 2 * 5, rel=1e-12)


@pytest.mark.parametrize("law", list(R))
def test_weights_and_clusters_are_survreg(fleet, law):
    r = relmodel.stats.regress(fleet, ["age", "rack"], f"{law}_aft", duration="stop", observed="event", weights="w",
                         cluster="unit")
    coef, se = _all(r)
    np.testing.assert_allclose(coef, R[law]["weighted"][0], rtol=1e-8)
    np.testing.assert_allclose(se, R[law]["weighted"][1], rtol=1e-7)
    assert r.loglik == pytest.approx(R[law]["weighted"][2], rel=1e-12)
    rob = relmodel.stats.regress(fleet, ["age", "rack"], f"{law}_aft", duration="stop", observed="event", robust=True)
    np.testing.assert_allclose(_all(rob)[1], R[law]["robust"], rtol=1e-7)


def test_entry_times_condition_on_survival_to_entry_as_lifelines(fleet):
    late = fleet.assign(entry=fleet["entry"].where(fleet["entry"] > 0, 0.0))
    r = relmodel.stats.regress(late, ["age"], "weibull_aft", duration="stop", observed="event", entry="entry")
    ref = WeibullAFTFitter().fit(late[["stop", "event", "age", "entry"]], "stop", "event", entry_col="entry")
    assert r.coefficients["coef"].iloc[0] == pytest.approx(ref.params_[("lambda_", "age")], rel=1e-4)
    assert r.loglik >= ref.log_likelihood_ - 1e-9 and r.loglik == pytest.approx(ref.log_likelihood_, rel=1e-7)
