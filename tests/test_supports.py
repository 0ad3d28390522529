"""Supports anywhere (issue 11 item 4): rows of Φ and B per degree of freedom in a frame, springs, per-component
prescribed motion, their exact tangents, and the support reactions.

Truths: central differences along q ∘ exp(±εw) and in t (B, Φ_t, Z = ∂(Bᵀλ)/∂q, spring g = ∂V, spring K);
Euler–Bernoulli closed forms (pinned–roller beam PL³/48EI, propped cantilever reactions 11P/16, 5P/16, 3PL/16,
cantilever on an elastic support P/k + PL³/3EI, settlement reaction 3EIδ/L³); global equilibrium of the
reactions with the applied loads (static) and the momentum balance dP/dt = ΣF (dynamic).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.testing import assert_allclose

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, helix, straight
from lgbeam.groups.s3r3 import S3R3

G = S3R3()
EPS = 1e-6  # central differences: O(ε²)·|Φ'''| ~ 1e-12 truncation, round-off ~ 1e-16/ε ~ 1e-10
FRAME = [[1.0, 2.0, 0.5], [0.0, 1.0, -1.0]]  # two vectors: orthonormalised by Support
MOTION = {"angular_velocity": [0.3, -0.4, 0.8], "velocity": [0.1, 0.2, -0.3], "displacement": [0.02, -0.01, 0.03],
          "rotation": [0.1, 0.05, -0.2], "ramp": 0.5}

# every kind, each frame form, and per-component prescribed motion, on a curved rod (5 edges, 6 nodes)
KINDS = [
    (Support("start", "clamped"), Support(3, "hinge", axis="y", frame="local")),
    (Support(0, "pinned", frame=FRAME), Support(-1, "roller", axis="x", frame="local")),
    (Support(s=0.0, kind="guided", axis="z", frame="local"), Support(4, fix=("rz", "y"), frame=FRAME)),
    (Support(2, "clamp", frame="local"), Support("end", fix=("x", "rx"))),
    (Support("start", "prescribed", MOTION), Support(-1, "prescribed", MOTION, fix=("y", "rx", "rz"), frame="local")),
    (Support(1, "prescribed", MOTION, fix=("x", "z"), frame=FRAME, rotational_stiffness=[3.0, 1.0, 2.0]),),
]


def _material() -> Material:
    return Material(C_K=[5.0, 4.0, 3.0], C_Gamma=[1e2, 2e2, 3e2], rhoA=1.0, rhoJ=[0.1, 0.08, 0.18])


def _curved(supports, inextensible=False, loads=()) -> CosseratRod:
    mesh = RodMesh(np.cumsum(np.r_[0.0, np.linspace(1.0, 2.0, 5)]))  # non-uniform edges
    q_ref = helix(G, mesh, radius=2.0, pitch=3.0, direction=(0.3, 0.2, 1.0))
    return CosseratRod(mesh=mesh, material=_material(), q_ref=q_ref, supports=supports, loads=loads,
                       inextensible=inextensible)


def _moved(q, w):
    return G.compose(q, G.exp(w.reshape(q.shape[0], 6)))


def _random_config(rod, rng, size=0.3):
    return _moved(rod.q_ref, size * rng.standard_normal(6 * rod.n_nodes))


def static_equilibrium(rod, t=0.0):
    """(q, λ) with g + Bᵀλ = 0, Φ = 0 by a plain Lie group Newton on the rod's HasTangents linearisation
    [[K + Z, Bᵀ], [B, 0]] (a solver independent of rods.statics), iterated until the update is at round-off."""
    n, z = 6 * rod.n_nodes, np.zeros(6 * rod.n_nodes)
    q, lam = rod.q_ref.copy(), np.zeros(rod.n_constraints)
    for _ in range(30):
        B = rod.constraint_jacobian_t(t, q)
        r, phi = rod.forces(t, q, z) + B.T @ lam, rod.constraints_t(t, q)
        K = rod.stiffness(t, q, z) + rod.constraint_stiffness(t, q, lam)
        d = spla.spsolve(sp.block_array([[K, B.T], [B, None]], format="csc"), -np.r_[r, phi])
        q, lam = _moved(q, d[:n]), lam + d[n:]
        if np.abs(d[:n]).max() < 1e-14:  # quadratic convergence reached round-off (rad, length units ~ 1)
            return q, lam
    raise AssertionError(f"Newton did not converge: |r| = {np.abs(r).max():.3g}, |δq| = {np.abs(d[:n]).max():.3g}")


@pytest.mark.parametrize("supports", KINDS)
@pytest.mark.parametrize("t", [0.2, 0.9])  # inside and after the ramp of the prescribed ones
def test_B_and_rate_are_derivatives_of_phi(supports, t, rng):
    rod = _curved(supports)
    q = _random_config(rod, rng)
    B = rod.constraint_jacobian_t(t, q)
    assert B.shape == (rod.n_constraints, 6 * rod.n_nodes)
    for _ in range(3):
        w = rng.standard_normal(6 * rod.n_nodes)
        fd = (rod.constraints_t(t, _moved(q, EPS * w)) - rod.constraints_t(t, _moved(q, -EPS * w))) / (2 * EPS)
        assert_allclose(B @ w, fd, atol=1e-8)  # O(ε²) truncation + round-off/ε, |w| ~ 6
    fd_t = (rod.constraints_t(t + EPS, q) - rod.constraints_t(t - EPS, q)) / (2 * EPS)
    assert_allclose(rod.constraint_rate(t, q), fd_t, atol=1e-8)  # same central-difference error


@pytest.mark.parametrize("supports", KINDS)
def test_constraint_stiffness_blocks_match_central_differences(supports, rng):
    rod = _curved(supports)
    t = 0.3
    q = _random_config(rod, rng)
    lam = np.zeros(rod.n_constraints)
    lam[rod.n_internal:] = rng.standard_normal(rod.support_rows.n_rows)
    Z = rod.support_constraint_stiffness(t, q, lam)
    for _ in range(3):
        w = rng.standard_normal(6 * rod.n_nodes)
        fd = (rod.constraint_jacobian_t(t, _moved(q, EPS * w)).T @ lam
              - rod.constraint_jacobian_t(t, _moved(q, -EPS * w)).T @ lam) / (2 * EPS)
        assert_allclose(Z @ w, fd, atol=1e-8)  # O(ε²) truncation + round-off/ε


def test_spring_forces_are_the_gradient_and_stiffness_the_hessian(rng):
    sup = (Support("start", "pinned", stiffness=None, rotational_stiffness=[30.0, 10.0, 20.0], frame="local"),
           Support(3, stiffness=[5.0, 0.0, 7.0], rotational_stiffness=2.0, frame=FRAME),
           Support("end", "prescribed", MOTION, fix=("x",), stiffness=[0.0, 4.0, 9.0], rotational_stiffness=1.5))
    rod = _curved(sup)
    free = _curved(())
    t = 0.35
    q = _random_config(rod, rng, size=0.5)
    z = np.zeros(6 * rod.n_nodes)
    g_s = rod.forces(t, q, z) - free.forces(t, q, z)
    V = lambda qq: rod.potential_energy(qq, t) - free.potential_energy(qq)
    K = rod.support_stiffness(t, q)
    for _ in range(3):
        w = rng.standard_normal(6 * rod.n_nodes)
        fd_V = (V(_moved(q, EPS * w)) - V(_moved(q, -EPS * w))) / (2 * EPS)
        assert_allclose(g_s @ w, fd_V, rtol=1e-7, atol=1e-8)  # central difference of the energy
        gs = lambda qq: rod.forces(t, qq, z) - free.forces(t, qq, z)
        fd_g = (gs(_moved(q, EPS * w)) - gs(_moved(q, -EPS * w))) / (2 * EPS)
        assert_allclose(K @ w, fd_g, atol=1e-7)  # O(ε²)·|g'''|, stiffnesses ≤ 30
    assert np.abs(g_s).max() > 1.0  # the springs are loaded at this configuration


# ---------------------------------------------------------------- beams against Euler–Bernoulli
EI, L, P = 1.0, 1.0, 1e-4  # P L²/EI = 1e-4: geometric non-linearity ~1e-8 relative


def _beam(n, supports, loads, **kw) -> CosseratRod:
    mesh = RodMesh.uniform(L, n)
    mat = Material.from_sectional(EA=1e6, GA=1e6, EI=EI, GJ=1.0, rhoA=1.0, rhoJ=0.01)
    return CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh, direction=(1.0, 0.0, 0.0)),
                       supports=supports, loads=loads, **kw)


PIN = Support(s=0.0, fix=("x", "y", "z", "rz"), frame="local", name="pin")  # fork: torsion held, bending free
ROLLER = Support(s=L, kind="roller", axis="z", frame="local", name="roller")  # slides along the rod axis d3


def test_pinned_roller_midspan_load_matches_euler_bernoulli():
    errs, ns = [], (8, 16, 32)
    for n in ns:
        rod = _beam(n, (PIN, ROLLER), (NodalLoad(node=n // 2, force=[0.0, 0.0, -P]),))
        q, lam = static_equilibrium(rod)
        errs.append(abs(-G.translation(q)[n // 2, 2] / (P * L**3 / (48 * EI)) - 1.0))
        R = rod.support_reactions(0.0, q, lam)
        assert_allclose(R[:, 5], [P / 2, P / 2], rtol=1e-9)  # statically determinate: exact
        assert_allclose(R[:, [0, 1, 2, 3, 4]], 0.0, atol=1e-14)  # no moments, no axial or lateral force
    slope = observed_order(1.0 / np.array(ns), errs)
    assert abs(slope - 2.0) < 0.05, slope  # measured 2.00 in h = 1/N: error = δ/N² (piecewise-constant curvature)
    assert errs[-1] < 1.1e-3  # 1/32² = 9.8e-4


def test_propped_cantilever_reactions_match_closed_form():
    n = 32
    clamp = Support("start", "clamped", name="clamp")
    roller = Support("end", kind="roller", axis="x", name="roller")  # global frame: slides along e_x
    rod = _beam(n, (clamp, roller), (NodalLoad(node=n // 2, force=[0.0, 0.0, -P]),))
    q, lam = static_equilibrium(rod)
    R = rod.support_reactions(0.0, q, lam)
    # Timoshenko & Gere: R_B = 5P/16, R_A = 11P/16, M_A = 3PL/16 (hogging: moment about +y pulls the tip up)
    assert_allclose(R[1, 5], 5 * P / 16, rtol=2e-3)  # O(1/N²) discretisation, measured 1e-4 at N = 32
    assert_allclose(R[0, 5], 11 * P / 16, rtol=2e-3)
    assert_allclose(R[0, 1], -3 * P * L / 16, rtol=2e-3)
    assert_allclose(R[0, 5] + R[1, 5], P, rtol=1e-10)  # equilibrium holds exactly


def test_support_settlement_gives_3EI_delta_over_L3():
    """Propped cantilever whose roller settles by δ (prescribed displacement, no ramp: present in the static
    analysis): R = 3EIδ/L³."""
    delta, n = 1e-4, 32
    clamp = Support("start", "clamped")
    settle = Support("end", "prescribed", {"displacement": [0.0, 0.0, -delta]}, fix=("y", "z"))
    rod = _beam(n, (clamp, settle), ())
    q, lam = static_equilibrium(rod)
    assert_allclose(G.translation(q)[-1, 2], -delta, rtol=1e-9)
    R = rod.support_reactions(0.0, q, lam)
    assert_allclose(R[1, 5], -3 * EI * delta / L**3, rtol=2e-3)  # pulls the end down; O(1/N²) discretisation


@pytest.mark.parametrize("spring", ["translational", "rotational"])
def test_cantilever_on_an_elastic_support(spring):
    """Clamp replaced by a spring on one DOF: tip deflection = P/k + PL³/3EI (translational) or
    PL²/k_r + PL³/3EI (rotational), springs in series with the beam."""
    n, k = 32, 0.5
    if spring == "translational":
        sup = Support("start", fix=("rx", "ry", "rz", "x", "y"), stiffness=[0.0, 0.0, k])
        extra = P / k
    else:
        sup = Support("start", fix=("rx", "rz", "x", "y", "z"), rotational_stiffness=[0.0, k, 0.0])
        extra = P * L**2 / k
    rod = _beam(n, (sup,), (NodalLoad(node="end", force=[0.0, 0.0, -P]),))
    q, lam = static_equilibrium(rod)
    beam = P * L**3 / (3 * EI) * (1 - 1 / (4 * n**2))  # the rod's exact discrete cantilever (test_rod_statics)
    assert_allclose(-G.translation(q)[-1, 2], extra + beam, rtol=1e-6)  # geometric non-linearity ~ (PL²/k_r)²
    R = rod.support_reactions(0.0, q, lam)
    assert_allclose(R[0, 5], P, rtol=1e-9)  # the spring carries the load


# ---------------------------------------------------------------- reactions: equilibrium and momentum balance
def _resultant(points, forces, moments):
    """(ΣF, Σ x × F + M) about the origin."""
    return np.sum(forces, axis=0), np.sum(np.cross(points, forces) + moments, axis=0)


def test_static_reactions_balance_the_applied_loads(rng):
    F1, M1, F2 = rng.standard_normal(3) * 0.3, rng.standard_normal(3) * 0.2, rng.standard_normal(3) * 0.3
    loads = (NodalLoad(node=2, force=F1, moment=M1), NodalLoad(node="end", force=F2, frame="body"))
    sup = (Support("start", "clamped"), Support(3, "roller", axis="y", frame=FRAME),
           Support("end", rotational_stiffness=[2.0, 3.0, 4.0], stiffness=[10.0, 20.0, 30.0]))
    rod = _curved(sup, loads=loads)
    q, lam = static_equilibrium(rod)
    x = G.translation(q)
    R = rod.support_reactions(0.0, q, lam)
    f_body = rod.external_forces(0.0, q).reshape(-1, 6)  # applied loads, body frame
    Rot = G.rotation(q)
    f_app = np.einsum("nij,nj->ni", Rot, f_body[:, 3:])
    m_app = np.einsum("nij,nj->ni", Rot, f_body[:, :3])
    F, M = _resultant(np.concatenate([x[rod.support_rows.nodes], x]), np.concatenate([R[:, 3:], f_app]),
                      np.concatenate([R[:, :3], m_app]))
    scale = np.abs(np.r_[F1, M1, F2]).max()
    assert np.abs(F).max() < 1e-9 * scale and np.abs(M).max() < 1e-9 * scale  # Newton tolerance 1e-12·stiffness


def test_dynamic_reactions_balance_the_momentum_rate():
    """dP/dt = Σ applied + Σ reactions and dL/dt (about the origin) likewise: central differences of the momenta of
    an HEDOP5 trajectory (saved every 5e-4) with spacings h and 2h against the reactions from its multipliers. The
    mismatch is the difference formula's O(h²) error alone: it is small and falls 4× when h halves."""
    from lgbeam.solve import ConstantStep, MechanicalState, SaveAt, integrate

    n = 8
    loads = (NodalLoad(node=n // 2, force=[0.0, 0.3, -1.0], moment=[0.1, 0.0, 0.2]),)
    mesh = RodMesh.uniform(1.0, n)
    mat = Material.from_sectional(EA=1e3, GA=1e3, EI=1.0, GJ=1.0, rhoA=1.0, rhoJ=0.01)
    sup = (PIN, ROLLER, Support(2, stiffness=[0.0, 5.0, 5.0], rotational_stiffness=0.5))
    rod = CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh, direction=(1.0, 0.0, 0.0)), supports=sup,
                      loads=loads)
    dt = 5e-4
    sol = integrate(rod, "hedop5", MechanicalState(rod.q_ref, np.zeros(6 * rod.n_nodes)), (0.0, 0.05),
                    controller=ConstantStep(2.5e-4), save=SaveAt(every=dt))
    assert str(sol.status) == "ok"
    Q, V, lam = np.asarray(sol.q), np.asarray(sol.v), np.asarray(sol.lam)
    mom = np.array([np.r_[rod.linear_momentum(q, v), rod.angular_momentum(q, v)] for q, v in zip(Q, V)])
    k = np.arange(2, len(Q) - 2)
    rhs = []
    for kk in k:
        R = rod.support_reactions(sol.t[kk], Q[kk], lam[kk])
        x = G.translation(Q[kk])
        F, M = _resultant(np.concatenate([x[rod.support_rows.nodes], x[[n // 2]]]),
                          np.concatenate([R[:, 3:], [loads[0].force]]), np.concatenate([R[:, :3], [loads[0].moment]]))
        rhs.append(np.r_[F, M])
    errs = [np.abs((mom[k + s] - mom[k - s]) / (2 * s * dt) - np.array(rhs)).max() for s in (2, 1)]
    assert errs[1] < 1e-4 * np.abs(rhs).max(), errs  # measured 6e-5 · 0.25 (forces ~0.25)
    assert abs(observed_order(np.array([2 * dt, dt]), np.array(errs)) - 2.0) < 0.2, errs  # the FD error alone


def test_a_load_on_a_fixed_dof_is_reported_and_carried_by_the_reaction():
    """The review's pinned–pinned column: an axial end load on a node whose axial translation is fixed goes into
    the support; it is reported, and the reaction carries it."""
    n = 8
    load = NodalLoad(node="end", force=[-2.0, 0.0, 0.0])
    rod = _beam(n, (Support("start", "pinned"), Support("end", "pinned")), (load,))
    notes = rod.support_rows.loads_on_fixed_dofs(rod.loads, rod.mesh.node_index, rod.q_ref)
    assert len(notes) == 1 and "node 8" in notes[0] and "reaction" in notes[0]
    q, lam = static_equilibrium(rod)
    assert_allclose(rod.support_reactions(0.0, q, lam)[1, 3:], [2.0, 0.0, 0.0], atol=1e-12)
    roller = _beam(n, (PIN, ROLLER), (load,))  # the axial load now compresses the rod: nothing to report
    assert roller.support_rows.loads_on_fixed_dofs(roller.loads, roller.mesh.node_index, roller.q_ref) == []


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("make, match", [
    (lambda: _beam(4, (Support(9, "pinned"),), ()), "node 9 does not exist"),
    (lambda: _beam(4, (Support(s=0.3, kind="pinned"),), ()), "no node at s = 0.3"),
    (lambda: Support(0, stiffness=[1.0, -2.0, 0.0]), "stiffness must be >= 0"),
    (lambda: Support(0, "fixed"), "unknown support kind 'fixed'"),
    (lambda: Support(0, fix=("x", "w")), "unknown degree.*'w'"),
    (lambda: Support(0, "roller"), "needs axis"),
    (lambda: Support(0, "pinned", fix=("x",)), "either kind"),
    (lambda: Support(0, "pinned", stiffness=1.0), "which the support fixes"),
    (lambda: Support(0, frame="body"), "frame = 'body'"),
    (lambda: Support(0, frame=[[1.0, 0, 0], [2.0, 0, 0]]), "non-parallel"),
    (lambda: Support(node=0.5, kind="pinned"), "for a position along the rod give s"),
    (lambda: _beam(4, (Support(0, "pinned"), Support(0, fix=("x",), frame="local")), ()), "contradictory supports"),
    (lambda: _beam(4, (PIN, Support("end", "pinned")), (), inextensible=True), "over-constrained"),
])
def test_bad_supports_are_rejected_with_a_clear_message(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_supports_that_do_not_contradict_are_accepted():
    rod = _beam(4, (Support(0, "pinned"), Support(0, fix=("rz",), frame="local"), PIN.__class__(4, "roller", axis="x")),
                (), inextensible=True)  # pin + torsion at one node, roller along the rod: no redundancy
    assert rod.support_rows.n_rows == 3 + 1 + 2


def test_per_component_prescribed_translation_drives_an_exact_rigid_motion():
    """A free rod whose node 2 has only its translations prescribed (u t, rotations left free) and the matching
    initial velocity moves as a rigid translation x_i(t) = x_i(0) + u t: HEDOP5 keeps it to round-off (the
    solution is reproduced exactly by any Lie group method), and B v + Φ_t = 0 holds at every step."""
    from lgbeam.solve import ConstantStep, MechanicalState, integrate

    u = np.array([0.1, -0.2, 0.3])
    rod = _curved((Support(2, "prescribed", {"velocity": u.tolist()}, fix=("x", "y", "z"), frame=FRAME),))
    v0 = np.concatenate([np.zeros((rod.n_nodes, 3)), np.einsum("nji,j->ni", G.rotation(rod.q_ref), u)], axis=1).ravel()
    rod.check_initial_velocity(rod.q_ref, v0)  # B v0 + Φ_t(0) = 0
    sol = integrate(rod, "hedop5", MechanicalState(rod.q_ref, v0), (0.0, 0.5), controller=ConstantStep(0.05))
    assert str(sol.status) == "ok"
    x = G.translation(np.asarray(sol.q)[-1])
    assert np.abs(x - (G.translation(rod.q_ref) + 0.5 * u)).max() < 1e-12  # round-off over 10 steps
    assert np.abs(np.asarray(sol.q)[-1, :, :4] - rod.q_ref[:, :4]).max() < 1e-12  # no rotation


def test_spring_supports_hold_rigid_motions_in_static_and_modal_analyses():
    """A cantilever whose base is a pin with rotational springs k: statics and modes accept it (the springs hold
    the rotations the pin leaves free) and the tip deflection is PL³/3EI + PL²/k (the base rotates by PL/k);
    a fully elastic base (springs on all six) also runs; a pin with a spring about two axes only leaves the
    rotation about the third free, and that motion is named."""
    from lgbeam.discretisations.rods import modal
    from lgbeam.discretisations.rods.statics import solve_static

    G = S3R3()
    L, EI, P, k, n = 1.0, 1.0, 1e-5, 50.0, 16
    mesh = RodMesh.uniform(L, n)
    mat = Material.from_sectional(EA=1e4, GA=1e4, EI=EI, GJ=1.0, rhoA=1.0, rhoJ=0.01)

    def rod(*supports):
        return CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh), supports=supports, inextensible=True,
                           loads=(NodalLoad(node="end", force=[0.0, 0.0, -P]),))

    sprung = rod(Support("start", "pinned", rotational_stiffness=k))
    tip = -G.translation(solve_static(sprung, load_steps=1).final.q[-1])[2]
    exact = P * L**3 / (3 * EI) + P * L**2 / k
    assert abs(tip / exact - 1.0) < 1.0 / n**2  # the rod's O(Δs²) bending error δ_b/(4N²); measured 9.2e-4
    assert modal.modes(sprung, 2).omega2[0] > 0.0
    elastic = rod(Support("start", "free", stiffness=1e3, rotational_stiffness=k))
    tip_e = -G.translation(solve_static(elastic, load_steps=1).final.q[-1])[2]
    assert abs(tip_e / (exact + P / 1e3) - 1.0) < 1.0 / n**2
    partial = rod(Support("start", "pinned", rotational_stiffness=[k, k, 0.0]))
    with pytest.raises(ValueError, match=r"rotation about z through \(0, 0, 0\) is free"):
        solve_static(partial, load_steps=1)
