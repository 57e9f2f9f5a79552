"""Fuzz tier, numeric arguments: any number given to a public function's duration, count, probability or
seed gives an answer or a relmodel.errors exception, never a raw one (fourth hostile corpus, kind 7).

Property-based (Hypothesis, deterministic) over simulate_training, decide, forecast_check, trend,
scale_rates, component_rates, fit, synthetic_steps and whatif.  The numbers are hostile on purpose:
NaN, infinities, negatives, zero, the smallest subnormal, 1e308, integers far past int64 and bools.
Data sets are small and bootstraps short, so each test stays within seconds.
"""

import contextlib
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import relmodel
from relmodel.errors import RelmodelError

FUZZ = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
SLOW = settings(FUZZ, max_examples=15)

#: Any number a caller could pass by mistake.
EDGES = [math.nan, math.inf, -math.inf, 0, 0.0, -0.0, -1, -1.5, 0.5, 1, 2.5, 1e-320, 5e-324, 1e308, -1e308,
         2 ** 63, -(2 ** 63) - 1, 10 ** 30, -(10 ** 30), True, False]
numbers = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(min_value=-(10 ** 30), max_value=10 ** 30))
#: Counts and seeds: mostly integers, around the edges.
counts = st.one_of(st.sampled_from(EDGES), st.integers(min_value=-(10 ** 30), max_value=10 ** 30))


def HOSTILE(test):
    """The values that broke something once, tried on every argument whatever Hypothesis draws."""
    for value in (math.nan, math.inf, -1, 0, 5e-324, 1e308, 10 ** 30, True, 2.5):
        test = example(value=value)(test)
    return test


#: Durations as numbers of hours, or the same with a unit.
durations = st.one_of(numbers, numbers.map(lambda x: f"{x}h"))


@contextlib.contextmanager
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def answer_or_named(call, *args, **kwargs):
    """Call; return the answer, or None when a relmodel.errors exception (a named refusal) was raised."""
    with quiet():
        try:
            return call(*args, **kwargs)
        except RelmodelError:
            return None


def is_fraction(x):
    return x is None or (math.isfinite(x) and -1e-12 <= x <= 1 + 1e-12)


@pytest.fixture(scope="module")
def llama3():
    return relmodel.datasets.llama3_54day()


@pytest.fixture(scope="module")
def stepfun():
    return relmodel.datasets.stepfun()


@pytest.fixture(scope="module")
def ops():
    from relmodel.stragglers.ops import example_ops
    return example_ops("ST")


# ----- the checkpoint simulation ------------------------------------------------------------------

SIM = dict(work="30h", interval="20min", failures="3h", ckpt_cost="1min", restart="10min", n_runs=5, seed=0)


@pytest.mark.parametrize("name", ["work", "interval", "failures", "ckpt_cost", "restart"])
@FUZZ
@HOSTILE
@given(value=durations)
def test_simulate_training_durations(name, value):
    res = answer_or_named(relmodel.simulate_training, **{**SIM, name: value})
    assert res is None or is_fraction(res.ettr)


@pytest.mark.parametrize("name", ["n_runs", "seed"])
@FUZZ
@HOSTILE
@given(value=counts)
def test_simulate_training_counts_and_seeds(name, value):
    res = answer_or_named(relmodel.simulate_training, **{**SIM, name: value})
    assert res is None or is_fraction(res.ettr)


# ----- the decision ------------------------------------------------------------------------------

DECIDE = dict(n_gpus=1024, target_ettr=0.9, ckpt_cost="1min", restart="10min", n_boot=20, seed=0, simulate=False)


@pytest.mark.parametrize("name", ["n_gpus", "target_ettr", "ckpt_cost", "restart", "n_boot", "seed", "conf",
                                  "share"])
@SLOW
@HOSTILE
@given(value=numbers)
def test_decide_numbers(llama3, name, value):
    kw = {**DECIDE, name: value}
    res = answer_or_named(relmodel.decide, llama3, kw.pop("n_gpus"), kw.pop("target_ettr"), kw.pop("ckpt_cost"),
                          kw.pop("restart"), **kw)
    assert res is None or (is_fraction(res.ettr) and math.isfinite(res.interval_h) and res.interval_h > 0)


# ----- forecasts, trends, rates and fits ---------------------------------------------------------

@pytest.mark.parametrize("name", ["split", "conf", "alpha", "n_draws", "seed", "ckpt_cost", "restart"])
@SLOW
@HOSTILE
@given(value=numbers)
def test_forecast_check_numbers(stepfun, name, value):
    kw = {"n_draws": 50, "seed": 0, name: value}
    res = answer_or_named(relmodel.checkpoint.forecast_check, stepfun, **kw)
    assert res is None or res.to_frame()["covered"].dtype == bool


@pytest.mark.parametrize("name", ["end", "start", "alpha", "conf"])
@FUZZ
@HOSTILE
@given(value=numbers)
def test_trend_numbers(name, value):
    kw = {"end": 100.0, name: value}
    res = answer_or_named(relmodel.stats.trend, [10.0, 30.0, 55.0, 70.0, 90.0], **kw)
    assert res is None or res.verdict in ("steady", "improving", "wearing out", "undefined")


@pytest.mark.parametrize("name", ["target_cluster", "n_boot", "seed", "conf"])
@FUZZ
@HOSTILE
@given(value=numbers)
def test_scale_rates_numbers(llama3, name, value):
    kw = {"target_cluster": 4096, "n_boot": 20, "seed": 0, name: value}
    res = answer_or_named(relmodel.scale.scale_rates, llama3, **kw)
    assert res is None or (res.job_mtbf_h > 0 and not math.isnan(res.job_mtbf_hi))


@FUZZ
@given(numbers)
def test_component_rates_conf(llama3, value):
    res = answer_or_named(relmodel.stats.component_rates, llama3, conf=value)
    assert res is None or len(res) > 1


@FUZZ
@given(st.lists(numbers, min_size=1, max_size=6), numbers)
def test_fit_of_any_numbers_and_level(sample, conf):
    res = answer_or_named(relmodel.fit, sample, "weibull", conf=conf)
    assert res is None or all(math.isfinite(v) and v > 0 for v in res.params.values())


# ----- stragglers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["n_nodes", "ranks_per_node", "n_steps", "noise", "spike_prob", "burst_prob",
                                  "n_slow", "slowdown", "seed", "step_time"])
@SLOW
@HOSTILE
@given(value=numbers)
def test_synthetic_steps_numbers(name, value):
    kw = {"n_nodes": 4, "ranks_per_node": 2, "n_steps": 20, "seed": 0, name: value}
    res = answer_or_named(relmodel.stragglers.synthetic_steps, **kw)
    assert res is None or np.all(np.isfinite(res.log.times if hasattr(res.log, "times") else 0.0))


@pytest.mark.parametrize("name", ["conf", "n_boot", "seed", "top_share"])
@FUZZ
@HOSTILE
@given(value=numbers)
def test_whatif_numbers(ops, name, value):
    kw = {"n_boot": 20, "seed": 0, name: value}
    res = answer_or_named(relmodel.stragglers.whatif, ops, **kw)
    assert res is None or (math.isfinite(res.factor) and res.factor >= 1 - 1e-9)
