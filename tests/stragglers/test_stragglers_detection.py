"""Detection recovers planted slow nodes, keeps false alarms at the set rate, and ignores transient noise."""

import numpy as np
import pytest
from scipy import stats

import relmodel
from relmodel.data.formats.steps import StepLog
from relmodel.errors import ModelInputError
from relmodel.stragglers.detection import adjust_pvalues, saddlepoint_sf

SMALL = dict(n_nodes=32, ranks_per_node=4, n_steps=600)


def test_precision_and_recall_over_seeds():
    tp = fp = fn = 0
    onset_errors = []
    for seed in range(25):
        syn = relmodel.stragglers.synthetic_steps(**SMALL, n_slow=2, slowdown=0.08, seed=seed)
        found = relmodel.stragglers.find_slow_nodes(syn.log, alpha=0.05)
        truth = dict(zip(syn.slow["node"], syn.slow["onset_step"]))
        got = set(found.nodes)
        tp, fp, fn = tp + len(got & set(truth)), fp + len(got - set(truth)), fn + len(set(truth) - got)
        onset_errors += [abs(r.onset_step - truth[r.node]) for r in found.flagged.itertuples() if r.node in truth]
    assert tp / (tp + fn) >= 0.95  # recall
    assert tp / (tp + fp) >= 0.95  # precision
    assert np.median(onset_errors) <= 5 and max(onset_errors) <= 60  # window is 30 steps


def test_false_alarms_at_or_below_the_set_rate():
    """With no slow node, the chance of any flag in a log is at most alpha (Holm over 32 nodes)."""
    n, alpha = 120, 0.1
    hits = sum(bool(len(relmodel.stragglers.find_slow_nodes(relmodel.stragglers.synthetic_steps(**SMALL, n_slow=0, seed=s).log,
                                                 alpha=alpha, min_slowdown=0.0).flagged)) for s in range(n))
    # binomial upper allowance at 3 standard deviations; the test is conservative (about alpha / 2 here)
    assert hits / n <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / n)


def test_transient_bursts_are_not_fail_slow():
    """Frequent 30%-slow bursts of 5 steps on random nodes: none is persistent, none is flagged."""
    flagged = 0
    for seed in range(10):
        syn = relmodel.stragglers.synthetic_steps(**SMALL, n_slow=0, burst_prob=0.01, burst_len=5, burst_slowdown=0.3,
                                       spike_prob=0.01, seed=seed)
        flagged += len(relmodel.stragglers.find_slow_nodes(syn.log, alpha=0.05).flagged)
    assert flagged == 0


def test_rank_level_and_hand_made_log():
    grid = np.ones((200, 6))
    grid[120:, 4] = 1.5  # rank 4 slow from step 120, no noise at all
    log = StepLog(grid / 3600, np.arange(200), np.arange(6))
    found = relmodel.stragglers.find_slow_nodes(log, window=10, alpha=0.05)
    assert found.level == "rank" and found.nodes == [4]
    row = found.flagged.iloc[0]
    assert row["onset_step"] == 120 and row["slowdown"] == pytest.approx(0.5)
    with pytest.raises(ModelInputError):
        relmodel.stragglers.find_slow_nodes(StepLog(grid[:, :2] / 3600, np.arange(200), [0, 1]))
    with pytest.raises(ModelInputError):
        relmodel.stragglers.find_slow_nodes(log, alpha=1.5)


def test_adjusted_pvalues_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04 -> monotone 0.02, 0.03, 0.06, 0.06
    assert list(adjust_pvalues(p, "holm")) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # Benjamini-Hochberg: p * 4 / rank, then the running minimum from the top
    assert list(adjust_pvalues(p, "bh")) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert list(adjust_pvalues(p, "bonferroni")) == pytest.approx([0.04, 0.16, 0.12, 0.02])


def test_saddlepoint_tail_against_exact_convolution():
    """Sum of 6 draws from 10 normal scores: the saddlepoint tail against the exact distribution."""
    v = stats.norm.ppf((np.arange(1, 11) - 0.5) / 10)
    w = np.full(10, 0.1)
    sums = np.zeros(1)
    for _ in range(6):
        sums = (sums[:, None] + v[None, :]).ravel()  # all 10^6 equally likely outcomes
    for q in (1e-2, 1e-3, 1e-4):
        x = np.quantile(sums, 1 - q)
        exact = np.mean(sums >= x - 1e-12)
        assert saddlepoint_sf(np.array([x]), 6, v, w)[0] == pytest.approx(exact, rel=0.35)


def test_bundled_example_flags_exactly_the_planted_nodes():
    log = relmodel.data.example_steps()
    found = relmodel.stragglers.find_slow_nodes(log)
    assert sorted(found.nodes) == [7, 9]  # data/README.md: node 7 from step 300, node 9 from step 800
    onsets = dict(zip(found.flagged["node"], found.flagged["onset_step"]))
    assert abs(onsets[7] - 300) <= 20 and abs(onsets[9] - 800) <= 20
    assert len(found.table()) == 2 and not found.table().isna().any().any()
