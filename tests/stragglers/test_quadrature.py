"""The array quadrature behind E[max] (relmodel.stragglers.quadrature) against closed forms."""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from relmodel.stragglers.quadrature import integrate
from relmodel.stragglers.scaling import expected_max, max_with_slow


@pytest.mark.parametrize("f, edges, exact", [
    (np.log, (0.0, 1.0), -1.0),                                          # log singularity at an end
    (lambda x: 1 / np.sqrt(x), (0.0, 4.0), 4.0),                          # 1/sqrt(x): 2 sqrt(4)
    (lambda x: np.exp(-x), (0.0, 1.0, 10.0, 700.0), -math.expm1(-700.0)),
    (lambda x: expit((x - 3) * 2000), (0.0, 5.0), 2.0 + math.log1p(math.exp(-6000)) / 2000),
    (lambda x: np.abs(x - 1 / 3), (0.0, 1.0), (1 / 9 + 4 / 9) / 2),       # a kink between break points
])
def test_closed_forms(f, edges, exact):
    value, err = integrate(f, edges, epsrel=1e-11)
    assert value == pytest.approx(exact, rel=1e-9, abs=1e-12)
    assert err < 1e-8


def test_max_of_uniforms_closed_forms():
    # E[max of n U(0, 1)] = n / (n + 1)
    for n in (1, 8, 1000, 1_048_576):
        assert expected_max(stats.uniform(), n) == pytest.approx(n / (n + 1), rel=1e-10)
    # n - m draws of U(0, 1) and m of f U(0, 1): E = f - 1 / ((n + 1) f^m) - (f^(m+1) - 1) / ((m + 1) f^m)
    for n, m, f in ((1024, 8, 1.3), (32768, 8, 1.2), (1_048_576, 80, 1.05), (10, 10, 1.5)):
        exact = f - 1 / ((n + 1) * f ** m) - (f ** (m + 1) - 1) / ((m + 1) * f ** m)
        assert max_with_slow(stats.uniform(), n, m, slowdown=f - 1) == pytest.approx(exact, rel=1e-10), (n, m, f)


def test_exponential_max_is_the_harmonic_number():
    # E[max of n Exp(1)] = H_n; with m draws of mean f: no closed form is needed for m = n (f H_n)
    for n in (2, 64, 4096):
        h = float(np.sum(1.0 / np.arange(1, n + 1)))
        assert expected_max(stats.expon(), n) == pytest.approx(h, rel=1e-10)
        assert max_with_slow(stats.expon(), n, n, slowdown=0.5) == pytest.approx(1.5 * h, rel=1e-10)


def test_heavy_tail_with_a_mean_stays_finite():
    # one draw of a Student t with 5 degrees of freedom: E[max of 1] is its mean
    assert expected_max(stats.t(5, loc=10), 1) == pytest.approx(10.0, rel=1e-10)
