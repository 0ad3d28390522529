"""Modes and linear buckling of frames (issue 13): ``rods.modal`` runs a ``Structure`` of rods and joints as one
rod. Independent truths: the fixed-base portal's sway buckling load from its characteristic equation (derived
in docs/modes.md, "Frames") and its out-of-plane cantilever load π²EI/4h², both with fitted order 2; the
lateral-torsional buckling load of a cantilever of two rods (a bent pre-buckling path); in-plane
frequencies against a dense Hermite (Euler–Bernoulli, Rayleigh rotary inertia) frame model with exact
inextensibility; the command line on the shipped portal case; a free frame names its rigid motions."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.linalg as la
from scipy.optimize import brentq
from scipy.special import jv

from lgbeam.cli.main import main
from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.frames import Joint, Structure
from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, modal, straight
from lgbeam.groups import S3R3

G = S3R3()
H, B = 4.0, 6.0  # column height, beam span (the shipped portal-frame case's geometry)
RHO_I = 0.01  # rotary inertia ρI of the sections (ρA = 1): radius of gyration 0.1 = h/40


def _rod(start, end, n, mat, **kw):
    a, b = np.asarray(start, float), np.asarray(end, float)
    mesh = RodMesh.uniform(float(np.linalg.norm(b - a)), n)
    return CosseratRod(mesh=mesh, material=mat, q_ref=straight(G, mesh, start=a, direction=b - a), **kw)


def _portal(n, *, P=0.0, EIc=1.0, EIb=1.0, supports=True):
    """Fixed-base portal in the x–z plane, rigid corners, Kirchhoff + inextensible members (Euler–Bernoulli without
    axial strain: the assumptions of slope-deflection), vertical loads P on both column tops."""
    def mat(EI):
        return Material.from_sectional(EA=1e4, GA=1e4, EI=EI, GJ=1.0, rhoA=1.0, rhoJ=(RHO_I, RHO_I, 2 * RHO_I))

    base = (Support("start", "clamped"),) if supports else ()
    top = (NodalLoad(node="end", force=[0.0, 0.0, -P]),) if P else ()
    kw = {"inextensible": True}
    rods = {"left": _rod((0, 0, 0), (0, 0, H), n, mat(EIc), supports=base, loads=top, **kw),
            "beam": _rod((0, 0, H), (B, 0, H), n, mat(EIb), **kw),
            "right": _rod((B, 0, 0), (B, 0, H), n, mat(EIc), supports=base, loads=top, **kw)}
    return Structure(rods=rods, joints=(Joint(("left", "end"), ("beam", "start")),
                                        Joint(("beam", "end"), ("right", "end"))))


def _in_plane(s, shapes):
    """True for the shapes that stay in the x–z plane (spatial U_y = 0, Ω_x = Ω_z = 0): the plane and the
    out-of-plane problems decouple exactly about the plane reference."""
    R = G.rotation(s.q_ref)
    om = np.einsum("nij,knj->kni", R, shapes[:, :, :3])
    U = np.einsum("nij,knj->kni", R, shapes[:, :, 3:])
    off = np.maximum(np.abs(U[:, :, 1]).max(1) / np.abs(U).max((1, 2)),
                     np.abs(om[:, :, [0, 2]]).max((1, 2)) / np.abs(om).max((1, 2)))
    return off < 1e-8


def sway_buckling_load(EIc, EIb, h=H, b=B):
    """Fixed bases, rigid corners, equal P on the column tops, beam without axial force (docs/modes.md):
    the sway mode has zero column shear, y = A(1 − cos kx), and the beam (end rotations θ, θ) is a rotational
    spring 6EI_b/b at each column top, so u = kh = h√(P/EI_c) solves u cos u + 6κ sin u = 0 on (π/2, π),
    κ = (EI_b/b)/(EI_c/h); κ → 0: u → π/2 (cantilever), κ → ∞: u → π (effective length h)."""
    kappa = (EIb / b) / (EIc / h)
    u = brentq(lambda x: x * np.cos(x) + 6.0 * kappa * np.sin(x), np.pi / 2, np.pi, xtol=1e-15, rtol=1e-15)
    return u**2 * EIc / h**2


def test_sway_characteristic_equation_has_the_textbook_limits():
    """Flexible beam: the cantilever π²EI/4h²; rigid beam: π²EI/h² (1 − 1/3κ + O(κ⁻²)); κ = 2/3: u = 2.5704."""
    assert sway_buckling_load(1.0, 1e-9) == pytest.approx(np.pi**2 / (4 * H**2), rel=1e-8)
    kappa = 1e6 * H / B
    assert sway_buckling_load(1.0, 1e6) == pytest.approx(np.pi**2 / H**2 * (1 - 1 / (3 * kappa)), rel=1e-10)
    assert np.sqrt(sway_buckling_load(1.0, 1.0)) * H == pytest.approx(2.5704315603, abs=1e-9)


def test_portal_buckling_converges_with_order_2_to_sway_and_cantilever_closed_forms():
    """Vertical loads P = 1 on both column tops (the columns carry P exactly: Δ = 0 on the inextensible path).
    Mode 1: out of plane, the beam translates and turns rigidly about its axis, so each column is a cantilever:
    μ = π²EI/4h². First in-plane mode: sway, μ from the characteristic equation (κ = 2/3)."""
    ns = np.array([4, 8, 16])
    exact_sway, exact_out = sway_buckling_load(1.0, 1.0), np.pi**2 / (4 * H**2)
    sway, out = [], []
    for n in ns:
        s = _portal(int(n), P=1.0)
        res = modal.buckling(s, 3)
        plane = _in_plane(s, res.shapes)
        assert not plane[0] and plane.any()
        out.append(res.load_factors[0])
        sway.append(res.load_factors[plane][0])
    e_sway, e_out = np.abs(np.array(sway) / exact_sway - 1), np.abs(np.array(out) / exact_out - 1)
    assert abs(observed_order(1.0 / ns, e_sway) - 2.0) < 0.1  # measured 2.03 (5.6e-2, 1.35e-2, 3.3e-3)
    assert abs(observed_order(1.0 / ns, e_out) - 2.0) < 0.1  # measured 2.00
    # the rod's O(Δs²): a pinned column has μ_N − 1 = π²/12N² (docs/modes.md), a cantilever (π/2)²/12N² = 8.0e-4
    # at N = 16 (measured 8.0e-4); the sway mode: measured 3.3e-3 = 0.85/N² (the columns' u = 2.57 against the
    # pinned column's π, plus the beam's bending), bound 1/N², the pinned column's π²/12 = 0.82 rounded up
    assert e_out[-1] < 1.05 * (np.pi / 2) ** 2 / (12 * 16**2)
    assert e_sway[-1] < 1.0 / 16**2
    richardson = sway[-1] + (sway[-1] - sway[-2]) / 3.0  # removes the N⁻² term: measured 4e-5
    assert abs(richardson / exact_sway - 1) < 1e-4


@pytest.mark.parametrize("EIb", [0.01, 100.0], ids=["flexible-beam", "stiff-beam"])
def test_portal_sway_buckling_follows_the_beam_stiffness(EIb):
    """κ = 6.7e-3 (nearly the cantilever π²EI/4h²) and κ = 67 (nearly π²EI/h², effective length h): the
    first in-plane mode within 1/N² of the characteristic equation at N = 16 (the bound of the test above)."""
    s = _portal(16, P=1.0, EIb=EIb)
    res = modal.buckling(s, 4)
    mu = res.load_factors[_in_plane(s, res.shapes)][0]
    assert abs(mu / sway_buckling_load(1.0, EIb) - 1) < 1.0 / 16**2  # measured 9.5e-4 (flexible), 3.2e-3 (stiff)


def _cantilever(n, *, inextensible=True):
    """A cantilever of length 1 along x made of two rods of 1/2 joined rigidly, weak axis EI₂ = 1 (d2 = e_y),
    strong EI₁ = 100, GJ = 0.5; a unit end load along d2 (bending about the strong axis d1, through the axis)."""
    mat = Material.from_sectional(EA=1e4, GA=1e4, EI=(100.0, 1.0), GJ=0.5, rhoA=1.0, rhoJ=0.01)
    kw = {"inextensible": inextensible}
    a = _rod((0, 0, 0), (0.5, 0, 0), n, mat, supports=(Support("start", "clamped"),), **kw)
    qb = straight(G, RodMesh.uniform(0.5, n), start=(0.5, 0, 0), direction=(1, 0, 0))
    d2 = G.rotation(qb[-1])[:, 1]
    b = _rod((0.5, 0, 0), (1, 0, 0), n, mat, loads=(NodalLoad(node="end", force=d2),), **kw)
    return Structure(rods={"a": a, "b": b}, joints=(Joint(("a", "end"), ("b", "start")),))


def test_cantilever_of_two_rods_buckles_laterally_at_the_classical_load():
    """Lateral-torsional buckling of a cantilever under an end load at the centroid (pre-buckling deformation
    neglected): the twist obeys GJφ'' + P²s²/EI₂ φ = 0 (s from the free end), φ = √s J₋₁/₄(Ps²/2√(EI₂GJ)),
    φ'(0) = 0, φ(L) = 0, so P_cr = 2j √(EI₂GJ)/L² with j the first zero of J₋₁/₄ (2j = 4.0126; Timoshenko & Gere
    1961, ch. 6: 4.013). The load path bends the rods (Δ ≠ 0): the initial-stress K_G holds; the old
    ∂K_int/∂q[Δ] (with the material part's change, EA·rotations) gave spurious loads."""
    j = brentq(lambda x: jv(-0.25, x), 1.0, 3.0, xtol=1e-15)
    exact = 2.0 * j * np.sqrt(1.0 * 0.5)
    ns = np.array([4, 8, 16])
    mu = np.array([modal.buckling(_cantilever(int(n)), 1).load_factors[0] for n in ns])
    err = np.abs(mu / exact - 1)
    assert abs(observed_order(1.0 / ns, err) - 2.0) < 0.05  # measured 2.00 (1.1e-2, 2.8e-3, 7.1e-4)
    assert err[-1] < 1e-3
    assert abs((mu[-1] + (mu[-1] - mu[-2]) / 3) / exact - 1) < 1e-5  # Richardson: measured 2.3e-7
    # the axial stiffness does not enter: an extensible (Kirchhoff) cantilever gives the same load (measured 1e-11)
    extensible = modal.buckling(_cantilever(16, inextensible=False), 1).load_factors[0]
    assert abs(extensible / mu[-1] - 1) < 1e-6


def hermite_frame_frequencies(ne, EIc=1.0, EIb=1.0, rhoA=1.0, rhoI=RHO_I):
    """In-plane ω of the portal by a dense plane-frame model (the independent check): per element Hermite cubic
    bending with consistent mass and Rayleigh rotary inertia ρI/30L[36, 3L, …] (Przemieniecki 1968, §11.3),
    linear axial mass ρAL/6[2, 1; 1, 2], inextensibility (u_j − u_i)·e = 0 exactly (null space of the rows),
    clamped bases; dofs (u_x, u_z, θ) per node, θ positive from e_x towards e_z, shared at the corners."""
    X = np.concatenate([np.stack([np.zeros(ne + 1), np.linspace(0, H, ne + 1)], 1),
                        np.stack([np.linspace(0, B, ne + 1)[1:], np.full(ne, H)], 1),
                        np.stack([np.full(ne, B), np.linspace(H, 0, ne + 1)[1:]], 1)])
    nd = 3 * len(X)
    K, M, C = np.zeros((nd, nd)), np.zeros((nd, nd)), np.zeros((3 * ne, nd))
    for k in range(3 * ne):
        EI = EIb if ne <= k < 2 * ne else EIc
        d = X[k + 1] - X[k]
        L = float(np.linalg.norm(d))
        c, s = d / L
        T = np.zeros((4, 6))  # (w_i, θ_i, w_j, θ_j), w along n = (−s, c)
        T[0, :2], T[1, 2], T[2, 3:5], T[3, 5] = (-s, c), 1.0, (-s, c), 1.0
        Ta = np.zeros((2, 6))
        Ta[0, :2], Ta[1, 3:5] = (c, s), (c, s)
        kb = EI / L**3 * np.array([[12, 6 * L, -12, 6 * L], [6 * L, 4 * L**2, -6 * L, 2 * L**2],
                                   [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L**2, -6 * L, 4 * L**2]])
        mb = rhoA * L / 420 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L**2, 13 * L, -3 * L**2],
                                        [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L**2, -22 * L, 4 * L**2]])
        mr = rhoI / (30 * L) * np.array([[36, 3 * L, -36, 3 * L], [3 * L, 4 * L**2, -3 * L, -L**2],
                                         [-36, -3 * L, 36, -3 * L], [3 * L, -L**2, -3 * L, 4 * L**2]])
        dofs = np.r_[3 * k:3 * k + 6]
        K[np.ix_(dofs, dofs)] += T.T @ kb @ T
        M[np.ix_(dofs, dofs)] += T.T @ (mb + mr) @ T + rhoA * L / 6 * Ta.T @ np.array([[2, 1], [1, 2]]) @ Ta
        C[k, dofs] = (-c, -s, 0.0, c, s, 0.0)
    free = np.r_[3:nd - 3]
    Z = la.null_space(C[:, free])
    Kf, Mf = K[np.ix_(free, free)], M[np.ix_(free, free)]
    return np.sqrt(la.eigh(Z.T @ Kf @ Z, Z.T @ Mf @ Z, eigvals_only=True))


def test_portal_in_plane_frequencies_converge_with_order_2_to_a_hermite_frame_model():
    """The first three in-plane ω of the portal (EI = ρA = 1, ρI = 0.01) against the dense Hermite model."""
    ref = hermite_frame_frequencies(32)[:3]
    # the reference converges as h⁴ (Hermite): 16 and 32 elements agree to 8e-6, 32 and 64 to 5e-7 (measured)
    assert np.abs(hermite_frame_frequencies(16)[:3] / ref - 1).max() < 1e-5
    ns, w = np.array([8, 16, 32]), []
    for n in ns:
        s = _portal(int(n))
        md = modal.modes(s, 8)
        w.append(md.omega[_in_plane(s, md.shapes)][:3])
    err = np.abs(np.array(w) / ref - 1)
    for j in range(3):
        assert abs(observed_order(1.0 / ns, err[:, j]) - 2.0) < 0.1  # measured 2.01, 2.02, 2.04
    # N = 32: measured 3.9e-4, 1.1e-3, 1.2e-3 (the rod's O(Δs²)); one Richardson step removes the N⁻² term:
    # measured 1.4e-6, 8.3e-6, 1.7e-5, the size of the reference's own error (≤ 8e-6) and the next order
    richardson = w[-1] + (w[-1] - w[-2]) / 3.0
    assert np.abs(richardson / ref - 1).max() < 5e-5


def test_a_free_frame_names_its_six_rigid_motions():
    s = _portal(4, supports=False)
    for analysis in (lambda: modal.modes(s, 2), lambda: modal.buckling(_portal(4, P=1.0, supports=False), 1)):
        with pytest.raises(ValueError, match="translation along x and translation along y") as err:
            analysis()
        assert "rotation about z through" in str(err.value) and "are free" in str(err.value)


def _rows(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


VERTICAL = 'loads.nodal=[{rod="left",node="end",force=[0.0,0.0,-1e6]},{rod="right",node="end",force=[0.0,0.0,-1e6]}]'


def test_modes_command_on_the_portal_frame_case(tmp_path, capsys):
    """`lgbeam modes portal-frame`: modes.csv and the .vtp series with mode_displacement; --buckling under
    1 MN on each column top gives the out-of-plane cantilever π²EI/4h² (IPE-300-like EI = 1.76e7 N m²), and
    --about static at that load lies above the chord 1 − μ/μ_cr (ω₁² is concave in μ: a minimum of Rayleigh
    quotients linear in μ, as K_t = K₀ + μK_G exactly on this axial path)."""
    import pyvista as pv

    from lgbeam.io.vtk import read_pvd

    rc = main(["modes", "portal-frame", "--n", "3", "--out", str(tmp_path / "m")])
    assert rc == 0, capsys.readouterr().err
    assert "frame of 3 rods (left, beam, right)" in capsys.readouterr().out
    w = np.array([float(r["omega_rad_s"]) for r in _rows(tmp_path / "m" / "modes.csv")])
    assert w.size == 3 and w[0] > 0 and np.all(np.diff(w) >= 0)
    frames = read_pvd(tmp_path / "m" / "paraview" / "modes.pvd")
    assert [t for t, _ in frames] == [0.0, 1.0, 2.0, 3.0]
    d = [np.linalg.norm(pv.read(p).point_data["mode_displacement"], axis=1).max() for _, p in frames]
    assert d[0] == 0.0 and 0.0 < min(d[1:]) and max(d[1:]) <= 0.05 * B * (1 + 1e-12)  # --amplitude 0.05 of the size

    rc = main(["modes", "portal-frame", "--buckling", "--n", "2", "--set", VERTICAL, "--out", str(tmp_path / "b")])
    assert rc == 0, capsys.readouterr().err
    row = _rows(tmp_path / "b" / "modes.csv")[0]
    mu, est, mu_mesh = (float(row[k]) for k in ("load_factor", "load_factor_error", "load_factor_mesh"))
    exact = np.pi**2 * 1.76e7 / (4 * H**2) / 1e6
    assert abs(mu_mesh / exact - 1) < 1.05 * (np.pi / 2) ** 2 / (12 * 16**2)  # N = 16: (π/2)²/12N² = 8.0e-4
    assert abs(mu - exact) <= est < 1e-5 * exact  # analysis.richardson (8/16/32): measured 2.714141, ± 8.7e-7
    rc = main(["modes", "portal-frame", "--about", "static", "--n", "1", "--set", VERTICAL, "--out", str(tmp_path / "s")])
    assert rc == 0, capsys.readouterr().err
    ratio = float(_rows(tmp_path / "s" / "modes.csv")[0]["ratio"])
    assert 1.0 - 1.0 / mu_mesh - 1e-8 <= ratio < 1.0  # measured 0.660 against the chord 0.632 (the mesh's ratio)


@pytest.mark.parametrize("argv, message", [
    (["--euler-bernoulli"], "are for rod cases"),
    (["--set", "supports=[]"], "translation along x and translation along y"),
    (["--buckling", "--set", "loads.nodal=[]"], "needs loads"),
    (["--n", "0"], "--n must be a positive"),
])
def test_bad_frame_input_is_one_line_exit_2(tmp_path, capsys, argv, message):
    rc = main(["modes", "portal-frame", *argv, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and message in err, err


MECHANISM_CASE = """kind = "frame"
name = "braced-column"
[model]
n_elements = 4
constraints = "kirchhoff"
[model.material]
EA = 2e6
GA = [1e6, 1e6]
EI = [2e3, 2e3]
GJ = 1.5e3
rhoA = 2.0
rhoJ = [1e-2, 1e-2, 2e-2]
[[model.rods]]
name = "column"
start = [1.0, 0.0, 0.0]
end = [1.0, 0.0, 3.0]
[[model.rods]]
name = "brace"
start = [0.0, 0.0, 0.0]
end = [1.0, 0.0, 3.0]
[[model.joints]]
a = ["column", "end"]
b = ["brace", "end"]
kind = "{kind}"
{axis}
[[supports]]
rod = "column"
node = "start"
kind = "clamped"
[[supports]]
rod = "brace"
node = "start"
kind = "pinned"
[time]
t_end = 1.0
"""


def test_a_brace_between_a_pin_and_a_ball_is_named_a_mechanism(tmp_path, capsys):
    """A brace pinned at its foot and ball-jointed at its head can spin about its own axis: the first mode has
    ω² ≈ 0 and is named a mechanism (not 'unstable'); a hinge about the face normal removes it (ω₁ > 0)."""
    ball = tmp_path / "ball.toml"
    ball.write_text(MECHANISM_CASE.format(kind="ball", axis=""))
    assert main(["modes", str(ball), "--n", "2", "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "mode 1: ω² ≈ 0" in out and "mechanism" in out and "unstable" not in out
    w2 = [float(r["omega2"]) for r in _rows(tmp_path / "b" / "modes.csv")]
    assert abs(w2[0]) <= 1e-9 * abs(w2[1])
    hinge = tmp_path / "hinge.toml"
    hinge.write_text(MECHANISM_CASE.format(kind="hinge", axis='axis = "y"'))
    assert main(["modes", str(hinge), "--n", "2", "--out", str(tmp_path / "h")]) == 0
    assert "mechanism" not in capsys.readouterr().out
    w2 = [float(r["omega2"]) for r in _rows(tmp_path / "h" / "modes.csv")]
    assert w2[0] > 1.0  # the column's first bending mode: ω₁² of order EI/(ρA h⁴) ≈ 12
