"""Gaussian filter algebra: the reduced update (5.24) against the ordinary Kalman update with
C_full = [0, C] (Part H §16, to 1e-12 on random SPD covariances), its covariance form, the information
filter (1.44) against the Kalman filter (1.43), S_NO = 0, and the SPD checks."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from lgbeam.estimation import kalman


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    A = rng.normal(size=(n, n))
    return A @ A.T + 0.5 * np.eye(n)


@pytest.mark.parametrize("n_unobs, n_obs, m", [(3, 4, 2), (3, 8, 6), (2, 5, 5)])
def test_reduced_update_equals_the_kalman_update_with_C_full(rng, n_unobs, n_obs, m):
    for _ in range(10):
        S = _spd(rng, n_unobs + n_obs)
        mu = rng.normal(size=n_unobs + n_obs)
        C, Q, z = rng.normal(size=(m, n_obs)), _spd(rng, m), rng.normal(size=m)
        C_full = np.hstack([np.zeros((m, n_unobs)), C])
        mu_k, S_k = kalman.update(mu, S, C_full, Q, z - C_full @ mu)
        mu_i, S_i = kalman.reduced_update_information(mu, S, n_unobs, C, Q, z)  # the literal (5.24)
        mu_c, S_c = kalman.reduced_update(mu, S, n_unobs, C, Q, z - C @ mu[n_unobs:])
        # 1e-12: condition numbers of these matrices are ≤ ~1e3, so round-off stays near 1e-13
        for a, b in ((mu_i, mu_k), (mu_c, mu_k)):
            assert np.abs(a - b).max() < 1e-12 * max(1.0, np.abs(mu_k).max())
        for a, b in ((S_i, S_k), (S_c, S_k)):
            assert np.abs(a - b).max() < 1e-12 * np.abs(S_k).max()


def test_reduced_update_keeps_the_conditional_of_x_N(rng):
    """(5.2): p(x_N | x_O) is unchanged: same A = Σ_NO Σ_OO⁻¹, b and Σ_{N|O} before and after."""
    k, S, mu = 3, _spd(rng, 9), rng.normal(size=9)
    C, Q = rng.normal(size=(4, 6)), _spd(rng, 4)
    mu2, S2 = kalman.reduced_update(mu, S, k, C, Q, rng.normal(size=4))

    def conditional(mu, S):
        A = S[:k, k:] @ np.linalg.inv(S[k:, k:])
        return A, mu[:k] - A @ mu[k:], S[:k, :k] - A @ S[k:, :k]

    for before, after in zip(conditional(mu, S), conditional(mu2, S2)):
        assert_allclose(after, before, atol=1e-11)


def test_uncorrelated_x_N_is_untouched(rng):
    """Σ_NO = 0 ⇒ the x_N marginal (mean and covariance) is unchanged by the reduced update."""
    S = _spd(rng, 7)
    S[:3, 3:] = S[3:, :3] = 0.0
    mu = rng.normal(size=7)
    C, Q, z = rng.normal(size=(3, 4)), _spd(rng, 3), rng.normal(size=3)
    for mu2, S2 in (kalman.reduced_update_information(mu, S, 3, C, Q, z),
                    kalman.reduced_update(mu, S, 3, C, Q, z - C @ mu[3:])):
        assert_allclose(mu2[:3], mu[:3], atol=1e-12)
        assert_allclose(S2[:3, :3], S[:3, :3], atol=1e-12)
        assert np.abs(S2[:3, 3:]).max() < 1e-12


def test_information_filter_equals_the_kalman_filter(rng):
    """(1.44) against (1.43) for one linear measurement."""
    S, mu = _spd(rng, 5), rng.normal(size=5)
    C, Q, z = rng.normal(size=(3, 5)), _spd(rng, 3), rng.normal(size=3)
    mu_k, S_k = kalman.update(mu, S, C, Q, z - C @ mu)
    Om, xi = kalman.to_information(mu, S)
    mu_i, S_i = kalman.from_information(*kalman.information_update(Om, xi, C, Q, z))
    assert_allclose(mu_i, mu_k, atol=1e-12)
    assert_allclose(S_i, S_k, atol=1e-12)


def test_kalman_update_is_the_gaussian_posterior(rng):
    """Independent truth: the posterior of a jointly Gaussian (x, z) by conditioning the joint covariance."""
    S, mu = _spd(rng, 4), rng.normal(size=4)
    C, Q, z = rng.normal(size=(2, 4)), _spd(rng, 2), rng.normal(size=2)
    joint = np.block([[S, S @ C.T], [C @ S, C @ S @ C.T + Q]])
    gain = joint[:4, 4:] @ np.linalg.inv(joint[4:, 4:])
    mu_k, S_k = kalman.update(mu, S, C, Q, z - C @ mu)
    assert_allclose(mu_k, mu + gain @ (z - C @ mu), atol=1e-12)
    assert_allclose(S_k, S - gain @ joint[4:, :4], atol=1e-12)


@pytest.mark.parametrize("bad, words", [
    (np.array([[1.0, 0.5], [0.0, 1.0]]), "not symmetric"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "not positive definite"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "non-finite"),
    (np.ones((2, 3)), "square"),
])
def test_covariance_that_is_not_spd_is_rejected(bad, words):
    with pytest.raises(ValueError, match=words):
        kalman.check_spd("measurement covariance Q", bad)


def test_reduced_update_rejects_a_non_spd_measurement_covariance():
    with pytest.raises(ValueError, match="measurement covariance Q is not symmetric"):
        kalman.reduced_update_information(np.zeros(4), np.eye(4), 2, np.eye(2), np.array([[1.0, 0.5], [0.0, 1.0]]),
                                          np.zeros(2))


def test_semidefinite_check_accepts_singular_but_not_negative():
    assert kalman.check_spd("P", np.zeros((3, 3)), semidefinite=True).shape == (3, 3)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        kalman.check_spd("P", -np.eye(2), semidefinite=True)
