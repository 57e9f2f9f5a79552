"""Speed of rate comparison, fleet priors and change points against the generic scipy route.

    python bench/bench_fleets.py            # 5,000 comparisons, 400 fleets, the LANL log
    python bench/bench_fleets.py --quick    # 500 comparisons, 100 fleets, the StepFun log

Timed in one process on the same data:
1. relmodel's exact rate-ratio test (p-value and interval) against
   scipy.stats.binomtest with proportion_ci(method="exact"), pair by pair;
   the largest difference in p-values is printed;
2. relmodel.stats.fleet_prior against Nelder-Mead on the summed
   scipy.stats.nbinom.logpmf (the obvious hand-rolled route); the
   relative difference in the fitted shape is printed;
3. relmodel.stats.rate_changes on a real log, timed alone (no scipy equivalent).
Relmodel timings are the best of three runs; references run once.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a clone without installing
import relmodel  # noqa: E402
from relmodel.stats.rates.comparison import rate_ratio_test  # noqa: E402
from timing import Targets, best_of, once  # noqa: E402

#: Each relmodel row must be at least as fast as the library beside it.
TARGETS = Targets("fleets")


def row(label, seconds, ref=None):
    ratio = f"{ref / seconds:9.1f}x" if ref else " " * 10
    print(f"  {label:<58s} {seconds:9.4f} s {ratio}")
    if ref:
        TARGETS.add(f"{label} against the reference", ref / seconds, 1.0)


def bench_ratio(n, seed=0):
    rng = np.random.default_rng(seed)
    ka, kb = rng.poisson(30, n), rng.poisson(45, n)
    ea, eb = rng.uniform(500, 1500, n), rng.uniform(800, 2000, n)

    def ours():
        return [rate_ratio_test(a, x, b, y) for a, x, b, y in zip(ka, ea, kb, eb)]

    def scipy_route():
        out = []
        for a, x, b, y in zip(ka, ea, kb, eb):
            t = stats.binomtest(int(a), int(a + b), x / (x + y))
            out.append((t.pvalue, t.proportion_ci(method="exact")))
        return out

    ref_s, ref = once(scipy_route)
    ours_s, res = best_of(ours)
    diff = max(abs(r[3] - s[0]) for r, s in zip(res, ref))
    row(f"{n} rate ratios: scipy binomtest + exact CI", ref_s)
    row("relmodel rate_ratio_test", ours_s, ref_s)
    print(f"  largest difference in p-values: {diff:.1e}")


def bench_prior(n, seed=1):
    rng = np.random.default_rng(seed)
    e = rng.uniform(2e4, 2e5, n) * 24
    k = rng.poisson(rng.gamma(3.0, 5e-3 / 24 / 3.0, n) * e)

    def scipy_route():
        def nll(x):
            shape, mean = np.exp(x)
            b = shape / mean
            return -stats.nbinom.logpmf(k, shape, b / (b + e)).sum()
        return optimize.minimize(nll, [0.0, np.log(k.sum() / e.sum())], method="Nelder-Mead",
                                 options={"xatol": 1e-8, "fatol": 1e-9, "maxiter": 4000})

    ref_s, ref = once(scipy_route)
    ours_s, prior = best_of(lambda: relmodel.stats.fleet_prior(list(zip(k, e))))
    row(f"{n} fleets: Nelder-Mead on scipy nbinom.logpmf", ref_s)
    row("relmodel.stats.fleet_prior", ours_s, ref_s)
    print(f"  relative difference in shape: {abs(prior.shape / np.exp(ref.x[0]) - 1):.1e}")


def bench_changes(quick):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = relmodel.datasets.stepfun() if quick else relmodel.datasets.lanl()
    s, res = best_of(lambda: relmodel.stats.rate_changes(log))
    row(f"relmodel.stats.rate_changes, {len(log.interruptions()):,} events, {res.counts.size} bins", s)
    print(f"  {res.n_changes} changes found")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    print("rate comparison, fleet prior and change points (higher ratio = relmodel faster)")
    bench_ratio(500 if args.quick else 5000)
    bench_prior(100 if args.quick else 400)
    bench_changes(args.quick)
    return TARGETS.report()


if __name__ == "__main__":
    sys.exit(main())
