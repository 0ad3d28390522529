"""Gaussian filter algebra: Kalman and information-filter steps and the reduced update (5.24).

Symbols (Thrun's convention, as in the thesis): ``R`` process noise, ``Q`` measurement noise;
``Σ`` covariance, ``Ω = Σ⁻¹`` precision, ``ξ = Ω μ`` information vector; for a split state
``x = (x_N, x_O)`` the blocks ``Σ_NN, Σ_NO, Σ_OO`` and ``A = Σ_NO Σ_OO⁻¹``, ``b = μ_N − A μ_O``,
``Ω_{N|O} = (Σ_NN − A Σ_ON)⁻¹``.

References
----------
Shen, X. (2019), PhD thesis, UCSD (seed 003): eq. (1.43) Kalman filter, (1.44) information filter,
(5.2) the reduced Bayesian update, (5.24) its Gaussian form.
Thrun, Burgard & Fox (2005), *Probabilistic Robotics*, Tables 3.1 and 3.6.
"""

from __future__ import annotations

import logging

import numpy as np
import scipy.linalg as sla

from lgbeam._typing import FloatArray

logger = logging.getLogger(__name__)

__all__ = [
    "check_spd",
    "from_information",
    "information_update",
    "predict",
    "reduced_update",
    "reduced_update_information",
    "to_information",
    "update",
]

SYMMETRY_RTOL = 1e-9
"""Relative asymmetry ``max|Σ − Σᵀ| / max|Σ|`` above which a covariance is rejected."""


def check_spd(name: str, S: FloatArray, *, semidefinite: bool = False) -> FloatArray:
    """Return ``S`` as a float array if it is a symmetric positive (semi)definite matrix; else ValueError.

    Parameters
    ----------
    name
        What the matrix is, for the message (e.g. ``"measurement covariance Q"``).
    S
        ``(n, n)`` matrix.
    semidefinite
        Accept a singular ``S`` (all eigenvalues ≥ −1e-12 ‖S‖).
    """
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix; got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"{name} has non-finite entries; check the model or the data that produced it")
    scale = float(np.abs(S).max()) if S.size else 0.0
    asym = float(np.abs(S - S.T).max()) if S.size else 0.0
    if asym > SYMMETRY_RTOL * max(scale, 1e-300):
        raise ValueError(f"{name} is not symmetric (max |S - Sᵀ| = {asym:.3g}); pass (S + S.T) / 2 "
                         "or fix the formula that built it")
    if S.size == 0:
        return S
    if semidefinite:
        lo = float(np.linalg.eigvalsh(S).min())
        if lo < -1e-12 * max(scale, 1e-300):
            raise ValueError(f"{name} is not positive semidefinite (smallest eigenvalue {lo:.3g}); "
                             "a covariance needs non-negative variances in every direction")
        return S
    try:
        np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        lo = float(np.linalg.eigvalsh(S).min())
        raise ValueError(f"{name} is not positive definite (smallest eigenvalue {lo:.3g}); give every "
                         "direction a positive variance") from None
    return S


def _sym(S: FloatArray) -> FloatArray:
    return 0.5 * (S + S.T)


def predict(mu: FloatArray, Sigma: FloatArray, Phi: FloatArray, Rk: FloatArray) -> FloatArray:
    """Covariance prediction of (1.43): ``Σ̄ = Φ Σ Φᵀ + R`` (the mean is propagated by the model)."""
    return _sym(Phi @ Sigma @ Phi.T + Rk)


def update(mu: FloatArray, Sigma: FloatArray, C: FloatArray, Q: FloatArray, r: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Kalman measurement update (1.43) with innovation ``r = z − h(μ)`` (``= z − C μ`` if linear).

    ``K = Σ Cᵀ (C Σ Cᵀ + Q)⁻¹``, ``μ ← μ + K r``, ``Σ ← Σ − K S Kᵀ`` (``= (I − K C) Σ``), symmetrised.
    """
    PCt = Sigma @ C.T
    S = C @ PCt + Q
    cho = sla.cho_factor(S, check_finite=False)  # Σ and Q were checked where they entered
    K = sla.cho_solve(cho, PCt.T, check_finite=False).T
    return mu + K @ r, _sym(Sigma - K @ PCt.T)


def to_information(mu: FloatArray, Sigma: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(Ω, ξ) = (Σ⁻¹, Σ⁻¹ μ)``."""
    cho = sla.cho_factor(check_spd("covariance Σ", Sigma))
    return _sym(sla.cho_solve(cho, np.eye(Sigma.shape[0]))), sla.cho_solve(cho, mu)


def from_information(Omega: FloatArray, xi: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(μ, Σ) = (Ω⁻¹ ξ, Ω⁻¹)``."""
    cho = sla.cho_factor(check_spd("precision Ω", Omega))
    return sla.cho_solve(cho, xi), _sym(sla.cho_solve(cho, np.eye(Omega.shape[0])))


def information_update(Omega: FloatArray, xi: FloatArray, C: FloatArray, Q: FloatArray,
                       z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Information-filter measurement update (1.44): ``Ω ← Ω + Cᵀ Q⁻¹ C``, ``ξ ← ξ + Cᵀ Q⁻¹ z``."""
    cho = sla.cho_factor(Q)
    CtQi = sla.cho_solve(cho, C).T
    return _sym(Omega + CtQi @ C), xi + CtQi @ z


def reduced_update_information(mu: FloatArray, Sigma: FloatArray, n_unobs: int, C: FloatArray, Q: FloatArray,
                               z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The reduced Bayesian update (5.2) in the information form (5.24) of the thesis, literally.

    The state is ``x = (x_N, x_O)`` with ``x_N`` the first ``n_unobs`` entries; the measurement
    ``z = C x_O + δ``, ``δ ~ N(0, Q)`` sees only ``x_O``. Bayes is applied to ``p(x_O)`` by the
    information filter, ``p(x_N | x_O)`` is kept, and the joint precision and information vector are

    ``Ω̄ = [[Ω_{N|O}, −Ω_{N|O} A], [−Aᵀ Ω_{N|O}, Ω̄_OO + Aᵀ Ω_{N|O} A]]``,
    ``ξ̄ = [Ω_{N|O} b, ξ̄_O − Aᵀ Ω_{N|O} b]``.

    Parameters
    ----------
    mu, Sigma
        Prior mean ``(n,)`` and covariance ``(n, n)`` (symmetric positive definite).
    n_unobs
        ``dim x_N`` (3 for the planar robot's ``(p, θ)``).
    C, Q, z
        Reduced measurement matrix ``(m, n − n_unobs)``, noise covariance ``(m, m)``, measurement ``(m,)``.

    Returns
    -------
    (mu, Sigma)
        Posterior mean and covariance (converted back from ``(Ω̄, ξ̄)``).

    References
    ----------
    Shen (2019), eqs. (5.2), (5.24).
    """
    Sigma = check_spd("prior covariance Σ", Sigma)
    Q = check_spd("measurement covariance Q", Q)
    k = n_unobs
    S_NN, S_NO, S_OO = Sigma[:k, :k], Sigma[:k, k:], Sigma[k:, k:]
    mu_N, mu_O = mu[:k], mu[k:]
    Om_OO, xi_O = to_information(mu_O, S_OO)
    Om_OO_bar, xi_O_bar = information_update(Om_OO, xi_O, C, Q, z)
    A = sla.cho_solve(sla.cho_factor(S_OO), S_NO.T).T  # Σ_NO Σ_OO⁻¹
    b = mu_N - A @ mu_O
    Om_NgO = np.linalg.inv(check_spd("conditional covariance Σ_{N|O}", _sym(S_NN - A @ S_NO.T)))
    Omega = np.block([[Om_NgO, -Om_NgO @ A], [-A.T @ Om_NgO, Om_OO_bar + A.T @ Om_NgO @ A]])
    xi = np.concatenate([Om_NgO @ b, xi_O_bar - A.T @ Om_NgO @ b])
    return from_information(_sym(Omega), xi)


def reduced_update(mu: FloatArray, Sigma: FloatArray, n_unobs: int, C: FloatArray, Q: FloatArray,
                   r: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The reduced update (5.2)/(5.24) in covariance form (no inverse of ``Σ_NN``; works for a singular prior).

    A Kalman update of ``x_O`` alone gives ``μ̄_O, Σ̄_OO``; the conditional ``p(x_N | x_O)`` is kept:
    ``μ̄_N = μ_N + A (μ̄_O − μ_O)``, ``Σ̄_NO = A Σ̄_OO``, ``Σ̄_NN = Σ_NN − A Σ_ON + A Σ̄_OO Aᵀ``,
    ``A = Σ_NO Σ_OO⁻¹``. Algebraically equal to (5.24) (``tests/test_estimation_kalman.py``), and to
    the ordinary Kalman update with ``C_full = [0, C]``, since the likelihood depends on ``x_O`` only.

    ``r`` is the innovation ``z − C μ_O``.

    References
    ----------
    Shen (2019), eqs. (5.2), (5.24); the covariance form is derived in docs/estimation.md.
    """
    k = n_unobs
    S_NO, S_OO = Sigma[:k, k:], Sigma[k:, k:]
    mu_O_bar, S_OO_bar = update(mu[k:], S_OO, C, Q, r)
    A = sla.cho_solve(sla.cho_factor(S_OO, check_finite=False), S_NO.T, check_finite=False).T
    out_mu = np.concatenate([mu[:k] + A @ (mu_O_bar - mu[k:]), mu_O_bar])
    S_NO_bar = A @ S_OO_bar
    out = np.empty_like(Sigma)
    out[:k, :k] = Sigma[:k, :k] - A @ S_NO.T + S_NO_bar @ A.T
    out[:k, k:] = S_NO_bar
    out[k:, :k] = S_NO_bar.T
    out[k:, k:] = S_OO_bar
    return out_mu, _sym(out)
