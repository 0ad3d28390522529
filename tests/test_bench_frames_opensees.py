"""`lgbeam bench frames --sections opensees`: the bench's lgbeam and OpenSees models are the same structure, its
limit-load rule is exact for a parabola, the CLI sections and the missing-peer path."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from lgbeam.bench import frames_opensees as B
from lgbeam.cli.main import main

LOAD = 1e-3  # of the wind case (40 + 80 kN along x): roof sway ≈ 30 µm, the linear range of both codes


def _lgbeam_sway(element: str, n_el: int) -> float:
    from lgbeam.apps import frame as F
    from lgbeam.discretisations.rods.statics import solve_static

    case = B.frame_case("steel-frame-2storey", element, n_el, ['analysis.load_case="wind"'])
    fr = F.build(case)
    path = solve_static(fr, t=1.0, method="newton", load_steps=1, load_factor=LOAD, stability_check=False,
                        branch_switch=False)
    r3 = F.node_ids(case, fr)["r3"]
    return float(fr.G.translation(path.final.q[r3])[0] - fr.G.translation(fr.q_ref[r3])[0])


def _opensees_sway(n_el: int) -> float:
    import openseespy.opensees as ops

    from lgbeam.apps import frame as F

    case = B.frame_case("steel-frame-2storey", "cosserat", n_el, ['analysis.load_case="wind"'])
    fr = F.build(case)
    at = {n["name"]: np.asarray(n["at"], float) for n in case["model"]["nodes"]}
    tags = B.opensees_model(fr, [at[s["node"]] for s in case["supports"]], mass=False)
    ops.timeSeries("Linear", 1)
    ops.pattern("Plain", 1, 1)
    wind = next(c for c in case["loads"]["cases"] if c["name"] == "wind")
    for ld in wind["nodal"]:
        ops.load(B._tag(tags, at[ld["node"]]), *(LOAD * np.asarray(ld["force"], float)), 0.0, 0.0, 0.0)
    for cmd, *args in (("constraints", "Plain"), ("numberer", "RCM"), ("system", "BandGeneral"),
                       ("test", "NormDispIncr", 1e-14, 20), ("algorithm", "Newton"), ("integrator", "LoadControl", 1.0),
                       ("analysis", "Static")):
        getattr(ops, cmd)(*args)
    assert ops.analyze(1) == 0
    u = float(ops.nodeDisp(B._tag(tags, at["r3"]), 1))
    ops.wipe()
    return u


def test_bench_models_agree_on_the_small_load_sway_of_the_steel_frame():
    """The OpenSees model the bench builds from lgbeam's structure (nodes, section numbers, section axes, supports,
    loads) is the same frame: at 1e-3 of the wind load its roof sway equals lgbeam's corotational element at the
    same 4 elements per member to 1e-6 (both are Hermite beams, exact in linear statics for end-loaded members),
    and lgbeam's Cosserat rod extrapolated from 4/8 elements per member (its order 2) to 1e-4."""
    pytest.importorskip("openseespy.opensees", reason="OpenSeesPy is the optional peer of this bench (lgbeam[bench])")
    u_ops = _opensees_sway(4)
    u_cr = _lgbeam_sway("corotational", 4)
    assert u_ops > 1e-5
    assert abs(u_cr - u_ops) < 1e-6 * abs(u_ops), (u_cr, u_ops)
    u4, u8 = _lgbeam_sway("cosserat", 4), _lgbeam_sway("cosserat", 8)
    u_rich = u8 + (u8 - u4) / 3.0
    assert abs(u_rich - u_ops) < 1e-4 * abs(u_ops), (u4, u8, u_rich, u_ops)


def test_limit_rule_is_exact_for_a_parabola_and_finds_the_first_maximum():
    """The limit load is the vertex of the parabola through the three states around the first maximum: exact for
    a load that is a parabola in the deflection, whatever the sampling; later maxima are ignored; a path without a
    maximum gives nan."""
    w = -B.RISE * np.array([0.0, 0.13, 0.31, 0.42, 0.61, 0.8, 1.4, 2.0])
    p = 150.0 - 40.0 * (w / B.RISE + 0.5) ** 2
    p[-1] = 500.0  # rising again after the snap
    p_lim, k = B.limit_of(w, p)
    assert k == 3 and p_lim == pytest.approx(150.0, rel=1e-12)
    assert np.isnan(B.limit_of(w, np.linspace(0.0, 1.0, w.size))[0])


def test_frames_sections_and_the_missing_peer(tmp_path, monkeypatch, capsys):
    """`--sections` is taken by every bench that declares SECTIONS and refused (exit 2, one line) for an unknown
    name; without OpenSeesPy the opensees section prints one line naming the install and writes nothing."""
    assert main(["bench", "frames", "--quick", "--sections", "nope", "--out", str(tmp_path)]) == 2
    assert "evaluation, tower, opensees" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "openseespy", None)  # `import openseespy.opensees` raises ImportError
    monkeypatch.setitem(sys.modules, "openseespy.opensees", None)
    assert main(["bench", "frames", "--quick", "--sections", "opensees", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "openseespy not installed (pip install lgbeam[bench])" in out
    assert not list(tmp_path.iterdir())
