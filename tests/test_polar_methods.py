"""Polar-decomposition symplectic methods on SO(n) (seed 003 ch. 4; notes/003-ch3plus.md Part H §§9–13).

Truths: scipy's DOP853 on g' = gΩ, μ' = [μ, Ω] − ∂H/∂U in R^{2n²} (rtol 1e-13), the invariants themselves
(energy, Casimirs, orthogonality, the coadjoint identity), the method run backwards, the second solver
(Newton against fixed point), and the numbers of notes Part C.8 (quoted where asserted).
"""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.diagnostics import observed_order
from lgbeam.integrators.integral_preserving.polar import (
    GL_TABLEAUX,
    PolarLiePoisson,
    PolarVI,
    gauss_legendre_tableau,
)
from lgbeam.integrators.registry import make_method
from lgbeam.models.son_bodies import FreeRigidBodySOn, HeavyTopSOn
from lgbeam.solve import ConstantStep, SaveAt, integrate

BODY = FreeRigidBodySOn()  # J = diag(1, 2, 3), μ₀ = (0.5, −0.5, 0.5) (seed 003 §4.5)
TOP = HeavyTopSOn()        # χ = (0.3, 0.2, 1), e = e₃ (notes C.8)


def _run(system, method, T, h, **kw):
    sol = integrate(system, method, system.initial_state(), (0.0, T), controller=ConstantStep(h), **kw)
    assert sol.status == "ok", sol.message
    return sol


def test_gauss_legendre_tableaux_satisfy_the_collocation_conditions():
    """Σ_j a_ij c_jᵏ⁻¹ = c_iᵏ/k (k ≤ s) and Σ b_i c_iᵏ⁻¹ = 1/k (k ≤ 2s): order 2s."""
    for s in (1, 2, 3):
        tab = gauss_legendre_tableau(s)
        A, b = np.asarray(tab.a), np.asarray(tab.b)
        c = A.sum(axis=1)
        for k in range(1, s + 1):
            np.testing.assert_allclose(A @ c ** (k - 1), c**k / k, atol=1e-15)
        for k in range(1, 2 * s + 1):
            assert abs(b @ c ** (k - 1) - 1.0 / k) < 1e-15
    np.testing.assert_allclose(GL_TABLEAUX["gl2"].a, [[0.25, 0.25 - np.sqrt(3) / 6], [0.25 + np.sqrt(3) / 6, 0.25]],
                               atol=1e-16)


def test_lie_poisson_gl2_structure_on_the_thesis_problem():
    """Part H §§9, 11 on [0, 12] at h = 0.2: max energy error < 1e-7 (notes: 2.72e-8 over [0, 100]),
    Casimir |μ|² to 1e-13, ‖gᵀg − I‖ at round-off, p_{k+1} = f_kᵀ p_k f_k to 1e-14, ~10 iterations."""
    sol = _run(BODY, "polar-lp-gl2", 12.0, 0.2, save=SaveAt(steps=1))
    E, C = np.asarray(sol.steps["energy"]), np.asarray(sol.steps["casimir"])
    assert np.abs(E - E[0]).max() < 1e-7
    assert np.abs(C - C[0]).max() < 1e-13
    assert np.asarray(sol.steps["orthogonality"]).max() < 1e-14
    g, mu = sol.y[:, 0], sol.y[:, 1]
    f = np.swapaxes(g[:-1], -1, -2) @ g[1:]
    assert np.abs(np.swapaxes(f, -1, -2) @ mu[:-1] @ f - mu[1:]).max() < 1e-14
    assert 5 <= sol.stats["n_iterations"] / sol.stats["n_steps"] <= 15


def test_orders_in_energy_and_trajectory():
    """Part H §10: GL2 and GL3 (Lie–Poisson) orders 4 and 6 in the max energy and the trajectory error;
    GL1 order 2 in the trajectory and exact (round-off) free-body energy (notes C.8: observed, not claimed)."""
    T = 2.0
    ts = np.arange(0.0, T + 1e-9, 0.4)
    ref = BODY.reference(ts, BODY.initial_state())
    hs = np.array([0.4, 0.2, 0.1])
    for name, p in (("polar-lp-gl1", 2), ("polar-lp-gl2", 4), ("polar-lp-gl3", 6)):
        et, ee = [], []
        for h in hs:
            sol = _run(BODY, name, T, h, save=SaveAt(times=ts))
            et.append(np.abs(sol.y - ref).max())
            E = np.asarray(sol.steps["energy"])
            ee.append(np.abs(E - E[0]).max())
        assert abs(observed_order(hs, et) - p) < 0.2, (name, et)
        if p == 2:
            assert max(ee) < 1e-14
        else:
            assert abs(observed_order(hs, ee) - p) < 0.3, (name, ee)


def test_heavy_top_hamiltonian_form_conserves_vertical_momentum_and_matches_newton():
    """The Hamiltonian form (4.26) exercises ∂H/∂U; the vertical spatial momentum e₃·(R m) is a symmetry
    invariant (notes C.8: to 1e-14); a Newton solve of the same equations gives the same step."""
    sol = _run(TOP, "polar-gl2", 2.0, 0.2, save=SaveAt(steps=1))
    v = [TOP.vertical_momentum(y) for y in sol.y]
    assert np.abs(np.asarray(v) - v[0]).max() < 1e-13
    y0 = TOP.initial_state()
    fp = PolarVI().step(TOP, 0.0, 0.2, y0, None)
    nt = PolarVI(solver="newton").step(TOP, 0.0, 0.2, y0, None)
    assert fp.status == nt.status == "ok" and np.abs(fp.y - nt.y).max() < 1e-13
    assert nt.iterations < fp.iterations


def test_symmetry_gl1_exact_gl2_order_six():
    """Part H §13: GL1 symmetric to round-off; GL2 defect ≈ 2.1e-10 at h = 0.2, scaling as h⁶ (notes C.8:
    1.34e-8, 2.13e-10, 3.34e-12 at h = 0.4, 0.2, 0.1)."""
    y0 = BODY.initial_state()

    def defect(m, h):
        y1 = m.step(BODY, 0.0, h, y0, None).y
        return np.abs(m.step(BODY, h, -h, y1, None).y - y0).max()

    assert defect(PolarLiePoisson(GL_TABLEAUX["gl1"]), 0.2) < 1e-14
    hs = np.array([0.4, 0.2, 0.1])
    d = [defect(PolarLiePoisson(GL_TABLEAUX["gl2"]), h) for h in hs]
    assert 1e-11 < d[1] < 1e-9 and abs(observed_order(hs, d) - 6) < 0.3


def test_larger_n():
    """SO(5): the free body keeps the coadjoint invariants tr μ², tr μ⁴ and orthogonality; the heavy top
    converges at order 4 against DOP853."""
    rng = np.random.default_rng(5)
    body = FreeRigidBodySOn((1.0, 1.5, 0.7, 2.0, 0.4))
    M = rng.normal(size=(5, 5))
    y0 = body.initial_state(0.3 * (M - M.T))
    sol = integrate(body, "polar-lp-gl2", y0, (0.0, 2.0), controller=ConstantStep(0.1))
    assert sol.status == "ok"
    mu0, mu1 = y0[1], sol.y[-1][1]
    for k in (2, 4):
        c0 = np.trace(np.linalg.matrix_power(mu0, k))
        assert abs(np.trace(np.linalg.matrix_power(mu1, k)) - c0) < 1e-13 * abs(c0)  # 20 steps of round-off
    g = sol.y[-1][0]
    assert np.abs(g.T @ g - np.eye(5)).max() < 1e-14
    top = HeavyTopSOn((1.0, 1.5, 0.7, 2.0, 0.4), chi=(0.1, -0.2, 0.3, 0.2, 1.0))
    y0 = top.initial_state(0.3 * (M - M.T))
    ref = top.reference([1.0], y0)[-1]
    hs = np.array([0.2, 0.1, 0.05])
    errs = [np.abs(integrate(top, "polar-gl2", y0, (0.0, 1.0), controller=ConstantStep(h)).y[-1] - ref).max()
            for h in hs]
    assert abs(observed_order(hs, errs) - 4) < 0.2


def test_failed_fixed_point_and_bad_state():
    sol = integrate(BODY, make_method("polar-lp-gl2", max_iter=2), BODY.initial_state(), (0.0, 1.0),
                    controller=ConstantStep(0.2))
    assert sol.status == "solver_failed" and "after 2 iterations" in sol.message
    with pytest.raises(ValueError, match=r"not in SO\(3\)"):
        integrate(BODY, "polar-lp-gl2", np.stack([2 * np.eye(3), np.zeros((3, 3))]), (0.0, 1.0),
                  controller=ConstantStep(0.2))
    with pytest.raises(ValueError, match="solver must be"):
        PolarVI(solver="broyden")


@pytest.mark.slow
def test_thesis_numbers():
    """notes C.8 on [0, 100] (GL2, h = 0.2 … 0.05) and the heavy top at T = 20 (Part H §12)."""
    for h, e_ref, mu_ref in ((0.2, 2.72e-8, 8.40e-5), (0.1, 1.70e-9, 5.26e-6)):
        ts = np.arange(0.0, 100.0 + 1e-9, h)
        ref = BODY.reference(ts, BODY.initial_state())
        sol = _run(BODY, "polar-lp-gl2", 100.0, h, save=SaveAt(times=ts))
        E = np.asarray(sol.steps["energy"])
        assert abs(np.abs(E - E[0]).max() / e_ref - 1) < 0.05
        mu_err = np.abs(sol.y[:, 1] - ref[:, 1]).max(axis=(-1, -2)).max()  # |hat(m)|_max = |m|_max
        assert abs(mu_err / mu_ref - 1) < 0.2
    ref = TOP.reference([20.0], TOP.initial_state())[-1]
    for h, err_ref, e_ref in ((0.2, 1.08e-3, 1.73e-4), (0.1, 6.79e-5, 1.10e-5), (0.05, 4.25e-6, 6.91e-7)):
        sol = _run(TOP, "polar-gl2", 20.0, h)
        m_err = np.linalg.norm(sol.y[-1][1] - ref[1]) / np.sqrt(2)  # |m − m_ref| (notes' trajectory error)
        E = np.asarray(sol.steps["energy"])
        assert abs(m_err / err_ref - 1) < 0.02 and abs(np.abs(E - E[0]).max() / e_ref - 1) < 0.02
