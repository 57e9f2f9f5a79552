"""Bounded refusals: requests too big to serve are refused by name before anything is allocated.

Third hostile corpus: ``sweep_grid`` with 2x10^7 combinations passed the budget
check (it counted 96 bytes a row; a row costs about 430 at the peak) and died
with MemoryError; ``titan_synthetic(10**12)`` asked for terabytes and
``titan_synthetic(-5)`` raised numpy's plain ValueError. Memory is measured
here with tracemalloc, independently of the code's own estimate.
"""

import math
import tracemalloc

import numpy as np
import pytest

import relmodel
from relmodel.budget_guard import budget
from relmodel.errors import BudgetError, CountError, DurationError
from relmodel.scale.targets.grid import sweep_grid


def _grid(n_gpus, n_cost, n_restart, n_target):
    return {"n_gpus": list(range(1024, 1024 + n_gpus)), "ckpt_cost": [f"{i + 1}s" for i in range(n_cost)],
            "restart": [f"{i + 1}min" for i in range(n_restart)],
            "target_ettr": [0.5 + 0.4 * i / n_target for i in range(n_target)]}


def test_twenty_million_combinations_are_refused_before_allocating():
    grid = _grid(200, 100, 10, 100)
    assert math.prod(len(v) for v in grid.values()) == 20_000_000
    tracemalloc.start()
    try:
        with pytest.raises(BudgetError, match="memory budget") as info:
            sweep_grid(grid)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, peak  # refused before the columns were made
    assert "20,000,000 combinations" in str(info.value) and "fewer values" in str(info.value)


def test_the_memory_check_counts_what_a_row_really_costs():
    """A grid the old estimate let through under a 40 MiB budget: 300,000 rows need far more at the peak."""
    grid = _grid(30, 10, 10, 100)
    n = math.prod(len(v) for v in grid.values())
    assert n == 300_000 and n * 96 < 40 * 2**20  # what the old check counted: under the budget
    with budget(memory=40 * 2**20):
        with pytest.raises(BudgetError, match="memory budget"):
            sweep_grid(grid)


def test_an_accepted_grid_stays_within_its_estimate():
    grid = _grid(50, 10, 2, 100)
    n = math.prod(len(v) for v in grid.values())
    sweep_grid({"n_gpus": [1024]})  # imports and caches outside the measurement
    tracemalloc.start()
    try:
        df = sweep_grid(grid)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(df) == n
    from relmodel.scale.targets.grid import ROW_BYTES
    assert peak <= n * ROW_BYTES, (peak / n, ROW_BYTES)


@pytest.mark.parametrize("n_gpus", [10**12, 1_000_001, -5, 0, 2.5, True, float("nan"), "10", None])
def test_titan_synthetic_size_is_a_named_error_with_the_valid_range(n_gpus):
    with pytest.raises(CountError, match="1 to 1,000,000"):
        relmodel.datasets.titan_synthetic(n_gpus)


@pytest.mark.parametrize("years", [0.5, 1, -1, math.inf, float("nan"), True, "6"])
def test_titan_synthetic_years_is_a_named_error(years):
    with pytest.raises(DurationError, match="above 1"):
        relmodel.datasets.titan_synthetic(50, years=years)


@pytest.mark.parametrize("seed", [-1, "x", 1.5])
def test_titan_synthetic_seed_is_a_named_error(seed):
    with pytest.raises(CountError, match="seed"):
        relmodel.datasets.titan_synthetic(50, seed=seed)


def test_titan_synthetic_still_draws_what_it_did():
    a = relmodel.datasets.titan_synthetic(400, seed=3)
    b = relmodel.datasets.titan_synthetic(400, seed=np.random.default_rng(3))
    assert a.equals(b)
    first = a.drop_duplicates("serial")
    assert len(first) == 400  # one first life per GPU, hand count of the generator's rule
    assert (a["duration_h"] > 0).all()
