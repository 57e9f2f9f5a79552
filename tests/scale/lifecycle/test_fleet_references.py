"""simulate_fleet against references written here: closed forms, a renewal equation, a plain event loop.

None of these references call relmodel: each is a formula or loop of this file.
"""

import heapq
import math

import numpy as np
import pytest
from scipy import special, stats

from relmodel.scale.lifecycle import fleet_model, simulate_fleet
from relmodel.scale.lifecycle.loop import run_once


def _runs(model, n, seed=0, policy=None):
    return [run_once(model, policy, seed + i) for i in range(n)]


def _agree(sim, ref, tol_se=4.0, floor=0.0):
    x = np.asarray(sim, dtype=float)
    se = x.std(ddof=1) / math.sqrt(x.size)
    assert abs(x.mean() - ref) <= tol_se * se + floor, (x.mean(), ref, se)


# --- checkpoints: exponential failures, standbys never short --------------------------------------------------
def _segment_time(rate, s, recovery):
    """Expected wall time to get through a segment of s hours with failures at ``rate`` and ``recovery``
    after each: (1/rate + recovery)(e^{rate s} - 1)."""
    return (1.0 / rate + recovery) * math.expm1(rate * s)


def test_checkpointed_job_matches_the_exact_expected_wall_time():
    job, mtbf, tau, cost, rec = 32, 800.0, 2.0, 0.25, 0.5
    rate = job / mtbf
    n_seg = 60
    work = n_seg * tau
    ref_wall = (n_seg - 1) * _segment_time(rate, tau + cost, rec) + _segment_time(rate, tau, rec)
    m = fleet_model(job_nodes=job, warm_standbys=200, working_nodes=job + 200, spare_nodes=0, work=work,
                    node_mtbf=mtbf, recovery=rec, interval=tau, ckpt_cost=cost, host_selection=0,
                    auto_repair="1h", to_manual=0.0)
    runs = _runs(m, 400)
    _agree([r["wall_h"] for r in runs], ref_wall)
    assert all(r["work_h"] == pytest.approx(work) for r in runs)


def test_the_jobs_own_causes_add_a_poisson_stream_that_blames_no_node():
    """Nodes at rate 32/800 and the job's own causes every 30 h: segments see their sum, and the split of the
    interruptions follows the two rates (binomial), while only node failures send nodes to repair."""
    job, mtbf, own, tau, cost, rec = 32, 800.0, 30.0, 2.0, 0.25, 0.5
    rate = job / mtbf + 1 / own
    n_seg = 60
    ref_wall = (n_seg - 1) * _segment_time(rate, tau + cost, rec) + _segment_time(rate, tau, rec)
    m = fleet_model(job_nodes=job, warm_standbys=200, working_nodes=job + 200, spare_nodes=0, work=n_seg * tau,
                    node_mtbf=mtbf, recovery=rec, interval=tau, ckpt_cost=cost, host_selection=0,
                    auto_repair="1h", to_manual=0.0, job_mtbf=own)
    runs = _runs(m, 400)
    _agree([r["wall_h"] for r in runs], ref_wall)
    own_n = sum(r["job_interruptions"] for r in runs)
    node_n = sum(r["failures"] for r in runs)
    p = (1 / own) / rate
    n = own_n + node_n
    assert abs(own_n - n * p) <= 4 * math.sqrt(n * p * (1 - p)), (own_n, n * p)
    instant = [run_once(m.replace(auto_repair=0.0), None, i) for i in range(5)]  # repairs done as they start
    assert all(r["auto_repairs"] == r["failures"] and r["job_interruptions"] > 0 for r in instant)
    # without the job's own causes nothing changes: the same draws as before they existed
    base = fleet_model(job_nodes=job, warm_standbys=200, working_nodes=job + 200, spare_nodes=0, work=n_seg * tau,
                       node_mtbf=mtbf, recovery=rec, interval=tau, ckpt_cost=cost, host_selection=0,
                       auto_repair="1h", to_manual=0.0)
    assert base.replace(job_mtbf=None) == base and run_once(base, None, 3)["job_interruptions"] == 0


def test_recovery_only_mode_counts_each_failure_once():
    """No work lost: wall = work + recovery x failures, and failures ~ Poisson(rate x work)."""
    job, mtbf, rec, work = 16, 400.0, 0.5, 500.0
    m = fleet_model(job_nodes=job, warm_standbys=100, working_nodes=job + 100, spare_nodes=0, work=work,
                    node_mtbf=mtbf, recovery=rec, host_selection=0, to_manual=0.0)
    runs = _runs(m, 300)
    for r in runs:
        assert r["wall_h"] == pytest.approx(work + rec * r["failures"])
    _agree([r["failures"] for r in runs], job / mtbf * work)


# --- the M/M/c limit: crews doing manual repairs -----------------------------------------------------------------
def _erlang_c_wait(lam, mean_service, c):
    a = lam * mean_service
    terms = sum(a ** k / math.factorial(k) for k in range(c))
    top = a ** c / math.factorial(c) * c / (c - a)
    p_wait = top / (terms + top)
    return p_wait / (c / mean_service - lam)


def test_finite_crews_wait_as_an_mmc_queue():
    job, mtbf, service, c = 100, 100.0, 4.0, 6          # 1 failure an hour, 4 Erlangs on 6 crews
    m = fleet_model(job_nodes=job, warm_standbys=60, working_nodes=job + 60, spare_nodes=0, work=4000.0,
                    node_mtbf=mtbf, recovery=0, host_selection=0, auto_repair=0.0, to_manual=1.0,
                    manual_repair=service, crews=c)
    runs = _runs(m, 12)
    waits = [r["crew_wait_h"] / r["crew_jobs"] for r in runs]
    assert all(r["stalls"] == 0 for r in runs)
    _agree(waits, _erlang_c_wait(job / mtbf, service, c), tol_se=4.0, floor=0.01)


# --- standbys that run out: the stall model's exact law -------------------------------------------------------
def test_share_of_failures_finding_no_standby_is_the_truncated_poisson_ratio():
    """J + W nodes, repairs M/M/inf of mean S: while the job runs, the count away n is 0..W and moves as a
    birth-death chain (lam, n/S); failures see n = W with chance pi_W / sum_{n<=W} pi_n, pi_n = (lam S)^n/n!."""
    job, W, mtbf, S = 50, 3, 500.0, 8.0
    lam = job / mtbf
    pi = np.array([(lam * S) ** k / math.factorial(k) for k in range(W + 1)])
    ref = pi[-1] / pi.sum()
    m = fleet_model(job_nodes=job, warm_standbys=W, working_nodes=job + W, spare_nodes=0, work=20000.0,
                    node_mtbf=mtbf, recovery=0, host_selection=0, auto_repair=S, to_manual=0.0)
    runs = _runs(m, 10)
    shares = [r["no_standby"] / r["failures"] for r in runs]
    _agree(shares, ref, tol_se=4.0, floor=0.005)


# --- Weibull lives that keep their ages ------------------------------------------------------------------------
def _renewal_function(cdf, t_end, steps=4000):
    """M(t) = F(t) + int_0^t M(t - x) dF(x), solved on a grid (Riemann-Stieltjes, midpoint masses)."""
    t = np.linspace(0, t_end, steps + 1)
    F = cdf(t)
    dF = np.diff(F)
    M = np.zeros_like(t)
    for i in range(1, t.size):
        # sum over x_j in (0, t_i]: M(t_i - x_j) dF_j with x_j the cell's right end
        M[i] = F[i] + np.dot(M[i - 1::-1][:i], dF[:i]) if i > 0 else 0.0
    return M[-1]


@pytest.mark.parametrize("shape", [0.7, 2.5])
def test_each_node_of_a_job_renews_as_its_own_weibull_renewal_process(shape):
    """Two nodes, instant repairs: the job stops at every failure, and the node that did not fail keeps
    its age, so each node renews on its own: expected failures over T of service = 2 M(T)."""
    mean, T = 100.0, 300.0
    scale = mean / math.gamma(1 + 1 / shape)
    ref = 2 * _renewal_function(lambda t: 1 - np.exp(-(t / scale) ** shape), T)
    m = fleet_model(job_nodes=2, warm_standbys=0, working_nodes=2, spare_nodes=0, work=T, node_mtbf=mean,
                    law="weibull", shape=shape, fleet="new", recovery="1h", host_selection=0, auto_repair=0.0,
                    to_manual=0.0)
    runs = _runs(m, 1500)
    _agree([r["failures"] for r in runs], ref, tol_se=4.0, floor=0.02)


def test_a_mature_weibull_fleet_fails_at_its_mean_rate_and_a_new_one_does_not():
    """A stationary renewal process has exactly T / mean renewals in expectation; a new fleet has M(T)."""
    mean, T, shape, job = 100.0, 150.0, 3.0, 20
    base = dict(job_nodes=job, warm_standbys=0, working_nodes=job, spare_nodes=0, work=T, node_mtbf=mean,
                law="weibull", shape=shape, recovery=0.0, host_selection=0, auto_repair=0.0, to_manual=0.0)
    mature = _runs(fleet_model(fleet="mature", **base), 600)
    _agree([r["failures"] for r in mature], job * T / mean, tol_se=4.0, floor=0.05)
    scale = mean / math.gamma(1 + 1 / shape)
    new_ref = job * _renewal_function(lambda t: 1 - np.exp(-(t / scale) ** shape), T)
    new = _runs(fleet_model(fleet="new", **base), 600)
    _agree([r["failures"] for r in new], new_ref, tol_se=4.0, floor=0.05)
    assert abs(new_ref - job * T / mean) > 1.0   # the two fleets differ here: the test can tell them apart


def test_lognormal_life_given_age_follows_the_conditional_law():
    from relmodel.scale.lifecycle.lives import life_law
    law = life_law(100.0, "lognormal", 1.2)
    rng = np.random.default_rng(3)
    age = 150.0
    x = np.array([law.given_age(age, u) for u in rng.random(20000)])
    mu = math.log(100.0) - 0.72
    dist = stats.lognorm(s=1.2, scale=math.exp(mu))
    # P(L > 300 | L > 150), from the law directly
    ref = dist.sf(300.0) / dist.sf(age)
    assert (x >= age).all()
    assert abs((x > 300).mean() - ref) < 4 * math.sqrt(ref * (1 - ref) / x.size)


# --- a plain event loop for a small pool --------------------------------------------------------------------------
def _plain_pool(rng, job, working, spares, mtbf, work, rec, host, preempt, repair_mean, bad_share, mult,
                unfixed):
    """Exponential nodes, one repair stage of exponential length and unlimited capacity, no standbys:
    each failure costs ``rec`` and a host selection ``host``; the pool is topped up from spares
    (``preempt`` each), and the job waits for a repair when both are empty. Returns (ettr, failures)."""
    n = working + spares
    bad = np.zeros(n, bool)
    bad[rng.permutation(n)[:int(round(bad_share * n))]] = True
    pool = list(range(working))
    spare = list(range(working, n))
    repairs = []
    now, done, fails = 0.0, 0.0, 0
    running = []
    while True:
        while repairs and repairs[0][0] <= now:
            _, i = heapq.heappop(repairs)
            pool.append(i)
        while len(running) + len(pool) < job:
            if spare:
                now += preempt
                pool.append(spare.pop())
            else:
                now = max(now, repairs[0][0])
                while repairs and repairs[0][0] <= now:
                    pool.append(heapq.heappop(repairs)[1])
        while len(running) < job:
            running.append(pool.pop(0))
        now += host
        rates = np.where(bad[running], mult, 1.0) / mtbf
        x = rng.exponential(1 / rates.sum())
        if done + x >= work:
            now += work - done
            return work / now, fails
        now += x
        done += x
        fails += 1
        k = rng.choice(len(running), p=rates / rates.sum())
        i = running.pop(k)
        if bad[i] and rng.random() >= unfixed:
            bad[i] = False
        heapq.heappush(repairs, (now + rng.exponential(repair_mean), i))
        now += rec


def test_small_pool_against_a_plain_event_loop():
    kw = dict(job=6, working=8, spares=2, mtbf=300.0, work=2000.0, rec=0.5, host=0.1, preempt=0.3,
              repair_mean=40.0, bad_share=0.2, mult=5.0, unfixed=0.5)
    rng = np.random.default_rng(11)
    plain = [_plain_pool(rng, **kw) for _ in range(300)]
    m = fleet_model(job_nodes=6, warm_standbys=0, working_nodes=8, spare_nodes=2, work=2000.0, node_mtbf=300.0,
                    recovery=0.5, host_selection=0.1, preemption_wait=0.3, auto_repair=40.0, to_manual=0.0,
                    auto_unfixed=0.5, bad_share=0.2, multiplier=5.0)
    ours = _runs(m, 300)
    a = np.array([p[0] for p in plain])
    b = np.array([r["ettr"] for r in ours])
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    assert abs(a.mean() - b.mean()) < 4 * se
    fa = np.array([p[1] for p in plain], float)
    fb = np.array([r["failures"] for r in ours], float)
    se = math.sqrt(fa.var(ddof=1) / fa.size + fb.var(ddof=1) / fb.size)
    assert abs(fa.mean() - fb.mean()) < 4 * se


def test_simulate_fleet_stops_at_the_asked_precision():
    r = simulate_fleet(job_nodes=64, warm_standbys=2, working_nodes=72, spare_nodes=4, work="20d",
                       node_mtbf="100d", resolution=0.003, max_runs=300, seed=2)
    lo, hi = r.ettr_ci
    assert (hi - lo) / 2 <= 0.003 and r.converged
    assert 10 <= r.n_runs < 300


# --- counters at the run's end, and nodes turning bad while they run ----------------------------------------------
def test_repairs_that_end_before_the_run_are_counted_at_its_end():
    """Each failure goes through 1 h of automatic and 1 h of manual repair: all but those still in repair when
    the run ends (about rate x 2 h of them) are counted, with or without crews, and each stage once."""
    job, mtbf, work = 16, 400.0, 500.0
    for crews in (None, 50):
        m = fleet_model(job_nodes=job, warm_standbys=40, working_nodes=job + 40, spare_nodes=0, work=work,
                        node_mtbf=mtbf, recovery=0.01, host_selection=0, auto_repair="1h", manual_repair="1h",
                        to_manual=1.0, crews=crews)
        runs = _runs(m, 200)
        missing = np.mean([r["failures"] - r["manual_repairs"] for r in runs])
        assert 0 <= missing < 3 * job / mtbf * 2.0, (crews, missing)
        assert all(r["failures"] >= r["auto_repairs"] >= r["manual_repairs"] for r in runs)


def test_nodes_turning_bad_fail_faster_from_the_moment_they_turn():
    """Every node turns bad at 720 h and runs 10 times faster from then on (exponential lives, repairs that
    never fix): the expected failures are J/m x 720 + 10 J/m x 720 over 1,440 h of running."""
    job, mtbf = 10, 1000.0
    m = fleet_model(job_nodes=job, warm_standbys=20, working_nodes=job + 20, spare_nodes=0, work=1440.0,
                    node_mtbf=mtbf, recovery=1e-4, host_selection=0, auto_repair="1h", to_manual=0.0,
                    auto_unfixed=1.0, turn_bad=1.0, multiplier=10.0, fleet="new")
    runs = _runs(m, 400)
    _agree([r["failures"] for r in runs], job / mtbf * 720 + 10 * job / mtbf * 720)


def test_restarts_exposed_to_failures_give_dalys_exact_ettr():
    # 16 nodes of 32 h MTBF (job MTBF 2 h), checkpoints every 30 min costing 3 min, a 30-min restart that
    # failures can strike (reload = recovery), warm standbys and quick repairs so the job never waits for a node.
    # Daly's exact exponential model, written here: ETTR = tau lam e^(-lam R) / (e^(lam (tau + C)) - 1).
    import math

    from relmodel.scale.lifecycle import fleet_model, simulate_fleet
    nodes, node_mtbf, tau, c, r = 16, 32.0, 0.5, 0.05, 0.5
    m = fleet_model(job_nodes=nodes, warm_standbys=8, working_nodes=nodes + 40, spare_nodes=0, work="400h",
                    node_mtbf=node_mtbf, recovery=r, reload=r, interval=tau, ckpt_cost=c, auto_repair="6min",
                    to_manual=0.0, host_selection=0.0)
    lam = nodes / node_mtbf
    daly = tau * lam * math.exp(-lam * r) / math.expm1(lam * (tau + c))
    res = simulate_fleet(m, min_runs=30, max_runs=30, seed=1)
    se = res.runs["ettr"].std(ddof=1) / math.sqrt(res.n_runs)
    assert res.runs["stalls"].sum() == 0 and res.runs["cut_short"].sum() == 0
    assert abs(res.ettr - daly) < 4 * se
    # with the whole recovery as downtime (AIReSim's convention) restarts always finish: ETTR is higher
    free = simulate_fleet(m.replace(reload=0.0), min_runs=30, max_runs=30, seed=1)
    assert free.ettr - daly > 4 * se


def test_a_job_whose_restarts_never_finish_is_cut_short_with_no_work(monkeypatch):
    # A 10 h restart exposed to failures every 0.1 h finishes with chance e^-100: the run stops at the cap.
    from relmodel.scale.lifecycle import fleet_model, loop, simulate_fleet
    monkeypatch.setattr(loop, "MAX_INTERRUPTIONS", 500)
    m = fleet_model(job_nodes=10, warm_standbys=4, working_nodes=60, spare_nodes=0, work="100h", node_mtbf=1.0,
                    recovery="10h", reload="10h", interval="1h", ckpt_cost="1min", auto_repair="6min", to_manual=0.0)
    res = simulate_fleet(m, min_runs=2, max_runs=2, seed=0)
    assert res.runs["cut_short"].tolist() == [1, 1] and res.ettr == 0.0
    assert (res.runs["failures"] == 500).all()
    assert "stopped after 500 interruptions" in res.text()


@pytest.mark.parametrize("share", [0.01, 0.03])
def test_each_good_node_turns_bad_with_chance_turn_bad(share):
    """30 nodes that never fail while good; at 720 h each turns bad with chance ``share`` and then fails at once
    (a multiplier of 10^6), and one repair fixes it: the bad failures of a run are Binomial(30, share), mean
    30 x share (0.3 at 1%, where a share rounded to a count of nodes turned none)."""
    m = fleet_model(job_nodes=30, warm_standbys=0, working_nodes=30, spare_nodes=0, work=1000.0, node_mtbf=1e7,
                    recovery=1e-3, host_selection=0, auto_repair="1h", to_manual=0.0, auto_unfixed=0.0,
                    turn_bad=share, multiplier=1e6, fleet="new")
    _agree([r["bad_failures"] for r in _runs(m, 400)], 30 * share)


@pytest.mark.parametrize("share", [0.02, 0.07])
def test_each_node_is_bad_at_the_start_with_chance_bad_share(share):
    """As above with the bad nodes there from the start: Binomial(20, share) bad failures, mean 20 x share
    (0.4 at 2%, where round(0.4) nodes made none bad; 1.4 at 7%, where it made one)."""
    m = fleet_model(job_nodes=20, warm_standbys=0, working_nodes=20, spare_nodes=0, work=100.0, node_mtbf=1e7,
                    recovery=1e-3, host_selection=0, auto_repair="1h", to_manual=0.0, auto_unfixed=0.0,
                    bad_share=share, multiplier=1e6, fleet="new")
    _agree([r["bad_failures"] for r in _runs(m, 400)], 20 * share)
