"""The ``frame`` case kind: named Cosserat rods joined by joints (``lgbeam.discretisations.frames``), static
(path following, ``analysis.kind = "static"``) or dynamic (any method of ``ConstrainedMechanicalSystem``).

Case sections::

    [model]              n_elements, constraints, material (defaults of every rod)
    [[model.nodes]], [[model.members]]   the engineer's form (nodes by name, members with section, material,
                         orientation, releases; ``_frame_members.py``, docs/frames.md "Nodes and members"), or
    [[model.rods]]       name, start + end (straight) | points (polyline; length, if given, must agree),
                         n_elements, roll, constraints, material (overrides of the defaults)
    [[model.joints]]     a = [rod, node], b = [rod, node], kind = rigid | hinge | ball | elastic, axis, frame,
                         rotational_stiffness, name
    [[model.masses]]     node (or rod + node), mass, inertia = [Jxx, Jyy, Jzz] (global axes): point masses
    [[supports]]         node (a named node) or rod + the keys of a rod's [[supports.at]] (docs/supports.md)
    [loads]              nodal = [{node | rod + node, force, moment, frame, time, ...}], distributed = [{member |
                         rod, force, ...}], gravity = [gx, gy, gz] (every rod); [[loads.cases]] and
                         [[loads.combinations]] selected by analysis.load_case

Output: solution.npz (t, q, v, lam, positions, rotations, rod_names, rod_offsets, s, reactions, joint_reactions,
section_force/section_moment per edge, spatial; node_names, node_ids of a nodes + members case),
paraview/<name>.pvd of ``.vtp`` polylines (one per rod) with the engineering arrays of ``frames.output`` and
<name>.pvsm (docs/output.md); member_forces.csv, diagrams.png and deflected.png (N, V, M per member in its local
axes and the deflected shape at the last state, ``_frame_diagrams``; docs/frames.md "Member forces and diagrams");
static: richardson.csv and solution.npz ``richardson_displacement`` (``analysis.richardson``, ``frame_richardson``).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary, _frame_ground
from lgbeam.apps._frame_diagrams import (
    choose_view,
    member_forces,
    path_node,
    plot_deflected,
    plot_diagrams,
    section_resultants,
    write_member_forces,
)
from lgbeam.apps._frame_members import _table, rods_form
from lgbeam.apps._rod_supports import AT_KEYS
from lgbeam.apps._runner import Problem, check_work, run_problem, write_diagnostics
from lgbeam.apps.rod import SCHEMA as ROD_SCHEMA
from lgbeam.apps.rod import _material, _time_function, method_options
from lgbeam.discretisations.frames import Joint, Structure
from lgbeam.discretisations.frames.corotational import MASS_KINDS, CorotationalStructure, check_members
from lgbeam.discretisations.frames.output import display_scale, engineering_frame
from lgbeam.discretisations.rods import (
    CosseratRod,
    DistributedLoad,
    Gravity,
    NodalLoad,
    PointMass,
    RodMesh,
    Support,
    polyline,
    straight,
    viscous,
)
from lgbeam.discretisations.rods.supports import resolve_node
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section, vector3
from lgbeam.solve import MechanicalState, Solution
from lgbeam.solve.driver import AlsoRecord
from lgbeam.systems import ConstrainedMechanicalSystem

logger = logging.getLogger(__name__)

WORK_BYTES_PER_NODE = 20_000  # measured: 20 kB a node for the static path at 3000-12000 nodes (docs/frames.md)
ROD_KEYS = ("name", "start", "end", "points", "length", "n_elements", "roll", "constraints", "material")
JOINT_KEYS = ("a", "b", "kind", "axis", "frame", "rotational_stiffness", "name")
LOAD_KEYS = ("rod", "node", "force", "moment", "frame", "time", "scale", "times", "values", "t_on")
CONSTRAINTS = ("kirchhoff", "kirchhoff+inextensible", "inextensible", "none")
ELEMENTS = ("cosserat", "corotational")

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("frame",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "n_elements": Key(int, 8, doc="edges per rod (default of every rod; a rod's own n_elements wins)"),
        "constraints": Key(str, "kirchhoff", doc="internal constraints of every rod", choices=CONSTRAINTS),
        "element": Key(str, "cosserat", doc="the member model: 'cosserat' (the geometrically exact rod) or 'corotational' "
                       "(Crisfield's cubic Hermite beam in a rotating frame: end-loaded members exact, frequencies "
                       "O(N⁻⁴); docs/frames.md \"The corotational element\")", choices=ELEMENTS),
        "mass": Key(str, "consistent", doc="corotational element: 'consistent' (Hermite, constant in the nodes' body "
                    "frames; modes and dynamics) or 'lumped' (the rods' diagonal mass)", choices=MASS_KINDS),
        "material": dict(ROD_SCHEMA["model"]["material"]),
        "rods": Key(list, [], doc="[[model.rods]] tables: name, start + end | points (+ length), n_elements, roll, "
                    "constraints, material (or nodes + members)"),
        "nodes": Key(list, [], doc="[[model.nodes]] tables: name, at = [x, y, z] (with [[model.members]])"),
        "members": Key(list, [], doc="[[model.members]] tables: name, nodes (2+ node names), section (library name "
                       "or table), material (grade or table E, G | nu, rho), orientation, releases = {start, end}, "
                       "n_elements, constraints"),
        "masses": Key(list, [], doc="[[model.masses]] tables: node (or rod + node), mass (kg), inertia = [Jxx, Jyy, "
                      "Jzz] (kg m², global axes)"),
        "joints": Key(list, [], doc="[[model.joints]] tables: a = [rod, node], b = [rod, node], kind (rigid | hinge "
                      "| ball | elastic), axis, frame, rotational_stiffness, name"),
    },
    "supports": Key(list, [], doc="[[supports]] tables: rod + node | s, kind | fix, axis, frame, stiffness, "
                    "rotational_stiffness, motion, name (docs/supports.md)"),
    "loads": {
        "nodal": Key(list, [], doc="list of {rod, node, force, moment, frame, time, scale, times, values, t_on}",
                     unit="N, N m"),
        "distributed": Key(list, [], doc="list of {rod, force (per length), frame, time, scale, times, values}",
                           unit="N/m"),
        "gravity": Key(list, None, doc="gravitational acceleration [gx, gy, gz] on every rod", unit="m/s²"),
        "cases": Key(list, [], doc="[[loads.cases]] tables: name, nodal, distributed, gravity (added to the loads "
                     "above when selected)"),
        "combinations": Key(list, [], doc="[[loads.combinations]] tables: name, factors = {case = factor, ...}"),
        "ground": Key(list, [], doc="[[loads.ground]] tables (dynamics): direction (unit vector), record (PEER .AT2 or "
                      "two columns t, a; relative to the case file), units ('g' | 'm/s2'), scale: uniform base "
                      "excitation, the motion solved relative to the moving base (docs/dynamics.md)"),
    },
    "damping": {
        "kind": Key(str, "none", doc="damping by ratio in dynamic runs: 'rayleigh' (C = a0 M + a1 K0, the ratio exact at "
                    "two modes) or 'modal' (C = M Φ diag(2ζω) Φᵀ M: the ratio on each of n_modes modes, higher modes "
                    "undamped); adds to model.material.damping (docs/dynamics.md)", choices=viscous.KINDS),
        "ratio": Key((float, list), 0.05, doc="damping ratio ζ (fraction of critical; rayleigh: one or two numbers, "
                     "modal: one or one per mode)"),
        "modes": Key(list, [1, 2], doc="rayleigh: the two modes (1-based) whose ratio is exact"),
        "n_modes": Key(int, None, doc="modal: the number of damped modes (default 12, at most the case's free modes)"),
    },
    "integrator": integrator_section(tuple(methods_for(ConstrainedMechanicalSystem)), "hedop5", time_unit="s",
                                     **{k: v for k, v in ROD_SCHEMA["integrator"].items()
                                        if k in ("rho_inf", "index", "quadrature")}),
    "time": time_section(unit="s") | {"t_end": Key(
        float, None, unit="s", doc="end time of a dynamic analysis; the instant of the loads of a static path, of "
        "buckling and of modes about the static state; lgbeam modes about the reference needs none")},
    "analysis": dict(ROD_SCHEMA["analysis"]) | {
        "load_case": Key(str, None, doc="the load case or combination applied with the loads of [loads] (default: "
                         "every [[loads.cases]] once)"),
        "richardson": Key(bool, True, doc="static, lgbeam modes and --buckling: also solve with half and twice the "
                          "elements per member and report Richardson's extrapolation with its error estimate "
                          "(richardson.csv, modes.csv; docs/frames.md \"Accuracy per member\"); dynamics ignore it")},
    "output": output_section(0.05, edge_data=True, time_unit="s") | {
        "node": Key(str, None, doc="static: the named node whose displacements path.csv and path.png follow (default: "
                    "the node that moves most over the path)")},
}


def _vec(where: str, value: Any) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{where} must be 3 finite numbers [x, y, z], got {value!r}")
    return a


def _geometry(spec: dict[str, Any], where: str, n: int) -> tuple[RodMesh, np.ndarray]:
    from lgbeam.groups import S3R3

    G = S3R3()
    if spec.get("points") is not None:
        if spec.get("start") is not None or spec.get("end") is not None:
            raise ValueError(f"{where}: give either start + end (a straight rod) or points (a polyline), not both")
        P = np.asarray(spec["points"], dtype=float)
        if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2:
            raise ValueError(f"{where}.points must be a list of >= 2 points [x, y, z], got {spec['points']!r}")
        length = float(np.sum(np.linalg.norm(np.diff(P, axis=0), axis=1)))
        declared = spec.get("length", length)
        try:
            return (mesh := RodMesh.uniform(float(declared), n)), polyline(G, mesh, points=P)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if spec.get("start") is None or spec.get("end") is None:
        raise ValueError(f"{where}: give start = [x, y, z] and end = [x, y, z] (a straight rod) or points (a polyline)")
    a, b = _vec(f"{where}.start", spec["start"]), _vec(f"{where}.end", spec["end"])
    length = float(np.linalg.norm(b - a))
    if length == 0.0:
        raise ValueError(f"{where}: start and end coincide")
    if spec.get("length") is not None and abs(float(spec["length"]) - length) > 1e-6 * length:
        raise ValueError(f"{where}: length = {spec['length']} disagrees with |end - start| = {length:.10g}; drop length "
                         "or fix the points")
    mesh = RodMesh.uniform(length, n)
    return mesh, straight(G, mesh, start=a, direction=b - a, roll=float(spec.get("roll", 0.0)))


def _rod_loads(case: dict[str, Any], name: str) -> tuple[Any, ...]:
    out: list[Any] = []
    sec = case["loads"]
    for k, spec in enumerate(sec["nodal"]):
        where = f"loads.nodal[{k}]"
        spec = _table(spec, where, LOAD_KEYS)
        if "rod" not in spec or "node" not in spec:
            raise ValueError(f"{where} needs rod = <name> and node")
        if spec["rod"] == name:
            out.append(NodalLoad(node=spec["node"], force=vector3(f"{where}.force", spec.get("force", [0.0] * 3)),
                                 moment=vector3(f"{where}.moment", spec.get("moment", [0.0] * 3)),
                                 frame=spec.get("frame", "spatial"), time=_time_function(spec, where)))
    for k, spec in enumerate(sec["distributed"]):
        where = f"loads.distributed[{k}]"
        spec = _table(spec, where, tuple(set(LOAD_KEYS) - {"node", "moment"}))
        if "rod" not in spec or "force" not in spec:
            raise ValueError(f"{where} needs rod = <name> and force")
        if spec["rod"] == name:
            out.append(DistributedLoad(force=vector3(f"{where}.force", spec["force"]), frame=spec.get("frame", "spatial"),
                                       time=_time_function(spec, where)))
    if sec.get("gravity") is not None:
        out.append(Gravity(sec["gravity"]))
    return tuple(out)


def _rod_masses(case: dict[str, Any], name: str, mesh: RodMesh, q_ref: np.ndarray) -> tuple[PointMass, ...]:
    """The point masses on rod ``name``; a global inertia diag(J) turned into the node's directors (it must be
    diagonal there: the lumped inertia is diagonal in the directors)."""
    from lgbeam.groups import S3R3

    out = []
    for k, spec in enumerate(case["model"]["masses"]):
        where = f"model.masses[{k}]"
        spec = _table(spec, where, ("rod", "node", "mass", "inertia"))
        if spec.get("rod") != name:
            continue
        try:
            i = mesh.node_index(spec.get("node", "start"))
            J = np.zeros(3)
            if "inertia" in spec:
                J = _vec(f"{where}.inertia", spec["inertia"])
                R = S3R3().rotation(q_ref[i])
                Jb = R.T @ np.diag(J) @ R
                if np.max(np.abs(Jb - np.diag(np.diag(Jb)))) > 1e-9 * max(float(np.max(np.abs(J))), 1e-300):
                    raise ValueError(f"the inertia {J.tolist()} (global axes) is not diagonal in the axes of rod "
                                     f"{name!r} at this node; give equal values or attach it to an aligned rod")
                J = np.diag(Jb)
            out.append(PointMass(node=i, mass=spec.get("mass", 0.0), inertia=J))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    return tuple(out)


def _rod_supports(case: dict[str, Any], name: str, mesh: RodMesh) -> tuple[Support, ...]:
    out = []
    for k, spec in enumerate(case["supports"]):
        where = f"supports[{k}]"
        kw = dict(_table(spec, where, ("rod", *AT_KEYS)))
        if kw.pop("rod", None) != name:
            continue
        if "fix" in kw and isinstance(kw["fix"], list):
            kw["fix"] = tuple(kw["fix"])
        try:
            out.append(Support(kw.pop("node", None), kw.pop("kind", None), kw.pop("motion", None), **kw))
            resolve_node(out[-1], mesh)
        except ValueError as err:
            raise ValueError(f"{where} (rod {name!r}): {err}") from None
    return tuple(out)


def build(case: dict[str, Any]) -> Structure:
    """The structure of a validated frame case; ValueError (one line, exit 2) for anything inconsistent."""
    case = rods_form(case)
    mod = case["model"]
    corot = mod.get("element", "cosserat") == "corotational"
    rods: dict[str, CosseratRod] = {}
    if not mod["rods"]:
        raise ValueError("model.rods is empty: a frame needs [[model.nodes]] + [[model.members]] or [[model.rods]] tables")
    for k, spec in enumerate(mod["rods"]):
        where = f"model.rods[{k}]"
        spec = _table(spec, where, ROD_KEYS)
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where} needs a name")
        if name in rods:
            raise ValueError(f"{where}: a second rod named {name!r}; give the rods distinct names")
        n = spec.get("n_elements", mod["n_elements"])
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"{where}.n_elements must be a positive integer, got {n!r}")
        mesh, q_ref = _geometry(spec, where, n)
        mat_spec = dict(mod["material"])
        over = _table(spec.get("material", {}), f"{where}.material", tuple(ROD_SCHEMA["model"]["material"]))
        if over and any(k2 in over for k2 in ("E", "G", "rho", "section")):  # a physical section replaces sectional data
            mat_spec = {k2: v for k2, v in mat_spec.items() if k2 not in ("EA", "GA", "EI", "GJ", "rhoA", "rhoJ")}
        elif over and any(k2 in over for k2 in ("EA", "GA", "EI", "GJ", "rhoA", "rhoJ")):  # and the other way round
            mat_spec = {k2: v for k2, v in mat_spec.items() if k2 not in ("E", "G", "rho", "section")}
        mat_spec.update(over)
        cons = spec.get("constraints", mod["constraints"])
        if cons not in CONSTRAINTS:
            raise ValueError(f"{where}.constraints = {cons!r} is not one of {', '.join(CONSTRAINTS)}")
        try:
            material = _material(mat_spec)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        rods[name] = CosseratRod(mesh=mesh, material=material, q_ref=q_ref, supports=_rod_supports(case, name, mesh),
                                 loads=_rod_loads(case, name), kirchhoff="kirchhoff" in cons and not corot,
                                 inextensible="inextensible" in cons and not corot,
                                 point_masses=_rod_masses(case, name, mesh, q_ref))
    for what, items in (("supports", case["supports"]), ("loads.nodal", case["loads"]["nodal"]),
                        ("loads.distributed", case["loads"]["distributed"]), ("model.masses", mod["masses"])):
        for k, spec in enumerate(items):
            if isinstance(spec, dict) and spec.get("rod") not in rods:
                raise ValueError(f"{what}[{k}]: no rod named {spec.get('rod')!r}; the rods are {', '.join(map(repr, rods))}")
    joints = []
    for k, spec in enumerate(mod["joints"]):
        where = f"model.joints[{k}]"
        kw = dict(_table(spec, where, JOINT_KEYS))
        if "a" not in kw or "b" not in kw:
            raise ValueError(f"{where} needs a = [rod, node] and b = [rod, node]")
        try:
            joints.append(Joint(tuple(kw.pop("a")), tuple(kw.pop("b")), kw.pop("kind", "rigid"), **kw))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if corot:
        check_members(rods)
    try:
        if corot:  # cubic elements on the rods' nodes (their constraints do not apply: an Euler–Bernoulli element)
            return CorotationalStructure(rods=rods, joints=tuple(joints), mass_kind=mod.get("mass", "consistent"))
        return Structure(rods=rods, joints=tuple(joints))
    except ValueError as err:
        raise ValueError(f"model.joints: {err}") from None


def node_ids(case: dict[str, Any], frame: Structure) -> dict[str, int]:
    """Named nodes of a nodes + members case -> their node of the structure (the first member end there)."""
    ends = rods_form(case)["model"].get("node_ends", {})
    names = list(frame.names)
    return {n: int(frame.node_offsets[names.index(r)]) + (0 if e == "start" else frame.rod(r).n_nodes - 1)
            for n, (r, e) in ends.items()}


def member_rods(case: dict[str, Any], frame: Structure) -> dict[str, list[str]]:
    """Member name -> its rods, start to end: the members of a nodes + members case, else one member per rod."""
    return dict(rods_form(case)["model"].get("member_rods") or {n: [n] for n in frame.names})


def write_member_diagrams(case: dict[str, Any], frame: Structure, run_dir: Path, q: np.ndarray, lam: np.ndarray,
                          v: np.ndarray | None, state: str, history: dict[str, np.ndarray] | None = None, *,
                          t: float = 0.0, load_factor: float = 1.0) -> dict[str, Any]:
    """member_forces.csv, diagrams.png and deflected.png of the state (q, λ, v) at time ``t`` and load factor
    ``load_factor`` (``_frame_diagrams``); returns the plot's view and labels, and the deflected shape's scale factor
    and largest displacement. ``history`` (saved t, q, v, lam): member_forces.csv also gets the max/min rows over
    those frames (the envelopes)."""
    members = member_rods(case, frame)
    forces = member_forces(frame, members, q, lam, v, t=t, load_factor=load_factor)
    envelope = None
    if history is not None:
        _, hi, lo = _frame_ground.envelopes(lambda j: member_forces(frame, members, history["q"][j], history["lam"][j],
                                                                     history["v"][j], t=float(history["t"][j]),
                                                                     load_factor=load_factor), len(history["t"]))
        envelope = (hi, lo)
    write_member_forces(run_dir / "member_forces.csv", forces, state, envelope)
    if not all(np.all(np.isfinite(mf.values)) for mf in forces):  # a run that blew up: the numbers say it
        logger.warning("diagrams.png not drawn: the member forces at %s are not finite", state)
        return {"view": None, "panels": [], "labels": []}
    drawn = plot_diagrams(forces, run_dir / "diagrams.png", f"{case['name']}: member forces at {state}")
    drawn["deflected"] = plot_deflected(frame, q, node_ids(case, frame), choose_view(forces), run_dir / "deflected.png",
                                        f"{case['name']} at {state}")
    return drawn


def solution_arrays(frame: Structure, t: np.ndarray, q: np.ndarray, v: np.ndarray, lam: np.ndarray,
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
                                    section_resultants(frame, q[j], lam[j], v[j], float(tl[j]), float(lf[j]))])
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


def balance(frame: Structure, t: float, q: np.ndarray, lam: np.ndarray) -> dict[str, Any]:
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


def _poly(frame: Structure, name: str, q: np.ndarray, v: np.ndarray | None, lam: np.ndarray | None, t: float) -> Any:
    from lgbeam.io.vtk import PolyFrame

    return PolyFrame(*engineering_frame(frame, q, v, lam, t, name=name))


def check_size(case: dict[str, Any]) -> None:
    """Refuse, before anything is built, a frame whose working memory (WORK_BYTES_PER_NODE a node, measured
    for the static path and HEDOP5 alike) exceeds output.max_memory_gb."""
    n_nodes = 0
    for spec in rods_form(case)["model"]["rods"]:  # a nodes + members case in its rods form
        n = spec.get("n_elements", case["model"]["n_elements"]) if isinstance(spec, dict) else None
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:  # anything else: build() says what is wrong
            n_nodes += n + 1
    check_work(case, WORK_BYTES_PER_NODE * n_nodes, f"a frame of {n_nodes} nodes")


def load_time(case: dict[str, Any], use: str) -> float:
    """``time.t_end`` where ``use`` needs it (the instant of the loads of a static path, a buckling or a modes
    analysis about the static state; the end of a dynamic run); one line naming the key when the case has none."""
    t_end = case["time"].get("t_end")
    if t_end is None:
        raise ValueError(f"time.t_end is not set: {use} needs it; add it to the case ([time] t_end = 1.0) or "
                         "--set time.t_end=…")
    return float(t_end)


def problem(case: dict[str, Any]) -> Problem:
    """A dynamic frame case as a ``Problem`` for the runner (starts at rest in the reference configuration)."""
    load_time(case, "a dynamic analysis (it runs from time.t0 to time.t_end)")
    check_size(case)
    frame = build(case)
    damped = viscous.build(frame, case.get("damping", {}))
    lines = viscous.summary_lines(damped) if damped is not None else []
    if damped is not None:
        frame = dataclasses.replace(frame, viscous=damped)
    ground = _frame_ground.build(case, frame)
    if ground is not None:
        frame = dataclasses.replace(frame, ground=ground)
    q0, v0 = frame.q_ref.copy(), np.zeros(frame.n_dofs)
    name, t0 = str(case["name"]), float(case["time"]["t0"])
    frame.check_initial_velocity(q0, v0, t=t0)

    def arrays(sol: Solution) -> dict[str, Any]:
        out = solution_arrays(frame, np.asarray(sol.t), np.asarray(sol.q), np.asarray(sol.v), np.asarray(sol.lam),
                              node_ids(case, frame))
        if ground is not None:  # positions are relative to the moving base; the ground's own motion beside them
            a, v, x = ground.vectors(np.asarray(sol.t))
            out |= {"ground_acceleration": a, "ground_velocity": v, "ground_displacement": x,
                    "base_shear": out["reactions"][:, :, 3:].sum(1)}
        return out

    def summary(sol: Solution) -> dict[str, Any]:
        out = balance(frame, float(np.asarray(sol.t)[-1]), np.asarray(sol.q)[-1], np.asarray(sol.lam)[-1])
        if damped is not None:
            out |= {"damping": {"kind": damped.kind, "a0": damped.a0, "a1": damped.a1,
                                "omega_rad_s": damped.omega.tolist(), "ratio": damped.ratios(damped.omega).tolist()},
                    "lines": lines}
        return out

    return Problem(frame, MechanicalState(q0, v0), lambda y: _poly(frame, name, y.q, y.v, y.lam, 0.0), arrays,
                   summary=summary, work_bytes=WORK_BYTES_PER_NODE * frame.n_nodes, method_options=method_options(case),
                   diagnostics=True if ground is None else AlsoRecord(_frame_ground.diagnostics(frame, ground)))


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Run a frame case (static path or dynamics); write the run folder and paraview/<name>.pvsm."""
    from lgbeam.io.paraview_state import write_state

    run_dir = Path(run_dir)
    if case["analysis"]["kind"] == "static":
        load_time(case, "a static analysis (its loads are taken at t = time.t_end)")
        if resume:
            raise ValueError("a static analysis has no checkpoint to resume; run it again")
        if case["loads"].get("ground"):
            raise ValueError("loads.ground (a ground-motion record) needs a dynamic run: set analysis.kind = "
                             "'dynamic' (and the time and integrator tables), or drop [[loads.ground]]")
        check_size(case)
        structure = build(case)
        summary = run_static(case, structure, run_dir)
    else:
        prob = problem(case)
        structure = prob.system
        if structure.ground is not None and not resume:
            _frame_ground.copy_records(case, run_dir)
        summary = run_problem(case, run_dir, prob, progress=progress, resume=resume)
        with np.load(run_dir / "solution.npz") as z:
            saved = {k: z[k] for k in ("t", "q", "v", "lam")} if len(z["t"]) else None
        if saved is not None and structure.ground is not None:  # peaks over every saved frame
            entry, more = _frame_ground.peaks(structure, node_ids(case, structure), structure.G.translation(saved["q"]))
            summary.extra["ground_motion"] = {"records": [c.name for c in structure.ground.components], "nodes": entry}
            summary.extra["lines"] = summary.extra.get("lines", []) + more
        if saved is not None and "signal" not in summary.extra:  # a stopped run exits at once
            write_member_diagrams(case, structure, run_dir, saved["q"][-1], saved["lam"][-1], saved["v"][-1],
                                  f"t = {float(saved['t'][-1]):.6g} (the last saved frame)",
                                  history=saved if structure.ground is not None else None, t=float(saved["t"][-1]))
    if case["output"]["vtk"]:
        write_state(run_dir / "paraview" / f"{case['name']}.pvd", display_scale(structure))
    return summary


def run_static(case: dict[str, Any], frame: Structure, run_dir: Path) -> RunSummary:
    """The static path of a frame case (``rods.statics.solve_static``, which runs a structure unchanged)."""
    from lgbeam.apps.rod_static import plot_path, settings, write_path_csv
    from lgbeam.discretisations.rods.statics import solve_static
    from lgbeam.io.atomic import atomic_write
    from lgbeam.io.vtk import PVDSeries

    t0, t1 = float(case["time"]["t0"]), float(case["time"]["t_end"])
    named, follow = node_ids(case, frame), case["output"].get("node")
    if follow is not None and follow not in named:
        raise ValueError(f"output.node = {follow!r} names no node of the case; use one of "
                         f"{', '.join(map(repr, named)) or '(none: give [[model.nodes]] names)'}")
    path = solve_static(frame, t=t1, **settings(case))
    n = len(path.states)
    ts = t0 + (t1 - t0) * np.arange(n) / max(n - 1, 1)
    q = np.stack([s.q for s in path.states])
    lam = np.stack([s.lam for s in path.states])
    v = np.zeros((n, frame.n_dofs))
    if case["output"]["vtk"]:
        with PVDSeries(run_dir / "paraview" / f"{case['name']}.pvd",
                       edges=case["output"].get("edge_data", True)) as series:
            for t, qq, ll in zip(ts, q, lam, strict=True):
                series.write_frame(float(t), _poly(frame, str(case["name"]), qq, None, ll, t1))
    arrays = solution_arrays(frame, ts, q, v, lam, named, load_t=t1,
                             load_factors=np.array([s.load_factor for s in path.states]))
    arrays |= {"load_factor": np.array([s.load_factor for s in path.states]),
               "n_negative": np.array([s.n_negative for s in path.states])}
    k, label = path_node(frame, named, path.states, follow)
    write_path_csv(path, frame.G, run_dir / "path.csv", k, label)
    plot_path(path, frame.G, run_dir / "path.png", str(case["name"]), k, label)
    drawn = write_member_diagrams(case, frame, run_dir, path.final.q, path.final.lam, None,
                                  f"load factor {path.final.load_factor:.6g} (the last converged state)", t=t1,
                                  load_factor=path.final.load_factor)
    write_diagnostics(run_dir / "diagnostics.csv", {
        "t": ts, "h": np.zeros(n), "accepted": np.ones(n), "energy": np.array([frame.energy(t1, qq, v[0]) for qq in q]),
        "phi": np.array([np.linalg.norm(frame.constraints(qq)) for qq in q]), "bv": np.zeros(n)})
    last = path.final
    status = "ok" if path.status == "ok" else path.status
    lines: list[str] = []
    rich: dict[str, Any] = {}
    if case["analysis"].get("richardson") and path.status == "ok":
        rich, u_r, lines = _richardson_static(case, frame, path, run_dir)
        if u_r is not None:
            arrays["richardson_displacement"] = u_r
    with atomic_write(run_dir / "solution.npz") as fh:
        np.savez(fh, **arrays)
    extra = {"analysis": "static", "load_factor": last.load_factor, "n_negative": last.n_negative,
             "load_steps_taken": path.n_steps, "diagrams": {"view": drawn["view"], "panels": drawn["panels"],
                                                                "deflected": drawn.get("deflected")},
             "events": [{"kind": e.kind, "load_factor": e.load_factor,
                         "bracket": [e.lower, e.upper] if np.isfinite(e.lower) else None} for e in path.events],
             **balance(frame, t1, last.q, last.lam), **({"richardson": rich} if rich else {}),
             **({"lines": lines} if lines else {})}
    return RunSummary(status=status, message=path.message, n_steps=path.n_steps, n_rejected=path.cutbacks,
                      t_final=t1, extra=extra)


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Errors at the reference's final time, rod by rod at the nodes with the same arc length in both (nested
    meshes): relative position error, the largest nodal displacement error, the largest rotation difference."""
    from lgbeam.apps._runner import index_at_reference_end

    k = index_at_reference_end(solution, reference)
    names = list(np.asarray(solution["rod_names"]))
    if names != list(np.asarray(reference["rod_names"])):
        raise ValueError("solution and reference have different rods; compare runs of the same frame case")
    xs, xr, Rs, Rr = [], [], [], []
    for j in range(len(names)):
        o, orf = np.asarray(solution["rod_offsets"]), np.asarray(reference["rod_offsets"])
        s, sr = np.asarray(solution["s"])[o[j]:o[j + 1]], np.asarray(reference["s"])[orf[j]:orf[j + 1]]
        jj = np.clip(np.searchsorted(sr, s - 1e-9 * max(sr[-1], 1.0)), 0, sr.size - 1)
        common = np.abs(sr[jj] - s) <= 1e-9 * max(sr[-1], 1.0)
        xs.append(np.asarray(solution["positions"])[k, o[j]:o[j + 1]][common])
        xr.append(np.asarray(reference["positions"])[-1, orf[j] + jj[common]])
        Rs.append(np.asarray(solution["rotations"])[k, o[j]:o[j + 1]][common])
        Rr.append(np.asarray(reference["rotations"])[-1, orf[j] + jj[common]])
    x, x_ref, R, R_ref = (np.concatenate(a) for a in (xs, xr, Rs, Rr))
    return {"position_rel": float(np.linalg.norm(x - x_ref) / np.linalg.norm(x_ref)),
            "displacement": float(np.max(np.linalg.norm(x - x_ref, axis=1))),
            "rotation": float(np.max(np.abs(R - R_ref)))}


def frequencies(case: dict[str, Any], n: int) -> np.ndarray:
    """The ``n`` lowest natural frequencies (Hz) of the frame about its reference (``rods.modal.modes`` runs a
    structure as one rod; ``lgbeam study --quantity frequency(mode=K)``)."""
    from lgbeam.discretisations.rods import modal

    return modal.modes(build(case), n).omega / (2.0 * np.pi)


def _richardson_static(case: dict[str, Any], frame: Structure, path: Any,
                       run_dir: Path) -> tuple[dict[str, Any], np.ndarray | None, list[str]]:
    """Solve the static path again with half and twice the elements per member and write richardson.csv
    (``frame_richardson``). Returns the summary entry, the extrapolated displacement of every node of the case's
    mesh at the final state (None when the doubled mesh did not converge) and the lines to print."""
    from lgbeam.apps import frame_richardson as fr
    from lgbeam.apps.rod_static import settings
    from lgbeam.discretisations.rods.statics import solve_static

    t1 = float(case["time"]["t_end"])
    try:
        cases, structures = fr.built_family(case, frame, build, check_size)
    except ValueError as err:
        logger.warning("%s", err)
        return {"skipped": str(err)}, None, [f"no Richardson correction: {err}"]
    results, finals = [], []
    for c, fr_c in zip(cases, structures, strict=True):
        p = path if c is case else solve_static(fr_c, t=t1, **settings(c))
        if p.status != "ok":  # the case's own path is "ok" here
            msg = (f"the {fr.meshes_label([c])}-element mesh's static path ended {p.status} ({p.message}); no "
                   "Richardson correction")
            logger.warning(msg)
            return {"skipped": msg}, None, [msg]
        st = p.final
        finals.append((fr_c, st))
        ends = {mf.name: mf.values[[0, -1]] for mf in member_forces(fr_c, member_rods(c, fr_c), st.q, st.lam, t=t1,
                                                                     load_factor=st.load_factor)}
        results.append(fr.static_quantities(fr_c, fr.named_nodes(fr_c, node_ids(c, fr_c)), st.q, st.lam, t1, ends,
                                            [e.load_factor for e in p.events if e.kind == "limit point"]))
    table, scales = fr.static_table(results)
    fr.write_rows(run_dir / "richardson.csv", table)
    (fc, sc), (ff, sf) = finals[-2], finals[-1]
    common = fr.common_nodes([fc, ff])
    G = frame.G
    u_c = G.translation(fc._q(sc.q))[common[0]] - G.translation(fc._q(fc.q_ref))[common[0]]
    u_f = G.translation(ff._q(sf.q))[common[1]] - G.translation(ff._q(ff.q_ref))[common[1]]
    u_r = fr.richardson(u_c, u_f)
    disp = [r for r in table if r["unit"] == "m"]
    big = max(disp, key=lambda r: abs(r["value"]))
    w = fr.worst(table, scales)
    label = fr.meshes_label(cases)
    entry = {"meshes": label, "file": "richardson.csv", "largest_displacement": {k: big[k] for k in (
        "quantity", "value", "error_estimate")}, "largest_relative_error_estimate": w}
    lines = [(f"Richardson ({label} elements per member; richardson.csv): {big['quantity']} = {big['value']:.6g} m "
              f"± {big['error_estimate']:.2g}; largest relative error estimate {w['relative']:.1e} ({w['quantity']})")]
    return entry, u_r, lines
