"""The planar SLAM model of seed 003 ch. 5 against independent truth: Jacobians by finite differences,
the unobservable directions (5.7)/(5.17) as generators of the SE(2) action (5.8) built with
``lgbeam.groups.SE2``, ``dh_i N = 0`` in both coordinates, the chain property (5.1) of (5.11), the
block-triangular products of (5.20), and the stereo triangulation."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from lgbeam.estimation import planar
from lgbeam.estimation.simulate import StereoCamera, make_trajectory, triangulate, triangulation_jacobian
from lgbeam.groups import SE2

N_LM = 4


def _state(rng: np.random.Generator, n: int = N_LM) -> np.ndarray:
    return np.concatenate([rng.normal(0, 3, 2), rng.uniform(-np.pi, np.pi, 1), rng.normal(0, 5, 2 * n)])


def _fd_jacobian(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    cols = [(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


def test_measurement_jacobian_matches_finite_differences(rng):
    x = _state(rng)
    idx = np.array([2, 0, 3])
    H = planar.measurement_jacobian_classical(x, idx)
    H_fd = _fd_jacobian(lambda y: planar.measure_classical(y, idx).ravel(), x)
    assert_allclose(H, H_fd, atol=1e-8)  # central differences: O(eps²) ≈ 1e-12 times the curvature ~ |f| ≤ 20


def test_reduced_measurement_is_the_identity_on_its_slot():
    H = planar.measurement_jacobian_reduced(3, np.array([1]))
    expected = np.zeros((2, 9))
    expected[:, 5:7] = np.eye(2)
    assert_allclose(H, expected, atol=0)


@pytest.mark.parametrize("reduced", [False, True])
def test_unobservable_basis_is_the_generator_of_the_se2_action(rng, reduced):
    """Column j of N (5.7)/(5.17) equals d/dε g(ε e_j) · x at ε = 0, with g = SE2.exp, by central differences."""
    x = _state(rng)
    if reduced:
        x = planar.to_reduced(x)
    act = planar.act_reduced if reduced else planar.act
    N = (planar.unobservable_basis_reduced if reduced else planar.unobservable_basis_classical)(x)
    G, eps = SE2(), 1e-6
    # SE2 tangent order (θ, u1, u2); N's columns are (translation x, translation y, rotation)
    for j, xi in enumerate([np.array([0.0, 1, 0]), np.array([0.0, 0, 1]), np.array([1.0, 0, 0])]):
        col = (act(G.exp(eps * xi), x) - act(G.exp(-eps * xi), x)) / (2 * eps)
        assert_allclose(N[:, j], col, atol=1e-8)


@pytest.mark.parametrize("reduced", [False, True])
def test_measurements_are_invariant_under_the_group_action(rng, reduced):
    """(5.8): the measurement of every landmark is unchanged by any g ∈ SE(2) (not just infinitesimally)."""
    x = _state(rng)
    g = SE2().exp(rng.normal(size=3))
    if reduced:
        xr = planar.to_reduced(x)
        assert_allclose(planar.act_reduced(g, xr)[3:], xr[3:], atol=0)
        assert_allclose(planar.to_reduced(planar.act(g, x)), planar.act_reduced(g, xr), atol=1e-12)
    else:
        assert_allclose(planar.measure_classical(planar.act(g, x)), planar.measure_classical(x), atol=1e-12)


def test_dh_times_N_vanishes_in_both_coordinates(rng):
    """Part H §16: dh_i N = 0 in (p, θ, p^f) (5.7) and in (p, θ, z) (5.17)."""
    x = _state(rng)
    idx = np.arange(N_LM)
    Hc = planar.measurement_jacobian_classical(x, idx)
    assert np.abs(Hc @ planar.unobservable_basis_classical(x)).max() < 1e-12  # round-off of entries ~ 10
    xr = planar.to_reduced(x)
    Hr = planar.measurement_jacobian_reduced(N_LM, idx)
    assert np.abs(Hr @ planar.unobservable_basis_reduced(xr)).max() == 0.0  # exact zeros by structure
    assert np.linalg.matrix_rank(planar.unobservable_basis_classical(x)) == 3


def test_transition_matrices_are_the_jacobians_of_the_nominal_updates(rng):
    """(5.11) and (5.20) are ∂x_{k+1}/∂x_k of (5.10) and (5.19), by finite differences."""
    x, dd, dth = _state(rng), rng.normal(0, 0.2, 2), 0.07
    xn = planar.propagate_classical(x, dd, dth)
    assert_allclose(planar.transition_classical(xn[:2], x[:2], N_LM),
                    _fd_jacobian(lambda y: planar.propagate_classical(y, dd, dth), x), atol=1e-9)
    xr = planar.to_reduced(x)
    xrn = planar.propagate_reduced(xr, dd, dth)
    assert_allclose(planar.transition_reduced(xrn[:2], xr[:2], dth, N_LM),
                    _fd_jacobian(lambda y: planar.propagate_reduced(y, dd, dth), xr), atol=1e-9)


def test_noise_jacobians_match_finite_differences(rng):
    """G of (5.9)/(5.18): derivative of one step with v = v_m + n_v, w = w_m + n_w with respect to n."""
    x, v, w, dt = _state(rng), rng.normal(0, 1, 2), 0.3, 0.1

    def step(n, reduced):
        y = planar.to_reduced(x) if reduced else x
        f = planar.propagate_reduced if reduced else planar.propagate_classical
        return f(y, dt * (v + n[:2]), dt * (w + n[2]))

    assert_allclose(planar.noise_jacobian_classical(x, dt), _fd_jacobian(lambda n: step(n, False), np.zeros(3)),
                    atol=1e-9)
    assert_allclose(planar.noise_jacobian_reduced(planar.to_reduced(x), dt),
                    _fd_jacobian(lambda n: step(n, True), np.zeros(3)), atol=1e-9)


def test_chain_property_and_propagated_null_space(rng):
    """(5.1) for (5.11): Φ(x2, x1) Φ(x1, x0) = Φ(x2, x0) exactly; dh_i(x_{k+1}) Φ(x_{k+1}, x_k) N_k = 0."""
    from lgbeam.estimation.observability import chain_defect

    xs = [_state(rng) for _ in range(3)]
    for x in xs[1:]:
        x[3:] = xs[0][3:]  # landmarks are static
    Phi = lambda a, b: planar.transition_classical(a[:2], b[:2], N_LM)
    assert chain_defect(Phi, *xs) < 1e-13
    H1 = planar.measurement_jacobian_classical(xs[1], np.arange(N_LM))
    assert np.abs(H1 @ Phi(xs[1], xs[0]) @ planar.unobservable_basis_classical(xs[0])).max() < 1e-12


def test_reduced_products_keep_dh_N_zero(rng):
    """§16: in reduced coordinates dh_i Φ_{k+s,k+s−1} … Φ_{k+1,k} N_k = 0 exactly (zero lower-left blocks)."""
    x = planar.to_reduced(_state(rng))
    N0 = planar.unobservable_basis_reduced(x)
    T = np.eye(x.size)
    for _ in range(25):
        dd, dth = rng.normal(0, 0.3, 2), rng.normal(0, 0.2)
        xn = planar.propagate_reduced(x, dd, dth)
        T = planar.transition_reduced(xn[:2], x[:2], dth, N_LM) @ T
        x = xn
    H = planar.measurement_jacobian_reduced(N_LM, np.arange(N_LM))
    assert np.abs(H @ T @ N0).max() == 0.0
    # and the product maps N_k onto N at the last state (the pose block is (5.11)'s)
    assert_allclose((T @ N0)[:3], planar.unobservable_basis_reduced(x)[:3], atol=1e-12)


def test_coordinate_change_round_trip_and_jacobian(rng):
    """(5.23) both ways, and its Jacobian by finite differences."""
    x = _state(rng)
    assert_allclose(planar.to_classical(planar.to_reduced(x)), x, atol=1e-12)
    assert_allclose(planar.to_reduced_jacobian(x), _fd_jacobian(planar.to_reduced, x), atol=1e-8)


def test_triangulation_inverts_the_bearings_and_its_jacobian(rng):
    cam = StereoCamera()
    z = np.column_stack([rng.uniform(0.5, 5, 20), rng.uniform(-2, 2, 20)])
    beta = cam.bearings(z)
    assert_allclose(triangulate(beta, cam.baseline), z, atol=1e-12)
    eps = 1e-7
    Jfd = np.stack([(triangulate(beta + eps * e, cam.baseline) - triangulate(beta - eps * e, cam.baseline)) / (2 * eps)
                    for e in np.eye(2)], axis=-1)
    assert_allclose(triangulation_jacobian(beta, cam.baseline), Jfd, rtol=1e-6, atol=1e-7)


def test_visible_area_is_the_stereo_overlap_wedge():
    """The overlap of two 120° wedges from (0, ±0.25) within 5 m: a 120° sector minus the thin region
    behind the apex at x = 0.25/tan 60°; independent estimate by Monte Carlo with 4·10⁵ points."""
    cam = StereoCamera()
    pts = np.random.default_rng(1).uniform([-5, -5], [5, 5], (400_000, 2))
    mc = 100.0 * cam.visible(pts).mean()
    assert abs(cam.visible_area - mc) < 0.1  # MC standard error: 100·sqrt(p(1-p)/n) ≈ 0.04 m²
    assert 0.9 * (np.pi / 3) * 25 < cam.visible_area < (np.pi / 3) * 25


def test_constant_twist_trajectories_solve_the_kinematics():
    """pose(t) = exp(tξ) solves ṗ = R(θ) v, θ̇ = w (5.3): central differences of the poses."""
    for kind in ("line", "circle", "spline"):
        tr = make_trajectory(kind)
        t = np.linspace(0.5, tr.duration - 0.5, 50)
        h = 1e-5
        dpose = (tr.pose(t + h) - tr.pose(t - h)) / (2 * h)
        v = tr.body_velocity(t)
        world_v = np.einsum("kij,kj->ki", planar.rot2(tr.pose(t)[:, 2]), v[:, :2])
        assert_allclose(dpose[:, :2], world_v, atol=1e-6)
        assert_allclose(dpose[:, 2], v[:, 2], atol=1e-6)
    circle = make_trajectory("circle")
    assert_allclose(circle.duration, 40.0)  # 2π·10 m at π/2 m/s
    assert_allclose(circle.pose(np.array([20.0]))[0, :2], [0.0, 20.0], atol=1e-12)  # half a lap: the far side
