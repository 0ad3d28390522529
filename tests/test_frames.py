"""Structures of rods with joints (issue 13): joint rows, Z and spring K against central differences; L-frame and
portal frame against closed forms with fitted spatial order 2; reactions balance the loads; hinge and elastic
joints; section resultants from the multipliers against free-body cuts; every backend runs a frame; bad input."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.frames import Joint, Structure
from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, straight
from lgbeam.discretisations.rods.resultants import section_resultants
from lgbeam.discretisations.rods.statics import solve_static
from lgbeam.groups import S3R3

G = S3R3()
SOFT = Material.from_sectional(EA=1e4, GA=1e4, EI=1.0, GJ=1.0, rhoA=1.0, rhoJ=0.01)


def _rod(start, end, n, mat=SOFT, **kw):
    a, b = np.asarray(start, float), np.asarray(end, float)
    mesh = RodMesh.uniform(float(np.linalg.norm(b - a)), n)
    return CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh, start=a, direction=b - a), **kw)


def _perturb(q, w):
    return G.compose(q, G.exp(w.reshape(-1, 6)))


def _central(f, q, n, eps=1e-6):
    return np.stack([(f(_perturb(q, eps * e)) - f(_perturb(q, -eps * e))) / (2 * eps) for e in np.eye(n)], axis=1)


@pytest.mark.parametrize("joint", [
    Joint(("a", "end"), ("b", "start"), "rigid"),
    Joint(("a", "end"), ("b", "start"), "hinge", axis="y", frame="local", rotational_stiffness=[0.0, 2.0, 0.0]),
    Joint(("a", "end"), ("b", "start"), "ball"),
    Joint(("a", "end"), ("b", "start"), "elastic", rotational_stiffness=[1.0, 2.0, 3.0],
          frame=[[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
], ids=["rigid", "hinge", "ball", "elastic"])
def test_joint_rows_and_tangents_are_derivatives(joint, rng):
    """B = dΦ, Z = d(Bᵀλ), K = dg and g = dV along q ∘ exp(εw) on a random configuration (|w| ~ 0.3)."""
    s = Structure(rods={"a": _rod((0, 0, 0), (0, 0, 1), 3, supports=(Support("start", "clamped"),)),
                        "b": _rod((0, 0, 1), (1, 0, 1.3), 3, loads=(NodalLoad(node="end", force=[0, 1, 0]),))},
                  joints=(joint,))
    q = _perturb(s.q_ref, 0.3 * rng.standard_normal(s.n_dofs))
    n, v = s.n_dofs, np.zeros(s.n_dofs)
    lam = rng.standard_normal(s.n_constraints)
    # central differences with ε = 1e-6: truncation ~ε²|f'''| ≈ 1e-11, round-off ~1e-16/ε · |f| ≈ 1e-8 for K (|K| ~ 1e3)
    assert np.abs(s.constraint_jacobian(q).toarray() - _central(s.constraints, q, n)).max() < 1e-8
    Zfd = _central(lambda qq: s.constraint_jacobian(qq).T @ lam, q, n)
    assert np.abs(s.constraint_stiffness(0.0, q, lam).toarray() - Zfd).max() < 1e-8
    Kfd = _central(lambda qq: s.forces(0.0, qq, v), q, n)
    assert np.abs(s.stiffness(0.0, q, v).toarray() - Kfd).max() < 1e-6 * np.abs(Kfd).max()
    gfd = np.array([(s.potential_energy(_perturb(q, 1e-6 * e)) - s.potential_energy(_perturb(q, -1e-6 * e))) / 2e-6
                    for e in np.eye(n)])
    assert np.abs(s.forces(0.0, q, v) + s.external_forces(0.0, q) - gfd).max() < 1e-6 * np.abs(gfd).max()


def _lframe(n, P=1e-4):
    col = _rod((0, 0, 0), (0, 0, 1), n, supports=(Support("start", "clamped"),))
    beam = _rod((0, 0, 1), (1, 0, 1), n, loads=(NodalLoad(node="end", force=[0.0, P, 0.0]),))
    return Structure(rods={"column": col, "beam": beam}, joints=(Joint(("column", "end"), ("beam", "start")),))


def test_l_frame_tip_converges_at_order_two_to_linear_frame_theory():
    """Tip δ = 2PL³/3EI + PL³/GJ (L = EI = GJ = 1, P = 1e-4: geometric terms ~(PL²/EI)² = 1e-8 relative).
    The old polyline with a kink converged at order 1 (ux review §1c); separate rods and a rigid joint: 2."""
    P, ns = 1e-4, np.array([4, 8, 16, 32])
    exact = P * (2.0 / 3.0 + 1.0)
    errs = []
    for n in ns:
        path = solve_static(_lframe(int(n), P), load_steps=1)
        assert path.status == "ok"
        errs.append(abs(G.translation(path.final.q[-1])[1] - exact))
    p = observed_order(1.0 / ns, errs)
    assert abs(p - 2.0) < 0.05, p  # measured 2.00 (errors 1.04e-6 ... 1.6e-8)
    assert errs[-1] < 1e-4 * exact


def _portal(n, H=1e-3, EIc=1.0, EIb=1.0, h=4.0, b=6.0):
    mc = Material.from_sectional(EA=1e4, GA=1e4, EI=EIc, GJ=1.0, rhoA=1.0, rhoJ=0.01)
    mb = Material.from_sectional(EA=1e4, GA=1e4, EI=EIb, GJ=1.0, rhoA=1.0, rhoJ=0.01)
    kw = {"inextensible": True}
    rods = {"left": _rod((0, 0, 0), (0, 0, h), n, mc, supports=(Support("start", "clamped"),),
                         loads=(NodalLoad(node="end", force=[H, 0, 0]),), **kw),
            "beam": _rod((0, 0, h), (b, 0, h), n, mb, **kw),
            "right": _rod((b, 0, 0), (b, 0, h), n, mc, supports=(Support("start", "clamped"),), **kw)}
    joints = (Joint(("left", "end"), ("beam", "start")), Joint(("beam", "end"), ("right", "end")))
    return Structure(rods=rods, joints=joints)


def test_portal_frame_sway_matches_slope_deflection_and_reactions_balance():
    """Fixed-base portal, rigid corners, lateral H at the top: Δ = H h³ (2 + 3k) / (12 EI_c (1 + 6k)),
    k = (EI_b/b)/(EI_c/h) (slope-deflection, inextensible members; Δ → Hh³/24EI for k → ∞, Hh³/6EI for k → 0)."""
    H, h, b = 1e-3, 4.0, 6.0
    k = (1.0 / b) / (1.0 / h)
    exact = H * h**3 / 12.0 * (2 + 3 * k) / (1 + 6 * k)
    ns, errs = np.array([4, 8, 16]), []
    for n in ns:
        s = _portal(int(n), H)
        st = solve_static(s, load_steps=1).final
        sway = G.translation(st.q[s.node("beam", "start")])[0]
        errs.append(abs(sway - exact))
        _names, R = s.support_reactions(0.0, st.q, st.lam)
        x = G.translation(st.q)
        F = R[:, 3:].sum(0) + np.array([H, 0, 0])
        M = (np.cross(x[s.support_nodes()], R[:, 3:]) + R[:, :3]).sum(0) + np.cross(x[s.node("left", "end")], [H, 0, 0])
        # the sum of the nodal equilibrium residuals: Newton stops at |R| ≤ tol·F, F = max(|f|, EI/L) the residual
        # scale (``force_scale``; 0.25 here, 1e-12 ≈ the round-off floor of EA = 1e4); measured 6e-15, 4e-13·h
        Fs = s.force_scale(0.0)
        assert np.abs(F).max() < 1e-10 * Fs and np.abs(M).max() < 1e-10 * Fs * h
    assert abs(R[0, 3] + R[1, 3] + H) < 1e-12  # base shears carry H
    p = observed_order(1.0 / ns, errs)
    assert abs(p - 2.0) < 0.1, p  # measured 2.00
    assert errs[-1] < exact / 16**2  # N = 16 per member: measured 3.5e-3 relative (≈ 0.9/N², the rod's O(Δs²))


def test_hinge_transmits_no_moment_about_its_axis_and_elastic_joint_adds_its_compliance():
    """Two rods in line under a tip moment M about y: a rigid joint gives θ = 2ML/EI; an elastic joint of
    stiffness k about y adds M/k (constant moment: the rod is exact per edge); a hinge about y carries the
    tip force but no moment about y (propped by a roller at the tip)."""
    M, kr = 1e-4, 0.5
    out = {}
    for kind, extra in (("rigid", {}), ("elastic", {"rotational_stiffness": [kr, kr, kr]})):
        a = _rod((0, 0, 0), (1, 0, 0), 4, supports=(Support("start", "clamped"),))
        bb = _rod((1, 0, 0), (2, 0, 0), 4, loads=(NodalLoad(node="end", moment=[0, M, 0]),))
        s = Structure(rods={"a": a, "b": bb}, joints=(Joint(("a", "end"), ("b", "start"), kind, **extra),))
        st = solve_static(s, load_steps=1).final
        R = G.rotation(st.q[-1]) @ G.rotation(s.q_ref[-1]).T  # tip rotation relative to the reference
        out[kind] = np.arctan2(R[0, 2], R[0, 0])  # its angle about y
    assert abs(out["rigid"] - 2 * M) < 1e-10  # θ = M·2L/EI, exact for a constant moment
    assert abs(out["elastic"] - out["rigid"] - M / kr) < 1e-6 * M / kr
    a = _rod((0, 0, 0), (1, 0, 0), 4, supports=(Support("start", "clamped"),))
    bb = _rod((1, 0, 0), (2, 0, 0), 4, supports=(Support("end", kind="roller", axis="x"),),
              loads=(NodalLoad(node=2, force=[0, 0, -1e-4]),))
    s = Structure(rods={"a": a, "b": bb}, joints=(Joint(("a", "end"), ("b", "start"), "hinge", axis="y"),))
    st = solve_static(s, load_steps=1).final
    J = s.joint_reactions(st.q, st.lam)[0]
    assert abs(J[1]) < 1e-12 and abs(J[5]) > 1e-5  # no moment about the hinge axis, a shear force through it
    _, R = s.support_reactions(0.0, st.q, st.lam)
    assert abs(R[1, 5] - 0.5e-4) < 1e-9  # roller takes P/2 (the hinge makes beam b statically determinate)


def test_section_resultants_from_multipliers_equal_the_free_body_cut():
    """Kirchhoff+inextensible cantilever (the shear and axial force sit in λ): at every node, the spatial
    section wrench equals the resultant of the loads beyond the cut (exact at the discrete level, also for a
    large deflection); the linear regime's moment line is linear with M(0) = PL."""
    L, P = 2.0, 0.3
    rod = _rod((0, 0, 0), (L, 0, 0), 8, supports=(Support("start", "clamped"),),
               loads=(NodalLoad(node="end", force=[0, 0, -P]),), inextensible=True)
    st = solve_static(rod, load_steps=4).final
    r = section_resultants(rod, st.q, st.lam)
    x = G.translation(st.q)
    F = np.array([0.0, 0.0, -P])
    assert np.abs(r.node_spatial[:, 3:] - F).max() < 1e-10  # measured 1.4e-11
    assert np.abs(r.node_spatial[:, :3] - np.cross(x[-1] - x, F)).max() < 1e-10
    assert np.abs(r.node_material[:, 3:]).max() > 0.1 * P  # the "force is zero everywhere" report: not any more
    small = _rod((0, 0, 0), (L, 0, 0), 8, supports=(Support("start", "clamped"),),
                 loads=(NodalLoad(node="end", force=[0, 0, -1e-6]),), inextensible=True)
    st = solve_static(small, load_steps=1).final
    m = section_resultants(small, st.q, st.lam).node_spatial[:, 1]
    s = small.mesh.s
    assert abs(m[0] - 1e-6 * L) < 1e-6 * 1e-6 * L  # M(0) = PL to O(PL²/EI) = 1e-6 relative
    assert np.abs(m - 1e-6 * (L - s)).max() < 1e-5 * 1e-6 * L  # linear moment line


def test_every_backend_runs_a_frame():
    """half-explicit (HEDOP5), implicit (gen-alpha, when registered), statics and modes on one frame."""
    from lgbeam import ConstantStep, MechanicalState, integrate
    from lgbeam.discretisations.rods.modal import modes
    from lgbeam.integrators.registry import METHODS

    s = _portal(4, H=1e-3)
    y0 = MechanicalState(s.q_ref, np.zeros(s.n_dofs))
    sol = integrate(s, "hedop5", y0, (0.0, 0.02), controller=ConstantStep(2e-3))
    assert sol.status == "ok" and np.abs(s.constraints(sol.q[-1])).max() < 1e-10
    if "gen-alpha" in METHODS:
        sol = integrate(s, "gen-alpha", y0, (0.0, 0.02), controller=ConstantStep(5e-3))
        assert sol.status == "ok"
    md = modes(s, 2)
    assert md.omega[0] > 0 and np.all(np.isfinite(md.omega))
    # Rayleigh: ω₁² ≤ uᵀKu/uᵀMu for the in-plane sway shape u, ≤ k_sway/m_beam (k_sway = H/Δ, the beam's mass
    # alone moves Δ; the columns add mass); measured ω₁² = 0.0113 (an out-of-plane mode) against 0.039
    k_sway = 1.0 / (4.0**3 / 12.0 * (2 + 2) / (1 + 4))
    assert 0.0 < md.omega2[0] <= k_sway / 6.0


@pytest.mark.parametrize("args, message", [
    ({"joints": (Joint(("column", "end"), ("nope", "start")),)}, "no rod named 'nope'"),
    ({"joints": (Joint(("column", 99), ("beam", "start")),)}, "node 99 does not exist"),
    ({"joints": (Joint(("column", "end"), ("beam", "start")), Joint(("beam", 0), ("column", -1), "ball"))},
     "join the same pair of nodes"),
    ({"joints": (Joint(("column", "end"), ("beam", "end")),)}, "apart in the reference configuration"),
])
def test_bad_joints_are_refused_in_one_line(args, message):
    col = _rod((0, 0, 0), (0, 0, 1), 2)
    beam = _rod((0, 0, 1), (1, 0, 1), 2)
    with pytest.raises(ValueError, match=message):
        Structure(rods={"column": col, "beam": beam}, **args)


def test_a_free_rigid_motion_is_refused_by_a_static_analysis():
    col = _rod((0, 0, 0), (0, 0, 1), 2)
    beam = _rod((0, 0, 1), (1, 0, 1), 2, loads=(NodalLoad(node="end", force=[0, 1e-4, 0]),))
    s = Structure(rods={"column": col, "beam": beam}, joints=(Joint(("column", "end"), ("beam", "start")),))
    with pytest.raises(ValueError, match="fix every rigid motion"):
        solve_static(s)


def test_polyline_length_must_agree_with_the_points():
    from lgbeam.discretisations.rods import polyline

    with pytest.raises(ValueError, match="set model.length = 2"):
        polyline(G, RodMesh.uniform(1.0, 4), points=[[0, 0, 0], [0, 0, 1], [1, 0, 1]])


def test_batched_structure_tangents_equal_the_rods_own_and_the_derivative_of_g(rng):
    """The structure's K, K_int, ∂f/∂q, D and Z are assembled over all edges at once (``Structure._edge_batch``):
    equal to the block diagonal of the rods' own tangents (the same arithmetic: exactly, Z to round-off) for a damped
    rod beside an undamped one, a spring support, spatial loads and a moving state; K = ∂g/∂q and Z = ∂(Bᵀλ)/∂q
    by central differences."""
    import dataclasses

    from lgbeam.discretisations.rods import tangents

    damped = dataclasses.replace(SOFT, C_K_d=np.array([0.1, 0.2, 0.3]), C_Gamma_d=np.array([1.0, 2.0, 3.0]))
    s = Structure(rods={"a": _rod((0, 0, 0), (0, 0, 1), 3, mat=damped,
                                  supports=(Support("start", "pinned", rotational_stiffness=[2.0, 3.0, 4.0]),)),
                        "b": _rod((0, 0, 1), (1, 0, 1.3), 4, loads=(NodalLoad(node="end", force=[0, 1, 0]),)),
                        "c": _rod((1, 0, 1.3), (1, 1, 1.3), 2, inextensible=True,  # internal rows (3, 4, 5)
                                  supports=(Support("end", "free", stiffness=[1.0, 2.0, 3.0]),))},  # springs, no rows
                  joints=(Joint(("a", "end"), ("b", "start"), "elastic", rotational_stiffness=[1.0, 2.0, 3.0]),
                          Joint(("b", "end"), ("c", "start"), "rigid")))
    assert s._edge_batch[3] is not None and s.members[0].material.has_damping and s.support_springs(0.0, s.q_ref) is not None
    q = _perturb(s.q_ref, 0.3 * rng.standard_normal(s.n_dofs))
    v = rng.standard_normal(s.n_dofs)
    qs, vs = s.split_q(q), s.split_v(v)
    K_rods = s._with_joint_springs(s._block_diag([r.stiffness(0.0, qr, vr) for r, qr, vr in
                                                  zip(s.members, qs, vs, strict=True)]), q)
    assert np.array_equal(s.stiffness(0.0, q, v).toarray(), K_rods.toarray())
    K_int = s._with_joint_springs(s._block_diag([tangents.internal_stiffness(r, qr) for r, qr in
                                                 zip(s.members, qs, strict=True)]), q)
    assert np.array_equal(s.internal_stiffness(0.0, q).toarray(), K_int.toarray())
    L = s._block_diag([tangents.load_stiffness(r, 0.0, qr) for r, qr in zip(s.members, qs, strict=True)])
    assert np.array_equal(s.load_stiffness(0.0, q).toarray(), L.toarray()) and np.abs(L.toarray()).max() > 0
    D_rods = s._block_diag([r.damping(0.0, qr, vr) for r, qr, vr in zip(s.members, qs, vs, strict=True)])
    assert np.array_equal(s.damping(0.0, q, v).toarray(), D_rods.toarray())
    lam = rng.standard_normal(s.n_constraints)
    lam_r, lam_j = s.split_lam(lam)
    Z_rods = s._block_diag([r.constraint_stiffness(0.0, qr, lr) for r, qr, lr in zip(s.members, qs, lam_r, strict=True)])
    Z_rods = Z_rods + s.joint_rows.assemble(s.joint_rows.constraint_stiffness_blocks(s._q(q), lam_j))
    assert np.abs(s.constraint_stiffness(0.0, q, lam).toarray() - Z_rods.toarray()).max() < 1e-14 * abs(Z_rods).max()
    Kfd = _central(lambda qq: s.forces(0.0, qq, v), q, s.n_dofs)
    assert np.abs(s.stiffness(0.0, q, v).toarray() - Kfd).max() < 1e-6 * np.abs(Kfd).max()
    Zfd = _central(lambda qq: s.constraint_jacobian(qq).T @ lam, q, s.n_dofs)
    assert np.abs(s.constraint_stiffness(0.0, q, lam).toarray() - Zfd).max() < 1e-8


def test_batched_constraints_equal_the_rods_own_with_moving_supports(rng):
    """Φ and B of a structure are evaluated for all rods at once (internal rows from the stacked edges, the
    supports as one merged SupportRows): equal to the rods' own rows stacked with the joints', for Kirchhoff and
    inextensible rods, a clamped, a pinned and a prescribed (moving) support, at t = 0 and at t > 0; and
    B(t) = ∂Φ(t)/∂q."""
    motion = {"angular_velocity": [0.3, -0.4, 0.8], "velocity": [0.1, 0.2, -0.3], "ramp": 0.5}
    s = Structure(rods={"a": _rod((0, 0, 0), (0, 0, 1), 3, supports=(Support("start", "clamped"),)),
                        "b": _rod((0, 0, 1), (1, 0, 1.3), 4, inextensible=True,
                                  supports=(Support("end", "prescribed", motion, fix=("x", "z", "ry")),)),
                        "c": _rod((1, 0, 1.3), (1, 1, 1.3), 2, supports=(Support("end", "pinned"),))},
                  joints=(Joint(("a", "end"), ("b", "start"), "ball"), Joint(("b", "end"), ("c", "start"), "rigid")))
    q = _perturb(s.q_ref, 0.3 * rng.standard_normal(s.n_dofs))
    for t in (0.0, 0.7):
        phi = np.concatenate([r.constraints_t(t, qr) for r, qr in zip(s.members, s.split_q(q), strict=True)]
                             + [s.joint_rows.phi(s._q(q))])
        assert np.abs(s.constraints_t(t, q) - phi).max() < 1e-15
        B = s.constraint_jacobian_t(t, q).toarray()
        for k, (r, qr) in enumerate(zip(s.members, s.split_q(q), strict=True)):
            o, c = s.row_offsets[k], 6 * s.node_offsets[k]
            block = B[o:s.row_offsets[k + 1], c:c + 6 * r.n_nodes]
            assert np.abs(block - r.constraint_jacobian_t(t, qr).toarray()).max() < 1e-15
        assert np.abs(B - _central(lambda qq, t=t: s.constraints_t(t, qq), q, s.n_dofs)).max() < 1e-8
