"""Fourier pseudospectral grid, NLS and KdV systems: structure checks against dense matrices, exact
solutions, finite differences and the identities of seed 003 Theorem 14's proof."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import scipy.linalg as sla
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from lgbeam.discretisations.spectral import (
    NLS,
    FourierGrid,
    KdV,
    kdv_soliton,
    nls_plane_wave,
    nls_soliton,
    phi_symbol,
)


@pytest.mark.parametrize("n, length", [(15, 2 * np.pi), (21, 7.3)])
def test_dense_matrices_match_fft_and_structure(n, length, rng):
    g = FourierGrid(n, length)
    D1, D2, D3 = g.dense_D1(), g.dense_D2(), g.dense_D3()
    y = rng.standard_normal(n)
    scale = (2 * np.pi / length * n / 2) ** 3  # ‖D3‖ ~ k_max³ sets the round-off level
    for order, D in ((1, D1), (2, D2), (3, D3)):
        assert_allclose(D @ y, g.diff(y, order), atol=1e-13 * scale)  # round-off of an O(N²) sum
    assert_allclose(D1 @ D1, D2, atol=1e-13 * scale)  # seed 003 §2.4: D1² = D2 (notes: 4e-14, N = 15)
    assert_allclose(D1, -D1.T, atol=1e-14 * scale)  # D1 skew
    assert_allclose(D2, D2.T, atol=1e-14 * scale)  # D2 symmetric
    assert_allclose(np.sort(np.linalg.eigvalsh(D2)), np.sort(-g.k**2), atol=1e-12 * scale)  # eig = −k²


def test_d2_diagonal_and_exact_trig_derivatives():
    g = FourierGrid(15)  # m = 7 (thesis "n"), k_max = 7 on [0, 2π)
    assert_allclose(np.diag(g.dense_D2()), -7 * 8 / 3, rtol=1e-14)  # Trefethen: −m(m+1)/3
    for m in range(8):  # D1 sin(mx) = m cos(mx) exactly for |m| ≤ k_max
        assert_allclose(g.diff(np.sin(m * g.x), 1), m * np.cos(m * g.x), atol=1e-12)


@pytest.mark.parametrize("order", [0, 1, 2, 3])
@pytest.mark.parametrize("z", [0.0, 1e-9j, 0.4999j, 0.5001j, 3.0j, -2.0 + 0.5j])
def test_phi_symbol_against_mpmath(order, z):
    with mpmath.workdps(50):
        zz = mpmath.mpc(z)
        if zz == 0:
            ref = 1 / mpmath.factorial(order)
        else:  # φ_k(z) = (e^z − Σ_{j<k} z^j/j!) / z^k in 50-digit arithmetic
            ref = (mpmath.exp(zz) - sum(zz**j / mpmath.factorial(j) for j in range(order))) / zz**order
    got = complex(phi_symbol(order, np.array([z]))[0])
    assert abs(got - complex(ref)) <= 4e-16 * 2**order  # recursion loses ≤ 2^k ulps at |z| = 0.5


def _systems():
    g = FourierGrid(11, 2 * np.pi)
    return [NLS(g, form="real"), NLS(g, kappa=-1.0, form="real"), KdV(g, nu=0.1)]


@pytest.mark.parametrize("system", _systems(), ids=["nls", "nls-focusing", "kdv"])
def test_theorem14_identities(system):
    """S = e^{hSA} orthogonal, (SA)T = S − I, Sᵀ T = Tᵀ, S and T commute with J and D (seed 003 Thm 14)."""
    h, n = 0.37, system.n_state
    eye = np.eye(n)
    E = np.stack([system.phi(0, h, e) for e in eye], axis=1)
    T = h * np.stack([system.phi(1, h, e) for e in eye], axis=1)
    J = np.stack([system.apply_S(e) for e in eye], axis=1)
    D = np.stack([system.apply_A(e) for e in eye], axis=1)
    A = J @ D
    tol = 1e-12 * max(1.0, np.abs(A).max())  # round-off of FFT-built dense operators
    assert_allclose(E.T @ E, eye, atol=tol)
    assert_allclose(A @ T, E - eye, atol=tol)
    assert_allclose(E.T @ T, T.T, atol=tol)
    assert_allclose(E, sla.expm(h * A), atol=tol)  # exact exponential (dense check)
    for X in (E, T):
        assert_allclose(X @ J, J @ X, atol=tol)
        assert_allclose(X @ D, D @ X, atol=tol)
    assert_allclose(J, -J.T, atol=tol)
    assert_allclose(D, D.T, atol=tol)


def test_zero_mode_limit_of_phi1():
    """∫₀ʰ e^{τSA} dτ on the k = 0 mode is h·I (notes §3.3: the thesis omits this limit)."""
    g = FourierGrid(21)
    const = np.full(21, 0.7)
    assert_allclose(KdV(g).phi(1, 0.3, const), const, rtol=1e-14)  # φ₁(0) = 1 exactly
    nls = NLS(g, form="complex")
    assert_allclose(nls.phi(1, 0.3, const + 0.2j), const + 0.2j, rtol=1e-14)


@given(seed=st.integers(0, 10**6), scale=st.floats(0.01, 3.0))
def test_discrete_gradients_property_and_symmetry(seed, scale):
    rng = np.random.default_rng(seed)
    g = FourierGrid(9)
    for system in (NLS(g), NLS(g, kappa=-1.0, form="complex"), KdV(g)):
        shape = system.n_state
        y0 = scale * rng.standard_normal(shape)
        y1 = scale * rng.standard_normal(shape)
        if getattr(system, "form", "") == "complex":
            y0, y1 = y0 + 1j * scale * rng.standard_normal(shape), y1 + 1j * scale * rng.standard_normal(shape)
        dg = system.discrete_gradient(y0, y1)
        lhs, rhs = system.inner(dg, y1 - y0), system.potential(y1) - system.potential(y0)
        vmax = max(1.0, abs(system.potential(y0)) + abs(system.potential(y1)))
        assert abs(lhs - rhs) <= 1e-13 * vmax  # (2.11) to round-off of sums over ≤ 18 terms
        assert_allclose(dg, system.discrete_gradient(y1, y0), rtol=1e-15, atol=0)  # symmetric
        assert_allclose(system.discrete_gradient(y0, y0), system.grad_potential(y0), rtol=1e-14)  # consistent


@pytest.mark.parametrize("system", _systems() + [NLS(FourierGrid(11), form="complex")])
def test_gradient_matches_finite_difference_of_hamiltonian(system, rng):
    y = rng.standard_normal(system.n_state) * 0.8
    v = rng.standard_normal(system.n_state)
    if getattr(system, "form", "") == "complex":
        y, v = y + 0.5j * rng.standard_normal(y.size), v + 1j * rng.standard_normal(v.size)
    eps = 1e-5
    fd = (system.hamiltonian(y + eps * v) - system.hamiltonian(y - eps * v)) / (2 * eps)
    grad = system.apply_A(y) + system.grad_potential(y)
    assert abs(fd - system.inner(grad, v)) <= 1e-7 * max(1.0, abs(fd))  # O(eps²)·H''' central difference


def _time_derivative(fn, t, dt=1e-4):
    return (fn(t - 2 * dt) - 8 * fn(t - dt) + 8 * fn(t + dt) - fn(t + 2 * dt)) / (12 * dt)  # O(dt⁴)


def test_nls_exact_solutions_satisfy_semidiscrete_system():
    g = FourierGrid(33, 2 * np.pi)
    sysm = NLS(g, kappa=1.0, form="real")
    wave = lambda t: nls_plane_wave(g.x, t, amplitude=0.7, wavenumber=3.0, kappa=1.0)
    y = sysm.from_field(wave(0.2))
    F = sysm.apply_S(sysm.apply_A(y) + sysm.grad_potential(y))
    assert_allclose(sysm.to_field(F), _time_derivative(wave, 0.2), atol=1e-9)  # FD error ~dt⁴·ω⁵
    L = 60.0  # sech tail e^{−L/2} ≈ 1e−13: the wrapped soliton is smooth to round-off
    g2 = FourierGrid(385, L)
    foc = NLS(g2, kappa=-1.0, form="complex")
    sol = lambda t: nls_soliton(g2.x, t, eta=1.0, velocity=2 * np.pi / L * 4, x0=L / 2, length=L)
    y = sol(0.3)
    F = foc.apply_S(foc.apply_A(y) + foc.grad_potential(y))
    assert_allclose(F, _time_derivative(sol, 0.3), atol=1e-8)  # spectral error e^{−π k_max/2} ≪ FD error


def test_kdv_soliton_satisfies_semidiscrete_system():
    L = 80.0  # sech² tail 12 e^{−L/2} ≈ 5e−17: no wrap jump for D3 to amplify (k_max³ ≈ 10³)
    g = FourierGrid(255, L)
    kdv = KdV(g, nu=1.0)
    sol = lambda t: kdv_soliton(g.x, t, c=1.0, nu=1.0, x0=30.0, length=L)
    u = sol(0.1)
    F = kdv.apply_S(kdv.apply_A(u) + kdv.grad_potential(u))
    assert_allclose(F, _time_derivative(sol, 0.1), atol=1e-8)  # FD error O(dt⁴); spectral e^{−πk_max}


def test_invariants_of_exact_solutions():
    L = 40.0
    g = FourierGrid(257, L)
    foc = NLS(g, kappa=-1.0, form="complex")
    inv = foc.invariants(nls_soliton(g.x, 0.0, eta=1.0, velocity=0.0, x0=L / 2, length=L))
    assert inv["mass"] == pytest.approx(2.0, rel=1e-12)  # ∫ η² sech²(ηx) dx = 2η
    assert inv["momentum"] == pytest.approx(0.0, abs=1e-12)  # standing soliton


def test_bad_input_messages():
    with pytest.raises(ValueError, match="odd number of nodes"):
        FourierGrid(64)
    with pytest.raises(ValueError, match="positive"):
        FourierGrid(65, -1.0)
    with pytest.raises(ValueError, match="nu > 0"):
        KdV(FourierGrid(11), nu=0.0)
    with pytest.raises(ValueError, match="nu > 0"):
        KdV(FourierGrid(11), nu=-1e-3)
    with pytest.raises(ValueError, match="form"):
        NLS(FourierGrid(11), form="polar")
    with pytest.raises(ValueError, match="nonzero"):
        NLS(FourierGrid(11), kappa=0.0)
    with pytest.raises(ValueError, match="real stacked form"):
        NLS(FourierGrid(11), form="complex").jacobian(np.zeros(11, complex))
    with pytest.raises(ValueError, match="expects states of length"):
        NLS(FourierGrid(11)).phi(0, 0.1, np.zeros(11))
    g = FourierGrid(31, 2 * np.pi)
    with pytest.warns(UserWarning, match="not periodic"):
        g.sample(lambda x: x)  # a ramp is discontinuous on the periodic grid
    g.sample(np.cos)  # periodic: no warning (the warnings filter would show one in -ra)


def test_jacobians_match_finite_differences(rng):
    for system in (NLS(FourierGrid(9)), KdV(FourierGrid(9), nu=0.3)):
        y = rng.standard_normal(system.n_state)
        v = rng.standard_normal(system.n_state)
        F = lambda z: system.apply_S(system.apply_A(z) + system.grad_potential(z))  # noqa: B023
        fd = (F(y + 1e-6 * v) - F(y - 1e-6 * v)) / 2e-6
        assert_allclose(system.jacobian(y) @ v, fd, atol=1e-7)  # central difference O(1e-12·F''')
