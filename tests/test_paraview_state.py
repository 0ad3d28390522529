"""The ParaView state's view of a series (issue #24 item 8), on hand-made series: the camera of a 3-D
structure is oblique (every axis in the picture) and frames every frame; the colour range spans every frame,
including a frame-0 range that alone would be tiny; the shown time is the last one; the path is relative."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import pairwise

import numpy as np

from lgbeam.io.paraview_state import series_view, write_state
from lgbeam.io.vtk import PolyFrame, PVDSeries


def _series(tmp_path, frames):
    pvd = tmp_path / "run" / "paraview" / "s.pvd"
    pvd.parent.mkdir(parents=True)
    with PVDSeries(pvd) as s:
        for t, (pts, mm) in frames:
            n = len(pts)
            s.write_frame(t, PolyFrame(pts, [np.arange(n)], {"moment_magnitude": mm, "radius": np.full(n, 0.01)},
                                       {"rod_id": np.array([0])}, {"array_names": ["moment_magnitude"]}))
    return pvd


def _box_edges():
    c = np.array([[0, 0, 0], [4, 0, 0], [4, 3, 0], [0, 3, 0], [0, 3, 6], [4, 3, 6], [4, 0, 6], [0, 0, 6]], float)
    return np.concatenate([np.linspace(a, b, 5)[:-1] for a, b in pairwise(c)] + [c[-1:]])


def test_3d_structure_gets_an_oblique_camera_framing_every_frame(tmp_path):
    X0 = _box_edges()
    n = len(X0)
    sway = np.outer(X0[:, 2] / 6.0, [0.3, 0.0, 0.0])
    frames = [(0.0, (X0, np.full(n, 1e-9))), (0.5, (X0 + 0.5 * sway, np.linspace(0, 40, n))),
              (2.0, (X0 + sway, np.linspace(5, 120, n)))]
    pvd = _series(tmp_path, frames)
    v = series_view(pvd)
    d = (v.focal_point - v.position) / np.linalg.norm(v.focal_point - v.position)
    assert np.all(np.abs(d) > 0.2), d  # every axis foreshortened, none looked along: a 3-D view
    pts = np.concatenate([X0, X0 + 0.5 * sway, X0 + sway])
    assert np.allclose(v.focal_point, 0.5 * (pts.min(0) + pts.max(0)))
    rel = pts - v.position
    assert np.all(rel @ d / np.linalg.norm(rel, axis=1) >= np.cos(np.radians(15.0)) - 1e-12)
    assert v.colour_range == (0.0, 120.0) and v.times == (0.0, 0.5, 2.0)
    assert abs(v.view_up[2]) > 0.5  # e_z up in the picture


def test_state_file_is_relative_and_opens_at_the_last_time(tmp_path):
    X0 = np.array([[0.0, 0, 0], [1, 0, 0], [2, 0, 0]])
    pvd = _series(tmp_path, [(0.0, (X0, np.zeros(3))), (3.0, (X0 + [0, 0.1, 0], np.array([1.0, 2, 7])))])
    out = write_state(pvd, 2.5)
    root = ET.parse(out).getroot()
    def prop(pid):
        return [e.get("value") for e in root.find(f".//Property[@id='{pid}']").iter("Element")]
    assert prop("285.FileName") == ["s.pvd"]
    assert float(prop("256.Time")[0]) == 3.0 and float(prop("261.AnimationTime")[0]) == 3.0
    rgb = [float(x) for x in prop("737.RGBPoints")]
    assert (rgb[0], rgb[4], rgb[8]) == (0.0, 3.5, 7.0)
    assert [float(x) for x in prop("735.Points")][0::4] == [0.0, 7.0]
    assert str(tmp_path) not in out.read_text() and "2.5" in prop("309.RadiusFactor")[0]


def test_planar_frame_is_seen_face_on_and_a_box_isometrically():
    from lgbeam.io.paraview_state import camera_axes

    view, up = camera_axes(np.array([0.0, 0, 0]), np.array([6.0, 0, 4]))  # portal in the x-z plane
    assert np.allclose(view, [0, 1, 0]) and np.allclose(up, [0, 0, 1])
    view, up = camera_axes(np.array([0.0, 0, 0]), np.array([6.0, 5, 0]))  # grillage in the x-y plane
    assert np.allclose(view, [0, 0, -1]) and np.allclose(up, [0, 1, 0])
    view, up = camera_axes(np.array([0.0, 0, 0]), np.array([6.0, 5, 7]))
    assert np.allclose(view, -np.ones(3) * [1, -1, 1] / np.sqrt(3)) and abs(view @ up) < 1e-15
    assert np.allclose(up, np.array([-1, 1, 2]) / np.sqrt(6))  # e_z projected ⟂ view, normalised


def test_the_state_edited_in_place_is_the_whole_tree_edited(tmp_path):
    """``state_text`` parses and rewrites only the properties it fills (#34); the state is the same XML tree as
    the whole template parsed, filled by the same ``_fill`` and serialised again."""
    from lgbeam.io.paraview_state import PVD_PLACEHOLDER, SCALE_PLACEHOLDER, TEMPLATE, _fill, state_text

    pvd = _series(tmp_path, [(0.1 * k, (_box_edges() * (1 + 0.1 * k), np.linspace(0, k + 1, 29))) for k in range(3)])
    view = series_view(pvd)
    template = TEMPLATE.read_text(encoding="utf-8")
    root = ET.fromstring(template.replace(PVD_PLACEHOLDER, "s.pvd").replace(SCALE_PLACEHOLDER, "2.5"))
    _fill({p.get("id", ""): p for p in root.iter("Property")}, view)

    def tree(e):
        return e.tag, sorted(e.attrib.items()), (e.text or "").strip(), [tree(c) for c in e]

    assert tree(ET.fromstring(state_text(template, "s.pvd", 2.5, view))) == tree(root)
