"""Static states of the rod against closed forms and an independent elastica solution.

Truths: PL³/3EI (linear Euler–Bernoulli cantilever), the inextensible elastica solved with
scipy's solve_bvp (a second method), and the exact roll-up circle of radius L/2π (seed 004 §4).
"""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose
from scipy.integrate import solve_bvp

from lgbeam.discretisations.rods import (
    CosseratRod,
    Material,
    NodalLoad,
    RodMesh,
    Support,
    TimeFunction,
    straight,
)
from lgbeam.discretisations.rods.statics import static_equilibrium
from lgbeam.groups.s3r3 import S3R3

G = S3R3()
MAT = Material(C_K=[1.0, 1.0, 1.0], C_Gamma=[1e4, 1e4, 1e4], rhoA=1.0, rhoJ=[0.01] * 3)


def _cantilever_tip(n: int, P: float, inextensible: bool) -> np.ndarray:
    mesh = RodMesh.uniform(1.0, n)
    rod = CosseratRod(mesh=mesh, material=MAT, q_ref=straight(G, mesh), supports=(Support("start", "clamped"),),
                      loads=(NodalLoad(node="end", force=[0.0, 0.0, -P]),), inextensible=inextensible)
    q, _ = static_equilibrium(rod)
    return G.translation(q[-1])


def _slope(ns, errs) -> float:
    return -np.polyfit(np.log(ns), np.log(errs), 1)[0]


def test_linear_cantilever_converges_to_PL3_over_3EI_with_order_2():
    P, ns = 1e-3, np.array([4, 8, 16])
    exact = P / 3.0  # PL³/3EI with L = EI = 1
    errs = np.array([abs(-_cantilever_tip(n, P, False)[2] - exact) / exact for n in ns])
    # remaining model error: geometric nonlinearity O(P²) ~ 1e-7 and axial stretch P/EA ~ 1e-7,
    # far below the O(1/N²) discretisation error (1.6 % at N = 4)
    assert _slope(ns, errs) == pytest_approx(2.0, 0.3)
    assert errs[-1] < 1e-3


def pytest_approx(value: float, tol: float):
    import pytest

    return pytest.approx(value, abs=tol)


def _elastica_tip(alpha: float) -> np.ndarray:
    """Inextensible cantilever, dead tip load: EI θ'' = −P cos θ, θ(0) = 0, θ'(L) = 0 (L = EI = 1)."""
    def f(s, y):
        return np.vstack([y[1], -alpha * np.cos(y[0]), np.cos(y[0]), np.sin(y[0])])

    def bc(ya, yb):
        return np.array([ya[0], yb[1], ya[2], ya[3]])

    s = np.linspace(0.0, 1.0, 50)
    sol = solve_bvp(f, bc, s, np.zeros((4, s.size)), tol=1e-10, max_nodes=100000)
    assert sol.status == 0
    return sol.sol(1.0)[2:]  # (x, downward deflection)


def test_large_deflection_cantilever_matches_elastica():
    alpha, ns = 1.0, np.array([4, 8, 16])
    x_ref, y_ref = _elastica_tip(alpha)
    assert_allclose([x_ref, y_ref], [0.94357, 0.30172], atol=1e-5)  # Bisshopp & Drucker (1945) table
    tips = [_cantilever_tip(n, alpha, True) for n in ns]
    errs = np.array([np.hypot(t[0] - x_ref, -t[2] - y_ref) for t in tips])
    assert _slope(ns, errs) == pytest_approx(2.0, 0.3)  # midpoint energy, constant strain per edge
    assert errs[-1] < 5e-4  # 0.3172·(π/4N)²-size error at N = 16 (Richardson: 2.5e-4)


def test_static_roll_up_is_the_exact_circle():
    n, L, EI = 8, 10.0, 500.0
    mesh = RodMesh.uniform(L, n)
    mat = Material(C_K=[EI] * 3, C_Gamma=[1e4] * 3, rhoA=1.0, rhoJ=[10.0] * 3)
    M = 2 * np.pi * EI / L
    rod = CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh), supports=(Support("start", "clamped"),),
                      loads=(NodalLoad(node="end", moment=[0.0, M, 0.0], time=TimeFunction("step")),))
    q, _ = static_equilibrium(rod, n_load_steps=8, tol=1e-13)
    x = G.translation(q)
    assert np.linalg.norm(x[-1] - x[0]) < 1e-6  # issue 4: tip back at the clamp
    centre = x[0] + np.array([0.0, 0.0, L / (2 * np.pi)]) * np.sign(x[n // 2, 2])
    assert_allclose(np.linalg.norm(x - centre, axis=1), L / (2 * np.pi), rtol=1e-9)  # circle of radius L/2π
