"""The plain numpy reference of Daly's model the checkpoint tests compare the engines with.

Every running replica moves one event (a failure or a segment's end) per step; exponential failures.
"""

import numpy as np


def lockstep_walls(work, tau, d, r, mtbf, replicas, seed):
    """(wall hours, failures) of each replica: every running replica one event forward per step."""
    rng = np.random.default_rng(seed)
    t, done = np.zeros(replicas), np.zeros(replicas)
    nfail = np.zeros(replicas, dtype=np.int64)
    next_fail = rng.exponential(mtbf, replicas)
    restarting = np.zeros(replicas, bool)
    live = np.arange(replicas)
    while live.size:
        rs = restarting[live]
        seg = np.where(rs, r, np.minimum(tau, work - done[live]) + d)
        hit = next_fail[live] < t[live] + seg
        t[live] = np.where(hit, next_fail[live], t[live] + seg)
        nfail[live] += hit
        done[live] += np.where(rs | hit, 0.0, seg - d)
        restarting[live] = hit
        redraw = live[hit]
        next_fail[redraw] = t[redraw] + rng.exponential(mtbf, redraw.size)
        live = live[restarting[live] | (done[live] < work - 1e-12)]
    return t, nfail
