"""The typed frame model: a frame case translated once into rods, joints, named nodes and members, from which
the ``Structure`` (or ``CorotationalStructure``) is assembled (docs/frames.md "The frame model").

``lgbeam.apps._frame_model.frame_model(case)`` is the one translation of a case (either vocabulary: nodes +
members or rods + joints; docs/frames.md "Nodes and members") into a ``FrameModel``; everything after it (the
size check, the assembly, the named nodes of solution.npz, the members of member_forces.csv, the meshes of
Richardson's extrapolation) reads the model:

    FrameModel   rods (RodModel, in node order), joints (Joint), element ("cosserat" | "corotational"),
                 mass ("consistent" | "lumped"), named nodes (names, coordinates (n, 3), their rod and end),
                 members (member name -> its rods, start to end)
    RodModel     one straight rod (a member, or a segment of a polyline member) or a polyline rod: vertices
                 (k, 3), roll, elements, material, internal constraints, supports, loads, point masses

Per-rod and per-node data are numpy arrays (``n_elements``, ``node_offsets``, ``node_xyz``, ``node_rod``,
``node_end``), so the named nodes' indices in the structure are one gather:

    id(node) = offset(rod) + end · N(rod),   offset(r) = Σ_{r' < r} (N(r') + 1)

``FrameModel.refined(factor)`` is the model with every rod's elements times ``factor`` and the integer node
indices of its supports, loads, masses and joints scaled with them (``apps.frame_richardson``: the meshes N/2,
N, 2N of Richardson's extrapolation), without translating the case again.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from lgbeam._typing import FloatArray, IntArray
from lgbeam.discretisations.rods import (
    CosseratRod,
    Material,
    PointMass,
    RodMesh,
    Support,
    minimal_rotation,
    polyline,
    straight,
)
from lgbeam.discretisations.rods.loads import Load, NodalLoad
from lgbeam.discretisations.rods.supports import resolve_node

from .joints import Joint
from .structure import Structure

logger = logging.getLogger(__name__)

CONSTRAINTS = ("kirchhoff", "kirchhoff+inextensible", "inextensible", "none")
ELEMENTS = ("cosserat", "corotational")


def local_axes(direction: FloatArray, orientation: FloatArray | None, where: str) -> FloatArray:
    """(3, 3) columns (y, z, x) = the directors (d₁, d₂, d₃) of a straight segment along ``direction``: x
    along it, z the part of ``orientation`` normal to x, y = z × x (default orientation e_z, e_x for a
    vertical one)."""
    x = direction / np.linalg.norm(direction)
    if orientation is None:
        v = np.array([1.0, 0.0, 0.0]) if abs(x[2]) > 1.0 - 1e-9 else np.array([0.0, 0.0, 1.0])
    else:
        v = np.asarray(orientation, dtype=float)
    z = v - (v @ x) * x
    if np.linalg.norm(z) <= 1e-9 * np.linalg.norm(v):
        raise ValueError(f"{where}.orientation {v.tolist()} is parallel to the member; give a vector in its "
                         "local x-z plane that is not along it (e.g. the web direction of an I-section)")
    z /= np.linalg.norm(z)
    return np.stack([np.cross(z, x), z, x], axis=1)


def roll_of(direction: FloatArray, R: FloatArray) -> float:
    """The ``roll`` for which ``rods.straight`` gives the directors R (columns d₁, d₂, d₃)."""
    R0 = minimal_rotation(np.array([0.0, 0.0, 1.0]), direction / np.linalg.norm(direction))
    return math.atan2(float(R[:, 0] @ R0[:, 1]), float(R[:, 0] @ R0[:, 0]))


def director_inertia(J: FloatArray, R: FloatArray) -> FloatArray | None:
    """diag(J) (global axes) in the directors R (columns): its diagonal, or None where it is not diagonal
    there (the lumped nodal inertia is diagonal in the directors)."""
    Jb = R.T @ np.diag(J) @ R
    if np.max(np.abs(Jb - np.diag(np.diag(Jb)))) > 1e-9 * max(float(np.max(np.abs(J))), 1e-300):
        return None
    return np.diag(Jb).copy()


def scale_node(node: Any, factor: float) -> Any:
    """A node index scaled to the mesh refined ``factor`` times (None where it is not a node there); names and
    None (a support at an arc length) are left alone."""
    if isinstance(node, bool) or not isinstance(node, int | np.integer):
        return node
    if node < 0:  # counted from the end: -1 is the end node
        k = scale_node(-node - 1, factor)
        return None if k is None else -k - 1
    scaled = node * factor
    return int(scaled) if float(scaled).is_integer() else None


def point_mass(m: NodeMass, rod: str, mesh: RodMesh, q_ref: FloatArray) -> PointMass:
    """The ``PointMass`` of ``m`` on rod ``rod`` (mesh, q_ref): its node resolved, diag(J) (global axes)
    turned into the node's directors; ValueError where it is not diagonal there."""
    from lgbeam.groups import S3R3

    i = mesh.node_index(m.node)
    J = np.zeros(3)
    if m.inertia is not None:
        Jd = director_inertia(m.inertia, S3R3().rotation(q_ref[i]))
        if Jd is None:
            raise ValueError(f"the inertia {m.inertia.tolist()} (global axes) is not diagonal in the axes of "
                             f"rod {rod!r} at this node; give equal values or attach it to an aligned rod")
        J = Jd
    return PointMass(node=i, mass=m.mass, inertia=J)


def rod_geometry(P: FloatArray, n: int, *, roll: float = 0.0, is_polyline: bool = False,
                 length: float | None = None) -> tuple[RodMesh, FloatArray]:
    """(mesh, q_ref) of ``n`` equal edges: along the straight rod P[0] → P[1] (``roll`` about d₃) or along the
    polyline P (its declared ``length`` must agree with the points: ValueError otherwise)."""
    from lgbeam.groups import S3R3

    if is_polyline:
        total = float(np.sum(np.linalg.norm(np.diff(P, axis=0), axis=1)))
        mesh = RodMesh.uniform(total if length is None else length, n)
        return mesh, polyline(S3R3(), mesh, points=P)
    mesh = RodMesh.uniform(float(np.linalg.norm(P[1] - P[0])), n)
    return mesh, straight(S3R3(), mesh, start=P[0], direction=P[1] - P[0], roll=roll)


@dataclass(frozen=True)
class NodeMass:
    """A point mass on a rod: ``node`` (index, negative from the end, "start" | "end"), ``mass`` (kg) and the
    rotary inertia diag(``inertia``) in global axes (kg m²)."""

    node: int | str
    mass: float = 0.0
    inertia: FloatArray | None = None
    where: str = ""  # the case key, for messages ("model.masses[0]")


@dataclass(frozen=True, kw_only=True)
class RodModel:
    """One rod of the structure: a straight one (``points`` = start, end; ``roll`` about d₃) or a polyline
    (``points`` (k, 3), ``length`` the declared length or None); its elements, material, internal
    ``constraints`` (one of CONSTRAINTS), supports, loads (rods.loads) and point masses. ``where`` and
    ``support_where`` name the case keys in messages (the geometry is built, and checked, with the structure:
    a size check reads the model before anything of the mesh's size is allocated)."""

    name: str
    points: FloatArray
    n_elements: int
    material: Material
    roll: float = 0.0
    polyline: bool = False
    length: float | None = None
    constraints: str = "kirchhoff"
    supports: tuple[Support, ...] = ()
    loads: tuple[Load, ...] = ()
    masses: tuple[NodeMass, ...] = ()
    where: str = ""
    support_where: tuple[str, ...] = ()

    def geometry(self) -> tuple[RodMesh, FloatArray]:
        """(mesh, q_ref): N equal edges along the straight rod or the polyline (ValueError where they
        disagree)."""
        return rod_geometry(self.points, self.n_elements, roll=self.roll, is_polyline=self.polyline,
                            length=self.length)

    def point_masses(self, mesh: RodMesh, q_ref: FloatArray) -> tuple[PointMass, ...]:
        """The rod's point masses with their inertia in the directors of their node (``point_mass``)."""
        out = []
        for m in self.masses:
            try:
                out.append(point_mass(m, self.name, mesh, q_ref))
            except ValueError as err:
                raise ValueError(f"{m.where}: {err}" if m.where else str(err)) from None
        return tuple(out)

    def checked_geometry(self) -> tuple[RodMesh, FloatArray]:
        """``geometry()`` with the supports' nodes resolved on the mesh; ValueError naming the case key."""
        try:
            mesh, q_ref = self.geometry()
        except ValueError as err:
            raise ValueError(f"{self.where}: {err}" if self.where else str(err)) from None
        for s, at in zip(self.supports, self.support_where or ("",) * len(self.supports), strict=True):
            try:
                resolve_node(s, mesh)
            except ValueError as err:
                raise ValueError(f"{at} (rod {self.name!r}): {err}" if at else str(err)) from None
        return mesh, q_ref

    def rod(self, corotational: bool) -> CosseratRod:
        """The ``CosseratRod`` (for the corotational element: its nodes, sections, supports, loads and masses,
        without internal constraints)."""
        mesh, q_ref = self.checked_geometry()
        return CosseratRod(mesh=mesh, material=self.material, q_ref=q_ref, supports=self.supports,
                           loads=self.loads,
                           kirchhoff="kirchhoff" in self.constraints and not corotational,
                           inextensible="inextensible" in self.constraints and not corotational,
                           point_masses=self.point_masses(mesh, q_ref))

    def refined(self, factor: float) -> RodModel | None:
        """The rod with ``factor`` times the elements and its integer node indices scaled (None where a count
        or an index is no integer there)."""
        n = self.n_elements * factor
        nodal = (ld for ld in self.loads if isinstance(ld, NodalLoad))
        placed: list[Support | NodalLoad | NodeMass] = [*self.supports, *nodal, *self.masses]
        nodes = {id(x): scale_node(x.node, factor) for x in placed}
        lost = any(nodes[id(x)] is None and x.node is not None for x in placed)  # no node of the new mesh
        if not float(n).is_integer() or n < 1 or lost:
            return None

        def scaled(x: Any) -> Any:
            return dataclasses.replace(x, node=nodes[id(x)]) if id(x) in nodes else x

        sups, loads, masses = (tuple(map(scaled, g)) for g in (self.supports, self.loads, self.masses))
        return dataclasses.replace(self, n_elements=int(n), supports=sups, loads=loads, masses=masses)


@dataclass(frozen=True, kw_only=True)
class FrameModel:
    """A frame case, typed (module docstring): ``rods`` in node order, ``joints``, the member ``element`` and
    its ``mass`` kind, ``n_default`` (model.n_elements), the named nodes of a nodes + members case
    (``node_names``, ``node_xyz`` (n, 3), ``node_rod`` (n,) index into ``rods``, ``node_end`` (n,) 0 start | 1
    end) and ``members`` (member name -> its rods, start to end; empty for a rods + joints case: one member
    per rod)."""

    rods: tuple[RodModel, ...]
    joints: tuple[Joint, ...] = ()
    element: str = "corotational"
    mass: str = "consistent"
    n_default: int = 8
    node_names: tuple[str, ...] = ()
    node_xyz: FloatArray = field(default_factory=lambda: np.zeros((0, 3)))
    node_rod: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    node_end: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.rods)

    @cached_property
    def n_elements(self) -> IntArray:
        """(R,) elements of each rod."""
        return np.array([r.n_elements for r in self.rods], dtype=np.int64)

    @cached_property
    def node_offsets(self) -> IntArray:
        """(R + 1,) first node of each rod in the structure's node order, and the node count."""
        return np.concatenate([[0], np.cumsum(self.n_elements + 1)]).astype(np.int64)

    @property
    def n_nodes(self) -> int:
        return int(self.node_offsets[-1])

    def node_ids(self) -> dict[str, int]:
        """Named node -> its node of the structure (the first member end there; module docstring)."""
        ids = self.node_offsets[self.node_rod] + self.node_end * self.n_elements[self.node_rod]
        return dict(zip(self.node_names, ids.tolist(), strict=True))

    def member_rods(self) -> dict[str, list[str]]:
        """Member name -> its rods, start to end (one member per rod in a rods + joints case)."""
        return {m: list(r) for m, r in self.members.items()} if self.members else {n: [n] for n in self.names}

    def refined(self, factor: float) -> FrameModel | None:
        """The model with every rod's elements times ``factor`` (2 or 1/2) and its integer node indices scaled
        with them; None when a count or an index does not scale to an integer."""
        rods = [r.refined(factor) for r in self.rods]
        joints = []
        for j in self.joints:
            a, b = scale_node(j.a[1], factor), scale_node(j.b[1], factor)
            if a is None or b is None:
                return None
            joints.append(dataclasses.replace(j, a=(j.a[0], a), b=(j.b[0], b)))
        n = self.n_default * factor
        if any(r is None for r in rods) or not float(n).is_integer() or n < 1:
            return None
        return dataclasses.replace(self, rods=tuple(r for r in rods if r is not None), joints=tuple(joints),
                                   n_default=int(n))

    def structure(self) -> Structure:
        """The structure of the model: a ``Structure`` of Cosserat rods, or a ``CorotationalStructure`` of
        cubic elements on the rods' nodes (their internal constraints do not apply: an Euler–Bernoulli
        element)."""
        from .corotational import CorotationalStructure, check_members

        corot = self.element == "corotational"
        rods = {r.name: r.rod(corot) for r in self.rods}
        if corot:
            check_members(rods)
        try:
            if corot:
                return CorotationalStructure(rods=rods, joints=self.joints, mass_kind=self.mass, model=self)
            return Structure(rods=rods, joints=self.joints, model=self)
        except ValueError as err:
            raise ValueError(f"model.joints: {err}") from None
