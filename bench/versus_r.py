"""Cox, Weibull AFT and Gray's test timed beside R (or lifelines without Rscript), for bench_regression.py.

Both sides read the same CSV; each times its fit alone (best of three).  R's coefficients are
read back and compared with relmodel's.
"""

import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import relmodel
from timing import best_of

__all__ = ["side_by_side"]

R_FITS = r"""
suppressMessages({library(survival); library(cmprsk)})
args <- commandArgs(TRUE)
d <- read.csv(args[1]); cc <- read.csv(args[2])
best <- function(f) { t <- Inf; for (i in 1:3) t <- min(t, system.time(f())[["elapsed"]]); t }
cox <- coxph(Surv(time, status) ~ a + b + c + d + e, data = d)
aft <- survreg(Surv(time, status) ~ a + b + c + d + e, data = d)
g <- cuminc(cc$time, cc$cause, cc$group, cencode = 0)
tc <- best(function() coxph(Surv(time, status) ~ a + b + c + d + e, data = d))
ta <- best(function() survreg(Surv(time, status) ~ a + b + c + d + e, data = d))
tg <- best(function() cuminc(cc$time, cc$cause, cc$group, cencode = 0))
cat("times", tc, ta, tg, "\n")
cat("cox", sprintf("%.12g", coef(cox)), "\n")
cat("aft", sprintf("%.12g", coef(aft)[-1]), "\n")
cat("gray", sprintf("%.12g", g$Tests[1, 1]), "\n")
"""

R_TITAN = r"""
suppressMessages(library(survival))
d <- read.csv(xzfile(commandArgs(TRUE)[1])); old <- subset(d, batch == "old")
best <- function(f) { t <- Inf; for (i in 1:3) t <- min(t, system.time(f())[["elapsed"]]); t }
t1 <- best(function() coxph(Surv(years, dead) ~ factor(cage) + batch, data = d))
t2 <- best(function() coxph(Surv(years, dead) ~ factor(cage) + strata(batch), data = d))
t3 <- best(function() coxph(Surv(years, dead) ~ factor(col) + factor(row) + factor(cage) + factor(slot) +
                            factor(node), data = old))
cat("times", t1, t2, t3, "\n")
"""


def _data(n, rng):
    x = rng.normal(size=(n, 5))
    t = rng.weibull(1.3, n) * 100 * np.exp(-x @ np.array([0.2, -0.1, 0.3, 0.0, 0.1]))
    c = rng.uniform(0, 200, n)
    d = pd.DataFrame(x, columns=list("abcde")).assign(time=np.minimum(t, c), status=(t <= c).astype(int))
    g = rng.choice(["g1", "g2", "g3"], n)
    t1, t2, cens = rng.exponential(np.where(g == "g1", 30, 45)), rng.exponential(60, n), rng.uniform(0, 100, n)
    tt = np.minimum.reduce([t1, t2, cens])
    cc = pd.DataFrame({"time": tt, "cause": np.where(tt == cens, 0, np.where(tt == t1, 1, 2)), "group": g})
    return d, cc


def _rscript(code, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as f:
        f.write(code)
    try:
        done = subprocess.run(["Rscript", f.name, *map(str, args)], capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"Rscript failed: {done.stderr.strip()[-500:]}")
        out = done.stdout
    finally:
        os.unlink(f.name)
    return {line.split()[0]: [float(v) for v in line.split()[1:]] for line in out.splitlines() if line.strip()}


def _ours(d, cc):
    t_cox, cox = best_of(lambda: relmodel.stats.regress(d, list("abcde"), duration="time", observed="status"))
    t_aft, aft = best_of(lambda: relmodel.stats.regress(d, list("abcde"), "weibull_aft", duration="time", observed="status"))
    gcc = cc.assign(cause=cc["cause"].where(cc["cause"] > 0))
    t_gray, gray = best_of(lambda: relmodel.stats.gray_test(gcc, "group", "cause", 1, duration="time", seed=0))
    return (t_cox, t_aft, t_gray), (cox.coefficients["coef"].to_numpy(), aft.coefficients["coef"].to_numpy(), gray.statistic)


def _lifelines(d):
    from lifelines import CoxPHFitter, WeibullAFTFitter

    cols = list("abcde") + ["time", "status"]
    t_cox, cox = best_of(lambda: CoxPHFitter().fit(d[cols], "time", "status"), 1)
    t_aft, aft = best_of(lambda: WeibullAFTFitter().fit(d[cols], "time", "status"), 1)
    return (t_cox, t_aft), (cox.params_.to_numpy(), aft.params_["lambda_"].drop("Intercept").to_numpy())


def _titan(rows, have_r):
    repo = Path(__file__).resolve().parents[1]
    places = [Path(os.environ["RELMODEL_TITAN"])] if os.environ.get("RELMODEL_TITAN") else []
    places += [up / "shared" / "datasets" / "titan-gpu-life" for up in (repo.parent, repo.parent.parent)]
    file = next((p / "gc_summary_loc.csv.xz" for p in places if (p / "gc_summary_loc.csv.xz").exists()),
                places[-1] / "gc_summary_loc.csv.xz")
    if not (file.exists() and have_r):
        print("  Titan models: skipped (no Titan lives or no Rscript)")
        return
    d = pd.read_csv(file, dtype={"SN": str})
    kw = dict(duration="years", observed="dead", categorical=["cage", "col", "row", "slot", "node"])
    old = d[d["batch"] == "old"]
    ours = [best_of(lambda: relmodel.stats.regress(d, ["cage", "batch"], **kw))[0],
            best_of(lambda: relmodel.stats.regress(d, ["cage"], strata="batch", **kw))[0],
            best_of(lambda: relmodel.stats.regress(old, ["col", "row", "cage", "slot", "node"], **kw))[0]]
    ref = _rscript(R_TITAN, file)["times"]
    for label, a, b in zip(["Titan Cox cage + batch", "Titan Cox cage + strata(batch)", "Titan Cox old batch, 43 terms"],
                           ours, ref):
        rows.append((label, a, max(b, 1e-3), 1.0))


def side_by_side(quick):
    """Rows (label, relmodel s, reference s, target ratio) for the final table."""
    rng = np.random.default_rng(22)
    have_r = shutil.which("Rscript") is not None
    print(f"\n  Cox / AFT / Gray beside {'R (coxph, survreg, cuminc)' if have_r else 'lifelines (no Rscript)'}")
    rows = []
    for n in ([10**4, 10**5] if quick else [10**4, 10**5, 10**6]):
        d, cc = _data(n, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, est = _ours(d, cc)
        if have_r:
            with tempfile.TemporaryDirectory() as tmp:
                d.to_csv(Path(tmp) / "d.csv", index=False)
                cc.to_csv(Path(tmp) / "cc.csv", index=False)
                r = _rscript(R_FITS, Path(tmp) / "d.csv", Path(tmp) / "cc.csv")
            ref, ref_est = r["times"], (np.array(r["cox"]), np.array(r["aft"]), r["gray"][0])
            assert np.allclose(est[2], ref_est[2], rtol=1e-6)
        else:
            ref, ref_est = _lifelines(d)
        tol = 1e-6 if have_r else 1e-3
        assert np.allclose(est[0], ref_est[0], rtol=tol, atol=1e-8) and np.allclose(est[1], ref_est[1], rtol=tol,
                                                                                   atol=1e-8)
        rows.append((f"Cox, 5 covariates, n = {n:,}", ours[0], max(ref[0], 1e-3), 1.0))
        rows.append((f"Weibull AFT, 5 covariates, n = {n:,}", ours[1], max(ref[1], 1e-3), 1.0))
        if have_r:
            rows.append((f"Gray's test, 3 groups, n = {n:,}", ours[2], max(ref[2], 1e-3), 2.0))
    _titan(rows, have_r)
    return rows
