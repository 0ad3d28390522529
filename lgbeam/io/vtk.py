"""ParaView output: one VTU per saved frame (meshio) plus a ``.pvd`` collection with physical times.

Layout (relative paths, so a run folder can be moved)::

    paraview/<name>.pvd
    paraview/<name>/<name>_000000.vtu, <name>_000001.vtu, ...      (.vtp for PolyFrames)
    paraview/<name>-edges.pvd, paraview/<name>-edges/...           (PolyFrames with edges)

The ``.pvd`` is rewritten after every frame through a temporary file and ``os.replace`` (atomic on
POSIX), and each VTU is complete on disk before the ``.pvd`` names it. VTP frames are written whole through
``lgbeam.io.atomic.FolderWriter`` (the series folder checked for links once and held open; per frame one
exclusive create and one rename, no path resolution: ≈ 0.4 ms a frame instead of ≈ 1.5 ms, #34). A run killed at any moment
therefore leaves a ``.pvd`` that opens in ParaView with every frame written so far.

Frame builders give the three kinds of data lgbeam writes:

``rod_frame``
    a rod as a polyline: directors ``d1, d2, d3`` (columns of R, for Glyph filters), ``quaternion``,
    ``radius`` (for the Tube filter), optional velocity / angular velocity (point data) and per-edge
    cell data (curvature ``K``, strain ``Gamma``, internal moment and force, multipliers ``lam``);
``rigid_body_frame``
    rigid bodies as vertices with their frames (heavy top);
``line_frame``
    a PDE solution on a 1-D grid as a line mesh with one array per field (complex fields are
    split into ``<name>_re``, ``<name>_im``, ``<name>_abs``).
``PolyFrame``
    rods and frames of rods as PolyData (``.vtp``): one VTK_POLY_LINE per rod (ParaView's Tube filter
    applies directly), point data, one cell-data row per rod, and field data (strings: names, units and
    frames of the arrays; numbers: reactions). Written in one pass by ``write_vtp`` (VTK XML, inline binary, zlib). Its optional
    ``edges`` (a ``PolyFrame`` on the same points with one VTK_LINE cell per edge and per-edge cell data) goes
    to the companion series ``paraview/<name>-edges.pvd``, frame for frame (``PVDSeries(edges=True)``).

Usage::

    with PVDSeries(run_dir / "paraview" / "rod.pvd") as series:
        series.write_frame(t, rod_frame(positions, rotations, radius=0.01))
        series.write(t, points, cells=[("line", conn)], point_data={...}, cell_data={...})
"""

from __future__ import annotations

import base64
import functools
import logging
import math
import os
import struct
import sys
import time
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import numpy as np

from lgbeam.groups.base import quat_to_matrix
from lgbeam.io.atomic import FolderWriter, atomic_path, checked_path
from lgbeam.io.run import check_name

logger = logging.getLogger(__name__)

__all__ = ["Frame", "PVDSeries", "PolyFrame", "line_frame", "linked_bodies_frame", "read_pvd", "read_vtp",
           "rigid_body_frame", "rod_frame", "vtp_bytes", "write_vtp"]



@dataclass(frozen=True)
class Frame:
    """One VTU's content: points ``(n, 3)``, meshio cell blocks, point and cell data.

    ``cell_data`` maps a name to one array per cell block (meshio's convention); a single-block
    frame may give the array directly.
    """

    points: np.ndarray
    cells: list[tuple[str, np.ndarray]]
    point_data: dict[str, np.ndarray] = field(default_factory=dict)
    cell_data: dict[str, Any] = field(default_factory=dict)


def _as_points(points: Any) -> np.ndarray:
    pts = np.asarray(points, dtype=float)
    if pts.ndim == 2 and pts.shape[1] in (1, 2):  # pad 1-D / 2-D coordinates to 3-D
        pts = np.concatenate([pts, np.zeros((pts.shape[0], 3 - pts.shape[1]))], axis=1)
    if pts.ndim != 2 or pts.shape[1] != 3:
        raise ValueError(f"VTK points must have shape (n_points, 3), got {pts.shape}; stack x, y, z as columns")
    if not np.all(np.isfinite(pts)):
        raise ValueError("VTK points contain NaN or inf; the simulation state is not finite at this frame")
    return pts


@dataclass(frozen=True)
class PolyFrame:
    """One VTP's content: points ``(n, 3)``, ``lines`` (one index array per polyline, e.g. per rod; or a 2-D
    ``(n_cells, k)`` array, one cell per row, e.g. ``(n_edges, 2)`` VTK_LINE cells), point data (first axis n),
    cell data (first axis = number of lines) and field data (arrays, or lists of strings).

    ``edges``: an optional second frame on the same points (e.g. each edge a VTK_LINE cell with per-edge cell
    data) that ``PVDSeries`` writes into its companion series ``<name>-edges.pvd``; a tuple of the five (or six)
    fields, such as ``frames.output.EngineeringFrame``, is converted to a ``PolyFrame``."""

    points: np.ndarray
    lines: list[np.ndarray] | np.ndarray
    point_data: dict[str, np.ndarray] = field(default_factory=dict)
    cell_data: dict[str, np.ndarray] = field(default_factory=dict)
    field_data: dict[str, Any] = field(default_factory=dict)
    edges: PolyFrame | None = None

    def __post_init__(self) -> None:
        if self.edges is not None and not isinstance(self.edges, PolyFrame):
            object.__setattr__(self, "edges", PolyFrame(*self.edges))

    @property
    def cells(self) -> list[tuple[str, np.ndarray]]:
        """The lines' point indices as one block (for size estimates)."""
        if isinstance(self.lines, np.ndarray) and self.lines.ndim == 2:
            return [("line", self.lines)]
        return [("polyline", np.concatenate([np.asarray(ln) for ln in self.lines])[:, None])]


def _cell_array(lines: list[np.ndarray] | np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, connectivity) of ``lines`` (module ``PolyFrame``), checked against ``n`` points."""
    if isinstance(lines, np.ndarray) and lines.ndim == 2:
        conn2 = lines.astype(np.int64)
        n_cells, k = conn2.shape
        offsets = np.arange(0, n_cells * k + 1, k, dtype=np.int64)
        conn = conn2.ravel()
        ok = k >= 2
    else:
        parts = [np.asarray(ln, dtype=np.int64) for ln in lines]
        ok = all(ln.ndim == 1 and ln.size >= 2 for ln in parts)
        offsets = np.concatenate([[0], np.cumsum([ln.size for ln in parts])]).astype(np.int64)
        conn = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    if not ok or (conn.size and (conn.min() < 0 or conn.max() >= n)):
        raise ValueError(f"each line must list >= 2 point indices in [0, {n})")
    return offsets, conn


_ATTR_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;",
                               "\r": "&#13;", "\t": "&#9;"})


@functools.lru_cache(maxsize=4096)
def _name_attr(name: str) -> str:
    """``Name="..."`` with the XML attribute escapes (``xml.sax.saxutils`` imports urllib, http and ssl)."""
    return f'Name="{name.translate(_ATTR_ESCAPES)}"'


_VTK_TYPES = {"f8": "Float64", "f4": "Float32", "i1": "Int8", "u1": "UInt8", "i2": "Int16", "u2": "UInt16",
              "i4": "Int32", "u4": "UInt32", "i8": "Int64", "u8": "UInt64"}
_EMPTY_BLOCK = base64.b64encode(struct.pack("<3Q", 0, 1 << 15, 0)).decode("ascii")


def _binary(raw: bytes, compress: bool) -> str:
    """VTK XML ``format="binary"`` with UInt64 headers. Plain: base64 of [byte count] + bytes. Compressed
    (``vtkZLibDataCompressor``): base64 of the header [blocks = 1, block size, last block size, compressed
    size], then base64 of the zlib stream."""
    if not compress:
        return base64.b64encode(struct.pack("<Q", len(raw)) + raw).decode("ascii")
    if not raw:
        return _EMPTY_BLOCK
    packed = zlib.compress(raw, 6)
    header = struct.pack("<4Q", 1, len(raw), len(raw), len(packed))
    return (base64.b64encode(header) + base64.b64encode(packed)).decode("ascii")


@functools.lru_cache(maxsize=1024)
def _string_array(name: str, strings: tuple[str, ...], compress: bool) -> str:
    """``<Array type="String">`` of ``strings`` (each NUL-terminated UTF-8); the same names and units recur in
    every frame of a series, so each distinct one is encoded once."""
    raw = b"".join(x.encode("utf-8") + b"\0" for x in strings)
    return (f'<Array type="String" {_name_attr(name)} NumberOfTuples="{len(strings)}" format="binary">'
            f"{_binary(raw, compress)}</Array>\n")


def _xml_array(name: str, a: Any, tuples: bool, compress: bool) -> str:
    """One ``<DataArray>`` (numbers; bool as Int8; components = the product of the trailing axes) or
    ``<Array type="String">`` (a list of strings: each NUL-terminated UTF-8) element."""
    if isinstance(a, (list, tuple)) and all(isinstance(x, str) for x in a):
        return _string_array(name, tuple(a), compress)
    v = a if isinstance(a, np.ndarray) else np.asarray(a)
    if v.dtype == bool:
        v = v.astype(np.int8)
    kind = _VTK_TYPES.get(v.dtype.str[1:])
    if kind is None:
        raise ValueError(f"array '{name}' has dtype {v.dtype}; VTK output takes real numbers, integers, "
                         "booleans or lists of strings")
    comps = math.prod(v.shape[1:]) if v.ndim > 1 and v.size else 1
    extra = f' NumberOfTuples="{v.size // comps}"' if tuples else ""
    if v.dtype.byteorder == ">" or (v.dtype.byteorder == "=" and sys.byteorder == "big"):
        v = v.astype(v.dtype.newbyteorder("<"))
    raw = v.tobytes()  # C order whatever the strides
    return (f'<DataArray type="{kind}" {_name_attr(name)} NumberOfComponents="{comps}"{extra} format="binary">'
            f"{_binary(raw, compress)}</DataArray>\n")


def write_vtp(path: str | os.PathLike[str], frame: PolyFrame, *, compress: bool = False) -> None:
    """Write ``frame`` as VTK XML PolyData to ``path`` (``vtp_bytes``; not atomic: ``PVDSeries`` renames)."""
    Path(path).write_bytes(vtp_bytes(frame, compress=compress))


def vtp_bytes(frame: PolyFrame, *, compress: bool = False) -> bytes:
    """The VTK XML PolyData file of ``frame``, built in one pass.

    Every array is inline binary (VTK's ``format="binary"``: base64, UInt64 headers), plain or with ``compress``
    one zlib block per array; ``vtkXMLPolyDataReader`` (ParaView, pyvista) reads either, and the file is also
    plain XML. Plain is the default: simulation doubles shrink by little under zlib, while deflate's set-up
    per array costs more than the rest of the writing for a small rod."""
    pts = _as_points(frame.points)
    n = pts.shape[0]
    offsets, conn = _cell_array(frame.lines, n)
    zlib_attr = ' compressor="vtkZLibDataCompressor"' if compress else ""
    head = ('<?xml version="1.0"?>\n<VTKFile type="PolyData" version="1.0" byte_order="LittleEndian" '
            f'header_type="UInt64"{zlib_attr}>\n<PolyData>\n<FieldData>\n')
    out = [head]
    out += [_xml_array(name, a if isinstance(a, (list, tuple)) else np.atleast_1d(a), True, compress)
            for name, a in frame.field_data.items()]
    out.append(f'</FieldData>\n<Piece NumberOfPoints="{n}" NumberOfVerts="0" NumberOfLines="{offsets.size - 1}" '
               'NumberOfStrips="0" NumberOfPolys="0">\n')
    for what, tag, data, size in (("point", "PointData", frame.point_data, n),
                                  ("cell", "CellData", frame.cell_data, offsets.size - 1)):
        out.append(f"<{tag}>\n")
        for name, a in data.items():
            if np.shape(a)[:1] != (size,):
                raise ValueError(f"{what} data '{name}' has shape {np.shape(a)}; its first axis must be {size}")
            out.append(_xml_array(name, a, False, compress))
        out.append(f"</{tag}>\n")
    out += ["<Points>\n", _xml_array("Points", pts, False, compress), "</Points>\n<Lines>\n",
            _xml_array("connectivity", conn, False, compress), _xml_array("offsets", offsets[1:], False, compress),
            "</Lines>\n</Piece>\n</PolyData>\n</VTKFile>\n"]
    return "".join(out).encode("utf-8")


_NUMPY_TYPES = {v: k for k, v in _VTK_TYPES.items()}


def _decode(el: ET.Element, header: str, compressed: bool, order: str) -> np.ndarray:
    """The values of one inline ``<DataArray>`` (``format="ascii"`` or ``"binary"``, plain or zlib blocks),
    one row per tuple when it has several components."""
    kind, fmt, text = el.get("type", ""), el.get("format"), (el.text or "").strip()
    if kind not in _NUMPY_TYPES:
        raise ValueError(f"array '{el.get('Name')}' has VTK type {kind!r}, not a number type")
    dtype = np.dtype(order + _NUMPY_TYPES[kind])
    if fmt == "ascii":
        data = np.array(text.split(), dtype=float).astype(dtype)
    elif fmt == "binary" and not compressed:
        raw = base64.b64decode(text)
        size = np.dtype(header).itemsize
        data = np.frombuffer(raw, dtype, int(np.frombuffer(raw[:size], header)[0]) // dtype.itemsize, size)
    elif fmt == "binary":
        size = np.dtype(header).itemsize  # header: blocks, block size, last block size, compressed sizes
        blocks = int(np.frombuffer(base64.b64decode(text[:4 * size]), header)[0])
        head = 4 * -(-(3 + blocks) * size // 3)
        sizes = np.frombuffer(base64.b64decode(text[:head]), header)[3:].astype(np.int64)
        body = base64.b64decode(text[head:])
        ends = np.cumsum(sizes)
        data = np.frombuffer(b"".join(zlib.decompress(body[e - c:e]) for c, e in zip(sizes, ends, strict=True)),
                             dtype)
    else:
        raise ValueError(f"array '{el.get('Name')}' is stored as {fmt!r}; read_vtp reads inline ascii or binary")
    comps = int(el.get("NumberOfComponents", "1"))
    return data.reshape(-1, comps) if comps > 1 else data


def read_vtp(path: str | os.PathLike[str],
             names: tuple[str, ...] | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Points ``(n, 3)`` and the numeric point-data arrays of a ``.vtp`` with inline data: the files ``write_vtp``
    writes and those of VTK's XML writer in binary or ascii mode (plain or zlib, UInt32 or UInt64 headers), as
    earlier versions of lgbeam wrote them. Light (no VTK import): what the ParaView state reads from every frame.
    ``names``: only these point-data arrays are decoded (those present). ValueError for anything else (appended
    data, another compressor, not PolyData)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"{path} is not a VTK XML file: {exc}") from exc
    compressor = root.get("compressor")
    piece = root.find("PolyData/Piece")
    if root.get("type") != "PolyData" or piece is None or compressor not in (None, "vtkZLibDataCompressor"):
        raise ValueError(f"{path} is not VTK XML PolyData with inline, uncompressed or zlib data")
    header = "<u8" if root.get("header_type") == "UInt64" else "<u4"
    order = ">" if root.get("byte_order") == "BigEndian" else "<"
    header = order + header[1:]
    arrays = {el.get("Name", ""): _decode(el, header, compressor is not None, order)
              for el in piece.iterfind("PointData/DataArray") if names is None or el.get("Name", "") in names}
    pts = piece.find("Points/DataArray")
    points = np.zeros((0, 3)) if pts is None else _decode(pts, header, compressor is not None, order).reshape(-1, 3)
    return points.astype(float), arrays


def _check_frame(frame: Frame) -> tuple[np.ndarray, list[tuple[str, np.ndarray]], dict, dict]:
    pts = _as_points(frame.points)
    n_pts = pts.shape[0]
    cells = [(str(kind), np.asarray(conn, dtype=np.int64)) for kind, conn in frame.cells]
    for kind, conn in cells:
        if conn.ndim != 2:
            raise ValueError(f"cell block '{kind}' must be a 2-D connectivity array, got shape {conn.shape}")
        if conn.size and (conn.min() < 0 or conn.max() >= n_pts):
            raise ValueError(f"cell block '{kind}' refers to point {conn.max()} but there are {n_pts} points")
    point_data = {}
    for name, arr in frame.point_data.items():
        a = np.asarray(arr)
        if a.shape[:1] != (n_pts,):
            raise ValueError(f"point data '{name}' has shape {a.shape}; its first axis must be n_points={n_pts}")
        point_data[name] = a
    cell_data = {}
    for name, arr in frame.cell_data.items():
        blocks = list(arr) if isinstance(arr, (list, tuple)) else [arr]
        if len(blocks) != len(cells):
            raise ValueError(f"cell data '{name}' has {len(blocks)} blocks but the frame has {len(cells)} cell blocks")
        blocks = [np.asarray(b) for b in blocks]
        for (kind, conn), b in zip(cells, blocks):
            if b.shape[:1] != (conn.shape[0],):
                raise ValueError(
                    f"cell data '{name}' has shape {b.shape}; its first axis must be the {conn.shape[0]} '{kind}' cells"
                )
        cell_data[name] = blocks
    return pts, cells, point_data, cell_data


def _write_atomic(path: Path, write: Any, suffix: str = ".tmp") -> None:
    """Call ``write(tmp_path)`` on a temporary file in ``path``'s folder, then rename it to ``path``
    (``lgbeam.io.atomic.atomic_path``: normal permissions, removed on failure)."""
    with atomic_path(path, suffix) as tmp:
        write(tmp)


class PVDSeries:
    """A ParaView time series: ``<name>.pvd`` plus one VTU per frame in ``<name>/``.

    Parameters
    ----------
    pvd_path
        Path of the collection file, e.g. ``run_dir / "paraview" / "rod.pvd"``; its stem is the
        series name. Missing folders are created.
    overwrite
        If ``False`` and ``pvd_path`` exists, raise ``ValueError``; if ``True`` (default) start a
        new series (old frames of the same name are replaced as they are rewritten).
    keep
        Continue an existing series (``--resume``): keep its first ``keep`` frames, delete the frame files
        listed after them (written after the last checkpoint), and append from there.
    edges
        Write the ``edges`` of a ``PolyFrame`` into the companion series ``<name>-edges.pvd`` (frames in
        ``<name>-edges/``; one companion frame per frame, same times; ``keep`` truncates it too). False: ignore
        them.

    pvd_seconds
        Rewrite the ``.pvd`` at most this often (wall seconds; 0: after every frame). It is always rewritten for
        the first frames, on ``flush()`` (a run's checkpoints) and on ``close()``; in between, frames already on
        disk may be missing from it. A series of n frames thus costs O(n) rewrites of the collection, not n.

    Notes
    -----
    ``write`` returns the path of the new VTU. Times must be finite and non-decreasing. The
    ``.pvd`` is valid at every moment (temporary file + ``os.replace``).
    """

    def __init__(self, pvd_path: str | os.PathLike[str], *, overwrite: bool = True, keep: int | None = None,
                 edges: bool = True, pvd_seconds: float = 2.0) -> None:
        self.path = Path(pvd_path)
        self.pvd_seconds, self._pvd_written, self._pvd_stale = pvd_seconds, -math.inf, False
        if self.path.suffix != ".pvd":
            raise ValueError(f"ParaView collection must end in .pvd, got {self.path.name!r}")
        self.name = check_name(self.path.stem, "series name")
        if self.path.exists() and not overwrite:
            raise ValueError(f"{self.path} already exists; pass overwrite=True or choose another name")
        self.frame_dir = self.path.parent / self.name
        try:
            self._files = FolderWriter(self.frame_dir)  # the frames: checked once, each written whole
        except OSError as exc:
            raise PermissionError(f"cannot create ParaView folder {self.frame_dir}: {exc.strerror}") from exc
        self.entries: list[tuple[float, str]] = []
        self.closed = False
        if keep is not None and self.path.exists():
            old = [(t, p.relative_to(self.path.parent).as_posix()) for t, p in read_pvd(self.path)]
            if len(old) < keep:
                raise ValueError(f"{self.path} lists {len(old)} frames, fewer than the {keep} to keep")
            own = [self._own_frame(rel, i) for i, (_, rel) in enumerate(old)]
            if not all(own[:keep]):
                raise ValueError(f"{self.path} lists frames this series did not write (a file outside "
                                 f"{self.frame_dir.name}/ or not named {self.name}_NNNNNN.vtu/.vtp); the run folder "
                                 "was modified: rerun the case")
            for (_, rel), mine in zip(old[keep:], own[keep:], strict=True):
                if mine:  # a frame file of this series in its own folder; anything else listed is left alone
                    checked_path(self.path.parent / rel).unlink(missing_ok=True)
            self.entries = old[:keep]
        self._write_pvd()
        self.edges = edges
        self.edges_path = self.path.with_name(f"{self.name}-edges.pvd")
        self._edges: PVDSeries | None = None
        if edges and keep is not None and self.edges_path.exists():
            self._edges = PVDSeries(self.edges_path, keep=keep, edges=False, pvd_seconds=pvd_seconds)

    def _own_frame(self, rel: str, index: int) -> bool:
        """Whether ``rel`` (a .pvd entry) is the ``index``-th frame file this series writes: exactly
        ``<name>/<name>_<index>.vtu`` or ``.vtp`` (no other folder, no ``..``, no link)."""
        ok = rel in (f"{self.name}/{self.name}_{index:06d}.vtu", f"{self.name}/{self.name}_{index:06d}.vtp")
        return ok and not (self.path.parent / rel).is_symlink()

    # context manager -------------------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Finish the series: the ``.pvd`` lists every frame; no further frames."""
        if not self.closed:
            self.flush()
        self.closed = True
        self._files.close()
        if self._edges is not None:
            self._edges.close()

    def flush(self) -> None:
        """Rewrite the ``.pvd`` (and the companion's) if frames were written since it was last written."""
        if self._pvd_stale:
            self._write_pvd()
        if self._edges is not None:
            self._edges.flush()

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def times(self) -> list[float]:
        return [t for t, _ in self.entries]

    # writing ---------------------------------------------------------------------------------
    def write(
        self,
        t: float,
        points: Any,
        cells: list[tuple[str, Any]] | None = None,
        point_data: dict[str, Any] | None = None,
        cell_data: dict[str, Any] | None = None,
    ) -> Path:
        """Write one frame at physical time ``t`` and rewrite the ``.pvd``; return the VTU path.

        ``cells`` defaults to one polyline through all points in order.
        """
        pts = _as_points(points)
        if cells is None:
            idx = np.arange(pts.shape[0])
            cells = [("line", np.stack([idx[:-1], idx[1:]], axis=1))]
        frame = Frame(pts, list(cells), dict(point_data or {}), dict(cell_data or {}))
        return self.write_frame(t, frame)

    def write_frame(self, t: float, frame: Frame | PolyFrame) -> Path:
        """Write a ``Frame`` (VTU: ``rod_frame``, ``rigid_body_frame``, ``line_frame``) or a ``PolyFrame`` (VTP)
        at physical time ``t``."""
        if self.closed:
            raise ValueError(f"PVD series {self.path} is closed; open a new PVDSeries to write more frames")
        t = float(t)
        if not np.isfinite(t):
            raise ValueError(f"frame time must be finite, got {t}")
        if self.entries and t < self.entries[-1][0]:
            raise ValueError(f"frame time {t} is before the previous frame's {self.entries[-1][0]}; times must not decrease")
        if isinstance(frame, PolyFrame):
            if self.edges and frame.edges is not None:
                if self._edges is None:
                    self._edges = PVDSeries(self.edges_path, edges=False, pvd_seconds=self.pvd_seconds)
                self._edges.write_frame(t, frame.edges)
            file = f"{self.name}_{len(self.entries):06d}.vtp"
            rel, target = f"{self.name}/{file}", self.frame_dir / file
            self._files.write(file, vtp_bytes(frame))
        else:
            pts, cells, point_data, cell_data = _check_frame(frame)
            rel = f"{self.name}/{self.name}_{len(self.entries):06d}.vtu"
            target = self.path.parent / rel
            import meshio  # VTU frames only: the VTP frames of rods and frames are written with numpy

            mesh = meshio.Mesh(pts, cells, point_data=point_data, cell_data=cell_data)
            _write_atomic(target, lambda p: meshio.write(p, mesh, file_format="vtu"))
        self.entries.append((t, rel))
        self._pvd_stale = True
        if len(self.entries) <= 2 or time.monotonic() - self._pvd_written >= self.pvd_seconds:
            self._write_pvd()
        return target

    def _write_pvd(self) -> None:
        lines = ['<?xml version="1.0"?>',
                 '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">',
                 "  <Collection>"]
        lines += [f'    <DataSet timestep="{t!r}" group="" part="0" file="{rel}"/>' for t, rel in self.entries]
        lines += ["  </Collection>", "</VTKFile>", ""]
        text = "\n".join(lines)
        _write_atomic(self.path, lambda p: p.write_text(text, encoding="utf-8"))
        self._pvd_written, self._pvd_stale = time.monotonic(), False


def read_pvd(pvd_path: str | os.PathLike[str]) -> list[tuple[float, Path]]:
    """Return ``[(time, vtu_path), ...]`` of a ``.pvd`` collection, paths resolved against its folder."""
    path = Path(pvd_path)
    if not path.is_file():
        raise FileNotFoundError(f"no ParaView collection at {path}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"{path} is not a valid .pvd file: {exc}") from exc
    return [(float(ds.get("timestep", "0")), path.parent / ds.get("file", ""))
            for ds in root.iter("DataSet")]


def _quat_from_rot(R: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(..., 4)`` (w ≥ 0) from rotation matrices, by the largest-diagonal branch."""
    tr = np.trace(R, axis1=-2, axis2=-1)
    diag = np.stack([tr, R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]], -1)
    k = np.argmax(diag, axis=-1)
    # 4 q_k^2 = 1 + 2 diag_k - tr for k>0, 1 + tr for k=0; always >= 1 at the argmax
    qk2 = np.where(k == 0, 1.0 + tr, 1.0 + 2.0 * np.take_along_axis(diag, k[..., None], -1)[..., 0] - tr)
    s = 2.0 * np.sqrt(np.maximum(qk2, 1.0))
    wx, wy, wz = R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]
    xy, xz, yz = R[..., 0, 1] + R[..., 1, 0], R[..., 0, 2] + R[..., 2, 0], R[..., 1, 2] + R[..., 2, 1]
    q = np.where((k == 0)[..., None], np.stack([s / 4, wx / s, wy / s, wz / s], -1),
        np.where((k == 1)[..., None], np.stack([wx / s, s / 4, xy / s, xz / s], -1),
        np.where((k == 2)[..., None], np.stack([wy / s, xy / s, s / 4, yz / s], -1),
                 np.stack([wz / s, xz / s, yz / s, s / 4], -1))))
    return np.where(q[..., :1] < 0, -q, q)


def _frames_data(rotations: Any, quaternions: Any, n: int, what: str) -> dict[str, np.ndarray]:
    if rotations is None and quaternions is None:
        raise ValueError(f"{what} needs rotations (n, 3, 3) or quaternions (n, 4)")
    if rotations is None:
        quat = np.asarray(quaternions, dtype=float)
        if quat.shape != (n, 4):
            raise ValueError(f"{what}: quaternions must have shape ({n}, 4), got {quat.shape}")
        R = quat_to_matrix(quat / np.linalg.norm(quat, axis=-1, keepdims=True))
    else:
        R = np.asarray(rotations, dtype=float)
        if R.shape != (n, 3, 3):
            raise ValueError(f"{what}: rotations must have shape ({n}, 3, 3), got {R.shape}")
        quat = _quat_from_rot(R) if quaternions is None else np.asarray(quaternions, dtype=float)
    return {"d1": R[:, :, 0].copy(), "d2": R[:, :, 1].copy(), "d3": R[:, :, 2].copy(), "quaternion": quat}


def _vector_data(data: dict[str, Any] | None, n: int, what: str) -> dict[str, np.ndarray]:
    out = {}
    for name, arr in (data or {}).items():
        if arr is None:
            continue
        a = np.asarray(arr)
        if a.shape[:1] != (n,):
            raise ValueError(f"{what} data '{name}' has shape {a.shape}; its first axis must be {n}")
        out[name] = a
    return out


def rod_frame(
    positions: Any,
    rotations: Any = None,
    *,
    radius: float | Any,
    quaternions: Any = None,
    velocity: Any = None,
    angular_velocity: Any = None,
    point_data: dict[str, Any] | None = None,
    cell_data: dict[str, Any] | None = None,
) -> Frame:
    """A rod as a polyline of ``n`` nodes and ``n - 1`` edges with directors and a radius.

    Parameters
    ----------
    positions
        Centreline nodes ``(n, 3)``.
    rotations, quaternions
        Node frames ``(n, 3, 3)`` (columns are d1, d2, d3) or unit quaternions ``(n, 4)`` = (w, x, y, z);
        at least one of them.
    radius
        Scalar or ``(n,)`` cross-section radius (point data ``radius``, for ParaView's Tube filter).
    velocity, angular_velocity
        Optional ``(n, 3)`` point data.
    point_data, cell_data
        Further arrays: point data with first axis ``n``, cell data (per edge) with first axis
        ``n - 1``, e.g. ``{"K": (n-1, 3), "Gamma": (n-1, 3), "moment": ..., "force": ..., "lam": ...}``.
    """
    pts = _as_points(positions)
    n = pts.shape[0]
    if n < 2:
        raise ValueError(f"a rod needs at least 2 nodes, got {n}")
    pd = _frames_data(rotations, quaternions, n, "rod_frame")
    pd["radius"] = np.broadcast_to(np.asarray(radius, dtype=float), (n,)).copy()
    pd |= _vector_data({"velocity": velocity, "angular_velocity": angular_velocity}, n, "rod point")
    pd |= _vector_data(point_data, n, "rod point")
    cd = _vector_data(cell_data, n - 1, "rod cell")
    idx = np.arange(n)
    return Frame(pts, [("line", np.stack([idx[:-1], idx[1:]], axis=1))], pd, cd)


def rigid_body_frame(
    positions: Any,
    rotations: Any = None,
    *,
    quaternions: Any = None,
    point_data: dict[str, Any] | None = None,
) -> Frame:
    """Rigid bodies as ``n`` vertices with frames d1, d2, d3 and quaternion (e.g. the heavy top)."""
    pts = _as_points(np.atleast_2d(positions))
    n = pts.shape[0]
    pd = _frames_data(rotations, quaternions, n, "rigid_body_frame")
    pd |= _vector_data(point_data, n, "rigid body point")
    return Frame(pts, [("vertex", np.arange(n)[:, None])], pd, {})


def linked_bodies_frame(positions: Any, rotations: Any, links: Any = (), *, points: Any = None,
                        point_data: dict[str, Any] | None = None) -> Frame:
    """Rigid bodies as ``n`` vertices with frames d1, d2, d3 and quaternion, plus extra ``points`` (e.g. balls,
    a payload; frame = identity there) and ``links`` — line cells ``(k, 2)`` between any of the ``n + m``
    points (rods, cables). ``point_data`` arrays cover all ``n + m`` points. The ParaView picture of a
    multibody system: glyph the vertices by d1/d2/d3, draw the lines as tubes."""
    body = _as_points(np.atleast_2d(positions))
    extra = np.zeros((0, 3)) if points is None else _as_points(np.atleast_2d(points))
    pts = np.vstack([body, extra])
    n, total = body.shape[0], body.shape[0] + extra.shape[0]
    R = np.concatenate([np.asarray(rotations, dtype=float).reshape(n, 3, 3), np.broadcast_to(np.eye(3),
                                                                                          (total - n, 3, 3))])
    pd = _frames_data(R, None, total, "linked_bodies_frame")
    pd["is_body"] = (np.arange(total) < n).astype(float)
    pd |= _vector_data(point_data, total, "linked bodies point")
    cells = [("vertex", np.arange(total)[:, None])]
    lk = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    if lk.size:
        cells.append(("line", lk))
    return Frame(pts, cells, pd, {})


def line_frame(x: Any, fields: dict[str, Any]) -> Frame:
    """A PDE solution on grid points ``x`` ``(n,)`` as a line mesh along the x axis, one array per field.

    Complex fields ``f`` become ``f_re``, ``f_im`` and ``f_abs``; real fields are written as they are.
    """
    xs = np.asarray(x, dtype=float)
    if xs.ndim != 1 or xs.size < 2:
        raise ValueError(f"line_frame needs a 1-D grid of at least 2 points, got shape {xs.shape}")
    n = xs.size
    pd: dict[str, np.ndarray] = {}
    for name, arr in fields.items():
        a = np.asarray(arr)
        if a.shape[:1] != (n,):
            raise ValueError(f"field '{name}' has shape {a.shape}; its first axis must be the {n} grid points")
        if np.iscomplexobj(a):
            pd[f"{name}_re"], pd[f"{name}_im"], pd[f"{name}_abs"] = a.real.copy(), a.imag.copy(), np.abs(a)
        else:
            pd[name] = a.astype(float)
    pts = np.stack([xs, np.zeros(n), np.zeros(n)], axis=1)
    idx = np.arange(n)
    return Frame(pts, [("line", np.stack([idx[:-1], idx[1:]], axis=1))], pd, {})
