"""Static paths that find the right answer: load control with cut-back, arc length through limit points,
stability of every state, bifurcation detection and branch switching (lgbeam.discretisations.rods.statics).

Truths: the exact circle of radius EI/M under an end moment (constant-strain edges make it exact per edge, so
only the solver tolerance remains); the inextensible elastica of the pinned–pinned column in elliptic
integrals (P/P_E = (2K(k)/π)², δ_mid = kL/K(k), chord = L(2E(k)/K(k) − 1); Timoshenko & Gere 1961 §2.7);
dense null-space eigenvalues for the stability count; a second method (load control) for the limit load.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la
from scipy.optimize import brentq
from scipy.special import ellipe, ellipk

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.rods import (
    CosseratRod,
    Material,
    NodalLoad,
    RodMesh,
    Support,
    arc,
    stability,
    straight,
)
from lgbeam.discretisations.rods import _compiled as rod_compiled
from lgbeam.discretisations.rods.modal import buckling
from lgbeam.discretisations.rods.statics import _Equations, solve_static
from lgbeam.groups.s3r3 import S3R3

G = S3R3()
STEEL = Material.from_section(E=210e9, G=81e9, rho=7850.0, section="rectangle", width=0.01, height=0.04)
COLUMN_MAT = Material(C_K=[1.0, 2.0, 1.0], C_Gamma=[1e4] * 3, rhoA=1.0, rhoJ=[1e-3] * 3)  # EI₁ = 1: weak axis


def column(n: int, P: float = np.pi**2, material: Material = COLUMN_MAT) -> CosseratRod:
    """Pinned (torsion held) – roller column, L = EI = 1, end load P along −x (P_E = π²)."""
    mesh = RodMesh.uniform(1.0, n)
    return CosseratRod(mesh=mesh, material=material, q_ref=straight(G, mesh), inextensible=True,
                       supports=(Support("start", fix=("x", "y", "z", "rx")), Support("end", "roller", axis="x")),
                       loads=(NodalLoad(node="end", force=[-P, 0.0, 0.0]),))


def elastica(mu: float) -> tuple[float, float]:
    """(mid-span deflection, chord) of the pinned–pinned inextensible elastica at P = μ P_E, L = 1."""
    m = brentq(lambda m: (2.0 * ellipk(m) / np.pi) ** 2 - mu, 1e-15, 0.999)
    return float(np.sqrt(m) / ellipk(m)), float(2.0 * ellipe(m) / ellipk(m) - 1.0)


def test_curl_by_end_moment_is_the_exact_circle_in_10_load_steps():
    n, L = 32, 2.0
    mesh = RodMesh.uniform(L, n)
    EI = STEEL.C_K[1]
    M = 2.0 * np.pi * EI / L
    rod = CosseratRod(mesh=mesh, material=STEEL, q_ref=straight(G, mesh), supports=(Support("start", "clamped"),),
                      loads=(NodalLoad(node="end", moment=[0.0, M, 0.0]),))
    path = solve_static(rod, load_steps=10)
    assert path.status == "ok" and path.n_steps <= 10 and path.cutbacks == 0, path.message
    x = G.translation(path.final.q)
    R = EI / M
    centre = x[0] + np.array([0.0, 0.0, R]) * np.sign(x[n // 2, 2])
    assert np.max(np.abs(np.linalg.norm(x - centre, axis=1) - R)) < 1e-8  # issue 11: exact circle to 1e-8
    assert np.linalg.norm(x[-1] - x[0]) < 1e-8  # the tip is back at the clamp
    # a spatial end moment is non-conservative in 3-D: the symmetric part of K_t turns indefinite, but no
    # eigenvalue of K_t itself crosses zero; the state is stable (not the false alarm of the symmetric part)
    assert path.final.n_negative == 0


def test_column_past_euler_load_reports_bifurcation_and_switches_to_the_buckled_branch():
    n = 32
    rod = column(n)
    mu_cr = buckling(rod, 1).load_factors[0]
    path = solve_static(rod, load_steps=10, load_factor=1.2)
    assert path.status == "ok", path.message
    bif = [e for e in path.events if e.kind == "bifurcation"]
    assert len(bif) == 1
    assert abs(bif[0].load_factor - mu_cr) < 1e-6  # the path's crossing = the linear buckling eigenvalue
    assert max(s.branch for s in path.states) == 1 and path.final.n_negative == 0
    d, c = elastica(1.2)
    x = G.translation(path.final.q)
    assert abs(abs(x[n // 2, 1]) - d) < 1e-3 and abs(x[-1, 0] - c) < 2e-3  # O(N⁻²) error at N = 32 (below)


def test_without_branch_switching_the_straight_state_past_P_cr_is_reported_unstable():
    path = solve_static(column(16), load_steps=5, load_factor=1.1, branch_switch=False)
    assert path.status == "unstable" and path.final.n_negative == 1
    assert "unstable" in path.message and "bifurcation" in path.message


@pytest.mark.parametrize(("stiffer", "times_euler"), [(3.0, 3.5), (2.0, 10.0)])
def test_one_load_step_far_past_P_cr_brackets_the_first_critical_load(stiffer, times_euler):
    """Issue 24 item 10: one load step to 3.5 (10) × P_E jumps over two (four) critical points — weak and stiff
    axis — and the regula falsi between the end states landed on the stiff-axis crossing (0.868 for 0.289) or an
    end (1.0 for 0.101). Bisection on the load factor with converged states brackets the first change: the
    reported factor is the linear buckling eigenvalue (``modal.buckling``, its own generalised eigenproblem) to
    the bracket width 1e-3, and Euler's 1/times_euler to the O(N⁻²) discretisation error at N = 8."""
    rod = column(8, times_euler * np.pi**2, Material(C_K=[1.0, stiffer, 1.0], C_Gamma=[1e4] * 3, rhoA=1.0,
                                                     rhoJ=[1e-3] * 3))
    mu_lin = buckling(rod, 1).load_factors[0]
    path = solve_static(rod, load_steps=1, branch_switch=False)
    assert path.status == "unstable" and path.n_steps == 1
    assert path.final.n_negative == {3.5: 2, 10.0: 4}[times_euler]  # several critical points jumped over
    (ev,) = path.events
    assert ev.kind == "bifurcation"
    assert ev.lower <= mu_lin <= ev.upper and ev.upper - ev.lower <= 1e-3 * ev.upper  # bracketed, to 1e-3
    assert abs(ev.load_factor / mu_lin - 1.0) < 1e-6  # regula falsi inside the bracket: the eigenvalue itself
    assert abs(ev.load_factor * times_euler - 1.0) < 0.015  # Euler π²EI/L², N = 8: 1.3 % discretisation error
    assert f"bracketed in [{ev.lower:.6g}, {ev.upper:.6g}]" in path.message


def test_one_load_step_past_two_critical_loads_switches_from_the_bracket_onto_the_elastica():
    """Issue 24: P = 1.5 P_E with EI₂ = 1.3 EI₁ in one load step passes both the weak- and the stiff-axis critical
    load; at the end of the step the eigenvalue nearest zero is the stiff axis's (1.3 − 1.5 vs 1 − 1.5), so
    switching from there went along the stiff mode, found its branch near 0.87 for 0.67 and gave up (final state
    straight, 2 negative eigenvalues). Switching from the bracket's lower state along its critical mode lands on
    the weak-axis branch and follows it to the target: the end rotation θ₀ meets the exact elastica
    P/P_E = (2K(k)/π)², k = sin(θ₀/2), at order 2 (4.3e-3, 1.0e-3, 2.5e-4 rad at N = 8, 16, 32)."""
    lam = 1.5
    m = brentq(lambda m: (2.0 * ellipk(m) / np.pi) ** 2 - lam, 1e-15, 0.999)
    theta0 = 2.0 * np.arcsin(np.sqrt(m))
    errs = []
    for n in (16, 32):
        rod = column(n, lam * np.pi**2, Material(C_K=[1.0, 1.3, 1.0], C_Gamma=[1e4] * 3, rhoA=1.0, rhoJ=[1e-3] * 3))
        path = solve_static(rod, load_steps=1)
        assert path.status == "ok" and path.final.n_negative == 0, path.message
        (ev,) = path.events
        assert ev.kind == "bifurcation" and ev.upper - ev.lower <= 1e-3 * ev.upper
        assert path.states[1].n_negative == 2  # the straight state at the end of the step: both critical loads passed
        first = next(s for s in path.states if s.branch == 1)
        assert abs(first.load_factor / ev.load_factor - 1.0) < 0.02  # next to the bracket (1 %: τ = 0.05), not 0.87
        rel = G.compose(G.inverse(rod.q_ref), path.final.q)  # rotation of each node from the straight reference
        theta = 2.0 * np.arccos(np.clip(np.abs(rel[:, 0]), 0.0, 1.0))
        x = G.translation(path.final.q)
        assert np.max(np.abs(x[:, 2])) < 1e-12 < abs(x[n // 2, 1])  # buckled about the weak axis only
        assert abs(theta[0] - theta[-1]) < 1e-9  # symmetric about mid-span
        errs.append(abs(theta[0] - theta0))
    assert errs[1] < 3e-4
    assert observed_order([16, 32], errs) < -1.9  # second order in 1/N


@pytest.mark.parametrize("EA", [1e3, 3e3])
def test_extensible_column_buckles_above_the_linear_value_by_its_axial_strain(EA):
    """An extensible (Kirchhoff, unshearable) column shortens before it buckles; linearised about that state the
    axial force acts with the lever of the shortened length, P(1 + ε₀), ε₀ = −P/EA (Reissner's rod), so the path's
    critical load satisfies μ(1 − μP/EA) = μ_lin, μ_lin the linear buckling factor about the reference
    (``modal.buckling``): measured to 4e-13 while μ/μ_lin − 1 = ε = 1.0e-2 (3.4e-3); docs/statics.md's frame."""
    P = 2.0 * np.pi**2
    mesh = RodMesh.uniform(1.0, 8)
    rod = CosseratRod(mesh=mesh, material=Material(C_K=[1.0, 2.0, 1.0], C_Gamma=[1e4, 1e4, EA], rhoA=1.0,
                                                   rhoJ=[1e-3] * 3),
                      q_ref=straight(G, mesh), kirchhoff=True,
                      supports=(Support("start", fix=("x", "y", "z", "rx")), Support("end", "roller", axis="x")),
                      loads=(NodalLoad(node="end", force=[-P, 0.0, 0.0]),))
    mu_lin = buckling(rod, 1).load_factors[0]
    (ev,) = solve_static(rod, load_steps=1, branch_switch=False).events
    eps = ev.load_factor * P / EA
    assert abs(ev.load_factor / mu_lin - 1.0 - eps) < 0.02 * eps  # the gap is the axial strain (to O(ε²))
    assert abs(ev.load_factor * (1.0 - eps) / mu_lin - 1.0) < 1e-9
    assert not ev.lower <= mu_lin <= ev.upper  # so the bracket (≤ 1e-3 wide, μ inside) excludes μ_lin


def test_post_buckling_path_converges_to_the_elastica_at_several_loads():
    errs = []
    for n in (16, 32):
        path = solve_static(column(n), method="arc-length", load_steps=8, load_factor=1.5)
        assert path.status == "ok", path.message
        states = [s for s in path.states if s.branch == 1 and s.load_factor > 1.02]
        assert len(states) >= 3  # several loads along the buckled branch
        e = []
        for s in states:
            d, c = elastica(s.load_factor)
            x = G.translation(s.q)
            e.append(max(abs(abs(x[n // 2, 1]) - d), abs(x[-1, 0] - c)))
        errs.append(max(e))
    assert errs[1] < 2e-3
    assert observed_order([16, 32], errs) < -1.8  # second order in 1/N (constant-strain edges)


def test_arc_length_passes_the_limit_point_of_a_snapping_arch_where_load_control_stops():
    n = 16
    mesh = RodMesh.uniform(1.0, n)
    q = arc(G, mesh, radius=3.0)
    x = G.translation(q)
    down = (x[0] + x[-1]) / 2 - x[n // 2]
    down /= np.linalg.norm(down)
    mat = Material(C_K=[100.0, 1.0, 100.0], C_Gamma=[1e5] * 3, rhoA=1.0, rhoJ=[1e-3] * 3)  # planar: stiff out of plane
    rod = CosseratRod(mesh=mesh, material=mat, q_ref=q, supports=(Support("start", "clamped"), Support("end", "clamped")),
                      loads=(NodalLoad(node=n // 4, force=list(80.0 * down)),))
    path = solve_static(rod, method="arc-length", arc_length=0.02, load_factor=0.3, max_steps=100)
    assert path.status == "ok", path.message
    mus = np.array([s.load_factor for s in path.states])
    top = int(np.argmax(np.diff(mus) < 0.0))  # the first state after which the load falls: the limit point
    assert 0 < top and mus[top + 1] < mus[top] and mus[top] < 0.2
    assert any(s.status == "unstable" for s in path.states)  # ... through unstable states, flagged as such
    assert [e.kind for e in path.events] == ["limit point", "limit point"]
    lc = solve_static(rod, method="newton", load_steps=10, load_factor=0.3)
    assert lc.status == "failed" and "load factor" in lc.message and "residual" in lc.message
    assert lc.final.load_factor < 0.3  # the last converged state is kept
    assert abs(lc.final.load_factor - mus[top]) < 2e-3  # two methods agree on the limit load (arc steps 0.02)


def test_stability_count_matches_dense_null_space_eigenvalues(rng):
    rod = column(8)
    path = solve_static(rod, load_steps=4, load_factor=3.0, branch_switch=False)  # past the 1st and 2nd modes
    eq = _Equations(rod, 0.0)
    for s in path.states:
        K, B = eq.tangent(s.q, s.lam, s.load_factor)
        Z = la.null_space(B.toarray())
        ev = np.linalg.eigvalsh(Z.T @ (0.5 * (K + K.T)).toarray() @ Z)
        assert s.n_negative == int(np.sum(ev < -1e-9 * np.abs(ev).max()))
    assert path.final.n_negative == 2


def test_rigid_motions_left_free_are_named():
    mesh = RodMesh.uniform(1.0, 4)
    free = CosseratRod(mesh=mesh, material=COLUMN_MAT, q_ref=straight(G, mesh), loads=(NodalLoad(node="end", force=[0, 0, 1.0]),))
    with pytest.raises(ValueError, match="translation along x and translation along y and translation along z"):
        solve_static(free)
    pins = CosseratRod(mesh=mesh, material=COLUMN_MAT, q_ref=straight(G, mesh),
                       supports=(Support("start", "pinned"), Support("end", "pinned")))
    with pytest.raises(ValueError, match=r"rotation about x through \(0.5, 0, 0\) is free"):
        solve_static(pins)


def test_bad_settings_are_one_line_value_errors():
    rod = column(4)
    for kw, msg in (({"method": "riks"}, "unknown static method"), ({"load_steps": 0}, "load_steps"),
                    ({"load_factor": -1.0}, "load_factor"), ({"arc_length": 0.0}, "arc_length")):
        with pytest.raises(ValueError, match=msg):
            solve_static(rod, **kw)


def test_newton_cost_is_linear_in_N_through_banded_structure():
    """Structure, not time: the KKT matrix is banded with a bandwidth independent of N (O(N) factorisation)."""
    widths = []
    for n in (16, 256):
        rod = column(n)
        K, B = _Equations(rod, 0.0).tangent(rod.q_ref, np.zeros(rod.n_constraints), 0.5)
        A, perm = stability.kkt_matrix(K, B)
        coo = A.tocsr()[perm][:, perm].tocoo()
        widths.append(int(np.max(np.abs(coo.row - coo.col))))
    assert widths[0] == widths[1] <= 24


def test_banded_ldl_inertia_matches_dense_eigenvalues(rng):
    """The compiled banded LDLᵀ (and its numpy reference) counts the negative eigenvalues of a symmetric band matrix."""
    n, bw = 60, 5
    A = np.zeros((n, n))
    for k in range(bw + 1):
        v = rng.normal(size=n - k)
        A += np.diag(v, -k) + (np.diag(v, k) if k else 0.0)
    ab = np.array([np.concatenate([np.diag(A, -k), np.zeros(k)]) for k in range(bw + 1)])
    d_ref = rod_compiled.band_ldl_pivots_numpy(ab)
    d = rod_compiled.band_ldl_pivots(ab)
    assert np.allclose(d, d_ref, rtol=1e-12)
    assert int(np.sum(d < 0)) == int(np.sum(np.linalg.eigvalsh(A) < 0))  # Sylvester's law of inertia
