"""Rate comparison: exact conditional test against scipy.stats.binomtest, interval coverage, P(a worse)."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

import relmodel
from conftest import run_cli
from relmodel.errors import CountError, ExposureError, UnitError
from relmodel.stats.rates.priors import GammaPrior, RateData
from relmodel.stats.rates.comparison import (adjust_pvalues, compare_rates, prob_greater, rate_ratio_test)

CASES = [(12, 1000.0, 5, 1500.0), (0, 300.0, 4, 200.0), (7, 50.0, 0, 80.0), (419, 2.65e6, 582, 3.35e6),
         (3, 10.0, 3, 10.0), (40, 900.0, 61, 1000.0)]


@pytest.mark.parametrize("ka, ea, kb, eb", CASES)
def test_exact_test_and_interval_match_binomtest(ka, ea, kb, eb):
    ratio, lo, hi, p = rate_ratio_test(ka, ea, kb, eb, conf=0.9)
    ref = stats.binomtest(ka, ka + kb, ea / (ea + eb))
    assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    ci = ref.proportion_ci(0.9, method="exact")
    to_ratio = lambda q: q / (1 - q) * eb / ea if q < 1 else np.inf
    assert lo == pytest.approx(to_ratio(ci.low), rel=1e-9, abs=1e-15)
    assert hi == pytest.approx(to_ratio(ci.high), rel=1e-9) if np.isfinite(hi) else ci.high == 1
    if kb:
        assert ratio == pytest.approx((ka / ea) / (kb / eb))


def test_prob_worse_is_exact_against_integration_and_simulation():
    a1, b1, a2, b2 = 12.5, 1000.0, 5.5, 1500.0
    p = prob_greater(a1, b1, a2, b2)
    # P(X > Y) = integral of f_X(x) F_Y(x)
    num = integrate.quad(lambda x: stats.gamma.pdf(x, a1, scale=1 / b1) * stats.gamma.cdf(x, a2, scale=1 / b2),
                         0, 0.2, limit=200)[0]
    assert p == pytest.approx(num, rel=1e-7)
    rng = np.random.default_rng(2)
    n = 200_000
    mc = np.mean(rng.gamma(a1, 1 / b1, n) > rng.gamma(a2, 1 / b2, n))
    assert abs(mc - p) < 4 * np.sqrt(p * (1 - p) / n)
    res = compare_rates((12, 1000.0), (5, 1500.0))
    assert res.prob_a_worse == pytest.approx(p)  # Jeffreys: Gamma(k + 1/2, E)
    prior = GammaPrior(2.0, 500.0)
    with_prior = compare_rates((12, 1000.0), (5, 1500.0), prior=prior)
    assert with_prior.prob_a_worse == pytest.approx(prob_greater(14, 1500.0, 7, 2000.0))


def test_ratio_interval_coverage_and_test_size_by_simulation():
    rng = np.random.default_rng(4)
    reps, ea, eb, la, lb = 1500, 400.0, 900.0, 0.02, 0.012
    true = la / lb
    cover = reject = 0
    for ka, kb, kb0 in zip(rng.poisson(la * ea, reps), rng.poisson(lb * eb, reps), rng.poisson(la * eb, reps)):
        _, lo, hi, _ = rate_ratio_test(ka, ea, kb, eb)
        cover += lo <= true <= hi
        reject += rate_ratio_test(ka, ea, kb0, eb)[3] < 0.05  # equal rates: the null is true
    se = np.sqrt(0.95 * 0.05 / reps)
    # exact intervals are conservative: coverage at least nominal, within Monte Carlo error
    assert cover / reps > 0.95 - 3.5 * se
    assert cover / reps < 0.995
    assert reject / reps < 0.05 + 3.5 * se


def _holm(p):
    order = np.argsort(p)
    m, out, running = len(p), np.empty(len(p)), 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        out[j] = running
    return out


def _bh(p):
    m = len(p)
    out = np.empty(m)
    for j in range(m):
        out[j] = min(1.0, min(p[i] * m / (sum(p <= p[i])) for i in range(m) if p[i] >= p[j]))
    return out


def test_multiple_testing_corrections():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5, 0.04])
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), _holm(p))
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), _bh(p))
    np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), np.minimum(1, 6 * p))
    with pytest.raises(UnitError, match="correction"):
        adjust_pvalues(p, "sidak")


def test_by_component_matches_cause_by_cause_tests(llama3, stepfun_log):
    res = compare_rates(llama3, stepfun_log, by_component=True)
    t = res.to_frame().set_index("component")
    ea, eb = 2048 * 54 * 24.0, 400 * stepfun_log.duration_h
    assert t.loc["Faulty GPU", "count_b"] == 0  # a Llama 3 cause the StepFun trace does not name
    ref = stats.binomtest(148, 148, ea / (ea + eb)).pvalue
    assert t.loc["Faulty GPU", "p_value"] == pytest.approx(ref)
    np.testing.assert_allclose(t["p_adjusted"], _holm(t["p_value"].to_numpy()))
    names = set(llama3.counts["component"]) | set(stepfun_log.interruptions()["Class"])
    assert len(t) == len(names) < 18 + stepfun_log.interruptions()["Class"].nunique()  # shared names are matched
    assert t.loc["NIC", "count_a"] == 7 and t.loc["NIC", "count_b"] > 0
    assert "Faulty GPU" in set(res.significant().component)


def test_fleet_names_and_logs(stepfun_log):
    res = compare_rates(stepfun_log, "llama3")
    assert res.ratio == pytest.approx((582 / (400 * stepfun_log.duration_h)) / (419 / (2048 * 54 * 24)))
    assert "times the interruption rate" in res.text()
    gpu = compare_rates(stepfun_log, "llama3", per="gpu")
    assert gpu.ratio == pytest.approx(res.ratio)  # both 8 GPUs per node


def test_bad_input():
    with pytest.raises(ExposureError):
        compare_rates((3, 0.0), (2, 10.0))
    with pytest.raises(CountError):
        compare_rates((-3, 10.0), (2, 10.0))
    with pytest.raises(UnitError, match="same unit"):
        compare_rates(RateData(3, 10.0, "gpu"), RateData(2, 10.0, "node"), per="gpu")
    with pytest.raises(UnitError):
        compare_rates((3, 10.0), (2, 10.0), prior=GammaPrior(1, 1, per="gpu"))


run = run_cli


def test_cli_compare_prints_the_comparison():
    r = run("rates", "--compare", "llama3")
    assert r.exit_code == 0, r.output
    assert "has 1 times the interruption rate" in r.output and "Llama 3" in r.output  # significant digits
    r = run("rates", "stepfun", "--compare", "rsc1", "--format", "json")
    row = json.loads(r.output)[0]
    assert row["count_b"] == 4355 and row["exposure_b_h"] == 2000 * 335 * 24
    ref = stats.binomtest(row["count_a"], row["count_a"] + 4355,
                          row["exposure_a_h"] / (row["exposure_a_h"] + row["exposure_b_h"]))
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-300)
    r = run("rates", "--compare", "rsc2")
    assert "note:" in r.output and "approximate" in r.output


def test_cli_compare_bad_fleet_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "relmodel", "rates", "--compare", "nope"], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "unknown fleet" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    r = run_cli("rates", "--compare", "megascale")
    assert r.exit_code == 2 and "no count and exposure" in r.output


def test_results_render(stepfun_log):
    res = compare_rates(stepfun_log, "llama3")
    assert isinstance(res.to_frame(), pd.DataFrame) and "<p>" in res._repr_html_()
    comp = compare_rates(stepfun_log, relmodel.datasets.llama3_54day(), by_component=True, correction="bh")
    assert "bh" in comp._repr_html_()


def test_compare_rates_warns_of_nodes_seen_only_in_the_log(tmp_path):
    """The API says what `relmodel rates` says: a log without its node count is taken as the nodes that
    failed (3 here, counted by hand), which may overstate the rate per node; given the count, no warning."""
    import warnings as _w

    from relmodel.data.shaping.logs import LogWarning, read_log
    from relmodel.stats.rates.comparison import compare_rates as _compare
    path = tmp_path / "ev.csv"
    path.write_text("start,node\n2024-01-01,a\n2024-01-03,b\n2024-01-05,a\n2024-01-08,c\n")
    seen = read_log(path, start="start", node="node")
    with pytest.warns(LogWarning, match="3 nodes that appear in the log"):
        c = _compare(seen, "llama3")
    assert c.exposure_a_h == pytest.approx(3 * seen.duration_h)
    counted = read_log(path, start="start", node="node", n_nodes=10)
    with _w.catch_warnings():
        _w.simplefilter("error")
        _compare(counted, "llama3")
        _compare(seen, (4, 100.0), per="job")  # per job: the node count does not enter
