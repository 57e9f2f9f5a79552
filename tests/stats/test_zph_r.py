"""ph_check against R's cox.zph (survival 3.5: the score test, one row per term, and the global test).

Data: tests/stats/data/cox_fleet.csv and recurrent_fleet.csv (data/generate.py).  R (reference.R):
    fa <- coxph(Surv(stop, event) ~ age + rack, data = d)
    for (tr in c("km", "rank", "identity")) print(cox.zph(fa, transform = tr)$table)
    fb <- coxph(Surv(stop, event) ~ age + rack, data = d, ties = "breslow"); print(cox.zph(fb)$table)
    fc <- coxph(Surv(entry, stop, event) ~ age + rack + strata(site) + offset(off), data = d, weights = w)
    print(cox.zph(fc)$table)
    fe <- coxph(Surv(start, stop, event) ~ age_y + rack + cluster(node), data = g); print(cox.zph(fe)$table)
Each case: chi-square of age, of rack (2 df), global (3 df), then their p-values.
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import FitError
from relmodel.stats.regression.covariates import CovariateWarning

DATA = Path(__file__).parent / "data"
CASES = {
    "km": ([0.00111251991251644, 1.23998478653974797, 1.24004191513799755],
           [0.973391926161188, 0.537948529608398, 0.743417485409621]),
    "rank": ([0.003833429261587, 1.486936476972542, 1.487543640593878],
             [0.950630766288857, 0.475462036887241, 0.685148221366910]),
    "identity": ([0.156100320106883, 0.627725877696356, 0.653191541556351],
                 [0.692772534924475, 0.730619160800843, 0.884154528209903]),
    "breslow": ([0.00379315258914229, 1.21322362474257983, 1.21547783857096747],
                [0.950890475379299, 0.545194966076313, 0.749294530581659]),
    "entry": ([0.207791233937314, 2.147142150377958, 2.268140634793989],
              [0.648504147843239, 0.341785792732846, 0.518651776059886]),
    "recurrent": ([0.0881331724904465, 1.4547425850825138, 1.4606061775900743],
                  [0.766563991862134, 0.483177454327153, 0.691391785144085]),
}


def _fit(case):
    d = pd.read_csv(DATA / "cox_fleet.csv")
    kw = dict(duration="stop", observed="event")
    if case in ("km", "rank", "identity"):
        return relmodel.stats.regress(d, ["age", "rack"], ph_transform=case, **kw)
    if case == "breslow":
        return relmodel.stats.regress(d, ["age", "rack"], ties="breslow", **kw)
    if case == "entry":
        return relmodel.stats.regress(d, ["age", "rack"], entry="entry", strata="site", offset="off", weights="w", **kw)
    g = pd.read_csv(DATA / "recurrent_fleet.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CovariateWarning)
        return relmodel.stats.regress(g, ["age_y", "rack"], entry="start", cluster="node", **kw)


@pytest.mark.parametrize("case", list(CASES))
def test_ph_check_is_cox_zph(case):
    ph = _fit(case).ph_check
    chisq, p = CASES[case]
    assert list(ph.by_term["df"]) == [1, 2] and ph.global_df == 3
    np.testing.assert_allclose(list(ph.by_term["statistic"]) + [ph.global_statistic], chisq, rtol=1e-6)
    np.testing.assert_allclose(list(ph.by_term["p"]) + [ph.global_p], p, rtol=1e-6)
    assert ph.ok and "no evidence" in ph.verdict


def test_bad_transform_is_named():
    d = pd.read_csv(DATA / "cox_fleet.csv")
    with pytest.raises(FitError, match="ph_transform must be one of km, rank, identity"):
        relmodel.stats.regress(d, ["age"], duration="stop", observed="event", ph_transform="log")
