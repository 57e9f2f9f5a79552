"""Speed of the nonparametric estimators against lifelines, side by side.

    python bench/bench_nonparam.py            # 20,000 censored durations, 3 causes
    python bench/bench_nonparam.py --quick    # 3,000

Timed in one process on the same data:
1. relmodel.stats.cumulative_incidence (all causes, with variance and bands) against
   lifelines' AalenJohansenFitter run once per cause (tie-free data, so
   lifelines does not jitter); the largest difference in the curves is printed;
2. relmodel.stats.kaplan_meier and relmodel.stats.nelson_aalen (thin wrappers) against
   lifelines' fitters, to show the wrapping costs little;
3. relmodel.stats.mcf on a fleet of 2,000 nodes (no lifelines equivalent), timed alone.
Relmodel timings are the best of three runs; references run once.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from lifelines import AalenJohansenFitter, KaplanMeierFitter, NelsonAalenFitter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a clone without installing
import relmodel  # noqa: E402
from timing import Targets, best_of, once  # noqa: E402

#: Each relmodel row must be at least as fast as the library beside it.
TARGETS = Targets("nonparam")


def row(label, seconds, ref=None):
    ratio = f"{ref / seconds:9.1f}x" if ref else " " * 10
    print(f"  {label:<58s} {seconds:9.4f} s {ratio}")
    if ref:
        TARGETS.add(f"{label} against the reference", ref / seconds, 1.0)


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.weibull(0.8, n) * 100
    c = rng.uniform(0, 400, n)
    cause = rng.choice(["GPU", "network", "host"], n, p=[0.6, 0.25, 0.15])
    obs = t <= c
    return np.minimum(t, c), obs, np.where(obs, cause, None)


def bench_cif(h, obs, cause):
    ours_s, ours = best_of(lambda: relmodel.stats.cumulative_incidence(h, cause))
    codes = pd.Series(cause).map({"GPU": 1, "network": 2, "host": 3}).fillna(0).astype(int)

    def lifelines_all():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [AalenJohansenFitter().fit(h, codes, event_of_interest=j) for j in (1, 2, 3)]

    ref_s, refs = once(lifelines_all)
    diff = max(np.max(np.abs(ours[c](r.cumulative_density_.index.to_numpy()) - r.cumulative_density_.iloc[:, 0]))
               for c, r in zip(["GPU", "network", "host"], refs))
    row("cumulative_incidence, 3 causes (lifelines AalenJohansen)", ref_s)
    row("relmodel.stats.cumulative_incidence", ours_s, ref_s)
    print(f"  largest difference in incidence: {diff:.2e}")


def bench_wrappers(h, obs):
    for name, ours_fn, ref_fn in [
        ("kaplan_meier", lambda: relmodel.stats.kaplan_meier(h, observed=obs), lambda: KaplanMeierFitter().fit(h, obs)),
        ("nelson_aalen", lambda: relmodel.stats.nelson_aalen(h, observed=obs),
         lambda: NelsonAalenFitter(nelson_aalen_smoothing=False).fit(h, obs)),
    ]:
        ref_s, _ = once(ref_fn)
        ours_s, _ = best_of(ours_fn)
        row(f"lifelines for {name}", ref_s)
        row(f"relmodel.{name}", ours_s, ref_s)


def bench_mcf(n_events, seed=1):
    rng = np.random.default_rng(seed)
    nodes = rng.integers(0, 2000, n_events)
    times = rng.uniform(0, 8000, n_events)
    s, res = best_of(lambda: relmodel.stats.mcf(times, node=nodes, end=8000.0, n_systems=2000))
    row(f"relmodel.stats.mcf, {n_events} events on 2000 nodes", s)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args()
    n = 3000 if args.quick else 20000
    h, obs, cause = data(n)
    print(f"nonparametric estimators on {n} censored durations ({obs.sum()} failures)")
    print(f"  {'what':<58s} {'time':>11s} {'speed-up':>10s}")
    bench_cif(h, obs, cause)
    bench_wrappers(h, obs)
    bench_mcf(n)
    return TARGETS.report()


if __name__ == "__main__":
    sys.exit(main())
