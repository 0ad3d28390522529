"""(S²)ⁿ methods of seed 001 ch. 7 (lgbeam.integrators.spheres) against independent truth: DOP853 on the
(q, ω) equations, unit norms, the exact invariants of ELN (q·Ω) and RATTLE (momentum about k), finite
differences of the models (notes/001.md §8 checks 13–17)."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.diagnostics import observed_order
from lgbeam.integrators.registry import make_method
from lgbeam.models.spheres import (
    Spheres,
    dipole_array,
    double_spherical_pendulum,
    reference_solution,
    spherical_pendulum,
)
from lgbeam.solve import ConstantStep, SaveAt, integrate
from lgbeam.systems import MechanicalState

METHODS = {"spheres-eln": 2, "spheres-rkmk4": 4, "spheres-rkmkgl4": 4, "spheres-rattle": 2}


def test_initial_energies_and_momentum():
    """notes/001.md §6: E₀ pendulum 1.344775437, double −3.28043923778 (J₀ = 2.249868), dipoles −1.24596636448e-3."""
    for make, E0 in ((spherical_pendulum, 1.344775437), (double_spherical_pendulum, -3.28043923778),
                     (dipole_array, -1.24596636448e-3)):
        model, y0 = make()
        assert abs(model.energy(y0.q, y0.v) - E0) < 1e-9 * max(1.0, abs(E0)) + 1e-14
    model, y0 = double_spherical_pendulum()
    assert abs(model.momentum_about(y0.q, y0.v) - 2.249868) < 1e-6


def test_potential_gradient_and_acceleration(rng):
    """∂V/∂q by central differences; α from (6.5b) equals q_i × (projected Newton acceleration) (derivation)."""
    for make in (dipole_array, double_spherical_pendulum):
        model, _ = make()
        n = model.n_spheres
        q = rng.normal(size=(n, 3))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        g, eps = model.potential_gradient(q), 1e-6
        for i, a in ((0, 0), (n - 1, 2)):
            dq = np.zeros_like(q)
            dq[i, a] = eps
            fd = (model.potential(q + dq) - model.potential(q - dq)) / (2 * eps)
            assert abs(fd - g[i, a]) < 1e-7 * max(1.0, abs(g[i, a]))
    model, _ = double_spherical_pendulum()
    q = rng.normal(size=(2, 3))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w = np.cross(q, rng.normal(size=(2, 3)))
    alpha = model.angular_acceleration(q, w)
    assert np.abs(np.einsum("ij,ij->i", alpha, q)).max() < 1e-12  # α_i ⊥ q_i
    qdd = np.cross(alpha, q) - np.einsum("ij,ij->i", w, w)[:, None] * q  # q'' (q·ω = 0)
    resid = model.mass_matrix @ qdd + model.potential_gradient(q)  # = λ_i q_i (constraint force only)
    assert np.abs(np.cross(q, resid)).max() < 1e-11


@pytest.mark.parametrize("name, order", METHODS.items())
def test_orders_on_the_pendulum(name, order):
    """Fig. 7.3: orders 2/4/4/2 on T S² at T = 1 against DOP853 (notes §8 check 17)."""
    model, y0 = spherical_pendulum()
    hs = np.array([2.0**-4, 2.0**-5, 2.0**-6]) if order == 4 else np.array([2.0**-5, 2.0**-6, 2.0**-7])
    qr, _ = reference_solution(model, y0, [1.0])
    errs = []
    for h in hs:
        sol = integrate(model, name, y0, (0.0, 1.0), controller=ConstantStep(h), save=SaveAt(steps=10**6),
                        diagnostics=False)
        errs.append(np.abs(sol.q[-1] - qr[-1]).max())
    assert abs(observed_order(hs, errs) - order) < 0.1, errs


def test_double_pendulum_invariants():
    """Checks 13, 14, 16 on the double pendulum (h = 0.01, 100 steps): |q_i| − 1 < 1e-13 for the Lie methods,
    ELN keeps q_i·Ω_i exactly, RATTLE keeps the momentum about k exactly (to its solver tolerance 1e-13 per
    step: < 1e-10), ELN does not (> 1e-5)."""
    model, y0 = double_spherical_pendulum()
    J0 = model.momentum_about(y0.q, y0.v)
    out = {}
    for name in METHODS:
        sol = integrate(model, name, y0, (0.0, 1.0), controller=ConstantStep(0.01), save=SaveAt(every=0.1),
                        diagnostics=False)
        assert sol.status == "ok", sol.message
        out[name] = (np.abs(np.linalg.norm(sol.q, axis=-1) - 1).max(), np.abs(np.einsum("tij,tij->ti", sol.q, sol.v)).max(),
                     max(abs(model.momentum_about(q, w) - J0) for q, w in zip(sol.q, sol.v)))
    for name in ("spheres-eln", "spheres-rkmk4", "spheres-rkmkgl4"):
        assert out[name][0] < 1e-13
    assert out["spheres-eln"][1] < 1e-12 < out["spheres-rkmk4"][1]  # ELN exact, RKMK4 drifts (§9.4)
    assert out["spheres-rattle"][2] < 1e-10
    assert out["spheres-eln"][2] > 1e-5
    assert out["spheres-rattle"][0] < 1e-13  # the position multipliers are solved to 1e-13


def test_eln_explicit_on_the_dipoles_keeps_gauge():
    model, y0 = dipole_array(3, 2)
    sol = integrate(model, "spheres-eln", y0, (0.0, 0.5), controller=ConstantStep(0.01), diagnostics=False)
    assert np.abs(np.einsum("tij,tij->ti", sol.q, sol.v)).max() < 1e-13
    assert not model.velocity_dependent and sol.iterations.sum() == 0  # explicit: no Newton


def test_bad_input():
    model, y0 = spherical_pendulum()
    with pytest.raises(ValueError, match="unit vector"):
        model.state(2 * y0.q, y0.v)
    with pytest.raises(ValueError, match="orthogonal to q_i"):
        model.state(y0.q, y0.v + y0.q)
    with pytest.raises(ValueError, match="unit vector"):
        integrate(model, "spheres-rattle", MechanicalState(1.1 * y0.q, y0.v), (0, 1), controller=ConstantStep(0.1))
    with pytest.raises(ValueError, match="positive definite"):
        Spheres(np.array([[1.0, 2.0], [2.0, 1.0]]), lambda q: 0.0, np.zeros_like)
    with pytest.raises(ValueError, match="tableau must be 'rk4' or 'gl4'"):
        from lgbeam.integrators.spheres import SpheresRKMK
        SpheresRKMK(tableau="dopri5")
    with pytest.raises(ValueError, match="at least two dipoles"):
        dipole_array(1, 1)
    failed = make_method("spheres-rkmkgl4", max_iter=2)
    y, c = failed.init(model, 0.0, y0)
    st = failed.step(model, 0.0, 0.1, y, c)
    assert st.status == "solver_failed" and st.iterations == 2 and "fixed-point" in st.detail
