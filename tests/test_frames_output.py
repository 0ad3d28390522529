"""Engineering output of frames (issue 13 item 2): .vtp polylines that VTK's Tube filter accepts directly, the
arrays with units and frames, reactions, the .pvsm state; pvbatch checks when ParaView is installed; the frame
case through the command line (static and dynamic) and its bad input (exit 2, one line)."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from lgbeam.cli.main import main
from lgbeam.io.vtk import PolyFrame, PVDSeries, read_pvd


@pytest.fixture(scope="module")
def lframe_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("lframe") / "run"
    assert main(["run", "l-frame", "--out", str(out), "--quiet", "--no-figures"]) == 0
    return out


def _read(path):
    import pyvista as pv

    return pv.read(path)


def test_vtp_is_one_polyline_per_rod_and_tube_works_directly(lframe_run):
    frames = read_pvd(lframe_run / "paraview" / "l-frame.pvd")
    assert [p.suffix for _, p in frames] == [".vtp", ".vtp"]
    root = ET.parse(frames[-1][1]).getroot()
    assert root.get("type") == "PolyData"
    mesh = _read(frames[-1][1])
    assert mesh.n_cells == 2 and {mesh.GetCellType(i) for i in range(2)} == {4}  # two VTK_POLY_LINE: column, beam
    scale = float(mesh.field_data["display_scale"][0])
    tube = mesh.tube(scalars="radius", absolute=True, radius=0.01 * scale, n_sides=12)  # vtkTubeFilter itself
    assert tube.n_cells > 0 and "moment_magnitude" in tube.point_data
    assert np.allclose(mesh.point_data["radius"], 0.01)  # the physical section radius of the case


def test_every_array_has_a_unit_and_a_frame_and_kirchhoff_forces_are_not_zero(lframe_run):
    mesh = _read(read_pvd(lframe_run / "paraview" / "l-frame.pvd")[-1][1])
    names = list(mesh.field_data["array_names"])
    units = dict(zip(names, mesh.field_data["array_units"], strict=True))
    frames = dict(zip(names, mesh.field_data["array_frames"], strict=True))
    for arr in list(mesh.point_data) + list(mesh.cell_data):
        assert units.get(arr) and frames.get(arr), arr
    assert units["moment_spatial"] == "N m" and units["force_material"] == "N" and units["displacement"] == "m"
    # Kirchhoff rod: the shear force lives in the multipliers; the 10 N tip load is carried through every section
    F = mesh.point_data["force_spatial"]
    assert np.allclose(F[:, 1], 10.0, rtol=1e-6)
    M_base = np.linalg.norm(mesh.point_data["moment_spatial"][0])
    assert abs(M_base - 10.0 * np.sqrt(2.0)) < 1e-2  # |r × F| at the base: r ≈ (1, 0, 1), F = 10 e_y
    sup = mesh.field_data["support_reactions"].reshape(-1, 6)
    assert np.allclose(sup[0, 3:], [0.0, -10.0, 0.0], atol=1e-8)  # the clamp holds the load
    assert np.allclose(mesh.point_data["reaction_force"][0], sup[0, 3:])
    assert "column:" in str(mesh.field_data["support_names"][0])


def test_pvsm_names_the_series_and_the_tube_radius(lframe_run):
    state = (lframe_run / "paraview" / "l-frame.pvsm").read_text()
    assert str((lframe_run / "paraview" / "l-frame.pvd").resolve()) in state
    assert "@PVD_PATH@" not in state and "@RADIUS_FACTOR@" not in state
    assert "moment_magnitude" in state and "TubeFilter" in state


def test_poly_series_resumes_with_keep(tmp_path):
    pts = np.array([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]])
    frame = PolyFrame(pts, [np.arange(3)], {"s": np.arange(3.0)}, {"rod_id": np.array([0])}, {"array_names": ["s"]})
    with PVDSeries(tmp_path / "f.pvd") as s:
        for t in (0.0, 0.5, 1.0):
            s.write_frame(t, frame)
    with PVDSeries(tmp_path / "f.pvd", keep=2) as s:
        s.write_frame(0.75, frame)
    assert [t for t, _ in read_pvd(tmp_path / "f.pvd")] == [0.0, 0.5, 0.75]
    assert not (tmp_path / "f" / "f_000003.vtp").exists()


PVBATCH = shutil.which("pvbatch")


@pytest.mark.skipif(PVBATCH is None, reason="ParaView's pvbatch is not installed")
def test_pvbatch_tube_and_state(lframe_run, tmp_path):
    """The README recipe in ParaView itself: PVD reader → Tube (no Extract Surface) gives cells; the .pvsm loads
    and its tubes have cells; the arrays arrive."""
    script = tmp_path / "check.py"
    script.write_text(
        "import sys\nfrom paraview.simple import *\n"
        "r = PVDReader(FileName=sys.argv[1])\n"
        "t = Tube(Input=r)\nt.Scalars = ['POINTS', 'radius']\nt.VaryRadius = 'By Absolute Scalar'\n"
        "t.UpdatePipeline()\nprint('TUBE', t.GetDataInformation().GetNumberOfCells())\n"
        "print('ARRAYS', ','.join(r.PointData.keys()))\n"
        "LoadState(sys.argv[2])\ns = FindSource('tubes')\ns.UpdatePipeline()\n"
        "print('STATE', s.GetDataInformation().GetNumberOfCells())\n")
    pvd = lframe_run / "paraview" / "l-frame.pvd"
    res = subprocess.run([PVBATCH, str(script), str(pvd), str(pvd.with_suffix(".pvsm"))], capture_output=True,
                         text=True, timeout=300, check=False)
    lines = {ln.split()[0]: ln.split()[1] for ln in res.stdout.splitlines() if ln.split() and ln.split()[0].isupper()}
    assert int(lines["TUBE"]) > 0, res.stdout + res.stderr
    assert int(lines["STATE"]) > 0, res.stdout + res.stderr
    assert "moment_magnitude" in lines["ARRAYS"] and "displacement" in lines["ARRAYS"]


def test_portal_case_reactions_balance_and_sway(tmp_path):
    out = tmp_path / "portal"
    assert main(["run", "portal-frame", "--out", str(out), "--quiet", "--no-figures"]) == 0
    import json

    prov = json.loads((out / "provenance.json").read_text())
    bal = prov["summary"]["extra"]["reactions_plus_loads"] if "summary" in prov else prov["extra"]["reactions_plus_loads"]
    assert np.abs(bal["force"]).max() < 1e-10 * 10e3 and np.abs(bal["moment_about_origin"]).max() < 1e-10 * 10e3 * 4
    sol = np.load(out / "solution.npz")
    sway = sol["positions"][-1, sol["rod_offsets"][1], 0]
    k = (1.0 / 6.0) / (1.0 / 4.0)
    exact = 10e3 * 4.0**3 / (12 * 1.76e7) * (2 + 3 * k) / (1 + 6 * k)
    assert abs(sway / exact - 1.0) < 16.0**-2  # N = 16 per member: measured −3.5e-3 (the rods' O(Δs²))
    assert sol["section_force"].shape == (2, 48, 3) and sol["joint_reactions"].shape == (2, 2, 6)


@pytest.mark.parametrize("override, message", [
    ("model.joints=[{a = ['left', 'end'], b = ['roof', 'start']}]", "no rod named 'roof'"),
    ("model.joints=[{a = ['left', 40], b = ['beam', 'start']}]", "node 40 does not exist"),
    ("model.joints=[{a = ['left', 'end'], b = ['beam', 'start']}, {a = ['beam', 0], b = ['left', -1], kind = 'ball'}]",
     "same pair of nodes"),
    ("supports=[]", "fix every rigid motion"),
    ("model.rods=[{name = 'left', points = [[0, 0, 0], [0, 0, 4], [6, 0, 4]], length = 4.0}]", "model.length = 10"),
])
def test_bad_frame_input_exits_2_with_one_line(tmp_path, capsys, override, message):
    rc = main(["run", "portal-frame", "--out", str(tmp_path / "x"), "--quiet", "--set", override])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and message in err and len(err.splitlines()) == 1, err
