"""The three filters of seed 003 §5.5 on a simulated :class:`~lgbeam.estimation.simulate.Dataset`.

``"ekf"``
    Classical EKF-SLAM on ``(p, θ, p_i^f)``: propagation (5.9)/(5.10) with the Jacobian (5.11) at the
    latest estimates, measurement (5.4) linearised at the propagated estimate.
``"fej"``
    First-estimates EKF (Huang, Mourikis & Roumeliotis 2008, the thesis's ref. [24]): the same filter
    with (5.11) evaluated at the propagated estimates ``Φ(p̌_{k+1}, p̌_k)`` and the landmark column of
    ``dh_i`` at each landmark's first estimate, so the chain property (5.1) holds for the linearised
    system and its three unobservable directions survive.
``"reduced"``
    The reduced EKF on ``(p, θ, z_i)``: propagation (5.18)/(5.19) with the transition matrix (5.20), the
    linear measurement (5.16) and the reduced update (5.24) (covariance form by default; the literal
    information form with ``reduced_form="information"``, which needs a positive definite prior).

Bookkeeping common to all three ([RECON], the thesis does not say): the initial pose is known exactly
(``Σ_pose(0) = 0`` unless ``initial_cov`` is given); a landmark enters the state the first time it is
measured (EKF/FEJ: ``p^f = p̂ + R(θ̂) z`` with its first-order correlation with the pose; reduced:
``z_i`` with covariance ``Q_z`` and no correlation, as in §5.4); a landmark not measured at a step is
marginalised out (its rows and columns dropped) and re-enters as a new one when it is seen again.

References
----------
Shen, X. (2019), PhD thesis, UCSD, ch. 5 (seed 003), eqs. (5.4), (5.9)–(5.11), (5.16), (5.18)–(5.20),
(5.24). Huang, G. P., Mourikis, A. I., Roumeliotis, S. I. (2008), "Analysis and improvement of the
consistency of extended Kalman filter based SLAM", ICRA, §IV (first-estimates Jacobian).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

import numpy as np

from lgbeam._typing import FloatArray, IntArray
from lgbeam.estimation import kalman, planar
from lgbeam.estimation.simulate import Dataset

logger = logging.getLogger(__name__)

__all__ = ["FILTERS", "FilterResult", "pose_errors", "run_filter"]

FILTERS: tuple[str, ...] = ("ekf", "fej", "reduced")
"""Filter names in the thesis's column order (EKF, FE-EKF, reduced EKF)."""


@dataclass(frozen=True)
class FilterResult:
    """Pose estimates after each measurement update.

    ``pose`` ``(K + 1, 3)``, ``pose_cov`` ``(K + 1, 3, 3)``, ``n_landmarks`` ``(K + 1,)`` (state size).
    """

    method: str
    pose: FloatArray
    pose_cov: FloatArray
    n_landmarks: IntArray


def _block_diag2(covs: FloatArray) -> FloatArray:
    """Block-diagonal ``(2m, 2m)`` matrix of ``m`` 2×2 blocks."""
    m = covs.shape[0]
    out = np.zeros((m, 2, m, 2))
    r = np.arange(m)
    out[r, :, r, :] = covs
    return out.reshape(2 * m, 2 * m)


def _drop(mu: FloatArray, P: FloatArray, keep_slots: IntArray) -> tuple[FloatArray, FloatArray]:
    """Marginalise every landmark slot not in ``keep_slots``."""
    idx = np.concatenate([np.arange(3), 3 + np.repeat(2 * keep_slots, 2) + np.tile([0, 1], keep_slots.size)])
    return mu[idx], P[np.ix_(idx, idx)]


@dataclass
class _State:
    """Mutable per-run bookkeeping (local to :func:`run_filter`)."""

    mu: FloatArray
    P: FloatArray
    ids: IntArray
    f_first: FloatArray       # FEJ: first estimates of the landmarks in the state, (n, 2)
    p_prior: FloatArray       # FEJ: propagated position estimate of the previous step


def _augment(st: _State, method: str, new_z: FloatArray, new_cov: FloatArray, new_ids: IntArray) -> None:
    """Append newly seen landmarks (classical: global position with pose correlation; reduced: ``z_i``)."""
    m = new_ids.size
    if m == 0:
        return
    n0 = st.mu.size
    Rz = _block_diag2(new_cov)
    P = np.zeros((n0 + 2 * m, n0 + 2 * m))
    P[:n0, :n0] = st.P
    if method == "reduced":
        st.mu = np.concatenate([st.mu, new_z.ravel()])
        P[n0:, n0:] = Rz
    else:
        R = planar.rot2(st.mu[2])
        f = st.mu[:2] + new_z @ R.T
        # ∂f/∂(p, θ) = [I, J R z], ∂f/∂z = R
        A = np.zeros((2 * m, n0))
        A.reshape(m, 2, n0)[:, :, :2] = np.eye(2)
        A.reshape(m, 2, n0)[:, :, 2] = new_z @ R.T @ planar.J2.T
        Rb = np.kron(np.eye(m), R)
        cross = A @ st.P
        P[n0:, :n0] = cross
        P[:n0, n0:] = cross.T
        P[n0:, n0:] = A @ st.P @ A.T + Rb @ Rz @ Rb.T
        st.mu = np.concatenate([st.mu, f.ravel()])
        st.f_first = np.vstack([st.f_first, f])
    st.P = 0.5 * (P + P.T)
    st.ids = np.concatenate([st.ids, new_ids])


def _predict_blocks(P: FloatArray, pose_blk: FloatArray, lm_blk: FloatArray | None, Rk: FloatArray) -> FloatArray:
    """``Φ P Φᵀ + R`` for ``Φ = pose_blk ⊕ lm_blk ⊕ … ⊕ lm_blk`` (``lm_blk = None``: identity), the block
    structure of (5.11) and (5.20), in O(N²) instead of the dense O(N³) (equal to
    ``kalman.predict`` with the dense Φ to round-off; ``tests/test_estimation_filters.py``)."""
    A = P.copy()
    N, m = P.shape[0], (P.shape[0] - 3) // 2
    A[:3] = pose_blk @ P[:3]
    if lm_blk is not None and m:
        A[3:] = np.einsum("ij,njk->nik", lm_blk, A[3:].reshape(m, 2, N)).reshape(2 * m, N)
    A[:, :3] = A[:, :3] @ pose_blk.T
    if lm_blk is not None and m:
        A[:, 3:] = (A[:, 3:].reshape(N, m, 2) @ lm_blk.T).reshape(N, 2 * m)
    A += Rk
    return 0.5 * (A + A.T)


def _propagate(st: _State, method: str, u: FloatArray, dt: float, Qn: FloatArray) -> None:
    dd, dth = u[:2] * dt, float(u[2] * dt)
    if method == "reduced":
        mu = planar.propagate_reduced(st.mu, dd, dth)
        pose_blk = planar.transition_reduced(mu[:2], st.mu[:2], dth, 0)
        lm_blk: FloatArray | None = np.eye(2) - dth * planar.J2
        G = planar.noise_jacobian_reduced(st.mu, dt)
    else:
        mu = planar.propagate_classical(st.mu, dd, dth)
        p_lin = st.p_prior if method == "fej" else st.mu[:2]
        pose_blk, lm_blk = planar.transition_classical(mu[:2], p_lin, 0), None
        G = planar.noise_jacobian_classical(st.mu, dt)
    st.P = _predict_blocks(st.P, pose_blk, lm_blk, G @ Qn @ G.T)
    st.mu = mu
    st.p_prior = mu[:2].copy()


def _update(st: _State, method: str, z: FloatArray, cov: FloatArray, reduced_form: str) -> None:
    n = st.ids.size
    if n == 0:
        return
    slots = np.arange(n)
    Q = _block_diag2(cov)
    if method == "reduced":
        C = planar.measurement_jacobian_reduced(n, slots)[:, 3:]
        if reduced_form == "information":
            st.mu, st.P = kalman.reduced_update_information(st.mu, st.P, 3, C, Q, z.ravel())
        else:
            st.mu, st.P = kalman.reduced_update(st.mu, st.P, 3, C, Q, (z - st.mu[3:].reshape(-1, 2)).ravel())
        return
    f_lin = st.f_first if method == "fej" else None
    H = planar.measurement_jacobian_classical(st.mu, slots, f_lin=f_lin)
    r = (z - planar.measure_classical(st.mu)).ravel()
    st.mu, st.P = kalman.update(st.mu, st.P, H, Q, r)


def run_filter(method: str, data: Dataset, *, initial_cov: FloatArray | None = None,
               reduced_form: Literal["covariance", "information"] = "covariance") -> FilterResult:
    """Run one filter over a dataset and return its pose estimates.

    Parameters
    ----------
    method
        ``"ekf"``, ``"fej"`` or ``"reduced"``.
    data
        A realisation from :func:`lgbeam.estimation.simulate.simulate`.
    initial_cov
        Prior covariance of the initial pose ``(3, 3)`` (symmetric positive semidefinite; default 0: the
        initial pose defines the frame). The prior mean is the true initial pose.
    reduced_form
        ``"covariance"`` (default) or ``"information"`` (the literal (5.24); needs ``initial_cov`` positive
        definite).
    """
    if method not in FILTERS:
        raise ValueError(f"unknown filter {method!r}; choose one of {', '.join(FILTERS)}")
    if reduced_form not in ("covariance", "information"):
        raise ValueError(f"reduced_form must be 'covariance' or 'information', got {reduced_form!r}")
    P0 = np.zeros((3, 3)) if initial_cov is None else kalman.check_spd(
        "initial pose covariance", initial_cov, semidefinite=reduced_form == "covariance")
    K = data.n_steps
    st = _State(mu=data.pose[0].astype(float).copy(), P=P0.copy(), ids=np.zeros(0, dtype=np.int64),
                f_first=np.zeros((0, 2)), p_prior=data.pose[0, :2].astype(float).copy())
    poses, covs, counts = np.empty((K + 1, 3)), np.empty((K + 1, 3, 3)), np.empty(K + 1, dtype=np.int64)
    ids, z, cov = data.measurements(0)
    _augment(st, method, z, cov, ids)
    poses[0], covs[0], counts[0] = st.mu[:3], st.P[:3, :3], st.ids.size
    for k in range(K):
        _propagate(st, method, data.odometry[k], data.dt, data.noise_cov)
        ids, z, cov = data.measurements(k + 1)
        pos = np.minimum(np.searchsorted(ids, st.ids), max(ids.size - 1, 0))  # both sorted: np.isin, cheaper
        seen = ids[pos] == st.ids if ids.size else np.zeros(st.ids.size, dtype=bool)
        if not seen.all():
            keep = np.flatnonzero(seen)
            st.mu, st.P = _drop(st.mu, st.P, keep)
            st.ids = st.ids[keep]
            if method != "reduced":
                st.f_first = st.f_first[keep]
        rows = np.searchsorted(ids, st.ids)  # both sorted; every state landmark is measured
        _update(st, method, z[rows], cov[rows], reduced_form)
        new = np.ones(ids.size, dtype=bool)
        new[rows] = False
        _augment(st, method, z[new], cov[new], ids[new])
        poses[k + 1], covs[k + 1], counts[k + 1] = st.mu[:3], st.P[:3, :3], st.ids.size
    return FilterResult(method=method, pose=poses, pose_cov=covs, n_landmarks=counts)


def pose_errors(result: FilterResult, data: Dataset) -> tuple[FloatArray, FloatArray]:
    """Position error ``|p̂_k − p_k|`` (m) and heading error ``|wrap(θ̂_k − θ_k)|`` (rad), ``(K + 1,)`` each."""
    dp = np.linalg.norm(result.pose[:, :2] - data.pose[:, :2], axis=1)
    dth = np.abs(planar.wrap_angle(result.pose[:, 2] - data.pose[:, 2]))
    return dp, dth
