"""Finite-difference consistency of the Cosserat rod discretisation (seed 004 §4, eqs. (23)–(25)).

Truths: central differences of the energy V and of Φ along left-translated directions q ∘ exp(±εη),
the Euler–Poincaré power balance, and the exact stress-free states (reference and rigid motions).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from lgbeam.discretisations.rods import (
    CosseratRod,
    Gravity,
    Material,
    NodalLoad,
    RodMesh,
    Support,
    TimeFunction,
    helix,
    straight,
)
from lgbeam.discretisations.rods.kernels import gyroscopic
from lgbeam.groups.s3r3 import S3R3

G = S3R3()
EPS = 1e-5  # central differences: truncation O(ε²)·|V'''| ~ 1e-10·stiffness, round-off ~ 1e-16·V/ε


def _material(damping: float = 0.0) -> Material:
    return Material(
        C_K=[500.0, 400.0, 300.0], C_Gamma=[1e4, 2e4, 3e4], rhoA=1.0, rhoJ=[10.0, 8.0, 18.0],
        C_K_d=[damping] * 3, C_Gamma_d=[2 * damping] * 3,
    )


def _rod(n: int = 5, **kw) -> CosseratRod:
    mesh = RodMesh(np.cumsum(np.r_[0.0, np.linspace(1.0, 2.0, n)]))  # non-uniform edges
    q_ref = helix(G, mesh, radius=2.0, pitch=3.0, direction=(0.3, 0.2, 1.0))
    return CosseratRod(mesh=mesh, material=kw.pop("material", _material()), q_ref=q_ref, **kw)


def _random_config(rod: CosseratRod, rng: np.random.Generator, size: float = 0.3) -> np.ndarray:
    eta = size * rng.standard_normal((rod.n_nodes, 6))
    return G.compose(rod.q_ref, G.exp(eta))


def _moved(q: np.ndarray, eta: np.ndarray) -> np.ndarray:
    return G.compose(q, G.exp(eta.reshape(q.shape[0], 6)))


def test_forces_are_gradient_of_potential(rng):
    rod = _rod()
    q = _random_config(rod, rng)
    g = rod.forces(0.0, q, np.zeros(6 * rod.n_nodes))
    n = 6 * rod.n_nodes
    fd = np.empty(n)
    for j in range(n):  # full gradient, basis direction by direction
        e = np.zeros(n)
        e[j] = EPS
        fd[j] = (rod.potential_energy(_moved(q, e)) - rod.potential_energy(_moved(q, -e))) / (2 * EPS)
    assert_allclose(g, fd, atol=1e-6 * np.max(np.abs(g)))  # O(ε²) remainder ~ 1e-10 relative + round-off


@pytest.mark.parametrize("inextensible, supports", [
    (False, (Support("start", "clamped"), Support(3, "pinned"))),
    (True, (Support("end", "clamped"),)),
    (True, (Support(0, "pinned"), Support(-1, "free"))),
])
def test_constraint_jacobian_is_derivative_of_phi(rng, inextensible, supports):
    rod = _rod(inextensible=inextensible, supports=supports)
    q = _random_config(rod, rng)
    B = rod.constraint_jacobian(q)
    assert B.shape == (rod.n_constraints, 6 * rod.n_nodes)
    for _ in range(5):
        eta = rng.standard_normal(6 * rod.n_nodes)
        fd = (rod.constraints(_moved(q, EPS * eta)) - rod.constraints(_moved(q, -EPS * eta))) / (2 * EPS)
        assert_allclose(B @ eta, fd, atol=1e-8)  # O(ε²)·|Φ'''| with |η| ~ 6: ~1e-9


def test_B_is_banded():
    rod = _rod(n=12, inextensible=True)
    B = rod.constraint_jacobian(rod.q_ref).tocoo()
    # internal rows of edge e touch only columns of nodes e, e+1
    edge = B.row // 3
    assert np.all((B.col // 6 == edge) | (B.col // 6 == edge + 1))


def test_mass_is_spd_and_lumped():
    rod = _rod()
    M = rod.mass(rod.q_ref).toarray()
    assert_allclose(M, M.T)
    assert np.min(np.linalg.eigvalsh(M)) > 0.0
    # trapezoidal rule: total translational mass = ρA L (exact)
    assert_allclose(np.trace(M[3::6, 3::6]) + np.trace(M[4::6, 4::6]) + np.trace(M[5::6, 5::6]),
                    3 * rod.material.rhoA * rod.mesh.length, rtol=1e-14)


def test_reference_configuration_is_stress_free_and_consistent():
    rod = _rod(inextensible=True, supports=(Support("start", "clamped"), Support("end", "free")))
    assert_allclose(rod.forces(0.0, rod.q_ref, np.zeros(6 * rod.n_nodes)), 0.0, atol=1e-10)
    assert_allclose(rod.constraints(rod.q_ref), 0.0, atol=1e-12)
    # helix = constant strain: every edge has the same w0 = (0, κ, τ, 0, 0, 1), exactly
    b = 3.0 / (2 * np.pi)
    c2 = 4.0 + b**2
    assert_allclose(rod.w0, np.tile([0.0, 2.0 / c2, b / c2, 0.0, 0.0, 1.0], (rod.mesh.n_elements, 1)), atol=1e-12)


def test_rigid_motion_gives_no_elastic_or_damping_force(rng):
    rod = _rod(material=_material(damping=7.0))
    g_rigid = G.exp(rng.standard_normal(6))
    q = G.compose(np.broadcast_to(g_rigid, (rod.n_nodes, 7)), rod.q_ref)   # rigid placement
    zeta = rng.standard_normal(6)                                          # spatial twist
    v = np.einsum("nij,j->ni", G.Ad(G.inverse(q)), zeta).ravel()           # d/dt exp(tζ) q_i
    g = rod.forces(0.0, q, v)
    V = v.reshape(-1, 6)
    gyro = gyroscopic(V, rod.node_inertia, rod.node_mass)
    assert_allclose(g, gyro.ravel(), atol=1e-9)                            # no elastic, no damping
    assert_allclose(rod.constraint_jacobian(q) @ v, 0.0, atol=1e-10)        # rigid v is admissible


def test_damping_dissipates_as_rayleigh_function(rng):
    rod = _rod(material=_material(damping=3.0))
    q = _random_config(rod, rng)
    v = rng.standard_normal(6 * rod.n_nodes)
    undamped = CosseratRod(mesh=rod.mesh, material=_material(0.0), q_ref=rod.q_ref)
    g_d = rod.forces(0.0, q, v) - undamped.forces(0.0, q, v)
    # ẇ by central differences along the motion q ∘ exp(±εv)
    w_dot = (rod.strains(_moved(q, EPS * v)) - rod.strains(_moved(q, -EPS * v))) / (2 * EPS)
    power = np.sum(rod.mesh.ds[:, None] * rod.material.damping * w_dot**2)
    assert_allclose(v @ g_d, power, rtol=1e-7)  # O(ε²) FD error on ẇ
    assert power > 0.0


def test_gyroscopic_terms_do_no_work(rng):
    rod = _rod()
    v = rng.standard_normal(6 * rod.n_nodes)
    gyro = gyroscopic(v.reshape(-1, 6), rod.node_inertia, rod.node_mass)
    assert abs(v @ gyro.ravel()) < 1e-12 * np.sum(np.abs(gyro))  # Ω·(Ω×JΩ) = 0, U·(Ω×mU) = 0


def test_loads_spatial_body_and_gravity(rng):
    rod0 = _rod()
    q = _random_config(rod0, rng)
    F, Mo = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -0.7])
    ramp = TimeFunction("table", times=(0.0, 2.0), values=(0.0, 4.0))
    loads = (NodalLoad(node=-1, force=F, moment=Mo, time=ramp),
             NodalLoad(node=2, force=F, moment=Mo, frame="body"), Gravity([0.0, 0.0, -9.81]))
    rod = CosseratRod(mesh=rod0.mesh, material=rod0.material, q_ref=rod0.q_ref, loads=loads)
    z = np.zeros(6 * rod.n_nodes)
    d = (rod0.forces(1.0, q, z) - rod.forces(1.0, q, z)).reshape(-1, 6)    # = external forces
    R = G.rotation(q)
    grav = rod.node_mass[:, None] * np.einsum("nji,j->ni", R, [0.0, 0.0, -9.81])
    assert_allclose(d[-1], np.r_[2.0 * R[-1].T @ Mo, 2.0 * R[-1].T @ F + grav[-1]], atol=1e-12)
    assert_allclose(d[2], np.r_[Mo, F + grav[2]], atol=1e-12)
    # gravity is conservative: its force is minus the gradient of −Σ m γ·x
    eta = rng.standard_normal(6 * rod.n_nodes)
    only_g = CosseratRod(mesh=rod0.mesh, material=rod0.material, q_ref=rod0.q_ref, loads=loads[2:])
    Vg = lambda qq: only_g.potential_energy(qq) - rod0.potential_energy(qq)
    fd = (Vg(_moved(q, EPS * eta)) - Vg(_moved(q, -EPS * eta))) / (2 * EPS)
    g_grav = np.concatenate([np.zeros_like(grav), -grav], axis=1).ravel()
    assert_allclose(g_grav @ eta, fd, rtol=1e-7)  # O(ε²) curvature of exp along η


def test_spaghetti_ramp_matches_eq_24():
    p = TimeFunction("spaghetti")
    assert [p(t) for t in (0.0, 1.25, 2.5, 3.75, 5.0, 6.0)] == [0.0, 100.0, 200.0, 100.0, 0.0, 0.0]


def test_straight_frames_of_table_3():
    mesh = RodMesh.uniform(10.0, 4)
    q = straight(G, mesh, direction=(1.0, 0.0, 0.0))
    c = np.sqrt(0.5)
    assert_allclose(q[0, :4], [c, 0.0, c, 0.0], atol=1e-15)  # 90° about e₂ (roll-up)
    q = straight(G, mesh, start=(6.0, 0.0, 0.0), direction=(-6.0, 8.0, 0.0))
    assert_allclose(q[0, :4], [c, -0.8 * c, -0.6 * c, 0.0], atol=1e-15)  # 90° about e₃×d/|d|
    assert_allclose(G.translation(q[-1]), [0.0, 8.0, 0.0], atol=1e-14)
