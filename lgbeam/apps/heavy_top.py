"""The ``heavy-top`` case kind: seed 004 §2.4's heavy top in one of four Lie groups, integrated by a
half-explicit Lie group method; writes solution.npz, diagnostics.csv and a ParaView series (the centre
of mass as a vertex carrying the body frame d1, d2, d3; the fixed point is the origin).

``errors(solution, reference)`` compares the group-independent output (positions, rotations, λ) at
the reference's final time, so a study can mix groups and methods.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.models.heavy_top import GROUPS, HeavyTop
from lgbeam.solve import MechanicalState, Solution
from lgbeam.systems import ConstrainedMechanicalSystem

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("heavy-top",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "group": Key(str, "S3R3", doc="configuration group", choices=tuple(GROUPS)),
        "mass": Key(float, 15.0, doc="mass m"),
        "inertia": Key(list, [0.234375, 0.46875, 0.234375], doc="principal inertia about the centre of mass"),
        "X": Key(list, [0.0, 1.0, 0.0], doc="centre of mass in the body frame, seen from the fixed point"),
        "gravity": Key(list, [0.0, 0.0, -9.81], doc="gravitational acceleration"),
    },
    "initial": {
        "omega": Key(list, [0.0, 150.0, -4.61538], doc="initial body angular velocity Ω(0)"),
        "project": Key(bool, False, doc="project inconsistent initial data onto the constraints"),
    },
    "integrator": integrator_section(
        tuple(methods_for(ConstrainedMechanicalSystem)), "hedop5", rtol=1e-8, atol=1e-8,
        project=Key(bool, False, doc="project q onto Φ = 0 and v onto B v = 0 after every step")),
    "time": time_section(),
    "output": output_section(0.01),
}


def _vec3(value: Any, key: str) -> tuple[float, float, float]:
    arr = np.asarray(value, dtype=float)
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"case key '{key}' must be 3 finite numbers, got {value!r}")
    return tuple(float(a) for a in arr)  # type: ignore[return-value]


def build(case: dict[str, Any]) -> tuple[HeavyTop, np.ndarray, np.ndarray]:
    """(top, q0, v0) of a validated case; ValueError for anything inconsistent."""
    m = case["model"]
    top = HeavyTop(m["group"], float(m["mass"]), _vec3(m["inertia"], "model.inertia"), _vec3(m["X"], "model.X"),
                   _vec3(m["gravity"], "model.gravity"))
    q0, v0 = top.initial_state(_vec3(case["initial"]["omega"], "initial.omega"))
    return top, q0, v0


def problem(case: dict[str, Any]) -> Problem:
    """The heavy top of a validated case as a ``Problem`` for the runner."""
    top, q0, v0 = build(case)
    G = top.group

    def frame(y: MechanicalState):
        from lgbeam.io.vtk import rigid_body_frame

        R, x = G.rotation(y.q), G.translation(y.q)
        xdot = R @ y.v[3:] if top.semidirect else y.v[3:]
        return rigid_body_frame(x[None], R[None], point_data={"velocity": xdot[None], "angular_velocity": y.v[None, :3]})

    def arrays(sol: Solution) -> dict[str, Any]:
        q = np.asarray(sol.q)
        return {"t": sol.t, "positions": G.translation(q)[:, None], "rotations": G.rotation(q)[:, None],
                "lam": sol.lam, "q": q, "v": sol.v, "group": G.name}

    return Problem(top, MechanicalState(q0, v0), frame, arrays,
                   summary=lambda sol: {"phi_max": float(sol.summary["phi"]["max"])},
                   method_options={"project_steps": case["integrator"]["project"],
                                   "project_initial": case["initial"]["project"]})


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the heavy top; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Errors at the reference's final time: position, rotation (max entry) and relative λ error."""
    k = index_at_reference_end(solution, reference)
    lam, lam_ref = np.asarray(solution["lam"])[k], np.asarray(reference["lam"])[-1]
    return {
        "position": float(np.max(np.abs(np.asarray(solution["positions"])[k] - np.asarray(reference["positions"])[-1]))),
        "rotation": float(np.max(np.abs(np.asarray(solution["rotations"])[k] - np.asarray(reference["rotations"])[-1]))),
        "lam_rel": float(np.max(np.abs(lam - lam_ref)) / max(np.max(np.abs(lam_ref)), 1e-300)),
    }
