"""Ground motion of frames (issue 32 item 2, ``[[loads.ground]]``, ``frames.ground``, ``io.records``). Independent
truths: the exact integrals of a linear acceleration record (v = t + t², x = t²/2 + t³/3); a tip-mass column under
a harmonic base acceleration against the closed-form response of the single-degree-of-freedom oscillator from rest
(transient and steady state) and its base shear −k u (modal damping is not carried by the supports);
a record on the same column against OpenSeesPy (UniformExcitation, elasticBeamColumn, Rayleigh at its own modes,
Newmark average acceleration); records read as untrusted input (one-line refusals); the quake case's outputs."""

from __future__ import annotations

import csv
import dataclasses
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from test_spectrum import EI, M_TIP, L, tip_mass_column

from lgbeam.apps import load_case
from lgbeam.apps.frame import problem
from lgbeam.cli.main import main
from lgbeam.discretisations.frames.ground import Component
from lgbeam.discretisations.rods import modal
from lgbeam.integrators.controllers import ConstantStep
from lgbeam.io import records
from lgbeam.solve import integrate

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "cases" / "records" / "synthetic-kt-0.3g.at2"


def _ground(direction="[0.0, 1.0, 0.0]", record="a.csv", units="m/s2", scale=1.0):
    return f"""
[[loads.ground]]
direction = {direction}
record = "{record}"
units = "{units}"
scale = {scale}
"""


# ------------------------------------------------------------------------------------------------ records
def test_at2_and_two_column_records_read(tmp_path):
    (tmp_path / "r.at2").write_text("PEER NGA\nsome event\nACCELERATION IN G\nNPTS=   5, DT=   .0050 SEC\n"
                                    "  .1 .2 -.3\n  .4  5E-1\n")
    t, a = records.read(records.resolve("r.at2", tmp_path))
    assert t == pytest.approx([0, 0.005, 0.01, 0.015, 0.02]) and a == pytest.approx([0.1, 0.2, -0.3, 0.4, 0.5])
    (tmp_path / "r.csv").write_text("time, accel\n# comment\n0.0, 1\n0.1, 2 # trailing\n0.3 -1\n")
    t, a = records.read(records.resolve("r.csv", tmp_path))
    assert t == pytest.approx([0, 0.1, 0.3]) and a == pytest.approx([1, 2, -1])


@pytest.mark.parametrize(("name", "text", "message"), [
    ("n.at2", "a\nb\nc\nNPTS= 4, DT= 0.01 SEC\n1 2 3\n", "NPTS = 4 but the file holds 3"),
    ("h.at2", "a\nb\nc\nd\n1 2 3\n", "no 'NPTS= n, DT= dt' line"),
    ("d.at2", "a\nb\nc\nNPTS= 3, DT= -0.01 SEC\n1 2 3\n", "DT a positive number"),
    ("x.at2", "a\nb\nc\nNPTS= 3, DT= 0.01 SEC\n1 nan 3\n", "non-finite value"),
    ("w.at2", "a\nb\nc\nNPTS= 3, DT= 0.01 SEC\n1 two 3\n", "'two' after the header is not a number"),
    ("c.csv", "0 1\n0.1 2 3\n", "line 2: 3 values"),
    ("m.csv", "0 1\n0.2 2\n0.1 3\n", "increase strictly"),
    ("e.csv", "t a\n", "holds no samples"),
])
def test_malformed_records_refused_in_one_line(tmp_path, name, text, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        records.read(records.resolve(name, tmp_path))
    assert "\n" not in str(err.value)


def test_record_paths_stay_inside_the_case_folder(tmp_path, monkeypatch):
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    (tmp_path / "outside.csv").write_text("0 1\n1 1\n")
    for bad, msg in (("../outside.csv", "no absolute path, no '..'"), (str(tmp_path / "outside.csv"), "no absolute"),
                     ("missing.csv", "no file")):
        with pytest.raises(ValueError, match=msg):
            records.resolve(bad, case_dir)
    os.symlink(tmp_path / "outside.csv", case_dir / "link.csv")
    with pytest.raises(ValueError, match="leads outside the case file's folder"):
        records.resolve("link.csv", case_dir)
    (case_dir / "big.csv").write_text("0 1\n1 1\n" * 10)
    monkeypatch.setattr(records, "MAX_BYTES", 50)
    with pytest.raises(ValueError, match="more than 50 allowed"):
        records.resolve("big.csv", case_dir)


@pytest.mark.parametrize(("analysis", "direction", "message"), [
    ("dynamic", "[1.0, 1.0, 0.0]", r"loads\.ground\[0\].*unit vector"),
    ("static", "[1.0, 0.0, 0.0]", "loads.ground .*needs a dynamic run"),
])
def test_bad_ground_table_exits_2_in_one_line(tmp_path, capsys, analysis, direction, message):
    (tmp_path / "a.csv").write_text("0 0\n1 1\n")
    path = tip_mass_column(tmp_path / "col.toml", n=2, extra=f"[analysis]\nkind = \"{analysis}\"\n"
                           + _ground(direction=direction))
    assert main(["run", str(path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert re.search(message, err) and "\n" not in err


# ------------------------------------------------------------------------------------------------ the ground's motion
def test_ground_velocity_and_displacement_exact_for_a_linear_record():
    t = np.array([0.0, 0.3, 0.35, 1.0, 2.2])
    c = Component(np.array([0.0, 0.0, 1.0]), t, 1.0 + 2.0 * t)
    s = np.linspace(0.0, 2.2, 23)
    a, v, x = c.history(s)
    assert a == pytest.approx(1 + 2 * s, rel=1e-14)
    assert v == pytest.approx(s + s**2, rel=1e-13, abs=1e-15)
    assert x == pytest.approx(s**2 / 2 + s**3 / 3, rel=1e-13, abs=1e-15)
    a3, v3, x3 = c.history(np.array([3.2]))  # after the record: no acceleration, the last velocity kept
    assert a3[0] == 0.0 and v3[0] == pytest.approx(2.2 + 2.2**2) and x3[0] == pytest.approx(
        2.2**2 / 2 + 2.2**3 / 3 + (2.2 + 2.2**2) * 1.0)


def _sdof_from_rest(t, w, z, A, W):
    """u'' + 2ζω u' + ω² u = −A sin(Ωt), u(0) = u'(0) = 0 (Chopra §3.2, the full solution)."""
    d = (w**2 - W**2) ** 2 + (2 * z * w * W) ** 2
    C, D = -A * (w**2 - W**2) / d, A * 2 * z * w * W / d
    wd = w * np.sqrt(1 - z**2)
    E = -D
    G = (z * w * E - C * W) / wd
    return C * np.sin(W * t) + D * np.cos(W * t) + np.exp(-z * w * t) * (E * np.cos(wd * t) + G * np.sin(wd * t))


def test_harmonic_base_acceleration_matches_the_closed_form(tmp_path):
    """Tip-mass column (its own mass 3e-4 of the tip's), modal 5 % on modes 1-2, a_g = A sin(Ωt) along the weak
    axis y from rest, Ω = 0.8 ω₁: the relative top displacement against the oscillator's full solution; base shear
    against the inertia force of the tip mass −m (ü + a_g)."""
    w1 = np.sqrt(3 * EI / (M_TIP * L**3))
    W, A, z = 0.8 * w1, 0.1, 0.05
    tr = np.linspace(0.0, 3.2, 1601)
    np.savetxt(tmp_path / "a.csv", np.column_stack([tr, A * np.sin(W * tr)]))
    path = tip_mass_column(tmp_path / "col.toml", n=4, extra="[damping]\nkind = \"modal\"\nratio = 0.05\nn_modes = 2\n"
                           + _ground())
    case, _ = load_case(str(path), [])
    prob = problem(case)
    w = modal.modes(prob.system, 1).omega[0]
    T1 = 2 * np.pi / w
    sol = integrate(prob.system, "gen-alpha", prob.y0, (0.0, 2 * T1), controller=ConstantStep(T1 / 200),
                    diagnostics=False)
    t = np.asarray(sol.t)
    u = prob.system.G.translation(np.asarray(sol.q))[:, -1, 1]
    exact = _sdof_from_rest(t, w, z, A, W)
    assert np.max(np.abs(u - exact)) < 2e-3 * np.max(np.abs(exact))  # measured 5.0e-4
    # base shear (the supports' force on the column) = −k u = −m ω² u: the column's elastic force; the modal
    # damping force M Φ c Φᵀ M v acts on the masses directly (a dashpot to the moving base), not through the supports
    shear = prob.arrays(sol)["base_shear"][:, 1]
    assert np.max(np.abs(shear + M_TIP * w**2 * exact)) < 2e-3 * np.max(np.abs(shear))  # measured 6.2e-4


# ------------------------------------------------------------------------------------------------ against OpenSeesPy
def _opensees_column(n, dt, acc, n_steps, zeta):
    """The tip-mass column in OpenSeesPy (3-D, elasticBeamColumn, lumped nodal masses as lgbeam's), Rayleigh ζ at
    its own first two modes, UniformExcitation along y, Newmark average acceleration: peak |u_y| at the top."""
    ops = pytest.importorskip("openseespy.opensees", reason="OpenSeesPy is an optional peer (pip install openseespy)")
    ops.wipe()
    ops.model("basic", "-ndm", 3, "-ndf", 6)
    h = L / n
    for i in range(n + 1):
        ops.node(i + 1, 0.0, 0.0, i * h)
        m = 0.5 * h * (1.0 if 0 < i < n else 0.5) + (M_TIP if i == n else 0.0)
        rot = 1e-4 * h * (1.0 if 0 < i < n else 0.5)
        ops.mass(i + 1, m, m, m, rot, rot, 2 * rot)
    ops.fix(1, 1, 1, 1, 1, 1, 1)
    ops.geomTransf("Linear", 1, 1.0, 0.0, 0.0)  # local y = global x: Iz bends along y (EI), Iy along x (4 EI)
    E = 1.0
    for i in range(n):  # A, E, G, J, Iy, Iz in units where E = G = 1
        ops.element("elasticBeamColumn", i + 1, i + 1, i + 2, 1e10, E, 1.0, 1e6, 4 * EI, EI, 1)
    lam = np.array(ops.eigen("-fullGenLapack", 2))
    wi, wj = np.sqrt(lam)
    a0, a1 = 2 * zeta * wi * wj / (wi + wj), 2 * zeta / (wi + wj)
    ops.rayleigh(a0, 0.0, 0.0, a1)
    ops.timeSeries("Path", 1, "-dt", dt, "-values", *acc.tolist())
    ops.pattern("UniformExcitation", 1, 2, "-accel", 1)
    ops.constraints("Plain")
    ops.numberer("Plain")
    ops.system("BandGeneral")
    ops.test("NormDispIncr", 1e-12, 20)
    ops.algorithm("Linear")
    ops.integrator("Newmark", 0.5, 0.25)
    ops.analysis("Transient")
    peak = 0.0
    for _ in range(n_steps):
        assert ops.analyze(1, dt) == 0
        peak = max(peak, abs(ops.nodeDisp(n + 1, 2)))
    return peak, np.sqrt(lam) / (2 * np.pi)


def test_record_on_a_column_against_opensees(tmp_path):
    """The shipped record's first 4 s along y, Rayleigh 5 % at modes 1-2 (ω₁ and ≈ 2ω₁), both at dt = 10 ms with
    average acceleration: peak relative top displacement within 2 % of OpenSeesPy's."""
    pytest.importorskip("openseespy.opensees", reason="OpenSeesPy is an optional peer (pip install openseespy)")
    n, t_end = 8, 4.0
    (tmp_path / "records").mkdir()
    shutil.copy(RECORD, tmp_path / "records" / RECORD.name)
    _, a_g = records.read(RECORD)
    steps = round(t_end / 0.01)
    path = tip_mass_column(tmp_path / "col.toml", n=n, extra="[damping]\nkind = \"rayleigh\"\nratio = 0.05\n"
                           "modes = [1, 2]\n" + _ground(record=f"records/{RECORD.name}", units="g"))
    case, _ = load_case(str(path), [])
    prob = problem(case)
    sol = integrate(prob.system, "gen-alpha", prob.y0, (0.0, t_end), controller=ConstantStep(0.01),
                    diagnostics=False)
    ours = float(np.max(np.abs(prob.system.G.translation(np.asarray(sol.q))[:, -1, 1])))
    theirs, f_ops = _opensees_column(n, 0.01, 9.80665 * a_g, steps, 0.05)
    assert prob.system.viscous.omega[:2] / (2 * np.pi) == pytest.approx(f_ops, rel=5e-3)
    assert ours == pytest.approx(theirs, rel=5e-3)  # the issue asks 2 %; measured 50.41 vs 50.44 mm (-0.07 %)


@pytest.mark.slow
def test_quake_case_against_opensees():
    """steel-frame-2storey-quake as shipped (8 elements per member, 12 s) against the same frame in OpenSeesPy
    (tools/quake_vs_opensees.py): peak relative roof displacement within 2 % (measured +0.68 %, f₁ +0.78 %)."""
    pytest.importorskip("openseespy.opensees", reason="OpenSeesPy is an optional peer (pip install openseespy)")
    import importlib.util

    spec = importlib.util.spec_from_file_location("quake_vs_opensees", ROOT / "tools" / "quake_vs_opensees.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    ours, f_ours, _, fr, r1 = tool.lgbeam_peak(8, 12.0)
    theirs, f_ops, _ = tool.opensees_peak(fr, r1, 12.0)
    assert f_ours == pytest.approx(f_ops, rel=1e-2)
    assert ours == pytest.approx(theirs, rel=0.02)


# ------------------------------------------------------------------------------------------------ the quake case
def test_quake_case_writes_relative_motion_ground_columns_and_envelopes(tmp_path, monkeypatch):
    """The case through ``frame.run`` (what ``lgbeam run`` calls; the two figures, not checked here, stubbed)."""
    from lgbeam.apps import frame

    monkeypatch.setattr(frame, "plot_diagrams", lambda *a, **k: {"view": None, "panels": [], "labels": []})
    monkeypatch.setattr(frame, "plot_deflected", lambda *a, **k: None)
    case, _ = load_case("steel-frame-2storey-quake", ["time.t_end=0.2", "model.n_elements=2", "output.vtk=false"])
    out = tmp_path / "run"
    out.mkdir()
    summary = frame.run(case, out)
    assert summary.status == "ok"
    printed = "\n".join(summary.extra["lines"])
    assert "peak relative displacement" in printed and "Rayleigh" in printed
    assert set(summary.extra["ground_motion"]["nodes"]["r1"]) == {"peak_displacement_m", "peak_displacement_xyz_m",
                                                                   "drift"}
    assert (out / "records" / RECORD.name).read_bytes() == RECORD.read_bytes()  # beside case.toml: resumable
    with open(out / "diagnostics.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    t = np.array([float(r["t"]) for r in rows])
    gx = np.array([float(r["ground_x_x"]) for r in rows])
    assert gx == pytest.approx(9.80665 * Component(np.array([1.0, 0, 0]), *records.read(RECORD)).history(t)[2],
                               rel=1e-9, abs=1e-15)
    assert {"base_shear_x", "base_shear_y", "ground_v_z", "energy"} <= set(rows[0])
    with np.load(out / "solution.npz") as z:
        r1 = list(z["node_names"]).index("r1")
        peak = np.max(np.linalg.norm(z["positions"][:, z["node_ids"][r1]] - z["positions"][0, z["node_ids"][r1]], axis=1))
        assert summary.extra["ground_motion"]["nodes"]["r1"]["peak_displacement_m"] == pytest.approx(peak, rel=1e-12)
        assert z["base_shear"][-1] == pytest.approx(z["reactions"][-1, :, 3:].sum(0), rel=1e-12)
        assert z["ground_displacement"].shape == (len(z["t"]), 3)
    from lgbeam.apps._frame_diagrams import read_member_forces

    state, hi, lo = (read_member_forces(out / "member_forces.csv", w) for w in ("state", "max", "min"))
    for m in state:
        assert np.all(hi[m]["M_y"] >= state[m]["M_y"] - 1e-9) and np.all(lo[m]["M_y"] <= state[m]["M_y"] + 1e-9)
    assert max(np.max(np.abs(hi[m]["M_y"] - lo[m]["M_y"])) for m in state) > 0.0


def test_effective_load_tangent_against_central_differences(tmp_path):
    """∂g/∂w of the ground's term (the −blocks added to K) against central differences of g_ground(q ∘ exp(εδ))
    at a turned configuration (the effective load is spatial: its body components turn with the node)."""
    np.savetxt(tmp_path / "a.csv", np.array([[0.0, 3.0], [1.0, -2.0]]))
    path = tip_mass_column(tmp_path / "col.toml", n=3, extra=_ground(direction="[0.6, 0.0, 0.8]"))
    fr = problem(load_case(str(path), [])[0]).system
    G, rng, t = fr.G, np.random.default_rng(3), 0.4
    q = G.compose(fr._q(fr.q_ref), G.exp(0.3 * rng.standard_normal((fr.n_nodes, 6))))
    d = rng.standard_normal((fr.n_nodes, 6))
    eps = 1e-6

    def g(qq):
        return fr.ground.force(t, G.rotation(qq)).reshape(-1, 6)

    fd = (g(G.compose(q, G.exp(eps * d))) - g(G.compose(q, G.exp(-eps * d)))) / (2 * eps)
    K = -fr.ground.blocks(t, G.rotation(q))
    assert np.einsum("nij,nj->ni", K, d) == pytest.approx(fd, rel=1e-7, abs=1e-7 * np.abs(fd).max())
    full = fr.stiffness(t, q.ravel(), np.zeros(fr.n_dofs)) - dataclasses.replace(fr, ground=None).stiffness(
        t, q.ravel(), np.zeros(fr.n_dofs))
    assert np.abs(full.toarray() - sp.block_diag(list(K)).toarray()).max() < 1e-9 * np.abs(K).max()


def test_effective_load_masses_are_the_lumped_masses_under_the_consistent_mass():
    """The effective loads −m_i a_g use each node's translational mass: with the corotational element's consistent
    mass the row sums (ρAℓ/2 per element end, as the Cosserat rod's lumped mass), not its diagonal (13/35 of an
    element's mass); summed, the mass the participation factors count (r_xᵀ M r_x)."""
    from lgbeam.apps._frame_ground import nodal_masses
    from lgbeam.apps.frame import build

    got = {}
    for el in ("cosserat", "corotational"):
        st = build(load_case("steel-frame-2storey-quake", [f"model.element={el}"])[0])
        got[el] = nodal_masses(st)
        r = np.zeros((st.n_nodes, 6))
        r[:, 3:] = st.G.rotation(st.q_ref)[:, 0, :]          # r_x = (0, R_iᵀ e_x)
        assert got[el].sum() == pytest.approx(r.ravel() @ (st.mass(st.q_ref) @ r.ravel()), rel=1e-12)
    assert got["corotational"] == pytest.approx(got["cosserat"], rel=1e-12, abs=1e-9)
