"""simulate_fleet against AIReSim itself (the anchor), side by side in one run.

    python bench/bench_fleet.py --airesim PATH            # PATH: a checkout of github karthikp-ubc/airesim
    python bench/bench_fleet.py --airesim PATH --quick    # fewer AIReSim replications

AIReSim (arXiv 2603.07041; MIT; SimPy) is the simulator an outsider would use
for this question. The bench installs simpy into the running environment when
it is missing (the tests do not need it), imports AIReSim from PATH and runs:

1. the paper's defaults (4,096-server job, 16 warm standbys, 4,160 working and
   200 spare servers, 256 days, 15% bad servers failing 5x on top of the
   random rate, auto->manual 0.8, repair failure 0.4 / 0.2): seconds per
   replication of each (CPU time of this process), their ratio (target: at
   least 50x), and the ETR of each with its 95% interval; relmodel's mean must
   lie inside AIReSim's interval. AIReSim's bad server fails at the random
   rate plus the systematic one (1 + 5 = 6 times a good server's); relmodel's
   ``multiplier`` is that total, 6.
2. the retirement-payoff regime of AIReSim's examples/retirement_payoff.py
   (8% bad at 20x on top, so 21x, twice the default rate, auto/manual repair
   failure 0.6 / 0.75, 60-minute recovery, 4,600 working servers, 14 days):
   never retiring against 2 failures in 7 days; both must order the policies
   alike.
3. Weibull node lives (shape 0.7): AIReSim draws a fresh life for every server
   at every restart of the job, so servers lose their ages; relmodel keeps
   each node's age until it is repaired. On a smaller job (256 servers, 60
   days, no bad servers) the bench prints both ETRs and failure counts, and
   relmodel's against the renewal count of its test suite's reference
   (each running node renews on its own: failures = nodes x M(T) for a new
   fleet, nodes x T / mean for a mature one).
"""

import argparse
import importlib
import math
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import Targets  # noqa: E402

from relmodel.scale.lifecycle import compare_policies, fleet_model, threshold  # noqa: E402
from relmodel.scale.lifecycle.loop import run_once  # noqa: E402
from relmodel.scale.lifecycle.simulate import mean_ci  # noqa: E402

DAY_MIN = 24 * 60


def _need_simpy():
    try:
        importlib.import_module("simpy")
    except ImportError:
        print("installing simpy for AIReSim ...", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "simpy"], check=True)


def _airesim(path):
    sys.path.insert(0, os.path.abspath(path))
    params, sim, pol = (importlib.import_module(f"airesim.{m}") for m in ("params", "simulator", "policies"))
    return params.Params, sim.Simulator, pol.NeverRemove, pol.ThresholdRemoval


def _time(fn, reps):
    out, t0 = [], time.process_time()
    for i in range(reps):
        out.append(fn(i))
    return (time.process_time() - t0) / reps, out


def _interval(x):
    mu, lo, hi = mean_ci(x)
    return f"{mu:.4f} ({lo:.4f} to {hi:.4f})", lo, hi


def defaults(A, n_air, n_rel, targets):
    Params, Simulator, _, _ = A
    p = Params()
    air_s, air = _time(lambda i: Simulator(p, seed=42 + i).run().effective_training_ratio, n_air)
    m = fleet_model(multiplier=1 + p.systematic_failure_rate_multiplier, bad_share=p.systematic_failure_fraction)
    rel_s, rel = _time(lambda i: run_once(m, None, i)["ettr"], n_rel)
    a_txt, a_lo, a_hi = _interval(air)
    r_txt, r_lo, r_hi = _interval(rel)
    print("1. AIReSim paper defaults")
    print(f"   AIReSim : {air_s:8.3f} s a replication ({n_air} runs), ETR {a_txt}")
    print(f"   relmodel: {rel_s:8.3f} s a replication ({n_rel} runs), ETR {r_txt}")
    mean_rel = float(np.mean(rel))
    print(f"   relmodel's mean inside AIReSim's 95% interval: {a_lo <= mean_rel <= a_hi}")
    targets.add("AIReSim defaults: speed per replication", air_s / rel_s, 50)
    targets.add("AIReSim defaults: relmodel mean inside AIReSim's 95% CI (1 = yes)", float(a_lo <= mean_rel <= a_hi), 1,
                unit="")


def payoff(A, n_air, n_rel, targets):
    Params, Simulator, NeverRemove, ThresholdRemoval = A
    base = 0.01 / DAY_MIN
    p = Params(job_size=4096, warm_standbys=16, working_pool_size=4600, spare_pool_size=200, job_length=14 * DAY_MIN,
               random_failure_rate=2 * base, systematic_failure_rate_multiplier=20.0,
               systematic_failure_fraction=0.08, recovery_time=60.0, auto_repair_fail_prob=0.60,
               manual_repair_fail_prob=0.75)
    air = {}
    for name, pol in (("never", NeverRemove), ("2 in 7 days", lambda: ThresholdRemoval(2, 7 * DAY_MIN))):
        air[name] = [Simulator(p, removal_policy=pol(), seed=42 + i).run().training_time_hours for i in range(n_air)]
    m = fleet_model(job_nodes=4096, warm_standbys=16, working_nodes=4600, spare_nodes=200, work="14d",
                    node_mtbf=50 * 24.0, bad_share=0.08, multiplier=21.0, recovery="60min", auto_unfixed=0.6,
                    manual_unfixed=0.75)
    c = compare_policies(m, {"2 in 7 days": threshold(2, "7d")}, runs=n_rel).to_frame().set_index("policy")
    rel_wall = {"never": 14 * 24 / c.loc["never retire", "ettr"], "2 in 7 days": 14 * 24 / c.loc["2 in 7 days", "ettr"]}
    print("2. retirement-payoff regime (training time, hours)")
    for k in air:
        print(f"   {k:12s} AIReSim {np.mean(air[k]):8.1f} h   relmodel {rel_wall[k]:8.1f} h")
    same = (np.mean(air["2 in 7 days"]) < np.mean(air["never"])) == (rel_wall["2 in 7 days"] < rel_wall["never"])
    print(f"   same ordering of policies: {same}")
    print("   (AIReSim re-selects every host from the idle pool, in list order, when its standbys run out, which")
    print("    leaves recently repaired servers idle; relmodel keeps the surviving hosts: its runs without")
    print("    retirement are longer. data/field_rates.md says more.)")
    targets.add("payoff regime: same policy ordering (1 = yes)", float(same), 1, unit="")


def _renewal(cdf, t_end, steps=3000):
    t = np.linspace(0, t_end, steps + 1)
    F = cdf(t)
    dF = np.diff(F)
    M = np.zeros_like(t)
    for i in range(1, t.size):
        M[i] = F[i] + np.dot(M[i - 1::-1][:i], dF[:i])
    return M[-1]


def weibull_ages(A, n_air, n_rel):
    Params, Simulator, _, _ = A
    shape, mean_days, days, job = 0.7, 20.0, 60, 256
    p = Params(job_size=job, warm_standbys=4, working_pool_size=280, spare_pool_size=20, job_length=days * DAY_MIN,
               random_failure_rate=1 / (mean_days * DAY_MIN), systematic_failure_fraction=0.0,
               failure_distribution="weibull", weibull_shape=shape)
    air = [Simulator(p, seed=42 + i).run() for i in range(n_air)]
    air_fail = np.mean([r.total_failures if hasattr(r, "total_failures") else len(r.run_durations) for r in air])
    kw = dict(job_nodes=job, warm_standbys=4, working_nodes=280, spare_nodes=20, work=f"{days}d",
              node_mtbf=mean_days * 24.0, law="weibull", shape=shape)
    rel = {f: [run_once(fleet_model(fleet=f, **kw), None, i) for i in range(n_rel)] for f in ("new", "mature")}
    scale = mean_days * 24 / math.gamma(1 + 1 / shape)
    print(f"3. Weibull lives (shape {shape}), {job} servers, {days} days: failures in the run")
    print(f"   AIReSim (fresh lives at every restart): {air_fail:8.1f}")
    for f, runs in rel.items():
        print(f"   relmodel, {f} fleet (ages kept)     : {np.mean([r['failures'] for r in runs]):8.1f}")
    # references for the running nodes' service time, T ~ days (the job runs most of the time)
    T = days * 24.0
    print(f"   reference, mature fleet: {job} x T / mean = {job * T / (mean_days * 24):8.1f};  new fleet: "
          f"{job} x M(T) = {job * _renewal(lambda t: 1 - np.exp(-(t / scale) ** shape), T):8.1f} "
          f"(T = the run's service time; failed nodes are replaced by repaired ones, so the counts run a little "
          f"above these)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--airesim", required=True, help="path of an AIReSim checkout")
    ap.add_argument("--quick", action="store_true", help="3 AIReSim replications instead of 10")
    a = ap.parse_args()
    _need_simpy()
    A = _airesim(a.airesim)
    n_air = 3 if a.quick else 10
    targets = Targets("fleet")
    defaults(A, n_air, 40, targets)
    payoff(A, max(2, n_air // 2), 20, targets)
    weibull_ages(A, 2, 20)
    sys.exit(targets.report())


if __name__ == "__main__":
    main()
