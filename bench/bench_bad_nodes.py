"""Bad nodes on a big log: relmodel.bad_nodes on 5,000,000 outages of 100,000 nodes, beside statsmodels' NB.

    python bench/bench_bad_nodes.py            # 100,000 nodes, about 5,000,000 outages over a year
    python bench/bench_bad_nodes.py --quick    # 10,000 nodes, about 500,000 outages

The log is generated here (seeded, plain numpy, in chunks of nodes): each node
is bad with probability 0.05 (failing 10 times as often), a bad node's repair
leaves the fault in place half the time, repairs take a few hours; the good
rate is set so the log holds about 50 outages a node.  Timed separately:

1. reading: ``relmodel.read_log`` of the DataFrame (every validation rule);
2. estimating: ``relmodel.bad_nodes`` on the log read (intervals, the
   two-class fit with its intervals, the NB test, the worst-k envelope: 39
   draws at 100,000 nodes); the target is under 2 CPU seconds (the wall
   seconds follow the machine's load);
3. the overdispersion part alone: relmodel's Poisson-against-NB test on the
   per-node counts and hours, beside statsmodels' ``NegativeBinomial`` (NB2,
   with the exposures) fitted to the same counts, when statsmodels is
   installed (the bench extra: ``pip install -e .[bench]``; relmodel does not need it).

The machine's load average is printed, and CPU seconds beside wall seconds: on
a shared machine run it twice.  ``--stages`` adds the CPU seconds of each stage
of ``bad_nodes`` run one by one (intervals, path arrays, two-class fit, NB
test, worst-k envelope).
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a clone without installing
import relmodel  # noqa: E402
from relmodel.stats.nodes.dispersion import dispersion_test  # noqa: E402
from relmodel.stats.nodes.intervals import node_intervals  # noqa: E402

YEAR = 8760.0
TRUTH = {"bad_share": 0.05, "multiplier": 10.0, "unfixed": 0.5}


def _chunk(rng, nodes, first, lam, cols):
    """Outages of ``nodes`` nodes (names from ``first``): up to ``cols`` per node, kept while inside the year."""
    bad_for = np.where(rng.random(nodes) < TRUTH["bad_share"], rng.geometric(1 - TRUTH["unfixed"], nodes), 0)
    k = np.arange(cols)[None, :]
    rate = np.where(k < bad_for[:, None], TRUTH["multiplier"] * lam, lam)
    up = rng.exponential(1.0, (nodes, cols)) / rate
    repair = rng.exponential(4.0, (nodes, cols))
    start = np.cumsum(up + repair, axis=1) - repair
    keep = start < YEAR
    node = np.broadcast_to(np.arange(first, first + nodes)[:, None], (nodes, cols))[keep]
    return node, start[keep], (start + repair)[keep]


def generate(n_nodes, per_node=50, seed=0):
    """The event table (node, start, end in hours) of ``n_nodes`` nodes over a year."""
    rng = np.random.default_rng(seed)
    lam = per_node / YEAR
    parts = [_chunk(rng, min(10_000, n_nodes - i), i, lam, int(per_node * 2.5) + 40)
             for i in range(0, n_nodes, 10_000)]
    node, start, end = (np.concatenate(x) for x in zip(*parts))
    order = np.argsort(start, kind="stable")
    return pd.DataFrame({"node": node[order], "start": start[order], "end": end[order]}), lam


def statsmodels_nb(y, e):
    """statsmodels' NB2 fit of the counts with log exposures: (seconds, alpha, LR against Poisson), or None."""
    try:
        import statsmodels.api as sm
    except ImportError:
        return None
    x = np.ones((y.size, 1))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nb = sm.NegativeBinomial(y, x, exposure=e).fit(disp=0)
        po = sm.Poisson(y, x, exposure=e).fit(disp=0)
    seconds = time.perf_counter() - t0
    return seconds, float(nb.params[-1]), 2 * (nb.llf - po.llf)


def stages(log):
    """CPU seconds of each stage of bad_nodes on ``log`` (a known population), run one by one."""
    from relmodel.stats.nodes.dispersion import worst_shares
    from relmodel.stats.nodes.estimate import _fleet_paths
    from relmodel.stats.nodes.twoclass import fit_twoclass

    log._merged_cache = None   # the intervals from the events, as bad_nodes met them
    c0 = time.process_time()
    iv = node_intervals(log)
    fails, expo = iv.failures, iv.exposure_h
    c1 = time.process_time()
    p = _fleet_paths(iv, log.n_nodes, fails > 0)
    c2 = time.process_time()
    fit_twoclass(p, details=True)
    c3 = time.process_time()
    dispersion_test(fails.astype(float), expo, np.ones(fails.size), truncated=False)
    c4 = time.process_time()
    worst_shares(fails, expo, 0, iv.window_h, False, seed=0)
    c5 = time.process_time()
    for name, s in (("node intervals", c1 - c0), ("path arrays", c2 - c1), ("two-class fit, information", c3 - c2),
                    ("NB test", c4 - c3), ("worst-k envelope", c5 - c4)):
        print(f"    {name:<45s}{s:8.2f} s CPU")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10,000 nodes instead of 100,000")
    ap.add_argument("--nodes", type=int, default=None)
    ap.add_argument("--stages", action="store_true", help="CPU seconds of each stage of bad_nodes")
    args = ap.parse_args()
    n_nodes = args.nodes or (10_000 if args.quick else 100_000)
    print(f"load average: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    t0 = time.perf_counter()
    df, lam = generate(n_nodes)
    print(f"generated {len(df):,} outages on {n_nodes:,} nodes in {time.perf_counter() - t0:.1f} s")
    t0, c0 = time.perf_counter(), time.process_time()
    log = relmodel.read_log(df, start="start", end="end", node="node", time_unit="h", window=(0.0, YEAR),
                            n_nodes=n_nodes)
    read_s, read_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    r = relmodel.bad_nodes(log, seed=0)
    fit_s, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"  read_log (reading)                               {read_s:8.2f} s wall {read_cpu:8.2f} s CPU")
    print(f"  bad_nodes (estimating; target under 2 s CPU)     {fit_s:8.2f} s wall {fit_cpu:8.2f} s CPU   "
          f"{'met' if fit_cpu < 2 else 'NOT met'}")
    e = r.estimates.set_index("parameter")
    for name, truth in (("bad_share", TRUTH["bad_share"]), ("multiplier", TRUTH["multiplier"]), ("lam", lam),
                        ("unfixed", TRUTH["unfixed"])):
        print(f"    {name:<11s} truth {truth:10.4g}   fit {e.loc[name, 'value']:10.4g} "
              f"({e.loc[name, 'low']:.4g} to {e.loc[name, 'high']:.4g})")
    if args.stages:
        stages(log)
    iv = node_intervals(log)
    y, expo = iv.failures.astype(float), iv.exposure_h
    t0 = time.perf_counter()
    d = dispersion_test(y, expo, np.ones(y.size), truncated=False)
    ours = time.perf_counter() - t0
    print(f"  overdispersion, relmodel (NB LR test, profile interval of d)  {ours:8.3f} s   d = {d.d:.4g}, "
          f"LR = {d.lr:.1f}")
    ref = statsmodels_nb(y, expo)
    if ref is None:
        print("  overdispersion, statsmodels: not installed (pip install statsmodels to compare)")
    else:
        print(f"  overdispersion, statsmodels NegativeBinomial + Poisson fits    {ref[0]:8.3f} s   alpha = "
              f"{ref[1]:.4g}, LR = {ref[2]:.1f}   ({ref[0] / ours:.1f}x relmodel's time)")


if __name__ == "__main__":
    main()
