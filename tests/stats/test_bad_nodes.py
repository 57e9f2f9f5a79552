"""relmodel.bad_nodes against a generator written here (plain numpy), a brute-force likelihood and the bundled logs.

The generator simulates the model as stated: each node bad at the start with
probability ``pi`` (rate ``m * lam`` per hour in service) or good (``lam``);
after each failure a repair of a few hours; a bad node's repair fixes it for
good with probability ``1 - nu``.  Time in repair is no exposure.
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import relmodel
from relmodel.errors import CountError, InputTypeError
from relmodel.stats.nodes.dispersion import dispersion_test, worst_shares

YEAR = 8760.0


def simulate(seed, n_nodes, pi=0.1, m=10.0, lam=1 / 5000, nu=0.5, window=YEAR, repair_h=4.0):
    """The event table of one fleet: node, start, end (hours); only nodes that failed appear."""
    rng = np.random.default_rng(seed)
    rows = []
    for node in range(n_nodes):
        bad = rng.random() < pi
        t = 0.0
        while True:
            t += rng.exponential(1 / (m * lam if bad else lam))
            if t >= window:
                break
            end = t + rng.exponential(repair_h)
            rows.append((f"n{node}", t, end))
            if bad and rng.random() >= nu:
                bad = False
            t = end
    return pd.DataFrame(rows, columns=["node", "start", "end"])


def read(df, n_nodes=None, window=YEAR, **kw):
    return relmodel.read_log(df, start="start", end="end", node="node", time_unit="h", window=(0.0, window),
                             n_nodes=n_nodes, **kw)


# --- brute force: every path of every node, one Python loop ---

def brute_loglik(intervals, pi, m, lam, nu, n_zero=0, window=None, truncated=False):
    """Sum over nodes of log sum over j of P(path j) * prod f(interval); ``intervals`` maps node -> [(u, failed)]."""
    total = 0.0
    for ivs in intervals.values():
        n = len(ivs)
        like = 0.0
        for j in range(n + 1):
            prob = 1 - pi if j == 0 else (pi * nu ** (j - 1) * (1 - nu) if j < n else pi * nu ** (n - 1))
            for i, (u, failed) in enumerate(ivs):
                rate = m * lam if i < j else lam
                prob *= (rate if failed else 1.0) * math.exp(-rate * u)
            like += prob
        if truncated:
            like /= 1 - ((1 - pi) * math.exp(-lam * window) + pi * math.exp(-m * lam * window))
        total += math.log(like)
    if n_zero:
        total += n_zero * math.log((1 - pi) * math.exp(-lam * window) + pi * math.exp(-m * lam * window))
    return total


SMALL = pd.DataFrame({
    "node": ["a", "a", "a", "b", "b", "c", "c", "c", "d", "e", "e"],
    "start": [100.0, 150.0, 700.0, 50.0, 60.0, 300.0, 310.0, 900.0, 400.0, 200.0, 600.0],
    "end": [110.0, 160.0, 720.0, 55.0, 80.0, 305.0, 330.0, np.nan, 420.0, 260.0, 610.0],
    "planned": [False, False, False, False, False, False, True, False, False, False, False],
})
SMALL.loc[len(SMALL)] = ["b", 70.0, 90.0, False]  # overlaps b's 60-80 outage: merged to 60-90, not a failure
WINDOW = 1000.0
#: The intervals written out by hand from SMALL: (hours in service, ended in a failure).
SMALL_INTERVALS = {
    "a": [(100.0, True), (40.0, True), (540.0, True), (280.0, False)],
    "b": [(50.0, True), (5.0, True), (910.0, False)],
    "c": [(300.0, True), (5.0 + 570.0, True)],  # the planned 310-330 ends no interval; the 900 outage has no end
    "d": [(400.0, True), (580.0, False)],
    "e": [(200.0, True), (340.0, True), (390.0, False)],
}


def small_log(n_nodes=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read(SMALL, n_nodes=n_nodes, window=WINDOW, planned="planned")


@pytest.mark.parametrize("n_nodes", [None, 12])
def test_the_likelihood_is_the_brute_force_sum_over_paths(n_nodes):
    from relmodel.stats.nodes.estimate import _fleet_paths
    from relmodel.stats.nodes.intervals import node_intervals
    from relmodel.stats.nodes.twoclass import fit_twoclass, natural
    r = relmodel.bad_nodes(small_log(n_nodes), seed=1)
    assert not r.estimable and "likelihood ratio" in r.reason   # five nodes cannot tell a bad class
    iv = node_intervals(small_log(n_nodes))
    theta, _, scale, _ = fit_twoclass(_fleet_paths(iv, n_nodes, iv.failures > 0))
    truncated = n_nodes is None
    want = brute_loglik(SMALL_INTERVALS, *natural(theta, scale), n_zero=0 if truncated else n_nodes - 5,
                        window=WINDOW, truncated=truncated)
    assert r.loglik == pytest.approx(want, rel=1e-9)
    for pi, m, nu in itertools.product((0.02, 0.3), (3.0, 30.0), (0.2, 0.9)):  # and it is the maximum
        lam = 1 / 300
        assert r.loglik >= brute_loglik(SMALL_INTERVALS, pi, m, lam, nu, n_zero=0 if truncated else n_nodes - 5,
                                        window=WINDOW, truncated=truncated)
    counts = r.nodes.set_index("node")["failures"].to_dict()
    assert counts == {k: sum(f for _, f in v) for k, v in SMALL_INTERVALS.items()}
    hours = r.nodes.set_index("node")["exposure_h"].to_dict()
    assert hours == pytest.approx({k: sum(u for u, _ in v) for k, v in SMALL_INTERVALS.items()})


def test_the_likelihood_at_other_parameters_too():
    from relmodel.stats.nodes.estimate import _fleet_paths
    from relmodel.stats.nodes.intervals import node_intervals
    from relmodel.stats.nodes.twoclass import loglik
    iv = node_intervals(small_log())
    for population, n_zero in ((None, 0), (9, 4)):
        p = _fleet_paths(iv, population, iv.failures > 0)
        for pi, m, lam, nu in itertools.product((0.05, 0.4), (2.0, 25.0), (1e-3, 1e-2), (0.1, 0.8)):
            theta = np.array([math.log(pi / (1 - pi)), math.log(m - 1), 0.0, math.log(nu / (1 - nu))])
            ours = loglik(theta, p, lam)[0]
            want = brute_loglik(SMALL_INTERVALS, pi, m, lam, nu, n_zero, WINDOW, truncated=population is None)
            assert ours == pytest.approx(want, rel=1e-10)


def _covered(r, truth):
    e = r.estimates.set_index("parameter")
    return {k: bool(e.loc[k, "low"] <= v <= e.loc[k, "high"]) for k, v in truth.items()}


def test_intervals_cover_the_generators_truth():
    truth = {"bad_share": 0.1, "multiplier": 10.0, "lam": 1 / 5000, "unfixed": 0.5}
    hits, fitted = {k: 0 for k in truth}, 0
    for seed in range(100):
        log = read(simulate(seed, 500, pi=0.1, m=10.0, lam=1 / 5000, nu=0.5), n_nodes=500)
        r = relmodel.bad_nodes(log, seed=seed)
        if not r.estimable:
            continue
        fitted += 1
        for k, ok in _covered(r, truth).items():
            hits[k] += ok
    assert fitted >= 95
    shares = {k: v / fitted for k, v in hits.items()}
    assert all(s >= 0.90 for s in shares.values()), shares


def test_a_homogeneous_fleet_is_rejected_at_about_the_nominal_level():
    rng = np.random.default_rng(7)
    rejected = 0
    for _ in range(200):
        e = rng.uniform(4000, YEAR, 300)
        y = rng.poisson(e / 4000)
        rejected += dispersion_test(y, e, np.ones(y.size), truncated=False).p_value < 0.05
    assert rejected / 200 <= 0.09
    # and a gamma-mixed fleet is found
    e = np.full(300, YEAR)
    y = rng.poisson(rng.gamma(0.5, 2.0, 300) * e / 4000)
    d = dispersion_test(y, e, np.ones(300), truncated=False)
    assert d.p_value < 1e-6 and d.d_lo < 2.0 < d.d_hi


def test_the_truncated_test_holds_its_level_on_nodes_that_failed():
    rng = np.random.default_rng(8)
    rejected = 0
    for _ in range(100):
        e = np.full(400, YEAR)
        y = rng.poisson(e / 6000)
        keep = y > 0
        rejected += dispersion_test(y[keep], e[keep], np.ones(keep.sum()), truncated=True).p_value < 0.05
    assert rejected / 100 <= 0.10


def test_a_homogeneous_fleet_end_to_end_says_no_bad_nodes():
    said, classes = [], []
    for seed in range(6):
        r = relmodel.bad_nodes(read(simulate(seed, 300, pi=0.0), n_nodes=300), seed=seed)
        said.append(r.heterogeneous)
        classes.append(r.estimable)
        text, table = r.text(), r.table().to_string() + r.estimates_table().to_string()
        assert "nan" not in (text + table).lower()
        if not r.estimable:
            assert "not estimable" in text and "not estimable" in r.estimates_table().to_string()
            assert r.nodes["p_bad"].isna().all() and (r.table()["chance bad now"] == "not estimable").all()
    assert sum(said) <= 2 and sum(classes) <= 2   # no bad class found in a fleet without one


def test_the_worst_k_envelope_holds_a_homogeneous_fleet():
    rng = np.random.default_rng(3)
    inside, n = np.zeros(5), 100
    for seed in range(n):
        e = rng.uniform(3000, YEAR, 500)
        y = rng.poisson(e / 3000)
        ks, share, env, runs = worst_shares(y, e, 0, YEAR, False, seed=seed)
        inside += share <= env
    assert ks == [1, 3, 5, 10, 25] and runs >= 99
    assert np.all(inside / n >= 0.88), inside / n


def test_the_worst_k_envelope_holds_a_homogeneous_fleet_listing_only_nodes_that_failed():
    """Poisson counts of 400 interchangeable nodes (2 expected each), only those with a failure kept: the
    envelope of such a fleet holds the observed shares in about 95% of fleets."""
    rng = np.random.default_rng(11)
    inside, n = np.zeros(5), 150
    for seed in range(n):
        y = rng.poisson(2.0, 400)
        y = y[y > 0]
        e = np.full(y.size, YEAR)
        ks, share, env, runs = worst_shares(y, e, 0, YEAR, True, seed=seed, ks=[1, 3, 4, 10, 18])
        inside += share <= env
    assert np.all(inside / n >= 0.88), inside / n


def test_a_log_without_end_times_counts_every_failure_and_says_how():
    df = pd.DataFrame({"t": [1.0, 5.0, 9.0, 20, 30, 40, 50], "host": ["a", "a", "b", "b", "b", "a", "c"]})
    log = relmodel.read_log(df, start="t", node="host", time_unit="h", window=(0, 100.0))
    with pytest.warns(UserWarning, match="no outage end times, so outages are taken as instantaneous"):
        r = relmodel.bad_nodes(log, population=4, seed=0)
    got = r.nodes.set_index("node")
    assert r.n_failures == 7 and got.loc["a", "failures"] == 3 and got.loc["b", "failures"] == 3
    assert got["exposure_h"].tolist() == [100.0, 100.0, 100.0]


def test_a_log_without_nodes_is_refused_by_name():
    log = relmodel.read_log(pd.DataFrame({"b": [1.0, 5.0, 9.0], "e": [2.0, 6.0, 9.5]}), start="b", end="e",
                            time_unit="h", window=(0, 100.0))
    with pytest.raises(InputTypeError, match="names no nodes"):
        relmodel.bad_nodes(log, population=10, seed=0)


def test_a_node_down_the_whole_window_is_left_out_of_the_count_test_with_a_warning():
    df = pd.DataFrame({"began": [0.0, 100, 300, 50], "ended": [1000.0, 101, 301, 51], "host": ["z", "a", "a", "b"]})
    log = relmodel.read_log(df, start="began", end="ended", node="host", time_unit="h", window=(0.0, 1000.0))
    for pop in (None, 3):
        with pytest.warns(UserWarning, match="1 node failed with no time in service"):
            r = relmodel.bad_nodes(log, population=pop, seed=0)
        assert r.n_failures == 4 and np.isfinite(r.dispersion.p_value)
    assert r.n_nodes == 3


@pytest.mark.parametrize("bad", [{"conf": "0.9"}, {"alpha": None}, {"conf": 1.0}, {"k": float("nan")}, {"k": 2.5},
                                 {"k": 0}, {"seed": "x"}, {"seed": -1}])
def test_arguments_numpy_would_trip_on_are_named_errors(bad):
    from relmodel.errors import ModelInputError
    with pytest.raises(ModelInputError, match=next(iter(bad))):
        relmodel.bad_nodes(small_log(), **bad)


def test_a_ratio_too_large_to_measure_is_said_so():
    """39 failures on one node of 50, one on another: the fit runs to its largest ratio, and says that."""
    rows = [("n0", 10.0 * i, 10.0 * i + 1) for i in range(39)] + [("n1", 500.0, 501.0)]
    r = relmodel.bad_nodes(read(pd.DataFrame(rows, columns=["node", "start", "end"]), n_nodes=50, window=1000.0),
                           seed=0)
    assert not r.estimable and "fail at the same rate" not in r.reason
    assert "largest rate ratio" in r.reason


def test_population_given_or_not_gives_consistent_estimates():
    df = simulate(11, 3000, pi=0.08, m=12.0, lam=1 / 5000, nu=0.5)
    known = relmodel.bad_nodes(read(df, n_nodes=3000), seed=0)
    seen = relmodel.bad_nodes(read(df), seed=0)
    assert not known.truncated and seen.truncated and "lists only the" in seen.text()
    assert known.estimable and seen.estimable
    a, b = known.estimates.set_index("parameter"), seen.estimates.set_index("parameter")
    for k in ("bad_share", "multiplier", "lam", "unfixed"):
        assert b.loc[k, "low"] <= a.loc[k, "value"] <= b.loc[k, "high"], k
    # the same ranking of the worst nodes
    assert set(known.ranked(5)["node"]) & set(seen.ranked(5)["node"])


def test_a_population_smaller_than_the_nodes_seen_is_a_named_error():
    log = read(simulate(1, 200), n_nodes=None)
    seen = log.events["node"].nunique()
    with pytest.raises(CountError, match=f"lists {seen:,} nodes"):
        relmodel.bad_nodes(log, population=seen - 1)
    with pytest.raises(CountError):
        relmodel.bad_nodes(log, population=0)
    with pytest.raises(InputTypeError):
        relmodel.bad_nodes(relmodel.load_source("llama3"))


def test_stepfun_log_and_source_agree():
    log = relmodel.datasets.stepfun()
    r = relmodel.bad_nodes(log, seed=0)
    s = relmodel.bad_nodes(relmodel.load_source("stepfun"), seed=0)
    assert r.n_nodes == s.n_nodes == 400 and not r.truncated
    assert r.bad_share == pytest.approx(s.bad_share) and r.heterogeneous
    assert r.nodes["p_bad"].between(0, 1).all()
    now = list(r.nodes["p_bad"].round(3))                  # likeliest bad now first (to the printed digit),
    assert now == sorted(now, reverse=True)                 # then likeliest bad during the log
    assert r.nodes["p_bad_ever"].between(0, 1).all() and (r.nodes["p_bad_ever"] >= r.nodes["p_bad"] - 1e-12).all()
    assert r.nodes["failures"].sum() == len(log.interruptions())   # overlapping outages merged: one failure


def test_lanl_nodes_are_per_system_and_node():
    log = relmodel.datasets.lanl()
    r = relmodel.bad_nodes(log, seed=0)
    assert r.truncated and r.n_listed == log.events["node"].nunique()
    assert r.nodes["node"].str.contains("/").all()
    assert r.heterogeneous and "lists only the" in r.text()
    html = r._repr_html_()
    assert "nan" not in html.lower() and "<table" in html


def test_the_result_speaks_the_protocol():
    r = relmodel.bad_nodes(relmodel.datasets.stepfun(), seed=0)
    assert isinstance(r, relmodel.tables.Result)
    t = r.table()
    assert len(t) == 15 and "chance bad now" in t.columns
    assert not t.isin(["nan", "NaN", "inf"]).any().any()
    assert len(r.ranked(4)) == 4 and len(r.to_frame()) == len(r.nodes)
    w = r.worst_table()
    assert list(w["worst nodes"])[:3] == ["1", "3", "4"]


def test_a_slurm_export_needs_its_kernel_log_to_name_nodes():
    """A Slurm export's rows are jobs: alone it is refused with a named error; joined to a kernel log, the
    kernel's node-level outages are read, with the run's nodes as the population."""
    from relmodel.errors import InputTypeError

    folder = relmodel.datasets.data_dir() / "ops-example"
    src = relmodel.load_source(str(folder / "sacct.txt"))
    with pytest.raises(InputTypeError, match="join the kernel log"):
        relmodel.bad_nodes(src)
    kernel = relmodel.read_xid(folder / "syslog", year=2024)
    src = relmodel.load_source(str(folder / "sacct.txt"), syslog=str(folder / "syslog"), year=2024)
    r = relmodel.bad_nodes(src, seed=0)
    assert set(r.nodes["node"]) <= set(kernel.events["node"]) | {"(nodes that never failed)"}
    assert r.n_failures == sum(1 for _ in kernel.interruptions().itertuples())
    assert r.n_nodes >= kernel.events["node"].nunique()


def test_a_big_fleet_fitted_on_a_sample_then_newton_reaches_the_same_maximum(monkeypatch):
    """Above SAMPLED_FIT listed nodes the fit starts on a sample and finishes with Newton steps on every node;
    it must land where a plain BFGS on every node lands (to a small share of a standard error)."""
    from relmodel.stats.nodes import twoclass

    rng = np.random.default_rng(8)
    n, horizon, lam = 24_000, 8760.0, 1 / 2000.0
    rows = []
    bad = rng.random(n) < 0.05
    for i in range(n):
        t, b = 0.0, bad[i]
        while True:
            t += rng.exponential(1 / (lam * (12 if b else 1)))
            if t >= horizon:
                break
            rows.append((t, min(t + 3.0, horizon), i))
            t += 3.0
            b = b and rng.random() < 0.6
    df = pd.DataFrame(rows, columns=["start", "end", "node"]).sort_values("start")
    log = relmodel.read_log(df, start="start", end="end", node="node", time_unit="h", window=(0.0, horizon))
    sampled = relmodel.bad_nodes(log, population=n, seed=0).estimates.set_index("parameter")
    monkeypatch.setattr(twoclass, "SAMPLED_FIT", 10**9)
    plain = relmodel.bad_nodes(log, population=n, seed=0).estimates.set_index("parameter")
    for name in ("bad_share", "multiplier", "lam", "unfixed"):
        half = (plain.loc[name, "high"] - plain.loc[name, "low"]) / 2
        assert abs(sampled.loc[name, "value"] - plain.loc[name, "value"]) < 0.05 * half, name


# --- the fast paths against slow ones ---

@pytest.mark.parametrize("population", [None, 60])
def test_the_exact_hessian_is_the_finite_difference_one(population):
    """The one-pass Hessian (posterior covariance of the paths' scores) against differences of the exact
    gradient, at the fit and away from it, with and without the truncation to nodes that failed."""
    from relmodel.stats.nodes.estimate import _fleet_paths
    from relmodel.stats.nodes.intervals import node_intervals
    from relmodel.stats.nodes.twoclass import fit_twoclass, hessian, hessian_fd
    iv = node_intervals(read(simulate(5, 50, pi=0.2)))
    p = _fleet_paths(iv, population, iv.failures > 0)
    theta, _, scale, _ = fit_twoclass(p)
    for t in (theta, theta + np.array([0.4, -0.3, 0.2, 0.5])):
        exact, diff = hessian(t, p, scale), hessian_fd(t, p, scale, step=1e-6)
        assert np.abs(exact - diff).max() < 1e-4 * np.abs(exact).max()
        assert np.allclose(exact, exact.T)


def _paths_by_loop(iv):
    """The path features node by node, path by path (k1, k3, k4, d, u of each (node, j); k2 = 1 - k1)."""
    out = []
    for i in range(iv.n.size):
        n = int(iv.n[i])
        u = iv.u[iv.starts[i]:iv.starts[i] + n]
        f = iv.failed[iv.starts[i]:iv.starts[i] + n]
        for j in range(n + 1):
            k3 = n - 1 if j == n else max(j - 1, 0)
            out.append((float(j >= 1), k3, float(1 <= j < n), float(f[:j].sum()), float(u[:j].sum())))
    return np.array(out).T


def test_the_path_arrays_are_those_of_a_loop_over_nodes_and_paths():
    from relmodel.stats.nodes.intervals import node_intervals
    from relmodel.stats.nodes.twoclass import paths, subset
    iv = node_intervals(small_log(9))
    p = paths(iv.n, iv.u, iv.failed, np.ones(iv.n.size), np.zeros(iv.n.size))
    want = _paths_by_loop(iv)
    assert p.feats.shape == want.shape and np.allclose(p.feats, want, rtol=1e-12, atol=1e-9)
    assert np.array_equal(p.fails, iv.failures) and np.allclose(p.expo, iv.exposure_h)
    assert np.array_equal(p.u, p.feats[4]) and np.array_equal(p.k3, p.feats[1])
    small = subset(p, np.array([0, 2]), 3.0)
    keep = np.isin(p.node, [0, 2])
    assert np.array_equal(small.feats, p.feats[:, keep]) and list(small.weight) == [3.0, 3.0]
    assert np.array_equal(small.last - small.starts, iv.n[[0, 2]])


def test_intervals_without_planned_outages_are_those_of_the_general_pass():
    """A log without planned outages takes a shorter pass; one planned outage on a node of its own sends the
    same log through the general one, which must give every other node the same intervals."""
    from relmodel.stats.nodes.intervals import node_intervals
    df = simulate(2, 30)
    df["planned"] = False
    plain = node_intervals(read(df, planned="planned"))
    extra = pd.concat([df, pd.DataFrame({"node": ["zz"], "start": [100.0], "end": [110.0], "planned": [True]})])
    general = node_intervals(read(extra.sort_values("start"), planned="planned"))
    assert list(general.keys[:-1]) == list(plain.keys) and general.keys[-1] == "zz"
    m = plain.u.size
    assert np.array_equal(general.u[:m], plain.u) and np.array_equal(general.failed[:m], plain.failed)
    assert np.array_equal(general.n[:-1], plain.n)


def test_newton_on_the_paths_that_matter_is_newton_on_all_of_them():
    """The fleet's Newton steps leave out paths far below their node's likeliest; the maximum, its
    information and every path's posterior are those of the steps on all paths."""
    from relmodel.stats.nodes.estimate import _fleet_paths
    from relmodel.stats.nodes.intervals import node_intervals
    from relmodel.stats.nodes.twoclass import _newton, _prune, _pruned_newton, fit_twoclass
    iv = node_intervals(read(simulate(4, 60, pi=0.2, lam=1 / 100)))
    p = _fleet_paths(iv, 70, iv.failures > 0)
    theta, _, scale, _ = fit_twoclass(p)
    start = theta + np.array([0.05, -0.03, 0.002, 0.05])
    assert 0 < _prune(p, start, scale)[1].mean() < 0.5   # most paths are left out
    t1, ok1, ev1 = _pruned_newton(start, p, scale)
    t2, ok2, ev2 = _newton(start, p, scale)
    assert ok1 and ok2 and np.allclose(t1, t2, rtol=0, atol=1e-8)
    assert ev1[0] == pytest.approx(ev2[0], rel=1e-13)
    assert np.allclose(ev1[3], ev2[3], rtol=1e-7) and np.allclose(ev1[2], ev2[2], rtol=0, atol=1e-12)
