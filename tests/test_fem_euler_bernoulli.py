"""Euler–Bernoulli Hermite beam (scikit-fem) against closed-form statics and frequencies."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from lgbeam.discretisations.fem.euler_bernoulli import (
    EulerBernoulliBeam,
    closed_form_beta_l,
    n_rigid_modes,
)

PAIRS = [
    ("clamped", "free"),
    ("free", "clamped"),
    ("pinned", "pinned"),
    ("free", "free"),
    ("clamped", "clamped"),
    ("clamped", "pinned"),
    ("pinned", "free"),
]


def test_dof_ordering_and_physical_slope_scaling():
    # w = x³ is in the cubic Hermite space; its DOFs are (w, dw/dx) at each node if scikit-fem orders
    # [w0, w0', w1, w1', ...] with physical slopes. Then ∫ EI (w'')² = EI·12 L³ and ∫ ρA w² = ρA L⁷/7.
    L, EI, rhoA = 2.0, 3.0, 0.5
    beam = EulerBernoulliBeam(L, EI, rhoA, n_elements=5, nodes=np.array([0.0, 0.2, 0.7, 1.1, 1.6, 2.0]))
    nd = beam.basis.nodal_dofs
    assert_allclose(nd, np.arange(2 * beam.x.size).reshape(-1, 2).T)
    u = np.zeros(beam.basis.N)
    u[nd[0]], u[nd[1]] = beam.x**3, 3 * beam.x**2
    assert_allclose(u @ beam.stiffness @ u, EI * 12 * L**3, rtol=1e-12)  # exact quadrature, round-off
    assert_allclose(u @ beam.mass @ u, rhoA * L**7 / 7, rtol=1e-12)  # degree-6 integrand, intorder 6


def test_skfem_matrices_match_closed_form_hermite_element():
    # Przemieniecki (1968) beam element: K_e = EI/h³ [...], M_e = ρA h/420 [...]. scikit-fem builds the
    # Hermite basis in global x (ElementGlobal), which costs ~1e-13 (10 el.) .. 4e-10 (80 el.) relative.
    ne, EI, rhoA = 10, 2.0, 3.0
    beam = EulerBernoulliBeam(1.0, EI, rhoA, ne)
    h = 1.0 / ne
    Ke = EI / h**3 * np.array(
        [[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
         [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]]
    )
    Me = rhoA * h / 420 * np.array(
        [[156, 22 * h, 54, -13 * h], [22 * h, 4 * h * h, 13 * h, -3 * h * h],
         [54, 13 * h, 156, -22 * h], [-13 * h, -3 * h * h, -22 * h, 4 * h * h]]
    )
    dofs = beam.basis.element_dofs.T  # (n_el, 4)
    n = beam.basis.N
    rows, cols = np.repeat(dofs, 4, axis=1).ravel(), np.tile(dofs, (1, 4)).ravel()
    K_ref = np.zeros((n, n))
    M_ref = np.zeros((n, n))
    np.add.at(K_ref, (rows, cols), np.tile(Ke.ravel(), ne))
    np.add.at(M_ref, (rows, cols), np.tile(Me.ravel(), ne))
    assert_allclose(beam.stiffness.toarray(), K_ref, atol=1e-11 * np.abs(K_ref).max())  # see comment above
    assert_allclose(beam.mass.toarray(), M_ref, atol=1e-11 * np.abs(M_ref).max())


@pytest.mark.parametrize("nodes", [None, "graded"])
def test_cantilever_static_deflection_exact_at_nodes(nodes):
    # Hermite cubics reproduce the exact solution of EI w'''' = q at the nodes for constant q
    # (Tong 1969 superconvergence); curves from Timoshenko & Gere: P x²(3L − x)/(6EI),
    # q x²(6L² − 4Lx + x²)/(24EI). Tolerance: round-off of a ~1e6-conditioned solve.
    L, EI, P, q = 3.0, 7.0, 2.5, -1.2
    x = None if nodes is None else L * np.linspace(0, 1, 13) ** 1.7
    beam = EulerBernoulliBeam(L, EI, 1.0, 12, nodes=x)
    res = beam.static(tip_force=P)
    assert_allclose(res.tip, P * L**3 / (3 * EI), rtol=1e-10)
    assert_allclose(res.w, P * res.x**2 * (3 * L - res.x) / (6 * EI), atol=1e-10 * abs(res.tip))
    assert_allclose(res.dw, P * res.x * (2 * L - res.x) / (2 * EI), atol=1e-10 * abs(res.tip))
    res = beam.static(distributed=q)
    assert_allclose(res.tip, q * L**4 / (8 * EI), rtol=1e-10)
    xs = res.x
    assert_allclose(res.w, q * xs**2 * (6 * L**2 - 4 * L * xs + xs**2) / (24 * EI), atol=1e-10 * abs(res.tip))
    both = beam.static(tip_force=P, distributed=lambda s: q + 0.0 * s)  # linearity, callable load
    assert_allclose(both.tip, P * L**3 / (3 * EI) + q * L**4 / (8 * EI), rtol=1e-10)


def test_simply_supported_uniform_load_midspan():
    # 5 q L⁴ / (384 EI) at midspan (Timoshenko & Gere); exact at the node x = L/2.
    L, EI, q = 2.0, 5.0, 3.0
    res = EulerBernoulliBeam(L, EI, 1.0, 8, "pinned", "pinned").static(distributed=q)
    assert_allclose(res.w[4], 5 * q * L**4 / (384 * EI), rtol=1e-10)  # round-off


def test_closed_form_roots_match_published_values():
    # β_n L from Blevins, Formulas for Natural Frequency and Mode Shape (1979), Table 8-1 (8 digits).
    assert_allclose(closed_form_beta_l("clamped", "free", 3), [1.87510407, 4.69409113, 7.85475744], atol=5e-9)
    assert_allclose(closed_form_beta_l("free", "free", 2), [4.73004074, 7.85320462], atol=5e-9)
    assert_allclose(closed_form_beta_l("clamped", "clamped", 2), [4.73004074, 7.85320462], atol=5e-9)
    assert_allclose(closed_form_beta_l("pinned", "pinned", 3), np.pi * np.arange(1, 4), rtol=0)
    assert_allclose(closed_form_beta_l("clamped", "pinned", 2), [3.92660231, 7.06858275], atol=5e-9)
    # asymptotics (2n−1)π/2 and (2n+1)π/2 for large n (Blevins Table 8-1 footnote)
    assert_allclose(closed_form_beta_l("clamped", "free", 30)[-1], 59 * np.pi / 2, rtol=1e-14)
    assert_allclose(closed_form_beta_l("free", "free", 30)[-1], 61 * np.pi / 2, rtol=1e-14)


@pytest.mark.parametrize("left, right", PAIRS)
def test_frequencies_converge_at_fourth_order(left, right):
    # Eigenvalue error O(h^{2(k+1−m)}) = O(h⁴) for cubic Hermite (k = 3, m = 2), Strang & Fix §6.3;
    # fitted slopes measured 3.76–4.0 for the first four modes on n_el = 6..48 (pre-asymptotic below 4).
    L, EI, rhoA = 1.7, 2.0, 0.3
    nes = np.array([6, 12, 24, 48])
    errs = []
    for ne in nes:
        beam = EulerBernoulliBeam(L, EI, rhoA, int(ne), left, right)
        errs.append(np.abs(beam.modes(4).omega / beam.closed_form_omega(4) - 1))
    errs = np.array(errs)
    assert np.all(errs[-1] < 1e-5)  # measured ≤ 5.3e-6 at 48 elements
    slopes = [np.polyfit(np.log(L / nes), np.log(errs[:, j]), 1)[0] for j in range(4)]
    assert_allclose(slopes, 4.0, atol=0.3), slopes


def test_nonuniform_mesh_frequencies_converge():
    # Smoothly perturbed meshes keep the O(h⁴) rate (measured slopes 3.86–4.20).
    nes = np.array([6, 12, 24, 48])
    errs = []
    for ne in nes:
        s = np.linspace(0.0, 1.0, ne + 1)
        beam = EulerBernoulliBeam(1.0, 1.0, 1.0, int(ne), nodes=s + 0.25 / ne * np.sin(2 * np.pi * s))
        errs.append(np.abs(beam.modes(4).omega / beam.closed_form_omega(4) - 1))
    errs = np.array(errs)
    slopes = [np.polyfit(np.log(1.0 / nes), np.log(errs[:, j]), 1)[0] for j in range(4)]
    assert_allclose(slopes, 4.0, atol=0.3), slopes


def test_modes_are_mass_orthonormal_and_match_cantilever_shape():
    beam = EulerBernoulliBeam(2.0, 1.0, 4.0, 40)
    m = beam.modes(3)
    V = m.vectors
    assert_allclose(V @ beam.mass @ V.T, np.eye(3), atol=1e-10)  # eigsh M-orthonormality, round-off
    assert_allclose(V @ beam.stiffness @ V.T, np.diag(m.omega**2), atol=1e-8 * m.omega[-1] ** 2)
    assert_allclose(m.hz, m.omega / (2 * np.pi))
    # first cantilever mode (Blevins Table 8-1): cosh βx − cos βx − σ (sinh βx − sin βx)
    bl = closed_form_beta_l("clamped", "free", 1)[0]
    sigma = (np.cosh(bl) + np.cos(bl)) / (np.sinh(bl) + np.sin(bl))
    bx = bl * m.x / 2.0
    shape = np.cosh(bx) - np.cos(bx) - sigma * (np.sinh(bx) - np.sin(bx))
    shape *= m.shapes[0, -1] / shape[-1]
    assert_allclose(m.shapes[0], shape, atol=1e-6 * np.abs(shape).max())  # O(h⁴) ≈ 1e-7 at 40 el.


def test_rigid_modes_dropped_or_kept():
    for left, right, nr in [("free", "free", 2), ("pinned", "free", 1), ("clamped", "free", 0)]:
        assert n_rigid_modes(left, right) == nr
    beam = EulerBernoulliBeam(1.0, 1.0, 1.0, 20, "free", "free")
    full = beam.modes(4, include_rigid=True)
    assert np.all(full.omega[:2] < 1e-4)  # ω² ~ eps·|K|/|M| ≈ 3e-10 (|K| ~ 12EI/h³): ω ~ 2e-5
    assert_allclose(full.omega[2:], beam.modes(2).omega, rtol=1e-10)


def test_bad_input_raises_actionable_errors():
    with pytest.raises(ValueError, match="left support 'hinged'"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 4, left="hinged")
    with pytest.raises(ValueError, match="EI must be a positive"):
        EulerBernoulliBeam(1.0, -1.0, 1.0, 4)
    with pytest.raises(ValueError, match="n_elements"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 0)
    with pytest.raises(ValueError, match="strictly increasing"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 2, nodes=np.array([0.0, 0.7, 0.5, 1.0]))
    with pytest.raises(ValueError, match="from 0 to length"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 2, nodes=np.array([0.0, 0.5, 2.0]))
    with pytest.raises(ValueError, match="rigid body"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 4, "free", "free").static(distributed=1.0)
    with pytest.raises(ValueError, match="right='free'"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 4, "clamped", "pinned").static(tip_force=1.0)
    with pytest.raises(ValueError, match="increase n_elements"):
        EulerBernoulliBeam(1.0, 1.0, 1.0, 2).modes(5)
