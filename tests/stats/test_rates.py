import numpy as np
import pandas as pd
import pytest
from scipy import stats

import relmodel
from relmodel import errors


def total(df):
    return df[df.component == "Total"].iloc[0]


def test_llama3_mtbf_per_job_node_gpu(llama3):
    # 54 days x 24 h / 419 interruptions (Llama 3 paper, Table 5)
    job = total(relmodel.stats.component_rates(llama3, per="job"))
    node = total(relmodel.stats.component_rates(llama3, per="node"))
    gpu = total(relmodel.stats.component_rates(llama3, per="gpu"))
    assert round(job.mtbf_h, 2) == 3.09
    assert node.mtbf_h == pytest.approx(6335, rel=1e-3)
    assert gpu.mtbf_h == pytest.approx(50680, rel=1e-3)
    assert job.mtbf_lo < job.mtbf_h < job.mtbf_hi
    assert gpu.fit == pytest.approx(1e9 / gpu.mtbf_h)


def test_garwood_bounds_match_scipy_poisson_means_test_inverse(llama3):
    df = relmodel.stats.component_rates(llama3, per="job", conf=0.9)
    row = df[df.component == "NIC"].iloc[0]
    k, t = 7, 54 * 24
    # exact interval: the rates at which P(X >= k) and P(X <= k) are 5%
    assert stats.poisson.sf(k - 1, row.rate_lo * t) == pytest.approx(0.05, rel=1e-8)
    assert stats.poisson.cdf(k, row.rate_hi * t) == pytest.approx(0.05, rel=1e-8)


def test_shares_and_total(llama3):
    df = relmodel.stats.component_rates(llama3)
    assert df["count"].iloc[-1] == 419
    assert df["share"].iloc[:-1].sum() == pytest.approx(1.0)
    assert df.set_index("component").loc["Faulty GPU", "share"] == pytest.approx(148 / 419)


def test_zero_count_gives_upper_bound_not_infinite_mtbf():
    t = relmodel.count_table(pd.DataFrame({"component": ["a", "b"], "count": [5, 0]}),
                             n_gpus=8, gpus_per_node=8, duration="100h")
    row = relmodel.stats.component_rates(t).set_index("component").loc["b"]
    assert row.rate_per_h == 0 and np.isnan(row.mtbf_h)
    assert row.rate_hi == pytest.approx(-np.log(0.05) / 100)  # one-sided 95%: about 3/T
    assert row.mtbf_lo == pytest.approx(100 / -np.log(0.05))


def test_jeffreys_posterior():
    rate, lo, hi = relmodel.stats.poisson_interval(0, 10.0, method="jeffreys")
    assert rate == pytest.approx(0.05)
    assert hi == pytest.approx(stats.gamma.ppf(0.975, 0.5) / 10)
    assert lo > 0


def test_log_rates_count_by_cause(stepfun_log):
    df = relmodel.stats.component_rates(stepfun_log, per="node")
    n = len(stepfun_log.interruptions())
    assert df["count"].iloc[-1] == n
    assert df.exposure_h.iloc[0] == pytest.approx(400 * stepfun_log.duration_h)
    assert df.set_index("component").loc["GPU", "category"] == "Hardware Failure"
    gpu = relmodel.stats.component_rates(stepfun_log, per="gpu")
    assert gpu.mtbf_h.iloc[-1] == pytest.approx(8 * df.mtbf_h.iloc[-1])


@pytest.mark.parametrize("counts", [[-1, 3], [np.nan, 3], [1.5, 3], ["many", 3]])
def test_bad_counts(counts):
    with pytest.raises(errors.CountError, match="row 1, column 'count'"):
        relmodel.count_table(pd.DataFrame({"component": ["a", "b"], "count": counts}),
                             n_gpus=8, gpus_per_node=8, duration="1d")


def test_bad_per_and_method(llama3):
    with pytest.raises(errors.UnitError, match="job, node, gpu"):
        relmodel.stats.component_rates(llama3, per="rack")
    with pytest.raises(errors.CountError, match="jeffreys"):
        relmodel.stats.component_rates(llama3, method="bayes")
