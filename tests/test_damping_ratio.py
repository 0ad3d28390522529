"""Damping by ratio in frame dynamics (issue 32, ``[damping]``, ``rods.viscous``). Independent truths: the
logarithmic decrement of the free vibration of a tip-mass column after a load pulse (modal 5 %: ζ = 0.05 ± 0.003);
the eigenvalues λ = −ζω ± iω√(1 − ζ²) of the damped linearised system M w'' + C w' + K₀ w = 0 on ker B (dense
quadratic eigenproblem): Rayleigh ζ exact at both chosen modes and a₀/(2ω) + a₁ω/2 elsewhere, modal ζ on the
damped modes and 0 above them; the fused Newton residual equals the protocol's g with the damping force; bad keys
refused in one line naming the key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as la
from test_spectrum import M_TIP, L, tip_mass_column

from lgbeam.apps import load_case
from lgbeam.apps.frame import build, problem
from lgbeam.cli.main import main
from lgbeam.discretisations.rods import modal, stability, viscous
from lgbeam.integrators.controllers import ConstantStep
from lgbeam.solve import integrate


def _frame(tmp_path: Path, n: int = 4, extra: str = "", element: str | None = None):
    """The tip-mass column (the default element, or ``element``)."""
    sets = [] if element is None else [f"model.element={element}"]
    case, _ = load_case(str(tip_mass_column(tmp_path / "col.toml", n=n, extra=extra)), sets)
    return build(case)


# The ratio checks compare C's ratios with a dense eigen-solve of the damped pencil to 1e-7; they run on the Cosserat
# rod (lumped mass), where that solve is good to ~1e-8. With the corotational element's consistent mass (a 5 t tip
# mass beside rotary inertias of 1e-4 kg m) two dense solves of the same undamped pencil already differ by 6e-7 in
# ω₁ (round-off of an ill-conditioned M), so they would test the reference solve, not C.
ROD = "cosserat"


def _damped_ratios(fr, C):
    """(ω, ζ) of the damped linear system on ker B, ascending ω (each conjugate pair once)."""
    q = fr.q_ref
    B = modal._constraints(fr, q, 0.0)
    Z = stability.null_basis(B, fr.n_dofs)
    K = Z.T @ modal.tangent(fr, q, None, 0.0).toarray() @ Z
    M = Z.T @ fr.mass(q).toarray() @ Z
    Cz = Z.T @ C @ Z
    n = K.shape[0]
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-K, -Cz]])
    Bm = np.block([[np.eye(n), np.zeros((n, n))], [np.zeros((n, n)), M]])
    lam = la.eigvals(A, Bm)
    lam = lam[lam.imag > 0]
    w = np.abs(lam)
    order = np.argsort(w)
    return w[order], (-lam.real / np.abs(lam))[order]


def test_rayleigh_ratio_exact_at_the_two_modes(tmp_path):
    fr = _frame(tmp_path, element=ROD)
    d = viscous.build(fr, {"kind": "rayleigh", "ratio": [0.05, 0.02], "modes": [1, 3]})
    w, z = _damped_ratios(fr, d.matrix().toarray())
    w0 = modal.modes(fr, 6).omega
    # to the precision of the modes' ω (ARPACK against the dense eigen-solve here: ~1e-8 relative)
    assert z[0] == pytest.approx(0.05, rel=1e-7) and z[2] == pytest.approx(0.02, rel=1e-7)
    assert w[:6] == pytest.approx(w0, rel=1e-7)  # |λ| = ω: λ = −ζω ± iω√(1 − ζ²)
    assert z[:6] == pytest.approx(d.a0 / (2 * w0) + d.a1 * w0 / 2, rel=1e-7)  # ζ(ω) of C = a₀M + a₁K₀
    assert d.ratios(w0[[0, 2]]) == pytest.approx([0.05, 0.02], rel=1e-12)


def test_modal_damping_on_the_modes_and_none_above(tmp_path):
    fr = _frame(tmp_path, element=ROD)
    d = viscous.build(fr, {"kind": "modal", "ratio": [0.05, 0.03, 0.02], "n_modes": 3})
    _w, z = _damped_ratios(fr, d.matrix().toarray())
    assert z[:3] == pytest.approx([0.05, 0.03, 0.02], rel=1e-7)
    assert np.abs(z[3:]).max() < 1e-8  # above the last damped mode: undamped
    v = np.random.default_rng(1).standard_normal(fr.n_dofs)
    assert d.force(v) == pytest.approx(d.matrix() @ v, rel=1e-12, abs=1e-12)


def test_fused_residual_carries_the_damping_force(tmp_path):
    """The rod's D carries C bit for bit (the corotational element adds C after its gyroscopic terms: D − D₀ − C
    is round-off there, 9e-21, and its forces are checked to 1e-10 above)."""
    fr = _frame(tmp_path, element=ROD)
    d = viscous.build(fr, {"kind": "rayleigh", "ratio": 0.05, "modes": [1, 2]})
    fd = dataclasses.replace(fr, viscous=d)
    v = 1e-3 * np.random.default_rng(2).standard_normal(fr.n_dofs)
    lam = np.zeros(fr.n_constraints)
    g = fd.newton_residual(0.0, fr.q_ref, v, lam)[0]
    assert g == pytest.approx(fr.forces(0.0, fr.q_ref, v) + d.matrix() @ v, rel=1e-10, abs=1e-9)
    assert fd.forces(0.0, fr.q_ref, v) == pytest.approx(g, rel=1e-10, abs=1e-9)
    D = fd.damping(0.0, fr.q_ref, v) - fr.damping(0.0, fr.q_ref, v)
    assert np.abs((D - d.matrix()).toarray()).max() == 0.0


PULSE = """
[damping]
kind = "modal"
ratio = 0.05
n_modes = 4
[loads]
nodal = [{ rod = "col", node = "end", force = [0.0, 5e3, 0.0], time = "table", times = [0.0, 0.05, 0.1], values = [0.0, 1.0, 0.0] }]
"""


def _peaks(y):
    """Parabola-refined positive maxima of a sampled signal."""
    i = np.flatnonzero((y[1:-1] > y[:-2]) & (y[1:-1] >= y[2:]) & (y[1:-1] > 0)) + 1
    a, b, c = y[i - 1], y[i], y[i + 1]
    return b - (a - c) ** 2 / (8 * (a - 2 * b + c))


def test_modal_five_percent_log_decrement_of_tip_mass_column(tmp_path):
    """The case's [damping] through the frame app's problem (what ``lgbeam run`` integrates), gen-alpha h = T₁/40
    (ρ∞ = 0.9: no numerical damping at h ω₁ = 0.16 to speak of), tip displacement along the weak axis y."""
    T1 = 2 * np.pi / np.sqrt(3 * 2.0e6 / (M_TIP * L**3))  # ≈ 0.94 s (test_spectrum's column)
    path = tip_mass_column(tmp_path / "col.toml", n=4)
    path.write_text(path.read_text() + PULSE)
    case, _ = load_case(str(path), [])
    prob = problem(case)
    assert prob.system.viscous is not None and prob.system.viscous.kind == "modal"
    h = T1 / 40
    sol = integrate(prob.system, "gen-alpha", prob.y0, (0.0, 0.1 + 3.3 * T1), controller=ConstantStep(h))
    t = np.asarray(sol.t)
    y = prob.system.G.translation(np.asarray(sol.q))[:, -1, 1]
    amps = _peaks(y[t > 0.1])
    assert len(amps) >= 3
    delta = np.log(amps[0] / amps[-1]) / (len(amps) - 1)
    zeta = delta / np.sqrt(4 * np.pi**2 + delta**2)
    assert zeta == pytest.approx(0.05, abs=3e-3)
    lines = prob.summary(sol)["lines"]
    assert "damping: modal" in lines[0] and "ζ [%] at modes 1–4" in lines[0]


@pytest.mark.parametrize(("kind", "setting", "message"), [
    ("modal", "damping.foo=1", "damping.foo"),
    ("modal", "damping.kind='viscous'", "damping.kind"),
    ("modal", "damping.ratio=-0.05", "damping.ratio"),
    ("rayleigh", "damping.ratio=[0.05, 1.5]", "damping.ratio"),
    ("rayleigh", "damping.modes=[1, 99]", "damping.modes"),
    ("rayleigh", "damping.modes=[2, 2]", "damping.modes"),
    ("modal", "damping.n_modes=0", "damping.n_modes"),
    ("modal", "damping.ratio=[0.05, 0.02]", "damping.ratio"),
])
def test_bad_damping_keys_refused_in_one_line(tmp_path, capsys, kind, setting, message):
    path = tip_mass_column(tmp_path / "col.toml", n=2)
    rc = main(["run", str(path), "--set", f"damping.kind='{kind}'", "--set", setting, "--out", str(tmp_path / "r")])
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
