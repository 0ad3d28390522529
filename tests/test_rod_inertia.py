"""CosseratRod(inertia=...): the nodal weights of the lumped inertia (lgbeam/discretisations/rods/inertia.py).

Truths: the closed-form kinetic energy of a rigidly moving straight continuum rod (ρA L³/12 about a transverse
axis through its centre, plus the sections' ρJ L), the trapezoidal rule's known excess ρA Δs² L/6, the
equivalence principle under gravity, and the space-convergence order by a fitted slope.
"""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.apps import load_case
from lgbeam.apps.rod import build
from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.rods import CosseratRod, Gravity, Material, RodMesh, straight
from lgbeam.discretisations.rods.inertia import INERTIA, node_weights
from lgbeam.groups import S3R3

G = S3R3()
L, RHO_A, RHO_J = 3.0, 2.0, np.array([0.3, 0.4, 0.7])
DIRECTION = np.array([1.0, 2.0, 2.0]) / 3.0


def _rod(n, inertia="lumped", mesh=None, loads=()):
    mesh = mesh or RodMesh.uniform(L, n)
    mat = Material(C_K=[5.0, 6.0, 4.0], C_Gamma=[1e3, 1e3, 1e3], rhoA=RHO_A, rhoJ=RHO_J)
    q = straight(G, mesh, start=(0.5, -1.0, 2.0), direction=DIRECTION, roll=0.3)
    return CosseratRod(mesh=mesh, material=mat, q_ref=q, inertia=inertia, loads=loads), q


def _rigid(q, omega, u, c):
    """Body velocities (Ω_i, U_i) of the rigid motion ω, u (velocity of the point c), flat (6(N+1),)."""
    R, x = G.rotation(q), G.translation(q)
    Om = np.einsum("nji,j->ni", R, omega)
    U = np.einsum("nji,nj->ni", R, u + np.cross(omega, x - c))
    return np.concatenate([Om, U], axis=1).ravel()


def _continuum_energy(q, omega, u):
    """½ ρA L |u|² + ½ ω·I ω, I = ρA L³/12 (I − t tᵀ) + L R diag(ρJ) Rᵀ (straight rod, u at its centre)."""
    R0 = G.rotation(q)[0]
    t = DIRECTION
    inertia = RHO_A * L**3 / 12 * (np.eye(3) - np.outer(t, t)) + L * R0 @ np.diag(RHO_J) @ R0.T
    return 0.5 * RHO_A * L * u @ u + 0.5 * omega @ inertia @ omega


OMEGA, U = np.array([0.4, -0.7, 0.2]), np.array([0.3, 0.1, -0.5])


def _energy_error(n, inertia):
    rod, q = _rod(n, inertia)
    c = G.translation(q)[0] + 0.5 * L * DIRECTION
    return rod.kinetic_energy(_rigid(q, OMEGA, U, c)) - _continuum_energy(q, OMEGA, U)


def test_default_is_the_trapezoidal_lumping_unchanged():
    rod, _ = _rod(7)
    assert rod.inertia == "lumped"
    assert rod.mass_weights is rod.mesh.node_weights
    ell = rod.mesh.node_weights
    diag = np.concatenate([RHO_J[None, :] * ell[:, None], np.repeat(RHO_A * ell[:, None], 3, axis=1)], axis=1)
    np.testing.assert_array_equal(rod.mass(None).diagonal(), diag.ravel())


@pytest.mark.parametrize("inertia", INERTIA)
def test_weights_positive_and_sum_to_length(inertia):
    graded = RodMesh(np.cumsum(np.r_[0.0, np.linspace(0.2, 0.6, 9)]))
    for mesh in (RodMesh.uniform(L, 9), graded):
        w = node_weights(mesh, inertia)
        assert np.all(w > 0)
        assert np.sum(w) == pytest.approx(mesh.length, rel=1e-14)
    w = node_weights(RodMesh.uniform(L, 9), inertia)  # uniform mesh: symmetric, centre of mass unchanged
    np.testing.assert_allclose(w, w[::-1], rtol=1e-14)


def test_gregory_weights_on_a_uniform_mesh():
    h = L / 8
    mesh = RodMesh.uniform(L, 8)
    np.testing.assert_allclose(node_weights(mesh, "end-corrected") / h, [5 / 12, 13 / 12, 1, 1, 1, 1, 1, 13 / 12, 5 / 12])
    np.testing.assert_allclose(node_weights(mesh, "end-corrected-3") / h,
                               [3 / 8, 7 / 6, 23 / 24, 1, 1, 1, 23 / 24, 7 / 6, 3 / 8])


def test_lumped_rigid_energy_excess_is_the_trapezoid_term():
    """Trapezoidal lumping: T_h − T = ½ ρA (Δs² L/6) |ω_⊥|² exactly (the rule's excess on ∫ (s − c)² ds)."""
    w_perp2 = OMEGA @ OMEGA - (OMEGA @ DIRECTION) ** 2
    for n in (4, 8, 16):
        h = L / n
        assert _energy_error(n, "lumped") == pytest.approx(0.5 * RHO_A * h**2 * L / 6 * w_perp2, rel=1e-10)


def test_end_corrected_3_rigid_energy_is_exact():
    """Gregory's second correction integrates cubics exactly: the continuum rigid-body energy at any N ≥ 5."""
    for n in (5, 8, 16):
        assert abs(_energy_error(n, "end-corrected-3")) < 1e-13 * _continuum_energy(_rod(n)[1], OMEGA, U)


def test_end_corrected_rigid_energy_error_is_third_order():
    ns = np.array([8, 16, 32, 64])
    errs = [abs(_energy_error(n, "end-corrected")) for n in ns]
    assert observed_order(L / ns, errs) == pytest.approx(3.0, abs=0.05)
    assert errs[0] < 0.2 * abs(_energy_error(8, "lumped"))


@pytest.mark.parametrize("inertia", INERTIA)
def test_gravity_accelerates_every_node_alike(inertia):
    """Equivalence principle: gravity is lumped with the mass weights, so M⁻¹ f = (0, R_iᵀ g) at every node."""
    g = np.array([0.0, -9.81, 1.0])
    rod, q = _rod(9, inertia, loads=(Gravity(g),))
    acc = (rod.external_forces(0.0, q) / rod.mass(q).diagonal()).reshape(-1, 6)
    np.testing.assert_allclose(acc[:, :3], 0.0, atol=1e-15)
    np.testing.assert_allclose(acc[:, 3:], np.einsum("nji,j->ni", G.rotation(q), g), rtol=1e-13, atol=1e-14)


def test_invalid_inertia_and_too_short_mesh():
    with pytest.raises(ValueError, match="unknown rod inertia"):
        _rod(8, "consistent")
    with pytest.raises(ValueError, match="at least 5 edges"):
        _rod(4, "end-corrected-3")
    _rod(3, "end-corrected")


def test_case_key():
    case, _ = load_case("flying-spaghetti", ["model.inertia=end-corrected"])
    rod, _, _ = build(case)
    assert rod.inertia == "end-corrected"
    case, _ = load_case("flying-spaghetti")
    assert build(case)[0].inertia == "lumped"
    with pytest.raises(ValueError):
        load_case("flying-spaghetti", ["model.inertia=consistent"])
