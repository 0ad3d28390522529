"""The one translation of a ``frame`` case into the typed ``FrameModel``
(``lgbeam.discretisations.frames.model``): ``frame_model(case)``. A nodes + members case is first put in its
rods + joints form (``_frame_members.rods_form``, the load case applied); each [[model.rods]] table then
becomes a ``RodModel`` (geometry, material, constraints, and the supports, loads and point masses that name
it), each [[model.joints]] table a ``Joint``. Every inconsistency is one ValueError naming the key (exit 2);
the structure is assembled from the model (``FrameModel.structure``), never from the case. Nothing of the
mesh's size is allocated here (the size check reads the model first): what needs the mesh (a polyline's
length, a support's or a mass's node) is checked when the structure is built, naming the same keys.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lgbeam.apps._frame_members import _table, rods_form
from lgbeam.apps._rod_supports import AT_KEYS
from lgbeam.apps.rod import SCHEMA as ROD_SCHEMA
from lgbeam.apps.rod import _material, _time_function
from lgbeam.discretisations.frames import Joint
from lgbeam.discretisations.frames.model import CONSTRAINTS, FrameModel, NodeMass, RodModel, rod_geometry
from lgbeam.discretisations.rods import DistributedLoad, Gravity, NodalLoad, Support
from lgbeam.discretisations.rods.loads import Load
from lgbeam.io.schema import vector3

ROD_KEYS = ("name", "start", "end", "points", "length", "n_elements", "roll", "constraints", "material")
JOINT_KEYS = ("a", "b", "kind", "axis", "frame", "rotational_stiffness", "name")
LOAD_KEYS = ("rod", "node", "force", "moment", "frame", "time", "scale", "times", "values", "t_on")
SECTIONAL = ("EA", "GA", "EI", "GJ", "rhoA", "rhoJ")
PHYSICAL = ("E", "G", "rho", "section")


def _vec(where: str, value: Any) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{where} must be 3 finite numbers [x, y, z], got {value!r}")
    return a


def _geometry(spec: dict[str, Any], where: str) -> dict[str, Any]:
    """The ``RodModel`` geometry keys of a [[model.rods]] table: start + end (straight) or points
    (polyline)."""
    if spec.get("points") is not None:
        if spec.get("start") is not None or spec.get("end") is not None:
            raise ValueError(f"{where}: give either start + end (a straight rod) or points (a polyline), "
                             "not both")
        P = np.asarray(spec["points"], dtype=float)
        if P.ndim != 2 or P.shape[1] != 3 or P.shape[0] < 2:
            raise ValueError(f"{where}.points must be a list of >= 2 points [x, y, z], "
                             f"got {spec['points']!r}")
        length = spec.get("length")
        length = None if length is None else float(length)
        try:  # the points against the declared length, on one element (nothing of the mesh's size)
            rod_geometry(P, 1, is_polyline=True, length=length)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
        return {"points": P, "polyline": True, "length": length}
    if spec.get("start") is None or spec.get("end") is None:
        raise ValueError(f"{where}: give start = [x, y, z] and end = [x, y, z] (a straight rod) or points "
                         "(a polyline)")
    a, b = _vec(f"{where}.start", spec["start"]), _vec(f"{where}.end", spec["end"])
    length = float(np.linalg.norm(b - a))
    if length == 0.0:
        raise ValueError(f"{where}: start and end coincide")
    if spec.get("length") is not None and abs(float(spec["length"]) - length) > 1e-6 * length:
        raise ValueError(f"{where}: length = {spec['length']} disagrees with |end - start| = {length:.10g}; "
                         "drop length or fix the points")
    return {"points": np.stack([a, b]), "roll": float(spec.get("roll", 0.0))}


def _rod_material(mod: dict[str, Any], spec: dict[str, Any], where: str) -> Any:
    """The rod's material: the model's, with the rod's own keys over it (a physical section replaces sectional
    data and the other way round)."""
    mat_spec = dict(mod["material"])
    over = _table(spec.get("material", {}), f"{where}.material", tuple(ROD_SCHEMA["model"]["material"]))
    if over and any(k in over for k in PHYSICAL):
        mat_spec = {k: v for k, v in mat_spec.items() if k not in SECTIONAL}
    elif over and any(k in over for k in SECTIONAL):
        mat_spec = {k: v for k, v in mat_spec.items() if k not in PHYSICAL}
    mat_spec.update(over)
    cons = spec.get("constraints", mod["constraints"])
    if cons not in CONSTRAINTS:
        raise ValueError(f"{where}.constraints = {cons!r} is not one of {', '.join(CONSTRAINTS)}")
    try:
        return _material(mat_spec), cons
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None


def _loads(case: dict[str, Any]) -> dict[str, list[Load]]:
    """Rod name -> its nodal and distributed loads; gravity is added to every rod by the caller."""
    out: dict[str, list[Load]] = {}
    sec = case["loads"]
    for k, spec in enumerate(sec["nodal"]):
        where = f"loads.nodal[{k}]"
        spec = _table(spec, where, LOAD_KEYS)
        if "rod" not in spec or "node" not in spec:
            raise ValueError(f"{where} needs rod = <name> and node")
        out.setdefault(spec["rod"], []).append(NodalLoad(
            node=spec["node"], force=np.asarray(vector3(f"{where}.force", spec.get("force", [0.0] * 3))),
            moment=np.asarray(vector3(f"{where}.moment", spec.get("moment", [0.0] * 3))),
            frame=spec.get("frame", "spatial"), time=_time_function(spec, where)))
    for k, spec in enumerate(sec["distributed"]):
        where = f"loads.distributed[{k}]"
        spec = _table(spec, where, tuple(set(LOAD_KEYS) - {"node", "moment"}))
        if "rod" not in spec or "force" not in spec:
            raise ValueError(f"{where} needs rod = <name> and force")
        out.setdefault(spec["rod"], []).append(DistributedLoad(
            force=np.asarray(vector3(f"{where}.force", spec["force"])), frame=spec.get("frame", "spatial"),
            time=_time_function(spec, where)))
    return out


def _supports(case: dict[str, Any]) -> list[tuple[Any, str, Support]]:
    """(rod, where, Support) of every [[supports]] table."""
    out = []
    for k, spec in enumerate(case["supports"]):
        where = f"supports[{k}]"
        kw = dict(_table(spec, where, ("rod", *AT_KEYS)))
        rod = kw.pop("rod", None)
        if "fix" in kw and isinstance(kw["fix"], list):
            kw["fix"] = tuple(kw["fix"])
        try:
            sup = Support(kw.pop("node", None), kw.pop("kind", None), kw.pop("motion", None), **kw)
            out.append((rod, where, sup))
        except ValueError as err:
            raise ValueError(f"{where} (rod {rod!r}): {err}") from None
    return out


def _masses(case: dict[str, Any]) -> list[tuple[Any, str, NodeMass]]:
    """(rod, where, NodeMass) of every [[model.masses]] table (rods form: rod + node)."""
    out = []
    for k, spec in enumerate(case["model"]["masses"]):
        where = f"model.masses[{k}]"
        spec = _table(spec, where, ("rod", "node", "mass", "inertia"))
        J = _vec(f"{where}.inertia", spec["inertia"]) if "inertia" in spec else None
        try:
            out.append((spec.get("rod"), where, NodeMass(spec.get("node", "start"), spec.get("mass", 0.0), J,
                                                         where=where)))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    return out


def _rod(case: dict[str, Any], spec: Any, k: int, placed: dict[str, Any], names: set[str]) -> RodModel:
    """The ``RodModel`` of [[model.rods]] table k, with the supports, loads and masses that name it
    (``placed``)."""
    mod, where = case["model"], f"model.rods[{k}]"
    spec = _table(spec, where, ROD_KEYS)
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where} needs a name")
    if name in names:
        raise ValueError(f"{where}: a second rod named {name!r}; give the rods distinct names")
    n = spec.get("n_elements", mod["n_elements"])
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"{where}.n_elements must be a positive integer, got {n!r}")
    geo = _geometry(spec, where)
    material, cons = _rod_material(mod, spec, where)
    sups = [(at, s) for r, at, s in placed["supports"] if r == name]
    return RodModel(name=name, n_elements=n, material=material, constraints=cons,
                    supports=tuple(s for _, s in sups),
                    loads=(*placed["loads"].get(name, ()), *placed["gravity"]),
                    masses=tuple(m for r, _, m in placed["masses"] if r == name), where=where,
                    support_where=tuple(at for at, _ in sups), **geo)


def _joints(mod: dict[str, Any]) -> tuple[Joint, ...]:
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
    return tuple(joints)


def frame_model(case: dict[str, Any]) -> FrameModel:
    """The typed model of a validated frame case (module docstring); ValueError (one line) for anything
    inconsistent. The one place a frame case is translated: a run calls it once."""
    case = rods_form(case)
    mod = case["model"]
    if not mod["rods"]:
        raise ValueError("model.rods is empty: a frame needs [[model.nodes]] + [[model.members]] or "
                         "[[model.rods]] tables")
    gravity = case["loads"].get("gravity")
    placed: dict[str, Any] = {"loads": _loads(case), "supports": _supports(case), "masses": _masses(case),
                              "gravity": () if gravity is None else (Gravity(gravity),)}
    rods: list[RodModel] = []
    for k, spec in enumerate(mod["rods"]):
        rods.append(_rod(case, spec, k, placed, {r.name for r in rods}))
    names = [r.name for r in rods]
    for what, items in (("supports", case["supports"]), ("loads.nodal", case["loads"]["nodal"]),
                        ("loads.distributed", case["loads"]["distributed"]), ("model.masses", mod["masses"])):
        for k, spec in enumerate(items):
            if isinstance(spec, dict) and spec.get("rod") not in names:
                raise ValueError(f"{what}[{k}]: no rod named {spec.get('rod')!r}; the rods are "
                                 f"{', '.join(map(repr, names))}")
    ends = mod.get("node_ends", {})
    rod_of = {r: i for i, r in enumerate(names)}
    node_rod = np.array([rod_of[r] for r, _ in ends.values()], dtype=np.int64)
    node_end = np.array([e == "end" for _, e in ends.values()], dtype=np.int64)
    xyz = np.array([rods[i].points[-e] for i, e in zip(node_rod, node_end, strict=True)]).reshape(-1, 3)
    return FrameModel(rods=tuple(rods), joints=_joints(mod), element=mod.get("element", "corotational"),
                      mass=mod.get("mass", "consistent"), n_default=int(mod["n_elements"]),
                      node_names=tuple(ends),
                      node_xyz=xyz, node_rod=node_rod, node_end=node_end,
                      members={m: tuple(r) for m, r in (mod.get("member_rods") or {}).items()})
