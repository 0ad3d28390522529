"""The statics core (issue 34 item 3; lgbeam/discretisations/rods/statics_core.py, docs/statics.md "Statics
core"): the KKT matrix assembled straight into band storage in a fixed bandwidth-reducing order, its banded LU
reused, and the stability count from the LDLᵀ pivots of the same band. Truths: a dense solve of the same KKT
matrix built by scipy.sparse, and the dense eigenvalues of Zᵀ S Z (Z an orthonormal basis of ker B, S the
symmetric part of the tangent) at every state of paths through limit points and bifurcations."""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from lgbeam.apps import frame as frame_app
from lgbeam.discretisations.frames import Joint, Structure
from lgbeam.discretisations.rods import (
    CosseratRod,
    Material,
    NodalLoad,
    RodMesh,
    Support,
    stability,
    straight,
)
from lgbeam.discretisations.rods.statics import _Equations, solve_static
from lgbeam.groups.s3r3 import S3R3
from lgbeam.io.schema import validate

G = S3R3()
MAT = Material(C_K=[1.0, 2.0, 1.0], C_Gamma=[1e4] * 3, rhoA=1.0, rhoJ=[1e-3] * 3)  # EI = 1 and 2: P_E = π², 2π²


def _toggle(n: int) -> Structure:
    """Two bars with a rigid apex (span 4 m, rise 0.2 m, hinged about y at the supports) under a vertical apex
    load of 1.5 × the pinned truss's limit load: a snap-through frame with two limit points (joint rows: RCM)."""
    sec = {"A": 1e-2, "Iy": 2e-5, "Iz": 1e-4, "It": 2e-4}
    mat = {"E": 2e11, "G": 8e10, "rho": 7850.0}
    raw = {"kind": "frame", "name": "toggle", "time": {"t_end": 1.0},
           "analysis": {"kind": "static", "method": "arc-length", "richardson": False},
           "model": {"n_elements": n, "nodes": [{"name": "A", "at": [-2.0, 0, 0]}, {"name": "B", "at": [2.0, 0, 0]},
                                                {"name": "C", "at": [0, 0, 0.2]}],
                     "members": [{"name": "L", "nodes": ["A", "C"], "section": sec, "material": mat},
                                 {"name": "R", "nodes": ["B", "C"], "section": sec, "material": mat}]},
           "supports": [{"node": nd, "kind": "hinge", "axis": "y"} for nd in ("A", "B")],
           "loads": {"nodal": [{"node": "C", "force": [0.0, 0.0, -1.14e6]}]}, "output": {"vtk": False}}
    return frame_app.build(validate(raw, frame_app.SCHEMA))


def _split_column(n: int) -> Structure:
    """A pinned–roller column L = EI = 1 made of two rods joined rigidly at mid-height, end load π² along −x."""
    mesh = RodMesh.uniform(0.5, n)
    low = CosseratRod(mesh=mesh, material=MAT, q_ref=straight(G, mesh), inextensible=True,
                      supports=(Support("start", fix=("x", "y", "z", "rx")),))
    up_q = straight(G, mesh)
    up_q[:, 4] += 0.5  # translation part (after the quaternion): starts where the lower rod ends
    up = CosseratRod(mesh=mesh, material=MAT, q_ref=up_q, inextensible=True,
                     supports=(Support("end", "roller", axis="x"),), loads=(NodalLoad(node="end", force=[-np.pi**2, 0, 0]),))
    return Structure(rods={"low": low, "up": up}, joints=(Joint(("low", "end"), ("up", "start")),))


def _dense_count(eq: _Equations, s) -> int:
    K, B = eq.tangent(s.q, s.lam, s.load_factor)
    Z = la.null_space(B.toarray())
    ev = np.linalg.eigvalsh(Z.T @ (0.5 * (K + K.T)).toarray() @ Z)
    return int(np.sum(ev < -100 * np.finfo(float).eps * np.abs(ev).max()))  # negative beyond eigvalsh's round-off


def test_inertia_count_equals_the_eigen_count_through_two_limit_points():
    """Every state of the snap-through path (arc length, up over the first limit point, down the unstable branch,
    past the second): the count from the band's LDLᵀ pivots equals the dense eigen count, also at the converged
    states located at the limit points (there the critical eigenvalue is 1e-11 of the largest); both found."""
    frame = _toggle(3)
    path = solve_static(frame, method="arc-length", arc_length=0.1, max_steps=100)
    assert path.status == "ok", path.message
    assert [e.kind for e in path.events] == ["limit point", "limit point"]
    eq = _Equations(frame, 0.0)
    counts = [s.n_negative for s in path.states]
    assert counts == [_dense_count(eq, s) for s in path.states]
    assert max(counts) == 1 and counts[-1] == 0


def test_inertia_count_equals_the_eigen_count_through_bifurcations_of_a_jointed_column():
    """Load control past the weak-axis (π²) and strong-axis (2π²) Euler loads of a column of two jointed rods
    (branch switching off): 0, 1, 2 negative eigenvalues, each state's count the dense one."""
    col = _split_column(4)
    path = solve_static(col, load_steps=6, load_factor=2.4, branch_switch=False)
    eq = _Equations(col, 0.0)
    counts = [s.n_negative for s in path.states]
    assert counts == [_dense_count(eq, s) for s in path.states]
    assert counts[-1] == 2 and 1 in counts
    assert [e.kind for e in path.events][:2] == ["bifurcation", "bifurcation"]


def test_banded_solve_equals_the_dense_solve_of_the_sparse_kkt_matrix():
    """At a loaded state off equilibrium (a non-symmetric tangent), the band's LU solve equals numpy's dense solve
    of [[K_t, Bᵀ], [B, 0]] built by scipy.sparse; the factorisation is reused for the same (q, λ, μ)."""
    frame = _toggle(4)
    eq = _Equations(frame, 0.0)
    rng = np.random.default_rng(3)
    q = eq.perturb(frame.q_ref, 1e-3 * rng.standard_normal(eq.n))
    lam = 1e3 * rng.standard_normal(eq.m)
    K, B = eq.tangent(q, lam, 0.4)
    A = sp.block_array([[K, B.T], [B, None]]).toarray()
    rhs = rng.standard_normal((eq.n + eq.m, 2))
    f = eq.system(q, lam, 0.4)
    assert f is not None and eq.system(q.copy(), lam.copy(), 0.4) is f
    x = f.solve(rhs)
    ref = np.linalg.solve(A, rhs)
    assert np.linalg.norm(x - ref) <= 1e-9 * np.linalg.norm(ref)


def test_the_nonsymmetric_count_is_the_same_densely_and_by_arpack(monkeypatch):
    """A non-symmetric K on ker B (M = I, 60 unknowns, 10 constraints) built with eigenvalues known by
    construction: K = Z (V diag(μ) V⁻¹) Zᵀ + Bᵀ B with μ = (−3, −2, −1, 1 … 47) and a non-normal V; Re μ < 0
    for exactly three. The dense route (at most DENSE_EIGS unknowns: the corotational element's one-element
    beam, where ARPACK cannot build its factorisation) and ARPACK's shift-invert route both count three."""
    rng = np.random.default_rng(7)
    n, m = 60, 10
    B = rng.standard_normal((m, n))
    Z = stability.null_basis(B, n)
    mu = np.concatenate([[-3.0, -2.0, -1.0], np.arange(1.0, n - m - 2.0)])
    V = np.eye(n - m) + 0.2 * np.triu(rng.standard_normal((n - m, n - m)), 1)
    K = Z @ (V @ np.diag(mu) @ np.linalg.inv(V)) @ Z.T + B.T @ B
    assert not stability.is_symmetric(sp.csr_array(K))
    dense = stability.nonsymmetric_count(K, sp.eye_array(n), B)
    monkeypatch.setattr(stability, "DENSE_EIGS", 0)
    assert dense == stability.nonsymmetric_count(K, sp.eye_array(n), B) == (3, 0)
