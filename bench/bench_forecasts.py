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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, help="folder of the public datasets (Grid'5000, Titan)")
    parser.add_argument("--split", type=float, default=0.7)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
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
