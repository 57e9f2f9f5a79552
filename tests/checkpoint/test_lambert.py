"""The numpy Lambert W (relmodel.base.lambert) against scipy.special.lambertw and the defining identity."""

import numpy as np
import pytest
from scipy.special import lambertw

from relmodel.base.lambert import lambert_w

BRANCH = -1 / np.e


def _close(ours, ref):
    err = np.abs(ours - ref) / np.maximum(1.0, np.abs(ref))
    return float(err.max())


def test_principal_branch_matches_scipy_over_three_hundred_decades():
    z = np.concatenate([BRANCH + np.logspace(-6, np.log10(-BRANCH), 3000), -np.logspace(-300, -0.44, 2000),
                        [0.0], np.logspace(-300, 300, 6000)])
    z = z[z >= BRANCH + 1e-6]
    assert _close(lambert_w(z, 0), lambertw(z, 0).real) < 1e-12


def test_lower_branch_matches_scipy_away_from_the_branch_point():
    z = -np.logspace(-300, np.log10(-BRANCH), 4000)
    z = z[z >= BRANCH + 1e-6]
    assert _close(lambert_w(z, -1), lambertw(z, -1).real) < 1e-12


@pytest.mark.parametrize("k", [0, -1])
def test_the_identity_holds_next_to_the_branch_point(k):
    """W e^W = z where both libraries lose digits to the square-root singularity (W±1 ~ sqrt(2(ez+1)))."""
    z = BRANCH + np.logspace(-15, -6, 200)
    w = lambert_w(z, k)
    assert np.all((w >= -1) if k == 0 else (w <= -1))
    assert np.allclose(w * np.exp(w), z, rtol=0, atol=4e-16)
    p = np.sqrt(2 * (np.e * z + 1))  # the first term of the branch-point series, Corless et al. (1996)
    assert np.allclose(w + 1, (1 if k == 0 else -1) * p, rtol=0.01, atol=1e-7)


def test_special_points_and_outside_the_domain():
    assert lambert_w(BRANCH) == -1.0 and lambert_w(BRANCH, -1) == -1.0
    assert lambert_w(0.0) == 0.0 and lambert_w(0.0, -1) == -np.inf and lambert_w(np.inf) == np.inf
    assert abs(lambert_w(np.e) - 1.0) < 1e-15  # W(e) = 1 by hand
    assert np.isnan(lambert_w(-1.0)) and np.isnan(lambert_w(0.5, -1)) and np.isnan(lambert_w(np.nan))
    with pytest.raises(ValueError, match="k=0 and k=-1"):
        lambert_w(1.0, 1)
