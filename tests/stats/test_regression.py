"""relmodel.regress against lifelines and the published Rossi recidivism fit."""

import warnings

import numpy as np
import pandas as pd
import pytest
from lifelines import (CoxPHFitter, CoxTimeVaryingFitter, LogLogisticAFTFitter, LogNormalAFTFitter,
                       WeibullAFTFitter)
from lifelines.datasets import load_rossi
from lifelines.statistics import proportional_hazard_test

import relmodel
from relmodel.errors import RelmodelDeprecationWarning
from relmodel.errors import CovariateError, FitError, MissingColumnError, SeparationError
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
    r = relmodel.regress(rossi, COVS, duration="week", observed="arrest")
    published = {"fin": -0.3794, "age": -0.0574, "race": 0.3139, "wexp": -0.1498, "mar": -0.4337,
                 "paro": -0.0849, "prio": 0.0915}
    coef = r.table.set_index("term")["coef"]
    for k, v in published.items():
        assert coef[k] == pytest.approx(v, abs=6e-5)
    assert r.table.set_index("term").loc["fin", "se"] == pytest.approx(0.1914, abs=6e-5)
    ref = CoxPHFitter().fit(rossi[COVS + ["week", "arrest"]], "week", "arrest")
    np.testing.assert_allclose(coef[COVS], ref.params_[COVS], rtol=1e-8)
    np.testing.assert_allclose(r.table.set_index("term")["upper"][COVS],
                               ref.confidence_intervals_.iloc[:, 1].pipe(np.exp)[COVS], rtol=1e-7)
    assert r.ratio_name == "hazard ratio" and r.n == 432 and r.n_events == 114
    assert r.concordance == pytest.approx(ref.concordance_index_)


def test_ph_check_matches_lifelines_and_gives_a_verdict(rossi):
    r = relmodel.regress(rossi, COVS, duration="week", observed="arrest")
    ref = CoxPHFitter().fit(rossi[COVS + ["week", "arrest"]], "week", "arrest")
    p = proportional_hazard_test(ref, rossi[COVS + ["week", "arrest"]], time_transform="rank").summary["p"]
    np.testing.assert_allclose(r.ph_check.table.set_index("term")["p"][COVS], p[COVS], rtol=1e-8)
    # Fox (2002) finds age and wexp violate proportional hazards.
    assert not r.ph_check.ok and "age" in r.ph_check.verdict and "wexp" in r.ph_check.verdict
    assert "stratify" in r.ph_check.verdict


@pytest.mark.parametrize("model", list(LIFELINES))
def test_aft_models_match_lifelines(rossi, model):
    r = relmodel.regress(rossi, COVS, model, duration="week", observed="arrest")
    ref = LIFELINES[model]().fit(rossi[COVS + ["week", "arrest"]], "week", "arrest")
    t = r.table.set_index("term")
    np.testing.assert_allclose(t["coef"][COVS], ref.params_[LOC[model]][COVS], rtol=1e-6)
    np.testing.assert_allclose(t["se"][COVS], ref.standard_errors_[LOC[model]][COVS], rtol=1e-5)
    assert r.ratio_name == "time ratio" and r.ph_check is None
    assert r.loglik == pytest.approx(ref.log_likelihood_)


@pytest.mark.parametrize("model", list(LIFELINES))
def test_aft_cluster_robust_errors_reduce_to_lifelines_sandwich(rossi, model):
    small = rossi.iloc[:60].assign(unit=np.arange(60))
    covs = ["fin", "prio"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CovariateWarning)
        r = relmodel.regress(small, covs, model, duration="week", observed="arrest", cluster="unit")
    ref = LIFELINES[model]().fit(small[covs + ["week", "arrest"]], "week", "arrest", robust=True)
    np.testing.assert_allclose(r.table.set_index("term")["se"][covs], ref.standard_errors_[LOC[model]][covs],
                               rtol=1e-5)
    assert r.robust


def test_cox_cluster_errors_are_lifelines_cluster_errors(rossi):
    df = rossi.assign(unit=np.arange(len(rossi)) // 3)
    r = relmodel.regress(df, COVS, duration="week", observed="arrest", cluster="unit")
    ref = CoxPHFitter().fit(df[COVS + ["week", "arrest", "unit"]], "week", "arrest", cluster_col="unit")
    np.testing.assert_allclose(r.table.set_index("term")["se"][COVS], ref.standard_errors_[COVS], rtol=1e-8)


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
    r = relmodel.regress(df, ["sku", "temp_c"])
    assert r.references == {"sku": "A100"}  # the most frequent level by default
    t = r.table.set_index("term")
    assert list(t.index) == ["sku=H100", "sku=H200", "temp_c"]
    x = pd.get_dummies(df["sku"], dtype=float).drop(columns="A100").add_prefix("sku=")
    ref = CoxPHFitter().fit(pd.concat([df[["duration_h", "observed", "temp_c"]], x], axis=1), "duration_h",
                            "observed")
    np.testing.assert_allclose(t["coef"], ref.params_[t.index], rtol=1e-8)
    # The simulated hazard ratios (2 and 0.5) lie inside their intervals.
    assert t.loc["sku=H100", "lower"] < 2 < t.loc["sku=H100", "upper"]
    assert t.loc["sku=H200", "lower"] < 0.5 < t.loc["sku=H200", "upper"]
    r2 = relmodel.regress(df, ["sku"], reference={"sku": "H200"})
    assert r2.table.set_index("term").loc["sku=A100", "ratio"] > 1
    frame = r.to_frame()
    assert list(frame.columns[:3]) == ["covariate", "level (vs reference)", "hazard ratio"]
    with pytest.warns(RelmodelDeprecationWarning):
        first = r.sentences()[0]
    assert frame.iloc[0, 1] == "H100 vs A100" and "sku = H100" in first and r.text().startswith(first + ".")
    assert "hazard ratio" in r._repr_html_()


def test_strata_and_entry_pass_through_to_lifelines():
    df = _fleet(seed=2).assign(site=lambda d: np.where(np.arange(len(d)) % 2, "east", "west"),
                                entry_h=lambda d: d["duration_h"] * 0.1)
    r = relmodel.regress(df, ["temp_c"], strata="site", entry="entry_h")
    ref = CoxPHFitter().fit(df[["duration_h", "observed", "temp_c", "site", "entry_h"]], "duration_h", "observed",
                            strata="site", entry_col="entry_h")
    assert r.table["coef"].iloc[0] == pytest.approx(ref.params_["temp_c"], rel=1e-8)


def test_bad_covariates_get_named_errors_that_say_what_to_do():
    df = _fleet(seed=1)
    with pytest.raises(CovariateError, match="constant.*drop it"):
        relmodel.regress(df.assign(rack="r1"), ["rack", "temp_c"])
    with pytest.raises(SeparationError, match="no failures.*merge"):
        relmodel.regress(df.assign(obs2=lambda d: d["observed"] & (d["sku"] != "H200")), ["sku"], observed="obs2")
    sep = pd.DataFrame({"duration_h": np.arange(1.0, 21.0), "observed": True, "x": -np.arange(1.0, 21.0)})
    with pytest.raises(SeparationError, match="separates"):
        relmodel.regress(sep, ["x"])
    with pytest.warns(CovariateWarning, match="failures per coefficient"):
        relmodel.regress(df.iloc[:12], ["temp_c"], "weibull_aft")
    with pytest.raises(CovariateError, match="cannot estimate"):
        relmodel.regress(df.iloc[:3], ["sku", "temp_c"])
    with pytest.raises(CovariateError, match="missing values"):
        relmodel.regress(df.assign(temp_c=df["temp_c"].where(df.index > 3)), ["temp_c"])
    with pytest.raises(MissingColumnError, match="rack"):
        relmodel.regress(df, ["rack"])
    with pytest.raises(CovariateError, match="reference level 'V100'"):
        relmodel.regress(df, ["sku"], reference={"sku": "V100"})
    with pytest.raises(FitError, match="strata apply to the Cox"):
        relmodel.regress(df, ["temp_c"], "weibull_aft", strata="sku")
    with pytest.raises(FitError, match="valid models"):
        relmodel.regress(df, ["temp_c"], "probit")
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
    row = r.table.iloc[0]
    assert row["coef"] == pytest.approx(ref.params_["b"], rel=1e-6)
    assert row["lower"] < 2.0 < row["upper"]  # simulated: B nodes fail twice as often
    assert r.robust and row["se"] != pytest.approx(ref.standard_errors_["b"], rel=1e-3)
    with pytest.raises(MissingColumnError, match="not in node_table"):
        andersen_gill(log, nodes.iloc[5:], ["sku"])


def test_forest_plot_draws_one_row_per_coefficient():
    r = relmodel.regress(_fleet(), ["sku", "temp_c"])
    ax = relmodel.plots.forest_plot(r)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["sku = H100 (vs A100)", "sku = H200 (vs A100)", "temp_c"][::-1] or len(labels) == 3
    assert ax.get_xscale() == "log"
