"""relmodel.stats.regress against lifelines and the published Rossi recidivism fit."""

import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import (CoxPHFitter, CoxTimeVaryingFitter, LogLogisticAFTFitter, LogNormalAFTFitter,
                       WeibullAFTFitter)
from lifelines.datasets import load_rossi
from lifelines.statistics import proportional_hazard_test

import relmodel
from relmodel.errors import CovariateError, FitError, MissingColumnError, SeparationError, SeparationWarning
from relmodel.stats.regression.covariates import CovariateWarning
from relmodel.stats.regression.recurrent import andersen_gill, counting_process

COVS = ["fin", "age", "race", "wexp", "mar", "paro", "prio"]
LIFELINES = {"weibull_aft": WeibullAFTFitter, "lognormal_aft": LogNormalAFTFitter,
             "loglogistic_aft": LogLogisticAFTFitter}
LOC = {"weibull_aft": "lambda_", "lognormal_aft": "mu_", "loglogistic_aft": "alpha_"}


@pytest.fixture(scope="module")
def rossi():
    return load_rossi()


def test_cox_reproduces_the_published_rossi_fit(rossi):
    # Fox, "Cox Proportional-Hazards Regression for Survival Data", appendix to An R and S-PLUS
    # Companion to Applied Regression (2002), p. 4: coxph on the Rossi data (Efron ties).
    r = relmodel.stats.regress(rossi, COVS, duration="week", observed="arrest")
    published = {"fin": -0.3794, "age": -0.0574, "race": 0.3139, "wexp": -0.1498, "mar": -0.4337,
                 "paro": -0.0849, "prio": 0.0915}
    coef = r.coefficients.set_index("term")["coef"]
    for k, v in published.items():
        assert coef[k] == pytest.approx(v, abs=6e-5)
    assert r.coefficients.set_index("term").loc["fin", "se"] == pytest.approx(0.1914, abs=6e-5)
    # R 4.2, survival 3.5: coxph(Surv(week, arrest) ~ fin + age + race + wexp + mar + paro + prio, data = rossi)
    # print(coef(f)); print(sqrt(diag(f$var))); print(f$loglik)     (options(digits = 15))
    r_coef = [-0.3794221664858867, -0.0574377426840623, 0.3138997878424986, -0.1497956976665371,
              -0.4337038779373086, -0.0848710825003947, 0.0914970809852960]
    r_se = [0.1913794807135435, 0.0219994706006800, 0.3079927765574182, 0.2122242962486229, 0.3818680576687913,
            0.1957566719066243, 0.0286485499599737]
    np.testing.assert_allclose(coef[COVS], r_coef, rtol=1e-7)   # R stops at a relative loglik change of 1e-9
    np.testing.assert_allclose(r.coefficients.set_index("term")["se"][COVS], r_se, rtol=1e-8)
    assert r.loglik == pytest.approx(-658.747659446087, rel=1e-12)
    ref = CoxPHFitter().fit(rossi[COVS + ["week", "arrest"]], "week", "arrest")   # lifelines stops sooner
    np.testing.assert_allclose(coef[COVS], ref.params_[COVS], rtol=1e-6)
    np.testing.assert_allclose(r.coefficients.set_index("term")["upper"][COVS],
                               ref.confidence_intervals_.iloc[:, 1].pipe(np.exp)[COVS], rtol=1e-6)
    assert r.ratio_name == "hazard ratio" and r.n == 432 and r.n_events == 114
    assert r.concordance == pytest.approx(ref.concordance_index_, rel=1e-6)


def test_ph_check_is_r_cox_zph_and_gives_a_verdict(rossi):
    r = relmodel.stats.regress(rossi, COVS, duration="week", observed="arrest")
    # R 4.2, survival 3.5: cox.zph(f)$table for the fit above (transform = "km")
    r_chisq = [0.0624297513580852, 5.9739816534184254, 2.0682653874805230, 4.2245956334215924, 1.0110215644357541,
               0.0183832991689653, 0.5205842503030125]
    r_p = [0.8026960327310469, 0.0145184627739779, 0.1503924881358293, 0.0398421117132655, 0.3146582281404045,
           0.8921493439606221, 0.4705925638172174]
    t = r.ph_check.by_term.set_index("term")
    np.testing.assert_allclose(t["statistic"][COVS], r_chisq, rtol=1e-6)
    np.testing.assert_allclose(t["p"][COVS], r_p, rtol=1e-6)
    assert r.ph_check.global_statistic == pytest.approx(17.6944152544549667, rel=1e-6)
    assert r.ph_check.global_p == pytest.approx(0.0134275067856751, rel=1e-6) and r.ph_check.global_df == 7
    # lifelines' test (the approximation R dropped in 2019) is not the same number
    ref = CoxPHFitter().fit(rossi[COVS + ["week", "arrest"]], "week", "arrest")
    p = proportional_hazard_test(ref, rossi[COVS + ["week", "arrest"]], time_transform="km").summary["p"]
    assert abs(p["age"] / t.loc["age", "p"] - 1) > 1e-3
    # Fox (2002) finds age and wexp violate proportional hazards.
    assert not r.ph_check.ok and "age" in r.ph_check.verdict and "wexp" in r.ph_check.verdict
    assert "stratify" in r.ph_check.verdict


# R 4.2, survival 3.5, for dist in weibull, lognormal, loglogistic:
#   f <- survreg(Surv(week, arrest) ~ fin + age + race + wexp + mar + paro + prio, data = rossi, dist = dist)
#   dput(unname(coef(f)[-1])); dput(unname(sqrt(diag(f$var))[2:8])); dput(f$loglik[2]); dput(f$scale)
#   s <- rossi[1:60, ]; s$unit <- 1:60
#   dput(unname(sqrt(diag(survreg(Surv(week, arrest) ~ fin + prio, data = s, dist = dist, cluster = unit)$var))[2:3]))
SURVREG = {
    "weibull_aft": ([0.272163359667722, 0.0407137983113049, -0.224802443112172, 0.106556586919981,
                     0.311273264851074, 0.0588272526045759, -0.0658169047843135],
                    [0.1379619167428, 0.01600355106377, 0.220158883434498, 0.151540966933512, 0.273302246404238,
                     0.139638239614414, 0.0209405752641762], -679.916563937091, 0.712405333509988,
                    [0.398775916798411, 0.0424833108568937]),
    "lognormal_aft": ([0.34284767924343, 0.0272018415027574, -0.363159958944066, 0.2681320619534,
                       0.460353374743936, 0.0558793761605433, -0.0655175101376406],
                      [0.164086332142694, 0.015755963367229, 0.264691777832065, 0.178889171786872,
                       0.295148181301003, 0.169111228006212, 0.0270906586226547], -683.234625278392,
                      1.29456992612668, [0.343904328063731, 0.0392923659198674]),
    "loglogistic_aft": ([0.288876139231243, 0.036365589043757, -0.27914925907851, 0.178423814546441,
                         0.347303977061302, 0.050798169854017, -0.0691822442944038],
                        [0.14558522613661, 0.015571924591468, 0.2296536521207, 0.157185203133545,
                         0.269668605385595, 0.14957417133847, 0.0227418436367842], -679.938411052732,
                        0.647134755870584, [0.374351960037756, 0.0423744073202148]),
}
SCALE = {"weibull_aft": ("rho", -1), "lognormal_aft": ("sigma", 1), "loglogistic_aft": ("beta", -1)}


@pytest.mark.parametrize("model", list(LIFELINES))
def test_aft_models_match_survreg_and_reach_lifelines_optimum(rossi, model):
    r = relmodel.stats.regress(rossi, COVS, model, duration="week", observed="arrest")
    coef, se, loglik, scale, _ = SURVREG[model]
    t = r.coefficients.set_index("term")
    np.testing.assert_allclose(t["coef"][COVS], coef, rtol=1e-6)
    np.testing.assert_allclose(t["se"][COVS], se, rtol=1e-6)
    assert r.loglik == pytest.approx(loglik, rel=1e-10)
    name, power = SCALE[model]
    assert r.scale[name] == pytest.approx(scale**power, rel=1e-7)
    assert r.ratio_name == "time ratio" and r.ph_check is None
    # lifelines stops a little short of the maximum: close, and never above it
    ref = LIFELINES[model]().fit(rossi[COVS + ["week", "arrest"]], "week", "arrest")
    np.testing.assert_allclose(t["coef"][COVS], ref.params_[LOC[model]][COVS], atol=2e-3)   # 1.7e-3 for paro
    assert r.loglik >= ref.log_likelihood_ - 1e-9


@pytest.mark.parametrize("model", list(LIFELINES))
def test_aft_cluster_robust_errors_are_survreg_sandwich(rossi, model):
    small = rossi.iloc[:60].assign(unit=np.arange(60))
    covs = ["fin", "prio"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CovariateWarning)
        r = relmodel.stats.regress(small, covs, model, duration="week", observed="arrest", cluster="unit")
        same = relmodel.stats.regress(small, covs, model, duration="week", observed="arrest", robust=True)
    np.testing.assert_allclose(r.coefficients.set_index("term")["se"][covs], SURVREG[model][4], rtol=1e-6)
    np.testing.assert_allclose(same.coefficients["se"], r.coefficients["se"], rtol=1e-12)
    ref = LIFELINES[model]().fit(small[covs + ["week", "arrest"]], "week", "arrest", robust=True)
    np.testing.assert_allclose(r.coefficients.set_index("term")["se"][covs], ref.standard_errors_[LOC[model]][covs],
                               rtol=1e-3)
    assert r.robust


def test_cox_cluster_errors_are_r_cluster_errors(rossi):
    df = rossi.assign(unit=np.arange(len(rossi)) // 3)
    r = relmodel.stats.regress(df, COVS, duration="week", observed="arrest", cluster="unit")
    # R 4.2, survival 3.5: rossi$unit <- (seq_len(nrow(rossi)) - 1) %/% 3
    # sqrt(diag(coxph(Surv(week, arrest) ~ fin + age + race + wexp + mar + paro + prio, rossi, cluster = unit)$var))
    r_robust = [0.1950550283488020, 0.0267312853811398, 0.2800022137419342, 0.2178886539842953, 0.3783205093153084,
                0.2085786307428532, 0.0293414470607356]
    np.testing.assert_allclose(r.coefficients.set_index("term")["se"][COVS], r_robust, rtol=1e-7)
    # lifelines' sandwich with Efron ties is not R's (about 2% off here)
    ref = CoxPHFitter().fit(df[COVS + ["week", "arrest", "unit"]], "week", "arrest", cluster_col="unit")
    assert np.max(np.abs(ref.standard_errors_[COVS].to_numpy() / r_robust - 1)) > 1e-3


def _fleet(seed=0, n=600):
    rng = np.random.default_rng(seed)
    sku = rng.choice(["A100", "H100", "H200"], n, p=[0.5, 0.3, 0.2])
    hr = np.select([sku == "H100", sku == "H200"], [2.0, 0.5], 1.0)
    t = rng.exponential(1000 / hr)
    c = rng.uniform(0, 3000, n)
    return pd.DataFrame({"duration_h": np.minimum(t, c), "observed": t <= c, "sku": sku,
                         "temp_c": rng.normal(60, 5, n)})


def test_categoricals_get_a_named_reference_level():
    df = _fleet()
    r = relmodel.stats.regress(df, ["sku", "temp_c"])
    assert r.references == {"sku": "A100"}  # the first level (sorted) by default, as R
    t = r.coefficients.set_index("term")
    assert list(t.index) == ["sku=H100", "sku=H200", "temp_c"]
    x = pd.get_dummies(df["sku"], dtype=float).drop(columns="A100").add_prefix("sku=")
    ref = CoxPHFitter().fit(pd.concat([df[["duration_h", "observed", "temp_c"]], x], axis=1), "duration_h",
                            "observed")
    np.testing.assert_allclose(t["coef"], ref.params_[t.index], rtol=1e-6)
    # The simulated hazard ratios (2 and 0.5) lie inside their intervals.
    assert t.loc["sku=H100", "lower"] < 2 < t.loc["sku=H100", "upper"]
    assert t.loc["sku=H200", "lower"] < 0.5 < t.loc["sku=H200", "upper"]
    r2 = relmodel.stats.regress(df, ["sku"], reference={"sku": "H200"})
    assert r2.coefficients.set_index("term").loc["sku=A100", "ratio"] > 1
    frame = r.to_frame()
    assert list(frame.columns[:3]) == ["covariate", "level (vs reference)", "hazard ratio"]
    first = r._sentences()[0]
    assert frame.iloc[0, 1] == "H100 vs A100" and "sku = H100" in first and r.text().startswith(first + ".")
    assert "hazard ratio" in r._repr_html_()


def test_strata_and_entry_pass_through_to_lifelines():
    df = _fleet(seed=2).assign(site=lambda d: np.where(np.arange(len(d)) % 2, "east", "west"),
                                entry_h=lambda d: d["duration_h"] * 0.1)
    r = relmodel.stats.regress(df, ["temp_c"], strata="site", entry="entry_h")
    ref = CoxPHFitter().fit(df[["duration_h", "observed", "temp_c", "site", "entry_h"]], "duration_h", "observed",
                            strata="site", entry_col="entry_h")
    assert r.coefficients["coef"].iloc[0] == pytest.approx(ref.params_["temp_c"], rel=1e-8)


def test_bad_covariates_get_named_errors_that_say_what_to_do():
    df = _fleet(seed=1)
    with pytest.raises(CovariateError, match="constant.*drop it"):
        relmodel.stats.regress(df.assign(rack="r1"), ["rack", "temp_c"])
    no_h200 = df.assign(obs2=lambda d: d["observed"] & (d["sku"] != "H200"))
    with pytest.raises(SeparationError, match="no failures.*merge"):
        relmodel.stats.regress(no_h200, ["sku"], observed="obs2", on_separation="raise")
    with pytest.warns(SeparationWarning, match="level 'H200' of covariate 'sku'.*-infinity"):
        r = relmodel.stats.regress(no_h200, ["sku"], observed="obs2")
    assert r.coefficients.set_index("term").loc["sku=H200", "coef"] < -10
    sep = pd.DataFrame({"duration_h": np.arange(1.0, 21.0), "observed": True, "x": -np.arange(1.0, 21.0)})
    with pytest.raises(SeparationError, match="separates"):
        relmodel.stats.regress(sep, ["x"], on_separation="raise")
    with pytest.warns(SeparationWarning, match="covariate 'x' separates.*[+]infinity"):
        relmodel.stats.regress(sep, ["x"])
    with pytest.warns(CovariateWarning, match="failures per coefficient"):
        relmodel.stats.regress(df.iloc[:12], ["temp_c"], "weibull_aft")
    with pytest.raises(CovariateError, match="cannot estimate"):
        relmodel.stats.regress(df.iloc[:3], ["sku", "temp_c"])
    with pytest.raises(CovariateError, match="missing values"):
        relmodel.stats.regress(df.assign(temp_c=df["temp_c"].where(df.index > 3)), ["temp_c"])
    with pytest.raises(MissingColumnError, match="rack"):
        relmodel.stats.regress(df, ["rack"])
    with pytest.raises(CovariateError, match="reference level 'V100'"):
        relmodel.stats.regress(df, ["sku"], reference={"sku": "V100"})
    with pytest.raises(FitError, match="strata apply to the Cox"):
        relmodel.stats.regress(df, ["temp_c"], "weibull_aft", strata="sku")
    with pytest.raises(FitError, match="valid models"):
        relmodel.stats.regress(df, ["temp_c"], "probit")
    assert issubclass(CovariateError, ValueError)


def _recurrent_log(seed=3, n_nodes=60, window=2000.0):
    rng = np.random.default_rng(seed)
    nodes = [f"n{i:02d}" for i in range(n_nodes)]
    sku = {n: ("B" if i % 3 == 0 else "A") for i, n in enumerate(nodes)}
    rows = []
    for n in nodes:
        rate, t = (2.0 if sku[n] == "B" else 1.0) / 300, 0.0
        while True:
            t += rng.exponential(1 / rate)
            if t > window:
                break
            rows.append((n, t, t + rng.uniform(1, 10)))
            t = rows[-1][2]
    df = pd.DataFrame(rows, columns=["node", "start", "end"])
    log = relmodel.read_log(df, start="start", end="end", node="node", time_unit="h", window=(0, window))
    return log, pd.DataFrame({"node": nodes, "sku": [sku[n] for n in nodes]})


def test_andersen_gill_matches_lifelines_counting_process_fit():
    log, nodes = _recurrent_log()
    cp = counting_process(log, nodes["node"])
    up = cp["stop_h"] - cp["start_h"]
    down = log.events["end_h"].clip(upper=2000) - log.events["start_h"]
    assert up.sum() == pytest.approx(60 * 2000 - down.sum(), rel=1e-12)
    assert cp["observed"].sum() == len(log.interruptions())
    r = andersen_gill(log, nodes, ["sku"])
    m = cp.merge(nodes, on="node").assign(b=lambda d: (d["sku"] == "B").astype(float))
    ref = CoxTimeVaryingFitter().fit(m[["node", "start_h", "stop_h", "observed", "b"]], id_col="node",
                                     event_col="observed", start_col="start_h", stop_col="stop_h")
    row = r.coefficients.iloc[0]
    assert row["coef"] == pytest.approx(ref.params_["b"], rel=1e-6)
    assert row["lower"] < 2.0 < row["upper"]  # simulated: B nodes fail twice as often
    assert r.robust and row["se"] != pytest.approx(ref.standard_errors_["b"], rel=1e-3)
    with pytest.raises(MissingColumnError, match="not in node_table"):
        andersen_gill(log, nodes.iloc[5:], ["sku"])


def test_forest_plot_draws_one_row_per_coefficient():
    r = relmodel.stats.regress(_fleet(), ["sku", "temp_c"])
    ax = relmodel.plots.forest_plot(r)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["sku = H100 (vs A100)", "sku = H200 (vs A100)", "temp_c"][::-1] or len(labels) == 3
    assert ax.get_xscale() == "log"
