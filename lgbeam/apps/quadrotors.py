"""The ``quadrotors`` case kind: seed 000 §6's two quadrotors carrying a point-mass payload on cables, a
time-dependent ODE on the homogeneous space TR³ × (TSO(3))² × (TS²)², integrated by the Lie group methods on
homogeneous spaces (``hs-*`` RKMK, ``cf*`` commutator-free, ``cg3``; ``ambient-*`` baselines;
docs/lie-group-methods.md). The model and its data are the companion code's (``lgbeam.models.quadrotors``).

Defaults: the run behind seed 000 Figs 14–18: RKMK4 at h = 0.01 on [0, 5]. Notes §8.5 (independent
re-implementation): |y − y_d| at t = 0, 0.5, …, 5 = 0.90139, 2.93078, 1.20609, 0.03138, 0.09551, 0.02123,
0.00345, 0.00245, 0.00024, 0.00015, 0.00005 (Fig. 16); link errors at t = 3 about 4e-4 and 5e-4 (Fig. 17)
(tests/test_seed_cases_lie.py).

Writes solution.npz (t; P (n_t, 42); y, y_desired (n_t, 3); positions (n_t, 3, 3): payload, quadrotor 1,
quadrotor 2 (x_i = y − L_i q_i); rotations (n_t, 3, 3, 3), the payload's the identity; tracking and link
errors at the saved times), diagnostics.csv (the method's per-step |y − y_d|, |q_i − q_id|, | |q_i| − 1 |,
|q_i·w_i|, ‖R_iᵀR_i − I‖), a ParaView series (the quadrotors as vertices carrying their frames, the payload
and the desired load position y_d as points, the cables as lines; drawn with z up, i.e. the seed's frame,
whose e₃ points down along gravity, turned by π about e₁) and figures/quadrotors.png (Figs 14–18).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from lgbeam.apps import RunSummary
from lgbeam.apps._figures import load_run, new_figure, save
from lgbeam.apps._runner import Problem, index_at_reference_end, run_problem
from lgbeam.integrators.registry import methods_for
from lgbeam.io.schema import Key, integrator_section, output_section, time_section
from lgbeam.models.quadrotors import TwoQuadrotorsPayload
from lgbeam.solve import Solution
from lgbeam.systems import HomogeneousSpaceODE

UP = np.diag([1.0, -1.0, -1.0])  # the seed's e₃ points down; ParaView gets z up (a proper rotation)

SCHEMA: dict[str, Any] = {
    "kind": Key(str, doc="case kind", choices=("quadrotors",)),
    "name": Key(str, doc="case name"),
    "description": Key(str, "", doc="one-line description"),
    "model": {
        "payload_mass": Key(float, 0.4, doc="payload mass m_y"),
        "masses": Key(list, [0.755, 0.755], doc="quadrotor masses m₁, m₂"),
        "lengths": Key(list, [0.6, 0.8], doc="cable lengths L₁, L₂"),
        "inertia": Key(list, [0.0820, 0.0845, 0.1377], doc="quadrotor principal inertia J (both)"),
        "moments": Key(list, [1.0, 1.0, 1.0], doc="constant body moments M_i (the code's; no attitude control)"),
        "gravity": Key(float, 9.81, doc="gravitational acceleration g (along +e₃, the seed's convention)"),
        "gains": Key(list, [12.0, 5.0, 16.0, 5.0], doc="controller gains k_y, k_ẏ, k_q, k_w (the code's)"),
    },
    "integrator": integrator_section(tuple(methods_for(HomogeneousSpaceODE)), "hs-rkmk4", h=0.01, rtol=1e-6,
                                     atol=1e-8),
    "time": time_section(5.0),
    "output": output_section(0.05),
}


def build(case: dict[str, Any]) -> tuple[TwoQuadrotorsPayload, np.ndarray]:
    """(model, P0) of a validated case (the code's initial state); ValueError (exit 2) for bad data."""
    m = case["model"]
    gains = np.asarray(m["gains"], dtype=float)
    if gains.shape != (4,) or not np.all(np.isfinite(gains)):
        raise ValueError(f"case key 'model.gains' must be 4 numbers (k_y, k_ẏ, k_q, k_w), got {m['gains']!r}")
    if not (np.isfinite(m["gravity"]) and m["gravity"] >= 0):
        raise ValueError(f"case key 'model.gravity' must be a finite number ≥ 0, got {m['gravity']!r}")
    try:
        model = TwoQuadrotorsPayload(payload_mass=float(m["payload_mass"]), masses=np.asarray(m["masses"], float),
                                     lengths=np.asarray(m["lengths"], float), inertia=np.asarray(m["inertia"], float),
                                     moments=np.asarray(m["moments"], float), gravity=float(m["gravity"]),
                                     gains=tuple(float(g) for g in gains))  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"quadrotors case: {exc}") from None
    return model, model.initial_state()


def _bodies(model: TwoQuadrotorsPayload, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(positions (3, 3): payload, quadrotor 1, 2; rotations (3, 3, 3), the payload's I) in the seed's frame."""
    S = model.split(P)
    quads = S["y"] - model.lengths[:, None] * S["q"]
    return np.vstack([S["y"], quads]), np.concatenate([np.eye(3)[None], S["R"]])


def problem(case: dict[str, Any]) -> Problem:
    """The quadrotors of a validated case as a ``Problem`` for the runner."""
    model, P0 = build(case)

    def frame(P: np.ndarray):  # type: ignore[no-untyped-def]
        from lgbeam.io.vtk import linked_bodies_frame

        pos, R = _bodies(model, P)
        v = model.split(P)["v"]
        # bodies: quadrotors 1, 2 (points 0, 1); the payload is point 2; cables 2–0 and 2–1
        return linked_bodies_frame(pos[1:] @ UP, UP @ R[1:] @ UP, [[2, 0], [2, 1]], points=pos[:1] @ UP,
                                   point_data={"payload_velocity": np.vstack([np.zeros((2, 3)), v @ UP])})

    def arrays(sol: Solution) -> dict[str, Any]:
        P = np.asarray(sol.y)
        t = np.asarray(sol.t)
        pos_rot = [_bodies(model, p) for p in P]
        inv = [model.invariants(tk, p) for tk, p in zip(t, P)]
        return {"t": t, "P": P, "y": P[:, :3], "y_desired": np.array([model.desired(tk)[0] for tk in t]),
                "positions": np.array([a for a, _ in pos_rot]), "rotations": np.array([b for _, b in pos_rot]),
                "lengths": model.lengths, "tracking": np.array([d["tracking"] for d in inv]),
                "link_error_1": np.array([d["link_error_1"] for d in inv]),
                "link_error_2": np.array([d["link_error_2"] for d in inv])}

    def summary(sol: Solution) -> dict[str, Any]:
        s = sol.summary
        return {"tracking_final": float(s["tracking"]["last"]), "unit_q_max": float(s["unit_q"]["max"])}

    return Problem(model, P0, frame, arrays, summary=summary)


def run(case: dict[str, Any], run_dir: Path, *, progress: bool = False, resume: bool = False) -> RunSummary:
    """Integrate the quadrotors; write solution.npz, diagnostics.csv and paraview/<name>.pvd."""
    return run_problem(case, run_dir, problem(case), progress=progress, resume=resume)


def figures(run_dir: Path) -> list[Path]:
    """figures/quadrotors.png: seed 000 Fig. 14 (the load path with the cables at 11 instants, e₃ down),
    Fig. 15 (load position against y_d), Fig. 16 (|y − y_d|), Fig. 17 (cable-direction errors) and Fig. 18
    (| |q_i| − 1 | and ‖R_iᵀR_i − I‖)."""
    sol, diag = load_run(run_dir)
    t, y, yd, pos = sol["t"], sol["y"], sol["y_desired"], sol["positions"]
    fig = new_figure(15, 7.5)
    a = fig.add_subplot(2, 3, 1, projection="3d")
    a.plot(y[:, 0], y[:, 1], y[:, 2], "b-", lw=0.8, label="load")
    a.plot(yd[:, 0], yd[:, 1], yd[:, 2], "r--", lw=0.6, label="y_d")
    for k in np.unique(np.linspace(0, len(t) - 1, 11).astype(int)):
        for i in (1, 2):
            a.plot(*np.stack([pos[k, 0], pos[k, i]]).T, "k-", lw=0.6)
            a.plot(*pos[k, i][:, None], "o", ms=3, color=f"C{i}")
    a.invert_zaxis()
    a.set_title("Fig. 14: load path and cables (e₃ down)")
    a.legend(fontsize=7)
    b = fig.add_subplot(2, 3, 2)
    for k, c in enumerate("xyz"):
        b.plot(t, y[:, k], "b-", lw=0.8)
        b.plot(t, yd[:, k], "r--", lw=0.8)
    b.set(xlabel="t", title="Fig. 15: load position (blue) and y_d (red)")
    td = diag["t"]
    c = fig.add_subplot(2, 3, 3)
    c.semilogy(td, diag["tracking"])
    c.set(xlabel="t", title="Fig. 16: |y − y_d|")
    d = fig.add_subplot(2, 3, 4)
    d.semilogy(td, diag["link_error_1"], label="|q₁ − q₁d|")
    d.semilogy(td, diag["link_error_2"], label="|q₂ − q₂d|")
    d.set(xlabel="t", title="Fig. 17: cable-direction errors")
    d.legend(fontsize=7)
    e = fig.add_subplot(2, 3, 5)
    e.semilogy(td, np.maximum(diag["unit_q"], 1e-17), lw=0.7, label="max | |q_i| − 1 |")
    for key in (k for k in diag if k.startswith("orthogonality")):
        e.semilogy(td, np.maximum(diag[key], 1e-17), lw=0.7, label=f"{key} (‖RᵀR − I‖)")
    e.set(xlabel="t", title="Fig. 18: constraints kept")
    e.legend(fontsize=6)
    f = fig.add_subplot(2, 3, 6)
    f.semilogy(td[diag["h"] > 0], diag["h"][diag["h"] > 0], ".-", ms=2, lw=0.5)
    f.set(xlabel="t", ylabel="h", title="step size")
    return [save(fig, run_dir, "quadrotors.png")]


def errors(solution: dict[str, Any], reference: dict[str, Any]) -> dict[str, float]:
    """2-norm of the 42-vector difference at the reference's final time (seed 000 Fig. 13's error) and the load
    position error."""
    k = index_at_reference_end(solution, reference)
    P, P_ref = np.asarray(solution["P"])[k], np.asarray(reference["P"])[-1]
    return {"state": float(np.linalg.norm(P - P_ref)), "load": float(np.linalg.norm(P[:3] - P_ref[:3]))}
