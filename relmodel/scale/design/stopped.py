"""The share of time a job waits for a spare when nothing fails while it waits.

While the job waits for a spare it is stopped: its nodes run no work, so
they raise no job failures (the convention of the spare pool's ``"stall"``
model, :func:`relmodel.scale.sparing.repair_queue.away_pmf`).  Repairs go on.
Without that rule (:func:`relmodel.scale.design.compound.closed_form`'s
``stall_share_free``) a wait grows with every failure that lands in it, and a
design whose every rack fault stalls the job (a rack of 4 nodes, 2 spare
nodes) is charged ``1 - exp(-a)`` of the time instead of ``a / (1 + a)``, with
``a`` the racks in repair on average.

**Closed form.**  Each kind of event (a group put out, a whole-domain fault
under a node pool, a burst of ``span`` groups, a spare dead on the shelf)
holds ``need`` pool units while in repair; the kinds are independent
M/G/infinity counts when nothing stops them, a reversible process with the
product-form law ``pi``.  Stopping arrivals while the units held exceed the
pool confines the process to the states N (the job runs: held <= pool) and
F (reached from N by one arrival: held > pool, but taking away the largest
event present brings it back to <= pool).  The law of the stopped process is
``pi`` restricted to N + F (Kelly 1979, *Reversibility and Stochastic
Networks*, section 1.6: a reversible process truncated to a set keeps its
law, renormalised; the truncation is insensitive to the repair-time law, as
Erlang's loss formula is), so

    share stopped = pi(F) / (pi(N) + pi(F)).

This is exact when one arrival in F can only leave F and a unit holds one
event at a time (a single kind of event: the ``"stall"`` model with ``s``
spares gives pi(s + 1) / pi(<= s + 1); rack faults that each need more units
than the pool holds give a / (1 + a)).  A rack of many trays is out while any
of its faults is in repair, and the truncated law lets a second fault strike
a rack that is out during a wait, which a stopped job does not: the share is
then high, by about 0.37 a relative for a rack that is out a = rate x E[S]
of the time (against an exact Markov chain of 8 racks, one spare, 18 trays
and exponential repairs: +0.9% at a = 0.024, +3.6% at a = 0.098, +10% at
a = 0.48), so ETTR is understated by as much; the unstopped share is an upper
bound on both.  For whole racks (no spare trays, no bursts) the caller
corrects the odds of waiting by the ratio of the mean waits with and without
faults during them (:func:`drained`), which
leaves a fifth of that error.  With several kinds, the truncation also lets a small event land on a state
of F that a large one reached; those waits do not grow (the large event's
repair still ends them), so the error is second order in the small events'
rate times the wait.  Measured against an event simulation of a 144-node job
in racks of 4 with 2 hot spare nodes (tests/scale/design/test_rack_stops.py):
at Llama 3's node rate and 10^6 FIT a rack, ETTR 0.507 against 0.506 +- 0.005
simulated (0.397 with failures going on); at three times that node rate (1.2
nodes out on average against the pool of 2) the share stopped comes out about
one point high.
"""

import numpy as np
from scipy import integrate, stats

__all__ = ["stopped_share", "unit_classes", "drained"]


def _spread(pmf_events, need, length):
    """pmf of units held (first ``length`` terms) when each event holds ``need`` units."""
    out = np.zeros(length)
    idx = np.arange(pmf_events.size) * need
    keep = idx < length
    out[idx[keep]] = pmf_events[keep]
    return out


def unit_classes(model, q_single, q_domain, dead_p, burst_means, length):
    """[(need, pmf of units held)] by kind of event, kinds of equal need merged (independent counts).

    ``q_single`` the chance a group is out (need 1; under a node pool the
    nodes out by their own faults), ``q_domain`` a whole domain's (node pool
    only), ``dead_p`` a spare's chance to be dead on the shelf, ``burst_means``
    [(span, mean bursts in repair)].
    """
    m = model
    k = np.arange(length)
    n_dom = m.groups // m.need if m.split_groups else 0
    parts = [(1, stats.binom.pmf(k, m.groups, q_single)), (1, stats.binom.pmf(k, m.pool, dead_p))]
    if m.split_groups:
        parts.append((m.need, _spread(stats.binom.pmf(np.arange(length // m.need + 1), n_dom, q_domain),
                                      m.need, length)))
    for span, mean in burst_means:
        parts.append((int(span), _spread(stats.poisson.pmf(np.arange(length // span + 1), mean), span, length)))
    merged = {}
    for need, pmf in parts:
        merged[need] = np.convolve(merged[need], pmf)[:length] if need in merged else pmf
    return sorted(merged.items())


def stopped_share(classes, pool):
    """pi(F) / (pi(N) + pi(F)) for independent ``classes`` [(need, pmf of units held)] sorted by need.

    NaN when both are below the floating-point range (the job would almost
    never run): the caller then keeps the unstopped share.
    """
    length = classes[-1][1].size
    below = np.zeros(length)
    below[0] = 1.0
    empty_above = np.cumprod([pmf[0] for _, pmf in classes][::-1])[::-1]   # P(no event of class j or above)
    in_f = 0.0
    for j, (need, pmf) in enumerate(classes):
        present = pmf.copy()
        present[0] = 0.0                                 # class j is the largest kind present
        joint = np.convolve(below, present)[:length]
        rest = empty_above[j + 1] if j + 1 < len(classes) else 1.0
        in_f += float(joint[pool + 1:pool + need + 1].sum()) * rest
        below = np.convolve(below, pmf)[:length]
    in_n = float(below[:pool + 1].sum())
    total = in_n + in_f
    return in_f / total if total > 0 else float("nan")


def drained(m, share, s_t, s_d):
    """The stopped share of whole groups (no spare trays) corrected for waits in which out groups drain.

    The truncated law of :mod:`.stopped` lets faults strike groups already out while the job waits; a
    stopped job raises none, so a wait ends sooner.  With the same entries into waits, the odds of waiting
    scale by D / D_t: D_t = (e^a - 1) / (rate (pool + 1)) is the mean wait of the truncated law (the least
    of pool + 1 busy periods, a = rate E[S]), and D the mean wait with no faults: the least of the new
    group's repair and the pool's other out groups, each holding Poisson(a) faults given one at least, each
    fault with an exponential time left.  Exact when the pool is 0; against an exact Markov chain of 8 racks
    of 18 trays and one spare it leaves a fifth of the error (0.1368 for 0.1358, the truncation 0.1408).
    """
    rate_t, rate_d = m.trays * m.tray_rate, m.group_rate
    rate = rate_t + rate_d
    a_t, a_d = rate_t * s_t, rate_d * s_d
    a = a_t + a_d
    if m.split_groups or m.spares or m.bursts or not 0 < share < 1 or not 1e-9 < a < 50:
        return share
    tail = -np.expm1(-a)

    def wait(t):
        x, y = np.exp(-t / s_t), np.exp(-t / s_d)
        others = 1.0 - (np.exp(-a_t * x - a_d * y) - np.exp(-a)) / tail
        return (rate_t * x + rate_d * y) / rate * others ** m.pool

    top = 60.0 * max(s_t, s_d)
    step = min(s_t, s_d) / (m.pool + 1)
    d = integrate.quad(wait, 0.0, top, points=[step, 5 * step, 25 * step], limit=200)[0]
    odds = share / (1.0 - share) * d * rate * (m.pool + 1) / np.expm1(a)
    return float(odds / (1.0 + odds))
