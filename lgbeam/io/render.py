"""Off-screen pictures of a run folder's ParaView series (pyvista for 3-D, matplotlib for 1-D fields).

``render_run(run_dir, frames, gif)`` reads every ``run_dir/paraview/<name>.pvd`` and writes into
``run_dir/figures/``:

* ``<name>_frame<k>.png`` for each chosen frame index ``k`` (negative indices count from the end);
* ``<name>.gif``, an animation over (at most ``max_gif_frames`` evenly spaced) frames, with ``gif=True``;
* ``<name>_overlay.png``, rods only, with ``overlay=True``: the chosen frames (default: 24 evenly
  spaced ones) drawn together in one picture, coloured by time (the classic snapshot figure).

What is drawn depends on the frame's content:

rods (line cells with a ``radius`` array)
    a tube of the given radius (VTK tube filter, absolute scalar radius) with director glyphs
    ``d1`` (red), ``d2`` (green), ``d3`` (blue) at up to 12 evenly spaced nodes;
rigid bodies (vertex cells with ``d1, d2, d3``)
    a sphere at each body with its three directors and the trail of its positions;
PDE line meshes (line cells, no radius)
    a matplotlib line plot of every point array against x.

The camera is fixed over all frames of a series (bounds of all frames), so a GIF does not jitter; its
clipping range (near and far planes) is reset for every frame, so nothing is cut away when the object
moves towards or away from the camera.
GIFs are assembled with Pillow (a matplotlib dependency); no extra package is needed.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

from lgbeam.io.atomic import make_dirs, run_folder, write_via
from lgbeam.io.vtk import read_pvd

logger = logging.getLogger(__name__)

__all__ = ["deformed_points", "parse_frames", "render_run"]

_COLOURS = {"d1": "red", "d2": "green", "d3": "blue"}

# _PYVISTA_WRAPS: pyvista declares Plotter.set_background and Plotter.reset_camera as
# ``@functools.wraps(Renderer.method) def method(self, *args, **kwargs)``, which mypy types as the unbound
# Renderer method (its ``self`` missing from every call). set_background goes to ``plotter.renderers``
# directly (the wrapper's one line); reset_camera also renders, so it keeps the wrapper and an ignore.


def parse_frames(text: str | None) -> list[int] | None:
    """``"0,10,-1"`` → ``[0, 10, -1]``; ``None`` or empty → ``None`` (first, middle and last frame)."""
    if not text:
        return None
    try:
        return [int(s) for s in text.split(",") if s.strip()]
    except ValueError as exc:
        raise ValueError(f"--frames expects comma-separated integers such as 0,10,-1, got {text!r}") from exc


def deformed_points(reference: np.ndarray, current: np.ndarray, scale: float) -> np.ndarray:
    """The picture's points with the displacement from the first frame magnified: X0 + scale · (X − X0)."""
    X0, X = np.asarray(reference, dtype=float), np.asarray(current, dtype=float)
    if X0.shape != X.shape:
        raise ValueError(f"--scale needs the same nodes in every frame; frame 0 has {X0.shape[0]} points, "
                         f"another frame {X.shape[0]}")
    return X0 + float(scale) * (X - X0)


def _check_scale(scale: float) -> float:
    if not (np.isfinite(scale) and scale > 0.0):
        raise ValueError(f"--scale expects a positive deformation factor such as 10, got {scale!r}")
    return float(scale)


def _magnify(meshes: list, reference, scale: float) -> list:
    """Copies of ``meshes`` with their displacements from ``reference`` (frame 0) times ``scale``."""
    if scale == 1.0:
        return meshes
    out = []
    for m in meshes:
        c = m.copy()
        c.points = deformed_points(reference.points, m.points, scale)
        out.append(c)
    return out


def _select(n: int, frames: list[int] | None) -> list[int]:
    if frames is None:
        return sorted({0, n // 2, n - 1})
    bad = [k for k in frames if not -n <= k < n]
    if bad:
        raise ValueError(f"frame index {bad[0]} is out of range: the series has {n} frames (0..{n - 1} or -1..-{n})")
    return [k % n for k in frames]


def _cell_types(mesh) -> np.ndarray:
    """VTK cell types of an unstructured grid (VTU) or of PolyData (VTP: polylines per rod)."""
    if hasattr(mesh, "celltypes"):
        return np.asarray(mesh.celltypes)
    return np.array([mesh.GetCellType(i) for i in range(mesh.n_cells)], dtype=int)


def _kind(mesh) -> str:
    types = _cell_types(mesh)
    if "d1" in mesh.point_data and types.size and np.all(types == 1):  # VTK_VERTEX
        return "rigid"
    if "radius" in mesh.point_data:
        return "rod"
    return "field"


def _to_rgb_png(img: np.ndarray, path: Path) -> Path:
    from PIL import Image

    image = Image.fromarray(np.ascontiguousarray(img[..., :3]))
    return write_via(path, lambda p: image.save(p))


def _write_gif(images: list[np.ndarray], path: Path, fps: float) -> Path:
    from PIL import Image

    frames = [Image.fromarray(np.ascontiguousarray(im[..., :3])) for im in images]
    return write_via(path, lambda p: frames[0].save(p, save_all=True, append_images=frames[1:],
                                                   duration=int(1000 / fps), loop=0))


def _scene_3d(meshes, times, kind: str, size: tuple[int, int], title: str = ""):
    """Yield a screenshot per mesh with a fixed camera."""
    import pyvista as pv

    pv.OFF_SCREEN = True
    with pv.vtk_verbosity("off"):  # silence VTK's "bad X server connection" before its off-screen fallback
        yield from _screenshots(meshes, times, kind, size, title)


def _screenshots(meshes, times, kind: str, size: tuple[int, int], title: str = ""):
    import pyvista as pv

    bounds = np.array([m.bounds for m in meshes])
    lo, hi = bounds[:, 0::2].min(0), bounds[:, 1::2].max(0)
    span = float(np.max(hi - lo))
    if kind == "rigid":  # include the fixed point (origin) the body is drawn from
        lo, hi = np.minimum(lo, 0.0), np.maximum(hi, 0.0)
        span = max(float(np.max(hi - lo)), 1.0 if span == 0.0 else span)
    span = span if span > 0.0 else 1.0
    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    try:
        plotter.renderers.set_background("white")  # = Plotter.set_background (_PYVISTA_WRAPS)
        box = pv.Box(bounds=(lo[0] - 0.15 * span, hi[0] + 0.15 * span, lo[1] - 0.15 * span,
                             hi[1] + 0.15 * span, lo[2] - 0.15 * span, hi[2] + 0.15 * span))
        clim = None
        if kind == "rod" and all("moment_magnitude" in m.point_data for m in meshes):
            mm = np.concatenate([np.asarray(m.point_data["moment_magnitude"]) for m in meshes])
            clim = [float(mm.min()), float(mm.max()) if mm.max() > mm.min() else float(mm.min()) + 1.0]
        for i, (mesh, t) in enumerate(zip(meshes, times)):
            plotter.clear_actors()
            if kind == "rod":
                _draw_rod(plotter, mesh, span, clim)
            else:
                trail = np.concatenate([np.asarray(m.points) for m in meshes[: i + 1]])
                _draw_rigid(plotter, mesh, trail, span)
            # the time in the lower-left corner, a margin inside the window (upper_left clipped "t = 10")
            plotter.add_text(f"t = {t:.4g}", position=(12, 10), font_size=11, color="black")
            _decorate(plotter, mesh, title)
            if i == 0:
                _place_camera(plotter, lo, hi, span, meshes if kind == "rod" else None)
                plotter.reset_camera(bounds=box.bounds)  # type: ignore[call-arg]  # _PYVISTA_WRAPS
            # The camera stays put, but its near/far planes must hold this frame's geometry. Left as frame 0
            # set them, a rod that later comes closer to the camera is clipped away (reliability review
            # item 7). They are reset from the box around every frame of the series, not from the actors:
            # the actors' bounds are stale until their pipelines run (measured: a props-based reset still
            # left frame -1 of the flying spaghetti blank when rendered right after frame 0).
            plotter.renderer.ResetCameraClippingRange(box.bounds)
            yield plotter.screenshot(return_img=True)
    finally:
        plotter.close()


def view_direction(meshes) -> tuple[np.ndarray, np.ndarray]:
    """(view direction, up) from the principal planes of the motion and of the shape: the eigenvector of the
    smallest eigenvalue of C_motion/tr + C_shape/tr (covariances of the displacements from the first frame and
    of the first frame's points), so the largest motion and the largest extent of the shape both lie in the
    picture (an out-of-plane deflection of a planar frame is seen from the side, not head-on)."""
    X0 = np.asarray(meshes[0].points, dtype=float)
    Cg = np.cov((X0 - X0.mean(0)).T) if X0.shape[0] > 1 else np.zeros((3, 3))
    C = Cg / max(float(np.trace(Cg)), 1e-300)
    same = [np.asarray(m.points, dtype=float) for m in meshes if m.n_points == X0.shape[0]]
    D = np.concatenate([X - X0 for X in same]) if same else np.zeros((1, 3))
    Cm = D.T @ D
    if np.trace(Cm) > 1e-24 * max(float(np.trace(Cg)), 1.0):
        C = C + Cm / float(np.trace(Cm))
    w, V = np.linalg.eigh(C)
    view, up = V[:, 0], V[:, 2]
    if w[0] > 0.1 * w[2]:  # shape and motion fill three dimensions: oblique, every principal axis visible
        view = V @ np.array([1.0, 0.7, 0.5])
        view /= np.linalg.norm(view)
    if abs(view[2]) < 0.9 and abs(np.cross(view, [0.0, 0.0, 1.0])).max() > 1e-6:
        up = np.array([0.0, 0.0, 1.0]) - view[2] * view  # keep e_z up when it is in the picture
        up /= np.linalg.norm(up)
    return view, up


def _place_camera(plotter, lo: np.ndarray, hi: np.ndarray, span: float, meshes=None) -> None:
    """Camera along ``view_direction`` of the series (planar motion face-on); isometric without meshes."""
    if meshes is None:
        plotter.camera_position = "iso"
        return
    view, up = view_direction(meshes)
    plotter.view_vector(view, viewup=up)


def _decorate(plotter, mesh, title: str) -> None:
    """Axes with length labels (a scale), the triad and a title (case from the frame's field data)."""
    unit = "m" if "array_units" in getattr(mesh, "field_data", {}) else "length"
    # three labels per axis and small fonts: the default five overlapped each other and the title (review)
    plotter.show_bounds(xtitle=f"x [{unit}]", ytitle=f"y [{unit}]", ztitle=f"z [{unit}]", color="black",
                        font_size=8, grid=False, location="outer", ticks="outside", n_xlabels=3, n_ylabels=3,
                        n_zlabels=3, fmt="%.3g")
    plotter.add_axes(color="black")
    case = ""
    if "case" in getattr(mesh, "field_data", {}):
        case = str(np.asarray(mesh.field_data["case"]).ravel()[0])
    if case or title:
        plotter.add_title(" ".join(x for x in (case, title) if x), font_size=10, color="black")


def _glyph_points(mesh, n_max: int = 12):
    import pyvista as pv

    idx = np.unique(np.linspace(0, mesh.n_points - 1, min(n_max, mesh.n_points)).round().astype(int))
    pts = pv.PolyData(np.asarray(mesh.points)[idx])
    for d in _COLOURS:
        if d in mesh.point_data:
            pts.point_data[d] = np.asarray(mesh.point_data[d])[idx]
    return pts


def _lines(mesh):
    """The rod(s) as PolyData lines: a VTP's polylines as they are, a VTU's line cells converted."""
    import pyvista as pv

    if not hasattr(mesh, "cells_dict"):
        return mesh
    conn = mesh.cells_dict.get(3)  # VTK_LINE connectivity (n_edges, 2)
    lines = pv.PolyData(np.asarray(mesh.points), lines=np.hstack([np.full((len(conn), 1), 2), conn]).ravel())
    for k in mesh.point_data:
        lines.point_data[k] = np.asarray(mesh.point_data[k])
    return lines


def _scale(mesh) -> float:
    fd = getattr(mesh, "field_data", {})
    return float(np.asarray(fd["display_scale"]).ravel()[0]) if "display_scale" in fd else 1.0


def _draw_rod(plotter, mesh, span: float, clim=None) -> None:
    import pyvista as pv

    lines = _lines(mesh)
    scale = _scale(mesh)
    lines.point_data["tube_radius"] = scale * np.asarray(mesh.point_data["radius"])
    tube = lines.tube(scalars="tube_radius", absolute=True, n_sides=16)
    if "moment_magnitude" in mesh.point_data:  # engineering frames: colour by |moment| with a labelled bar
        # a short bar title (a long one ran past the window's edge and over the tick labels: review item 8);
        # the tube scale in a note of its own
        title = "moment [N m]"
        if scale != 1.0:
            plotter.add_text(f"tubes: section radius x {scale:.3g}", position="upper_left", font_size=8,
                             color="black")
        plotter.add_mesh(tube, scalars="moment_magnitude", cmap="viridis", clim=clim, smooth_shading=True,
                         scalar_bar_args={"title": "", "color": "black", "fmt": "%.3g", "n_labels": 4,
                                          "label_font_size": 12, "vertical": True})
        # the bar's title as a text of its own above the bar (pyvista's vertical bar spans 0.02 … 0.47 of the
        # height at x = 0.9; its own title overlapped the top tick label and ran off the window: review item 8)
        w, h = plotter.window_size
        plotter.add_text(title, position=(int(0.8 * w), int(0.5 * h) + 8), font_size=7, color="black")
    else:
        plotter.add_mesh(tube, color="#d9a441", smooth_shading=True)
    pts = _glyph_points(mesh)
    r = scale * float(np.max(mesh.point_data["radius"]))
    length = max(4.0 * r, 0.06 * span)
    for d, colour in _COLOURS.items():
        if d in pts.point_data:
            plotter.add_mesh(pts.glyph(orient=d, scale=False, factor=length, geom=pv.Arrow()), color=colour)


def _draw_rigid(plotter, mesh, trail: np.ndarray, span: float) -> None:
    import pyvista as pv

    length = 0.3 * span
    for p in np.asarray(mesh.points):
        plotter.add_mesh(pv.Sphere(radius=0.05 * span, center=p), color="#d9a441")
        plotter.add_mesh(pv.Line((0.0, 0.0, 0.0), p), color="grey", line_width=3)
    for d, colour in _COLOURS.items():
        plotter.add_mesh(mesh.glyph(orient=d, scale=False, factor=length, geom=pv.Arrow()), color=colour)
    if trail.shape[0] > 1:
        plotter.add_mesh(pv.lines_from_points(trail), color="black", line_width=2)


def _scene_field(meshes, times, size: tuple[int, int]):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = [k for k in meshes[0].point_data if np.asarray(meshes[0].point_data[k]).ndim == 1]
    vals = {k: np.concatenate([np.asarray(m.point_data[k]) for m in meshes]) for k in names}
    for mesh, t in zip(meshes, times):
        fig = Figure(figsize=(size[0] / 100, size[1] / 100), dpi=100)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        x = np.asarray(mesh.points)[:, 0]
        for k in names:
            ax.plot(x, np.asarray(mesh.point_data[k]), label=k)
        if names:
            lo = min(float(vals[k].min()) for k in names)
            hi = max(float(vals[k].max()) for k in names)
            pad = 0.05 * (hi - lo) if hi > lo else 1.0
            ax.set_ylim(lo - pad, hi + pad)
            ax.legend(loc="upper right")
        ax.set_xlabel("x")
        ax.set_title(f"t = {t:.4g}")
        fig.tight_layout()
        canvas.draw()
        yield np.asarray(canvas.buffer_rgba())


def _overlay_image(meshes, times, size: tuple[int, int], title: str = "overlay") -> np.ndarray:
    """All rod frames in one picture, tubes coloured by time (viridis), one camera for all."""
    import matplotlib
    import pyvista as pv

    pv.OFF_SCREEN = True
    bounds = np.array([m.bounds for m in meshes])
    lo, hi = bounds[:, 0::2].min(0), bounds[:, 1::2].max(0)
    span = float(np.max(hi - lo)) or 1.0
    cmap = matplotlib.colormaps["viridis"]
    t0, t1 = times[0], times[-1] if times[-1] > times[0] else times[0] + 1.0
    with pv.vtk_verbosity("off"):
        plotter = pv.Plotter(off_screen=True, window_size=list(size))
        try:
            plotter.renderers.set_background("white")  # = Plotter.set_background (_PYVISTA_WRAPS)
            for mesh, t in zip(meshes, times):
                lines = _lines(mesh)
                radius = max(_scale(mesh) * float(np.max(mesh.point_data["radius"])), span / 250)
                plotter.add_mesh(lines.tube(radius=radius, n_sides=12), color=cmap((t - t0) / (t1 - t0))[:3],
                                 smooth_shading=True)
            plotter.add_text(f"t = {times[0]:.3g} … {times[-1]:.3g}  (colour: time, viridis from dark to light)",
                             position="upper_left", font_size=11, color="black")
            _place_camera(plotter, lo, hi, span, meshes)
            plotter.reset_camera()  # type: ignore[call-arg]  # _PYVISTA_WRAPS
            _decorate(plotter, meshes[-1], title)
            img = plotter.screenshot(return_img=True)
            assert img is not None  # return_img=True returns the image
            return img
        finally:
            plotter.close()


def _render_series(pvd: Path, fig_dir: Path, frames: list[int] | None, gif: bool,
                   size: tuple[int, int], max_gif_frames: int, fps: float, overlay: bool = False,
                   scale: float = 1.0) -> list[Path]:
    import pyvista as pv

    entries = read_pvd(pvd)
    if not entries:
        logger.warning("%s has no frames; nothing to render", pvd)
        return []
    n = len(entries)
    if overlay:
        chosen = _select(n, frames) if frames is not None else list(np.unique(np.linspace(0, n - 1, min(n, 24)).round().astype(int)))
        meshes = [pv.read(entries[k][1]) for k in chosen]
        if _kind(meshes[0]) != "rod":
            raise ValueError(f"--overlay draws rods only; {pvd.name} holds another kind of series")
        meshes = _magnify(meshes, pv.read(entries[0][1]), scale)
        img = _overlay_image(meshes, [entries[k][0] for k in chosen], size, _scale_title("overlay", scale))
        overlay_png = _to_rgb_png(img, fig_dir / f"{pvd.stem}_overlay.png")
        if not gif:  # --overlay alone: the snapshot figure only; with --gif the animation too (review §3)
            return [overlay_png]
        return [overlay_png] + _render_series(pvd, fig_dir, [n - 1], gif, size, max_gif_frames, fps, overlay=False,
                                              scale=scale)
    chosen = _select(n, frames)
    gif_idx = list(np.unique(np.linspace(0, n - 1, min(n, max_gif_frames)).round().astype(int))) if gif else []
    needed = sorted(set(chosen) | set(gif_idx) | {0})  # frame 0: the reference of the motion (camera)
    by_frame = {k: pv.read(entries[k][1]) for k in needed}
    kind = _kind(by_frame[needed[0]])
    if scale != 1.0 and kind != "rod":
        raise ValueError(f"--scale magnifies the deformation of rods and frames; {pvd.name} holds a {kind} series")
    name = pvd.stem
    order = needed
    mlist, tlist = [by_frame[k] for k in order], [entries[k][0] for k in order]
    mlist = _magnify(mlist, by_frame[0], scale)
    scene = (_scene_field(mlist, tlist, size) if kind == "field"
             else _scene_3d(mlist, tlist, kind, size, _scale_title("", scale)))
    images = dict(zip(order, scene))
    out = [_to_rgb_png(images[k], fig_dir / f"{name}_frame{k:06d}.png") for k in chosen]
    if gif:
        out.append(_write_gif([images[k] for k in gif_idx], fig_dir / f"{name}.gif", fps))
    return out


def _scale_title(title: str, scale: float) -> str:
    return title if scale == 1.0 else " ".join(x for x in (title, f"(displacements x {scale:g})") if x)


def render_run(
    run_dir: str | os.PathLike[str],
    frames: list[int] | None = None,
    *,
    gif: bool = False,
    size: tuple[int, int] = (800, 600),
    max_gif_frames: int = 60,
    fps: float = 12.0,
    overlay: bool = False,
    scale: float = 1.0,
) -> list[Path]:
    """Render every ParaView series of a run folder into ``run_dir/figures``; return the files.

    ``scale`` magnifies the deformation of rods and frames: every frame is drawn at ``deformed_points``
    (frame 0 + scale × the displacement from frame 0), the title says "(displacements x scale)".

    Raises
    ------
    FileNotFoundError
        ``run_dir`` does not exist or has no ``paraview/*.pvd``.
    ValueError
        A frame index is out of range.
    """
    run_dir = Path(run_dir)
    scale = _check_scale(scale)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"run folder {run_dir} does not exist; give a folder made by `lgbeam run`")
    pvds = sorted((run_dir / "paraview").glob("*.pvd"))
    # the per-edge companion of a series (<name>-edges.pvd) shows the same rods: one picture of <name>.pvd
    pvds = [p for p in pvds if not (p.stem.endswith("-edges") and p.with_name(p.stem[:-6] + ".pvd") in pvds)]
    if not pvds:
        raise FileNotFoundError(f"no ParaView series in {run_dir / 'paraview'}; was the case run with output.vtk = true?")
    fig_dir = run_dir / "figures"
    out: list[Path] = []
    with run_folder(run_dir):  # no picture written through a link in the run folder
        try:
            make_dirs(fig_dir)
        except OSError as exc:
            raise PermissionError(f"cannot create {fig_dir}: {exc.strerror or exc}") from exc
        for pvd in pvds:
            out += _render_series(pvd, fig_dir, frames, gif, size, max_gif_frames, fps, overlay, scale)
    return out
