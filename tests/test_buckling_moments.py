"""Nodal moments in linear buckling (issue 31 item 4; docs/modes.md "Moments in linear buckling"): the load
stiffness of a nodal moment is the exact tangent's load part (antisymmetric for a "spatial" moment), the
eigenproblem is then solved as a non-symmetric one, and a real positive load factor is reported where one exists;
where none does, one line says why. Truths: lateral-torsional buckling of a fork-supported beam under equal and
opposite end moments, M_cr = (π/L)√(EI_z GJ) (Timoshenko & Gere 1961 §6.2, linear: pre-buckling deflection
neglected); the cantilever under an end moment, whose eigenvalues are complex (no static critical load: the
moment is not conservative, Ziegler 1968 §4); a transverse load reversed."""

from __future__ import annotations

import numpy as np
import pytest

from lgbeam.diagnostics import observed_order
from lgbeam.discretisations.rods import CosseratRod, Material, NodalLoad, RodMesh, Support, straight
from lgbeam.discretisations.rods.modal import buckling
from lgbeam.groups.s3r3 import S3R3

G = S3R3()
MAT = Material(C_K=[1.0, 100.0, 0.5], C_Gamma=[1e6] * 3, rhoA=1.0, rhoJ=[1e-3] * 3)  # EI_z = 1 (weak), GJ = 0.5
M_CR = np.pi * np.sqrt(1.0 * 0.5)  # L = 1


def _beam(n: int, frame: str, *, cantilever: bool = False) -> CosseratRod:
    mesh = RodMesh.uniform(1.0, n)
    q = straight(G, mesh)
    d2 = G.rotation(q[0])[:, 1]  # the strong axis: moments about it bend the beam in its stiff plane
    if cantilever:
        sup: tuple[Support, ...] = (Support("start", "clamped"),)
        loads = (NodalLoad(node="end", moment=list(d2), frame=frame),)
    else:  # fork supports: translations and the twist held, the end free to slide along the axis
        sup = (Support("start", fix=("x", "y", "z", "rz"), frame="local"), Support("end", fix=("x", "y", "rz"), frame="local"))
        loads = (NodalLoad(node="start", moment=list(-d2), frame=frame), NodalLoad(node="end", moment=list(d2), frame=frame))
    return CosseratRod(mesh=mesh, material=MAT, q_ref=q, supports=sup, loads=loads, kirchhoff=True)


@pytest.mark.parametrize("frame", ["spatial", "body"])
def test_fork_supported_beam_under_end_moments_buckles_at_the_classical_moment(frame):
    """The rods' second order: 1.3e-2, 3.2e-3 at N = 8, 16 (measured; 8.0e-4 at 32)."""
    err = [buckling(_beam(n, frame), 1).load_factors[0] / M_CR - 1.0 for n in (8, 16)]
    assert 0 < err[1] < 4e-3 and observed_order([8, 16], err) < -1.9


@pytest.mark.parametrize("frame", ["spatial", "body"])
def test_cantilever_under_an_end_moment_is_refused_in_one_line_that_says_why(frame):
    with pytest.raises(ValueError, match=r"^no real buckling load factor: the eigenvalues are complex because a nodal "
                       r"moment .* is not a conservative load in 3-D") as exc:
        buckling(_beam(8, frame, cantilever=True), 1)
    assert "\n" not in str(exc.value) and "reverse the loads" not in str(exc.value)


def test_loads_that_buckle_only_reversed_say_so_with_the_reversed_factor():
    """A column pulled: −P_E/P is the reversed factor (pinned–pinned, EI = 1, π² to the rods' O(N⁻²))."""
    mesh = RodMesh.uniform(1.0, 16)
    rod = CosseratRod(mesh=mesh, material=MAT, q_ref=straight(G, mesh), kirchhoff=True,
                      supports=(Support("start", fix=("x", "y", "z", "rz"), frame="local"),
                                Support("end", fix=("x", "y", "rz"), frame="local")),
                      loads=(NodalLoad(node="end", force=list(G.rotation(straight(G, mesh)[0])[:, 2])),))
    with pytest.raises(ValueError, match=r"only reversed \(first at load factor (\S+)\); reverse the loads") as exc:
        buckling(rod, 1)
    mu = float(str(exc.value).split("load factor ")[1].split(")")[0])
    assert mu == pytest.approx(-np.pi**2, rel=4e-3)  # measured 3.2e-3 at N = 16


CANTILEVER_FRAME = """kind = "frame"
name = "cantilever-moment"
[model]
n_elements = 4
nodes = [{ name = "A", at = [0.0, 0.0, 0.0] }, { name = "B", at = [2.0, 0.0, 0.0] }]
members = [{ name = "m", nodes = ["A", "B"], section = { shape = "rectangle", b = 0.02, h = 0.2 }, material = "S355" }]
[[supports]]
node = "A"
kind = "clamped"
[loads]
nodal = [{ node = "B", moment = [0.0, 1e3, 0.0], frame = "FRAME" }]
[time]
t_end = 1.0
"""


@pytest.mark.parametrize("frame", ["spatial", "follower"])
def test_lgbeam_modes_buckling_of_a_frame_cantilever_under_an_end_moment_is_exit_2_one_line(tmp_path, capsys, frame):
    from lgbeam.cli.main import main

    path = tmp_path / "c.toml"
    path.write_text(CANTILEVER_FRAME.replace("FRAME", frame), encoding="utf-8")
    rc = main(["modes", str(path), "--buckling", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and "no real buckling load factor" in err and "couple of spatial forces" in err
