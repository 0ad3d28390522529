"""Modes and linear buckling of the actual rod (lgbeam.discretisations.rods.modal).

Truths: P_E = π²EI/L² and its O(N⁻²) convergence; ω² = ω₀²(1 − P/P_cr) for the pre-stressed pinned–pinned
column (Bažant & Cedolin 1991 §2.1; for this discretisation the modes of K₀, K_G and M coincide, so the
relation holds to round-off); the scikit-fem Euler–Bernoulli beam (a second discretisation) for the straight
seed rod; dense null-space eigenvalues (a second algorithm); central-difference tangents (a second tangent);
Love's spring compliance F R² L (cos²α/GJ + sin²α/EI) for the helix (Wahl 1963 eq. (4.10)).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.fem.euler_bernoulli import EulerBernoulliBeam
from lgbeam.discretisations.rods import (
    CosseratRod,
    Material,
    NodalLoad,
    RodMesh,
    Support,
    helix,
    modal,
    stability,
    straight,
    tangents,
)
from lgbeam.discretisations.rods.statics import solve_static
from lgbeam.groups.s3r3 import S3R3

G = S3R3()


def column(n: int, rhoJ: float = 1e-3) -> CosseratRod:
    mesh = RodMesh.uniform(1.0, n)
    mat = Material(C_K=[1.0, 2.0, 1.0], C_Gamma=[1e4] * 3, rhoA=1.0, rhoJ=[rhoJ] * 3)
    return CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh), inextensible=True,
                       supports=(Support("start", fix=("x", "y", "z", "rx")), Support("end", "roller", axis="x")),
                       loads=(NodalLoad(node="end", force=[-np.pi**2, 0.0, 0.0]),))


def test_buckling_load_factor_converges_to_euler_with_order_2():
    ns = np.array([16, 32, 64])
    mu = np.array([modal.buckling(column(n), 2).load_factors[0] for n in ns])
    err = mu - 1.0  # load pattern P = π²EI/L², so μ_cr = P_cr/P_E
    assert observed_order(ns, err) == pytest.approx(-2.0, abs=0.02)
    # the discretisation's own error: μ_N − 1 = π²/(12 N²) + O(N⁻⁴) (constant-strain edges, midpoint frames);
    # at N = 64 that is 2.0e-4, so issue 11's "within 1e-4 at N = 64" needs N ≥ 91 or one Richardson step:
    assert err[-1] == pytest.approx(np.pi**2 / (12 * 64**2), rel=1e-3)
    assert abs((4 * mu[2] - mu[1]) / 3 - 1.0) < 1e-6  # Richardson extrapolation of N = 32, 64
    second = modal.buckling(column(64), 2).load_factors[1]
    assert second == pytest.approx(2.0, rel=1e-3)  # the stiff plane: EI₂ = 2


def test_prestressed_first_frequency_falls_linearly_with_compression():
    rod = column(32, rhoJ=1e-6)
    mu_cr = modal.buckling(rod, 1).load_factors[0]
    w0 = modal.modes(rod, 2).omega2[0]
    assert np.sqrt(w0) == pytest.approx(np.pi**2, rel=1e-3)  # π² √(EI/ρA L⁴), O(N⁻²) + rotary inertia
    for a in (0.25, 0.5, 0.9):
        path = solve_static(rod, load_steps=2, load_factor=a * mu_cr)
        st = path.final
        w = modal.modes(rod, 2, q=st.q, lam=st.lam, load_factor=st.load_factor).omega2[0]
        assert w / w0 == pytest.approx(1.0 - a, abs=1e-8)


def _roll_up(n: int, rhoJ_scale: float = 1.0) -> CosseratRod:
    mesh = RodMesh.uniform(10.0, n)  # seed 004 roll-up data (beam-reference-data.md §4), clamped–free
    mat = Material(C_K=[500.0] * 3, C_Gamma=[1e4] * 3, rhoA=1.0, rhoJ=[10.0 * rhoJ_scale] * 3)
    return CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh), supports=(Support("start", "clamped"),))


def test_seed_rod_modes_agree_with_scikit_fem_euler_bernoulli():
    rod = _roll_up(64, rhoJ_scale=1e-6)  # isolate the Euler–Bernoulli limit (no rotary inertia)
    res = modal.modes(rod, 8)
    U = np.abs(res.shapes[..., 3:]).max(axis=1)
    bending = res.omega[np.argmax(U, axis=1) == 0][:3]  # deflection along d1
    beam = EulerBernoulliBeam(length=10.0, EI=500.0, rhoA=1.0, n_elements=64, left="clamped", right="free")
    ref = beam.modes(3).omega
    assert np.allclose(bending, ref, rtol=2e-3)  # shear (GA = 1e4) and O(N⁻²): 1e-3 at N = 64


def test_modes_with_full_rotary_inertia_match_dense_null_space_eigenvalues():
    rod = _roll_up(8)
    res = modal.modes(rod, 6)
    K = modal.tangent(rod, rod.q_ref, None, 0.0).toarray()
    M = rod.mass(rod.q_ref).toarray()
    Z = la.null_space(rod.constraint_jacobian(rod.q_ref).toarray())
    ref = la.eigh(Z.T @ K @ Z, Z.T @ M @ Z, eigvals_only=True)[:6]
    assert np.allclose(res.omega2, ref, rtol=1e-9)


def _spring(n: int) -> tuple[CosseratRod, float, float, float]:
    r, pitch, turns, d = 0.01, 0.006, 2, 0.002
    b = pitch / (2 * np.pi)
    length = turns * 2 * np.pi * np.hypot(r, b)
    mat = Material.from_section(E=210e9, G=81e9, rho=7850.0, section="circle", radius=d / 2)
    mesh = RodMesh.uniform(length, n)
    q = helix(G, mesh, radius=r, pitch=pitch, direction=(r, 0.0, b), roll=np.pi / 2)
    rod = CosseratRod(mesh=mesh, material=mat, q_ref=q, supports=(Support("start", "clamped"),))
    return rod, r, np.arctan2(b, r), length


def coloured_jacobian(rod: CosseratRod, q: np.ndarray, g, eps: float = 1e-6) -> sp.csr_array:
    """∂g/∂w by central differences along q ∘ exp(±εw), perturbing every third node at once (the independent
    reference that the exact tangent replaced in the static solver): 36 evaluations of g for any N."""
    n = rod.n_nodes
    rows, cols, vals = [], [], []
    node = np.arange(n)
    for c in range(3):
        group = node[node % 3 == c]
        for j in range(6):
            eta = np.zeros((n, 6))
            eta[group, j] = eps
            d = (g(G.compose(q, G.exp(eta))) - g(G.compose(q, G.exp(-eta)))) / (2.0 * eps)
            for off in (-1, 0, 1):
                src = group + off
                ok = (src >= 0) & (src < n)
                rows.append(((6 * src[ok])[:, None] + np.arange(6)).ravel())
                cols.append(np.repeat(6 * group[ok] + j, 6))
                vals.append(d[src[ok]].ravel())
    return sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(6 * n, 6 * n)).tocsr()


def test_helix_modes_by_exact_tangent_equal_those_by_central_differences():
    rod, *_ = _spring(40)
    res = modal.modes(rod, 5)
    zero = np.zeros(6 * rod.n_nodes)
    Kfd = coloured_jacobian(rod, rod.q_ref, lambda qq: rod.forces(0.0, qq, zero).reshape(rod.n_nodes, 6))
    Kfd = sp.csr_array(0.5 * (Kfd + Kfd.T))
    ref = stability.constrained_eigs(Kfd, rod.mass(rod.q_ref), rod.constraint_jacobian(rod.q_ref), 5)
    assert np.allclose(res.omega2, ref.values, rtol=1e-6)  # FD tangent: ~1e-8 relative


def test_helix_axial_compliance_from_the_exact_tangent_matches_love():
    rod, r, alpha, length = _spring(80)
    K = tangents.internal_stiffness(rod, rod.q_ref)
    B = rod.constraint_jacobian(rod.q_ref)
    m = B.shape[0]
    tip = rod.G.translation(rod.q_ref[-1])
    axis_point = np.array([0.0, r, tip[2]])  # the helix axis is e_z through (0, r, ·)
    f = np.zeros((rod.n_nodes, 6))
    F = np.array([0.0, 0.0, 1.0])
    R = rod.G.rotation(rod.q_ref[-1])
    f[-1, 3:] = R.T @ F
    f[-1, :3] = R.T @ np.cross(axis_point - tip, F)  # the axial force acts on the axis, through a rigid end plate
    A = sp.block_array([[K, B.T], [B, None]], format="csc")
    x = sp.linalg.spsolve(A, np.concatenate([f.ravel(), np.zeros(m)]))
    dz = (R @ x[6 * (rod.n_nodes - 1) + 3: 6 * rod.n_nodes])[2]
    mat = rod.material
    love = r**2 * length * (np.cos(alpha) ** 2 / mat.C_K[2] + np.sin(alpha) ** 2 / mat.C_K[0])
    assert dz == pytest.approx(love, rel=2e-3)  # Love neglects shear and axial strain of the wire: ~1e-3


def test_free_rod_modes_name_the_free_rigid_motions():
    mesh = RodMesh.uniform(1.0, 4)
    rod = CosseratRod(mesh=mesh, material=Material(C_K=[1.0] * 3, C_Gamma=[1e3] * 3, rhoA=1.0, rhoJ=[1e-2] * 3),
                      q_ref=straight(G, mesh), supports=(Support("start", "pinned"),))
    with pytest.raises(ValueError, match="needs supports that fix every rigid motion") as err:
        modal.modes(rod, 2)
    for name in ("rotation about x through (0.5, 0, 0)", "rotation about y through (0, 0, 0)",
                 "rotation about z through (0, 0, 0)"):
        assert name in str(err.value)  # the three rotations about the pin


def test_bad_mode_counts_and_unloaded_buckling_are_refused():
    rod = _roll_up(4)
    with pytest.raises(ValueError, match="number of modes"):
        modal.modes(rod, 0)
    with pytest.raises(ValueError, match="needs loads"):
        modal.buckling(rod, 1)


def test_small_problems_take_the_dense_route_and_agree_with_arpack(monkeypatch):
    """At most stability.DENSE_EIGS unknowns (a two-rod frame of 4 elements each: 60) the modes and buckling
    factors are computed densely; forcing ARPACK on the same problem gives the same values (1e-9) and modes
    (|cos| ≥ 1 − 1e-8). All but one of the free modes of a 2-element frame can be asked for (ARPACK could not
    factor such a request)."""
    from lgbeam.apps import frame as frame_app
    from lgbeam.apps import load_case
    from lgbeam.discretisations.rods import stability

    loads = ('loads.nodal=[{rod="left",node="end",force=[0.0,0.0,-1e6]},'
             '{rod="right",node="end",force=[0.0,0.0,-1e6]}]')
    case = load_case("portal-frame", ["model.n_elements=3", loads])[0]
    st = frame_app.build(case)
    assert 6 * st.n_nodes <= stability.DENSE_EIGS
    dense = modal.modes(st, 3), modal.buckling(st, 2)
    monkeypatch.setattr(stability, "DENSE_EIGS", 0)
    sparse = modal.modes(st, 3), modal.buckling(st, 2)
    np.testing.assert_allclose(dense[0].omega2, sparse[0].omega2, rtol=1e-9)
    np.testing.assert_allclose(dense[1].load_factors, sparse[1].load_factors, rtol=1e-9)
    for a, b in ((dense[0].shapes, sparse[0].shapes), (dense[1].shapes, sparse[1].shapes)):
        a, b = a.reshape(len(a), -1), b.reshape(len(b), -1)
        cos = np.abs(np.einsum("ij,ij->i", a, b)) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
        assert np.all(cos >= 1 - 1e-8)
    monkeypatch.undo()
    st2 = frame_app.build(load_case("portal-frame", ["model.n_elements=2"])[0])
    k = st2.n_dofs - st2.n_constraints - 2  # the most modes asked for (all but one of the free ones)
    w2 = modal.modes(st2, k).omega2
    assert len(w2) == k and np.all(np.diff(w2) >= 0) and w2[0] > 0
