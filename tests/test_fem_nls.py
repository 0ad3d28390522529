"""Finite-element NLS (scikit-fem) as a SemilinearPoissonSystem: structure, exactness, invariants."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.fem.nls_fem import FENLS, phi_functions
from lgbeam.solve import ConstantStep, integrate
from lgbeam.systems import SemilinearPoissonSystem

CONFIGS = list(itertools.product((1, 2), ("consistent", "lumped"), ("nodal", "modal")))


@functools.cache
def _small(degree, mass, coordinates, kappa=1.5):
    # non-uniform mesh so that nothing relies on Toeplitz structure
    nodes = tuple(2.0 * np.linspace(0.0, 1.0, 8) ** 1.3)
    return FENLS(7, length=2.0, kappa=kappa, degree=degree, mass=mass, coordinates=coordinates, nodes=nodes)


def _dense(op, n):
    return np.column_stack([op(e) for e in np.eye(n)])


@pytest.mark.parametrize("degree, mass, coordinates", CONFIGS)
def test_structure_S_skew_A_symmetric_and_protocol(degree, mass, coordinates):
    s = _small(degree, mass, coordinates)
    assert isinstance(s, SemilinearPoissonSystem)
    n2 = 2 * s.n_dofs
    S, A = _dense(s.apply_S, n2), _dense(s.apply_A, n2)
    assert_allclose(S, -S.T, atol=1e-12 * np.abs(S).max())  # round-off of the sparse M solve
    assert_allclose(A, A.T, atol=1e-13 * np.abs(A).max())
    assert np.linalg.eigvalsh(0.5 * (A + A.T)).min() > 0  # Dirichlet: K is SPD
    if coordinates == "nodal":  # skew in the M-weighted inner product too: 𝕄 S = J (canonical)
        Mb = np.kron(np.eye(2), s.mass_matrix.toarray())
        J = np.block([[np.zeros((s.n_dofs,) * 2), np.eye(s.n_dofs)], [-np.eye(s.n_dofs), np.zeros((s.n_dofs,) * 2)]])
        assert_allclose(Mb @ S, J, atol=1e-12)
    else:  # modal coordinates: S = J, A diagonal, SA = AS exactly
        assert_allclose(S @ A, A @ S, atol=1e-12 * np.abs(A).max())


@pytest.mark.parametrize("degree, mass, coordinates", CONFIGS)
def test_phi_matches_expm_of_SA(degree, mass, coordinates):
    # φ_k(hL) from the augmented-matrix exponential (Saad 1992; Al-Mohy & Higham 2011, eq. (2.11)):
    # expm([[hL, I, 0], [0, 0, I], [0, 0, 0]]) = [[φ_0(hL), φ_1(hL), φ_2(hL)], ...].
    s = _small(degree, mass, coordinates)
    n2 = 2 * s.n_dofs
    L = _dense(s.apply_S, n2) @ _dense(s.apply_A, n2)
    y = np.random.default_rng(3).standard_normal(n2)
    for h in (0.37, -0.21, 1e-9):
        Z, I = np.zeros((n2, n2)), np.eye(n2)
        big = sla.expm(np.block([[h * L, I, Z], [Z, Z, I], [Z, Z, Z]]))
        refs = [big[:n2, :n2], big[:n2, n2 : 2 * n2], big[:n2, 2 * n2 :]]
        scale = np.abs(y).max()
        for k, ref in enumerate(refs):
            # expm's relative accuracy ~1e-13 at ‖hL‖ ≈ 2e3 (P2 stiffest mode)
            assert_allclose(s.phi(k, h, y), ref @ y, atol=2e-11 * scale, err_msg=f"k={k}, h={h}")


def test_phi_functions_small_and_large_arguments():
    z = np.array([0.0, 1e-12j, -0.3j, 0.999, 1.0, -25.0j, 3.0 + 4.0j])
    e = np.exp(z)
    assert_allclose(phi_functions(0, z), e, rtol=1e-15)
    ref1 = np.where(z == 0, 1.0, (e - 1) / np.where(z == 0, 1.0, z))
    assert_allclose(phi_functions(1, z)[2:], ref1[2:], rtol=1e-14)  # direct formula is fine off 0
    assert_allclose(phi_functions(1, z)[:2], [1.0, 1.0 + 0.5e-12j], rtol=1e-15)  # Taylor: 1 + z/2
    assert_allclose(phi_functions(2, np.array([0.0])), [0.5])
    with pytest.raises(ValueError, match="non-negative integer"):
        phi_functions(-1, z)


@pytest.mark.parametrize("degree, mass, coordinates", CONFIGS)
def test_gradient_and_hamiltonian_by_finite_differences(degree, mass, coordinates):
    s = _small(degree, mass, coordinates)
    rng = np.random.default_rng(5)
    y, v = rng.standard_normal(2 * s.n_dofs), rng.standard_normal(2 * s.n_dofs)
    eps = 1e-5
    fd_U = (s.potential(y + eps * v) - s.potential(y - eps * v)) / (2 * eps)
    fd_H = (s.hamiltonian(y + eps * v) - s.hamiltonian(y - eps * v)) / (2 * eps)
    # central difference error eps²/6 · |U'''| ~ 1e-10 · 1e2 for these O(1) random states
    assert_allclose(fd_U, s.grad_potential(y) @ v, rtol=1e-7)
    assert_allclose(fd_H, (s.apply_A(y) + s.grad_potential(y)) @ v, rtol=1e-7)


@pytest.mark.parametrize("degree, mass, coordinates", CONFIGS)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-3, 1.0, 10.0]))
def test_discrete_gradient_property_and_symmetry(degree, mass, coordinates, seed, scale):
    s = _small(degree, mass, coordinates)
    rng = np.random.default_rng(seed)
    y0, y1 = scale * rng.standard_normal((2, 2 * s.n_dofs))
    g = s.discrete_gradient(y0, y1)
    dU = s.potential(y1) - s.potential(y0)
    tol = 1e-13 * (abs(s.potential(y0)) + abs(s.potential(y1)) + 1e-300)  # round-off of two sums
    assert abs(g @ (y1 - y0) - dU) <= tol  # seed 003 eq. (2.11)
    assert_allclose(g, s.discrete_gradient(y1, y0), rtol=0, atol=1e-14 * np.abs(g).max())
    gy = s.grad_potential(y0)
    assert_allclose(s.discrete_gradient(y0, y0), gy, rtol=0, atol=1e-13 * np.abs(gy).max())


def test_quartic_quadrature_is_exact_for_p1():
    # ∫ (a + (b − a)s)⁴ h ds = h (a⁴ + a³b + a²b² + ab³ + b⁴)/5, summed over elements; κ = −4 → U = ∫|ψ|⁴.
    nodes = (0.0, 0.3, 0.45, 1.1, 1.5, 2.0)
    s = FENLS(5, length=2.0, kappa=-4.0, nodes=nodes)
    vals = np.array([0.0, 0.7, -1.2, 0.4, 2.0, 0.0])
    y = s.from_field(vals[1:-1] * (0.6 + 0.8j))  # |ψ| = |vals|
    a, b, h = vals[:-1], vals[1:], np.diff(nodes)
    exact = np.sum(h * (a**4 + a**3 * b + a**2 * b**2 + a * b**3 + b**4) / 5)
    assert_allclose(s.potential(y), exact, rtol=1e-14)


@pytest.mark.parametrize("degree, mass", list(itertools.product((1, 2), ("consistent", "lumped"))))
def test_eigenvalues_converge_at_order_2p(degree, mass):
    # Galerkin eigenvalue error O(h^{2p}) for −∂²ₓ (Strang & Fix §6.3); lumped P1/P2 keep the order
    # (Fried 1973). Fitted on the first three modes of (0, 2).
    nes = np.array([8, 16, 32, 64])
    exact = (np.pi * np.arange(1, 4) / 2.0) ** 2
    errs = np.array([np.abs(FENLS(int(n), length=2.0, degree=degree, mass=mass).eigenvalues[:3] / exact - 1) for n in nes])
    slopes = [observed_order(1.0 / nes, errs[:, j]) for j in range(3)]
    assert_allclose(slopes, 2 * degree, atol=0.15), slopes


@pytest.mark.parametrize("degree, mass", list(itertools.product((1, 2), ("consistent", "lumped"))))
def test_linear_schroedinger_matches_exact_separable_solution(degree, mass):
    # κ = 0: ψ = Σ a_m sin(mπx/L) e^{−i(mπ/L)² t} exactly; the FE flow e^{tSA} is applied exactly (phi),
    # so the error is spatial only. Nodal max-norm error is dominated by the eigenvalue (phase) error,
    # O(h^{2p}): measured slopes 2.00 (P1), 3.96–4.01 (P2).
    L, T = 2.0, 0.1

    def exact(x, t):
        return np.sin(np.pi * x / L) * np.exp(-1j * (np.pi / L) ** 2 * t) + 0.5 * np.sin(
            3 * np.pi * x / L
        ) * np.exp(-1j * (3 * np.pi / L) ** 2 * t)

    nes = np.array([16, 32, 64, 128]) if degree == 1 else np.array([8, 16, 32, 64])
    errs = []
    for n in nes:
        s = FENLS(int(n), length=L, kappa=0.0, degree=degree, mass=mass)
        y = s.phi(0, T, s.interpolate(lambda x: exact(x, 0.0)))
        errs.append(np.abs(s.to_field(y) - exact(s.x, T)).max())
    slope = observed_order(1.0 / nes, errs)
    assert abs(slope - 2 * degree) < 0.15, (slope, errs)


@pytest.mark.parametrize("mass", ["consistent", "lumped"])
def test_sign_convention_against_the_stationary_soliton(mass):
    # i ψ_t + ψ_xx + κ|ψ|²ψ = 0 has ψ = a sech(a√(κ/2)(x − x₀)) e^{iωt}, ω = a²κ/2 (κ > 0): the
    # semi-discrete field S(Ay + ∇U) at its interpolant must approach iωψ at O(h²) for P1
    # (measured slopes 1.89 on 40..320 elements); with κ of the wrong sign the residual is O(10).
    L, a, kappa = 16.0, 2.0, 2.0
    b, omega = a * np.sqrt(kappa / 2), a * a * kappa / 2

    def profile(x):
        return a / np.cosh(b * (x - L / 2))  # |ψ(0)| = 2 sech(16) ≈ 5e-7: Dirichlet is harmless

    nes = np.array([80, 160, 320, 640])
    errs = []
    for n in nes:
        s = FENLS(int(n), length=L, kappa=kappa, mass=mass)
        y = s.interpolate(profile)
        field = s.to_field(s.apply_S(s.apply_A(y) + s.grad_potential(y)))
        errs.append(np.abs(field - 1j * omega * profile(s.x)).max())
    slope = observed_order(1.0 / nes, errs)
    assert abs(slope - 2.0) < 0.15, (slope, errs)
    s = FENLS(80, length=L, kappa=-kappa, mass=mass)
    y = s.interpolate(profile)
    assert np.abs(s.to_field(s.apply_S(s.apply_A(y) + s.grad_potential(y))) - 1j * omega * profile(s.x)).max() > 10


@pytest.mark.parametrize("degree, mass, coordinates", [(1, "consistent", "nodal"), (2, "lumped", "modal"), (2, "consistent", "nodal")])
def test_exponential_integrators_conserve_mass_and_energy(degree, mass, coordinates):
    # exp-midpoint keeps quadratic invariants (discrete mass ψᴴMψ) to round-off (seed 003 Thm 12 and
    # the U(1) symmetry); energy-exp keeps H exactly up to the fixed-point tolerance 1e-14 × |y| per
    # step (seed 003 Thm 14). Bounds: 50 steps × 1e-14 relative ⇒ 1e-12 (measured ≤ 2e-13).
    s = FENLS(40 // degree, length=2 * np.pi, kappa=2.0, degree=degree, mass=mass, coordinates=coordinates)
    y0 = s.interpolate(lambda x: 1.5 * np.sin(x / 2) * np.exp(1j * np.cos(x)))

    def monitor(t, y):
        return {"energy": s.hamiltonian(y), "mass": s.discrete_mass(y)}

    mid = integrate(s, "exp-midpoint", y0, (0.0, 1.0), controller=ConstantStep(0.05), diagnostics=monitor)
    ep = integrate(s, "energy-exp", y0, (0.0, 1.0), controller=ConstantStep(0.05), diagnostics=monitor)
    assert mid.status == "ok" and ep.status == "ok"
    m, E = mid.steps["mass"], ep.steps["energy"]
    assert np.abs(m - m[0]).max() < 1e-12 * m[0]
    assert np.abs(E - E[0]).max() < 1e-12 * abs(E[0])
    # negative controls: the other invariant is not kept at this h (measured 4e-2 and 1e-3)
    assert np.abs(mid.steps["energy"] - E[0]).max() > 1e-4 * abs(E[0])
    assert np.abs(ep.steps["mass"] - m[0]).max() > 1e-5 * m[0]


def test_bad_input_raises_actionable_errors():
    with pytest.raises(ValueError, match="degree must be 1"):
        FENLS(8, degree=3)
    with pytest.raises(ValueError, match="mass must be one of"):
        FENLS(8, mass="diagonal")
    with pytest.raises(ValueError, match="coordinates must be one of"):
        FENLS(8, coordinates="fourier")
    with pytest.raises(ValueError, match="n_elements must be an integer"):
        FENLS(1)
    with pytest.raises(ValueError, match="dense-eigenproblem limit"):
        FENLS(2000)
    with pytest.raises(ValueError, match="from 0 to length"):
        FENLS(3, length=1.0, nodes=(0.0, 0.5, 0.7, 2.0))
    s = FENLS(4)
    with pytest.raises(ValueError, match=r"expected a state of shape \(6,\)"):
        s.apply_A(np.zeros(5))
    with pytest.raises(ValueError, match="interior DOFs"):
        s.from_field(np.zeros(4))
