"""The factorised mass of the half-explicit stage solves (lgbeam/integrators/_linear.py ``FactoredMass``;
docs/half-explicit.md "Stage solves with a mass that is not block diagonal"): the corotational element's
consistent mass is not block diagonal, so M⁻¹ is never formed; M is factorised once (banded Cholesky after
RCM, or SuperLU) and each stage is solved by the Schur complement (few constraints) or the sparse
saddle-point LU (many). Checked against the dense inverse route it replaces (stage solutions and HEDOP5
trajectories), against the saddle-point equations themselves, and for the memory it keeps at n ≈ 5 000
unknowns (no dense n × n array)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from lgbeam.apps import frame as frame_app
from lgbeam.apps import load_case
from lgbeam.integrators import _linear, mechanics
from lgbeam.integrators._linear import FactoredMass, SaddlePointSolver, block_diagonal_inverse, mass_inverse
from lgbeam.io.schema import validate
from lgbeam.solve import ConstantStep, MechanicalState, integrate


def _cantilever(n: int, tip: float = 0.0):  # type: ignore[no-untyped-def]
    """A clamped corotational cantilever of n elements, consistent mass (6 constraints: the Schur route)."""
    model = {"element": "corotational", "n_elements": n, "mass": "consistent",
             "material": {"EA": 1e3, "GA": 1e3, "EI": 3.0, "GJ": 2.1, "rhoA": 1.0, "rhoJ": 1e-2},
             "rods": [{"name": "r", "start": [0.0, 0.0, 0.0], "end": [0.0, 0.6, 0.8]}]}
    raw = {"kind": "frame", "name": "t", "model": model,
           "supports": [{"rod": "r", "node": "start", "kind": "clamped"}],
           "loads": {"nodal": [{"rod": "r", "node": "end", "force": [tip, 0.0, 0.0]}]},
           "analysis": {"kind": "static"}, "time": {"t_end": 1.0}}
    return frame_app.build(validate(raw, frame_app.SCHEMA))


def _frame():  # type: ignore[no-untyped-def]
    """steel-frame-2storey, corotational, 2 elements per member: 288 unknowns, 144 constraints (supports and
    rigid joints: more than 3(k + 1) = 36, the saddle-point LU route)."""
    case = load_case("steel-frame-2storey", ['model.element="corotational"', "model.n_elements=2"])[0]
    return frame_app.build(case)


def _moving_state(st, rng):  # type: ignore[no-untyped-def]
    """(q_ref, v0) with a random v0 that vanishes at every node a constraint touches (so B v0 = 0)."""
    v0 = 1e-2 * rng.standard_normal(st.n_dofs)
    v0[np.unique(st.constraint_jacobian(st.q_ref).indices)] = 0.0
    return st.q_ref, v0


@pytest.mark.parametrize("build, route", [(lambda: _cantilever(12), "schur"), (_frame, "kkt")])
def test_stage_solve_equals_the_dense_inverse_route_and_the_saddle_point_equations(build, route):
    """One stage of eq. (14) with B_i = B(q), B_next = B(q ∘ exp(δ)), γ = 0.37: V̇, Λ of the factorised M
    equal those of the dense M⁻¹ (the route it replaces) to 1e-12 relative, and satisfy M V̇ + B_iᵀΛ = r₁,
    γ B_next V̇ = r₂ to 1e-13 of the terms' size (round-off). Same for the velocity
    projection (which must land in ker B) and the position correction."""
    st, rng = build(), np.random.default_rng(4)
    q = st.q_ref
    M = st.mass(q)
    F = mass_inverse(M, 6)
    assert isinstance(F, FactoredMass) and F.kd == 11  # two 6-dof nodes per element: bandwidth 11
    n, m = M.shape[0], st.n_constraints
    assert (m <= _linear.SCHUR_PER_BAND * (F.kd + 1)) == (route == "schur")
    new = SaddlePointSolver(F, compiled=False)
    ref = SaddlePointSolver(np.linalg.inv(M.toarray()), compiled=False)
    B_i = st.constraint_jacobian(q)
    B_n = st.constraint_jacobian(st.group.retract(q, 1e-2 * rng.standard_normal(n)))
    r1, r2 = rng.standard_normal(n), rng.standard_normal(m)
    vd, lam = new.solve(r1, B_i, B_n, 0.37, r2)
    vd0, lam0 = ref.solve(r1, B_i, B_n, 0.37, r2)
    assert np.abs(vd - vd0).max() <= 1e-12 * np.abs(vd0).max()
    assert np.abs(lam - lam0).max() <= 1e-12 * np.abs(lam0).max()
    assert np.abs(M @ vd + B_i.T @ lam - r1).max() <= 1e-13 * (abs(M) @ abs(vd) + abs(B_i.T) @ abs(lam)).max()
    a0 = np.linalg.solve(M.toarray(), r1)  # V̇ = a0 − M⁻¹B_iᵀΛ: B_next V̇ is a difference of terms this size
    assert np.abs(0.37 * (B_n @ vd) - r2).max() <= 1e-13 * (0.37 * abs(B_n) @ (abs(a0) + abs(vd))).max()
    v = rng.standard_normal(n)
    pv, pv0 = new.project_velocity(B_i, v), ref.project_velocity(B_i, v)
    assert np.abs(pv - pv0).max() <= 1e-12 * np.abs(v).max()
    assert np.abs(B_i @ pv).max() <= 1e-12 * np.abs(B_i @ v).max()
    c, c0 = new.correction(B_i, r2), ref.correction(B_i, r2)
    assert np.abs(c - c0).max() <= 1e-12 * np.abs(c0).max()
    assert np.abs(new.explicit(r1) - a0).max() <= 1e-12 * np.abs(a0).max()


@pytest.mark.parametrize("build, h", [(lambda: _cantilever(10, tip=5.0), 1e-3), (_frame, 2e-5)])
def test_hedop5_trajectory_equals_the_dense_inverse_route(build, h, monkeypatch):
    """10 HEDOP5 steps (under each model's stability limit) of a moving corotational consistent-mass model
    (the cantilever: Schur route; steel-frame-2storey: saddle-point LU route): the factorised route gives the
    trajectory of the dense M⁻¹ the solver stored before (``block_diagonal_inverse(M, n)``), to round-off
    (1e-10 of the motion; the two differ only in the order of floating-point operations)."""
    st = build()
    q0, v0 = _moving_state(st, np.random.default_rng(7))
    runs = []
    for dense in (False, True):
        if dense:
            dense_inverse = lambda M, block: block_diagonal_inverse(M, M.shape[0])
            monkeypatch.setattr(mechanics, "mass_inverse", dense_inverse)
        sol = integrate(st, "hedop5", MechanicalState(q0, v0), (0.0, 10 * h), controller=ConstantStep(h),
                        diagnostics=False)
        assert sol.status == "ok", sol.message
        runs.append((np.asarray(sol.q)[-1], np.asarray(sol.v)[-1]))
    (q, v), (qd, vd) = runs
    assert np.abs(q - q0).max() > 1e-7  # it moved
    assert np.abs(q - qd).max() <= 1e-10 * np.abs(q - q0).max()
    assert np.abs(v - vd).max() <= 1e-10 * np.abs(v).max()


@pytest.fixture(scope="module")
def long_cantilever():  # type: ignore[no-untyped-def]
    """(structure, M) of an 833-element consistent-mass cantilever: 5 004 unknowns (M built once: ~0.6 s)."""
    st = _cantilever(833)
    return st, st.mass(st.q_ref)


def test_no_dense_n_by_n_array_at_5000_unknowns(long_cantilever):
    """A 833-element consistent-mass cantilever (5 004 unknowns; n²·8 B = 200 MB): factorising M and a stage
    solve, a velocity projection and an explicit stage together peak below n²·8/16 = 12.5 MB (measured 8.1 MB:
    the COO copy and adjacency graph of M's ~10⁵ entries while ordering it; the band factor is 12 × n, the
    Schur columns 6 × n), and what the solver stores is the band factor only."""
    st, M = long_cantilever
    q = st.q_ref
    n = M.shape[0]
    B_i = st.constraint_jacobian(q)
    rng = np.random.default_rng(1)
    r1, r2 = rng.standard_normal(n), rng.standard_normal(B_i.shape[0])
    tracemalloc.start()
    lin = mechanics.stage_solver(st, q)
    vd, lam = lin.solve(r1, B_i, B_i, 0.5, r2)
    lin.project_velocity(B_i, r1)
    lin.explicit(r1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert n == 5004 and peak < n * n * 8 / 16
    F = lin.Minv
    assert isinstance(F, FactoredMass) and F._band is not None and F._band.shape == (12, n)
    assert np.abs(M @ vd + B_i.T @ lam - r1).max() <= 1e-13 * (abs(M) @ abs(vd) + abs(B_i.T) @ abs(lam)).max()


def test_many_constraints_take_the_sparse_saddle_point_lu_without_dense_n_by_m_columns(long_cantilever):
    """600 random sparse constraint rows (2 nearby nodes each) on the 5 004-unknown consistent mass:
    m > 3(k + 1), so the stage goes through the sparse LU of [[M, B_iᵀ], [B_next, 0]]: it satisfies the
    saddle-point equations to round-off (backward error) and allocates far less than the n × m dense block
    M⁻¹B_iᵀ of the Schur route (24 MB)."""
    M = long_cantilever[1]
    n, m = M.shape[0], 600
    rng = np.random.default_rng(2)
    rows = np.repeat(np.arange(m), 12)
    first = rng.integers(0, n // 6 - 4, size=m)
    nodes = np.stack([first, first + rng.integers(1, 4, size=m)], axis=1)  # neighbouring nodes, as joints tie
    cols = (6 * nodes[:, :, None] + np.arange(6)).reshape(m, 12).ravel()
    B_i = sp.csr_array((rng.standard_normal(rows.size), (rows, cols)), shape=(m, n))
    data_n = B_i.data * (1 + 1e-3 * rng.standard_normal(B_i.nnz))
    B_n = sp.csr_array((data_n, B_i.indices, B_i.indptr), shape=(m, n))
    lin = SaddlePointSolver(mass_inverse(M, 6), compiled=False)
    r1, r2 = rng.standard_normal(n), rng.standard_normal(m)
    tracemalloc.start()
    vd, lam = lin.solve(r1, B_i, B_n, 2.0, r2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < n * m * 8 / 4  # measured 5.1 MB of 24 MB
    # backward errors (residual / (|A| |x|)): round-off, whatever the conditioning of the random constraints
    assert np.abs(M @ vd + B_i.T @ lam - r1).max() <= 1e-13 * (abs(M) @ abs(vd) + abs(B_i.T) @ abs(lam)).max()
    assert np.abs(2.0 * (B_n @ vd) - r2).max() <= 1e-13 * (2.0 * abs(B_n) @ abs(vd)).max()


def test_a_wide_band_mass_is_factorised_by_superlu_and_a_singular_one_is_refused():
    """An SPD mass with no narrow band (random sparse couplings) takes SuperLU: M⁻¹X equals the dense solve to
    1e-12; a mass with a zero row is refused in one line naming the mass matrix."""
    rng = np.random.default_rng(3)
    n = 300
    A = sp.random_array((n, n), density=0.02, rng=rng)
    M = sp.csr_array(A @ A.T + 10.0 * sp.eye_array(n))
    F = FactoredMass(M)
    assert F._band is None  # bandwidth after RCM > 100
    X = rng.standard_normal((n, 3))
    assert np.abs(F @ X - np.linalg.solve(M.toarray(), X)).max() <= 1e-12 * np.abs(X).max()
    bad = sp.diags_array(np.r_[np.ones(n - 1), 0.0]) + sp.diags_array(np.full(n - 1, 0.1), offsets=1)
    with pytest.raises(ValueError, match="mass matrix is not positive definite"):
        FactoredMass(bad + bad.T)
