"""The engineer's vocabulary of a ``frame`` case, translated into the rods + joints form that
``_frame_model.frame_model`` turns into the typed ``FrameModel``, once a run (docs/frames.md "Nodes and members"):

    [[model.nodes]]     name, at = [x, y, z]
    [[model.members]]   name, nodes = [two or more node names] (a polyline: one straight rod per segment, named
                        "<member>" or "<member>.1", "<member>.2", …), section (a library name or a table),
                        material (a grade or a table E, G | nu, rho), orientation (a vector in the local x–z
                        plane), releases = {start = [...], end = [...]} of "rx", "ry", "rz", n_elements,
                        constraints
    [[model.masses]]    node (or rod + node), mass (kg), inertia = [Jxx, Jyy, Jzz] (kg m², global axes)
    [[supports]], loads.nodal: node = <node name> (instead of rod + node); loads.distributed: member = <name>
    [[loads.cases]]     name, nodal, distributed, gravity;  [[loads.combinations]] name, factors = {case = f}
    analysis.load_case  the case or combination applied on top of the loads of [loads] (default: every case once)

Members that share a node are joined rigidly unless an end is released: at each node the first unreleased member
end is the reference and every other end is joined to it by a joint in that end's own axes (a hinge about the
released axes, a ball when all three are released). Local axes of a segment: x along it, z the component of
``orientation`` normal to x, y = z × x; the rod's directors are d₁ = y, d₂ = z, d₃ = x (``sections.py``), set
through the rods' ``roll``. Default orientation: e_z (web vertical), or e_x for a vertical member.
"""

from __future__ import annotations

import copy
import logging
import math
from typing import Any

import numpy as np

from lgbeam._tables import check_keys
from lgbeam.discretisations.frames import model
from lgbeam.discretisations.rods import sections as sec
from lgbeam.io.schema import is_real

NODE_KEYS = ("name", "at")
MEMBER_KEYS = ("name", "nodes", "section", "material", "orientation", "releases", "n_elements", "constraints")
MASS_KEYS = ("node", "rod", "mass", "inertia")
CASE_KEYS = ("name", "nodal", "distributed", "gravity")
COMBINATION_KEYS = ("name", "factors")
_NOTED: set[str] = set()  # sections whose note (what the rod does not model) was logged, once a process
logger = logging.getLogger(__name__)
RELEASES = {"rx": "z", "ry": "x", "rz": "y"}  # member axis -> director axis of the joint frame ("local")


def _table(spec: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be a table with keys {', '.join(keys)}")  # noqa: TRY004 - exit 2
    check_keys(spec, keys, where)
    return spec


def _vec(where: str, value: Any) -> np.ndarray:
    ok = isinstance(value, list) and all(is_real(v) for v in value)  # "10e3" is text, not a number
    a = np.asarray(value, dtype=float) if ok else np.full(1, np.nan)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise ValueError(f"{where} must be 3 finite numbers [x, y, z], got {value!r}")
    return a


def local_axes(direction: np.ndarray, orientation: Any, where: str) -> np.ndarray:
    """(3, 3) columns (y, z, x) = the directors (d₁, d₂, d₃) of a straight segment along ``direction``
    (``frames.model.local_axes`` of the parsed ``orientation``)."""
    v = None if orientation is None else _vec(f"{where}.orientation", orientation)
    return model.local_axes(direction, v, where)


def _material(mspec: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The member's sectional data, or None (the model's default material)."""
    if "section" not in mspec:
        if "material" in mspec:
            raise ValueError(f"{where}: material without section; give section = a library name or a table")
        return None
    if "material" not in mspec:
        raise ValueError(f"{where}: section without material; give material = {' | '.join(sec.GRADES)} or a table "
                         "{E, G (or nu), rho}")
    section = sec.section(mspec["section"], f"{where}.section")
    if section.note and section.name not in _NOTED:  # once a process (a study builds many cases)
        _NOTED.add(section.name)
        logger.warning("%s (%s): %s", where, section.name, section.note)
    return sec.sectional(section, sec.grade(mspec["material"], f"{where}.material"))


def _releases(spec: Any, where: str) -> dict[str, tuple[str, ...]]:
    if spec is None:
        return {}
    spec = _table(spec, f"{where}.releases", ("start", "end"))
    out = {}
    for end, items in spec.items():
        if not isinstance(items, list) or any(r not in RELEASES for r in items) or len(set(items)) != len(items):
            raise ValueError(f"{where}.releases.{end} must be a list of distinct 'rx', 'ry', 'rz' (rotations about the "
                             f"member's local axes), got {items!r}")
        if items:
            out[end] = tuple(items)
    return out


def _joint(a: tuple[str, str], b: tuple[str, str], released: tuple[str, ...], name: str) -> dict[str, Any]:
    if not released:
        return {"a": list(a), "b": list(b), "kind": "rigid", "name": name}
    if len(released) == 3:
        return {"a": list(a), "b": list(b), "kind": "ball", "name": name}
    axis = "".join(sorted(RELEASES[r] for r in released))
    return {"a": list(a), "b": list(b), "kind": "hinge", "axis": axis, "frame": "local", "name": name}


def _inertia_end(ends: list[tuple[str, str, np.ndarray]], J: np.ndarray, where: str) -> tuple[str, str]:
    """The member end at a node whose directors make diag(J) (global axes) diagonal."""
    for rod, end, R in ends:
        if model.director_inertia(J, R) is not None:
            return rod, end
    raise ValueError(f"{where}: the inertia {J.tolist()} (global axes) is not diagonal in the axes of any member at "
                     "this node; give equal values or align a member with the global axes")


def _apply_cases(case: dict[str, Any]) -> None:
    """Add the selected load case or combination (analysis.load_case) to case['loads'], in place."""
    loads = case["loads"]
    cases = {}
    for k, spec in enumerate(loads.get("cases", [])):
        spec = _table(spec, f"loads.cases[{k}]", CASE_KEYS)
        nm = spec.get("name")
        if not isinstance(nm, str) or not nm or nm in cases:
            raise ValueError(f"loads.cases[{k}] needs a name, distinct from the other cases'")
        cases[nm] = spec
    combos = {}
    for k, spec in enumerate(loads.get("combinations", [])):
        spec = _table(spec, f"loads.combinations[{k}]", COMBINATION_KEYS)
        nm = spec.get("name")
        if not isinstance(nm, str) or not nm or nm in combos or nm in cases:
            raise ValueError(f"loads.combinations[{k}] needs a name, distinct from the cases' and combinations'")
        f = spec.get("factors")
        if not isinstance(f, dict) or not f:
            raise ValueError(f"loads.combinations[{k}].factors must be a table {{case = factor, ...}}")
        for c, v in f.items():
            if c not in cases:
                raise ValueError(f"loads.combinations[{k}].factors: no load case {c!r}; the cases are "
                                 f"{', '.join(map(repr, cases)) or 'none'}")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"loads.combinations[{k}].factors.{c} must be a number, got {v!r}")
        combos[nm] = {c: float(v) for c, v in f.items()}
    sel = case["analysis"].get("load_case")
    if sel is None:
        factors = dict.fromkeys(cases, 1.0)
    elif sel in combos:
        factors = combos[sel]
    elif sel in cases:
        factors = {sel: 1.0}
    else:
        raise ValueError(f"analysis.load_case = {sel!r} names no load case or combination; use one of "
                         f"{', '.join(map(repr, [*cases, *combos])) or '(none defined: add [[loads.cases]])'}")
    g = None if loads.get("gravity") is None else _vec("loads.gravity", loads["gravity"])
    for c, fac in factors.items():
        spec = cases[c]
        for what in ("nodal", "distributed"):
            items = spec.get(what, [])
            if not isinstance(items, list):
                raise ValueError(f"loads.cases {c!r}.{what} must be a list of load tables")  # noqa: TRY004 - exit 2
            for item in items:
                if not isinstance(item, dict):
                    raise ValueError(f"loads.cases {c!r}.{what}: each load must be a table, got {item!r}")  # noqa: TRY004
                loads[what] = [*loads[what], {**item, "scale": fac * float(item.get("scale", 1.0))}]
        if spec.get("gravity") is not None:
            g = (0.0 if g is None else g) + fac * _vec(f"loads.cases {c!r}.gravity", spec["gravity"])
    loads["gravity"] = None if g is None else g.tolist()
    loads.pop("cases", None)
    loads.pop("combinations", None)


def rods_form(case: dict[str, Any]) -> dict[str, Any]:
    """A copy of a validated frame case in the rods + joints form (module docstring); the case itself if it has
    neither nodes/members nor load cases."""
    mod = case["model"]
    loads = case["loads"]
    if not (mod.get("nodes") or mod.get("members") or loads.get("cases") or loads.get("combinations")
            or case["analysis"].get("load_case") is not None):
        return case
    case = copy.deepcopy(case)
    mod, loads = case["model"], case["loads"]
    _apply_cases(case)
    if not (mod.get("nodes") or mod.get("members")):
        return case
    if mod.get("rods") or mod.get("joints"):
        raise ValueError("model: give either nodes + members or rods + joints, not both")
    if not mod.get("nodes") or not mod.get("members"):
        raise ValueError("model: nodes and members go together: [[model.nodes]] name, at and [[model.members]] name, "
                         "nodes")
    nodes: dict[str, np.ndarray] = {}
    for k, spec in enumerate(mod["nodes"]):
        where = f"model.nodes[{k}]"
        spec = _table(spec, where, NODE_KEYS)
        nm = spec.get("name")
        if not isinstance(nm, str) or not nm or nm in nodes:
            raise ValueError(f"{where} needs a name, distinct from the other nodes'")
        nodes[nm] = _vec(f"{where}.at", spec.get("at"))
    rods: list[dict[str, Any]] = []
    ends: dict[str, list[tuple[str, str, tuple[str, ...], np.ndarray]]] = {nm: [] for nm in nodes}
    members: dict[str, list[str]] = {}
    for k, spec in enumerate(mod["members"]):
        where = f"model.members[{k}]"
        spec = _table(spec, where, MEMBER_KEYS)
        nm = spec.get("name")
        if not isinstance(nm, str) or not nm or nm in members:
            raise ValueError(f"{where} needs a name, distinct from the other members'")
        ns = spec.get("nodes")
        if not isinstance(ns, list) or len(ns) < 2:
            raise ValueError(f"{where}.nodes must list two or more node names, got {ns!r}")
        for n in ns:
            if n not in nodes:
                raise ValueError(f"{where}.nodes: no node named {n!r}; the nodes are {', '.join(map(repr, nodes))}")
        material = _material(spec, where)
        rel = _releases(spec.get("releases"), where)
        names = [nm] if len(ns) == 2 else [f"{nm}.{j + 1}" for j in range(len(ns) - 1)]
        members[nm] = names
        for j, rname in enumerate(names):
            a, b = nodes[ns[j]], nodes[ns[j + 1]]
            d = b - a
            if not np.linalg.norm(d) > 0.0:
                raise ValueError(f"{where}: nodes {ns[j]!r} and {ns[j + 1]!r} coincide")
            R = local_axes(d, spec.get("orientation"), where)
            rod = {"name": rname, "start": a.tolist(), "end": b.tolist(), "roll": model.roll_of(d, R)}
            for key in ("n_elements", "constraints"):
                if key in spec:
                    rod[key] = spec[key]
            if material is not None:
                rod["material"] = dict(material)
            rods.append(rod)
            ends[ns[j]].append((rname, "start", rel.get("start", ()) if j == 0 else (), R))
            ends[ns[j + 1]].append((rname, "end", rel.get("end", ()) if j == len(names) - 1 else (), R))
    joints = []
    for node, at in ends.items():
        if not at:
            continue
        if len(at) == 1 and at[0][2]:
            raise ValueError(f"member end {at[0][0]}@{at[0][1]}: a release at node {node!r}, where no other member "
                             "joins; drop it (a support's kind says how the node is held)")
        ref = next((e for e in at if not e[2]), at[0])
        for e in at:
            if e is not ref:
                joints.append(_joint((e[0], e[1]), (ref[0], ref[1]), e[2], f"{node}:{e[0]}"))
    first = {node: (at[0][0], at[0][1]) for node, at in ends.items() if at}

    def at_node(spec: dict[str, Any], where: str) -> dict[str, Any]:
        if "rod" in spec:
            return spec
        n = spec.get("node")
        if n not in nodes:
            raise ValueError(f"{where}: no node named {n!r}; the nodes are {', '.join(map(repr, nodes))}")
        if n not in first:
            raise ValueError(f"{where}: node {n!r} is on no member")
        rod, end = first[n]
        return {**spec, "rod": rod, "node": end}

    case["supports"] = [{**at_node(s, f"supports[{k}]"), **({} if "rod" in s or "name" in s else {"name": s["node"]})}
                        if isinstance(s, dict) else s for k, s in enumerate(case["supports"])]
    loads["nodal"] = [at_node(s, f"loads.nodal[{k}]") if isinstance(s, dict) else s
                      for k, s in enumerate(loads["nodal"])]
    dist = []
    for k, s in enumerate(loads["distributed"]):
        if isinstance(s, dict) and "member" in s:
            if s["member"] not in members:
                raise ValueError(f"loads.distributed[{k}]: no member named {s['member']!r}; the members are "
                                 f"{', '.join(map(repr, members))}")
            dist += [{**{kk: v for kk, v in s.items() if kk != "member"}, "rod": r} for r in members[s["member"]]]
        else:
            dist.append(s)
    loads["distributed"] = dist
    masses = []
    for k, s in enumerate(mod.get("masses", [])):
        where = f"model.masses[{k}]"
        s = _table(s, where, MASS_KEYS)
        if "rod" in s:
            masses.append(s)
            continue
        at_node(s, where)  # the node exists and is on a member
        n = s["node"]
        J = _vec(f"{where}.inertia", s["inertia"]) if "inertia" in s else None
        on, end = first[n] if J is None or np.all(J == J[0]) else _inertia_end(
            [(e[0], e[1], e[3]) for e in ends[n]], J, where)
        masses.append({**s, "rod": on, "node": end})
    mod["masses"] = masses
    mod["rods"], mod["joints"] = rods, joints
    mod["nodes"], mod["members"] = [], []
    mod["node_ends"] = first  # node name -> (rod, "start" | "end"): solution.npz node_names / node_ids
    mod["member_rods"] = members  # member name -> its rods, start to end: member_forces.csv, diagrams.png
    return case
