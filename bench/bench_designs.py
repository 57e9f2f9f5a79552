"""Speed of relmodel.scale.compare_designs: the five presets and their variants x 10,000 simulated runs.

    python bench/bench_designs.py            # 10,000 runs of 7 days each
    python bench/bench_designs.py --quick    # 2,000 runs

The rates are the Llama 3 counts (arXiv 2407.21783, section 3.3.4, Table 5:
419 unexpected interruptions in 54 days on 16,384 GPUs) scaled to each design;
checkpoint 1 min, restart 10 min and a 24 h mean repair are assumptions.  The
designs are the five named presets at 16,384 busy GPUs, then those with the
policy variants of the NVL72 whole-rack preset (three: its parallel groups
span the rack, so no cross-rack node pool) and that preset on two planes.

Timed (best of --repeat):
1. compare_designs of the five presets on one worker and on two (the target
   is under 10 s on 2 cores), then of all nine designs, with 1,000 bootstrap
   draws for the intervals;
2. the compound-failure simulator alone on the NVL72 whole-rack model:
   simulated failures per second;
3. the same model as a plain Python event loop (one step per failure, a
   list of repair end times per rack; the baseline kept here) on fewer runs;
   the ratio is of failures simulated per second, and both chances of
   finding no spare are printed beside the closed form;
4. the five presets at 1,048,576 GPUs with finite repair capacity (600
   crews, a 72 h RMA lead time) and whole-rack faults (rack_fit 10,000 FIT,
   an assumed scenario: no published figure exists), with the closed forms
   alone and with the simulated check; the target is under 5 s.
"""

import argparse
import dataclasses
import math
import sys
import time

import numpy as np

import relmodel
from timing import Targets, best_of  # noqa: E402
from relmodel.scale.design.compound import closed_form, simulate_domains
from relmodel.scale.design.designs import DESIGNS, design_presets, policy_variants
from relmodel.scale.design.policies import domain_model


def designs(n_gpus=16_384):
    presets = design_presets(n_gpus)
    whole = presets["nvl72-whole-rack"]
    return list(presets.values()) + policy_variants(whole) + [
        dataclasses.replace(whole, planes=2, name="NVL72, whole racks, dual plane")]


def event_loop(model, repair_h, runs, horizon_h, seed=0):
    """Baseline: one Python step per failure; exponential repairs.

    Returns (failures, P(no spare), its standard error from the spread between runs).
    """
    rng = np.random.default_rng(seed)
    k, pool = model.spares, model.pool
    rate = model.groups * model.trays * model.tray_rate
    per_run = []
    for _ in range(runs):
        failures = short = 0
        ends = [[] for _ in range(model.groups)]
        n0 = rng.poisson(rate * repair_h)
        for g, e in zip(rng.integers(0, model.groups, n0), rng.exponential(repair_h, n0)):
            ends[g].append(e)  # stationary start: residual repair times of parts already out
        t = 0.0
        while True:
            t += rng.exponential(1.0 / rate)
            if t >= horizon_h:
                break
            g = int(rng.integers(0, model.groups))
            out = 0
            for lst in ends:
                lst[:] = [e for e in lst if e > t]
                out += len(lst) > k
            was_out = len(ends[g]) > k
            ends[g].append(t + rng.exponential(repair_h))
            if rng.random() < model.interrupt_share:
                failures += 1
                short += (not was_out) and len(ends[g]) > k and out + 1 > pool
        per_run.append((failures, short))
    f, s = np.array(per_run, dtype=float).T
    p = s.sum() / max(f.sum(), 1)
    return int(f.sum()), p, math.sqrt(((s - p * f) ** 2).sum()) / max(f.sum(), 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    runs = 2_000 if args.quick else 10_000
    llama3 = relmodel.datasets.llama3_54day()
    ds = designs()
    kw = dict(n_runs=runs, horizon="7d", repair="24h", n_boot=1000, seed=0)
    five = list(design_presets().values())
    targets = Targets("designs")
    for label, group in (("the five presets", five), (f"all {len(ds)} designs", ds)):
        print(f"{label} x {runs:,} simulated runs of 7 days")
        for workers in (1, 2):
            sec, cmp = best_of(lambda: relmodel.scale.compare_designs(group, llama3, ckpt_cost="1min", restart="10min", workers=workers,
                                                                **kw), args.repeat)
            print(f"compare_designs, {workers} worker{'s' * (workers > 1)}: {sec:.2f} s "
                  f"({'under' if sec < 10 else 'OVER'} the 10 s target)")
            targets.add(f"compare_designs, {label}, {workers} worker(s)", sec, 10.0, "s", higher=False)
    print(cmp.table()[["Design", "ETTR (95% range)", "Time waiting for a spare", "Goodput per GPU bought"]]
          .to_string(index=False))

    whole = design_presets()["nvl72-whole-rack"]
    res = relmodel.scale.evaluate_design(whole, llama3, "1min", "10min", n_runs=1, n_boot=0, seed=0)
    model = domain_model(whole, res.node_interrupt_rate / whole.n_nodes, 0.0)
    sec, sim = best_of(lambda: simulate_domains(model, 24.0, horizon="7d", n_runs=runs, seed=1), args.repeat)
    fast = sim.n_events / sec
    base_runs = max(runs // 25, 40)
    t0 = time.perf_counter()
    n_base, p_base, se = event_loop(model, 24.0, base_runs, 7 * 24.0)
    slow = n_base / (time.perf_counter() - t0)
    print(f"\nsimulator, NVL72 whole racks ({model.groups} racks, {model.pool} spare racks): "
          f"{sim.n_events:,} failures in {sec:.2f} s = {fast:,.0f} failures/s")
    print(f"plain Python event loop: {n_base:,} failures ({base_runs} runs) at {slow:,.0f} failures/s")
    print(f"ratio: relmodel is {fast / slow:,.0f}x faster per simulated failure")
    cf = closed_form(model, 24.0)
    print(f"P(no spare): relmodel {sim.p_no_spare:.4f}, event loop {p_base:.4f} (+/- {2 * se:.4f}), "
          f"closed form {cf['p_no_spare']:.4f}")
    print(f"share of time waiting for a spare (union of waits): simulated {sim.stall_share:.4f}, "
          f"closed form {cf['stall_share']:.4f}")
    million(llama3, targets, args.repeat)
    return targets.report()


def million(llama3, targets, repeat):
    """The five presets at 1,048,576 GPUs with crews, an RMA lead time and rack faults."""
    n = 1_048_576
    five = list(design_presets(n).values())
    kw = dict(ckpt_cost="1min", restart="10min", n_boot=1000, seed=0, crews=600, rma_lead_time="72h",
              rack_fit=10_000)
    print(f"\nthe five presets at {n:,} GPUs, 600 crews, 72 h RMA lead time, rack_fit 10,000 FIT")
    for label, runs in (("closed forms", 0), ("with the simulated check", 10_000)):
        sec, _ = best_of(lambda: relmodel.scale.compare_designs(five, llama3, n, n_runs=runs, **kw), repeat)
        print(f"compare_designs, {label}: {sec:.2f} s ({'under' if sec < 5 else 'OVER'} the 5 s target)")
        targets.add(f"compare_designs at 1,048,576 GPUs with crews and rack faults, {label}", sec, 5.0, "s",
                    higher=False)


if __name__ == "__main__":
    sys.exit(main())
