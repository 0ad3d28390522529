"""The corotational cubic beam element (``model.element = "corotational"``, lgbeam/discretisations/frames/
corotational.py; docs/frames.md "The corotational element") against closed forms (cantilever, simply supported and
fixed beams under distributed load and self-weight, the discrete arc of an end moment), a shooting solution of
the elastica, finite differences of its own forces (tangent, load tangent, ∂g/∂v), the textbook consistent mass,
conservation of energy and momenta along the flow, free vibration in a mode under gen-alpha and HERK4, and the
continuum limit of steel-frame-2storey's frequencies (computed independently by the Cosserat rods with Richardson's
step)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from lgbeam.apps import frame as frame_app
from lgbeam.apps import load_case
from lgbeam.discretisations.frames.corotational import CorotationalStructure, hermite_mass
from lgbeam.discretisations.rods import modal, sections
from lgbeam.discretisations.rods.statics import solve_static
from lgbeam.io.schema import validate


def _case(model: dict, supports: list, loads: dict | None = None) -> dict:
    raw = {"kind": "frame", "name": "t", "model": {"element": "corotational", **model}, "supports": supports,
           "loads": loads or {}, "analysis": {"kind": "static"}, "time": {"t_end": 1.0}}
    return validate(raw, frame_app.SCHEMA)


def _rod(n: int, load: dict, *, L: float = 1.0, EI: float = 1.0, EA: float = 1e7, mass: str = "consistent",
         rhoJ: float = 1e-3, direction: tuple[float, float, float] = (1.0, 0.0, 0.0)) -> CorotationalStructure:
    """A cantilever of sectional data (clamped at its start, ``load`` at its end)."""
    model = {"n_elements": n, "mass": mass, "material": {"EA": EA, "GA": EA, "EI": EI, "GJ": 0.7 * EI, "rhoA": 1.0,
                                                         "rhoJ": rhoJ},
             "rods": [{"name": "r", "start": [0.0, 0.0, 0.0], "end": [L * c for c in direction]}]}
    st = frame_app.build(_case(model, [{"rod": "r", "node": "start", "kind": "clamped"}],
                               {"nodal": [{"rod": "r", "node": "end", **load}]}))
    assert isinstance(st, CorotationalStructure)
    return st


def test_one_element_ipe300_cantilever_gives_the_beam_theory_tip_deflection_and_rotation():
    """One element, a small tip load P along z then y: PL³/3EI and PL²/2EI (the cubic element is exact for end
    loads; the small load keeps the geometric nonlinearity at ~1e-9)."""
    L, P = 4.0, 100.0
    sec, E = sections.library("IPE300"), sections.GRADES["S235"].E
    for ax, I in ((2, sec.Iy), (1, sec.Iz)):
        f = [0.0, 0.0, 0.0]
        f[ax] = P
        case = _case({"n_elements": 1, "nodes": [{"name": "a", "at": [0.0, 0.0, 0.0]}, {"name": "b", "at": [L, 0.0, 0.0]}],
                      "members": [{"name": "m", "nodes": ["a", "b"], "section": "IPE300", "material": "S235"}]},
                     [{"node": "a", "kind": "clamped"}], {"nodal": [{"node": "b", "force": f}]})
        st = frame_app.build(case)
        path = solve_static(st, load_steps=1)
        assert path.status == "ok"
        q = st._q(path.final.q)
        assert st.G.translation(q)[-1, ax] == pytest.approx(P * L**3 / (3 * E * I), rel=1e-5)
        R = st.G.rotation(q)[-1] @ st.G.rotation(st._q(st.q_ref))[-1].T  # the tip's rotation, spatial
        theta = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2.0
        assert abs(theta[3 - ax]) == pytest.approx(P * L**2 / (2 * E * I), rel=1e-5)  # about y for a z load, z for y


def test_tangent_equals_central_differences_of_the_forces():
    """K = ∂g/∂w along q ∘ exp(εw) at a strongly deformed state (rotations ~0.3 rad, translations ~0.2 L) with the
    tip load's stiffness included: central differences (ε = 1e-6, truncation ~1e-12) agree to 1e-8."""
    st = _rod(3, {"force": [0.0, 0.3, -1.0], "moment": [0.2, 0.0, 0.1]})
    G, rng = st.G, np.random.default_rng(0)
    w = np.concatenate([0.3 * rng.standard_normal((st.n_nodes, 3)), 0.2 * rng.standard_normal((st.n_nodes, 3))], 1)
    q = G.compose(st._q(st.q_ref), G.exp(w))
    v = np.zeros(st.n_dofs)
    K = st.stiffness(0.0, q, v).toarray()
    Kfd = np.empty_like(K)
    for k in range(st.n_dofs):  # a test: a loop over 24 directions
        e = np.zeros(st.n_dofs)
        e[k] = 1e-6
        Kfd[:, k] = (st.forces(0.0, G.compose(q, G.exp(e.reshape(-1, 6))), v)
                     - st.forces(0.0, G.compose(q, G.exp(-e.reshape(-1, 6))), v)) / 2e-6
    assert np.abs(K - Kfd).max() <= 1e-8 * np.abs(K).max()
    # and the force is the gradient of the strain energy (complex-step B against differences of V)
    g = st.elastic_forces(q)
    for k in (0, 4, 9, 16):
        e = np.zeros(st.n_dofs)
        e[k] = 1e-6
        dV = (st.elements.energy(G.compose(q, G.exp(e.reshape(-1, 6))))
              - st.elements.energy(G.compose(q, G.exp(-e.reshape(-1, 6))))) / 2e-6
        assert dV == pytest.approx(g[k], abs=1e-8 * np.abs(g).max())


def test_end_moment_rolls_the_cantilever_into_the_exact_discrete_arc():
    """M = πEI/L bends every element by φ = Ml₀/EI = π/N with no axial force, so the nodes lie on a circle of radius
    ρ_N = l₀/(2 sin(φ/2)) and the tip turns by exactly π (the element's local bending is exact for constant moment):
    half a regular 2N-gon, tip distance 2ρ_N from the root → 2L/π as N grows. Large rotations, eight load steps."""
    L, EI = 1.0, 1.0
    for n in (4, 8):
        st = _rod(n, {"moment": [0.0, -np.pi * EI / L, 0.0]}, L=L, EI=EI, EA=1e6)
        path = solve_static(st, load_steps=8)
        assert path.status == "ok"
        q = st._q(path.final.q)
        x = st.G.translation(q)
        rho = L / n / (2.0 * np.sin(np.pi / (2 * n)))
        centre = np.array([0.0, 0.0, rho])
        assert np.abs(np.linalg.norm(x - centre, axis=1) - rho).max() <= 1e-9 * L
        assert np.linalg.norm(x[-1]) == pytest.approx(2 * rho, rel=1e-9)
        R = st.G.rotation(q)[-1] @ st.G.rotation(st._q(st.q_ref))[-1].T
        assert R == pytest.approx(np.diag([-1.0, 1.0, -1.0]), abs=1e-9)  # half a turn about y
    assert 2 * rho == pytest.approx(2 * L / np.pi, rel=0.01)


def test_elastica_tip_under_an_end_load_converges_at_second_order_to_the_shooting_solution():
    """PL²/EI = 1 (tip slope 0.4614 rad): the exact inextensible elastica by shooting (θ'' = −(P/EI) cos θ,
    θ(0) = 0, θ'(L) = 0; Mattiasson 1981: w/L = 0.30172, u/L = 0.05643); the corotational mesh converges as N⁻²
    (its chord has no P-δ inside an element) with errors 4.9e-4 and 1.2e-4 of L at N = 4 and 8."""
    L, EI, P = 1.0, 1.0, 1.0

    def shoot(k0: float):
        return solve_ivp(lambda s, y: [y[1], -(P / EI) * np.cos(y[0]), np.cos(y[0]), -np.sin(y[0])], (0.0, L),
                         [0.0, k0, 0.0, 0.0], rtol=1e-12, atol=1e-14)

    k0 = brentq(lambda k: shoot(k).y[1, -1], 0.1, 2.0, xtol=1e-14)
    exact = shoot(k0).y[:, -1]
    assert (exact[3], 1.0 - exact[2]) == pytest.approx((-0.30172, 0.05643), abs=1e-5)
    err = []
    for n in (4, 8):
        st = _rod(n, {"force": [0.0, 0.0, -P]}, L=L, EI=EI)
        path = solve_static(st, load_steps=2)
        assert path.status == "ok"
        x = st.G.translation(st._q(path.final.q))[-1]
        err.append(np.hypot(x[0] - exact[2], x[2] - exact[3]))
    assert err[1] < 2e-4 * L
    assert np.log2(err[0] / err[1]) == pytest.approx(2.0, abs=0.1)


def test_consistent_mass_holds_the_rigid_body_mass_and_gives_fourth_order_frequencies():
    """rᵀMr of a unit rigid translation = ρA L (and the lumped mass the same); the first bending frequency of a
    cantilever (β₁L = 1.8751, no rotary inertia to speak of) converges as N⁻⁴ with the consistent mass, N⁻² lumped."""
    L, EI = 2.0, 3.0
    bl = 1.8751040687119611
    w_exact = (bl / L) ** 2 * np.sqrt(EI / 1.0)
    for mass in ("consistent", "lumped"):
        st = _rod(4, {"force": [0.0, 0.0, 0.0]}, L=L, EI=EI, mass=mass, rhoJ=1e-12, direction=(0.0, 0.0, 1.0))
        M = st.mass(st.q_ref)
        R = st.G.rotation(st._q(st.q_ref))
        r = np.zeros((st.n_nodes, 6))
        r[:, 3:] = np.einsum("nji,j->ni", R, [0.3, -0.4, 1.2]) / 1.3  # a unit spatial direction in the body frames
        assert float(r.ravel() @ (M @ r.ravel())) == pytest.approx(L, rel=1e-12)
    err = {}
    for mass in ("consistent", "lumped"):
        e = []
        for n in (2, 4):
            st = _rod(n, {"force": [0.0, 0.0, 0.0]}, L=L, EI=EI, mass=mass, rhoJ=1e-12, direction=(0.0, 0.0, 1.0))
            e.append(abs(modal.modes(st, 1).omega[0] / w_exact - 1.0))
        err[mass] = e
    assert err["consistent"][1] < 1e-4
    assert np.log2(err["consistent"][0] / err["consistent"][1]) > 3.5
    assert np.log2(err["lumped"][0] / err["lumped"][1]) == pytest.approx(2.0, abs=0.3)


def test_hermite_mass_is_the_textbook_matrix():
    """The bending block of the quadrature-built consistent mass equals Przemieniecki's ρAL/420 [156, 22L, 54, −13L;
    …; 4L², …] (translation u₁ with the slope θ₂), and the axial block ρAL/6 [2 1; 1 2]."""
    L, m = 1.7, 2.3
    M = hermite_mass(L, m, np.zeros(3))
    idx = [3, 1, 9, 7]  # u_a1, θ_a2, u_b1, θ_b2
    ref = m * L / 420 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                                  [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
    assert M[np.ix_(idx, idx)] == pytest.approx(ref, rel=1e-13)
    assert M[np.ix_([5, 11], [5, 11])] == pytest.approx(m * L / 6 * np.array([[2, 1], [1, 2]]), rel=1e-13)
    # batched over elements (how the structure builds it): each element's matrix is the one-element matrix
    ls, ms = np.array([L, 0.4, 3.1]), np.array([m, 7.0, 0.9])
    js = np.array([[0.0, 0.0, 0.0], [0.1, 0.2, 0.3], [1.0, 0.5, 0.25]])
    batch = hermite_mass(ls, ms, js)
    assert batch.shape == (3, 12, 12)
    for k in range(3):
        assert batch[k] == pytest.approx(hermite_mass(float(ls[k]), float(ms[k]), js[k]), rel=1e-14, abs=0.0)


def test_steel_frame_2storey_frequencies_at_8_elements_per_member_match_the_continuum():
    """Issue 31's target: f₁…f₅ of steel-frame-2storey at its 8 elements per member, Richardson off, within 5e-4 of
    the continuum. Continuum: the Cosserat rods at 16/32 elements per member with Richardson's step (an independent
    discretisation; its own 32/64 corotational value differs by ≤ 2.3e-6), 5.23811489, 6.55456318, 7.31216033,
    9.47173796, 12.97236938 Hz. Measured: ≤ 2.6e-5 (the consistent Hermite mass converges as N⁻⁴)."""
    case = load_case("steel-frame-2storey", ['model.element="corotational"'])[0]
    f = modal.modes(frame_app.build(case), 5).omega / (2 * np.pi)
    continuum = np.array([5.23811489, 6.55456318, 7.31216033, 9.47173796, 12.97236938])
    assert np.abs(f / continuum - 1.0).max() < 5e-5


def test_unknown_element_and_mass_are_refused_in_one_line():
    with pytest.raises(ValueError, match="model.element") as err:
        _case({"element": "timoshenko"}, [])
    assert "\n" not in str(err.value) and "corotational" in str(err.value)
    with pytest.raises(ValueError, match="model.mass"):
        _case({"mass": "diagonal"}, [])


def test_material_damping_is_refused_in_one_line():
    case = load_case("steel-frame-2storey", ['model.element="corotational"', "model.material.damping=0.1"])[0]
    with pytest.raises(ValueError, match="damping") as err:
        frame_app.build(case)
    assert "\n" not in str(err.value)


def test_effective_masses_with_the_consistent_mass_sum_to_the_mass_the_supports_leave_free():
    """``modal.participation`` with the full (consistent) M: Σ_k m_eff,k over every mode = r_eᵀ M P r_e (P the
    M-orthogonal projection onto ker B, dense), and the total mass is ρA L exactly (rigid translations)."""
    import scipy.linalg as sla

    st = _rod(3, {"force": [0.0, 0.0, 0.0]}, L=2.0, direction=(0.0, 0.6, 0.8))
    q = st._q(st.q_ref)
    M, B = st.mass(q).toarray(), st.constraint_jacobian(q).toarray()
    Z = sla.null_space(B)
    w, y = sla.eigh(Z.T @ modal.tangent(st, q, None, 0.0).toarray() @ Z, Z.T @ M @ Z)
    part = modal.participation(st, (Z @ y).T.reshape(len(w), -1, 6), q)
    assert part.total_mass == pytest.approx(2.0, rel=1e-12)
    R = st.G.rotation(q)
    for e in range(3):
        r = np.zeros((st.n_nodes, 6))
        r[:, 3:] = R[:, e, :]
        r = r.ravel()
        assert part.effective_mass[:, e].sum() == pytest.approx(r @ M @ (Z @ np.linalg.solve(Z.T @ M @ Z, Z.T @ M @ r)),
                                                                 rel=1e-9)


def _ipe300_beam(n: int, supports: list, loads: dict, L: float = 6.0) -> CorotationalStructure:
    case = _case({"n_elements": n, "nodes": [{"name": "a", "at": [0.0, 0.0, 0.0]}, {"name": "b", "at": [L, 0.0, 0.0]}],
                  "members": [{"name": "m", "nodes": ["a", "b"], "section": "IPE300", "material": "S235"}]},
                 supports, loads)
    st = frame_app.build(case)
    assert isinstance(st, CorotationalStructure)
    return st


SIMPLY_SUPPORTED = [{"node": "a", "fix": ["x", "y", "z", "rx"]}, {"node": "b", "fix": ["y", "z"]}]


@pytest.mark.parametrize("n", [1, 4])
def test_simply_supported_beam_under_self_weight_gives_ql_over_2_at_its_end_rows_and_the_exact_midspan_sag(n):
    """Issue 31's target: an IPE 300 of 6 m on a pin and a roller under its own weight. The end rows of
    member_forces.csv (the free-body cut at the member's ends, with the load on the element next to them) give
    V = qL/2 (q = ρA g) and M = 0 to 1e-9 at any mesh in global axes (the target is 1e-4); with the consistent load vector the
    nodes carry the exact Euler–Bernoulli deflection, 5qL⁴/384EI at midspan (lumped loads would give 4/384 at
    N = 2, 20 % off); the sag/L ~ 5e-5 keeps the geometric nonlinearity below 1e-8."""
    from lgbeam.apps._frame_diagrams import COLUMNS, member_forces

    L, g = 6.0, 9.81
    st = _ipe300_beam(n, SIMPLY_SUPPORTED, {"gravity": [0.0, 0.0, -g]}, L)
    path = solve_static(st, load_steps=1)
    assert path.status == "ok"
    q = st.members[0].material.rhoA * g
    ends = member_forces(st, {"m": list(st.names)}, path.final.q, path.final.lam)[0].values[[0, -1]]
    cols = {c: k for k, c in enumerate(COLUMNS)}
    # local axes: the end sections turn by the end slope θ ≈ 2e-4 rad, so V_z = (qL/2) cos θ (1 − 2e-8)
    assert np.abs(np.abs(ends[:, cols["V_z"]]) / (q * L / 2) - 1.0).max() < 1e-7
    assert np.abs(ends[:, [cols["M_y"], cols["M_z"], cols["V_y"]]]).max() < 1e-9 * q * L * L
    node = st.resultants(path.final.q, path.final.lam)[0].node_spatial  # global axes: the vertical force exactly
    assert np.abs(node[[0, -1], 5]) == pytest.approx([q * L / 2] * 2, rel=1e-9)
    sec, E = sections.library("IPE300"), sections.GRADES["S235"].E
    x = st.G.translation(st._q(path.final.q))
    w_exact = lambda s: q * s * (L**3 - 2 * L * s**2 + s**3) / (24 * E * sec.Iy)
    s = st.G.translation(st._q(st.q_ref))[:, 0]
    assert -x[:, 2] == pytest.approx(w_exact(s), rel=1e-7, abs=1e-16)
    if n == 4:
        assert -x[2, 2] == pytest.approx(5 * q * L**4 / (384 * E * sec.Iy), rel=1e-7)


def test_fixed_beam_under_a_distributed_load_gives_the_fixed_end_moments_ql2_over_12():
    """A statically indeterminate beam, clamped at both ends, 2 elements, uniform load q across it (a distributed
    load): end moments qL²/12 and shears qL/2 to 1e-8 (the consistent load vector makes the cubic element exact here; the
    lumped one gives 1/8 at N = 2)."""
    from lgbeam.apps._frame_diagrams import COLUMNS, member_forces

    L, q = 6.0, 50.0  # small: the membrane force of the clamped ends adds ~1e-10 (q²) to the moments
    st = _ipe300_beam(2, [{"node": "a", "kind": "clamped"}, {"node": "b", "kind": "clamped"}],
                      {"distributed": [{"member": "m", "force": [0.0, 0.0, -q]}]}, L)
    path = solve_static(st, load_steps=1)
    assert path.status == "ok"
    ends = member_forces(st, {"m": list(st.names)}, path.final.q, path.final.lam)[0].values[[0, -1]]
    cols = {c: k for k, c in enumerate(COLUMNS)}
    assert np.abs(ends[:, cols["M_y"]]) == pytest.approx([q * L**2 / 12] * 2, rel=1e-8)
    assert np.abs(ends[:, cols["V_z"]]) == pytest.approx([q * L / 2] * 2, rel=1e-9)


def test_tangent_with_the_consistent_load_moments_equals_central_differences():
    """The load stiffness of the consistent end moments (derivative of a potential, chord-following) in the exact
    tangent: K against central differences of the forces at a deformed state of a cantilever under gravity."""
    model = {"n_elements": 3, "material": {"EA": 1e5, "GA": 1e5, "EI": 1.0, "GJ": 0.7, "rhoA": 1.0, "rhoJ": 1e-3},
             "rods": [{"name": "r", "start": [0.0, 0.0, 0.0], "end": [0.6, 0.0, 0.8]}]}
    st = frame_app.build(_case(model, [{"rod": "r", "node": "start", "kind": "clamped"}], {"gravity": [0.3, -1.0, -2.0]}))
    G, rng = st.G, np.random.default_rng(1)
    w = np.concatenate([0.3 * rng.standard_normal((st.n_nodes, 3)), 0.2 * rng.standard_normal((st.n_nodes, 3))], 1)
    q = G.compose(st._q(st.q_ref), G.exp(w))
    v = np.zeros(st.n_dofs)
    K = st.stiffness(0.0, q, v).toarray()
    Kl = st.load_stiffness(0.0, q).toarray()
    Kfd, Lfd = np.empty_like(K), np.empty_like(K)
    for k in range(st.n_dofs):  # a test: a loop over 24 directions
        e = np.zeros((st.n_nodes, 6))
        e.flat[k] = 1e-6
        qp, qm = G.compose(q, G.exp(e)), G.compose(q, G.exp(-e))
        Kfd[:, k] = (st.forces(0.0, qp, v) - st.forces(0.0, qm, v)) / 2e-6
        Lfd[:, k] = (st.external_forces(0.0, qp) - st.external_forces(0.0, qm)) / 2e-6
    assert np.abs(K - Kfd).max() <= 1e-8 * np.abs(K).max()
    assert np.abs(Kl - Lfd).max() <= 1e-8 * np.abs(Kl).max()


def test_velocity_terms_of_the_consistent_mass_and_their_derivative():
    """``damping`` = ∂g/∂v by central differences (the Euler–Poincaré terms of T = ½vᵀMv are quadratic in v, so a
    central difference is exact to round-off); with the lumped mass the terms are the rods' (W×JW, m W×U)."""
    st = _rod(3, {"force": [0.0, 0.0, 0.0]}, L=2.0, direction=(0.0, 0.6, 0.8))
    q, rng = st._q(st.q_ref), np.random.default_rng(2)
    v = rng.standard_normal(st.n_dofs)
    D = st.damping(0.0, q, v).toarray()
    Dfd = np.stack([(st.forces(0.0, q, v + e) - st.forces(0.0, q, v - e)) / 2e-3 for e in 1e-3 * np.eye(st.n_dofs)], 1)
    assert np.abs(D - Dfd).max() <= 1e-10 * np.abs(D).max()
    lumped = _rod(3, {"force": [0.0, 0.0, 0.0]}, L=2.0, direction=(0.0, 0.6, 0.8), mass="lumped")
    J, m = lumped._inertia
    V = v.reshape(-1, 6)
    ref = np.concatenate([np.cross(V[:, :3], J * V[:, :3]), m[:, None] * np.cross(V[:, :3], V[:, 3:])], axis=1)
    assert lumped.gyroscopic(v) == pytest.approx(ref.ravel(), rel=1e-14, abs=1e-14)


def test_gen_alpha_free_vibration_with_the_consistent_mass_keeps_the_first_modes_period():
    """A cantilever (4 elements) started at its rest position with velocity a·φ₁ (mode 1 of the consistent mass,
    tiny amplitude: linear) under gen-alpha ρ∞ = 1 (trapezoidal), h = T₁/200: at T₁/4 the displacement is
    (a/ω₁)φ₁ and the velocity 0, at T₁/2 the displacement is 0 and the velocity −aφ₁, to the trapezoidal phase
    error ω₁t(ω₁h)²/12 ≈ 3e-4 of the amplitude at T₁/2. The lumped mass's period differs by 2.8 % at this mesh (a
    phase error of 0.09 at T₁/2), so the dynamics must use the consistent M to pass."""
    from lgbeam.integrators import make_method
    from lgbeam.solve import ConstantStep, MechanicalState, SaveAt, integrate

    st = _rod(4, {"force": [0.0, 0.0, 0.0]}, L=2.0, EI=3.0, EA=1e5, rhoJ=1e-6, direction=(0.0, 0.0, 1.0))
    md = modal.modes(st, 1)
    w1, phi = float(md.omega[0]), md.shapes[0].ravel()
    a = 1e-6 / np.abs(phi).max()
    T = 2 * np.pi / w1
    sol = integrate(st, make_method("gen-alpha", rho_inf=1.0), MechanicalState(st.q_ref, a * phi),
                    (0.0, T / 2), controller=ConstantStep(T / 200), save=SaveAt(times=[T / 4, T / 2]),
                    diagnostics=False)
    x0 = st.G.translation(st._q(st.q_ref))
    R0 = st.G.rotation(st._q(st.q_ref))
    ts = np.asarray(sol.t)
    i4, i2 = int(np.argmin(abs(ts - T / 4))), int(np.argmin(abs(ts - T / 2)))
    assert ts[[i4, i2]] == pytest.approx([T / 4, T / 2], rel=1e-12)
    u = st.G.translation(np.asarray(sol.q)[i4].reshape(-1, 7)) - x0
    expect = (a / w1) * np.einsum("nij,nj->ni", R0, phi.reshape(-1, 6)[:, 3:])
    amp = np.abs(expect).max()
    assert np.abs(u - expect).max() <= 1e-3 * amp
    assert np.abs(np.asarray(sol.v)[i4]).max() <= 1e-3 * a * np.abs(phi).max()
    u2 = st.G.translation(np.asarray(sol.q)[i2].reshape(-1, 7)) - x0
    assert np.abs(u2).max() <= 1e-3 * amp
    assert np.asarray(sol.v)[i2] == pytest.approx(-a * phi, abs=1e-3 * a * np.abs(phi).max())


@pytest.mark.slow
@pytest.mark.parametrize("mass", ["consistent", "lumped"])
def test_an_explicit_method_runs_the_element_and_keeps_mode_1(mass):
    """HERK4 (explicit, h = T₁/2000 under the stability bound of the stiffest mode) from velocity a·φ₁ of the
    element's own mass: at T₁/4 the displacement is (a/ω₁)φ₁ to 1e-4 (measured 2e-7)."""
    from lgbeam.integrators import make_method
    from lgbeam.solve import ConstantStep, MechanicalState, integrate

    st = _rod(4, {"force": [0.0, 0.0, 0.0]}, L=2.0, EI=3.0, EA=1e3, rhoJ=1e-2, direction=(0.0, 0.0, 1.0), mass=mass)
    md = modal.modes(st, 1)
    w1, phi = float(md.omega[0]), md.shapes[0].ravel()
    a, T = 1e-6 / np.abs(phi).max(), 2 * np.pi / w1
    sol = integrate(st, make_method("herk4"), MechanicalState(st.q_ref, a * phi), (0.0, T / 4),
                    controller=ConstantStep(T / 2000), diagnostics=False)
    assert sol.status == "ok", sol.message
    u = st.G.translation(np.asarray(sol.q)[-1].reshape(-1, 7)) - st.G.translation(st._q(st.q_ref))
    expect = (a / w1) * np.einsum("nij,nj->ni", st.G.rotation(st._q(st.q_ref)), phi.reshape(-1, 6)[:, 3:])
    assert np.abs(u - expect).max() <= 1e-4 * np.abs(expect).max()


def test_the_equations_of_motion_conserve_energy_and_momenta_of_a_free_beam_with_the_consistent_mass():
    """A free beam (no supports, no loads) at a deformed state with a random velocity: along the flow
    (q ∘ exp(±h v), v ± h v̇, v̇ = −M⁻¹g) the central differences of T + V and of the spatial linear and angular
    momenta (``momenta``: Σ R p, Σ R π + x × R p) vanish to O(h²) (h = 1e-5: measured ≤ 1e-9 of their scale):
    the Euler–Poincaré velocity terms are the ones of T = ½vᵀMv, and the element forces are invariant."""
    model = {"n_elements": 3, "material": {"EA": 50.0, "GA": 50.0, "EI": 1.0, "GJ": 0.7, "rhoA": 1.0, "rhoJ": 1e-2},
             "rods": [{"name": "r", "start": [0.0, 0.0, 0.0], "end": [0.0, 0.6, 0.8]}]}
    st = frame_app.build(_case(model, []))
    G, rng = st.G, np.random.default_rng(3)
    q = G.compose(st._q(st.q_ref), G.exp(0.2 * rng.standard_normal((st.n_nodes, 6))))
    v = rng.standard_normal(st.n_dofs)
    M = st.mass(q).toarray()
    acc = lambda qq, vv: -np.linalg.solve(M, st.forces(0.0, qq, vv))
    h = 1e-5
    a = acc(q, v)
    qp, qm = G.compose(q, G.exp(h * v.reshape(-1, 6))), G.compose(q, G.exp(-h * v.reshape(-1, 6)))
    vp, vm = v + h * a, v - h * a
    E = [st.kinetic_energy(vv) + st.potential_energy(qq) for qq, vv in ((qp, vp), (qm, vm))]
    scale = abs(v @ M @ a) + abs(v @ st.elastic_forces(q))
    assert abs(E[0] - E[1]) / (2 * h) <= 1e-8 * scale
    for k in range(2):
        Jp, Jm = st.momenta(qp, vp)[k], st.momenta(qm, vm)[k]
        assert np.abs(Jp - Jm).max() / (2 * h) <= 1e-8 * np.abs(M @ a).max() * 2.0


def test_closed_form_b_and_exact_tangent_equal_the_numpy_complex_step():
    """The compiled closed form (``_corot_compiled``: d, B = ∂d/∂w, the tangent by the complex step of the closed
    form) against the batched numpy reference (complex step of d; central differences, ε = 1e-5, of that B for the
    geometric part) at random, strongly rotated elements with offsets and one straight unstrained element: d and B
    to 1e-12 relative (measured 2e-15), K_e = Bᵀ K_l B + K_σ and K_σ(s) for a random s to 1e-8 (the reference's
    own truncation and round-off, ~1e-10; measured 4e-10)."""
    from lgbeam.discretisations.frames import _corot_compiled as cc
    from lgbeam.discretisations.frames.corotational import Elements

    rng = np.random.default_rng(4)
    pa, xa, pb, xb, ca, cb, l0 = cc._sample(rng)
    E = l0.size
    d, B = cc._closed_db(pa, xa, pb, xb, ca, cb, l0)
    d_ref, B_ref = cc._reference_db(pa, xa, pb, xb, ca, cb, l0)
    assert np.abs(d - d_ref).max() <= 1e-12 and np.abs(d[-1]).max() <= 1e-15
    assert np.abs(B - B_ref).max() <= 1e-12 * np.abs(B_ref).max()
    q = np.concatenate([np.concatenate([pa, xa], 1), np.concatenate([pb, xb], 1)])
    a, b, stiff = np.arange(E), np.arange(E) + E, rng.uniform(0.5, 2.0, (E, 4))
    ref = Elements(a=a, b=b, ca=ca, cb=cb, l0=l0, stiff=stiff, compiled=False)
    fast = Elements(a=a, b=b, ca=ca, cb=cb, l0=l0, stiff=stiff, compiled=True)
    K_ref = ref.tangent(q)
    assert np.abs(fast.tangent(q) - K_ref).max() <= 1e-8 * np.abs(K_ref).max()
    s = rng.standard_normal((E, 7))
    Ks_ref = ref.geometric(q, s)
    assert np.abs(fast.geometric(q, s) - Ks_ref).max() <= 1e-8 * np.abs(Ks_ref).max()
    st = fast.state(q)
    assert st.V == pytest.approx(ref.energy(q), rel=1e-12)
    assert np.abs(st.g_e - ref.forces(q)[0]).max() <= 1e-12 * np.abs(st.g_e).max()


@pytest.mark.parametrize("mass", ["consistent", "lumped"])
def test_fused_newton_residual_equals_the_protocol_methods(mass):
    """``CorotationalStructure.newton_residual`` (one compiled pass: elements, the mass's velocity terms, nodal loads,
    supports, joints; ``frames._compiled.corot_residual``) against the protocol methods it replaces (``forces``,
    ``constraint_jacobian_t``, ``constraints_t``: numpy velocity terms and loads, the rods' support and joint rows) on
    steel-frame-2storey's wind case at a random configuration, velocity and λ: equal to 1e-12 relative; and the
    energy it memoises is the strain energy of the numpy reference."""
    from lgbeam.discretisations.frames.corotational import Elements
    from lgbeam.discretisations.frames.structure import Structure

    case = load_case("steel-frame-2storey", ['model.element="corotational"', f'model.mass="{mass}"',
                                             "model.n_elements=2", 'analysis.kind="dynamic"', 'analysis.load_case="wind"',
                                             'integrator.method="gen-alpha"', "integrator.h=1e-3", "time.t_end=0.01"])[0]
    for k, ld in enumerate(next(c for c in case["loads"]["cases"] if c["name"] == "wind")["nodal"]):
        ld.update(time="table", times=[0.0, 0.1, 0.2], values=[0.0, 1.0 + (k % 2), 0.0])  # two distinct tables
    st = frame_app.problem(case).system
    assert isinstance(st, CorotationalStructure) and st._corot_fused is not None
    rng = np.random.default_rng(5)
    q = st.G.compose(st._q(st.q_ref), st.G.exp(0.05 * rng.standard_normal((st.n_nodes, 6))))
    v, lam = rng.standard_normal(st.n_dofs), rng.standard_normal(st.n_constraints)
    fused = st.newton_residual(0.05, q, v, lam)
    V = st._element_state(q).V
    st._cache.clear()
    ref = Structure.newton_residual(st, 0.05, q, v, lam)  # the protocol methods (no fused Cosserat kernel here)
    for a, b in zip(fused, ref, strict=True):
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max())
    assert np.abs(fused[0]).max() > 1.0 and np.abs(fused[2]).max() > 1e-3  # loads, velocity terms and Φ are there
    assert len(st._corot_fused["time_functions"][0]) == 2
    p_fused, e_fused = st.external_power(0.05, q, v), st.potential_energy(q, 0.05)
    object.__setattr__(st, "_corot_fused", None)  # the reference paths of power and energy
    st._cache.clear()
    assert p_fused == pytest.approx(st.external_power(0.05, q, v), rel=1e-12)
    assert e_fused == pytest.approx(st.potential_energy(q, 0.05), rel=1e-12)
    el = st.elements
    numpy_el = Elements(a=el.a, b=el.b, ca=el.ca, cb=el.cb, l0=el.l0, stiff=el.stiff, compiled=False)
    assert V == pytest.approx(numpy_el.energy(q), rel=1e-12)
