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

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from lgbeam._typing import FloatArray
from lgbeam.discretisations.rods.loads import DistributedLoad, Gravity, external_forces
from lgbeam.discretisations.rods.resultants import section_resultants

COLUMNS = ("N", "V_y", "V_z", "T", "M_y", "M_z")
ORDER = [5, 3, 4, 2, 0, 1]  # (m₁, m₂, m₃, n₁, n₂, n₃) -> (N, V_y, V_z, T, M_y, M_z)

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


@dataclass(frozen=True)
class MemberForces:
    """The resultants along one member: ``rods``, ``point`` ("start" | "mid" | "end") and ``s`` (n,);
    ``values`` (n, 6) in the order of COLUMNS; ``x`` (n, 3) reference positions; ``axes`` (n, 3, 3) reference
    local axes, columns (y, z, x) = (d₁, d₂, d₃)."""

    name: str
    rods: np.ndarray
    point: np.ndarray
    s: FloatArray
    values: FloatArray
    x: FloatArray
    axes: FloatArray


def structure_resultants(frame: Any, q: FloatArray, lam: FloatArray | None, v: FloatArray | None = None,
                       t: float = 0.0, load_factor: float = 1.0) -> list[Any]:
    """``frame.resultants``; an element that cuts its loads at its ends (the corotational one,
    ``end_load_shares``) is told the loads' time t and the static path's load factor."""
    if hasattr(frame, "end_load_shares"):
        return list(frame.resultants(q, lam, v, t=t, load_factor=load_factor))
    return list(frame.resultants(q, lam, v))


def own_end_loads(rod: Any, t: float, q: FloatArray) -> FloatArray:
    """(2, 6) body-frame (moment, force) of the rod's own loads on its first and last node at time t: its
    distributed loads and the gravity of its lumped mass ρA w_i (``loads.external_forces`` without the nodal
    loads and point masses, which act on the joint, not on the member)."""
    own = tuple(ld for ld in rod.loads if isinstance(ld, (DistributedLoad, Gravity)))
    if not own:
        return np.zeros((2, 6))
    f = external_forces(t, rod._q(q), own, (-1,) * len(own), rod.mass_weights, rod.material.rhoA)
    return f[[0, -1]]


def member_forces(frame: Any, members: dict[str, list[str]], q: FloatArray, lam: FloatArray,
                  v: FloatArray | None = None, *, t: float = 0.0, load_factor: float = 1.0) -> list[MemberForces]:
    """Per member (``members``: name -> its rods, start to end) the resultants at (q, λ, v) (module docstring);
    the loads are those at time ``t`` times ``load_factor`` (a static path's μ). An end row is the free-body cut at
    the member's end: the corotational element cuts its loads there itself (``structure_resultants``); a rod's end
    node gets its own loads added back (``own_end_loads``)."""
    G = frame.G
    per_rod = {}
    cut = not hasattr(frame, "end_load_shares")
    for name, rod, res, qr, q0 in zip(frame.names, frame.members, structure_resultants(frame, q, lam, v, t, load_factor),
                                      frame.split_q(q), frame.split_q(frame.q_ref), strict=True):
        ends = res.node_material[[0, -1]]
        if cut:
            ends = ends + load_factor * own_end_loads(rod, t, qr) * np.array([[1.0], [-1.0]])
        W = np.concatenate([ends[:1], res.edge_material, ends[1:]])[:, ORDER]
        sn = rod.mesh.s - rod.mesh.s[0]
        s = np.concatenate([[0.0], 0.5 * (sn[:-1] + sn[1:]), sn[-1:]])
        q0 = np.asarray(q0).reshape(-1, 7)
        mid = G.compose(q0[:-1], G.exp(0.5 * G.log(G.compose(G.inverse(q0[:-1]), q0[1:]))))
        qp = np.concatenate([q0[:1], mid, q0[-1:]])
        point = np.array(["start"] + ["mid"] * (len(s) - 2) + ["end"])
        per_rod[name] = (s, W, G.translation(qp), G.rotation(qp), point)
    out = []
    for member, rods in members.items():
        parts = [per_rod[r] for r in rods]
        offsets = np.concatenate([[0.0], np.cumsum([p[0][-1] for p in parts])])
        out.append(MemberForces(
            member, np.concatenate([np.full(len(p[0]), r) for r, p in zip(rods, parts, strict=True)]),
            np.concatenate([p[4] for p in parts]), np.concatenate([p[0] + o for p, o in zip(parts, offsets, strict=False)]),
            np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]),
            np.concatenate([p[3] for p in parts])))
    return out


def solution_arrays(frame: Any, t: np.ndarray, q: np.ndarray, v: np.ndarray, lam: np.ndarray,
                    nodes: dict[str, int] | None = None, load_t: float | None = None,
                    load_factors: np.ndarray | None = None) -> dict[str, Any]:
    """solution.npz of a frame run (module docstring); section resultants per edge, spatial, at the midpoints;
    ``nodes``: named nodes (``node_ids``) written as node_names / node_ids; a static path gives the loads' time
    ``load_t`` and its ``load_factors`` (dynamics: the loads at t)."""
    G = frame.G
    n_t = len(t)
    sup_names, _ = frame.support_reactions(float(t[0]), q[0], lam[0])
    reactions = np.stack([frame.support_reactions(float(t[j]), q[j], lam[j])[1] for j in range(n_t)])
    joints = np.stack([frame.joint_reactions(q[j], lam[j]) for j in range(n_t)])
    tl = np.asarray(t, dtype=float) if load_t is None else np.full(n_t, load_t)
    lf = np.ones(n_t) if load_factors is None else np.asarray(load_factors, dtype=float)
    sec = np.stack([np.concatenate([res.edge_spatial for res in
                                    structure_resultants(frame, q[j], lam[j], v[j], float(tl[j]), float(lf[j]))])
                    for j in range(n_t)])
    return {"t": np.asarray(t), "q": q, "v": v, "lam": lam, "group": "S3R3",
            "positions": G.translation(q), "rotations": G.rotation(q),
            "rod_names": np.array(frame.names, dtype=str), "rod_offsets": frame.node_offsets.copy(),
            "s": np.concatenate([r.mesh.s - r.mesh.s[0] for r in frame.members]),
            "reactions": reactions.reshape(n_t, -1, 6), "support_names": np.array(sup_names, dtype=str),
            "support_nodes": frame.support_nodes(), "joint_reactions": joints,
            "joint_names": np.array(frame.joint_rows.labels, dtype=str),
            "section_moment": sec[:, :, :3], "section_force": sec[:, :, 3:],
            **({"node_names": np.array(list(nodes), dtype=str), "node_ids": np.array(list(nodes.values()), dtype=np.int64)}
               if nodes else {})}


def balance(frame: Any, t: float, q: np.ndarray, lam: np.ndarray) -> dict[str, Any]:
    """Σ reactions + Σ applied loads (force, moment about the origin): zero in a static state."""
    G = frame.G
    q = frame._q(q)
    x, R = G.translation(q), G.rotation(q)
    f = frame.external_forces(t, q).reshape(-1, 6)
    F_app, M_app = np.einsum("nij,nj->ni", R, f[:, 3:]), np.einsum("nij,nj->ni", R, f[:, :3])
    names, sup = frame.support_reactions(t, q, lam)
    xs = x[frame.support_nodes()]
    F = sup[:, 3:].sum(0) + F_app.sum(0)
    M = (np.cross(xs, sup[:, 3:]) + sup[:, :3]).sum(0) + (np.cross(x, F_app) + M_app).sum(0)
    return {"reactions": {nm: {"force": sup[k, 3:].tolist(), "moment": sup[k, :3].tolist()} for k, nm in enumerate(names)},
            "joint_reactions": {nm: {"force": w[3:].tolist(), "moment": w[:3].tolist()} for nm, w in
                                zip(frame.joint_rows.labels, frame.joint_reactions(q, lam), strict=True)},
            "reactions_frame": "spatial; on the rod, moment about the node (joints: on rod b)",
            "reactions_plus_loads": {"force": F.tolist(), "moment_about_origin": M.tolist(), "t": t}}
