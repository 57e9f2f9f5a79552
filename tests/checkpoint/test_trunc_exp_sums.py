"""The exponential engine's lost-time draws: sums of exponentials truncated to one attempt's span.

Checked against closed forms (the truncated exponential's mean and variance)
and scipy's ``truncexpon``, on both paths: the product of factors per row, and
the sum of logs taken when a product could underflow.
"""

import numpy as np
import pytest
from scipy import stats

from relmodel.checkpoint import simulate_exponential as S


def _moments(span, mtbf):
    """Mean and variance of an exponential (mean ``mtbf``) truncated to [0, span): closed forms."""
    p = np.exp(-span / mtbf)
    mean = mtbf - span * p / (1 - p)
    var = mtbf ** 2 - span ** 2 * p / (1 - p) ** 2
    return mean, var


def test_single_draws_follow_the_truncated_exponential():
    rng = np.random.default_rng(7)
    span, mtbf = 0.4, 1.3
    x = S._trunc_exp_sums(rng, np.ones(40_000, dtype=np.int64), span, mtbf)
    assert x.min() >= 0 and x.max() < span
    ks = stats.kstest(x, stats.truncexpon(b=span / mtbf, scale=mtbf).cdf)
    assert ks.pvalue > 0.01


@pytest.mark.parametrize("span, mtbf, count", [(0.3, 3.1, 40), (0.7, 2.0, 12), (2.0, 1.0, 500)])
def test_row_sums_have_the_mean_and_variance_of_the_sum(span, mtbf, count):
    """Rows of ``count`` draws; (2.0, 1.0, 500) has count * span / mtbf = 1000 > 600: the log path."""
    rng = np.random.default_rng(11)
    rows = 6000
    counts = np.full(rows, count)
    counts[::7] = 0  # rows without a failure lose nothing
    sums = S._trunc_exp_sums(rng, counts, span, mtbf)
    assert np.all(sums[counts == 0] == 0)
    mean, var = _moments(span, mtbf)
    full = sums[counts > 0]
    n = full.size
    assert full.mean() == pytest.approx(count * mean, abs=4 * np.sqrt(count * var / n))
    assert full.var(ddof=1) == pytest.approx(count * var, rel=4 * np.sqrt(2 / (n - 1)))
    assert np.all(full <= count * span)


def test_uneven_rows_across_chunks_match_a_plain_numpy_simulation():
    """Rows of 0 to 200 draws over many chunks: per-row means against inverse-cdf draws in plain numpy."""
    rng = np.random.default_rng(3)
    span, mtbf = 0.25, 0.9
    counts = rng.integers(0, 200, 5000)
    ours = S._trunc_exp_sums(rng, counts, span, mtbf)
    u = rng.random(int(counts.sum()))
    draws = -mtbf * np.log1p(-(-np.expm1(-span / mtbf)) * u)
    cs = np.concatenate([[0.0], np.cumsum(draws)])
    ends = np.cumsum(counts)
    plain = cs[ends] - cs[ends - counts]
    assert counts.sum() > 4 * S._CHUNK_DRAWS  # several chunks
    mean, var = _moments(span, mtbf)
    se = np.sqrt(2 * counts.sum() * var) / counts.sum()
    assert ours.sum() / counts.sum() == pytest.approx(plain.sum() / counts.sum(), abs=4 * se)
    assert np.corrcoef(ours, counts)[0, 1] > 0.99  # each row's sum grows with its own count
