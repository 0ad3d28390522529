"""A ready ParaView state per run: ``paraview/<name>.pvsm`` opens the series as tubes of the physical section
radius (× the frame's ``display_scale``) coloured by ``moment_magnitude``, with arrow glyphs of the director
``d1``, the spatial axes and a colour legend.

The state is ParaView 5.11's own XML (``templates/tubes.pvsm``, saved by pvbatch from the recipe of
docs/output.md, ``make_template``); ``write_state`` fills in, from the series itself (issue #24 item 8):

* the series' path **relative to the state** (both live in ``paraview/``), so a moved or copied run folder
  still loads (ParaView resolves a relative path against its working directory: start it in ``paraview/``,
  or choose "Search files under specified directory" = that folder in the Load State dialog);
* the **last** time of the series as the time shown (animation, time keeper, view), so a static run opens
  at its loaded state, not at the unloaded t = 0;
* the colour range of ``moment_magnitude`` over **all** frames (lookup table and opacity points, automatic
  rescale off), so stepping through time does not saturate;
* a camera on the bounding box of all frames (``camera_axes``: a 3-D structure or motion in the engineering
  isometric view with e_z up, a planar one face-on) instead of the template's plan view down z;
* the tube radius factor.
"""

from __future__ import annotations

import logging
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lgbeam.io.atomic import atomic_write_text
from lgbeam.io.vtk import read_pvd, read_vtp

logger = logging.getLogger(__name__)

TEMPLATE = Path(__file__).with_name("templates") / "tubes.pvsm"
PVD_PLACEHOLDER = "@PVD_PATH@"
SCALE_PLACEHOLDER = "@RADIUS_FACTOR@"

#: the recipe as a pvpython script (also the generator of the template); run with pvbatch SCRIPT PVD [SCALE] [OUT]
RECIPE = '''
import sys
from paraview.simple import *
pvd, scale = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
reader = PVDReader(registrationName="series", FileName=pvd)
tube = Tube(registrationName="tubes", Input=reader)
tube.Scalars = ["POINTS", "radius"]
tube.VaryRadius = "By Absolute Scalar"
tube.Radius = 0.01
tube.RadiusFactor = scale
tube.NumberofSides = 24
glyph = Glyph(registrationName="d1", Input=reader, GlyphType="Arrow")
glyph.OrientationArray = ["POINTS", "d1"]
glyph.GlyphMode = "Every Nth Point"
glyph.Stride = 2
view = CreateView("RenderView")
view.OrientationAxesVisibility = 1
tube_display = Show(tube, view)
ColorBy(tube_display, ("POINTS", "moment_magnitude"))
tube_display.SetScalarBarVisibility(view, True)
bar = GetScalarBar(GetColorTransferFunction("moment_magnitude"), view)
bar.Title = "|moment| [N m]"
glyph_display = Show(glyph, view)
glyph_display.AmbientColor = glyph_display.DiffuseColor = [0.85, 0.1, 0.1]
view.ResetCamera()
'''


@dataclass(frozen=True)
class SeriesView:
    """What the state needs from a series: its times, the |moment| range and the camera."""

    times: tuple[float, ...]
    colour_range: tuple[float, float]
    focal_point: np.ndarray
    position: np.ndarray
    view_up: np.ndarray
    parallel_scale: float


def _read_vtp(path: Path) -> tuple[np.ndarray, np.ndarray | None]:
    """Points and ``moment_magnitude`` of one frame (``lgbeam.io.vtk.read_vtp``: no VTK import)."""
    x, arrays = read_vtp(path, names=("moment_magnitude",))
    mm = arrays.get("moment_magnitude")
    return x, (mm.astype(float).ravel() if mm is not None else None)


def camera_axes(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(view direction, up) for the bounding box [lo, hi] of every frame (structure and motion together).

    A box with extent along all three axes (each > 1e-3 of the largest) is a 3-D structure or motion: the
    engineering isometric view, from (+1, −1, +1) towards the centre with e_z up. A flat box (a planar
    structure moving in its plane) is seen face-on along its missing axis, with e_z up when z lies in the
    picture (else e_y), up always ⟂ view; a straight line along x or y is seen from −y resp. +x, along z from −y."""
    ext = np.asarray(hi, float) - np.asarray(lo, float)
    big = ext > 1e-3 * max(float(ext.max()), 1e-300)
    ez, ey = np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0])
    if big.all():
        view = -np.array([1.0, -1.0, 1.0]) / math.sqrt(3.0)
        up = ez - (ez @ view) * view  # e_z projected into the picture plane (ParaView wants up ⟂ view)
        return view, up / np.linalg.norm(up)
    if big.sum() == 2:
        axis = int(np.flatnonzero(~big)[0])
        view = -np.eye(3)[axis] if axis != 1 else np.array([0.0, 1.0, 0.0])  # from +x, −y or +z
        return view, (ez if axis != 2 else ey)
    return (np.array([0.0, 1.0, 0.0]), ez) if not big[1] else (np.array([-1.0, 0.0, 0.0]), ez)


def series_view(pvd: Path, view_angle_deg: float = 30.0) -> SeriesView:
    """Times, the ``moment_magnitude`` range over every frame and a camera framing every frame of ``pvd``.

    The camera looks along ``camera_axes`` at the centre of the bounding box of all frames, from the
    distance at which the sphere around the box fills the view angle (as ParaView's ResetCamera)."""
    entries = read_pvd(pvd)
    if not entries:
        raise ValueError(f"{pvd} has no frames; nothing for a ParaView state to show")
    frames = [_read_vtp(f) for _, f in entries]
    xs = [x for x, _ in frames if x.size]
    allx = np.concatenate(xs) if xs else np.zeros((1, 3))
    lo, hi = allx.min(0), allx.max(0)
    mms = [m for _, m in frames if m is not None and m.size]
    if mms:
        cmin = float(min(m.min() for m in mms))
        cmax = float(max(m.max() for m in mms))
    else:
        cmin, cmax = 0.0, 1.0
    if not cmax > cmin:
        cmax = cmin + (abs(cmin) or 1.0)
    centre = 0.5 * (lo + hi)
    radius = 0.5 * float(np.linalg.norm(hi - lo)) or 1.0
    view, up = camera_axes(lo, hi)
    dist = radius / math.sin(math.radians(0.5 * view_angle_deg))
    return SeriesView(tuple(t for t, _ in entries), (cmin, cmax), centre, centre - dist * view, up, radius)


def _set(props: dict[str, ET.Element], prop_id: str, values: Sequence[float | str]) -> None:
    """Replace the elements of the property ``prop_id`` (e.g. ``"425.CameraPosition"``) by ``values``."""
    prop = props.get(prop_id)
    if prop is None:
        raise ValueError(f"the ParaView state template has no property {prop_id}")
    domains = [c for c in prop if c.tag != "Element"]
    for c in list(prop):
        prop.remove(c)
    for i, v in enumerate(values):
        ET.SubElement(prop, "Element", index=str(i), value=repr(float(v)) if not isinstance(v, str) else v)
    prop.extend(domains)
    prop.set("number_of_elements", str(len(values)))


def _scale_points(props: dict[str, ET.Element], prop_id: str, stride: int, lo: float, hi: float) -> None:
    """Map the x values (every ``stride``-th element) of a transfer function onto [lo, hi]."""
    prop = props.get(prop_id)
    if prop is None:
        raise ValueError(f"the ParaView state template has no property {prop_id}")
    vals = [float(e.get("value", "0")) for e in prop.iter("Element")]
    x = vals[0::stride]
    a, b = min(x), max(x)
    for k in range(0, len(vals), stride):
        vals[k] = lo + (vals[k] - a) / (b - a) * (hi - lo) if b > a else lo
    _set(props, prop_id, vals)


_PROPERTY = re.compile(r'<Property\b[^>]*?\bid="([^"]+)"[^>]*?(?:/>|>.*?</Property>)', re.DOTALL)


_FILLED = ("261.AnimationTime", "256.Time", "425.ViewTime", "261.StartTime", "263.StartTime", "261.EndTime",
           "263.EndTime", "256.TimeRange", "256.TimestepValues", "285.TimestepValues", "261.PlayMode",
           "737.RGBPoints", "735.Points", "737.AutomaticRescaleRangeMode", "425.CenterOfRotation",
           *(f"425.Camera{what}{suffix}" for what in ("Position", "FocalPoint", "ViewUp", "ParallelScale")
             for suffix in ("", "Info")))


def _edit_properties(text: str, ids: tuple[str, ...], edit: Callable[[dict[str, ET.Element]], None]) -> str:
    """``text`` with ``edit`` applied to its ``<Property>`` elements of these ``ids``: only they are parsed,
    edited and written back in place; the rest of the state stays as it is (parsing and re-serialising the whole
    340 kB template cost ≈ 0.1 s a run, #34)."""
    spans = {m.group(1): m.span() for m in _PROPERTY.finditer(text) if m.group(1) in ids}
    props = {k: ET.fromstring(text[a:b]) for k, (a, b) in spans.items()}
    edit(props)
    out, end = [], 0
    for key, (a, b) in sorted(spans.items(), key=lambda kv: kv[1][0]):
        out += [text[end:a], ET.tostring(props[key], encoding="unicode")]
        end = b
    return "".join([*out, text[end:]])


def state_text(template: str, pvd_name: str, radius_factor: float, view: SeriesView) -> str:
    """The template filled in: relative series path, radius factor, last time, colour range, camera."""
    text = template.replace(PVD_PLACEHOLDER, pvd_name).replace(SCALE_PLACEHOLDER, repr(float(radius_factor)))
    return _edit_properties(text, _FILLED, lambda props: _fill(props, view)).rstrip("\n") + "\n"


def _fill(props: dict[str, ET.Element], view: SeriesView) -> None:
    """The series' times, colour range and camera into the state's properties."""
    t0, t1 = view.times[0], view.times[-1]
    for pid in ("261.AnimationTime", "256.Time", "425.ViewTime"):
        _set(props, pid, [t1])
    for pid in ("261.StartTime", "263.StartTime"):
        _set(props, pid, [t0])
    for pid in ("261.EndTime", "263.EndTime"):
        _set(props, pid, [t1])
    _set(props, "256.TimeRange", [t0, t1])
    for pid in ("256.TimestepValues", "285.TimestepValues"):
        _set(props, pid, list(view.times))
    _set(props, "261.PlayMode", ["2"])  # Snap To TimeSteps: the play/step buttons visit the series' own times
    lo, hi = view.colour_range
    _scale_points(props, "737.RGBPoints", 4, lo, hi)
    _scale_points(props, "735.Points", 4, lo, hi)
    _set(props, "737.AutomaticRescaleRangeMode", ["-1"])  # Never: keep the all-frames range when stepping
    for suffix in ("", "Info"):
        _set(props, f"425.CameraPosition{suffix}", list(view.position))
        _set(props, f"425.CameraFocalPoint{suffix}", list(view.focal_point))
        _set(props, f"425.CameraViewUp{suffix}", list(view.view_up))
        _set(props, f"425.CameraParallelScale{suffix}", [view.parallel_scale])
    _set(props, "425.CenterOfRotation", list(view.focal_point))


def write_state(pvd: Path, radius_factor: float = 1.0) -> Path | None:
    """Write ``<pvd stem>.pvsm`` beside ``pvd`` from the template (see the module doc); None (and a log line)
    without a template."""
    pvd = Path(pvd)
    if not TEMPLATE.is_file():
        logger.warning("no ParaView state template at %s; skipping the .pvsm", TEMPLATE)
        return None
    text = state_text(TEMPLATE.read_text(encoding="utf-8"), pvd.name, radius_factor, series_view(pvd))
    out = pvd.with_suffix(".pvsm")
    atomic_write_text(out, text)
    return out
