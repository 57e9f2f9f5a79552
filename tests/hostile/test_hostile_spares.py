"""Spare pools at huge failure rates and by-cause comparisons without failures (second hostile
corpus, bounded work and silent NaN).

Every Erlang B value is checked against mpmath at 50 digits through the identity
B(c, a) = a^c e^-a / Gamma(c + 1, a) (the Poisson pmf over the Poisson cdf), and every
spare count against a plain walk over the counts written here.
"""

import math

import mpmath
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import relmodel
from relmodel.errors import ModelInputError, RelmodelError
from relmodel.scale.sparing.spare_search import LARGE_LOAD, MAX_LOAD, erlang_b_integral
from relmodel.scale.sparing.spares import p_no_spare, spare_pool, spares_table


def _erlang_mp(c, a):
    """B(c, a) by mpmath: exp(c log a - a - log Gamma(c + 1, a)), 50 digits."""
    with mpmath.workdps(50):
        c, a = mpmath.mpf(c), mpmath.mpf(a)
        return float(mpmath.exp(c * mpmath.log(a) - a - mpmath.log(mpmath.gammainc(c + 1, a))))


def _erlang_walk(a, target):
    """Fewest c with B(c, a) < target by the recursion B(k) = a B(k-1) / (k + a B(k-1)), in plain Python."""
    b, k = 1.0, 0
    while b >= target:
        k += 1
        b = a * b / (k + a * b)
    return k


@pytest.mark.parametrize("c, a", [(2, 1.0), (10, 5.0), (199_000, 2e5), (200_000, 2e5), (200_500, 2e5),
                                  (99 * 10**9, 1e11), (10**11 + 30_000, 1e11)])
def test_erlang_b_integral_matches_mpmath(c, a):
    assert erlang_b_integral(c, a) == pytest.approx(_erlang_mp(c, a), rel=1e-9)


@pytest.mark.parametrize("model", ["poisson", "erlang"])
@pytest.mark.parametrize("target", [0.01, 0.2])
def test_search_above_the_walking_limit_finds_the_walked_count(model, target):
    rate, repair = 2e3, 100.0                     # a = 200,000 Erlangs, above LARGE_LOAD
    a = rate * repair
    assert a > LARGE_LOAD
    plan = spare_pool(rate, f"{repair}h", target=target, model=model)
    if model == "erlang":
        expected = _erlang_walk(a, target)
    else:                                         # fewest c with P(N >= c) < target, over every c
        cs = np.arange(0, int(a + 20 * math.sqrt(a)))
        expected = int(cs[np.argmax(stats.poisson.sf(cs - 1, a) < target)])
    assert plan.n_spares == expected
    assert plan.curve["spares"].tolist() == list(range(expected - 20, expected + 3))


@pytest.mark.parametrize("model", ["poisson", "erlang"])
def test_a_billion_erlangs_is_answered_and_is_the_fewest(model):
    plan = spare_pool(1e7, "100h", target=0.01, model=model)   # a = 1e9
    n = plan.n_spares
    if model == "erlang":
        below, above = _erlang_mp(n, 1e9), _erlang_mp(n - 1, 1e9)
    else:
        below, above = stats.poisson.sf(n - 1, 1e9), stats.poisson.sf(n - 2, 1e9)
    print(f"{model}: {n:,} spares, P = {below:.6g} (one fewer: {above:.6g})")
    assert below < 0.01 <= above
    assert plan.p_no_spare == pytest.approx(below, rel=1e-8)


@pytest.mark.parametrize("rate", [1e10, 1e300, 1.7e308])
@pytest.mark.parametrize("model", ["poisson", "erlang"])
def test_a_load_beyond_the_largest_is_named(rate, model):
    with pytest.raises(ModelInputError, match="Erlangs .* above the largest supported") as err:
        spare_pool(rate, "100h", model=model)
    assert f"{MAX_LOAD:.0e}" in str(err.value)
    with pytest.raises(ModelInputError, match="above the largest supported"):
        spares_table(rate, "100h", "1min", "10min", job_mtbf_h="3h", spares=[0, 1])


@pytest.mark.parametrize("rate", [float("inf"), float("nan"), -1.0, 0.0])
def test_a_rate_that_is_not_a_rate_is_named(rate):
    with pytest.raises(ModelInputError, match="positive, finite rate"):
        spare_pool(rate, "100h")


@pytest.mark.parametrize("c", [10**400, float("inf"), float("nan"), 2.5, -1, "many", [1, None]])
def test_erlang_b_spare_counts_are_checked(c):
    with pytest.raises(ModelInputError, match="whole numbers >= 0"):
        relmodel.scale.erlang_b(c, 3.0)
    with pytest.raises(ModelInputError, match="whole numbers >= 0"):
        p_no_spare(c, 3.0, model="poisson")


def test_spares_table_at_a_huge_rate_gives_erlang_by_the_integral():
    t = spares_table(1e7, "100h", "1min", "10min", job_mtbf_h="3h", spares=[10**9 + 40_000], n_runs=100)
    assert t["p_no_spare_erlang"].iloc[0] == pytest.approx(_erlang_mp(10**9 + 40_000, 1e9), rel=1e-9)


# --- by-cause comparisons with no failures in either --------------------------------------------

def _counts(gpu, psu):
    return relmodel.count_table(pd.DataFrame({"component": ["GPU", "PSU"], "count": [gpu, psu]}), n_gpus=64,
                                gpus_per_node=8, duration="10d")


def test_a_cause_without_failures_in_either_says_so():
    c = relmodel.stats.compare_rates(_counts(3, 0), _counts(1, 0), by_component=True)
    row = c.by_cause.set_index("component").loc["PSU"]
    assert (row["count_a"], row["count_b"]) == (0, 0) and math.isnan(row["ratio"])
    assert row["note"] == "undefined: no failures in either"
    gpu = c.by_cause.set_index("component").loc["GPU"]
    assert gpu["note"] == "" and gpu["ratio"] == pytest.approx(3.0)   # same exposure: 3 / 1
    page = c._repr_html_()
    assert "NaN" not in page and ">nan<" not in page and ">inf<" not in page
    assert page.count("undefined: no failures in either") == 2     # the ratio cell and the note
    assert "no upper bound" in page                                 # the 0-vs-0 interval's top


def test_no_failures_anywhere_is_still_an_error():
    with pytest.raises(RelmodelError, match="no events in either"):
        relmodel.stats.compare_rates(_counts(0, 0), _counts(0, 0), by_component=True)
