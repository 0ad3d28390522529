"""Observability tools (thesis Thm 9, (1.46), (5.1)) and the observability of the three linearised
SLAM filters: with Jacobians at the true states, or first estimates (FEJ), the unobservable subspace
is the 3-dimensional N of (5.7); with the classical EKF's linearisation points it drops to 2 (the
heading becomes spuriously observable; Huang et al. 2008); in reduced coordinates it is (5.17)."""

from __future__ import annotations

import itertools

import numpy as np
from numpy.testing import assert_allclose
from scipy.integrate import quad_vec
from scipy.linalg import expm

from lgbeam.estimation import observability as obs
from lgbeam.estimation import planar


def test_observability_matrix_and_null_space_of_a_double_integrator():
    A = np.array([[0.0, 1.0], [0.0, 0.0]])
    assert obs.unobservable_dimension(obs.observability_matrix(A, np.array([[1.0, 0.0]]))) == 0
    N = obs.null_space(obs.observability_matrix(A, np.array([[0.0, 1.0]])))  # velocity only: position unobservable
    assert N.shape == (2, 1) and obs.subspace_angle(N, np.array([[1.0], [0.0]])) < 1e-12


def test_gramian_matches_quadrature(rng):
    """Van Loan's block exponential against adaptive quadrature of e^{Aᵀτ} CᵀC e^{Aτ}."""
    A, C, t = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(2, 4)), 1.3
    W_quad, _err = quad_vec(lambda s: expm(A.T * s) @ C.T @ C @ expm(A * s), 0.0, t, epsabs=1e-13, epsrel=1e-12)
    assert_allclose(obs.gramian(A, C, t), W_quad, rtol=1e-9, atol=1e-11)


def test_gramian_is_singular_exactly_when_the_observability_matrix_is_rank_deficient():
    A = np.array([[0.0, 1.0], [0.0, 0.0]])
    for C, singular in ((np.array([[1.0, 0.0]]), False), (np.array([[0.0, 1.0]]), True)):
        ev = np.linalg.eigvalsh(obs.gramian(A, C, 2.0))
        assert (ev.min() < 1e-12 * ev.max()) == singular  # Thm 9


def _slam_run(rng, n_steps=6, n_lm=3):
    """True states along a turning path and perturbed propagated / updated / first estimates."""
    x = np.concatenate([[0.0, 0.0, 0.1], rng.uniform(-4, 4, 2 * n_lm)])
    truth = [x]
    for _ in range(n_steps - 1):
        truth.append(planar.propagate_classical(truth[-1], rng.normal([0.5, 0.0], 0.1), 0.3))
    prop = [t + rng.normal(0, 0.05, t.size) for t in truth]      # x̌_k (before the update)
    upd = [t + rng.normal(0, 0.05, t.size) for t in truth]       # x̂_k (after the update)
    return truth, prop, upd


def _obs_matrix(kind, truth, prop, upd):
    n_lm = (truth[0].size - 3) // 2
    idx = np.arange(n_lm)
    f_first = prop[0][3:].reshape(-1, 2)
    H, Phi = [], []
    for k in range(len(truth)):
        if kind == "true":
            H.append(planar.measurement_jacobian_classical(truth[k], idx))
        elif kind == "ekf":
            H.append(planar.measurement_jacobian_classical(prop[k], idx))
        else:  # FEJ: propagated pose, first landmark estimates
            H.append(planar.measurement_jacobian_classical(prop[k], idx, f_lin=f_first))
        if k + 1 < len(truth):
            a, b = {"true": (truth[k + 1], truth[k]), "ekf": (prop[k + 1], upd[k]), "fej": (prop[k + 1], prop[k])}[kind]
            Phi.append(planar.transition_classical(a[:2], b[:2], n_lm))
    return obs.observability_matrix_tv(H, Phi)


def test_linearised_slam_observability_true_fej_and_ekf(rng):
    truth, prop, upd = _slam_run(rng)
    M_true, M_fej, M_ekf = (_obs_matrix(k, truth, prop, upd) for k in ("true", "fej", "ekf"))
    assert obs.unobservable_dimension(M_true) == 3
    assert obs.subspace_angle(obs.null_space(M_true), planar.unobservable_basis_classical(truth[0])) < 1e-9
    assert obs.unobservable_dimension(M_fej) == 3
    f0 = prop[0].copy()  # FEJ's null space is (5.7) at the first estimates
    assert obs.subspace_angle(obs.null_space(M_fej), planar.unobservable_basis_classical(f0)) < 1e-9
    assert obs.unobservable_dimension(M_ekf) == 2  # only the two translations survive
    N_ekf = obs.null_space(M_ekf)
    assert obs.subspace_angle(N_ekf, planar.unobservable_basis_classical(truth[0])[:, :2]) < 1e-9
    # the Gramian MᵀM has the same kernel
    ev = np.linalg.eigvalsh(obs.gramian_tv(*_h_phi_true(truth)))
    assert np.sum(ev < 1e-10 * ev.max()) == 3


def _h_phi_true(truth):
    n_lm = (truth[0].size - 3) // 2
    H = [planar.measurement_jacobian_classical(x, np.arange(n_lm)) for x in truth]
    Phi = [planar.transition_classical(b[:2], a[:2], n_lm) for a, b in itertools.pairwise(truth)]
    return H, Phi


def test_reduced_coordinates_unobservable_subspace_is_5_17(rng):
    """With (5.20) and the identity measurement the null space is exactly span (5.17), at any estimates."""
    truth, prop, _ = _slam_run(rng)
    n_lm = (truth[0].size - 3) // 2
    xs = [planar.to_reduced(x) for x in prop]
    H = [planar.measurement_jacobian_reduced(n_lm, np.arange(n_lm)) for _ in xs]
    Phi = [planar.transition_reduced(b[:2], a[:2], 0.3, n_lm) for a, b in itertools.pairwise(xs)]
    M = obs.observability_matrix_tv(H, Phi)
    assert obs.unobservable_dimension(M) == 3
    assert obs.subspace_angle(obs.null_space(M), planar.unobservable_basis_reduced(xs[0])) < 1e-12
