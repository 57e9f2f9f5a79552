"""The paper's Titan Cox models against R's coxph (run only where the Titan lives are present).

The Titan GPU lives (Ostrouchov et al., SC20; github.com/olcf/TitanGPULife) carry no licence, so
they are not bundled: this test reads ../shared/datasets/titan-gpu-life/gc_summary_loc.csv.xz (or
$RELMODEL_TITAN) and skips without it.  The same engine is checked against R on bundled data in
test_cox_r.py.  R 4.2, survival 3.5 (options(digits = 15)):
    d <- read.csv(xzfile("gc_summary_loc.csv.xz"))
    f1 <- coxph(Surv(years, dead) ~ factor(cage) + batch, data = d)
    f2 <- coxph(Surv(years, dead) ~ factor(cage) + strata(batch), data = d)
    f3 <- coxph(Surv(years, dead) ~ factor(col) + factor(row) + factor(cage) + factor(slot) + factor(node),
                data = subset(d, batch == "old"))
    f4 <- the same on subset(d, batch == "new")   # warns: "Loglik converged before variable 6,9,15"
    dput(unname(coef(f))); dput(unname(sqrt(diag(f$var)))); dput(f$loglik)
R stops at a relative log-likelihood change of 1e-9; relmodel goes on to a zero step, so its
log-likelihood is a hair higher (1e-4 in 46,000) and coefficients agree to about 1e-7.
"""

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel.errors import SeparationWarning

HERE = Path(__file__).resolve()
PLACES = ([Path(os.environ["RELMODEL_TITAN"])] if os.environ.get("RELMODEL_TITAN") else []) + [
    up / "shared" / "datasets" / "titan-gpu-life" for up in (HERE.parents[3], HERE.parents[4])]
FILE = next((p / "gc_summary_loc.csv.xz" for p in PLACES if (p / "gc_summary_loc.csv.xz").exists()), None)
pytestmark = pytest.mark.skipif(FILE is None, reason="Titan lives not present (not bundled: no licence)")
KW = dict(duration="years", observed="dead", categorical=["cage", "col", "row", "slot", "node"])
POSITIONS = ["col", "row", "cage", "slot", "node"]

CB_COEF = [
    1.11545003844994, 2.27575917673223, 2.4509947344718]
CB_SE = [
    0.0388177286875021, 0.0417642674280672, 0.130097439332437]
CB_LL = [
    -48005.7838573849, -46178.1491804894]
CS_COEF = [
    1.11511060106179, 2.27712789929299]
CS_SE = [
    0.0388189645939771, 0.0417538502052525]
CS_LL = [
    -47553.7399630083, -45929.5074629346]
OLD_COEF = [
    0.119217291363501, -0.509336061781631, 0.442960621182131, -0.58067343629522, 0.741241329345941,
    -0.205741965308183, 0.938204652466246, 0.168831694218438, 1.0840712806947, 0.582419044259486,
    0.935565788412404, 0.900783225492161, 0.928716292623299, 0.912561414562154, 1.06096166932374,
    0.886268376931199, 1.13435086179804, 1.08539948192876, 1.07392342009118, 1.29466788473028, 1.32008496649384,
    1.4354338195239, 1.32323156233311, 1.13405703420476, -0.258731349366332, -0.499257481426865,
    -0.796490544669438, -0.754681391488363, -0.960746717689697, -1.16450788243882, -1.26514734853279,
    1.80924828858952, 3.11447116224733, -0.0940747355566181, -0.14467596716563, -0.190849556568091,
    -0.0472465818904637, 0.0126668584916207, 0.185898856732858, 0.201058412927843, 0.0785342001234346,
    -1.05236181345459, -1.35569521279966]
OLD_SE = [
    0.108622806554467, 0.12723093785828, 0.102401806242386, 0.131305311428566, 0.0982383811311402,
    0.117861447477715, 0.102252021390806, 0.116720200929838, 0.0993673183563434, 0.10745518805031,
    0.101455335861479, 0.101957272366442, 0.100653528282855, 0.101934947067703, 0.0994975844722471,
    0.102317125212033, 0.104380282934521, 0.105899866913908, 0.106069861731014, 0.103551513919888,
    0.103735792835877, 0.10120168662393, 0.10336623762999, 0.106407489795113, 0.0534039106383059,
    0.0552601054270218, 0.0547426938821182, 0.0527852660083406, 0.0553670465893921, 0.0588586873691817,
    0.0545699700898811, 0.0432985870972639, 0.0479703907435533, 0.057186920480392, 0.0576184835208263,
    0.0582234015521361, 0.0568491600589056, 0.0562360228154736, 0.0550521024696996, 0.0542349790617799,
    0.0373382889070464, 0.0424873003557737, 0.0451924716814339]
OLD_LL = [
    -47007.0665816742, -43789.5897070464]
NEW_COEF = [
    0.0210472193099875, 0.0653047357018789, 0.702871935584875, 0.0223558310683222, 0.621393214505619,
    -16.6413845379898, 0.478157105957629, 0.507264270981347, -16.5193707568595, 0.384051062232464,
    1.26886785348884, 0.436999887876874, 0.817575822148239, 1.32366940979145, -16.5368877797262, 1.34008568708988,
    0.965260280583191, 0.959801866045689, 0.699971945208063, -0.421283511639183, 0.9430092844762, 1.1768968041745,
    0.283925529055119, 1.25280153648816, -0.769789910637878, -0.692957728197753, -0.110037184450658,
    0.0984592907786669, -0.807950973966856, -0.589328378980998, -0.299878547143174, 0.293600882424864,
    0.749503088944364, -0.781905878210276, -0.977638197902125, -1.0105068425622, -1.49345599915069,
    -0.330847164819815, -0.415510414249105, -0.184723351103915, 0.080258515751555, -0.243026940767116,
    0.0744674012853021]
NEW_LL = [
    -546.67338133402, -521.883386456163]


@pytest.fixture(scope="module")
def lives():
    return pd.read_csv(FILE, dtype={"SN": str})


def _check(r, coef, se, loglik):
    np.testing.assert_allclose(r.coefficients["coef"], coef, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(r.coefficients["se"], se, rtol=1e-6)
    assert r.loglik == pytest.approx(loglik, rel=1e-8) and r.loglik >= loglik - 1e-9


def test_cage_and_batch(lives):
    r = relmodel.stats.regress(lives, ["cage", "batch"], **KW)
    assert list(r.coefficients["term"]) == ["cage=1", "cage=2", "batch=old"] and r.references == {"cage": 0, "batch": "new"}
    _check(r, CB_COEF, CB_SE, CB_LL[1])
    assert r.fitter.loglik_null == pytest.approx(CB_LL[0], rel=1e-12)


def test_cage_with_a_baseline_per_batch(lives):
    r = relmodel.stats.regress(lives, ["cage"], strata="batch", **KW)
    _check(r, CS_COEF, CS_SE, CS_LL[1])


def test_old_batch_positions_43_coefficients(lives):
    r = relmodel.stats.regress(lives[lives["batch"] == "old"], POSITIONS, **KW)
    assert len(r.coefficients) == 43
    _check(r, OLD_COEF, OLD_SE, OLD_LL[1])


def test_new_batch_fits_with_a_warning_for_each_infinite_level_as_r(lives):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = relmodel.stats.regress(lives[lives["batch"] == "new"], POSITIONS, **KW)
    sep = [str(w.message) for w in caught if issubclass(w.category, SeparationWarning)]
    # R: "Loglik converged before variable 6,9,15": coefficients 6, 9 and 15 are col levels 6, 9, 15
    assert [s.split(" separates")[0] for s in sep] == [f"level {k} of covariate 'col'" for k in (6, 9, 15)]
    finite = np.abs(np.array(NEW_COEF)) < 10
    np.testing.assert_allclose(r.coefficients["coef"][finite], np.array(NEW_COEF)[finite], rtol=1e-5, atol=1e-7)
    assert r.loglik == pytest.approx(NEW_LL[1], rel=1e-8)
    assert (r.coefficients["coef"][~finite] < -15).all()
