"""Bounded work in the library: each Monte Carlo, bootstrap and grid function refuses a request
above the cost budget before it starts (second hostile corpus, unbounded work).

Each huge request must fail at once with BudgetError naming the argument; the same
function with a small request and the default budget still runs (so the guard is
not a blanket refusal), and lowering the budget refuses that small request too.
"""

import numpy as np
import pandas as pd
import pytest

import relmodel
from relmodel import budget_guard as B
from relmodel.errors import BudgetError, CountError, ModelInputError, ResourceLimitError
from relmodel.scale.design.compound import DomainModel, simulate_domains
from relmodel.scale.targets.grid import sweep_grid
from relmodel.stats.survival.power_law import power_law_gof

HUGE = 10**9


def _groups_frame():
    rng = np.random.default_rng(0)
    grp = rng.choice(["a", "b"], 200)
    t, c = rng.exponential(np.where(grp == "a", 100, 130)), rng.uniform(0, 200, 200)
    return pd.DataFrame({"duration_h": np.minimum(t, c), "observed": t <= c, "fleet": grp,
                         "cause": np.where(t <= c, "gpu", None)})


def _durations():
    return np.random.default_rng(1).weibull(1.3, 80) * 100.0


TIMES = np.sort(np.random.default_rng(2).uniform(0, 1000, 40))


def _domains():
    return DomainModel(groups=18 * 30, trays=1, pool=40, tray_rate=5e-4, group_rate=1e-3, need=18)


#: name -> (call with a size, huge size, small size, argument named in the message)
CALLS = {
    "compare_fits": (lambda n: relmodel.stats.compare_fits(_durations(), ["exponential"], n_boot=n, seed=0), HUGE, 5, "n_boot"),
    "gray_test": (lambda n: relmodel.stats.gray_test(_groups_frame(), "fleet", "cause", "gpu", variance="bootstrap", n_boot=n, seed=0), HUGE, 5, "n_boot"),
    "power_law_gof": (lambda n: power_law_gof(TIMES, end=1000.0, n_runs=n, seed=0), HUGE, 50, "n_runs"),
    "two_level_optimum": (lambda n: relmodel.checkpoint.two_level_optimum("20h", "10s", "5min", fast_fraction=0.8, k_max=n),
                          10**12, 50, "k_max"),
    "best_interval": (lambda n: relmodel.checkpoint.best_interval(relmodel.fit(_durations(), "exponential"), "45s", "10min",
                                                       grid=n, n_runs=50, work="100h", seed=0), 10**8, 3, "grid"),
    "erlang_b": (lambda n: relmodel.scale.erlang_b(n, 3.0), 10**13, 20, "c="),
    "spares_table": (lambda n: relmodel.scale.spares_table(0.5, 10.0, "1min", "10min", job_mtbf_h=1.5, spares=[2],
                                                     n_runs=n, seed=0), HUGE, 100, "n_runs"),
    "simulate_domains": (lambda n: simulate_domains(_domains(), 24.0, n_runs=n, seed=0), HUGE, 20, "n_runs"),
    "sweep_grid": (lambda n: sweep_grid({"n_gpus": list(range(1024, 1024 + n)), "target_ettr": [0.8, 0.9],
                                         "ckpt_cost": [f"{k}s" for k in range(1, n + 1)]}), 20_000, 2,
                   "combinations"),
    "slowdown": (lambda n: relmodel.stragglers.slowdown(relmodel.stragglers.synthetic_steps(n_nodes=2, ranks_per_node=2, n_steps=50, seed=0).log, n_boot=n, seed=0),
                 HUGE, 5, "n_boot"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_huge_requests_are_refused_at_once(name):
    call, huge, _, needle = CALLS[name]
    with pytest.raises(BudgetError, match="budget") as err:
        call(huge)
    assert needle in str(err.value) and "raise the budget" in str(err.value)
    assert isinstance(err.value, ResourceLimitError) and isinstance(err.value, ValueError)


@pytest.mark.parametrize("name", list(CALLS))
def test_small_requests_run_and_a_lower_budget_refuses_them(name):
    call, _, small, _ = CALLS[name]
    call(small)  # the default budget lets it run
    with B.budget(work=10.0):
        with pytest.raises(BudgetError):
            call(small)
    call(small)  # the budget is back


def test_budget_is_configurable_and_checked():
    before = B.current_budget()
    with B.budget(work=1e12, memory=2**40) as now:
        assert now == {"work": 1e12, "memory": float(2**40)}
        B.check_cost("a big job", work=5e11, memory=2**39)
    assert B.current_budget() == before
    for bad in (0, -1, float("nan"), "lots", True):
        with pytest.raises(BudgetError):
            B.set_budget(work=bad)
    with pytest.raises(BudgetError, match="memory budget"):
        B.check_cost("a wide grid", memory=1e15)
    with pytest.raises(BudgetError, match="unbounded"):
        B.check_cost("a grid of infinite size", work=float("inf"))


@pytest.mark.parametrize("value", [-1, 1.5, float("nan"), float("inf"), True, "200", None])
def test_counts_must_be_whole_numbers(value):
    with pytest.raises(CountError, match="whole number"):
        B.count("n_boot", value)
    with pytest.raises((CountError, ValueError)):
        relmodel.stats.gray_test(_groups_frame(), "fleet", "cause", "gpu", variance="bootstrap", n_boot=value, seed=0)


@pytest.mark.parametrize("fraction", [1.5, -0.1, float("nan")])
def test_two_level_fast_fraction_is_a_fraction(fraction):
    with pytest.raises(ModelInputError, match="fraction from 0 to 1"):
        relmodel.checkpoint.two_level_optimum("20h", "10s", "5min", fast_fraction=fraction)


def test_a_sparse_step_log_does_not_allocate_its_whole_grid():
    n = 30_000  # step i on rank i only: a 30,000 x 30,000 grid would be 6.7 GiB
    diagonal = pd.DataFrame({"step": range(n), "rank": range(n), "seconds": 1.0})
    with pytest.raises(BudgetError, match="30,000 steps x 30,000 ranks"):
        relmodel.read_steps(diagonal, step="step", rank="rank", duration="seconds", missing="drop")
    square = pd.DataFrame({"step": np.repeat(np.arange(50), 4), "rank": np.tile(np.arange(4), 50), "seconds": 1.0})
    assert relmodel.read_steps(square, step="step", rank="rank", duration="seconds").n_steps == 50


def test_the_fit_command_refuses_a_billion_resamples():
    from click.testing import CliRunner
    from relmodel.cli import cli
    res = CliRunner().invoke(cli, ["fit", "lanl", "--n-boot", "1000000000"])
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit), res.output
    assert "budget" in res.output and "Traceback" not in res.output
