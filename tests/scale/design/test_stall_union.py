"""Stalled time is the union of the waits for a spare: relmodel.scale.design.compound against an event simulation.

The reference below is written from the model's assumptions alone (see relmodel.scale.design.compound): every tray
of every group fails at a constant rate and is repaired after an exponential time, whole-group faults likewise;
a group is out while more than ``spares`` of its trays, or any whole-group fault, are in repair; the out groups
hold ``need`` pool units each and the job waits while they need more than the pool holds.  It is a plain
Python loop over sorted events, started empty ``BURN`` repair times before the window (not in the stationary
state, as relmodel's vectorised sweeps are), so the two share no code and no initialisation.
"""

import math

import numpy as np
import pytest
from scipy import stats

from relmodel.scale.design.compound import DomainModel, closed_form, simulate_domains

BURN = 15.0  # repair times of warm-up before the window: the start-up bias is below e^-15


def _intervals(rng, rate, mean_repair, t0, t1):
    n = rng.poisson(rate * (t1 - t0))
    start = np.sort(rng.uniform(t0, t1, n))
    return start, start + rng.exponential(mean_repair, n)


def reference_run(rng, groups, trays, spares, pool, nu, mu, s, horizon, need=1, bursts=()):
    """One run: (stalled hours in [0, horizon], interruptions, interruptions that found no spare, interruptions
    felt: on a group in service, for a burst on any of its groups)."""
    t0 = -BURN * s
    events = []  # (time, order, kind, unit, interrupts, span)
    share = (trays - spares) / trays
    n_dom = groups // need if need > 1 else groups
    for kind, rate, span in [("tray", groups * trays * nu, 1), ("group", n_dom * mu, 1)] + \
            [("burst", r, b) for r, b in bursts]:
        start, end = _intervals(rng, rate, s, t0, horizon)
        unit = rng.integers(0, n_dom if kind == "group" else groups, start.size)
        hit = (rng.random(start.size) < share) if kind == "tray" else np.ones(start.size, bool)
        for a, b, u, h in zip(start, end, unit, hit):
            events.append((a, 0, kind, u, bool(h) and 0 <= a <= horizon, span))
            events.append((b, 1, kind, u, False, span))
    events.sort(key=lambda e: (e[0], e[1]))
    in_repair = np.zeros(groups, int)   # trays in repair (or group faults, counted as spares + 1)
    dom_out = np.zeros(n_dom, int)      # whole-domain faults under a node pool
    used, stalled, hits, short, felt, last = 0, 0.0, 0, 0, 0, t0
    for t, end, kind, u, hit, span in events:
        if used > pool:
            stalled += max(0.0, min(t, horizon) - max(last, 0.0))
        last = t
        step = -1 if end else 1
        newly = served = False
        if kind == "group" and need > 1:
            was = dom_out[u] > 0
            served = not was
            dom_out[u] += step
            now = dom_out[u] > 0
            used += need * (int(now) - int(was))
            newly = now and not was
        else:
            members = [(u + j) % groups for j in range(span)]
            weight = spares + 1 if kind != "tray" else 1
            for g in members:
                was = in_repair[g] > spares
                served = served or not was
                in_repair[g] += step * weight
                now = in_repair[g] > spares
                used += int(now) - int(was)
                newly = newly or (now and not was)
        if hit:
            hits += 1
            felt += int(served)
            short += int(newly and used > pool)
    return stalled, hits, short, felt


def ratio_se(num, den):
    """Standard error of sum(num) / sum(den) over independent runs (delta method: runs are the units)."""
    r = num.sum() / den.sum()
    return math.sqrt(np.var(num - r * den, ddof=1) / num.size) / den.mean()


def reference(n_runs, seed, **kw):
    rng = np.random.default_rng(seed)
    out = np.array([reference_run(rng, **kw) for _ in range(n_runs)], float)
    return out[:, 0], out[:, 1], out[:, 2], out[:, 3]


CASES = {
    # 40 racks of 18 trays, the job needs whole racks, 8 spare racks
    "whole-domain": dict(groups=40, trays=18, spares=0, pool=8, nu=4e-4, mu=0.0),
    # 2 spare trays per rack, one spare rack, plus whole-rack faults
    "in-domain-spares": dict(groups=30, trays=18, spares=2, pool=1, nu=2.5e-3, mu=2e-4),
    # any node replaces any other: 360 nodes in 20 domains of 18, whole-domain faults need 18 nodes
    "spare-pool": dict(groups=360, trays=1, spares=0, pool=20, nu=1.5e-3, mu=1e-3, need=18),
}


@pytest.mark.parametrize("name", list(CASES))
def test_stalled_share_matches_an_independent_event_simulation(name):
    kw = dict(CASES[name])
    nu, mu, need = kw.pop("nu"), kw.pop("mu"), kw.get("need", 1)
    s, horizon, n_runs = 24.0, 168.0, 600
    model = DomainModel(tray_rate=nu, group_rate=mu, **kw)
    stalled, hits, short, felt = reference(n_runs, seed=11, s=s, horizon=horizon, nu=nu, mu=mu, **kw)
    ref_share = stalled / horizon
    ours = simulate_domains(model, s, horizon=horizon, n_runs=4000, seed=2)
    # the reference's own Monte Carlo error, with relmodel's (4,000 runs) added in quadrature
    se = math.sqrt(ref_share.var(ddof=1) / n_runs * (1 + n_runs / 4000))
    assert ref_share.mean() > 0.01                     # the case does stall: the test can fail
    assert abs(ours.stall_share - ref_share.mean()) < 4 * se
    # mean stall per interruption: the ratio of totals, with its delta-method error
    r = stalled.sum() / hits.sum()
    assert abs(ours.mean_stall_h - r) < 4 * ratio_se(stalled, hits) * math.sqrt(1 + n_runs / 4000)
    p = short.sum() / felt.sum()                       # of the faults on groups in service
    assert felt.sum() < hits.sum()                     # some faults land on groups already out
    assert abs(ours.p_no_spare - p) < 4 * ratio_se(short, felt) * math.sqrt(1 + n_runs / 4000) + 1e-4
    # the closed form: at a random time the out groups are Binomial(groups, q) (+ need x Binomial for domains)
    a_t, a_d = kw["trays"] * nu * s, mu * s
    k = kw["spares"]
    if need > 1:
        n_dom = kw["groups"] // need
        nodes = stats.binom.pmf(np.arange(kw["groups"] + 1), kw["groups"], 1 - math.exp(-a_t))
        doms = np.zeros(need * n_dom + 1)
        doms[::need] = stats.binom.pmf(np.arange(n_dom + 1), n_dom, 1 - math.exp(-a_d))
        expected = np.convolve(nodes, doms)[kw["pool"] + 1:].sum()
    else:
        q = 1 - stats.poisson.cdf(k, a_t) * math.exp(-a_d)
        expected = stats.binom.sf(kw["pool"], kw["groups"], q)
    cf = closed_form(model, s)
    assert cf["stall_share_free"] == pytest.approx(expected, rel=1e-9)
    assert abs(ref_share.mean() - expected) < 4 * math.sqrt(ref_share.var(ddof=1) / n_runs)
    lam = kw["groups"] * nu * (kw["trays"] - k) + (kw["groups"] // need) * mu
    assert cf["mean_stall_free_h"] == pytest.approx(expected / lam, rel=1e-9)


def test_overlapping_waits_count_once():
    # One rack, no spare: a second tray failure during the wait prolongs it but is not a second wait.
    # Tray 1 fails at 0 h (repair 10 h), tray 2 at 2 h (repair 3 h): the job waits 10 h, not 10 + 3 h.
    m = DomainModel(groups=1, trays=2, pool=0, tray_rate=1e-9)
    from relmodel.scale.design.compound import _sweeps
    z = np.zeros(2, np.int64)
    before, newly, short, stalled = _sweeps(m, z, z, np.array([0.0, 2.0]), np.array([10.0, 5.0]),
                                            np.ones(2, np.int64), np.ones(2, np.int64), runs=1, horizon=24.0)
    assert stalled.tolist() == [10.0] and newly.tolist() == [True, False] and short.tolist() == [True, False]


def test_nvl72_whole_racks_stall_is_no_longer_overcounted():
    # 228 NVL72 racks of 18 trays, 12 spare racks, each tray failing at the Llama 3 hardware rate scaled to
    # a tray (7.0454e-5 per hour), 24 h repairs: summing overlapping waits gave 0.248 h per interruption.
    m = DomainModel(groups=228, trays=18, pool=12, tray_rate=7.0454e-5)
    r = simulate_domains(m, "24h", horizon="24h", n_runs=10_000, seed=0)
    q = 1 - math.exp(-18 * 7.0454e-5 * 24)
    share = stats.binom.sf(12, 228, q)                 # P(more than 12 of 228 racks out)
    per_interruption = share / (228 * 18 * 7.0454e-5)
    assert per_interruption == pytest.approx(0.0730, abs=5e-4)
    assert r.mean_stall_h == pytest.approx(per_interruption, rel=0.1)
    assert r.closed["mean_stall_free_h"] == pytest.approx(per_interruption, rel=1e-9)


def test_correlated_bursts_match_the_event_simulation():
    # A fault that takes 3 racks at once (e.g. a shared power or cooling feed), beside single-tray faults.
    kw = dict(groups=40, trays=18, spares=0, pool=6, nu=2e-4)
    bursts = ((0.02, 3),)
    s, horizon, n_runs = 24.0, 168.0, 600
    model = DomainModel(groups=40, trays=18, pool=6, tray_rate=2e-4, bursts=((0.02, 3, s),))
    stalled, hits, short, felt = reference(n_runs, seed=5, s=s, horizon=horizon, mu=0.0, bursts=bursts, **kw)
    ours = simulate_domains(model, s, horizon=horizon, n_runs=4000, seed=4)
    share = stalled / horizon
    se = math.sqrt(share.var(ddof=1) / n_runs * (1 + n_runs / 4000))
    assert share.mean() > 0.01
    assert abs(ours.stall_share - share.mean()) < 4 * se
    assert ours.n_events / 4000 == pytest.approx((40 * 18 * 2e-4 + 0.02) * horizon, rel=0.03)
    p = short.sum() / felt.sum()                       # a burst finds no spare once, after all its racks go out
    assert abs(ours.p_no_spare - p) < 4 * ratio_se(short, felt) * math.sqrt(1 + n_runs / 4000)
    # the closed form takes the racks the bursts hold out of the binomial count of the others (exact while
    # bursts in repair do not overlap)
    assert abs(ours.closed["stall_share_free"] - share.mean()) < 4 * math.sqrt(share.var(ddof=1) / n_runs)
