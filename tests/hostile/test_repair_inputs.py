"""Bad repair, spare and rack inputs get named errors that say what is valid."""

import pandas as pd
import pytest

import relmodel
from relmodel.errors import DesignError, ModelInputError
from relmodel.scale.sparing.repair_queue import simulate_pool


@pytest.mark.parametrize("crews", [0, -1, 2.5, "many", True, float("nan")])
def test_crews_must_be_whole_and_positive(crews):
    with pytest.raises(ModelInputError, match="crews must be a whole number"):
        relmodel.spare_pool(0.1, "24h", crews=crews)


@pytest.mark.parametrize("rate", [-1e-3, float("inf"), float("nan")])
def test_spare_rate_must_be_finite_and_not_negative(rate):
    with pytest.raises(ModelInputError, match="spare_rate_per_h"):
        relmodel.spare_pool(0.1, "24h", spare_rate_per_h=rate)
    with pytest.raises(ModelInputError, match="spare_rate_per_h"):
        simulate_pool(0.1, "24h", 2, spare_rate_per_h=rate, n_runs=10)


def test_lead_time_must_be_a_duration():
    with pytest.raises(Exception, match="rma_lead_time|duration"):
        relmodel.spare_pool(0.1, "24h", rma_lead_time="-3h")


def test_designs_refuse_bad_rack_fit_and_spare_rate():
    c = relmodel.scale.design_presets(1152)["nvl72-whole-rack"]
    llama = relmodel.datasets.llama3_54day()
    with pytest.raises(DesignError, match="rack_fit"):
        relmodel.scale.evaluate_design(c, llama, "1min", "10min", rack_fit=-5, n_runs=0, n_boot=0)
    with pytest.raises(DesignError, match="spare_rate_per_h must be 'hot'"):
        relmodel.scale.evaluate_design(c, llama, "1min", "10min", spare_rate_per_h="warm", n_runs=0, n_boot=0)
    big = relmodel.scale.design_presets(65_536)["h100-rail"]            # about one server repair an hour, 24 h each
    with pytest.raises(ModelInputError, match="at least .* crews"):
        relmodel.scale.evaluate_design(big, llama, "1min", "10min", crews=1, n_runs=0, n_boot=0)


def test_rack_fault_rate_names_what_is_missing():
    with pytest.raises(ModelInputError, match="node and start_h"):
        relmodel.scale.rack_fault_rate(pd.DataFrame({"host": ["a"]}), {"a": 1})
    df = pd.DataFrame({"node": ["a"], "start_h": [1.0]})
    df.attrs["duration_h"] = 10.0
    with pytest.raises(ModelInputError, match="rack_of must map node to rack"):
        relmodel.scale.rack_fault_rate(df, ["a"])
    with pytest.raises(ModelInputError, match="window"):
        relmodel.scale.rack_fault_rate(df, {"a": 1}, window="-1h")
