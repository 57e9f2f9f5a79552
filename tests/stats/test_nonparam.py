"""Kaplan-Meier, Nelson-Aalen, cumulative incidence and MCF against lifelines and hand formulas."""

import numpy as np
import pandas as pd
import pytest
from lifelines import AalenJohansenFitter, KaplanMeierFitter, NelsonAalenFitter

import relmodel
from relmodel.errors import FitError
from relmodel.stats.survival.nonparam import StepEstimate


def _censored(seed=0, n=400, ties=True):
    rng = np.random.default_rng(seed)
    t = rng.weibull(1.3, n) * 50
    c = rng.exponential(80, n)
    h = np.minimum(t, c)
    return (np.round(h) if ties else h), t <= c


def test_kaplan_meier_matches_lifelines_values_and_band():
    h, obs = _censored()
    km = relmodel.stats.kaplan_meier(h, observed=obs, conf=0.9)
    ref = KaplanMeierFitter(alpha=0.1).fit(h, obs)
    x = ref.survival_function_.index.to_numpy()
    np.testing.assert_allclose(km(x), ref.survival_function_.iloc[:, 0], rtol=1e-12)
    np.testing.assert_allclose(km.lower, ref.confidence_interval_.iloc[:, 0], rtol=1e-12)
    np.testing.assert_allclose(km.upper, ref.confidence_interval_.iloc[:, 1], rtol=1e-12)
    assert km.n == h.size and km.n_observed == obs.sum()
    assert km.median_h == pytest.approx(ref.median_survival_time_)


def test_kaplan_meier_hand_computed_product_limit():
    # times 1, 2, 2(censored), 3, 5(censored), 8: S = 5/6, 5/6*4/5, then *2/3, then 0
    km = relmodel.stats.kaplan_meier([1, 2, 2, 3, 5, 8], observed=[1, 1, 0, 1, 0, 1])
    assert km([0.5, 1, 2.5, 3, 6, 9]) == pytest.approx([1, 5 / 6, 4 / 6, 4 / 6 * 2 / 3, 4 / 9, 0])


def test_kaplan_meier_left_truncation_matches_lifelines():
    h, obs = _censored(seed=2, ties=False)
    entry = np.minimum(h * 0.3, 5.0)
    km = relmodel.stats.kaplan_meier(h, observed=obs, entry=entry)
    ref = KaplanMeierFitter().fit(h, obs, entry=entry)
    # No entry time equals a stop time here, so lifelines' risk sets are survfit's; read both on its grid.
    x = ref.survival_function_.index.to_numpy()
    np.testing.assert_allclose(km(x), ref.survival_function_.iloc[:, 0], rtol=1e-12)


def test_inputs_durations_series_and_strings_agree():
    d = relmodel.data.Durations([2.0, 3.0, 0.5, 4.0], [True, False, True, True])
    a = relmodel.stats.kaplan_meier(d)
    b = relmodel.stats.kaplan_meier(pd.Series(["2h", "3h", "30min", "4h"]), observed=d.observed)
    np.testing.assert_allclose(a.value, b.value)
    np.testing.assert_allclose(a.hours, b.hours)
    frame = a.to_frame()
    assert list(frame.columns) == ["survival", "lower_95", "upper_95", "at_risk", "events"]
    assert "Kaplan-Meier" in a._repr_html_()


def test_nelson_aalen_is_sum_of_d_over_n_and_matches_lifelines():
    na = relmodel.stats.nelson_aalen([1, 2, 2, 3, 5, 8], observed=[1, 1, 0, 1, 0, 1])
    assert na([1, 2, 3, 8]) == pytest.approx([1 / 6, 1 / 6 + 1 / 5, 1 / 6 + 1 / 5 + 1 / 3, 1 / 6 + 1 / 5 + 1 / 3 + 1])
    h, obs = _censored(seed=4)
    na = relmodel.stats.nelson_aalen(h, observed=obs)
    ref = NelsonAalenFitter(nelson_aalen_smoothing=False).fit(h, obs)
    np.testing.assert_allclose(na.value, ref.cumulative_hazard_.iloc[:, 0], rtol=1e-12)
    lif = relmodel.stats.nelson_aalen(h, observed=obs, variance="greenwood")  # lifelines' variance
    np.testing.assert_allclose(lif.upper, ref.confidence_interval_.iloc[:, 1], rtol=1e-12)
    assert na.quantity == "cumulative hazard" and np.isnan(na.median_h)


def _competing(seed, n=300, ties=False):
    rng = np.random.default_rng(seed)
    t = rng.exponential(10, n)
    cause = rng.choice(["GPU", "network", "host"], n, p=[0.5, 0.3, 0.2])
    cens = rng.exponential(20, n)
    obs = t < cens
    h = np.minimum(t, cens)
    return (np.ceil(h) if ties else h), np.where(obs, cause, None)


def test_cumulative_incidence_matches_lifelines_aalen_johansen():
    h, cause = _competing(1)
    ci = relmodel.stats.cumulative_incidence(h, cause)
    assert ci.causes == ["GPU", "network", "host"]
    codes = pd.Series(cause).map({"GPU": 1, "network": 2, "host": 3}).fillna(0).astype(int)
    for j, name in enumerate(ci.causes, start=1):
        ref = AalenJohansenFitter().fit(h, codes, event_of_interest=j)
        x = ref.cumulative_density_.index.to_numpy()
        np.testing.assert_allclose(ci[name](x), ref.cumulative_density_.iloc[:, 0], atol=1e-12)
        band = ref.confidence_interval_.to_numpy()
        ok = np.isfinite(band).all(axis=1) & (x < x[-1])
        ours = np.column_stack([ci[name].lower, ci[name].upper])
        idx = np.searchsorted(ci[name].hours, x, side="right") - 1
        # the band's variance is cmprsk's (Gray's; tests/stats/test_cuminc_r.py), not lifelines' Greenwood-type
        # one, which is infinite where everyone at risk fails; at n = 300 the two agree to about 1%
        np.testing.assert_allclose(ours[idx][ok], band[ok], rtol=0.02, atol=0.005)


def test_cumulative_incidences_add_up_to_one_minus_km_with_ties():
    h, cause = _competing(2, ties=True)
    ci = relmodel.stats.cumulative_incidence(h, cause)
    km = relmodel.stats.kaplan_meier(h, observed=pd.notna(cause))
    x = np.unique(h)
    total = sum(ci[c](x) for c in ci.causes)
    np.testing.assert_allclose(total, 1 - km(x), atol=1e-12)
    s = ci.by_cause
    assert s["events"].sum() == pd.notna(cause).sum()
    assert s["share"].sum() == pytest.approx(1)
    assert set(ci.to_frame()["cause"]) == set(ci.causes)
    assert "Aalen-Johansen" in ci._repr_html_()


def _nelson_brute(times, nodes, s, e):
    """Nelson's MCF and variance straight from the definition (dense system x time arrays)."""
    grid = np.unique(times)
    systems = np.arange(s.size)
    at_risk = ((s[:, None] <= grid) & (grid <= e[:, None])).astype(float)
    d = np.array([[np.sum((nodes == i) & (times == t)) for t in grid] for i in systems], float)
    r, dk = at_risk.sum(0), d.sum(0)
    m = np.cumsum(dk / r)
    c = np.cumsum(at_risk / r * (d - dk / r), axis=1)
    return grid, m, (c**2).sum(0)


def test_mcf_matches_nelson_definition_with_staggered_windows():
    rng = np.random.default_rng(5)
    m = 9
    s = np.round(rng.uniform(0, 6, m))
    e = np.round(rng.uniform(15, 40, m))
    s[3], e[3] = 1.0, 2.0  # a short window that holds no event times
    times, nodes = [], []
    for i in range(m):
        if i == 3:
            continue
        k = rng.poisson(5)
        times += list(np.round(rng.uniform(s[i], e[i], k)))
        nodes += [i] * k
    times, nodes = np.array(times), np.array(nodes)
    res = relmodel.stats.mcf(times, node=nodes, start=dict(zip(map(str, range(m)), s)),
                       end=dict(zip(map(str, range(m)), e)), conf=0.9)
    grid, ref, var = _nelson_brute(times, nodes, s, e)
    np.testing.assert_allclose(res(grid), ref, rtol=1e-12)
    z = 1.6448536269514722
    np.testing.assert_allclose(res.upper[1:], ref * np.exp(z * np.sqrt(var) / ref), rtol=1e-10)


def test_mcf_counts_failure_free_systems():
    times = np.array([1.0, 2.0, 2.0, 5.0])
    nodes = np.array(["a", "a", "b", "c"])
    res = relmodel.stats.mcf(times, node=nodes, end=10, n_systems=8)
    grid, ref, var = _nelson_brute(times, np.array([0, 0, 1, 2]), np.zeros(8), np.full(8, 10.0))
    assert res(10) == pytest.approx(4 / 8)
    np.testing.assert_allclose(res.value[1:], ref)
    np.testing.assert_allclose(res.lower[1:], ref * np.exp(-1.959963984540054 * np.sqrt(var) / ref))


def test_mcf_of_stepfun_log(stepfun_log):
    res = relmodel.stats.mcf(stepfun_log)
    ev = stepfun_log.events
    n_unplanned = int((~ev["planned"] & ~ev["overlaps"]).sum())
    assert res.n == stepfun_log.n_nodes == 400
    assert res(stepfun_log.window_h[1]) == pytest.approx(n_unplanned / 400)
    assert np.all(res.lower <= res.value) and np.all(res.value <= res.upper)


@pytest.mark.parametrize("bad, match", [
    ([], "no durations"),
    ([1.0, -2.0], "negative"),
    ([1.0, np.nan], "NaN"),
])
def test_bad_durations_raise_fit_error(bad, match):
    with pytest.raises(FitError, match=match):
        relmodel.stats.kaplan_meier(bad)


def test_other_bad_inputs():
    with pytest.raises(FitError, match="conf"):
        relmodel.stats.nelson_aalen([1, 2], conf=1.5)
    with pytest.raises(FitError, match="causes has"):
        relmodel.stats.cumulative_incidence([1, 2, 3], ["a", "b"])
    with pytest.raises(FitError, match="no observed events"):
        relmodel.stats.cumulative_incidence([1, 2], [None, None])
    with pytest.raises(FitError, match="observed has"):
        relmodel.stats.kaplan_meier([1, 2, 3], observed=[True])
    with pytest.raises(FitError, match="end of observation"):
        relmodel.stats.mcf([1.0, 2.0])
    with pytest.raises(FitError, match="outside"):
        relmodel.stats.mcf([1.0, 20.0], end=10)
    assert isinstance(relmodel.stats.kaplan_meier([0.0, 1.0]), StepEstimate)


def test_cumulative_incidence_of_a_log_uses_its_uptimes(stepfun_log):
    res = relmodel.stats.cumulative_incidence(stepfun_log, "Level")
    up = stepfun_log.uptimes()
    first = res[res.causes[0]]
    assert first.n == len(up)
    assert res.by_cause["events"].sum() == up.n_observed
    # censoring is shared by every cause: all-cause incidence is 1 - KM of the uptimes
    km = relmodel.stats.kaplan_meier(up)
    x = np.unique(up.hours)
    np.testing.assert_allclose(sum(res[c](x) for c in res.causes), 1 - km(x), atol=1e-12)
    assert set(res.causes) <= set(stepfun_log.events["Level"]) | {"planned"}


def test_cumulative_incidence_cause_errors(stepfun_log):
    from relmodel.errors import MissingColumnError

    with pytest.raises(MissingColumnError, match="valid cause columns"):
        relmodel.stats.cumulative_incidence(stepfun_log, "Colour")
    with pytest.raises(FitError, match="causes="):
        relmodel.stats.cumulative_incidence([1.0, 2.0])


def test_a_whole_log_is_refused_with_a_hint(stepfun_log):
    with pytest.raises(FitError, match="uptimes"):
        relmodel.stats.kaplan_meier(stepfun_log)
