"""SLGI(θ) on T*G and the heavy top / free rigid body in seed 000's formulations (notes/000.md §8.3, §10
checks 7 and 9). Truth: DOP853 at 1e-13 on the ambient equations, the classical symplectic Euler and
implicit midpoint formulas written out here, and the numbers of notes §8.3."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

from lgbeam.diagnostics import observed_order
from lgbeam.groups import Rn
from lgbeam.integrators.lie import SLGI
from lgbeam.models.heavy_top_lie import HeavyTopCotangent, HeavyTopLiePoisson, RigidBodyLiePoisson
from lgbeam.solve import ConstantStep, SaveAt, integrate

LAST = SaveAt(steps=10**7)


def _seed_error(top, y, ref):
    """notes §8.3: |Q − Q_ref|_F + |π − π_ref| / |π₀|."""
    return np.linalg.norm(y[:9] - ref[:9]) + np.linalg.norm(y[9:] - ref[9:]) / np.linalg.norm(top.initial_state()[9:])


def test_seed_data_reference_and_energy():
    """H₀ = 5275.933796782547 and the reference at t = 1 of notes §8.3 (Q X and π to 8 digits)."""
    top = HeavyTopCotangent()
    y0 = top.initial_state()
    assert abs(top.hamiltonian(np.eye(3), y0[9:]) - 5275.933796782547) < 1e-9
    ref = top.reference_solution([1.0])[-1]
    np.testing.assert_allclose(ref[:9].reshape(3, 3) @ top.axis, [0.87507989, -0.48362902, -0.01838904], atol=1e-8)
    np.testing.assert_allclose(ref[9:], [60.60676855, -35.68198548, -1.08172969], atol=1e-7)


@pytest.mark.parametrize("theta, expected", [(0.5, 2.319e-2), pytest.param(0.0, 2.081e-2, marks=pytest.mark.slow),
                                             pytest.param(1.0, 2.579e-2, marks=pytest.mark.slow)])
def test_seed_heavy_top_error_at_h_1e_3(theta, expected):
    """Fig. 2 (right): SLGI on (21)–(22) with the seed's data, T = 1, h = 1e-3 (notes §8.3 table, 1 %)."""
    top = HeavyTopCotangent()
    ref = top.reference_solution([1.0])[-1]
    sol = integrate(top, SLGI(theta=theta), top.initial_state(), (0.0, 1.0), controller=ConstantStep(1e-3), save=LAST)
    assert sol.status == "ok"
    assert abs(_seed_error(top, sol.y[-1], ref) / expected - 1) < 0.01
    assert sol.steps["orthogonality"].max() < 1e-13  # notes: |QᵀQ − I| ≤ 3e-14


@pytest.mark.slow
def test_seed_heavy_top_order_two():
    """θ = ½ has order 2 on the seed's data: 2.319e-2, 5.890e-3, 1.475e-3, 3.688e-4 (notes §8.3)."""
    top = HeavyTopCotangent()
    ref = top.reference_solution([1.0])[-1]
    hs = np.array([1e-3, 5e-4, 2.5e-4, 1.25e-4])
    errs = [_seed_error(top, integrate(top, "slgi", top.initial_state(), (0.0, 1.0), controller=ConstantStep(h),
                                       save=LAST).y[-1], ref) for h in hs]
    np.testing.assert_allclose(errs, [2.319e-2, 5.890e-3, 1.475e-3, 3.688e-4], rtol=0.01)
    assert abs(observed_order(hs, errs) - 2) < 0.05


def _long_run(theta, steps):
    top = HeavyTopCotangent()
    sol = integrate(top, SLGI(theta=theta), top.initial_state(), (0.0, 0.01 * steps), controller=ConstantStep(0.01),
                    save=LAST)
    assert sol.status == "ok"
    return sol.steps


def test_long_time_energy_bounded_and_pi_e3_conserved():
    """Fig. 3 (first 600 of the 6000 steps): θ = ½ keeps |H − H₀| ≤ 0.17 (notes §8.3: 0.1685 over 6000 steps),
    π·e₃ to 1e-11 (notes: 1e-12) and Q orthogonal to 1e-13."""
    st = _long_run(0.5, 600)
    H0 = st["energy"][0]
    assert np.abs(st["energy"] - H0).max() < 0.17
    assert np.abs(st["pi_e3"] - st["pi_e3"][0]).max() < 1e-11
    assert st["orthogonality"].max() < 1e-13


@pytest.mark.slow
@pytest.mark.parametrize("theta, max_err", [(0.5, 0.1685), (0.0, 19.62)])
def test_long_time_energy_6000_steps(theta, max_err):
    """Fig. 3: h = 0.01, 6000 steps: max |H − H₀| = 0.1685 (θ = ½), 19.62 (θ = 0) (notes §8.3, 5 %); bounded:
    the largest error of the last 1000 steps is at most that of the first 1000 (no drift)."""
    st = _long_run(theta, 6000)
    err = np.abs(st["energy"] - st["energy"][0])
    assert abs(err.max() / max_err - 1) < 0.05
    assert err[-1000:].max() <= 1.05 * err[:1001].max()
    assert np.abs(st["pi_e3"] - st["pi_e3"][0]).max() < 1e-10


@dataclass(frozen=True)
class _Pendulum:
    """H(q, p) = ½ p² − cos q₁ + ½ q₂² p₂² on G = R² (abelian): separable in part, not in q₂, p₂."""

    @cached_property
    def group(self):
        return Rn(2)

    def hamiltonian(self, g, mu):
        return 0.5 * mu @ mu - np.cos(g[0]) + 0.5 * g[1] ** 2 * mu[1] ** 2

    def dH(self, q, p):
        return np.array([np.sin(q[0]), q[1] * p[1] ** 2]), np.array([p[0], p[1] * (1 + q[1] ** 2)])

    def hamiltonian_field(self, g, mu):
        Hq, Hp = self.dH(g, mu)
        return Hp, -Hq


@pytest.mark.parametrize("theta", [0.0, 0.5, 1.0])
def test_abelian_limits_are_the_classical_symplectic_methods(theta):
    """Check 9 of notes §10: on G = Rⁿ, θ = 0, ½, 1 equal symplectic Euler, the implicit midpoint rule and
    the adjoint symplectic Euler, solved here independently by scipy's fsolve."""
    sysm, h = _Pendulum(), 0.1
    q0, p0 = np.array([0.7, 0.4]), np.array([0.2, -0.5])
    y1 = SLGI(theta=theta).step(sysm, 0.0, h, np.concatenate([q0, p0]), None).y

    def residual(z):
        q1, p1 = z[:2], z[2:]
        qa, pa = {0.0: (q0, p1), 0.5: ((q0 + q1) / 2, (p0 + p1) / 2), 1.0: (q1, p0)}[theta]
        Hq, Hp = sysm.dH(qa, pa)
        return np.concatenate([q1 - q0 - h * Hp, p1 - p0 + h * Hq])

    expected = fsolve(residual, np.concatenate([q0, p0]), xtol=1e-14)
    np.testing.assert_allclose(y1, expected, atol=1e-13)


def test_fixed_point_solver_and_bad_options():
    top = HeavyTopCotangent(mass=1.0, length=0.5, spin=(1.0, 3.0, -0.5))
    y0 = top.initial_state()
    a = SLGI(solver="fixed-point").step(top, 0.0, 0.01, y0, None)
    b = SLGI().step(top, 0.0, 0.01, y0, None)
    np.testing.assert_allclose(a.y, b.y, atol=1e-12)
    with pytest.raises(ValueError, match=r"theta must lie in \[0, 1\]"):
        SLGI(theta=1.5)
    with pytest.raises(ValueError, match="solver must be"):
        SLGI(solver="bisection")
    bad = y0.copy()
    bad[0] = 1.1
    with pytest.raises(ValueError, match="not a rotation"):
        integrate(top, "slgi", bad, (0.0, 0.1), controller=ConstantStep(0.01))
    failed = SLGI(solver="fixed-point", max_iter=2).step(top, 0.0, 0.5, y0, None)
    assert failed.status == "solver_failed" and "did not converge" in failed.detail


def test_lie_poisson_heavy_top_rkmk4_order_and_casimirs():
    """(23)–(24) on se(3)* under the coadjoint action, f = −(I⁻¹Π, M g l X): RKMK4 of order 4 (notes §8.3:
    2.642e-4, 1.581e-5 at h = 1e-3, 5e-4 on the seed's data; here T = 0.2 to stay fast), Casimirs |Γ| and
    Π·Γ to round-off (notes: 9e-15)."""
    top = HeavyTopLiePoisson()
    y0 = top.initial_state()
    T = 0.2
    ref = solve_ivp(top.ambient_field, (0, T), y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    hs = np.array([2e-3, 1e-3, 5e-4])
    errs, last = [], None
    for h in hs:
        last = integrate(top, "hs-rkmk4", y0, (0.0, T), controller=ConstantStep(h), save=LAST)
        errs.append(np.linalg.norm(last.y[-1] - ref))
    assert abs(observed_order(hs, errs) - 4) < 0.2
    assert abs(last.steps["casimir_gamma"] - 1).max() < 1e-13
    assert abs(last.steps["casimir_pi_gamma"] - y0[:3] @ y0[3:]).max() < 1e-12


def test_free_rigid_body_on_so3_star_needs_the_sign_fix():
    """Example 1 with f = −I⁻¹μ reproduces μ' = μ × I⁻¹μ (DOP853); |μ| is kept to round-off."""
    body = RigidBodyLiePoisson()
    mu0 = np.array([0.3, -0.8, 0.5])
    ref = solve_ivp(body.ambient_field, (0, 2), mu0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    sol = integrate(body, "cf4", mu0, (0.0, 2.0), controller=ConstantStep(0.01), save=LAST)
    assert np.linalg.norm(sol.y[-1] - ref) < 1e-8
    assert np.abs(sol.steps["casimir"] - np.linalg.norm(mu0)).max() < 1e-14
