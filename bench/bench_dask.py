"""Sweeps on Dask: a 2-worker LocalCluster against 1 worker, and sweep_grid throughput.

1. A 16-report sweep (notebook 03 over 16 values of n_gpus, small simulation) on a
   LocalCluster of 2 single-threaded worker processes against 1. Target: >= 1.7x.
2. A 10^4-combination sweep_grid on 2 workers against 1 (chunks of 2,500 rows), and a
   larger grid where the computation, not the scheduling, dominates.
3. sweep_grid combinations per second on one core, no executor (no simulation).
   Target: >= 10^4 per second. For scale, the same numbers from the scalar functions
   people would otherwise call in a loop (scale_job_mtbf, optimal_interval, ettr,
   required_node_mtbf) on a sample of rows.

Usage: python bench/bench_dask.py [--quick]   (--quick: 4 reports, smaller grids)
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone without installing

import numpy as np  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import relmodel  # noqa: E402
from timing import Targets  # noqa: E402
from relmodel.report import render  # noqa: E402
from relmodel.scale.targets import grid as G  # noqa: E402


def cluster(n):
    return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                        dashboard_address="127.0.0.1:0")


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def report_sweep(client, n_reports):
    values = [4096 * (k + 1) for k in range(n_reports)]
    with tempfile.TemporaryDirectory() as tmp:
        return timed(lambda: render(notebooks=["03"], params={"n_runs": 20, "work": "5d"},
                                    sweep={"n_gpus": values}, out=Path(tmp) / "sw", executor=client))


def grid_of(n):
    side = int(round(n ** 0.25))
    return {"n_gpus": [2 ** k for k in range(10, 10 + side)],
            "ckpt_cost": np.linspace(10, 600, side).tolist(),  # seconds, written as "…s" below
            "restart": [f"{m}min" for m in np.linspace(1, 30, side).round(2)],
            "target_ettr": np.linspace(0.5, 0.99, side).tolist()}


def make_grid(n):
    g = grid_of(n)
    g["ckpt_cost"] = [f"{s:.3f}s" for s in g["ckpt_cost"]]
    return g


def len_of(grid):
    return int(np.prod([len(v) for v in grid.values()]))


def grid_time(client, grid, chunk):
    G.CHUNK = chunk
    client.submit(lambda: None).result()  # workers up
    return min(timed(lambda: relmodel.scale.sweep_grid(grid, executor=client)) for _ in range(3))


def scalar_rate(llama3, df, k=200):
    from relmodel.checkpoint import ettr, optimal_interval
    from relmodel.errors import InfeasibleTargetError
    from relmodel.scale.targets.requirements import required_node_mtbf
    from relmodel.scale.clusters.scaling import scale_job_mtbf, scale_rates

    rows = df.sample(k, random_state=0)
    t0 = time.perf_counter()
    for row in rows.itertuples():
        m = scale_job_mtbf(llama3, int(row.n_gpus))
        tau = optimal_interval(m, row.ckpt_cost_h)
        ettr(tau, m, row.ckpt_cost_h, row.restart_h)
        fixed = scale_rates(llama3, target_cluster=int(row.n_gpus), n_boot=1, seed=0).rate_of("job")
        try:
            required_node_mtbf(int(row.n_gpus), row.target_ettr, row.ckpt_cost_h, row.restart_h,
                               fixed_rate_per_h=fixed)
        except InfeasibleTargetError:
            pass
    return k / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n_reports = 4 if args.quick else 16
    small, big = (10**4, 10**5) if args.quick else (10**4, 10**6)
    grid_small, grid_big = make_grid(small), make_grid(big)
    print(f"grid sizes: {np.prod([len(v) for v in grid_small.values()]):,} and "
          f"{np.prod([len(v) for v in grid_big.values()]):,} combinations")

    targets = Targets("dask")
    times = {}
    for n in (1, 2):
        with cluster(n) as c, Client(c) as client:
            times[n] = {"reports": report_sweep(client, n_reports),
                        "grid_small": grid_time(client, grid_small, 2_500),
                        "grid_big": grid_time(client, grid_big, 1 + len_of(grid_big) // 8)}
    G.CHUNK = 20_000
    print(f"{'task':38s} {'1 worker':>10s} {'2 workers':>10s} {'speed-up':>9s}")
    labels = {"reports": f"{n_reports}-report sweep (notebook 03)", "grid_small": "sweep_grid, 10^4 combinations",
              "grid_big": "sweep_grid, large grid"}
    for key, label in labels.items():
        print(f"{label:38s} {times[1][key]:9.2f}s {times[2][key]:9.2f}s {times[1][key] / times[2][key]:8.2f}x")

    t = min(timed(lambda: relmodel.scale.sweep_grid(grid_small)) for _ in range(5))
    df = relmodel.scale.sweep_grid(grid_small)
    rate = len(df) / t
    loop = scalar_rate(relmodel.datasets.llama3_54day(), df)
    print(f"sweep_grid on one core, no executor: {rate:,.0f} combinations/s (target >= 10,000)")
    print(f"scalar functions in a Python loop:   {loop:,.0f} combinations/s; sweep_grid is "
          f"{rate / loop:,.0f}x faster")
    targets.add("sweep_grid combinations per second, one core", rate, 10_000, "per s")
    return targets.report()


if __name__ == "__main__":
    sys.exit(main())
