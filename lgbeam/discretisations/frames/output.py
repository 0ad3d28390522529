"""What an engineer looks at: one polyline per rod with nodal kinematics, section resultants (constraint forces
included), strains, reactions, and the unit and frame of every array (docs/output.md, "Engineering frames");
beside it, each edge as a line cell with its exact section resultants, strains and curvature as cell data.

``engineering_frame(structure, q, v, lam, t)`` returns plain arrays (``EngineeringFrame``); ``lgbeam.io.vtk``
writes them as a ``.vtp`` (PolyData, one VTK_POLY_LINE per rod), so ParaView's Tube filter applies directly.
A polyline cell carries one value per rod, so there the per-edge quantities (section resultants, strains) are
given at the nodes (``rods.resultants``: the mean of the two edge-end wrenches, exact at unloaded nodes and at
the ends). The exact per-edge values are its ``edges`` (``edge_frame``): the same points, one 2-point VTK_LINE
cell per edge, cell data at the edge midpoints (``section_resultants``' edge values, the multipliers of the
Kirchhoff / inextensible rows included; the edge strains and curvatures, not means), written by ``PVDSeries``
as the companion series ``<name>-edges.pvd`` (``output.edge_data``); solution.npz has them too (``section_*``).

Units are those of the case (consistent units; the shipped cases use SI: m, N, s, kg).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods.resultants import section_resultants

SPATIAL = "spatial (e_x, e_y, e_z)"
MATERIAL = "material (d1, d2, d3 of the node)"

#: array name -> (unit, frame / meaning), written as field data with every frame
ARRAY_INFO: dict[str, tuple[str, str]] = {
    "s": ("m", "arc length along its rod from the rod's start"),
    "displacement": ("m", SPATIAL + "; x - x_ref"),
    "velocity": ("m/s", SPATIAL),
    "angular_velocity": ("rad/s", SPATIAL),
    "d1": ("-", SPATIAL + "; director d1 (unit)"),
    "d2": ("-", SPATIAL + "; director d2 (unit)"),
    "d3": ("-", SPATIAL + "; director d3, the centreline tangent of the reference"),
    "radius": ("m", "physical section radius (circle of equal I/A: 2 sqrt(EI/EA)); tubes use radius x display_scale"),
    "force_spatial": ("N", SPATIAL + "; section force n: part beyond the node (larger s) on the part before"),
    "moment_spatial": ("N m", SPATIAL + "; section moment m about the node, same convention"),
    "force_material": ("N", MATERIAL + "; (shear 1, shear 2, axial)"),
    "moment_material": ("N m", MATERIAL + "; (bending 1, bending 2, torsion)"),
    "moment_magnitude": ("N m", "|m|"),
    "axial_force": ("N", "n . d3 (tension positive)"),
    "curvature": ("1/m", MATERIAL + "; K - K_ref (bending 1, bending 2, twist), mean of the two edges"),
    "strain": ("-", MATERIAL + "; Gamma - Gamma_ref (shear 1, shear 2, axial), mean of the two edges"),
    "reaction_force": ("N", SPATIAL + "; sum of the supports' and joints' forces on the rod at the node"),
    "reaction_moment": ("N m", SPATIAL + "; their moments about the node"),
    "rod_id": ("-", "cell data: index of the rod in rod_names"),
    "support_reactions": ("N m, N", SPATIAL + "; rows (M_x, M_y, M_z, F_x, F_y, F_z) of support_names, on the rod, "
                          "moment about the support node"),
    "joint_reactions": ("N m, N", SPATIAL + "; rows (M, F) of joint_names: the joint's wrench on rod b at its node "
                        "(rod a receives the opposite)"),
}


EDGE_MATERIAL = "material (d1, d2, d3 at the edge midpoint)"

#: the edges file's arrays (``edge_frame``): name -> (unit, frame / meaning)
EDGE_ARRAY_INFO: dict[str, tuple[str, str]] = {
    "s": ARRAY_INFO["s"],
    "radius": ARRAY_INFO["radius"],
    "force_spatial": ("N", SPATIAL + "; section force n at the edge midpoint: part beyond (larger s) on the part "
                      "before; exact edge value"),
    "moment_spatial": ("N m", SPATIAL + "; section moment m about the edge midpoint, same convention"),
    "force_material": ("N", EDGE_MATERIAL + "; (shear 1, shear 2, axial)"),
    "moment_material": ("N m", EDGE_MATERIAL + "; (bending 1, bending 2, torsion)"),
    "moment_magnitude": ("N m", "|m| at the edge midpoint"),
    "axial_force": ("N", "n . d3 at the edge midpoint (tension positive)"),
    "curvature": ("1/m", "material (d1, d2, d3 of the edge); K - K_ref of the edge (bending 1, bending 2, twist)"),
    "strain": ("-", "material (d1, d2, d3 of the edge); Gamma - Gamma_ref of the edge (shear 1, shear 2, axial)"),
    "rod_id": ("-", "cell data: index of the edge's rod in rod_names"),
    "edge_length": ("m", "reference (arc) length of the edge, Delta s"),
    "s_mid": ("m", "arc length of the edge midpoint along its rod"),
}


class EngineeringFrame(NamedTuple):
    """Arrays of one output frame: points (n, 3), lines (polylines: one global index array per rod; or an
    ``(n_edges, 2)`` array of line cells), point data, cell data (one row per line), field data (names, units,
    reactions, time); ``edges``: the per-edge frame (``edge_frame``), None in the edges frame itself."""

    points: FloatArray
    lines: list[np.ndarray] | np.ndarray
    point_data: dict[str, np.ndarray]
    cell_data: dict[str, np.ndarray]
    field_data: dict[str, Any]
    edges: EngineeringFrame | None = None


def section_radius(rod: Any) -> float:
    """Radius of the circle with the rod's I/A: 2 √(mean(EI₁, EI₂)/EA) (exact for a circular section)."""
    mat = rod.material
    return float(2.0 * np.sqrt(0.5 * (mat.C_K[0] + mat.C_K[1]) / mat.C_Gamma[2]))


def display_scale(structure: Any) -> float:
    """Factor for the tube radius so that the thinnest tube is at least 1/200 of the structure's size (1 if
    the physical radius is visible already)."""
    r = min(section_radius(rod) for rod in structure.members)
    return float(max(1.0, structure.length_scale / (200.0 * r)))


def _nodal_strains(w: FloatArray) -> FloatArray:
    """Nodal means of the edge strains ``w`` (N, 6); the end nodes take their one edge."""
    out = np.empty((w.shape[0] + 1, 6))
    out[0], out[-1] = w[0], w[-1]
    out[1:-1] = 0.5 * (w[:-1] + w[1:])
    return out


def edge_frame(structure: Any, points: FloatArray, point_data: dict[str, np.ndarray],
               edge: dict[str, list[np.ndarray]], field: dict[str, Any]) -> EngineeringFrame:
    """The per-edge frame: ``points`` and the point arrays ``s``, ``radius`` of the nodal frame, one VTK_LINE
    cell (i, i+1) per edge of every rod (shared points: Tube applies directly), and as cell data the edge
    values ``edge`` (rod by rod: ``(moment, force)`` spatial and material, strains ``(K, Γ)``, Δs, s_mid),
    with the unit and frame of every array in the field data (``EDGE_ARRAY_INFO``)."""
    o = structure.node_offsets
    last = np.zeros(int(o[-1]), dtype=bool)
    last[np.asarray(o[1:]) - 1] = True
    start = np.flatnonzero(~last)
    lines = np.stack([start, start + 1], axis=1)
    sp, mat, w = (np.concatenate(edge[k]) for k in ("spatial", "material", "strain"))
    cell = {"force_spatial": sp[:, 3:], "moment_spatial": sp[:, :3], "force_material": mat[:, 3:],
            "moment_material": mat[:, :3], "moment_magnitude": np.linalg.norm(sp[:, :3], axis=1),
            "axial_force": mat[:, 5], "curvature": w[:, :3], "strain": w[:, 3:],
            "rod_id": np.repeat(np.arange(len(o) - 1, dtype=np.int64), np.diff(o) - 1),
            "edge_length": np.concatenate(edge["length"]), "s_mid": np.concatenate(edge["s_mid"])}
    cell = {k: np.ascontiguousarray(a) for k, a in cell.items()}
    pd = {k: point_data[k] for k in ("s", "radius")}
    names = list(pd) + list(cell)
    fd = {k: field[k] for k in ("case", "rod_names", "display_scale")}
    fd |= {"array_names": names, "array_units": [EDGE_ARRAY_INFO[k][0] for k in names],
           "array_frames": [EDGE_ARRAY_INFO[k][1] for k in names]}
    return EngineeringFrame(points, lines, pd, cell, fd)


def engineering_frame(structure: Any, q: FloatArray, v: FloatArray | None, lam: FloatArray | None, t: float,
                      *, name: str = "") -> EngineeringFrame:
    """The arrays of one frame of ``structure`` (a ``Structure``; wrap a single rod as a structure of one),
    with its per-edge frame (``edge_frame``) as ``edges``."""
    G = structure.G
    qs = structure.split_q(q)
    vs = structure.split_v(v if v is not None else np.zeros(structure.n_dofs))
    lam_r, _lam_j = structure.split_lam(lam) if lam is not None else ([None] * len(qs), None)
    pd: dict[str, list[np.ndarray]] = {k: [] for k in (
        "s", "displacement", "velocity", "angular_velocity", "d1", "d2", "d3", "radius", "force_spatial",
        "moment_spatial", "force_material", "moment_material", "curvature", "strain")}
    edge: dict[str, list[np.ndarray]] = {k: [] for k in ("spatial", "material", "strain", "length", "s_mid")}
    if hasattr(structure, "end_load_shares"):  # the corotational element cuts its loads at the element ends
        all_res = structure.resultants(q, lam, v, t=t)
    elif hasattr(structure, "resultants"):
        all_res = structure.resultants(q, lam, v)
    else:
        all_res = [
            section_resultants(rod, qr, lr, vr) for rod, qr, vr, lr in zip(structure.members, qs, vs, lam_r,
                                                                           strict=True)]
    for rod, qr, vr, res in zip(structure.members, qs, vs, all_res, strict=True):
        R, x = G.rotation(qr), G.translation(qr)
        V = vr.reshape(-1, 6)
        w = rod.strains(qr) - rod.w0
        strains = _nodal_strains(w)
        s_rod = rod.mesh.s - rod.mesh.s[0]
        edge["spatial"].append(res.edge_spatial)
        edge["material"].append(res.edge_material)
        edge["strain"].append(w)
        edge["length"].append(np.diff(s_rod))
        edge["s_mid"].append(0.5 * (s_rod[:-1] + s_rod[1:]))
        pd["s"].append(s_rod)
        pd["displacement"].append(x - G.translation(rod.q_ref))
        pd["velocity"].append(np.einsum("nij,nj->ni", R, V[:, 3:]))
        pd["angular_velocity"].append(np.einsum("nij,nj->ni", R, V[:, :3]))
        for k in range(3):
            pd[f"d{k + 1}"].append(R[:, :, k])
        pd["radius"].append(np.full(rod.n_nodes, section_radius(rod)))
        pd["moment_spatial"].append(res.node_spatial[:, :3])
        pd["force_spatial"].append(res.node_spatial[:, 3:])
        pd["moment_material"].append(res.node_material[:, :3])
        pd["force_material"].append(res.node_material[:, 3:])
        pd["curvature"].append(strains[:, :3])
        pd["strain"].append(strains[:, 3:])
    point_data = {k: np.ascontiguousarray(np.concatenate(v)) for k, v in pd.items()}
    point_data["moment_magnitude"] = np.linalg.norm(point_data["moment_spatial"], axis=1)
    point_data["axial_force"] = point_data["force_material"][:, 2].copy()
    reaction = np.zeros((structure.n_nodes, 6))
    labels, sup = structure.support_reactions(t, q, lam) if lam is not None else ([], np.zeros((0, 6)))
    np.add.at(reaction, structure.support_nodes()[: len(sup)], sup)
    jr = structure.joint_rows
    joint = structure.joint_reactions(q, lam) if lam is not None else np.zeros((jr.n_joints, 6))
    if jr.n_joints:
        np.add.at(reaction, jr.ib, joint)
        xq = G.translation(structure._q(q))
        # rod a receives the opposite wrench; moved to node a (same point in a joint, up to Φ)
        opp = -joint.copy()
        opp[:, :3] += np.cross(xq[jr.ib] - xq[jr.ia], -joint[:, 3:])
        np.add.at(reaction, jr.ia, opp)
    point_data["reaction_moment"], point_data["reaction_force"] = reaction[:, :3].copy(), reaction[:, 3:].copy()
    o = structure.node_offsets
    lines = [np.arange(o[k], o[k + 1]) for k in range(len(structure.members))]
    names = list(point_data) + ["rod_id", "support_reactions", "joint_reactions"]
    field = {
        "case": [name], "rod_names": list(structure.names),
        "support_names": list(labels), "support_reactions": sup, "joint_names": list(jr.labels),
        "joint_reactions": joint, "display_scale": np.array([display_scale(structure)]),
        "array_names": names, "array_units": [ARRAY_INFO[k][0] for k in names],
        "array_frames": [ARRAY_INFO[k][1] for k in names],
    }
    cell = {"rod_id": np.arange(len(structure.members), dtype=np.int64)}
    points = G.translation(structure._q(q))
    return EngineeringFrame(points, lines, point_data, cell, field, edge_frame(structure, points, point_data, edge,
                                                                                field))
