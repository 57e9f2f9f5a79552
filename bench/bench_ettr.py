"""Speed of the closed-form checkpoint models over large grids.

    python bench/bench_ettr.py            # 1000 x 1000 grid
    python bench/bench_ettr.py --quick    # 300 x 300 grid

Timed, side by side in one process:
1. relmodel.ettr over an interval x MTBF grid, against the same formula
   evaluated point by point with the math module (the plain-Python way);
2. relmodel.optimal_interval (Lambert W) against scipy.optimize.minimize_scalar
   run per point on the wall-time model (the library way without the closed
   form), on a sample of points; the two optima are compared;
3. relmodel.checkpoint.time_breakdown over the same grid.
Relmodel timings are the best of three runs; references run once.
"""

import argparse
import math
import sys
import time
import warnings

import numpy as np
from scipy import optimize

import relmodel
from timing import Targets, best_of  # noqa: E402


def row(label, seconds, points, ref=None):
    ratio = f"{ref / seconds:9.1f}x" if ref else " " * 10
    print(f"  {label:<52s} {seconds:9.4f} s {points / seconds:12.3g} pts/s {ratio}")


def ettr_loop(taus, mtbfs, d, r):
    return [[t / (m * math.exp(r / m) * math.expm1((t + d) / m)) for t in taus] for m in mtbfs]


def optimum_scipy(m, d):
    res = optimize.minimize_scalar(lambda t: -t / math.expm1((t + d) / m), bounds=(1e-9, 20 * m),
                                   method="bounded", options={"xatol": 1e-9 * m})
    return res.x


def main(quick=False):
    n = 300 if quick else 1000
    taus = np.geomspace(1 / 60, 24, n)
    mtbfs = np.geomspace(0.1, 1000, n)
    t2d, m2d = taus[None, :], mtbfs[:, None]
    d, r = 45 / 3600, 10 / 60
    print(f"grid {n} x {n} = {n * n:,} points")
    t_vec, e = best_of(lambda: relmodel.ettr(t2d, m2d, d, r))
    k = 100
    t_loop, e_loop = best_of(lambda: ettr_loop(taus, mtbfs[:k], d, r), 1)
    t_loop_full = t_loop * n / k
    assert np.allclose(e[:k], np.array(e_loop), rtol=1e-12)
    row("plain Python ettr (math module, extrapolated)", t_loop_full, n * n)
    row("relmodel.ettr", t_vec, n * n, t_loop_full)
    t_bd, _ = best_of(lambda: relmodel.checkpoint.time_breakdown(100.0, t2d, m2d, d, r))
    row("relmodel.checkpoint.time_breakdown", t_bd, n * n, t_loop_full)

    ds = np.geomspace(1e-3, 1.0, n)
    mm, dd = np.meshgrid(mtbfs, ds)
    warnings.simplefilter("ignore", relmodel.errors.ArgumentOrderWarning)  # the grid has costs above the MTBF
    t_opt, tau_star = best_of(lambda: relmodel.optimal_interval(mm, dd))
    idx = np.random.default_rng(0).choice(mm.size, 300, replace=False)
    t_sc, tau_sc = best_of(lambda: [optimum_scipy(mm.flat[i], dd.flat[i]) for i in idx], 1)
    t_sc_full = t_sc * mm.size / idx.size
    rel = np.max(np.abs(np.array(tau_sc) / tau_star.flat[idx] - 1))
    row("scipy minimize_scalar per point (extrapolated)", t_sc_full, mm.size)
    row("relmodel.optimal_interval (Lambert W)", t_opt, mm.size, t_sc_full)
    print(f"\n  largest relative difference of the optima: {rel:.2e}")
    print(f"  ettr over the {n} x {n} grid: {t_vec:.3f} s (target < 0.5 s for 1000 x 1000)")
    targets = Targets("ettr")
    targets.add("ettr grid points per second (0.5 s for 10^6)", n * n / t_vec, 2e6, "per s")
    return targets.report()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller grid")
    sys.exit(main(ap.parse_args().quick))
