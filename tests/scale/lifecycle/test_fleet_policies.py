"""Retirement policies: what each retires, and the payoff regime where retiring pays."""

import math

import numpy as np
import pytest

from relmodel.errors import ModelInputError
from relmodel.scale.lifecycle import compare_policies, fleet_model, never, retire_top, score, threshold
from relmodel.scale.lifecycle.loop import run_once


def test_retire_at_first_failure_retires_every_failed_node():
    m = fleet_model(job_nodes=10, warm_standbys=2, working_nodes=60, spare_nodes=0, work=500.0, node_mtbf=1000.0,
                    recovery=0.1, host_selection=0.0, to_manual=0.0)
    for seed in range(20):
        r = run_once(m, threshold(1, "10000d"), seed)
        if not r["depleted"]:
            assert r["retired"] == r["failures"]
            assert r["auto_repairs"] == 0


def test_threshold_counts_failures_inside_the_window_only():
    """Hand check: a node fails every ~1 day on average; with a window far shorter than its gaps, two
    failures never fall inside one window and nobody is retired."""
    m = fleet_model(job_nodes=5, warm_standbys=5, working_nodes=20, spare_nodes=0, work=300.0, node_mtbf=500.0,
                    recovery=0.0, host_selection=0.0, auto_repair=0.0, to_manual=0.0)
    r = run_once(m, threshold(2, "1s"), 0)
    assert r["failures"] > 0 and r["retired"] == 0


def test_pulling_nodes_known_bad_removes_bad_failures():
    m = fleet_model(job_nodes=40, warm_standbys=4, working_nodes=60, spare_nodes=0, work=2000.0, node_mtbf=2000.0,
                    bad_share=0.05, multiplier=30.0, auto_unfixed=1.0, to_manual=0.0, recovery=0.2)
    # each of the 60 nodes is bad with chance 0.05 (3 on average, more than 10 once in 3,000 runs); pulling ten
    # nodes each surely bad takes every bad node and leaves none to fail, and pulls Binomial(60, 0.05) bad ones
    pulled_bad = []
    for seed in range(20):
        r = run_once(m, retire_top([1.0] * 10), seed)
        assert r["retired"] == 10 and r["bad_failures"] == 0
        pulled_bad.append(r["retired_bad"])
    assert abs(sum(pulled_bad) - 20 * 60 * 0.05) <= 4 * math.sqrt(20 * 60 * 0.05 * 0.95), pulled_bad
    # without pulling them, the bad nodes that run the job fail (idle ones only join at a host selection)
    assert sum(run_once(m, never(), seed)["bad_failures"] for seed in range(4)) > 10


def test_score_earns_credit_across_restarts():
    """A score policy with credit 1 a day and penalty 1 retires nodes that fail twice before a day of
    service: short runs between restarts must not stop credit from building."""
    m = fleet_model(job_nodes=20, warm_standbys=20, working_nodes=60, spare_nodes=0, work=3000.0,
                    node_mtbf=2000.0, recovery=0.0, host_selection=0.0, auto_repair=0.0, to_manual=0.0)
    # job restarts every ~100 h (20 nodes at 2,000 h): each node earns its credit across many restarts,
    # so with initial 1.5, penalty 1, credit 1 a day, a node is retired only if it fails twice within
    # about a day of service; exponential lives of mean 2,000 h make that rare
    r = run_once(m, score(initial=1.5, penalty=1.0, credit=1.0, period="1d", floor=0.0), 1)
    assert r["failures"] > 10
    assert r["retired"] <= 1


def test_payoff_regime_threshold_beats_never():
    """AIReSim's retirement-payoff regime (8% bad at 21x, auto/manual repairs leave the fault 0.6/0.75,
    60-minute recovery, 4,600 working servers): retiring at 2 failures in 7 days buys ETTR."""
    day = 24.0
    m = fleet_model(job_nodes=4096, warm_standbys=16, working_nodes=4600, spare_nodes=200, work=14 * day,
                    node_mtbf=50 * day, bad_share=0.08, multiplier=21.0, recovery="60min", auto_unfixed=0.6,
                    manual_unfixed=0.75)
    c = compare_policies(m, {"2 failures in 7 days": threshold(2, "7d")}, runs=8, seed=3)
    f = c.to_frame().set_index("policy")
    assert f.loc["2 failures in 7 days", "change_lo"] > 0
    assert f.loc["2 failures in 7 days", "retired_bad"] > 0.5 * f.loc["2 failures in 7 days", "retired"]
    assert c.best() == "2 failures in 7 days"
    assert "points of ETTR" in c.text() and "nan" not in c.table().to_string().lower()


def test_bad_policy_inputs_are_named_errors():
    for bad in (lambda: threshold(0), lambda: threshold(2, "-1d"), lambda: score(penalty=0),
                lambda: retire_top([]), lambda: retire_top([1.5])):
        with pytest.raises(ModelInputError):
            bad()
    with pytest.raises(ModelInputError):
        fleet_model(job_nodes=10, working_nodes=5)
    with pytest.raises(ModelInputError):
        fleet_model(multiplier=0.5)
    with pytest.raises(ModelInputError):
        fleet_model(law="gamma")


def test_a_repair_law_drawing_missing_hours_is_a_named_error():
    # It was taken as instant repairs here while the spare pool refused the same law.
    from relmodel.scale.lifecycle import simulate_fleet

    class Gappy:
        mean_h = 48.0

        def sample(self, n, rng=None):
            x = np.random.default_rng(rng).exponential(48.0, n)
            x[::5] = np.nan
            return x

    m = fleet_model(job_nodes=64, warm_standbys=2, working_nodes=72, spare_nodes=4, work="10d", node_mtbf="20d",
                    manual_repair=Gappy(), to_manual=1.0)
    with pytest.raises(ModelInputError, match="not finite"):
        simulate_fleet(m, min_runs=2, max_runs=2, seed=0)


def test_fleet_grid_is_the_same_serial_and_on_dask():
    import distributed

    from relmodel.scale.lifecycle import fleet_grid

    base = fleet_model(job_nodes=64, warm_standbys=2, working_nodes=72, spare_nodes=4, work="10d",
                       node_mtbf="60d")
    grid = {"bad_share": [0.0, 0.1], "multiplier": [10.0]}
    serial = fleet_grid(base, grid, max_runs=12, resolution=0.001, seed=4)
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        on_dask = fleet_grid(base, grid, executor=client, max_runs=12, resolution=0.001, seed=4)
    assert serial.equals(on_dask)
    assert serial["ettr"].iloc[1] < serial["ettr"].iloc[0]      # bad nodes cost ETTR
    with pytest.raises(ModelInputError):
        fleet_grid(base, {"bad_share": [2.0]})


def test_a_keyword_the_fleet_does_not_take_is_a_named_error():
    # simulate_fleet passes unknown keywords on to the model: it was Python's TypeError from fleet_model
    from relmodel.scale.lifecycle import simulate_fleet
    m = fleet_model(job_nodes=10, working_nodes=12, spare_nodes=0, work="10h")
    with pytest.raises(ModelInputError, match="simulate_fleet does not take 'runs'.*max_runs.*node_mtbf"):
        simulate_fleet(m, runs=2)
    with pytest.raises(ModelInputError, match="FleetModel.replace does not take 'mtbf'"):
        m.replace(mtbf=5.0)
    assert simulate_fleet(m, node_mtbf="100h", min_runs=2, max_runs=2, seed=0).model.life.mean_h == 100.0


def test_a_policy_that_is_not_one_is_a_named_error_and_numpy_counts_are_counts():
    import numpy as np

    from relmodel.errors import ModelInputError
    from relmodel.scale.lifecycle import compare_policies, fleet_grid, fleet_model, never, simulate_fleet, threshold

    m = fleet_model(job_nodes=np.int64(16), warm_standbys=1, working_nodes=np.int32(18), spare_nodes=2, work="5d",
                    node_mtbf="50d")
    assert (m.job_nodes, m.working_nodes) == (16, 18) and type(m.job_nodes) is int
    for bad, where in (("never", "policy must be a retirement policy"), (threshold, "call it: threshold")):
        with pytest.raises(ModelInputError, match=where):
            simulate_fleet(m, policy=bad, max_runs=10)
    with pytest.raises(ModelInputError, match="each of policies must be a retirement policy"):
        compare_policies(m, ["never"], runs=2)
    with pytest.raises(ModelInputError, match=r"policies\['t'\] must be a retirement policy"):
        compare_policies(m, {"t": "2 in 7d"}, runs=2)
    with pytest.raises(ModelInputError, match="a dict of name to policy, or a list"):
        compare_policies(m, "never", runs=2)
    assert compare_policies(m, {"as is": None}, runs=2).to_frame()["policy"].tolist() == ["as is"]  # None: never
    assert compare_policies(m, [never()], runs=2).to_frame()["policy"].tolist() == ["never retire"]
    grid = fleet_grid(m, {"job_nodes": np.array([8, 16])}, max_runs=10)          # an array is a list of values
    assert grid["job_nodes"].tolist() == [8, 16]
