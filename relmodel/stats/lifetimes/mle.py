"""Maximum likelihood engines for right-censored, left-truncated durations.

The log-likelihood of a sample is

    sum over failures   of log f(t_i)
  + sum over censored   of log S(t_i)
  - sum over truncated  of log S(e_i)

(Klein and Moeschberger, *Survival Analysis*, 2nd ed., 2003, section 3.5).
Three engines cover the families in :mod:`relmodel.stats.lifetimes.registry`:

* closed forms for the exponential;
* a one-dimensional Newton solve of the profile likelihood for the Weibull
  (the scale is profiled out analytically, so each step is a few vectorised
  sums of t^k, t^k ln t and t^k (ln t)^2);
* a damped Newton solver with analytic gradient and Hessian for
  log-location-scale families (Weibull, log-normal, log-logistic), and the same
  solver with central-difference derivatives for the others (gamma).

Every engine returns ``(theta, loglik, hessian)`` in the family's unconstrained
coordinates; :mod:`relmodel.stats.lifetimes.fitting` turns those into a result.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special

from ...errors import FitError

__all__ = ["log1mexp", "Sample", "newton", "numeric_derivs", "richardson_hessian", "aft_derivs", "weibull_profile", "exponential_mle",
           "gamma_derivs", "log_gammaincc"]



def log1mexp(x):
    """``log(1 - exp(x))`` for ``x <= 0``, accurate at both ends (Maechler 2012)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > -np.log(2), np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


@dataclass(frozen=True, eq=False)
class Sample:
    """Durations prepared for fitting: hours, failure mask, entry times, weights.

    ``entry`` is None when nothing is left-truncated; otherwise rows with
    ``entry > 0`` are truncated.  ``w`` (counts of tied rows) is None or a
    float array.  ``logt`` is cached because every family needs it.
    """

    t: np.ndarray
    obs: np.ndarray
    entry: np.ndarray | None = None
    w: np.ndarray | None = None

    @cached_property
    def logt(self):
        """``ln t``, computed once."""
        return np.log(self.t)

    @cached_property
    def tmin(self):
        """The shortest duration."""
        return float(np.min(self.t))

    @cached_property
    def tmax(self):
        """The longest duration."""
        return float(np.max(self.t))

    @cached_property
    def exposure(self):
        """Total time at risk: weighted ``sum(t) - sum(entry)``."""
        return self.total(self.t) - (0.0 if self.entry is None else self.total(self.entry))

    @cached_property
    def failure_log_sum(self):
        """Weighted sum of ``ln t`` over the failures."""
        return self.total(self.logt, self.obs)

    def total(self, x, mask=None):
        """Weighted sum of ``x`` (optionally over ``mask``)."""
        w = self.w
        if mask is not None:
            if not np.ndim(x):
                return float(x * (np.count_nonzero(mask) if w is None else w[mask].sum()))
            weight = mask.astype(float) if w is None else np.where(mask, w, 0.0)
            return float(np.einsum("i,i->", x, weight))
        return float(np.sum(x) if w is None else np.einsum("i,i->", w, x))

    @cached_property
    def d(self):
        """Weighted number of failures."""
        return float(np.count_nonzero(self.obs) if self.w is None else self.w[self.obs].sum())

    def compressed(self):
        """The same sample with tied rows merged into weights (None if few ties)."""
        if self.w is not None or self.entry is not None or self.t.size < 64:
            return None
        tf, nf = np.unique(self.t[self.obs], return_counts=True)
        tc, nc = np.unique(self.t[~self.obs], return_counts=True)
        if tf.size + tc.size > 0.6 * self.t.size:
            return None
        obs = np.concatenate([np.ones(tf.size, bool), np.zeros(tc.size, bool)])
        return Sample(np.concatenate([tf, tc]), obs, None, np.concatenate([nf, nc]).astype(float))


def newton(fun, theta0, *, max_iter=100, tol=1e-10, bound=40.0):
    """Maximise a concave-near-the-optimum function by damped Newton steps.

    ``fun(theta)`` returns ``(value, gradient, hessian)`` of the function to
    maximise.  Steps use Levenberg-Marquardt damping when the Hessian is not
    negative definite and are halved until the value improves.  It stops when
    the Hessian is negative definite and the full Newton step (the estimated
    distance to the maximum) is below ``tol`` in every coordinate.  Raises
    :class:`FitError` when no step improves, the iteration limit is hit, or a
    coordinate moves more than ``bound`` from its start (a factor e^40 for a
    log parameter: the likelihood has no finite maximum).
    """
    theta = np.asarray(theta0, float)
    start = theta.copy()
    val, g, h = fun(theta)
    if not np.isfinite(val):
        raise FitError("the log-likelihood is not finite at the starting values")
    lam = 0.0
    for _ in range(max_iter):
        concave = _concave(h)
        step = _newton_step(g, h, 0.0 if concave else lam)
        if concave and np.max(np.abs(step)) < tol:
            return theta, val, h
        for _halving in range(40):
            cand = theta + step
            cval, cg, ch = fun(cand)
            if np.isfinite(cval) and cval >= val - 1e-13 * abs(val):
                break
            step = step / 2.0
        else:
            if concave and np.max(np.abs(step)) * 2**40 < 1e3 * tol:
                return theta, val, h  # at the noise floor of the likelihood
            raise FitError("the optimiser found no step that improves the likelihood")
        theta, val, g, h = cand, cval, cg, ch
        if np.max(np.abs(theta - start)) > bound:
            raise FitError("the likelihood has no finite maximum: it keeps rising as the parameters run off "
                           "towards a degenerate distribution")
        lam = 0.0 if concave else max(1e-3, lam * 10)
    raise FitError("the optimiser did not converge in {} iterations".format(max_iter))


def _newton_step(g, h, lam):
    neg = -np.asarray(h, float)
    scale = max(1.0, np.max(np.abs(np.diag(neg))))
    try:
        np.linalg.cholesky(neg)
        mat = neg + lam * scale * np.eye(len(g))
    except np.linalg.LinAlgError:
        # Not concave here: shift the spectrum so the step goes uphill.
        eig = np.linalg.eigvalsh(neg)
        mat = neg + (abs(eig.min()) + max(lam, 1e-3) * scale) * np.eye(len(g))
    step = np.linalg.solve(mat, g)
    big = np.max(np.abs(step))
    return step if big <= 2.0 else step * (2.0 / big)


def _concave(h):
    try:
        np.linalg.cholesky(-np.asarray(h, float))
    except (np.linalg.LinAlgError, ValueError):
        return False
    return True


def numeric_derivs(loglik, theta, h=1e-4):
    """Value, central-difference gradient and Hessian of ``loglik`` at ``theta``."""
    theta = np.asarray(theta, float)
    p = theta.size
    f0 = loglik(theta)
    g = np.empty(p)
    hess = np.empty((p, p))
    e = np.eye(p) * h
    fp = [loglik(theta + e[i]) for i in range(p)]
    fm = [loglik(theta - e[i]) for i in range(p)]
    for i in range(p):
        g[i] = (fp[i] - fm[i]) / (2 * h)
        hess[i, i] = (fp[i] - 2 * f0 + fm[i]) / h**2
        for j in range(i):
            fpp = loglik(theta + e[i] + e[j])
            fmm = loglik(theta - e[i] - e[j])
            hess[i, j] = hess[j, i] = (fpp - fp[i] - fp[j] + 2 * f0 - fm[i] - fm[j] + fmm) / (2 * h**2)
    return f0, g, hess


def richardson_hessian(loglik, theta, h=2e-3):
    """Hessian of ``loglik`` by central differences at steps ``h`` and ``2h``, Richardson-combined.

    ``(4 H(h) - H(2h)) / 3`` cancels the O(h^2) truncation term, so a step
    large enough to swamp rounding in the likelihood (about 1e-13 per row)
    still gives the curvature to about 1e-8 relative.
    """
    small = numeric_derivs(loglik, theta, h=h)[2]
    large = numeric_derivs(loglik, theta, h=2 * h)[2]
    return (4 * small - large) / 3


def aft_derivs(base, sample, theta):
    """Log-likelihood, gradient and Hessian of a log-location-scale model.

    ``ln T = m + s W`` where ``W`` has the standard law ``base`` (see
    :mod:`relmodel.stats.lifetimes.registry`) and ``theta = (m, ln s)``.  With
    ``z = (ln t - m)/s``, a failure contributes ``log f0(z) - ln s - ln t``
    and a censored row ``log S0(z)``; a truncated row subtracts
    ``log S0(z_entry)``.  Derivatives follow from ``dz/dm = -1/s`` and
    ``dz/d ln s = -z``.
    """
    m, a = float(theta[0]), float(theta[1])
    s = np.exp(a)
    z = (sample.logt - m) / s
    val, g, g2 = base.terms(z, sample.obs)
    val = val - np.where(sample.obs, a + sample.logt, 0.0)
    parts = [(val, g, g2, z, sample.obs.astype(float), sample.w)]
    if sample.entry is not None:
        cut = sample.entry > 0
        if cut.any():
            ze = (np.log(sample.entry[cut]) - m) / s
            ve, ge, g2e = base.terms(ze, np.zeros(ze.size, bool))
            we = None if sample.w is None else sample.w[cut]
            parts.append((-ve, -ge, -g2e, ze, 0.0, we))
    total = 0.0
    grad = np.zeros(2)
    hess = np.zeros((2, 2))
    for v, gg, gg2, zz, ob, w in parts:
        sm = np.sum if w is None else (lambda x, w=w: float(np.dot(w, x)))
        total += sm(v)
        grad += [sm(-gg) / s, sm(-gg * zz - ob)]
        hmm, hma, haa = sm(gg2) / s**2, sm(gg2 * zz + gg) / s, sm(gg2 * zz**2 + gg * zz)
        hess += [[hmm, hma], [hma, haa]]
    return total, grad, hess


def exponential_mle(sample):
    """Closed-form exponential MLE: ``(scale, loglik, d, exposure)``.

    The exposure is the total time at risk, ``sum(t) - sum(entry)``; the MLE
    of the mean is exposure / failures.
    """
    exposure = sample.exposure
    d = sample.d
    if d <= 0 or exposure <= 0:
        raise FitError("no failures observed: the exponential mean is unbounded")
    scale = exposure / d
    return scale, -d * np.log(scale) - d, d, exposure


def weibull_profile(sample, k0, *, max_iter=100):
    """Weibull MLE by Newton on the profile likelihood of the shape ``k``.

    For fixed ``k`` the scale maximising the likelihood is
    ``scale^k = A(k)/d`` with ``A(k) = sum(t^k) - sum(entry^k)`` (Cohen,
    *Technometrics* 7, 1965).  The profile score is
    ``d/k + sum_fail ln t - d A1/A`` with ``A1 = sum(t^k ln t) - ...``; its
    derivative needs ``A2`` (the ``(ln t)^2`` sum).  Durations are divided by
    their largest value first so ``t^k`` never overflows.

    Returns ``(theta, loglik, hessian)`` with ``theta = (ln k, ln scale)``.
    """
    c = sample.tmax
    lt = sample.logt - np.log(c)
    le = None
    if sample.entry is not None and np.any(sample.entry > 0):
        cut = sample.entry > 0
        le = np.log(sample.entry[cut]) - np.log(c)
        we = None if sample.w is None else sample.w[cut]
    d = sample.d
    s_l = sample.failure_log_sum - d * np.log(c)
    k = float(k0)
    lo, hi = 0.0, np.inf
    for _ in range(max_iter):
        a0, a1, a2 = _power_sums(lt, sample.w, k)
        if le is not None:
            e0, e1, e2 = _power_sums(le, we, k)
            a0, a1, a2 = a0 - e0, a1 - e1, a2 - e2
        score = d / k + s_l - d * a1 / a0
        deriv = -d / k**2 - d * (a2 / a0 - (a1 / a0) ** 2)
        if score > 0:
            lo = max(lo, k)
        else:
            hi = min(hi, k)
        new = k - score / deriv if deriv < 0 else np.nan
        if abs(new - k) <= 1e-13 * k:  # a Newton step below the resolution of k (NaN fails)
            k = new
            break
        if not (lo < new < hi) or not np.isfinite(new):
            new = (lo + hi) / 2 if np.isfinite(hi) else max(2 * k, lo * 2)
        if abs(new - k) <= 1e-13 * k:
            k = new
            break
        k = new
        if k > 1e4:
            raise FitError("the Weibull shape is unbounded (the failure times are nearly identical)")
    else:
        raise FitError("the Weibull shape did not converge")
    a0, a1, a2 = _power_sums(lt, sample.w, k)
    if le is not None:
        e0, e1, e2 = _power_sums(le, we, k)
        a0, a1, a2 = a0 - e0, a1 - e1, a2 - e2
    u = np.log(a0 / d) / k  # ln scale, in units of c
    theta = np.array([np.log(k), u + np.log(c)])
    ll = d * np.log(k) - d * k * (u + np.log(c)) + (k - 1) * sample.failure_log_sum - d
    return theta, ll, _weibull_hessian(k, u, d, a0, a1, a2)


def _power_sums(lt, w, k):
    tk = np.exp(k * lt)
    x = tk * lt
    if w is None:
        return float(tk.sum()), float(x.sum()), float((x * lt).sum())
    return float(w @ tk), float(w @ x), float(w @ (x * lt))


def _weibull_hessian(k, u, d, a0, a1, a2):
    """Hessian of the Weibull log-likelihood in ``(ln k, ln scale)`` at the MLE."""
    e = np.exp(-k * u)
    g = e * a0
    g_k = e * (a1 - u * a0)
    g_kk = e * (a2 - 2 * u * a1 + u * u * a0)
    g_ku = -k * g_k - g
    l_kk = -d / k**2 - g_kk
    l_ku = -d - g_ku
    l_uu = -(k**2) * g
    # d/d(ln k) = k d/dk; the extra k * dl/dk term vanishes at the optimum.
    return np.array([[k * k * l_kk, k * l_ku], [k * l_ku, l_uu]])


def log_gammaincc(a, x):
    """``log Q(a, x)``, the log of the regularised upper incomplete gamma function."""
    q = special.gammaincc(a, x)
    with np.errstate(divide="ignore"):
        out = np.log(q)
    small = q < 1e-280
    if np.any(small):
        # Asymptotic tail: Q(a, x) ~ x^(a-1) e^-x / Gamma(a) * (1 + (a-1)/x).
        xs = np.asarray(x)[small] if np.ndim(x) else x
        out[small] = (a - 1) * np.log(xs) - xs - special.gammaln(a) + np.log1p((a - 1) / xs)
    return out


def _gamma_tail(x, w, k):
    """Sums of ``log Q(k, x)`` and its derivatives in ``k`` and ``phi = ln scale``.

    With ``r = x^k e^-x / (Gamma(k) Q)``: d/dphi log Q = r, d2/dphi2 = r (x - k - r),
    d2/dk dphi = r (ln x - digamma(k) - d/dk log Q).  The ``k`` derivatives of
    ``log Q`` are central differences (no closed form exists).
    """
    h = 1e-4 * k
    q0 = log_gammaincc(k, x)
    qp, qm = log_gammaincc(k + h, x), log_gammaincc(k - h, x)
    qk = (qp - qm) / (2 * h)
    qkk = (qp - 2 * q0 + qm) / h**2
    lx = np.log(x)
    r = np.exp(k * lx - x - special.gammaln(k) - q0)
    cols = (q0, qk, qkk, r, r * (x - k - r), r * (lx - special.digamma(k) - qk))
    return np.array([c.sum() if w is None else w @ c for c in cols])


def gamma_derivs(parts, theta):
    """Gamma log-likelihood, gradient and Hessian in ``theta = (ln shape, ln scale)``.

    ``parts`` is ``(d, sum_fail ln t, sum_fail t, censored t, weights, entry t,
    weights)``.  Failures contribute ``(k-1) ln t - t/scale - k ln scale -
    lnGamma(k)``, through three sums; censored rows ``log Q(k, t/scale)``;
    truncated rows subtract ``log Q(k, e/scale)``.
    """
    d, s_lt, s_t, tc, wc, te, we = parts
    k, scale = np.exp(theta)
    phi = float(theta[1])
    val = (k - 1) * s_lt - s_t / scale - d * (k * phi + special.gammaln(k))
    g = np.array([s_lt - d * phi - d * special.digamma(k), s_t / scale - d * k])
    h = np.array([[-d * special.polygamma(1, k), -d], [-d, -s_t / scale]])
    for x, w, sign in ((tc, wc, 1.0), (te, we, -1.0)):
        if x is not None and x.size:
            q, qk, qkk, r, rr, rk = sign * _gamma_tail(x / scale, w, k)
            val += q
            g += [qk, r]
            h += [[qkk, rk], [rk, rr]]
    if not np.isfinite(val):
        return -np.inf, g, h
    grad = np.array([k * g[0], g[1]])
    hess = np.array([[k * k * h[0, 0] + k * g[0], k * h[0, 1]], [k * h[0, 1], h[1, 1]]])
    return float(val), grad, hess
