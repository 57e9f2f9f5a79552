"""One replication of a fleet's life: the event loop behind :func:`~relmodel.scale.lifecycle.simulate_fleet`.

Clocks. ``now`` is wall time; ``run`` counts the hours the job has run. Only
nodes running the job age and fail: a node's age is in hours of service
(a bad node's clock runs ``multiplier`` times faster), kept when the job
stops and restarts, and reset only when the node is repaired. Each running
node has its failure scheduled on the run clock, in one heap; a node that
leaves the job without failing keeps its age (its heap entry is voided).

Repairs run on wall time in a second heap of events: a node back from
repair, a node reaching the manual stage (only with finite crews, so the
crews serve in arrival order). Events are taken in time order whenever the
job needs nodes: at a failure, after a recovery, during a stall. While the
job is stopped (recovery, host selection, preemption, stall) no node ages,
so no failure comes, except in the last ``reload_h`` of a recovery, when the
job's nodes run to reload it: a failure then starts the recovery again.
Interruptions of the job's own causes (``job_mtbf``)
come as a Poisson stream on the run clock: each costs a recovery and the
work since the last checkpoint, and no node leaves the job.

A failure: the node leaves the job; it is blamed (chance ``diagnosis``),
or the wrong running node is blamed (chance ``misdiagnosis``: the culprit
keeps running with its fault, its life drawn again from its age), or nobody
is (the node rejoins the working pool unrepaired). A blamed node may be
retired by the policy, else it goes to repair. The job recovers, then takes
a warm standby, or, with none left, selects hosts from the working pool,
preempting spares one at a time when the pool is short, and stalls until a
repair brings a node back when the spares are gone too.
"""

import heapq
import math
from collections import deque

import numpy as np

__all__ = ["run_once", "COUNTERS", "MAX_INTERRUPTIONS"]

#: What one replication returns, besides ``ettr``.
COUNTERS = ("wall_h", "work_h", "failures", "bad_failures", "auto_repairs", "auto_unfixed", "manual_repairs",
            "manual_unfixed", "retired", "retired_bad", "stalls", "stall_h", "preemptions", "host_selections",
            "depleted", "misdiagnosed", "undiagnosed", "crew_wait_h", "crew_jobs", "lost_h", "no_standby", "replaced",
            "job_interruptions", "cut_short")

#: A run stops after this many interruptions even if its work is not done (``cut_short``): its ETTR is the
#: share of its wall time worked so far.  A job whose restarts rarely finish before the next failure (a
#: restart of an hour, a failure every few minutes) would otherwise run for ever.
MAX_INTERRUPTIONS = 20_000

IDLE, ACTIVE, STANDBY, REPAIR, SPARE, RETIRED = range(6)


def _batched(fill, size=8192):
    """A function handing out, one at a time, the numbers ``fill(size)`` draws in batches (numpy), each batch
    drawn when the last runs out."""
    def numbers():
        while True:
            yield from fill(size).tolist()
    return numbers().__next__


class _Draws:
    """Uniforms (``u()``), and each repair stage's durations (``auto()``, ``manual()``), one at a time."""

    def __init__(self, rng, model):
        self.u = _batched(rng.random)
        self.auto = _batched(lambda n: model.auto.draws(n, rng))
        self.manual = _batched(lambda n: model.manual.draws(n, rng))


def _initial(model, policy, rng):
    """Nodes' classes, lives, ages and states at time 0 (after pulling the policy's nodes)."""
    n = model.total_nodes
    n_bad = int(rng.binomial(n, model.bad_share))   # each node bad with chance bad_share, as a replacement is
    order = rng.permutation(n)
    bad = np.zeros(n, bool)
    bad[order[:n_bad]] = True
    state = np.full(n, IDLE, np.int64)
    state[model.working_nodes:] = SPARE
    pulled = pulled_bad = 0
    if policy is not None and policy.kind == "top":
        k = min(len(policy.p_bad), model.working_nodes)
        n_pull_bad = int(min((rng.random(k) < np.asarray(policy.p_bad[:k])).sum(), n_bad))
        working = np.arange(model.working_nodes)
        wb, wg = working[bad[:model.working_nodes]], working[~bad[:model.working_nodes]]
        take_b = rng.choice(wb, size=min(n_pull_bad, wb.size), replace=False)
        take_g = rng.choice(wg, size=min(k - take_b.size, wg.size), replace=False)
        state[take_b] = RETIRED
        state[take_g] = RETIRED
        pulled, pulled_bad = int(take_b.size + take_g.size), int(take_b.size)
    if model.fleet == "new":
        life, age = model.life.draw(n, rng), np.zeros(n)
    else:
        life, age = model.life.mature(n, rng)
    return bad, state, life, age, pulled, pulled_bad


def run_once(model, policy=None, seed=None):
    """One replication; returns a dict of :data:`COUNTERS` and ``ettr`` (work over wall time)."""
    rng = np.random.default_rng(seed)
    d = _Draws(rng, model)
    m = model
    bad_a, state_a, life_a, age_a, pulled, pulled_bad = _initial(m, policy, rng)
    bad, state, life, age = bad_a.tolist(), state_a.tolist(), life_a.tolist(), age_a.tolist()
    mult = m.multiplier
    n = len(state)
    speed = [mult if b else 1.0 for b in bad]
    joined = [0.0] * n
    service = [0.0] * n
    version = [0] * n
    fail_times = [None] * n
    fails = [0] * n
    redraw = [False] * n
    law = m.life
    c = dict.fromkeys(COUNTERS, 0)
    c["retired"], c["retired_bad"] = pulled, pulled_bad
    kind = policy.kind if policy is not None else "never"

    idle = deque(i for i in range(m.working_nodes) if state[i] == IDLE)
    spares = [i for i in range(m.working_nodes, n) if state[i] == SPARE]
    standby = deque()
    active = []          # running nodes; pos[i] is i's index in it
    pos = [-1] * n
    heap = []            # (run time of failure, node, version)
    events = []          # (wall time, kind, node): 0 back from repair (auto), 1 (manual), 2 reaches manual stage
    #                      (crews), 3 a new node replaces a retired one, 4 the automatic stage ends (no crews)
    escalate = {}        # node -> its manual stage's duration, drawn when the node was sent to repair
    crews = [0.0] * m.crews if m.crews is not None else None
    alive = n - pulled   # nodes not retired
    J, W = m.job_nodes, m.warm_standbys
    run = 0.0
    now = 0.0
    work_left = m.work_h
    tau, cost = m.interval_h, m.ckpt_cost_h
    next_turn = 720.0 if m.turn_bad > 0 else math.inf
    pending = [0]        # retired nodes whose replacement is on its way
    if pulled and m.replace_h < math.inf:
        for i in range(n):
            if state[i] == RETIRED:
                pending[0] += 1
                heapq.heappush(events, (m.replace_h, 3, i))

    def activate(i):
        state[i] = ACTIVE
        pos[i] = len(active)
        active.append(i)
        joined[i] = run
        if redraw[i]:
            life[i] = law.given_age(age[i], d.u())
            redraw[i] = False
        heapq.heappush(heap, (run + (life[i] - age[i]) / speed[i], i, version[i]))

    def leave(i):
        """Take running node i out of the job, keeping its age."""
        j = pos[i]
        last = active.pop()
        if last != i:
            active[j] = last
            pos[last] = j
        pos[i] = -1
        age[i] += (run - joined[i]) * speed[i]
        service[i] += run - joined[i]
        version[i] += 1

    def back(i):
        """A node enters the working pool: a warm standby while the job lacks them, else idle."""
        if len(standby) < W:
            state[i] = STANDBY
            standby.append(i)
        else:
            state[i] = IDLE
            idle.append(i)

    def repaired(i, stage_unfixed, manual):
        if manual:
            c["manual_repairs"] += 1
        else:
            c["auto_repairs"] += 1
        if d.u() < stage_unfixed:
            c["manual_unfixed" if manual else "auto_unfixed"] += 1
        elif bad[i]:
            bad[i] = False
            speed[i] = 1.0
        life[i] = law.draw(1, rng)[0] if law.law != "exponential" else -law.mean_h * math.log(max(d.u(), 1e-300))
        age[i] = 0.0
        redraw[i] = False
        back(i)

    def take_events(until):
        nonlocal next_turn
        while True:
            t_ev = events[0][0] if events else math.inf
            if next_turn <= until and next_turn < t_ev:
                turn_bad(next_turn)
                next_turn += 720.0
                continue
            if t_ev > until:
                return
            t, k, i = heapq.heappop(events)
            if k == 3:   # a new node replaces a retired one
                new_node(i)
                continue
            if k == 4:   # the automatic stage ends and hands the node to manual repair (no crews to wait for)
                c["auto_repairs"] += 1
                heapq.heappush(events, (t + escalate.pop(i) + m.rma_lead_h, 1, i))
                continue
            if k == 2:   # reaches the manual stage: the first free crew takes it
                c["auto_repairs"] += 1
                free = heapq.heappop(crews)
                start = free if free > t else t
                c["crew_wait_h"] += start - t
                c["crew_jobs"] += 1
                done = start + d.manual()
                heapq.heappush(crews, done)
                heapq.heappush(events, (done + m.rma_lead_h, 1, i))
            else:
                repaired(i, m.manual.unfixed if k == 1 else m.auto.unfixed, k == 1)

    def new_node(i):
        nonlocal alive
        alive += 1
        pending[0] -= 1
        c["replaced"] += 1
        is_bad = d.u() < m.bad_share
        bad[i] = is_bad
        speed[i] = mult if is_bad else 1.0
        life[i] = law.draw(1, rng)[0]
        age[i] = 0.0
        redraw[i] = False
        fails[i] = 0
        service[i] = 0.0
        fail_times[i] = None
        back(i)

    def turn_bad(t):
        good = [i for i in range(n) if not bad[i] and state[i] != RETIRED]
        k = int(rng.binomial(len(good), m.turn_bad))  # each good node with chance turn_bad (a share rounded to a
        # count never acted on fleets where share x nodes is under one half)
        if k <= 0:
            return
        for i in rng.choice(len(good), size=k, replace=False).tolist():
            node = good[i]
            was_running = state[node] == ACTIVE
            if was_running:
                leave(node)
            bad[node] = True
            speed[node] = mult
            if was_running:
                activate(node)

    def to_repair(i, t):
        state[i] = REPAIR
        t1 = t + d.auto()
        if d.u() < m.to_manual:
            if crews is None:    # the manual stage's duration is drawn now, as before: the same random numbers
                escalate[i] = d.manual()
                heapq.heappush(events, (t1, 4, i))
            else:
                heapq.heappush(events, (t1, 2, i))
        else:
            heapq.heappush(events, (t1, 0, i))

    def retire(i, t):
        nonlocal alive
        if kind == "never" or kind == "top":
            return False
        if kind == "threshold":
            ft = fail_times[i]
            if ft is None:
                ft = fail_times[i] = deque()
            ft.append(t)
            while ft and ft[0] <= t - policy.window_h:
                ft.popleft()
            out = len(ft) >= policy.failures
        else:
            s = policy.initial - policy.penalty * fails[i] + policy.credit * math.floor(service[i] / policy.period_h)
            out = s <= policy.floor
        if out:
            state[i] = RETIRED
            alive -= 1
            c["retired"] += 1
            c["retired_bad"] += bad[i]
            if m.replace_h < math.inf:
                pending[0] += 1
                heapq.heappush(events, (t + m.replace_h, 3, i))
        return out

    def blame(f, t):
        """The failed node f has left the job; send the blamed node to repair (or retire it)."""
        if m.diagnosis < 1.0 and d.u() >= m.diagnosis:
            c["undiagnosed"] += 1
            redraw[f] = True
            back(f)
            return
        culprit = f
        if m.misdiagnosis > 0 and active and d.u() < m.misdiagnosis:
            c["misdiagnosed"] += 1
            g = active[min(int(d.u() * len(active)), len(active) - 1)]
            leave(g)
            redraw[f] = True
            activate(f)          # the culprit runs on with its fault
            culprit = g
        fails[culprit] += 1
        if not retire(culprit, t):
            to_repair(culprit, t)

    def select():
        """Fill the job from standbys and the working pool; False when the fleet cannot hold the job."""
        nonlocal now
        c["host_selections"] += 1
        stalled = False
        t0 = now
        while True:
            take_events(now)
            need = J - len(active)
            have = len(standby) + len(idle)
            if have >= need:
                break
            if spares:
                while spares and have < need + W:
                    now += m.preemption_wait_h
                    c["preemptions"] += 1
                    i = spares.pop()
                    state[i] = IDLE
                    idle.append(i)
                    have += 1
                continue
            if alive + pending[0] < J or not events:
                c["depleted"] = 1
                return False
            if not stalled:
                stalled = True
                c["stalls"] += 1
            now = max(now, events[0][0])
        if stalled:
            c["stall_h"] += now - t0
        while len(active) < J:
            activate(standby.popleft() if standby else idle.popleft())
        while len(standby) < W and idle:
            i = idle.popleft()
            state[i] = STANDBY
            standby.append(i)
        now += m.host_selection_h
        return True

    job_mtbf = m.job_mtbf_h   # the job's own causes: a Poisson stream on the run clock that blames no node
    next_job = run - job_mtbf * math.log(max(d.u(), 1e-300)) if job_mtbf < math.inf else math.inf
    need_hosts = True
    into = 0.0           # run hours since the job last restarted (from its last checkpoint)
    while work_left > 0:
        if need_hosts:
            if not select():
                break
            need_hosts = False
        while heap and heap[0][2] != version[heap[0][1]]:
            heapq.heappop(heap)
        x_node = heap[0][0] - run if heap else math.inf
        x = min(x_node, next_job - run)
        if tau > 0:
            finish = work_left + cost * max(math.ceil(work_left / tau) - 1, 0) - into
        else:
            finish = work_left - into
        if next_turn <= now:   # a turn that came while hosts were selected
            take_events(now)
        x_turn = next_turn - now
        if x_turn < x and x_turn < finish:   # good nodes turn bad while the job runs: their lives change now
            run += x_turn
            into += x_turn
            now = next_turn
            take_events(now)
            continue
        if x >= finish:
            now += finish
            run += finish
            work_left = 0.0
            break
        now += x
        run += x
        done = into + x    # negative: the failure came while the job reloaded
        into = -m.reload_h
        if done > 0 and tau > 0:
            cycles = math.floor(done / (tau + cost))
            work_left -= cycles * tau
            c["lost_h"] += done - cycles * (tau + cost)
        elif done > 0:
            work_left -= done
        if c["failures"] + c["job_interruptions"] >= MAX_INTERRUPTIONS:
            c["cut_short"] = 1
            break
        if x < x_node:   # the job's own cause: recover and go on with the same nodes
            c["job_interruptions"] += 1
            now += m.recovery_h - m.reload_h
            take_events(now)
            next_job = run - job_mtbf * math.log(max(d.u(), 1e-300))
            continue
        f = heapq.heappop(heap)[1]
        c["failures"] += 1
        c["bad_failures"] += bad[f]
        leave(f)
        take_events(now)
        blame(f, now)
        now += m.recovery_h - m.reload_h
        take_events(now)
        if len(active) < J:
            if standby:
                activate(standby.popleft())
            else:
                c["no_standby"] += 1
                need_hosts = True
    take_events(now)     # repairs that ended before the run did are counted
    c["wall_h"] = now
    c["work_h"] = m.work_h - work_left
    c["ettr"] = c["work_h"] / now if now > 0 else 0.0
    return c
