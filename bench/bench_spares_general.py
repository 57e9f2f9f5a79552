"""Spares with finite crews under a general repair law: the simulated M/G/c pool against the M/M/c closed form.

    python bench/bench_spares_general.py

At 100,000 GPUs (12,500 nodes of 8) with a node MTBF of 26,000 h (0.48 node failures an hour)
and log-normal repairs of mean 100 h and sigma 1.5 on 52 crews (48 Erlangs), relmodel.spare_pool
sizes the pool from the repair law's whole distribution. Printed side by side: the M/M/c closed
form's time and count (the anchor: what the pool was sized with before, and what an outsider's
Erlang-C spreadsheet gives), the simulated answer's time and count, and the share of failures that
would find no spare with the M/M/c count, read off the simulated law. Target: the general-law
answer in under 2 s of CPU.
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import Targets  # noqa: E402

from relmodel.scale.sparing.general_repairs import away_tail  # noqa: E402
from relmodel.scale.sparing.spares import spare_pool  # noqa: E402


class LogNormal:
    def __init__(self, mean_h, sigma):
        self.mean_h, self.sigma = mean_h, sigma

    def sample(self, n, rng=None):
        return np.random.default_rng(rng).lognormal(np.log(self.mean_h) - self.sigma ** 2 / 2, self.sigma, size=n)


def main():
    nodes = 100_000 // 8
    lam = nodes / 26_000.0
    law, crews = LogNormal(100.0, 1.5), 52
    t0 = time.process_time()
    mmc = spare_pool(lam, 100.0, 0.01, crews=crews)
    t_mmc = time.process_time() - t0
    t0 = time.process_time()
    plan = spare_pool(lam, law, 0.01, crews=crews)
    t_gen = time.process_time() - t0
    tail = away_tail(lam, law, crews, seed=1)
    print(f"{nodes:,} nodes, {lam:.3f} failures an hour, {lam * 100:.1f} Erlangs, {crews} crews, log-normal sigma 1.5")
    print(f"  M/M/c closed form : {mmc.n_spares:5,} spares  {t_mmc * 1e3:8.1f} ms CPU; with the real law a failure "
          f"finds none {tail[mmc.n_spares]:.1%} of the time")
    print(f"  M/G/c simulated   : {plan.n_spares:5,} spares  {t_gen * 1e3:8.1f} ms CPU; finds none "
          f"{plan.p_no_spare:.2%} of the time")
    targets = Targets("spares_general")
    targets.add("general-law spare pool at 100,000 GPUs, CPU seconds", t_gen, 2.0, unit="s", higher=False)
    sys.exit(targets.report())


if __name__ == "__main__":
    main()
