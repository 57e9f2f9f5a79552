"""The exponential engine's random stream and arithmetic: exact inversion of its uniforms, same seed same runs.

References are written here: the truncated exponential drawn one uniform at
a time with ``log1p`` in plain numpy, its closed-form mean and variance, and
a plain numpy simulation that moves every replica one event per step.
"""

import mpmath
import numpy as np
import pytest
from scipy import stats

from relmodel.checkpoint import ettr, expected_wall_time
from relmodel.checkpoint import simulate_exponential as S
from relmodel.checkpoint.simulate import _daly_wall, simulate_training
from lockstep_reference import lockstep_walls


def _plain_inversion(uniforms, span, mtbf):
    """Sum of truncated exponentials, one inversion per uniform: -M log(1 - (1 - e^{-span/M}) U)."""
    return float(np.sum(-mtbf * np.log1p(np.expm1(-span / mtbf) * uniforms)))


@pytest.mark.parametrize("k", [1, 5, 16 * 40 + 5, 16 * 10_000 + 7])
@pytest.mark.parametrize("span, mtbf, rel", [
    (0.2948, 3.093, 1e-13),  # a 17-minute segment at the Llama 3 job MTBF
    (1e-6, 3.0, 1e-9),       # a span of 3e-7 MTBFs: every factor within 4e-7 of 1
    (3.0, 1.0, 1e-13),       # a span of 3 MTBFs
])
def test_one_row_is_the_inversion_of_the_first_uniforms_of_the_stream(k, span, mtbf, rel):
    """A single row of k draws uses the first k 32-bit uniforms of the stream (u = int32 value + 2**31).

    16 * 10_000 + 7 draws span several cache chunks; the products of blocks and one log per
    block must agree with a log per draw to rounding, not just in distribution.
    """
    ours = S._trunc_exp_sums(np.random.Generator(np.random.SFC64(5)), np.array([k]), span, mtbf)
    words = np.random.Generator(np.random.SFC64(5)).bit_generator.random_raw((k + 1) // 2 + 8)
    u = (words.view(np.int32)[:k].astype(float) + 2.0 ** 31) / 2.0 ** 32
    assert ours[0] == pytest.approx(_plain_inversion(u, span, mtbf), rel=rel)


def _truncated_moments(span, mtbf):
    """Mean and variance of an exponential (mean ``mtbf``) truncated to [0, span): closed forms in 50 digits.

    M - L p / (1 - p) and M^2 - L^2 p / (1 - p)^2 with p = e^{-L/M} cancel in doubles for a tiny span.
    """
    with mpmath.workdps(50):
        m, s = mpmath.mpf(mtbf), mpmath.mpf(span)
        p = mpmath.exp(-s / m)
        return float(m - s * p / (1 - p)), float(m ** 2 - s ** 2 * p / (1 - p) ** 2)


@pytest.mark.parametrize("span, mtbf, count", [
    (3e-6, 10.0, 200),     # a tiny span: factors within 1e-6 of 1, where rounding is hardest
    (0.05, 2.0, 70),       # blocks of 16 and a remainder in every row
    (45.0, 1.0, 3),        # a span of 45 MTBFs: 1 - e^{-45} is 1 in doubles
])
def test_extreme_spans_keep_the_truncated_mean_and_bounds(span, mtbf, count):
    rng = np.random.Generator(np.random.SFC64(17))
    counts = np.full(5000, count)
    counts[::9] = 0
    sums = S._trunc_exp_sums(rng, counts, span, mtbf)
    assert np.all(sums[counts == 0] == 0)
    full = sums[counts > 0]
    assert np.all(full >= 0) and np.all(full <= count * span)
    mean, var = _truncated_moments(span, mtbf)
    se = np.sqrt(count * var / full.size)
    assert full.mean() == pytest.approx(count * mean, abs=4 * se)


def test_same_seed_or_same_generator_gives_the_same_runs():
    args = ("5d", "20min", "3h", "45s", "10min")
    a = simulate_training(*args, n_runs=300, seed=3)
    b = simulate_training(*args, n_runs=300, seed=3)
    c = simulate_training(*args, n_runs=300, seed=4)
    np.testing.assert_array_equal(a.wall_h, b.wall_h)
    np.testing.assert_array_equal(a.failures, b.failures)
    assert not np.array_equal(a.wall_h, c.wall_h)
    g1, g2 = np.random.default_rng(8), np.random.default_rng(8)
    r1, r2 = simulate_training(*args, n_runs=300, rng=g1), simulate_training(*args, n_runs=300, rng=g2)
    np.testing.assert_array_equal(r1.wall_h, r2.wall_h)
    again = simulate_training(*args, n_runs=300, rng=g1)  # the caller's generator has moved on
    assert not np.array_equal(r1.wall_h, again.wall_h)
    moved = np.random.default_rng(8)
    moved.bit_generator.random_raw(4)  # the four words that seed the engine's stream
    assert g2.bit_generator.state == moved.bit_generator.state


def test_many_failures_per_run_match_a_plain_numpy_simulation():
    """About 120 failures a run (blocks of 16 for segments, of 4 for restarts) and a shorter last segment."""
    work, tau, d, r, mtbf = 60.1, 0.25, 0.02, 0.1, 0.5
    ref_wall, ref_fail = lockstep_walls(work, tau, d, r, mtbf, 3000, seed=31)
    s = simulate_training(work, tau, mtbf, d, r, n_runs=3000, seed=32)
    assert s.failures.mean() > 100
    assert stats.ks_2samp(ref_wall, s.wall_h).pvalue > 0.001
    se = np.hypot(ref_fail.std() / np.sqrt(ref_fail.size), s.failures.std() / np.sqrt(s.n_runs))
    assert abs(ref_fail.mean() - s.failures.mean()) < 3.3 * se
    assert s.failures.var() == pytest.approx(ref_fail.var(), rel=0.15)
    whole = simulate_training(60.0, tau, mtbf, d, r, n_runs=3000, seed=33)
    lo, hi = whole.ettr_ci(0.99)
    assert lo <= ettr(tau, mtbf, d, r) <= hi


@pytest.mark.parametrize("work, tau, mtbf, d, r", [(1121.0, 0.27, 3.09, 0.0125, 1 / 6), (10.0, 2.0, 0.5, 0.3, 0.6),
                                                   (5.0, 0.5, 1e4, 0.0, 0.0), (100.0, 50.0, 0.1, 0.05, 0.05)])
def test_budget_wall_time_is_dalys(work, tau, mtbf, d, r):
    """The wall time the simulator sizes its budget by is relmodel.checkpoint.expected_wall_time's (inf when it overflows)."""
    assert _daly_wall(work, tau, mtbf, d, r) == pytest.approx(float(expected_wall_time(work, tau, mtbf, d, r)),
                                                             rel=1e-12)
