"""Pictures: matplotlib figures of a run, fitted orders, and off-screen pyvista renders judged by
pixel statistics (a blank image has one colour)."""

from __future__ import annotations

import fake_app
import numpy as np
import pytest
from PIL import Image

from lgbeam.io.plots import fit_order, plot_run, plot_study, read_diagnostics
from lgbeam.io.render import parse_frames, render_run
from lgbeam.io.schema import validate
from lgbeam.io.vtk import PVDSeries, line_frame, rigid_body_frame


def _non_background_fraction(path) -> float:
    """Fraction of pixels differing from the most common (background) colour."""
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.int64).reshape(-1, 3)
    packed = (img[:, 0] << 16) | (img[:, 1] << 8) | img[:, 2]
    return float(np.mean(packed != np.argmax(np.bincount(packed))))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    case = validate({"kind": "fake", "name": "pend", "output": {"every": 0.25}}, fake_app.SCHEMA)
    fake_app.run(case, d)
    return d


def test_fit_order_recovers_power_law():
    h = np.array([0.1, 0.05, 0.025, 0.0125])
    assert fit_order(h, 3.0 * h**2.5) == pytest.approx(2.5, abs=1e-12)  # exact power law: round-off only
    assert np.isnan(fit_order([1.0, 2.0], [0.0, 1.0]))  # one usable point: no slope


def test_plot_run_writes_figures(run_dir):
    files = plot_run(run_dir)
    assert {f.name for f in files} == {"energy.png", "constraint.png", "step_size.png", "tip_trajectory.png"}
    for f in files:
        assert _non_background_fraction(f) > 0.01  # axes, labels and curves: well above 1 % of pixels
    diag = read_diagnostics(run_dir / "diagnostics.csv")
    assert set(diag) == {"t", "h", "energy", "phi"} and diag["t"].shape == (100,)


def test_plot_study_orders(tmp_path):
    rows = [{"h": h, "pos": 2 * h, "rot": h**2} for h in (0.1, 0.05, 0.025)]
    orders = plot_study(rows, "h", ["pos", "rot"], tmp_path / "s.png")
    assert orders == pytest.approx({"pos": 1.0, "rot": 2.0}, abs=1e-12)  # exact power laws
    assert _non_background_fraction(tmp_path / "s.png") > 0.01


def test_pde_solution_field_plot(tmp_path):
    x = np.linspace(0, 1, 32)
    t = np.linspace(0, 1, 5)
    np.savez(tmp_path / "solution.npz", t=t, x=x, length=1.0, psi=np.exp(1j * (x[None] - t[:, None])))
    assert [f.name for f in plot_run(tmp_path)] == ["field.png"]


def test_render_rod_png_and_gif_not_blank(run_dir):
    files = render_run(run_dir, [0, -1], gif=True, size=(240, 180), max_gif_frames=4)
    names = [f.name for f in files]
    assert names == ["pend_frame000000.png", "pend_frame000004.png", "pend.gif"]
    for f in files[:2]:
        img = Image.open(f)
        assert img.size == (240, 180)
        # the tube and glyphs cover a visible part of the picture (measured ~3-4 %; blank = 0)
        assert _non_background_fraction(f) > 0.005
    first, last = (np.asarray(Image.open(f).convert("RGB"), dtype=float) for f in files[:2])
    assert np.mean(np.any(first != last, axis=-1)) > 0.002  # the rod moved between the frames
    gif = Image.open(files[2])
    assert gif.n_frames == 4


def test_render_rigid_body_and_field(tmp_path):
    R = np.eye(3)[None]
    with PVDSeries(tmp_path / "paraview" / "top.pvd") as s:
        for k in range(3):
            c, sn = np.cos(0.3 * k), np.sin(0.3 * k)
            s.write_frame(0.1 * k, rigid_body_frame([[0.3 * c, 0.3 * sn, 0.8]], R))
    x = np.linspace(0, 2 * np.pi, 40)
    with PVDSeries(tmp_path / "paraview" / "kdv.pvd") as s:
        for k in range(3):
            s.write_frame(0.1 * k, line_frame(x, {"u": np.cos(x - k)}))
    files = render_run(tmp_path, [-1], size=(200, 160))
    assert [f.name for f in files] == ["kdv_frame000002.png", "top_frame000002.png"]
    for f in files:
        assert _non_background_fraction(f) > 0.005  # a drawn curve / body, not an empty canvas


def test_render_bad_input(tmp_path, run_dir):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        render_run(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match="no ParaView series"):
        render_run(tmp_path)
    with pytest.raises(ValueError, match="out of range: the series has 5 frames"):
        render_run(run_dir, [7])
    with pytest.raises(ValueError, match="comma-separated integers"):
        parse_frames("first,last")


def test_render_overlay_draws_all_frames_in_one_picture(run_dir, tmp_path):
    files = render_run(run_dir, None, size=(240, 180), overlay=True)
    assert [f.name for f in files] == ["pend_overlay.png"]
    single = render_run(run_dir, [0], size=(240, 180))[0]
    # five rod positions cover more of the picture than one (measured ~3x); blank would be 0
    assert _non_background_fraction(files[0]) > 1.5 * _non_background_fraction(single) > 0
    with pytest.raises(ValueError, match="--overlay draws rods only"):
        x = np.linspace(0, 1, 5)
        with PVDSeries(tmp_path / "paraview" / "u.pvd") as s:
            s.write_frame(0.0, line_frame(x, {"u": x}))
        render_run(tmp_path, None, overlay=True)


def _coloured_fraction(path) -> float:
    """Fraction of saturated pixels: the tube (ochre) and the director glyphs (red, green, blue); the
    background (white) and the time label (black) have none."""
    img = np.asarray(Image.open(path).convert("RGB"), dtype=np.int64)
    return float(np.mean(img.max(-1) - img.min(-1) > 60))


def test_render_late_flying_spaghetti_frames_are_not_clipped(tmp_path):
    """Reliability review item 7: late in the flying spaghetti (t ≈ 10) the rod is closer to the camera than
    frame 0's near plane; with the clipping range kept from frame 0 the last frame was blank."""
    from lgbeam.cli.main import main

    out = tmp_path / "fs"
    assert main(["run", "flying-spaghetti", "--set", "output.every=1.0", "--out", str(out), "--quiet",
                 "--no-figures"]) == 0
    files = render_run(out, [0, -1], size=(320, 240), gif=True, max_gif_frames=11)
    assert [f.name for f in files] == ["flying-spaghetti_frame000000.png", "flying-spaghetti_frame000010.png",
                                       "flying-spaghetti.gif"]
    # the tube and glyphs are 0.06-0.17 % of the pixels at this size (measured); blank (white + black label) = 0
    for f in files[:2]:
        assert _coloured_fraction(f) > 3e-4, f.name
    gif = Image.open(files[2])
    for k in range(gif.n_frames):
        gif.seek(k)
        img = np.asarray(gif.convert("RGB"), dtype=np.int64)
        assert np.mean(img.max(-1) - img.min(-1) > 60) > 3e-4, f"GIF frame {k} is blank"
    only = render_run(out, [0, -1], size=(320, 240))  # the two frames alone (without the GIF's in between)
    assert _coloured_fraction(only[1]) > 3e-4


def test_render_scale_magnifies_the_displacement_from_the_first_frame(run_dir, monkeypatch):
    """--scale s (issue #24 item 8): every drawn frame k is at X0 + s (X_k − X0), X read here from the VTP
    files with pyvista; the picture is written and differs from the true-scale one; the title says so."""
    import pyvista as pv

    from lgbeam.io import render
    from lgbeam.io.vtk import read_pvd

    entries = read_pvd(run_dir / "paraview" / "pend.pvd")
    X0, X4 = (np.asarray(pv.read(entries[k][1]).points, dtype=float) for k in (0, 4))
    assert np.abs(X4 - X0).max() > 1e-3  # the rod moved
    seen = {}
    real = render._scene_3d

    def spy(meshes, times, kind, size, title=""):
        seen["points"] = [np.asarray(m.points, dtype=float) for m in meshes]
        seen["title"] = title
        return real(meshes, times, kind, size, title)

    monkeypatch.setattr(render, "_scene_3d", spy)
    true_png = render_run(run_dir, [-1], size=(240, 180))[0]
    true_img = np.asarray(Image.open(true_png).convert("RGB")).copy()
    assert np.allclose(seen["points"][-1], X4) and seen["title"] == ""
    files = render_run(run_dir, [-1], size=(240, 180), scale=10.0)
    assert [f.name for f in files] == ["pend_frame000004.png"] and _non_background_fraction(files[0]) > 0.005
    assert np.allclose(seen["points"][0], X0)  # frame 0, the reference, stays
    assert np.allclose(seen["points"][-1], X0 + 10.0 * (X4 - X0), rtol=0, atol=1e-12)
    assert seen["title"] == "(displacements x 10)"
    assert np.mean(np.any(np.asarray(Image.open(files[0]).convert("RGB")) != true_img, axis=-1)) > 0.002
    for bad in (0.0, -2.0, float("nan")):
        with pytest.raises(ValueError, match="--scale expects a positive deformation factor"):
            render_run(run_dir, [-1], scale=bad)


def test_render_scale_refuses_other_series_and_exits_2_from_the_cli(tmp_path, capsys):
    from lgbeam.cli.main import main

    x = np.linspace(0, 1, 5)
    with PVDSeries(tmp_path / "paraview" / "u.pvd") as s:
        s.write_frame(0.0, line_frame(x, {"u": x}))
    assert main(["render", str(tmp_path), "--scale", "-1"]) == 2
    assert "--scale expects a positive deformation factor" in capsys.readouterr().err
    assert not (tmp_path / "figures").exists()  # nothing written on bad input
    with pytest.raises(ValueError, match="--scale magnifies the deformation of rods and frames"):
        render_run(tmp_path, None, scale=5.0)
