"""The ``rigid-body`` case kind: seed 001 §4.2's rigid body on SO(3) in the potential U_α (or free), integrated by
any of the seven methods of seed 001 ch. 4 (``eln``, ``tln``, ``liemid``, ``prk``, ``mcg``, ``new3``, ``vlv``;
docs/rigid-bodies.md).

    R' = R ω^,  J ω' = Jω × ω + τ(R),  U_α(R) = (m_I(R) − 1)² − α / m_{R_m}(R)   (seed 001 (2.14), (3.2))

The defaults are the thesis' long-time test (J = diag(2, 2, 4), R₀ = exp([0, 0.7227, 0]), ω₀ = [0, 0, 0.625],
α = 0.3, v_m = [2.5, 0, 2.5]/√2) with ELN at h = 0.25 on [0, 10⁴]: the right-hand ELN panel of seed 001 Fig. 4.1
(energy drift; notes/001.md §9.1: slope −4.02e-6, E(T) − E₀ = −3.94e-2).

Writes solution.npz (t, R, ω, energy E, spatial momentum π = RJω at the saved times; ``rotations`` (n_t, 1, 3, 3)),
diagnostics.csv (per step: energy, ‖RᵀR − I‖_F, |π|), a ParaView series of the body as a vertex at the origin
carrying its frame d1, d2, d3 (columns of R; Glyph filter) with ω and π, and figures/rigid-body.png (E − E₀ with
its fitted slope, as Fig. 4.1; ‖RᵀR − I‖).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lgbeam.apps import RunSummary
from lgbeam.apps._bodies import (
    content,
    drift_slope,
    energy_summary,
    method_options,
    positive,
    read_run,
    save,
    vector,
)
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.groups.so3 import exp_so3
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.models.rigid_body import (
    ORTOLAN_ALPHA,
    ORTOLAN_INERTIA,
    ORTOLAN_OMEGA0,
    ORTOLAN_V0,
    ORTOLAN_VM,
    OrtolanPotential,
    RigidBody,
)
from lgbeam.solve import MechanicalState, Solution
from lgbeam.systems import RigidBodySO3

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("rigid-body",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "potential": Key(str, "ortolan", choices=("ortolan", "free"),
                         doc="ortolan: U_α of seed 001 (3.2); free: no potential (π = RJω is then conserved)"),
        "inertia": Key(list, list(ORTOLAN_INERTIA), doc="principal moments of inertia J (body frame)"),
        "alpha": Key(float, ORTOLAN_ALPHA, doc="strength α of the attraction towards R_m"),
        "vm": Key(list, list(ORTOLAN_VM), doc="rotation vector of R_m = exp(v_m) (the attracting attitude)"),
    },
    "initial": {
        "v": Key(list, list(ORTOLAN_V0), doc="rotation vector of R₀ = exp(v₀)"),
        "omega": Key(list, list(ORTOLAN_OMEGA0), doc="body angular velocity ω₀"),
    },
    "integrator": integrator_section(
        tuple(methods_for(RigidBodySO3)), "eln", h=0.25, rtol=None, atol=None,
        retraction=Key(str, None, choices=("cay", "exp"),
                       doc="the map so(3) → SO(3) (omit: each method's thesis choice; seed 001 §4.1: exp instead of "
                       "cay gives a similar drift)")),
    "time": time_section(),
    "output": output_section(50.0),
}


def build(case: dict[str, Any]) -> tuple[RigidBody, MechanicalState]:
    """(body, y0) of a validated case; ValueError for anything inconsistent."""
    m, ini = case["model"], case["initial"]
    J = positive(m["inertia"], "model.inertia")
    if m["potential"] == "free":
        body = RigidBody(J)
    else:
        U = OrtolanPotential(float(m["alpha"]), exp_so3(vector(m["vm"], "model.vm")))
        body = RigidBody(J, U, U.torque)
    return body, body.state(exp_so3(vector(ini["v"], "initial.v")), vector(ini["omega"], "initial.omega"))


def problem(case: dict[str, Any]) -> Problem:
    """The rigid body of a validated case as a ``Problem`` for the runner."""
    body, y0 = build(case)
    J = body.inertia

    def invariants(t: float, y: MechanicalState) -> dict[str, float]:
        R, w = y.q, y.v
        return {"energy": body.energy(R, w), "energy_scale": content(body.energy(R, w), body.potential(R)),
                "orthogonality": float(np.linalg.norm(R.T @ R - np.eye(3))),
                "momentum": float(np.linalg.norm(R @ J @ w))}

    def frame(y: MechanicalState):
        from lgbeam.io.vtk import rigid_body_frame

        return rigid_body_frame(np.zeros((1, 3)), y.q[None],
                                point_data={"angular_velocity": y.v[None], "spatial_momentum": (y.q @ J @ y.v)[None]})

    def arrays(sol: Solution) -> dict[str, Any]:
        R, w = np.asarray(sol.q), np.asarray(sol.v)
        return {"t": sol.t, "R": R, "omega": w, "rotations": R[:, None],
                "energy": np.array([body.energy(a, b) for a, b in zip(R, w)]),
                "momentum": body.spatial_momentum(R, w)}

    opts = method_options(case["integrator"], retraction=case["integrator"].get("retraction"))
    return Problem(body, y0, frame, arrays, diagnostics=invariants, method_options=opts,
                   summary=lambda sol: energy_summary(sol, "orthogonality"))


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the rigid body; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/rigid-body.png: E − E₀ at every step with the least-squares slope of the saved samples (seed 001
    Fig. 4.1's drift measure) and ‖RᵀR − I‖_F."""
    sol, diag = read_run(run_dir)
    slope = drift_slope(sol["t"], sol["energy"] - sol["energy"][0])
    fig = Figure(figsize=(10, 4))
    a1, a2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    a1.plot(diag["t"], diag["energy"] - diag["energy"][0], lw=0.5)
    a1.set_title(f"E − E₀ (seed 001 Fig. 4.1; slope {slope:.3g})", fontsize=9)
    a1.set_xlabel("t")
    a2.semilogy(diag["t"], np.maximum(diag["orthogonality"], 1e-17), lw=0.5)
    a2.set_title("‖RᵀR − I‖_F", fontsize=9)
    a2.set_xlabel("t")
    return [save(fig, run_dir, "rigid-body.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """Frobenius error of R and Euclidean error of ω at the reference's final time (seed 001 Fig. 4.2's measures)."""
    k = index_at_reference_end(solution, reference)
    return {"R": float(np.linalg.norm(np.asarray(solution["R"])[k] - np.asarray(reference["R"])[-1])),
            "omega": float(np.linalg.norm(np.asarray(solution["omega"])[k] - np.asarray(reference["omega"])[-1]))}
