"""What an engineer looks at: one polyline per rod with nodal kinematics, section resultants (constraint forces
included), strains, reactions, and the unit and frame of every array (docs/output.md, "Engineering frames").

``engineering_frame(structure, q, v, lam, t)`` returns plain arrays (``EngineeringFrame``); ``lgbeam.io.vtk``
writes them as a ``.vtp`` (PolyData, one VTK_POLY_LINE per rod), so ParaView's Tube filter applies directly.
A polyline cell carries one value per rod, so the per-edge quantities (section resultants, strains) are given at
the nodes (``rods.resultants``: the mean of the two edge-end wrenches, exact at unloaded nodes and at the ends);
the exact per-edge values go to solution.npz (``section_*``).

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


class EngineeringFrame(NamedTuple):
    """Arrays of one output frame: points (n, 3), polylines (one global index array per rod), point data,
    cell data (one row per rod), field data (names, units, reactions, time)."""

    points: FloatArray
    lines: list[np.ndarray]
    point_data: dict[str, np.ndarray]
    cell_data: dict[str, np.ndarray]
    field_data: dict[str, Any]


def section_radius(rod: Any) -> float:
    """Radius of the circle with the rod's I/A: 2 √(mean(EI₁, EI₂)/EA) (exact for a circular section)."""
    mat = rod.material
    return float(2.0 * np.sqrt(0.5 * (mat.C_K[0] + mat.C_K[1]) / mat.C_Gamma[2]))


def display_scale(structure: Any) -> float:
    """Factor for the tube radius so that the thinnest tube is at least 1/200 of the structure's size (1 if
    the physical radius is visible already)."""
    r = min(section_radius(rod) for rod in structure.members)
    return float(max(1.0, structure.length_scale / (200.0 * r)))


def _nodal_strains(rod: Any, q: FloatArray) -> FloatArray:
    w = rod.strains(q) - rod.w0
    out = np.empty((rod.n_nodes, 6))
    out[0], out[-1] = w[0], w[-1]
    out[1:-1] = 0.5 * (w[:-1] + w[1:])
    return out


def engineering_frame(structure: Any, q: FloatArray, v: FloatArray | None, lam: FloatArray | None, t: float,
                      *, name: str = "") -> EngineeringFrame:
    """The arrays of one frame of ``structure`` (a ``Structure``; wrap a single rod as a structure of one)."""
    G = structure.G
    qs = structure.split_q(q)
    vs = structure.split_v(v if v is not None else np.zeros(structure.n_dofs))
    lam_r, _lam_j = structure.split_lam(lam) if lam is not None else ([None] * len(qs), None)
    pd: dict[str, list[np.ndarray]] = {k: [] for k in (
        "s", "displacement", "velocity", "angular_velocity", "d1", "d2", "d3", "radius", "force_spatial",
        "moment_spatial", "force_material", "moment_material", "curvature", "strain")}
    for rod, qr, vr, lr in zip(structure.members, qs, vs, lam_r, strict=True):
        R, x = G.rotation(qr), G.translation(qr)
        V = vr.reshape(-1, 6)
        res = section_resultants(rod, qr, lr, vr)
        strains = _nodal_strains(rod, qr)
        pd["s"].append(rod.mesh.s - rod.mesh.s[0])
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
    return EngineeringFrame(G.translation(structure._q(q)), lines, point_data, cell, field)
