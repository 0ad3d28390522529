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

The case is translated once a run into the typed ``FrameModel`` (``_frame_model.frame_model``; ``model_of``);
the structure, the named nodes, the members and Richardson's meshes are read from the model (docs/frames.md
"The frame model").

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

from lgbeam.apps import RunSummary, _frame_ground, _frame_model
from lgbeam.apps import frame_richardson as fr
from lgbeam.apps._frame_diagrams import (
    choose_view,
    member_forces,
    path_node,
    plot_deflected,
    plot_diagrams,
    write_member_forces,
)
from lgbeam.apps._runner import Problem, check_work, run_problem, write_diagnostics
from lgbeam.apps.paraview_frames import poly_frame
from lgbeam.apps.rod import SCHEMA as ROD_SCHEMA
from lgbeam.apps.rod import method_options
from lgbeam.discretisations.frames import Structure
from lgbeam.discretisations.frames.corotational import MASS_KINDS
from lgbeam.discretisations.frames.model import CONSTRAINTS, ELEMENTS, FrameModel
from lgbeam.discretisations.frames.output import balance, display_scale, solution_arrays
from lgbeam.discretisations.rods import viscous
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.solve import MechanicalState, Solution
from lgbeam.solve.driver import AlsoRecord
from lgbeam.systems import ConstrainedMechanicalSystem

__all__ = ["SCHEMA", "balance", "build", "check_size", "errors", "frequencies", "member_rods", "model_of",
           "node_ids", "problem", "run", "run_static", "solution_arrays", "write_member_diagrams"]
logger = logging.getLogger(__name__)

WORK_BYTES_PER_NODE = 20_000  # measured: 20 kB a node for the static path at 3000-12000 nodes (docs/frames.md)

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("frame",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "n_elements": Key(int, 8, doc="edges per rod (default of every rod; a rod's own n_elements wins)"),
        "constraints": Key(str, "kirchhoff", doc="internal constraints of every rod", choices=CONSTRAINTS),
        "element": Key(str, "corotational", doc="the member model: 'corotational' (the default: Crisfield's cubic "
                       "Hermite beam in a rotating frame, large rotations and small strains: end-loaded members exact, "
                       "frequencies O(N⁻⁴); docs/frames.md \"The corotational element\") or 'cosserat' (the "
                       "geometrically exact rod: flexible rods, large strains)", choices=ELEMENTS),
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


def model_of(case: dict[str, Any], frame: Structure | None = None) -> FrameModel:
    """The typed model of a frame case: the one ``frame`` was built from, else the case translated
    (``_frame_model.frame_model``, the one translation of a run)."""
    if frame is not None and frame.model is not None:
        return frame.model
    return _frame_model.frame_model(case)


def build(case: dict[str, Any], model: FrameModel | None = None) -> Structure:
    """The structure of a validated frame case (of its ``model`` when given); ValueError (one line, exit 2) for
    anything inconsistent."""
    return (model or model_of(case)).structure()


def node_ids(case: dict[str, Any], frame: Structure) -> dict[str, int]:
    """Named nodes of a nodes + members case -> their node of the structure (the first member end there)."""
    return model_of(case, frame).node_ids()


def member_rods(case: dict[str, Any], frame: Structure) -> dict[str, list[str]]:
    """Member name -> its rods, start to end: the members of a nodes + members case, else one member per rod."""
    return model_of(case, frame).member_rods()


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


def check_size(case: dict[str, Any], model: FrameModel | None = None) -> None:
    """Refuse, before the structure is built, a frame whose working memory (WORK_BYTES_PER_NODE a node, measured
    for the static path and HEDOP5 alike) exceeds output.max_memory_gb."""
    n_nodes = (model or model_of(case)).n_nodes
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
    model = model_of(case)
    check_size(case, model)
    frame = model.structure()
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

    def vtk(y: Any) -> Any:  # a PolyFrame: apps/_runner.Problem.frame is typed Frame but writes PolyFrame as well
        return poly_frame(frame, name, y.q, y.v, y.lam, 0.0)

    return Problem(frame, MechanicalState(q0, v0), vtk, arrays,
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
        model = model_of(case)
        check_size(case, model)
        structure = model.structure()
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
                series.write_frame(float(t), poly_frame(frame, str(case["name"]), qq, None, ll, t1))
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
        rich, u_r, lines = fr.static_correction(case, model_of(case, frame), frame, path, run_dir,
                                                lambda m: check_size(case, m))
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
