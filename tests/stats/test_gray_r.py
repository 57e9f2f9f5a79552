"""Gray's test against cmprsk::cuminc()$Tests (Gray's variance), with strata and rho.

Data: tests/stats/data/competing_40.csv and competing_300.csv (data/generate.py, seeds 24 and 25):
times, cause (0 censored, 1, 2), group g1/g2/g3, stratum s1/s2.  R 4.2, cmprsk 2.2 (reference.R):
    cc <- read.csv(f)
    cuminc(cc$time, cc$cause, cc$group, cencode = 0)$Tests                    # "plain"
    cuminc(cc$time, cc$cause, cc$group, cc$strat, cencode = 0)$Tests          # "strata"
    cuminc(cc$time, cc$cause, cc$group, rho = 1, cencode = 0)$Tests           # "rho"
    two <- cc$group != "g3"; cuminc(cc$time[two], cc$cause[two], cc$group[two], cencode = 0)$Tests
Rows are causes 1 and 2: (statistic, p).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import FitError

R = {
    "competing_40.csv": {
        "plain": [(2.63288707712457, 0.268087049789987), (1.79825207239551, 0.406925142223087)],
        "strata": [(2.34617412425985, 0.309410296605206), (1.53507872023391, 0.464153779597769)],
        "rho": [(2.22210963252766, 0.329211520198515), (1.82265623891277, 0.401989978629419)],
        "two": [(0.871439703763925, 0.350557045936526), (1.349813050031888, 0.245310802307018)]},
    "competing_300.csv": {
        "plain": [(13.4983919666481, 0.00117182140608663), (1.8148246148400, 0.40356718182652507)],
        "strata": [(12.7552802795054, 0.00169912793363725), (1.6775541462926, 0.43223879677519916)],
        "rho": [(15.25163720134615, 0.000487695851921988), (2.00979060585868, 0.366082960611274544)],
        "two": [(9.70032171339592, 0.00184235754559903), (1.12530288118104, 0.28877946505533092)]},
}
OPTIONS = {"plain": {}, "strata": {"strata": "strat"}, "rho": {"rho": 1.0}, "two": {}}


def _data(name):
    cc = pd.read_csv(Path(__file__).parent / "data" / name)
    return cc.assign(c=cc["cause"].map({1: "gpu", 2: "network"}))


@pytest.mark.parametrize("name", list(R))
@pytest.mark.parametrize("case", list(OPTIONS))
def test_statistic_and_p_are_cuminc(name, case):
    cc = _data(name)
    if case == "two":
        cc = cc[cc["group"] != "g3"]
    for (stat, p), cause in zip(R[name][case], ["gpu", "network"]):
        g = relmodel.stats.gray_test(cc, "group", "c", cause, duration="time", **OPTIONS[case])
        assert g.statistic == pytest.approx(stat, rel=1e-8)
        assert g.p == pytest.approx(p, rel=1e-8)
        assert g.df == (1 if case == "two" else 2)


def test_bootstrap_stays_an_option_and_is_close_at_n_300():
    cc = _data("competing_300.csv")
    g = relmodel.stats.gray_test(cc, "group", "c", "gpu", duration="time", variance="bootstrap", n_boot=300, seed=1)
    assert g.statistic == pytest.approx(13.4983919666481, rel=0.3)
    np.testing.assert_allclose(g.score, relmodel.stats.gray_test(cc, "group", "c", "gpu", duration="time", seed=0).score)
    with pytest.raises(FitError, match="variance must be"):
        relmodel.stats.gray_test(cc, "group", "c", "gpu", duration="time", variance="jackknife", seed=0)
    with pytest.raises(FitError, match="rho must be"):
        relmodel.stats.gray_test(cc, "group", "c", "gpu", duration="time", rho=-1, seed=0)
