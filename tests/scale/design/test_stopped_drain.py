"""Whole racks under a stopped job: the closed form against an exact Markov chain written here.

Every rack (the job's and the hot spare's) takes faults at ``rate`` per hour while the job runs, each
repaired after an exponential time; a rack is out while any of its faults is in repair; the job waits while
more racks are out than there are spares, and nothing fails while it waits.  The chain's state is how many
racks hold 0, 1, ..., C faults (C = 6: the chance of a seventh is below 1e-9 here); its stationary law is
solved exactly.  Before the drain correction the closed form was +3.6% relative here (0.1408 for 0.1358).
"""

import itertools

import numpy as np
import pytest
from scipy import sparse, stats
from scipy.sparse.linalg import spsolve

from relmodel.scale.design.compound import DomainModel, closed_form

CAP = 6


def _states(n, parts):
    for cut in itertools.combinations(range(n + parts - 1), parts - 1):
        edges = (-1,) + cut + (n + parts - 1,)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def exact_stalled(racks, spares, rate, mean_repair):
    states = list(_states(racks, CAP + 1))
    index = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []
    for s in states:
        stalled = racks - s[0] > spares
        for c in range(CAP + 1):
            if not s[c]:
                continue
            for dc, r in ((1, 0.0 if stalled or c == CAP else rate), (-1, c / mean_repair if c else 0.0)):
                if r > 0:
                    t = list(s)
                    t[c] -= 1
                    t[c + dc] += 1
                    rows.append(index[s])
                    cols.append(index[tuple(t)])
                    vals.append(s[c] * r)
    n = len(states)
    q = sparse.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    q = q - sparse.diags(np.asarray(q.sum(axis=1)).ravel())
    a = q.T.tolil()
    a[0, :] = 1.0
    b = np.zeros(n)
    b[0] = 1.0
    pi = spsolve(a.tocsr(), b)
    return float(sum(p for s, p in zip(states, pi) if racks - s[0] > spares))


def _model(job_racks, spares, rate):
    return DomainModel(groups=job_racks, trays=18, pool=spares, tray_rate=rate / 18, pool_rate=rate)


@pytest.mark.parametrize("job_racks,spares,rate,tol", [
    (7, 1, 0.0041, 0.012),     # Llama 3-like trays at 5,000 h plus 5e5 FIT a rack; truncation +3.6%
    (7, 0, 0.0041, 1e-6),      # no spare: every wait is one rack draining, exact
    (5, 2, 0.01, 0.04),        # heavier load; truncation +8.5%
])
def test_stalled_share_of_whole_racks_against_the_exact_chain(job_racks, spares, rate, tol):
    exact = exact_stalled(job_racks + spares, spares, rate, 24.0)
    ours = closed_form(_model(job_racks, spares, rate), 24.0)["stall_share"]
    q = -np.expm1(-rate * 24.0)
    pm = stats.binom.pmf(np.arange(job_racks + spares + 1), job_racks + spares, q)
    truncated = pm[spares + 1] / pm[:spares + 2].sum()
    assert abs(ours / exact - 1) < tol
    if spares:
        assert abs(truncated / exact - 1) > 2 * abs(ours / exact - 1)   # the correction is most of the error
