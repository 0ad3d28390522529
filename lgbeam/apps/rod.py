"""The ``rod`` case kind: a Cosserat/Kirchhoff rod (seed 004 §4) integrated with a half-explicit
Lie group method; writes solution.npz, diagnostics.csv and a ParaView series.

Case sections: ``model`` (mesh, geometry, constraints, ``model.material``), ``supports``
(``start``/``end``: clamped | pinned | free | prescribed, with ``start_motion``/``end_motion`` =
{angular_velocity, velocity, displacement, rotation, ramp} for prescribed; ``[[supports.at]]`` tables for
supports anywhere, per degree of freedom, springs: ``_rod_supports.py``, docs/supports.md), ``loads`` (``nodal`` list of tables, ``gravity``,
``distributed``), ``initial`` (rigid initial velocity), ``integrator``, ``time``, ``output``.
``--set model.n_elements=N`` refines the (uniform) mesh of any rod case; ``--set analysis.kind=static``
solves for the static equilibrium under the loads at ``time.t_end`` instead of integrating (two frames:
the reference at t0 and the equilibrium at t_end), e.g. for spatial refinement studies.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._rod_supports import (
    AT_DOC,
    case_supports,
    check_start,
    reaction_arrays,
    reaction_summary,
    section_arrays,
    support_notes,
)
from lgbeam.apps._runner import Problem, check_work, index_at_reference_end, run_problem
from lgbeam.discretisations.rods import (
    CosseratRod,
    DistributedLoad,
    Gravity,
    Material,
    NodalLoad,
    RodMesh,
    TimeFunction,
    arc,
    helix,
    polyline,
    straight,
)
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section, vector3
from lgbeam.solve import MechanicalState, Solution
from lgbeam.systems import ConstrainedMechanicalSystem

logger = logging.getLogger(__name__)

_NUM = (float, list)
SUPPORTS = ("clamped", "pinned", "free", "prescribed")
_MOTION = {
    "angular_velocity": Key(list, [0.0, 0.0, 0.0], doc="prescribed: spatial angular velocity ω about the node", unit="rad/s"),
    "velocity": Key(list, [0.0, 0.0, 0.0], doc="prescribed: translational velocity u of the node", unit="m/s"),
    "ramp": Key(float, 0.0, doc="prescribed: smooth ramp time of ω, u from 0 (0: no ramp)", unit="s"),
}

WORK_BYTES_PER_NODE = 20_000  # working memory of a HEDOP5 run per node (measured: ~13 kB/node at N = 2000-16000)

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("rod",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "n_elements": Key(int, doc="number of edges N (N+1 nodes)"),
        "length": Key(float, doc="rod length L", unit="m"),
        "geometry": Key(str, "straight", doc="initial centreline", choices=("straight", "arc", "helix", "polyline")),
        "start": Key(list, [0.0, 0.0, 0.0], doc="position of the node s = 0", unit="m"),
        "direction": Key(list, [1.0, 0.0, 0.0], doc="initial tangent d3 at s = 0"),
        "roll": Key(float, 0.0, doc="rotation of d1, d2 about d3 at s = 0 (rad)", unit="rad"),
        "radius": Key(float, None, doc="arc/helix radius", unit="m"),
        "pitch": Key(float, 0.0, doc="helix rise per turn", unit="m"),
        "points": Key(list, None, doc="polyline vertices [[x, y, z], ...]", unit="m"),
        "constraints": Key(str, "kirchhoff", doc="internal constraints",
                           choices=("kirchhoff", "kirchhoff+inextensible", "inextensible", "none")),
        "inertia": Key(str, "lumped", doc="nodal weights of the lumped inertia: 'lumped' (trapezoidal), 'end-corrected' "
                       "or 'end-corrected-3' (Gregory end corrections; docs/rod.md Spatial accuracy)",
                       choices=("lumped", "end-corrected", "end-corrected-3")),
        "transverse": Key(str, "d1", doc="deflection direction for the linear beam (lgbeam modes)", choices=("d1", "d2")),
        "display_radius": Key(float, None, doc="tube radius in ParaView (default L/100)", unit="m"),
        "material": {
            "EA": Key(float, None, doc="axial stiffness", unit="N"),
            "GA": Key(_NUM, None, doc="shear stiffness (GA1, GA2)", unit="N"),
            "EI": Key(_NUM, None, doc="bending stiffness (EI1, EI2)", unit="N m²"),
            "GJ": Key(float, None, doc="torsional stiffness", unit="N m²"),
            "rhoA": Key(float, None, doc="mass per length", unit="kg/m"),
            "rhoJ": Key(_NUM, None, doc="rotary inertia per length (3 values or one)", unit="kg m"),
            "E": Key(float, None, doc="Young's modulus (with G, rho, section)", unit="Pa"),
            "G": Key(float, None, doc="shear modulus", unit="Pa"),
            "rho": Key(float, None, doc="density", unit="kg/m³"),
            "section": Key(str, None, doc="cross-section", choices=("circle", "rectangle")),
            "section_radius": Key(float, None, doc="radius of a circular section", unit="m"),
            "width": Key(float, None, doc="rectangle width (along d1)", unit="m"),
            "height": Key(float, None, doc="rectangle height (along d2)", unit="m"),
            "damping": Key(float, 0.0, doc="Kelvin–Voigt damping C_d on all strain rates (stress C_d·ẇ)"),
        },
    },
    "supports": {
        "start": Key(str, "free", doc="support at s = 0", choices=SUPPORTS),
        "end": Key(str, "free", doc="support at s = L", choices=SUPPORTS),
        "start_motion": dict(_MOTION),
        "end_motion": dict(_MOTION),
        "at": Key(list, [], doc=AT_DOC),
    },
    "loads": {
        "nodal": Key(list, [], doc="list of {node, force, moment, frame, time, scale, times, values, t_on} (docs/rod.md Loads)", unit="N, N m"),
        "gravity": Key(list, None, doc="gravitational acceleration [gx, gy, gz]", unit="m/s²"),
        "distributed": Key(list, [], doc="list of {force (per length), frame, time, scale, times, values}", unit="N/m"),
    },
    "initial": {
        "velocity": Key(list, [0.0, 0.0, 0.0], doc="rigid translational velocity (spatial)", unit="m/s"),
        "angular_velocity": Key(list, [0.0, 0.0, 0.0], doc="rigid angular velocity about the origin (spatial)", unit="rad/s"),
    },
    "integrator": integrator_section(
        tuple(methods_for(ConstrainedMechanicalSystem)), "hedop5", time_unit="s",
        rho_inf=Key(float, None, doc="gen-alpha: spectral radius at infinity ρ∞ in [0, 1] (default 0.9)"),
        index=Key(str, None, doc="gen-alpha: constraint form", choices=("3", "2-stabilised")),
        quadrature=Key(str, None, doc="rattle-lgvi: potential quadrature", choices=("midpoint", "trapezoidal"))),
    "time": time_section(unit="s"),
    "analysis": {
        "kind": Key(str, "dynamic", doc="'dynamic' (time integration) or 'static' (equilibrium under the loads "
                    "at time.t_end, Lie group Newton; the settled state of a damped case)", choices=("dynamic", "static")),
        "load_steps": Key(int, 1, doc="static: initial number of load increments (cut back and regrown automatically)"),
        "method": Key(str, "newton", doc="static: 'newton' (load control with line search and cut-back) or "
                      "'arc-length' (Riks, through limit points)", choices=("newton", "arc-length")),
        "max_cutbacks": Key(int, 8, doc="static: halvings of the load step before giving up (smallest step = "
                            "initial / 2^max_cutbacks)"),
        "arc_length": Key(float, None, doc="static, arc-length: first step length (rad / length-per-L norm; "
                          "default load_factor / load_steps)"),
        "max_steps": Key(int, 200, doc="static: most path steps"),
        "load_factor": Key(float, 1.0, doc="static: target multiple of the loads at time.t_end"),
        "tol": Key(float, 1e-10, doc="static: scaled residual max(|R|/F, |Φ|/L) at convergence"),
        "branch_switch": Key(bool, True, doc="static: at a detected bifurcation switch to the branch along the critical mode"),
        "stability": Key(bool, True, doc="static: count negative eigenvalues of the tangent on ker B at every state"),
    },
    "output": output_section(0.05, edge_data=True, time_unit="s"),
}

_LOAD_KEYS = {"node", "force", "moment", "frame", "time", "scale", "times", "values", "t_on"}


def _number(spec: dict[str, Any], key: str, where: str, default: float) -> float:
    v = spec.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{where}.{key} must be a number, got {v!r}")  # noqa: TRY004 - a user error: exit 2
    return float(v)


def _numbers(spec: dict[str, Any], key: str, where: str) -> tuple[float, ...]:
    v = spec.get(key, [])
    if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, (int, float)) for x in v):
        raise ValueError(f"{where}.{key} must be an array of numbers, got {v!r}")
    return tuple(float(x) for x in v)


def _time_function(spec: dict[str, Any], where: str) -> TimeFunction:
    kind = spec.get("time", "constant")
    scale = _number(spec, "scale", where, 1.0)
    if kind == "table":
        return TimeFunction("table", times=_numbers(spec, "times", where),
                            values=tuple(scale * v for v in _numbers(spec, "values", where)))
    if kind not in ("constant", "step", "spaghetti"):
        raise ValueError(f"{where}.time = {kind!r}: use 'constant', 'step', 'spaghetti' (seed 004 eq. (24)) or 'table'")
    return TimeFunction(kind, value=scale, t_on=_number(spec, "t_on", where, 0.0))


def _loads(case: dict[str, Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    sec = case["loads"]
    for k, spec in enumerate(sec["nodal"]):
        where = f"loads.nodal[{k}]"
        if not isinstance(spec, dict) or set(spec) - _LOAD_KEYS or "node" not in spec:
            raise ValueError(f"{where} must be a table with 'node' and some of {', '.join(sorted(_LOAD_KEYS))}")
        force = np.array(vector3(f"{where}.force", spec.get("force", [0.0] * 3)))
        moment = np.array(vector3(f"{where}.moment", spec.get("moment", [0.0] * 3)))
        out.append(NodalLoad(node=spec["node"], force=force, moment=moment,
                             frame=spec.get("frame", "spatial"), time=_time_function(spec, where)))
    for k, spec in enumerate(sec["distributed"]):
        where = f"loads.distributed[{k}]"
        if not isinstance(spec, dict) or set(spec) - (_LOAD_KEYS - {"node", "moment"}) or "force" not in spec:
            raise ValueError(f"{where} must be a table with 'force' and optionally frame, time, scale, times, values")
        out.append(DistributedLoad(force=np.array(vector3(f"{where}.force", spec["force"])),
                                   frame=spec.get("frame", "spatial"), time=_time_function(spec, where)))
    if sec.get("gravity") is not None:
        out.append(Gravity(sec["gravity"]))
    return tuple(out)


def _material(m: dict[str, Any]) -> Material:
    sectional = [k for k in ("EA", "GA", "EI", "GJ", "rhoA", "rhoJ") if m.get(k) is not None]
    physical = [k for k in ("E", "G", "rho", "section") if m.get(k) is not None]
    if sectional and physical:
        raise ValueError("model.material: give either (EA, GA, EI, GJ, rhoA, rhoJ) or (E, G, rho, section), not both")
    if physical:
        missing = [k for k in ("E", "G", "rho", "section") if m.get(k) is None]
        if missing:
            raise ValueError(f"model.material: missing {', '.join(missing)} for the (E, G, rho, section) form")
        return Material.from_section(E=m["E"], G=m["G"], rho=m["rho"], section=m["section"], radius=m.get("section_radius"),
                                     width=m.get("width"), height=m.get("height"), damping=m["damping"])
    missing = [k for k in ("EA", "GA", "EI", "GJ", "rhoA", "rhoJ") if m.get(k) is None]
    if missing:
        raise ValueError(f"model.material: missing {', '.join(missing)} (or give E, G, rho, section)")
    return Material.from_sectional(EA=m["EA"], GA=m["GA"], EI=m["EI"], GJ=m["GJ"], rhoA=m["rhoA"], rhoJ=m["rhoJ"],
                                   damping=m["damping"])


def build(case: dict[str, Any]) -> tuple[CosseratRod, np.ndarray, np.ndarray]:
    """(rod, q0, v0) of a validated rod case; ValueError for anything inconsistent, before any step."""
    from lgbeam.groups import S3R3

    G = S3R3()
    mod = case["model"]
    mesh = RodMesh.uniform(mod["length"], mod["n_elements"])
    geo = mod["geometry"]
    kw = {"start": mod["start"], "direction": mod["direction"], "roll": mod["roll"]}
    if geo == "straight":
        q_ref = straight(G, mesh, **kw)
    elif geo in ("arc", "helix"):
        if mod.get("radius") is None:
            raise ValueError(f"model.geometry = {geo!r} needs model.radius")
        q_ref = arc(G, mesh, radius=mod["radius"], **kw) if geo == "arc" else helix(
            G, mesh, radius=mod["radius"], pitch=mod["pitch"], **kw)
    else:
        if mod.get("points") is None:
            raise ValueError("model.geometry = 'polyline' needs model.points = [[x, y, z], ...]")
        q_ref = polyline(G, mesh, points=mod["points"])
    cons = mod["constraints"]
    rod = CosseratRod(
        mesh=mesh, material=_material(mod["material"]), q_ref=q_ref, supports=case_supports(case["supports"], mesh),
        loads=_loads(case),
        kirchhoff="kirchhoff" in cons, inextensible="inextensible" in cons,
        radius=mod.get("display_radius") or mesh.length / 100.0, inertia=mod["inertia"],
    )
    v0 = rigid_velocity(G, q_ref, case["initial"]["angular_velocity"], case["initial"]["velocity"])
    rod.check_initial_velocity(q_ref, v0, t=float(case["time"]["t0"]))
    return rod, q_ref, v0


def rigid_velocity(G: Any, q: np.ndarray, omega: Any, velocity: Any) -> np.ndarray:
    """Body velocities (Ω_i, U_i) of the rigid motion x' = V + ω × x, R' = ω̂ R; flat (6(N+1),)."""
    om, vel = np.asarray(omega, dtype=float), np.asarray(velocity, dtype=float)
    if om.shape != (3,) or vel.shape != (3,):
        raise ValueError("initial.velocity and initial.angular_velocity must be 3 numbers each")
    R, x = G.rotation(q), G.translation(q)
    xdot = vel + np.cross(om, x)
    Om = np.einsum("nji,j->ni", R, om)
    U = np.einsum("nji,nj->ni", R, xdot)
    return np.concatenate([Om, U], axis=1).ravel()


def problem(case: dict[str, Any]) -> Problem:
    """A dynamic rod case as a ``Problem`` for the runner."""

    n_nodes = int(case["model"]["n_elements"]) + 1
    check_work(case, WORK_BYTES_PER_NODE * n_nodes, f"a rod of {n_nodes} nodes")
    rod, q0, v0 = build(case)
    check_start(rod, float(case["time"]["t0"]), q0)
    notes = support_notes(rod)
    G = rod.G

    def arrays(sol: Solution) -> dict[str, Any]:
        q = np.asarray(sol.q)
        return {"t": np.asarray(sol.t), "s": rod.mesh.s, "positions": G.translation(q), "rotations": G.rotation(q),
                "lam": np.asarray(sol.lam), "q": q, "v": np.asarray(sol.v), "group": "S3R3",
                **reaction_arrays(rod, np.asarray(sol.t), q, np.asarray(sol.lam)),
                **section_arrays(rod, q, np.asarray(sol.lam), np.asarray(sol.v))}

    def tip(sol: Solution) -> dict[str, Any]:
        q, lam = np.asarray(sol.q)[-1], np.asarray(sol.lam)[-1]
        return {"tip": G.translation(q[-1]).tolist(), **reaction_summary(rod, float(np.asarray(sol.t)[-1]), q, lam),
                **({"support_notes": notes} if notes else {})}

    frame = engineering_frame(rod, str(case["name"]))
    return Problem(rod, MechanicalState(q0, v0), lambda y: frame(y.q, y.v, y.lam), arrays,
                   summary=tip, work_bytes=WORK_BYTES_PER_NODE * n_nodes, method_options=method_options(case))


_METHOD_KEYS = {"rho_inf": "gen-alpha", "index": "gen-alpha", "quadrature": "rattle-lgvi"}


def method_options(case: dict[str, Any]) -> dict[str, Any]:
    """The method's own case keys (integrator.rho_inf, .index: gen-alpha; .quadrature: rattle-lgvi). A key of
    another method is ignored with a note when the case file sets it (``--set integrator.method=rattle-lgvi``
    on a gen-α case) and refused when ``--set`` gives it (the user asked for something that cannot happen)."""
    from lgbeam.io.cases import was_set

    integ = case["integrator"]
    out = {}
    for key, method in _METHOD_KEYS.items():
        if integ.get(key) is None:
            continue
        if integ["method"] != method:
            if was_set(case, f"integrator.{key}"):
                raise ValueError(f"--set integrator.{key} applies to method {method!r} only, not "
                                 f"{integ['method']!r}; drop it or set integrator.method = {method!r}")
            logger.warning("integrator.%s = %r of the case file applies to method %r only; ignored for %r",
                           key, integ[key], method, integ["method"])
            continue
        out[key] = integ[key]
    return out


def engineering_frame(rod: CosseratRod, name: str) -> Any:
    """ParaView frame builder of a rod (``lgbeam.apps.paraview_frames.rod_frames``): the ``.vtp`` polyline of
    ``frames.output`` (section resultants with the multipliers, units and frames of every array; docs/output.md)."""
    from lgbeam.apps.paraview_frames import rod_frames

    return rod_frames(rod, name)


def write_state(case: dict[str, Any], rod: CosseratRod, run_dir: Path) -> None:
    """paraview/<name>.pvsm: tubes of the physical radius (× display scale) coloured by |moment|, glyphs d1."""
    from lgbeam.discretisations.frames import Structure
    from lgbeam.discretisations.frames.output import display_scale
    from lgbeam.io.paraview_state import write_state as write

    if case["output"]["vtk"]:
        write(Path(run_dir) / "paraview" / f"{case['name']}.pvd", display_scale(Structure(rods={"rod": rod})))


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate a rod case; write solution.npz, diagnostics.csv and paraview/<name>.pvd (+ .pvsm)."""
    if case["analysis"]["kind"] == "static":
        if resume:
            raise ValueError("a static analysis has no checkpoint to resume; run it again")
        n_nodes = int(case["model"]["n_elements"]) + 1
        check_work(case, WORK_BYTES_PER_NODE * n_nodes, f"a rod of {n_nodes} nodes")  # the static path: ~the same
        rod, q0, _ = build(case)
        summary = _run_static(case, rod, q0, Path(run_dir))
    else:
        prob = problem(case)
        summary = run_problem(case, run_dir, prob, progress=progress, resume=resume)
        rod = prob.system
    write_state(case, rod, Path(run_dir))
    return summary


def _run_static(case: dict[str, Any], rod: CosseratRod, q0: np.ndarray, run_dir: Path) -> RunSummary:
    """Static load path at time.t_end (``rod_static.run_static``: path.csv/png, one frame per state)."""
    from lgbeam.apps.rod_static import run_static

    summary = run_static(case, rod, q0, run_dir)
    summary.extra.update(_notes(rod))
    return summary


def _notes(rod: CosseratRod) -> dict[str, Any]:
    notes = support_notes(rod)
    return {"support_notes": notes} if notes else {}


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Errors at the reference's final time: relative global position error (seed 004 Fig. 9),
    tip position error, and the largest rotation-matrix difference.

    Meshes may differ (spatial refinement studies): positions and rotations are then compared at
    the nodes with the same arclength s in both (for nested uniform meshes, the coarser mesh's
    nodes; always at least the two ends); ``tip`` is the end node s = L in both."""
    k = index_at_reference_end(solution, reference)
    x, xr = np.asarray(solution["positions"])[k], np.asarray(reference["positions"])[-1]
    R, Rr = np.asarray(solution["rotations"])[k], np.asarray(reference["rotations"])[-1]
    if x.shape != xr.shape:
        if "s" not in solution or "s" not in reference:
            raise ValueError(f"solution and reference have different meshes ({x.shape[0]} vs {xr.shape[0]} nodes) "
                             "and no arclengths 's'; rerun them with this version of lgbeam")
        s, sr = np.asarray(solution["s"], float), np.asarray(reference["s"], float)
        tol = 1e-9 * max(float(sr[-1]), 1.0)
        j = np.searchsorted(sr, s).clip(0, sr.size - 1)
        j_left = (j - 1).clip(0)
        j = np.where(np.abs(sr[j_left] - s) < np.abs(sr[j] - s), j_left, j)
        common = np.abs(sr[j] - s) <= tol
        x, xr, R, Rr = x[common], xr[j[common]], R[common], Rr[j[common]]
    return {
        "position_rel": float(np.linalg.norm(x - xr) / np.linalg.norm(xr)),
        "tip": float(np.linalg.norm(x[-1] - xr[-1])),
        "rotation": float(np.max(np.abs(R - Rr))),
    }


def linear_beam_data(case: dict[str, Any]) -> dict[str, Any]:
    """Linear Euler–Bernoulli data of a rod case for ``lgbeam modes``: length, EI (bending about the
    director normal to ``model.transverse``), rhoA, n_elements, supports, and the transverse tip force."""
    mod = case["model"]
    mat = _material(mod["material"])
    # deflection along d1 bends about d2 (EI₂), along d2 about d1 (EI₁)
    k = 1 if mod["transverse"] == "d1" else 0
    out: dict[str, Any] = {
        "length": float(mod["length"]), "EI": float(mat.C_K[k]), "rhoA": float(mat.rhoA),
        "n_elements": int(mod["n_elements"]), "left": case["supports"]["start"], "right": case["supports"]["end"],
    }
    from lgbeam.groups import S3R3

    G = S3R3()
    mesh = RodMesh.uniform(mod["length"], mod["n_elements"])
    q = straight(G, mesh, start=mod["start"], direction=mod["direction"], roll=mod["roll"])
    d = G.rotation(q[-1])[:, 1 - k]  # the transverse director d1 or d2 at the tip
    tip = [ld for ld in _loads(case) if isinstance(ld, NodalLoad) and RodMesh.node_index(mesh, ld.node) == mesh.n_nodes - 1]
    if tip:
        out["tip_force"] = float(sum(ld.time(0.0 if ld.time.kind != "step" else ld.time.t_on) * (ld.force @ d) for ld in tip))
    return out


def frequencies(case: dict[str, Any], n: int) -> np.ndarray:
    """The ``n`` lowest natural frequencies (Hz) of the case's rod about its reference (``rods.modal.modes``, the
    exact tangent; ``lgbeam study --quantity frequency(mode=K)``)."""
    from lgbeam.discretisations.rods import modal

    rod, _, _ = build(case)
    return modal.modes(rod, n).omega / (2.0 * np.pi)
