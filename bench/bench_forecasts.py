"""Coverage of relmodel's forecasts on real logs: fit on the first 70% of each window, forecast the rest.

    python bench/bench_forecasts.py                                   # bundled logs
    python bench/bench_forecasts.py --shared /work/shared/datasets    # also Grid'5000 and Titan

Logs: LANL's systems one by one (relmodel.datasets.lanl(systems=[k])), StepFun,
the Slurm example in data/ops-example, and, given a folder of the public
datasets, Grid'5000 (FTA) and Titan (GPU failures, DBE and OTB, as a log of
removal times).  For each group it prints the share of held-out outcomes inside
the 50%, 80%, 90% and 95% predictive ranges (failures per log; job MTBF and
ETTR follow the failure count), and the time of the LANL check (target: under
10 s), best of three, loading excluded.

    python bench/bench_forecasts.py --simulated 1000                  # also simulated fleets

With ``--simulated N`` it first fits N logs of each simulated fleet (numpy generators
written here: steady, improving and wearing-out power laws, a change point; expected
failures per log log-uniform between 40 and 400, T = 1,000 h, fitted on 70%) and prints
the share of 90% forecasts that held the rest (target 83-97%).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a clone without installing
import relmodel  # noqa: E402
from relmodel.checkpoint.forecast_check import forecast_check  # noqa: E402

LEVELS = (0.5, 0.8, 0.9, 0.95)


def lanl_logs():
    raw = pd.read_csv(relmodel.datasets.data_dir() / "lanl-1996-2005" / "LA-UR-05-7318-failure-data-1996-2005.csv.xz",
                      usecols=["System"], skipinitialspace=True)
    systems = sorted(int(s) for s in raw["System"].unique())
    return {f"LANL system {k}": relmodel.datasets.lanl(systems=[k]) for k in systems}


def titan_log(folder):
    lives = relmodel.data.bundled.titan.titan(folder)
    failed = lives[lives["observed"]]
    table = pd.DataFrame({"node": failed["location"], "start": failed["remove"]})
    window = (lives["insert"].min(), lives["remove"].max())
    return relmodel.read_log(table, start="start", node="node", window=window, name="Titan GPU failures")


def coverage_line(label, check, quantity="failures"):
    table = check.coverage_at(LEVELS, quantity=quantity)
    cells = "  ".join(f"{100 * c:5.1f}%" for c in table["coverage"])
    n = int(table["forecasts"].iloc[0])
    print(f"  {label:<34s} {n:4d}  {cells}")
    return table


def simulated_coverage(n_logs, seed=0):
    """Share of 90% forecasts of the last 30% that held what happened, per simulated fleet kind."""
    import numpy as np
    from relmodel.stats.forecast import current_rate
    T, cut = 1000.0, 700.0

    def expected(rng):
        return float(np.exp(rng.uniform(np.log(40), np.log(400))))

    def power(rng, beta):
        return np.sort(T * rng.uniform(size=rng.poisson(expected(rng))) ** (1 / beta))

    def change(rng, at=0.35, k=2.5):
        r = expected(rng) / (at + k * (1 - at))
        return np.sort(np.concatenate([rng.uniform(0, at * T, rng.poisson(r * at)),
                                       rng.uniform(at * T, T, rng.poisson(k * r * (1 - at)))]))
    fleets = {"steady": lambda r: power(r, 1.0), "improving (shape 0.6)": lambda r: power(r, 0.6),
              "wear-out (shape 1.6)": lambda r: power(r, 1.6), "wear-out (shape 2)": lambda r: power(r, 2.0),
              "change point (x2.5 at 35%)": change}
    print(f"simulated fleets, {n_logs:,} logs each: share of 90% forecasts that held the last 30% (target 83-97%)")
    for k, (name, gen) in enumerate(fleets.items()):
        rng, hits, t0 = np.random.default_rng(seed + k), 0, time.perf_counter()
        for i in range(n_logs):
            u = gen(rng)
            counts = current_rate(u[u <= cut], window=(0.0, cut)).count_draws([T - cut], 2000, i)[:, 0]
            lo, hi = np.quantile(counts, [0.05, 0.95], method="inverted_cdf")
            hits += bool(lo <= np.sum(u > cut) <= hi)
        print(f"  {name:<30s} {100 * hits / n_logs:5.1f}%   ({time.perf_counter() - t0:.0f} s)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, help="folder of the public datasets (Grid'5000, Titan)")
    parser.add_argument("--split", type=float, default=0.7)
    parser.add_argument("--simulated", type=int, default=0, help="logs per simulated fleet (e.g. 1000)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.simulated:
        simulated_coverage(args.simulated)
    lanl = lanl_logs()
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        check = forecast_check(lanl, split=args.split, conf=0.9, seed=0)
        best = min(best, time.perf_counter() - t0)
    print(f"forecast check of {len(lanl)} LANL systems: {best:.2f} s (target under 10 s)")
    print(f"\n  {'logs':<34s} {'n':>4s}  " + "  ".join(f"{100 * c:5.0f}%" for c in LEVELS))
    coverage_line("LANL systems, failures", check)
    coverage_line("LANL systems, job MTBF", check, "job_mtbf")
    others = {"StepFun": relmodel.datasets.stepfun(),
              "Slurm example": relmodel.read_sacct(relmodel.datasets.data_dir() / "ops-example" / "sacct.txt")}
    if args.shared:
        others["Grid'5000"] = relmodel.datasets.grid5000(args.shared / "grid5000-fta")
        others["Titan"] = titan_log(args.shared / "titan-gpu-life")
    for name, log in others.items():
        one = forecast_check({name: log}, split=args.split, conf=0.9, seed=0)
        coverage_line(name, one)
        if name == "Slurm example":
            coverage_line("Slurm example, ETTR", one, "ettr")
        print(f"    {one.text(name)}")
    every = forecast_check({**lanl, **others}, split=args.split, conf=0.9, seed=0)
    coverage_line("every log, failures", every)


if __name__ == "__main__":
    main()
