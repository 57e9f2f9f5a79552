"""Good and bad nodes with repairs that may leave the fault: likelihood, gradient and maximum-likelihood fit.

A node is bad with probability ``bad_share`` at the start (failure rate
``multiplier * lam`` per hour of service) or good (rate ``lam``).  Each repair
of a bad node fixes it for good with probability ``1 - unfixed``.  A node with
``n`` in-service intervals was bad for its first ``j`` of them, ``j = 0..n``;
its likelihood sums the ``n + 1`` paths.  Every path of every node is one
entry of flat arrays (:class:`Paths`), so the log-likelihood is a per-node
log-sum-exp (``np.maximum.reduceat`` / ``np.add.reduceat``) with no loop over
nodes; its gradient and Hessian are exact (the Hessian is the paths' posterior
covariance of their scores, one pass).  Parameters are fitted on the scales
``logit(bad_share), log(multiplier - 1), log(lam), logit(unfixed)``.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

__all__ = ["Paths", "paths", "loglik", "fit_twoclass", "natural", "hessian", "hessian_fd", "node_posterior_bad", "subset", "homogeneous_loglik",
           "NAMES"]


def _dot(a, b):
    """Sum of products without BLAS (whose threads spin on a busy machine)."""
    return float(np.einsum("i,i->", a, b))


NAMES = ("bad_share", "multiplier", "lam", "unfixed")
#: Bounds of the fit on its own scales (logit share, log(m - 1), log lam relative to the pooled rate, logit unfixed).
_BOUNDS = [(-14.0, 8.0), (-7.0, 7.0), (-12.0, 4.0), (-12.0, 12.0)]


@dataclass(frozen=True, eq=False)
class Paths:
    """Every (node, j) path as flat arrays; ``weight`` counts identical nodes, ``trunc_h`` the window of a
    node whose likelihood is conditioned on at least one failure (0: not conditioned)."""

    node: np.ndarray
    starts: np.ndarray
    k1: np.ndarray     # coefficient of log(bad_share); 1 - k1 is that of log(1 - bad_share)
    k3: np.ndarray     # of log(unfixed)
    k4: np.ndarray     # of log(1 - unfixed)
    d: np.ndarray      # failures while bad
    u: np.ndarray      # hours in service while bad
    fails: np.ndarray  # per node
    expo: np.ndarray   # per node
    weight: np.ndarray  # per node
    trunc_h: np.ndarray  # per node
    last: np.ndarray   # index of each node's j = n path
    feats: np.ndarray  # k1, k3, k4, d, u stacked (5 x paths), for one pass over them


def _paths(node, starts, feats, fails, expo, weight, trunc_h, last):
    k1, k3, k4, d, u = feats   # views of the stacked rows
    return Paths(node, starts, k1, k3, k4, d, u, fails, expo, weight, trunc_h, last, feats)


def paths(n, u, failed, weight, trunc_h):
    """The flat path arrays of nodes with ``n`` intervals each (``u``, ``failed`` node by node).

    Path ``j`` of a node holds the node's hours and failures in its first ``j`` intervals: a running sum over
    the intervals with a zero put before each node's first (the same sums, bit for bit, as differences of
    one cumulative sum), so no index arithmetic per path."""
    n = np.asarray(n, np.int64)
    nodes = n.size
    reps = n + 1
    total = int(reps.sum())
    node = np.repeat(np.arange(nodes), reps)
    starts = np.zeros(nodes, np.int64)
    np.cumsum(reps[:-1], out=starts[1:])
    last = starts + n
    is_start = np.zeros(total, bool)
    is_start[starts] = True
    feats = np.empty((5, total))
    k1, k3, k4, d, bad_u = feats
    # u: running hours, d: running failures (each restarted at the node's j = 0 path)
    bad_u[is_start] = 0.0
    bad_u[~is_start] = u
    np.cumsum(bad_u, out=bad_u)
    bad_u -= np.repeat(bad_u[starts], reps)
    d[is_start] = 0.0
    d[~is_start] = failed
    np.cumsum(d, out=d)
    d -= np.repeat(d[starts], reps)
    k1.fill(1.0)                                   # bad at the start: every path but j = 0
    k1[starts] = 0.0
    k3.fill(1.0)                                   # j - 1: a running count, back to -1 at each node's j = 0
    k3[starts[1:]] = -n[:-1]                       # (down from n - 1 on the node before's last path)
    k3[:1] = -1.0
    np.cumsum(k3, out=k3)
    np.maximum(k3, 0.0, out=k3)                    # repairs that left the fault: j - 1, and n - 1 at j = n
    k3[starts[n == 0]] = -1.0
    np.copyto(k4, k1)                              # the repair that fixed it: 1 <= j < n
    k4[last] = 0.0
    return _paths(node, starts, feats, d[last].copy(), bad_u[last].copy(), np.asarray(weight, float),
                  np.asarray(trunc_h, float), last)


def subset(p, chosen, scale_weight=1.0):
    """The paths of the nodes ``chosen`` (sorted indices), their weights times ``scale_weight`` where 1."""
    chosen = np.asarray(chosen, np.int64)
    count = p.last[chosen] - p.starts[chosen] + 1
    starts = np.zeros(chosen.size, np.int64)
    np.cumsum(count[:-1], out=starts[1:])
    at = np.arange(int(count.sum()), dtype=np.int64)   # the chosen nodes' paths: runs of the flat arrays
    at += np.repeat(p.starts[chosen] - starts, count)
    node = np.repeat(np.arange(chosen.size), count)
    w = p.weight[chosen]
    w = np.where(w == 1, scale_weight, w)
    return _paths(node, starts, p.feats[:, at], p.fails[chosen], p.expo[chosen], w, p.trunc_h[chosen],
                  starts + count - 1)


def natural(theta, scale):
    """(bad_share, multiplier, lam, unfixed) from the fit's scales; ``scale`` is the pooled rate lam is relative to."""
    a, b, c, e = theta
    return special.expit(a), 1.0 + np.exp(b), scale * np.exp(c), special.expit(e)


def _truncation(p, pi, m, lam, trunc_h):
    """Sum over nodes of -log P(at least one failure in the window), and its gradient on the fit's scales."""
    on = p.trunc_h > 0
    if not on.any():
        return 0.0, np.zeros(4)
    w, t = p.weight[on], p.trunc_h[on]
    eg, eb = np.exp(-lam * t), np.exp(-m * lam * t)
    q = -(1 - pi) * np.expm1(-lam * t) - pi * np.expm1(-m * lam * t)  # P(at least one failure)
    dq_pi = np.expm1(-lam * t) - np.expm1(-m * lam * t)
    dq_m = pi * lam * t * eb
    dq_lam = (1 - pi) * t * eg + pi * m * t * eb
    grad = -np.array([np.sum(w * dq_pi / q) * pi * (1 - pi), np.sum(w * dq_m / q) * (m - 1),
                      np.sum(w * dq_lam / q) * lam, 0.0])
    return -float(np.sum(w * np.log(q))), grad


def _coefficients(theta, scale):
    """The natural parameters, the five features' coefficients at ``theta``, and log(1 - bad_share) (on every path)."""
    pi, m, lam, nu = natural(theta, scale)
    a, e = theta[0], theta[3]
    lpi, l1pi = -np.logaddexp(0, -a), -np.logaddexp(0, a)
    lnu, l1nu = -np.logaddexp(0, -e), -np.logaddexp(0, e)
    return (pi, m, lam, nu), np.array([lpi - l1pi, lnu, l1nu, np.log(m), -lam * (m - 1)]), l1pi


def loglik(theta, p, scale=1.0, posterior=False, hess=False):
    """Log-likelihood and its gradient at ``theta`` (the fit's scales); with ``posterior``, each path's
    posterior probability too; with ``hess``, the exact Hessian (4 x 4) last."""
    (pi, m, lam, nu), coef, const = _coefficients(theta, scale)
    x = np.einsum("ij,i->j", p.feats, coef)
    top = np.maximum.reduceat(x, p.starts)
    ex = np.exp(x - top[p.node])
    tot = np.add.reduceat(ex, p.starts)
    per_node = top + np.log(tot) + const + p.fails * np.log(lam) - lam * p.expo
    post = ex / tot[p.node]
    weighted = p.weight.max(initial=1) != 1
    wp = post * p.weight[p.node] if weighted else post
    s1, s3, s4, sd, su = np.einsum("ij,j->i", p.feats, wp)
    s2 = float(np.sum(p.weight)) - s1   # the posteriors sum to each node's weight
    grad = np.array([s1 * (1 - pi) - s2 * pi, (m - 1) * (sd / m - lam * su),
                     -lam * (m - 1) * su + _dot(p.weight, p.fails - lam * p.expo), s3 * (1 - nu) - s4 * nu])
    trunc, tgrad = _truncation(p, pi, m, lam, p.trunc_h)
    ll = float(_dot(p.weight, per_node)) + trunc
    out = (ll, grad + tgrad)
    if posterior:
        out += (post,)
    if hess:
        out += (_hessian(theta, p, scale, post, wp, (s1, s2, s3, s4, sd, su)),)
    return out


def _hessian(theta, p, scale, post, wp, sums):
    """The Hessian of the log-likelihood from the paths' posterior: each node's log-sum-exp over its paths
    has for Hessian the posterior covariance of the paths' scores (``J' f``, ``J`` the Jacobian of the
    features' coefficients) plus the posterior mean of the features times the coefficients' own second
    derivatives; the truncation term's by central differences of its exact gradient (per node, cheap)."""
    pi, m, lam, nu = natural(theta, scale)
    s1, s2, s3, s4, sd, su = sums
    # the scores are linear in the features k1, k3, k4, d, u: their covariance, then mapped
    amap = np.zeros((4, 5))
    amap[0, 0] = 1.0
    amap[1, 3], amap[1, 4] = (m - 1) / m, -lam * (m - 1)
    amap[2, 4] = -lam * (m - 1)
    amap[3, 1], amap[3, 2] = 1 - nu, -nu
    buf = p.feats * wp
    gram = np.einsum("ik,jk->ij", buf, p.feats)
    node_sums = np.add.reduceat(buf, p.starts, axis=1)   # weight times each node's posterior mean
    gram -= np.einsum("ik,jk,k->ij", node_sums, node_sums, 1.0 / p.weight)
    h = amap @ gram @ amap.T
    h[0, 0] -= (s1 + s2) * pi * (1 - pi)
    h[3, 3] -= (s3 + s4) * nu * (1 - nu)
    h[1, 1] += sd * (m - 1) / m ** 2 - su * lam * (m - 1)
    h[1, 2] -= su * lam * (m - 1)
    h[2, 1] -= su * lam * (m - 1)
    h[2, 2] -= su * lam * (m - 1) + lam * _dot(p.weight, p.expo)
    if (p.trunc_h > 0).any():
        step = 1e-5
        for i in range(3):   # the truncation does not involve unfixed
            dt = step * np.eye(4)[i]
            hi = _truncation(p, *natural(theta + dt, scale)[:3], p.trunc_h)[1]
            lo = _truncation(p, *natural(theta - dt, scale)[:3], p.trunc_h)[1]
            h[i] += (hi - lo) / (2 * step)
        h = (h + h.T) / 2
    return h


def _starts(scale):
    """Starting points on the fit's scales: a few (share, multiplier, unfixed) guesses, lam a little under the pool."""
    out = []
    for pi, m, nu in ((0.05, 10.0, 0.5), (0.2, 3.0, 0.3), (0.01, 30.0, 0.7)):
        out.append(np.array([special.logit(pi), np.log(m - 1), np.log(0.7), special.logit(nu)]))
    return out


def _fenced(theta, p, scale):
    """Minus the log-likelihood and its gradient, inside the bounds; outside them a steep quadratic wall (so a
    plain BFGS, whose line search needs no bounds, never walks off to where the rates overflow)."""
    lo, hi = np.array(_BOUNDS).T
    inside = np.clip(theta, lo, hi)
    over = theta - inside
    ll, grad = loglik(inside, p, scale)
    wall = 1e3 * (1.0 + abs(ll))
    return -ll + wall * float(over @ over), -grad + 2 * wall * over


def _best_start(p, scale, sample=500):
    """Starting points, each with the inverse Hessian to start BFGS with (None: the identity).  With many nodes,
    the best start on a sample of them (weighted up to the fleet), with the sample's inverse Hessian."""
    starts = _starts(scale)
    listed = np.flatnonzero(p.weight == 1)
    if listed.size <= 4 * sample:
        return [(x0, None) for x0 in starts]
    chosen = np.sort(np.concatenate([np.random.default_rng(0).choice(listed, sample, replace=False),
                                     np.flatnonzero(p.weight != 1)]))
    small = subset(p, chosen, listed.size / sample)
    fits = [optimize.minimize(_fenced, x0, args=(small, scale), jac=True, method="BFGS",   # gradient weighted up too
                              options={"maxiter": 200, "gtol": 1e-2 * listed.size / sample}) for x0 in starts]
    best = min(fits, key=lambda r: r.fun)
    h0 = (best.hess_inv + best.hess_inv.T) / 2  # the sample is weighted up to the fleet: its scale is the fleet's
    return [(best.x, h0 if np.linalg.eigvalsh(h0).min() > 1e-12 else None)]


#: Listed nodes above which the fit runs on a sample of them and finishes with Newton steps on the whole fleet.
SAMPLED_FIT = 10_000


def _bfgs(p, scale):
    best = None
    for x0, h0 in _best_start(p, scale):
        res = optimize.minimize(_fenced, x0, args=(p, scale), jac=True, method="BFGS",
                                options={"maxiter": 400, "gtol": 1e-2, "hess_inv0": h0})
        if best is None or res.fun < best.fun:
            best = res
    return best.x, bool(best.success)


def _newton(theta, p, scale, steps=12, tol=0.01):
    """Newton steps from a start close to the maximum, with the exact gradient and Hessian at each point,
    each step halved until the likelihood does not fall (beyond rounding), until a step taken is below
    ``tol`` standard errors or the next one would be below a tenth of that:
    ``(theta, converged, (loglik, gradient, path posteriors, Hessian) at theta)``."""
    lo, hi = np.array(_BOUNDS).T
    ev = loglik(theta, p, scale, posterior=True, hess=True)
    for _ in range(steps):
        ll, grad, _, h = ev
        info = -h
        if not np.all(np.isfinite(info)) or np.linalg.eigvalsh(info).min() <= 0:
            return theta, False, ev
        se = np.sqrt(np.diag(np.linalg.inv(info)))
        step = np.linalg.solve(info, grad)
        if np.max(np.abs(step) / se) < tol / 10:   # already there: Newton's next step would be tinier still
            return theta, True, ev
        for _ in range(20):
            cand = np.clip(theta + step, lo, hi)
            ev_c = loglik(cand, p, scale, posterior=True, hess=True)
            if ev_c[0] >= ll - 1e-9 - 1e-12 * abs(ll):   # not below ll by more than rounding
                break
            step = step / 2
        else:
            return theta, False, ev
        theta, ev = cand, ev_c
        if np.max(np.abs(step) / se) < tol:
            return theta, True, ev
    return theta, False, ev


#: Paths further than this below their node's likeliest one (in log-likelihood) are left out of the fleet's
#: Newton steps; at the maximum, those left out must still be :data:`_PRUNE_CHECK` below, or all are used.
_PRUNE_GAP, _PRUNE_CHECK = 60.0, 40.0


def _gaps(p, theta, scale):
    """Each path's log-likelihood at ``theta`` less that of its node's likeliest path."""
    x = np.einsum("ij,i->j", p.feats, _coefficients(theta, scale)[1])
    x -= np.repeat(np.maximum.reduceat(x, p.starts), np.diff(np.append(p.starts, x.size)))
    return x


def _prune(p, theta, scale):
    """The paths within :data:`_PRUNE_GAP` of their node's likeliest at ``theta`` (every node keeps its
    likeliest), and which they are: a node's dropped paths weigh under ``exp(-60)`` of it there."""
    keep = _gaps(p, theta, scale) > -_PRUNE_GAP
    node = p.node[keep]
    starts = np.flatnonzero(np.append(True, node[1:] != node[:-1]))
    feats = np.compress(keep, p.feats, axis=1)
    return _paths(node, starts, feats, p.fails, p.expo, p.weight, p.trunc_h, starts), keep


def _pruned_newton(theta, p, scale):
    """:func:`_newton` on the paths that matter near ``theta``; at the end the paths left out are checked to
    weigh nothing (under ``exp(-40)`` of their node's likeliest) and the posterior is given on every path."""
    small, keep = _prune(p, theta, scale)
    if keep.all():
        return _newton(theta, p, scale)
    theta, ok, ev = _newton(theta, small, scale)
    if _gaps(p, theta, scale).max(where=~keep, initial=-np.inf) > -_PRUNE_CHECK:   # moved too far: every path
        return _newton(theta, p, scale)
    post = np.zeros(keep.size)
    post[keep] = ev[2]
    return theta, ok, (ev[0], ev[1], post, ev[3])


def fit_twoclass(p, details=False):
    """Maximum-likelihood fit: ``(theta, loglik, scale, converged)`` with ``scale`` the pooled rate per hour;
    with ``details``, also each path's posterior and the observed information at ``theta``.

    A fleet of more than :data:`SAMPLED_FIT` listed nodes is fitted on a sample of that many (weighted up
    to the fleet): the best of a few starts on a smaller sample, then Newton steps with the exact Hessian on
    the sample and on every node: the same maximum, with a few passes over the whole fleet instead of a
    hundred."""
    scale = float(_dot(p.weight, p.fails) / _dot(p.weight, p.expo))
    listed = np.flatnonzero(p.weight == 1)
    ev = None
    if listed.size > 2 * SAMPLED_FIT:
        chosen = np.sort(np.concatenate([np.random.default_rng(1).choice(listed, SAMPLED_FIT, replace=False),
                                         np.flatnonzero(p.weight != 1)]))
        small = subset(p, chosen, listed.size / SAMPLED_FIT)
        x0, ok, _ = _pruned_newton(_best_start(p, scale)[0][0], small, scale)
        if not ok:
            x0, _ = _bfgs(small, scale)
        theta, ok, ev = _pruned_newton(x0, p, scale)
        if not ok:   # far from the maximum after all: the whole fleet's BFGS from there
            theta, ok = _bfgs(p, scale)
            ev = None
    else:
        theta, ok = _bfgs(p, scale)
    lo, hi = np.array(_BOUNDS).T
    theta = np.clip(theta, lo, hi)
    if ev is None:
        ev = loglik(theta, p, scale, posterior=True, hess=details)
    if details:
        return theta, ev[0], scale, ok, ev[2], -ev[3]
    return theta, ev[0], scale, ok


def homogeneous_loglik(p, scale):
    """The log-likelihood of one rate for all nodes (no bad class), at its maximum: comparable with
    :func:`loglik` (the same terms with ``bad_share`` 0)."""
    w, s, u, t = p.weight, p.fails, p.expo, p.trunc_h

    def ll(log_lam):
        lam = np.exp(log_lam)
        out = _dot(w, s * log_lam - lam * u)
        cut = t > 0
        return out - (_dot(w[cut], np.log(-np.expm1(-lam * t[cut]))) if cut.any() else 0.0)

    c = np.log(scale)
    res = optimize.minimize_scalar(lambda v: -ll(v), bounds=(c - 8, c + 4), method="bounded",
                                   options={"xatol": 1e-10})
    return -float(res.fun)


def hessian(theta, p, scale):
    """Observed information (minus the Hessian of the log-likelihood) on the fit's scales, exact, in one pass
    over the paths."""
    return -loglik(theta, p, scale, hess=True)[2]


def hessian_fd(theta, p, scale, step=1e-4):
    """:func:`hessian` by forward differences of the exact gradient (symmetrised): the slow check of it."""
    g0 = loglik(theta, p, scale)[1]
    h = np.array([(loglik(theta + step * np.eye(4)[i], p, scale)[1] - g0) / step for i in range(4)])
    return -(h + h.T) / 2


def node_posterior_bad(theta, p, scale):
    """Each node's posterior probability of being bad at the end of its observation (its j = n path), and of
    having been bad at its start (every path but j = 0: bad at some time in the log)."""
    post = loglik(theta, p, scale, posterior=True)[2]
    return post[p.last], 1.0 - post[p.starts]
