"""Checkpoint strategies: one protocol, the existing functions' numbers bit for bit, independent closed forms."""

import doctest
import math

import numpy as np
import pytest
from scipy import stats

from relmodel.checkpoint import (Asynchronous, LawAware, Strategy, Synchronous, TwoLevel, async_breakdown,
                                 async_ettr, async_optimal_interval, best_interval, ettr, optimal_interval,
                                 simulate_training, time_breakdown, two_level_breakdown, two_level_ettr,
                                 two_level_optimum)
from relmodel.checkpoint import strategies
from relmodel.defaults import RESTART
from relmodel.errors import ModelInputError, RelmodelError, ScenarioError
from relmodel.scenario import Scenario
from relmodel.units import hours

TAUS = np.geomspace(0.01, 5.0, 40)
FIELDS = ("work_h", "interval_h", "mtbf_h", "ckpt_cost_h", "restart_h", "wall_h", "checkpoint_h", "lost_h",
          "restart_time_h", "failures")


def _same(a, b):
    """Bit for bit (NaN nowhere expected)."""
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _same_breakdown(a, b):
    for f in FIELDS:
        _same(getattr(a, f), getattr(b, f))


# --- independent closed forms, written from the papers and docstrings in plain numpy -------------------------

def daly(tau, m, d, r):
    """Daly (2006): τ / (M e^{R/M} (e^{(τ+δ)/M} − 1))."""
    return tau / (m * np.exp(r / m) * (np.exp((tau + d) / m) - 1.0))


def async_model(tau, m, stall, persist, r):
    """The multilevel docstring: E = M (e^{(max(τ,P) + δ_b)/M} - 1) e^{(R + min(τ,P))/M}; ETTR = τ / E."""
    e = m * (np.exp((np.maximum(tau, persist) + stall) / m) - 1.0) * np.exp((r + np.minimum(tau, persist)) / m)
    return tau / e


def two_level_model(tau, k, m, d1, d2, f, r1, r2):
    """The docstring's two-level renewal model as a plain linear system, solved with numpy.

    Unknowns: V_i (expected time to finish the period from the start of segment i), W_i (a fast restart pending,
    back to the start of segment i) for i = 1..k, and S (a slow restart pending, back to the start of the period).
    A span s ends at a failure or after s; its expected duration is M (1 - e^{-s/M}).
    """
    n = 2 * k + 1
    a, b = np.zeros((n, n)), np.zeros(n)
    V, W, S = (lambda i: i - 1), (lambda i: k + i - 1), 2 * k
    for i in range(1, k + 1):
        s = tau + (d2 if i == k else d1)
        q = 1.0 - math.exp(-s / m)
        a[V(i), V(i)] += 1.0                      # V_i = M q + (1 - q) V_{i+1} + q (f W_i + (1 - f) S)
        if i < k:
            a[V(i), V(i + 1)] -= 1.0 - q
        a[V(i), W(i)] -= q * f
        a[V(i), S] -= q * (1.0 - f)
        b[V(i)] = m * q
        p1 = 1.0 - math.exp(-r1 / m)                # W_i = M p1 + (1 - p1) V_i + p1 (f W_i + (1 - f) S)
        a[W(i), W(i)] += 1.0 - p1 * f
        a[W(i), V(i)] -= 1.0 - p1
        a[W(i), S] -= p1 * (1.0 - f)
        b[W(i)] = m * p1
    p2 = 1.0 - math.exp(-r2 / m)                    # S = M p2 + (1 - p2) V_1 + p2 S
    a[S, S] += 1.0 - p2
    a[S, V(1)] -= 1.0 - p2
    b[S] = m * p2
    return k * tau / np.linalg.solve(a, b)[V(1)]


def renewal_walls(work, tau, d, r, draw, rng, runs):
    """Plain event loop of a job under renewal failures (the first gap starts fresh; each failure restarts R,
    a failure during a restart restarts it); wall time of each run."""
    walls = np.empty(runs)
    for j in range(runs):
        t, done, nxt = 0.0, 0.0, draw(rng)
        while done < work - 1e-12:
            seg = min(tau, work - done) + d
            if nxt < t + seg:                       # failure: lose the segment, restart until R gets done
                t = nxt
                while True:
                    g = draw(rng)
                    if g < r:
                        t += g
                        continue
                    nxt, t = t + g, t + r
                    break
                continue
            t, done = t + seg, done + seg - d
        walls[j] = t
    return walls


class Fit:
    def __init__(self, dist):
        self.dist, self.mean_h = dist, float(dist.mean())

    def ppf(self, q):
        return self.dist.ppf(q)


# --- Synchronous ----------------------------------------------------------------------------------------------

def test_synchronous_is_the_existing_functions_bit_for_bit_and_daly_closed_form():
    s = Synchronous("45s", "10min")
    d, r = 45 / 3600, 1 / 6
    for m in (0.5, 3.0, 40.0):
        _same(s.ettr(TAUS, m), ettr(TAUS, m, d, r))
        _same(s.optimal_interval(m), optimal_interval(m, d))
        _same_breakdown(s.breakdown(100.0, TAUS, m), time_breakdown(100.0, TAUS, m, d, r))
        np.testing.assert_allclose(s.ettr(TAUS, m), daly(TAUS, m, d, r), rtol=1e-12)
    # the optimum is the maximum of the independent closed form on a fine grid
    grid = np.geomspace(0.01, 3.0, 200001)
    assert daly(s.optimal_interval(3.0), 3.0, d, r) >= daly(grid, 3.0, d, r).max() - 1e-13
    assert s.ettr("20min", "3h") == ettr(1 / 3, 3.0, d, r)   # durations read as the functions read them


def test_synchronous_simulates_through_simulate_training():
    s = Synchronous("45s", "10min")
    a = s.simulate("30d", "16min", "3h", n_runs=50, seed=3)
    b = simulate_training("30d", "16min", "3h", "45s", "10min", n_runs=50, seed=3)
    _same(a.wall_h, b.wall_h)


# --- Asynchronous ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("m, stall, persist, r", [(3.0, 5 / 3600, 2 / 60, 1 / 6), (0.7, 0.01, 0.5, 0.1),
                                                   (20.0, 0.02, 0.0, 0.3)])
def test_asynchronous_is_the_existing_functions_bit_for_bit_and_the_docstring_model(m, stall, persist, r):
    a = Asynchronous(stall, persist, r)
    _same(a.ettr(TAUS, m), async_ettr(TAUS, m, stall, persist, r))
    _same(a.optimal_interval(m), async_optimal_interval(m, stall, persist, r))
    _same_breakdown(a.breakdown(50.0, TAUS, m), async_breakdown(50.0, TAUS, m, stall, persist, r))
    np.testing.assert_allclose(a.ettr(TAUS, m), async_model(TAUS, m, stall, persist, r), rtol=1e-12)
    grid = np.geomspace(1e-3, 10 * m, 200001)
    assert async_model(a.optimal_interval(m), m, stall, persist, r) >= \
        async_model(grid, m, stall, persist, r).max() - 1e-9


def test_asynchronous_does_not_pretend_to_simulate():
    with pytest.raises(ModelInputError, match="synchronous checkpoints only"):
        Asynchronous("5s", "2min").simulate("30d", "20min", "3h")


# --- TwoLevel -------------------------------------------------------------------------------------------------

def test_two_level_is_the_existing_functions_bit_for_bit_and_the_renewal_system():
    t = TwoLevel("5s", "2min", 0.8, "2min", "10min")
    d1, d2, r1, r2 = 5 / 3600, 2 / 60, 2 / 60, 1 / 6
    slow = TAUS * 4
    _same(t.ettr(slow, 3.0, k=4), two_level_ettr(slow / 4, 3.0, d1, d2, r1, r2, k=4, fast_fraction=0.8))
    _same_breakdown(t.breakdown(100.0, slow, 3.0, k=4),
                    two_level_breakdown(100.0, slow / 4, 3.0, d1, d2, r1, r2, k=4, fast_fraction=0.8))
    for k in (1, 2, 4, 9):
        for tau in (0.02, 0.1, 0.5, 2.0):
            want = two_level_model(tau, k, 3.0, d1, d2, 0.8, r1, r2)
            assert float(t.ettr(k * tau, 3.0, k=k)) == pytest.approx(want, rel=1e-11)


def test_two_level_optimum_is_the_plan_and_its_ettr():
    t = TwoLevel("5s", "2min", 0.8, "2min", "10min")
    plan = two_level_optimum("3h", "5s", "2min", "2min", "10min", fast_fraction=0.8)
    assert t.plan("3h") == plan and t.plan(3.0) is t.plan("3h")    # computed once per MTBF
    assert t.optimal_interval("3h") == plan.slow_interval_h
    assert float(t.ettr(t.optimal_interval("3h"), "3h")) == pytest.approx(plan.ettr, rel=1e-12)
    # the independent system agrees at the optimum, and no nearby (τ, k) beats it
    best = two_level_model(plan.fast_interval_h, plan.k, 3.0, 5 / 3600, 2 / 60, 0.8, 2 / 60, 1 / 6)
    assert best == pytest.approx(plan.ettr, rel=1e-11)
    for k in range(max(1, plan.k - 3), plan.k + 4):
        for tau in plan.fast_interval_h * np.geomspace(0.7, 1.4, 15):
            assert two_level_model(tau, k, 3.0, 5 / 3600, 2 / 60, 0.8, 2 / 60, 1 / 6) <= best + 1e-12
    with pytest.raises(ModelInputError, match="mtbf must be one duration"):
        t.ettr(1.0, [3.0, 4.0])


def test_two_level_does_not_pretend_to_simulate():
    with pytest.raises(ModelInputError, match="synchronous checkpoints only"):
        TwoLevel("5s", "2min", 0.8).simulate("30d", "20min", "3h")


# --- the three exponential models are one ----------------------------------------------------------------------

@pytest.mark.parametrize("m", [0.5, 3.0, 100.0])
@pytest.mark.parametrize("d, r", [(0.0, 0.0), (0.0125, 1 / 6), (0.2, 0.5)])
def test_synchronous_is_asynchronous_without_persist(m, d, r):
    t = np.geomspace(1e-3, 30, 400)
    np.testing.assert_allclose(Asynchronous(d, 0, r).ettr(t, m), Synchronous(d, r).ettr(t, m), rtol=1e-12, atol=0)


@pytest.mark.parametrize("m", [0.5, 3.0, 100.0])
@pytest.mark.parametrize("d, r", [(0.0, 0.0), (0.0125, 1 / 6), (0.2, 0.5)])
def test_synchronous_is_two_level_with_every_checkpoint_slow(m, d, r):
    t = np.geomspace(1e-3, 30, 400)
    sync = Synchronous(d, r).ettr(t, m)
    with np.errstate(all="ignore"):  # the recursion divides by 0 where failures are certain (ETTR 0)
        f0 = TwoLevel(0.07, d, 0.0, 0.3, r).ettr(t, m, k=1)  # no failure recovers fast: every checkpoint slow
        f1 = TwoLevel(d, d, 1.0, r, 0.9).ettr(3 * t, m, k=3)  # every failure recovers fast, the levels cost alike
    x = (t + d) / m
    for two in (f0, f1):
        np.testing.assert_allclose(two, sync, rtol=0, atol=1e-14)               # everywhere, absolutely
        np.testing.assert_allclose(two[x <= 5], sync[x <= 5], rtol=1e-13)       # relatively while (τ+δ)/M <= 5
        np.testing.assert_allclose(two[x <= 10], sync[x <= 10], rtol=1e-11)     # and <= 10
        # beyond, the recursion's 1 - β cancels: the two-level ETTR is 0 where Daly's is below ~1e-15
        assert np.all((two > 0) | (sync < 1e-14))


def test_two_level_optimum_without_fast_recovery_is_daly():
    plan = TwoLevel("5s", "45s", 0.0, "2min", "10min").plan("3h")
    assert plan.k == 1
    assert plan.slow_interval_h == pytest.approx(float(optimal_interval("3h", "45s")), rel=1e-6)


# --- LawAware -------------------------------------------------------------------------------------------------

def test_law_aware_is_the_simulator_and_the_search_bit_for_bit():
    law = Fit(stats.weibull_min(0.7, scale=3.0 / math.gamma(1 + 1 / 0.7)))
    s = LawAware(law, "45s", "10min", n_runs=100, seed=5, work="100h")
    assert s.mtbf_h == pytest.approx(3.0)
    _same(s.ettr(0.3), simulate_training(100.0, 0.3, law, "45s", "10min", n_runs=100, seed=5).ettr)
    _same(s.ettr([0.3, 0.5]), [s.ettr(0.3), s.ettr(0.5)])
    want = best_interval(law, "45s", "10min", work=100.0, n_runs=100, seed=5)
    assert s.optimal_interval() == want.interval_h and s.optimal_interval(3.0) == want.interval_h
    b = s.breakdown(20.0, 0.3)
    sim = s.simulate(20.0, 0.3)
    assert b.wall_h == float(np.mean(sim.wall_h)) and b.ettr == pytest.approx(sim.ettr, rel=1e-15)
    assert b.work_h + b.checkpoint_h + b.lost_h + b.restart_time_h == pytest.approx(b.wall_h, rel=1e-12)


def test_law_aware_matches_a_plain_event_loop_for_a_weibull_law():
    shape, mean, work, tau, d, r = 0.6, 2.0, 12.5, 0.5, 0.05, 0.2
    dist = stats.weibull_min(shape, scale=mean / math.gamma(1 + 1 / shape))
    n_ref, n_sim = 1500, 4000
    ref = renewal_walls(work, tau, d, r, lambda g: dist.ppf(g.random()), np.random.default_rng(21), n_ref)
    s = LawAware(Fit(dist), d, r, n_runs=n_sim, seed=22, work=work)
    got, sim = float(s.ettr(tau, mean)), s.simulate(work, tau)
    assert got == work / float(np.mean(sim.wall_h)) == s.breakdown(work, tau).ettr
    # the ETTR is work / mean wall; its standard error follows from both samples' (delta method)
    want = work / ref.mean()
    se = want * math.hypot(ref.std(ddof=1) / ref.mean() / math.sqrt(n_ref),
                           sim.wall_h.std(ddof=1) / sim.wall_h.mean() / math.sqrt(n_sim))
    assert abs(got - want) < 4.0 * se
    assert se < 0.01   # the check has teeth: the Weibull law's ETTR is far from Daly's at the same mean
    assert abs(float(ettr(tau, mean, d, r)) - want) > 8 * se


def test_law_aware_with_an_exponential_law_agrees_with_synchronous():
    s = LawAware("3h", "45s", "10min", n_runs=400, seed=7)
    sim = s.simulate("30d", "16min")
    lo, hi = sim.ettr_ci(0.999)
    assert lo < float(Synchronous("45s", "10min").ettr("16min", "3h")) < hi


def test_law_aware_mtbf_is_the_laws():
    s = LawAware("3h", "45s", n_runs=10, seed=1)
    with pytest.raises(ModelInputError, match="mtbf is fixed by the failure law"):
        s.ettr("16min", "4h")


# --- one protocol ---------------------------------------------------------------------------------------------

ALL = [Synchronous("45s", "10min"), Asynchronous("5s", "2min", "10min"), TwoLevel("5s", "2min", 0.8, "2min", "10min"),
       LawAware("3h", "45s", "10min", n_runs=20, seed=1)]


@pytest.mark.parametrize("s", ALL, ids=lambda s: type(s).__name__)
def test_every_strategy_answers_the_same_questions(s):
    assert isinstance(s, Strategy)
    m = "3h"
    tau = s.optimal_interval(m) if not isinstance(s, LawAware) else 0.27
    e = float(s.ettr(tau, m))
    assert 0.5 < e < 1.0
    b = s.breakdown("10d", tau, m)
    assert b.work_h == 240.0 and 0.5 < float(b.ettr) < 1.0
    words = s.describe()
    assert "checkpoints" in words and "restart" in words
    assert repr(s).startswith(type(s).__name__ + "(")


def test_scenario_sets_the_costs_and_an_explicit_value_wins():
    sc = Scenario(ckpt_cost="45s", restart="20min")
    assert repr(Synchronous(scenario=sc)) == repr(Synchronous("45s", "20min"))
    assert Synchronous("1min", scenario=sc).ckpt_cost_h == 1 / 60
    assert Synchronous(scenario=Scenario()).restart_h == hours(RESTART)  # the scenario's restart None: the default
    a = Asynchronous(persist="2min", scenario=sc)
    assert (a.stall_h, a.restart_h) == (hours("45s"), hours("20min"))
    t = TwoLevel("5s", fast_fraction=0.8, scenario=sc)
    assert (t.slow_cost_h, t.slow_restart_h, t.fast_restart_h) == (hours("45s"), hours("20min"), hours(RESTART))
    assert LawAware("3h", scenario=sc, n_runs=10).ckpt_cost_h == hours("45s")
    with pytest.raises(ScenarioError):
        Synchronous(scenario={"ckpt_cost": "45s"})


@pytest.mark.parametrize("make, name", [
    (lambda: Synchronous("soon"), "ckpt_cost"), (lambda: Synchronous("45s", -1), "restart"),
    (lambda: Asynchronous("x", "2min"), "stall"), (lambda: Asynchronous("5s", float("nan")), "persist"),
    (lambda: TwoLevel("5s", "2min", 1.5), "fast_fraction"), (lambda: TwoLevel("5s", [1, 2], 0.5), "slow_cost"),
    (lambda: TwoLevel("5s", "2min", 0.5, slow_restart="x"), "slow_restart"),
    (lambda: LawAware("3h", "45s", n_runs=1), "n_runs"),
    (lambda: Synchronous("45s").ettr("soon", "3h"), "interval"), (lambda: Synchronous("45s").ettr(1, "x"), "mtbf"),
    (lambda: Synchronous("45s").breakdown("x", 1, 3), "work"), (lambda: Asynchronous(0, "2min").optimal_interval(3),
                                                               "stall"),
    (lambda: TwoLevel("5s", "2min", 0.5).ettr(1, 3, k=0), "k"), (lambda: Synchronous("45s").ettr(-1, 3), "interval"),
])
def test_bad_input_is_a_relmodel_error_naming_the_argument(make, name):
    with pytest.raises(RelmodelError, match=name) as info:
        make()
    assert isinstance(info.value, ModelInputError)


def test_the_modules_examples_run():
    res = doctest.testmod(strategies, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 10 and res.failed == 0
